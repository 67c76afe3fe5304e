#!/bin/sh
# pathscope-gui on a machine with no display and no Qt platform chosen:
# --help prints, --screenshot renders offscreen, and the window itself is
# refused with a message (exit 1), never Qt's "could not connect to display".
#   headless.sh PATHSCOPE PATHSCOPE_GUI
set -u
P=$1 GUI=$2
D=$(mktemp -d /tmp/pathscope_headless.XXXXXX)
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
bare() { env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$@"; }

bare "$GUI" --help > "$D/help.txt" 2>&1 || { cat "$D/help.txt"; fail "--help exited $?"; }
grep -q "^Usage: .*pathscope-gui" "$D/help.txt" || { cat "$D/help.txt"; fail "--help printed no usage"; }

"$P" run samples/default.toml --trials 1 --duration 0.2 --db "$D/s.db" > "$D/run.txt" 2>&1 \
  || { cat "$D/run.txt"; fail "could not make a store"; }
bare "$GUI" "$D/s.db" --screenshot stages -o "$D/stages.png" > "$D/shot.txt" 2>&1 \
  || { cat "$D/shot.txt"; fail "--screenshot without a display failed"; }
[ -s "$D/stages.png" ] || fail "no PNG written"

bare "$GUI" "$D/s.db" > "$D/window.txt" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$D/window.txt"; fail "the window without a display exited $rc, not 1"; }
grep -q "no display" "$D/window.txt" || { cat "$D/window.txt"; fail "no clear message"; }
grep -q "could not connect to display" "$D/window.txt" && fail "Qt's own abort message"
echo "ok: --help, --screenshot and the refusal without a display"
