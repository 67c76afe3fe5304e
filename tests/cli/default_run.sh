#!/bin/sh
# The README's first command on a fresh store: it must exit 0 and print a
# balanced ledger (a run that prints "[balanced]" and then fails to store
# fails here).
#   default_run.sh PATHSCOPE DB
P=$1 DB=$2
rm -f "$DB" "$DB-wal" "$DB-shm"
out=$("$P" run --duration 1 --no-histograms --db "$DB" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "FAIL: pathscope run exited $rc"; exit 1; }
printf '%s\n' "$out" | grep -q "balanced\]" || { echo "FAIL: no balanced ledger"; exit 1; }
printf '%s\n' "$out" | grep -q "NOT BALANCED" && { echo "FAIL: the ledger does not balance"; exit 1; }
exit 0
