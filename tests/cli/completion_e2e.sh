#!/bin/sh
# pathscope <Tab> in bash: the completion script `pathscope completion bash`
# prints (the one the package installs) is loaded into a bash, and its
# completion function is called as bash calls it on Tab (COMP_WORDS,
# COMP_CWORD), for verbs, a verb's options, a verb's sub-verbs and files;
# then bash-completion's own loader finds it where the package puts it.
#   completion_e2e.sh PATHSCOPE
# Exit 77 (skipped) without bash, unless CI=true (then it is a failure).
P=$1
. "$(dirname "$0")/../support/skip.sh"
command -v bash >/dev/null 2>&1 || skip "bash is not installed"
[ -f /usr/share/bash-completion/bash_completion ] ||
  skip "bash-completion is not installed (scripts/setup.sh installs it)"
fail() { echo "FAIL: $*"; exit 1; }
D=$(mktemp -d /tmp/pathscope_completion.XXXXXX)
trap 'rm -rf "$D"' EXIT
"$P" completion bash > "$D/pathscope.bash" || fail "pathscope completion bash exited $?"
touch "$D/scenario-one.toml" "$D/scenario-two.toml"
# complete WORDS...: what Tab offers for the last word (may be empty).
complete_words() {
  bash --norc --noprofile -c '
    source "$1" || exit 3
    complete -p pathscope >/dev/null || exit 4
    shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _pathscope
    printf "%s\n" "${COMPREPLY[@]}"' sh "$D/pathscope.bash" "$@"
}
has() {  # has WHAT EXPECTED WORDS...
  what=$1 want=$2; shift 2
  out=$(cd "$D" && complete_words "$@") || fail "$what: the completion function failed ($?)"
  printf '%s\n' "$out" | grep -qx -- "$want" || { printf '%s\n' "$out"; fail "$what: '$want' not offered"; }
  echo "$what: offers $want"
}
has "pathscope <Tab>" run pathscope ""
has "pathscope <Tab>" compare pathscope ""
has "pathscope <Tab>" completion pathscope ""
has "pathscope ru<Tab>" run pathscope ru
[ "$(cd "$D" && complete_words pathscope ru)" = run ] || fail "pathscope ru<Tab> offers more than run"
has "pathscope run --all<Tab>" --allow-plugins pathscope run --all
has "pathscope run --st<Tab>" --stage pathscope run --st
has "pathscope bench <Tab>" route-output pathscope bench ""
has "pathscope run <Tab>" scenario-one.toml pathscope run scen
has "pathscope show --<Tab>" --db pathscope show --
# As an installed system finds it: share/bash-completion/completions/pathscope
# under a folder of XDG_DATA_DIRS (/usr/share for the .deb).
mkdir -p "$D/share/bash-completion/completions"
cp "$D/pathscope.bash" "$D/share/bash-completion/completions/pathscope"
loaded=$(XDG_DATA_DIRS="$D/share" bash --norc --noprofile -c '
  . /usr/share/bash-completion/bash_completion
  __load_completion pathscope || exit 3
  COMP_WORDS=(pathscope st); COMP_CWORD=1
  _pathscope
  printf "%s\n" "${COMPREPLY[@]}"') || fail "bash-completion's loader did not load pathscope's completion ($?)"
printf '%s\n' "$loaded" | grep -qx stats || fail "through bash-completion's loader, pathscope st<Tab> offers: $loaded"
echo "bash-completion's loader: pathscope st<Tab> offers $(printf '%s' "$loaded" | tr '\n' ' ')"
echo "every completion offered what it should"
