#!/usr/bin/env bash
# Draws docs/architecture.svg from the build's own dependency graph: CMake's
# --graphviz output for the dev build (the product's libraries and programs,
# tests left out), with each library named by its folder, and the data flow
# (scenario -> engine stages -> capture -> store -> analysis -> CLI/GUI) drawn
# over it. Run it after changing a CMake link list:
#   scripts/architecture.sh [BUILD_DIR]      (default build/dev; needs dot)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
[ -f "$build/CMakeCache.txt" ] || { echo "architecture: no configured build in $build (run scripts/setup.sh first)" >&2; exit 1; }
command -v dot >/dev/null || { echo "architecture: dot is missing (apt-get install graphviz)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# CMake reads its graph options from the build directory.
cat > "$build/CMakeGraphVizOptions.cmake" <<'OPT'
set(GRAPHVIZ_EXTERNAL_LIBS FALSE)
set(GRAPHVIZ_GENERATE_PER_TARGET FALSE)
set(GRAPHVIZ_GENERATE_DEPENDERS FALSE)
set(GRAPHVIZ_IGNORE_TARGETS "_test$|_tests$|^unit_tests$|_e2e|fuzz|^bench_|_peer$|^stats_oracle$|^fail_writes$|^gtest|^gmock|^pathscope_dpdk$")
OPT
cmake --graphviz="$tmp/deps.dot" "$build" >/dev/null
rm -f "$build/CMakeGraphVizOptions.cmake"
python3 scripts/architecture_dot.py "$tmp/deps.dot" > docs/architecture.dot
dot -Tsvg docs/architecture.dot -o docs/architecture.svg
echo "architecture: wrote docs/architecture.dot and docs/architecture.svg from $build"
