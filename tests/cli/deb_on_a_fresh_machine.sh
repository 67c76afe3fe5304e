#!/bin/sh
# The .deb on a machine that has never seen pathscope: installed with apt
# (which brings what dpkg-shlibdeps and the package list), then, from PATH:
# a run of the installed default scenario, a screenshot of the desktop
# program's Stages page, `man pathscope-run`, `pathscope <Tab>` through
# bash-completion's own loader, and the acl6 sample built from the
# installed sources (find_package and pkg-config) and run with --stage.
# Not a ctest (it needs a fresh root): run it in a fresh Debian 12 chroot,
# from the project's root, as root:
#   (cd build/dev && cpack -G DEB) && cp build/dev/pathscope_*.deb /dev/shm/
#   ../shared/tools/fresh-machine.sh 'sh tests/cli/deb_on_a_fresh_machine.sh /dev/shm/pathscope_0.1.0_amd64.deb'
# (/dev is shared with the chroot, so /dev/shm carries the package in.)
set -eu
DEB=${1:?usage: deb_on_a_fresh_machine.sh PACKAGE.deb}
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "== $*"; }
export DEBIAN_FRONTEND=noninteractive
step "apt install $DEB"
apt-get update -q >/dev/null
apt-get install -y -q "$DEB" > /tmp/apt.log 2>&1 || { tail -30 /tmp/apt.log; fail "apt-get install"; }
dpkg -s pathscope | grep -E '^(Version|Depends|Recommends):' | cut -c1-400
for p in pathscope pathscope-gui; do command -v "$p" >/dev/null || fail "$p is not on PATH"; done
W=$(mktemp -d /tmp/fresh.XXXXXX)
trap 'cd / && rm -rf "$W"' EXIT  # pass or fail, nothing is left behind
cd "$W"
step "pathscope run (the installed default scenario)"
pathscope run --duration 0.5 --db "$W/fresh.db" > run.txt 2>&1 || { cat run.txt; fail "pathscope run"; }
grep -E "^scenario |\[balanced\]" run.txt
step "pathscope-gui --screenshot stages"
pathscope-gui "$W/fresh.db" --screenshot stages -o "$W/stages.png" || fail "pathscope-gui --screenshot"
[ -s "$W/stages.png" ] || fail "no screenshot written"
ls -l "$W/stages.png"
step "man pathscope-run"
MANPAGER=cat MANWIDTH=90 man pathscope-run > man.txt 2>&1 || { cat man.txt; fail "man pathscope-run"; }
head -8 man.txt
grep -q -- "--allow-plugins" man.txt || fail "man pathscope-run does not show the run options"
step "pathscope <Tab> (bash-completion's loader)"
offers=$(bash -c '
  . /usr/share/bash-completion/bash_completion
  __load_completion pathscope || exit 3
  complete -p pathscope >&2
  COMP_WORDS=(pathscope ""); COMP_CWORD=1; COMP_LINE="pathscope "; COMP_POINT=10
  _pathscope
  printf "%s\n" "${COMPREPLY[@]}"') || fail "bash-completion did not load pathscope's completion"
printf '%s\n' "$offers" | tr '\n' ' '; echo
printf '%s\n' "$offers" | grep -qx run || fail "pathscope <Tab> does not offer run"
step "a plugin from the installed samples (find_package and pkg-config), run with --stage"
apt-get install -y -q cmake ninja-build gcc pkg-config libdpdk-dev > /tmp/apt2.log 2>&1 || { tail -20 /tmp/apt2.log; fail "build tools"; }
S=/usr/share/pathscope/samples
cmake -S "$S/plugins" -B "$W/pl" -G Ninja > cmake.txt 2>&1 && cmake --build "$W/pl" >> cmake.txt 2>&1 || { cat cmake.txt; fail "cmake build of the samples"; }
cc -shared -fPIC -O2 $(pkg-config --cflags pathscope libdpdk) "$S/plugins/acl6/acl6.c" "$S/plugins/acl6/acl6_rules.c" \
  -o "$W/libacl6-pc.so" $(pkg-config --libs libdpdk) || fail "cc with pkg-config"
for so in "$W/pl/libacl6.so" "$W/libacl6-pc.so"; do
  pathscope run "$S/forward-replay.toml" --duration 0.5 --trials 1 --db "$W/fresh.db" \
    --stage "$so:after=ip6_input,rules_file=$S/plugins/acl6/rules-10.txt" > acl.txt 2>&1 || { cat acl.txt; fail "run with $so"; }
  grep -E "^acl6 |^acl_deny " acl.txt || fail "no acl6 row or acl_deny drops with $so"
done
echo "deb_on_a_fresh_machine: everything works from PATH"
