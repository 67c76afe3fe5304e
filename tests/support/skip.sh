# Sourced by the shell tests: skip() exits 77 (ctest shows the test as
# skipped) with the reason, or fails under CI=true (exactly "true", as
# .ci/run exports it), where every skip is a failure.
skip() {
  if [ "${CI:-}" = true ]; then
    echo "FAIL: $* (CI=true: a skip is a failure)"
    exit 1
  fi
  echo "SKIP: $*"
  exit 77
}
