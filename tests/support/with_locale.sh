#!/bin/sh
# with_locale.sh LOCALE PROGRAM [ARG...]: runs PROGRAM under LC_ALL=LOCALE,
# or skips (a failure under CI=true) when the machine lacks the locale
# (scripts/setup.sh test generates de_DE.UTF-8).
set -eu
. "$(dirname "$0")/skip.sh"
want=$1
shift
norm=$(printf '%s' "$want" | tr 'A-Z' 'a-z' | sed 's/utf-8/utf8/')
locale -a 2>/dev/null | tr 'A-Z' 'a-z' | grep -qx "$norm" \
  || skip "no $want locale (locale-gen generates it; scripts/setup.sh test does)"
LC_ALL=$want exec "$@"
