#!/usr/bin/env bash
# Checks that two builds of pathscope print the same bytes: every verb that
# reads a store (list, show, compare, report in every format, export in every
# format and table, gate, the experiments' comparisons) on every run of the
# stores given, each verb's --help, and the errors of a few bad scenarios.
# Used to show that a change of layout changed no behaviour:
#   scripts/same_outputs.sh OLD_PATHSCOPE NEW_PATHSCOPE STORE.db...
# Exits 0 when every output is identical, 1 (with the diff) otherwise.
set -uo pipefail
if [ $# -lt 3 ]; then
    echo "usage: scripts/same_outputs.sh OLD_PATHSCOPE NEW_PATHSCOPE STORE.db..." >&2
    exit 2
fi
old=$(realpath "$1") new=$(realpath "$2")
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/same_outputs.XXXXXX)
trap 'rm -rf "$work"' EXIT

# outputs BIN DIR STORE...: each command's stdout, stderr and exit status in DIR.
outputs() {
    local bin=$1 dir=$2 n=0
    shift 2
    mkdir -p "$dir"
    one() {  # one NAME ARGS...
        local name=$1
        shift
        (cd "$work" && "$bin" "$@" >"$dir/$name.out" 2>"$dir/$name.err"; echo $? >"$dir/$name.rc")
        n=$((n + 1))
    }
    one help --help
    for verb in run list show merge push compare report gate stats import export routes frames bench stage completion; do
        one "help-$verb" "$verb" --help
    done
    printf '[engine]\nnot_a_key = 1\n' >"$work/bad.toml"
    one bad-key run "$work/bad.toml" --db "$work/none.db"
    one bad-set run "$root/samples/forward-replay.toml" --set engine.burst=lots --db "$work/none.db"
    for store in "$@"; do
        local s
        s=$(basename "$store" .db)
        one "$s-list" list --db "$store"
        local ids
        ids=$("$bin" list --db "$store" | awk '$1 ~ /^[0-9]+$/ {print $1}')
        local prev=""
        for id in $ids; do
            one "$s-show-$id" show "$id" --db "$store"
            one "$s-show-workers-$id" show "$id" --workers --db "$store"
            for f in text md html json; do one "$s-report-$id.$f" report "$id" --format "$f" --db "$store"; done
            for f in pcapng folded speedscope dot; do one "$s-export-$id.$f" export "$id" --format "$f" -o - --db "$store"; done
            one "$s-export-$id.stages" export "$id" --format folded --tree stages -o - --db "$store"
            for t in trials intervals stages queues drops perf events threads; do
                one "$s-export-$id.csv-$t" export "$id" --format csv --table "$t" -o - --db "$store"
            done
            if [ -n "$prev" ]; then
                one "$s-compare-$prev-$id" compare "$prev" "$id" --db "$store"
                for f in md html json; do one "$s-report-$prev-$id.$f" report "$prev" "$id" --format "$f" --db "$store"; done
                for f in md json; do one "$s-gate-$prev-$id.$f" gate "$prev" "$id" --format "$f" --db "$store"; done
                one "$s-dot-$prev-$id" export "$id" --format dot --base "$prev" -o - --db "$store"
            fi
            prev=$id
        done
        # Each experiment's own compare line, as list prints it.
        "$bin" list --db "$store" | sed -n 's/.*compare: pathscope compare --db [^ ]* //p' |
            while read -r -a args; do
                local e=${args[1]}
                for f in text md html json; do one "$s-exp-$e.$f" compare "${args[@]}" --format "$f" --db "$store"; done
                one "$s-exp-$e.ministat" compare "${args[@]}" --ministat --db "$store"
            done
    done
    echo "$n" >"$dir/count"
}

outputs "$old" "$work/old" "$@"
outputs "$new" "$work/new" "$@"
count=$(ls "$work/new" | grep -c '\.out$')
if diff -r "$work/old" "$work/new" >"$work/diff"; then
    echo "same_outputs: $count commands, every stdout, stderr and exit status identical"
    exit 0
fi
echo "same_outputs: the builds differ:"
head -100 "$work/diff"
exit 1
