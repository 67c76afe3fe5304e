#!/usr/bin/env bash
# One-command set-up for a fresh Debian 12 machine (run as root):
#   scripts/setup.sh run    install, build, run the default scenario
#   scripts/setup.sh test   install, build, run the tests (dev build, then ASan+UBSan build,
#                           then the multi-worker tests under ThreadSanitizer)
#   scripts/setup.sh tsan   install, build, run only the ThreadSanitizer tests
#   scripts/setup.sh fuzz [--seconds N] [TARGET...]
#                           install, build the fuzz preset, run every fuzz target N s (tests/fuzz/run.sh)
#   scripts/setup.sh        install and build only
# Installing is idempotent: apt-get runs only when a package is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  g++ cmake ninja-build pkg-config git
  libdpdk-dev dpdk-dev            # engine; dpdk-testpmd for the benchmark
  dpdk-doc make patch             # the benchmark's l3fwd peer: DPDK's example sources, patched and built
  libtomlplusplus-dev             # scenario files
  libpcap-dev                     # capture files
  libsqlite3-dev                  # the store
  libpq-dev postgresql-15         # a team's server store, and its tests' throwaway cluster
  libpfm4-dev libdw-dev           # perf_event encoding; stack symbolization
  libfmt-dev nlohmann-json3-dev libcli11-dev  # text, JSON and the command line
  libboost-dev                    # Boost.Math (header-only): Student's t and normal quantiles at any level
  qt6-base-dev qt6-charts-dev qt6-svg-dev     # pathscope-gui (Qt 6.4)
  libqt6opengl6-dev libxkbcommon-dev libgl-dev  # ... which Qt's CMake packages need
  fonts-dejavu-core               # a real font for the GUI's screenshots
  tshark                          # test: reads back annotated pcapng, checks the IPv6 walk; its wireshark-common has editcap (mutation replay)
  linux-perf                      # test: an imported perf profile against perf report
  libgtest-dev                    # tests
  iproute2 iputils-ping procps    # tap tests: ip, ping -6, sysctl
  ministat                        # test: pathscope stats against the real ministat
  python3-scipy python3-statsmodels  # test: paired t, Wilcoxon signed-rank, Benjamini-Hochberg against SciPy and statsmodels
  stress-ng                       # test and bench_noise: a CPU hog beside the worker
  locales                         # test: numbers read and written the same under de_DE.UTF-8
  graphviz                        # test: dot -Tsvg renders pathscope export --format dot
  python3 python3-html5lib python3-jsonschema  # test: reports by real HTML/XML/JSON parsers
  nodejs node-jsdom               # test: the HTML flame graph's zoom and search in a DOM
  clang libclang-rt-14-dev        # the fuzz preset: clang with libFuzzer and the sanitizers
  dpkg-dev                        # cpack -G DEB: dpkg-shlibdeps finds the .deb's dependencies
  desktop-file-utils              # test (plugins_e2e): desktop-file-validate on pathscope-gui.desktop
  man-db                          # test (plugins_e2e): man -l renders the generated man pages
  bash-completion                 # test (completion_e2e): its loader finds pathscope's completion
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# speedscope's schema comes from its npm package, fetched by the npm client
# (Debian's npm, unless another npm is already on PATH).
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# speedscope's file-format schema ships in its npm package; tests validate
# exports against it. Fetched by name with the npm client, pinned by version
# and checksum. Without it the speedscope_schema test shows as skipped (and
# fails under CI=true).
SCHEMA=build/speedscope/file-format-schema.json
if [ ! -s "$SCHEMA" ]; then
  mkdir -p build/speedscope
  tmp=$(mktemp -d)
  if (cd "$tmp" && npm pack --silent speedscope@1.25.0 >/dev/null 2>&1) &&
     echo "2831f1e0d26df914b477e522d78b8485511495a6af81a0b88158f8b48f9e0d03  $tmp/speedscope-1.25.0.tgz" | sha256sum -c --quiet; then
    tar -xzf "$tmp/speedscope-1.25.0.tgz" -O package/dist/release/file-format-schema.json > "$SCHEMA"
  else
    echo "setup: could not fetch speedscope 1.25.0 with npm; the speedscope_schema test will be skipped" >&2
    rm -f "$SCHEMA"
  fi
  rm -rf "$tmp"
fi

# Runs ctest, then says how many tests were skipped and which.
run_tests() {
  local log
  log=$(mktemp)
  set +e
  # Two at a time, DPDK tests too: each EAL runs with --no-shconf (no files
  # shared between processes; DPDK numbers a second telemetry socket), and
  # the tests wait on events rather than fixed times, so a neighbour slows
  # a test but does not fail it.
  ctest --preset "$1" -j2 "${@:2}" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  set -e
  local skipped
  skipped=$(grep -cE '^[[:space:]]+[0-9]+ - .* \(Skipped\)$' "$log" || true)
  echo "setup: $1: $skipped test(s) skipped"
  grep -E '^[[:space:]]+[0-9]+ - .* \(Skipped\)$' "$log" | sed 's/^[[:space:]]*/  skipped: /' || true
  rm -f "$log"
  # Under CI=true a skip is a failure, whichever test let it through.
  if [ "${CI:-}" = true ] && [ "$skipped" -gt 0 ] && [ "$rc" -eq 0 ]; then
    echo "setup: $1: CI=true and $skipped test(s) skipped: failing" >&2
    rc=1
  fi
  return "$rc"
}

# The engine's multi-worker tests under ThreadSanitizer (the tsan preset
# builds the engine and workers_test only, without the GUI).
run_tsan() {
  echo "setup: the multi-worker tests under ThreadSanitizer"
  cmake --preset tsan >/dev/null
  cmake --build --preset tsan
  run_tests tsan
}

# The fuzzers build their own preset (clang); nothing else is needed.
if [ "${1:-}" = fuzz ]; then
  exec tests/fuzz/run.sh "${@:2}"
fi

PRESET=${PATHSCOPE_PRESET:-dev}
cmake --preset "$PRESET" -DPATHSCOPE_GUI=ON >/dev/null
cmake --build --preset "$PRESET"

case "${1:-build}" in
  run)
    status=0
    "build/$PRESET/cli/pathscope" run "${@:2}" || status=$?
    echo "setup: the desktop program shows this run: build/$PRESET/gui/pathscope-gui pathscope.db"
    echo "       (without a display: add --screenshot stages -o stages.png)"
    exit "$status"
    ;;
  test)
    # The locale tests read and write numbers under de_DE.UTF-8 (a decimal
    # comma): generate it when the machine lacks it.
    if ! locale -a 2>/dev/null | grep -qix 'de_DE.utf8'; then
      echo "setup: generating the de_DE.UTF-8 locale for the locale tests"
      sed -i 's/^# *de_DE.UTF-8 UTF-8/de_DE.UTF-8 UTF-8/' /etc/locale.gen
      grep -q '^de_DE.UTF-8 UTF-8' /etc/locale.gen || echo 'de_DE.UTF-8 UTF-8' >> /etc/locale.gen
      locale-gen >/dev/null
    fi
    run_tests "$PRESET" "${@:2}"
    if [ -z "${PATHSCOPE_PRESET:-}" ]; then
      echo "setup: the same tests under ASan + UBSan"
      cmake --preset asan -DPATHSCOPE_GUI=ON >/dev/null
      cmake --build --preset asan
      run_tests asan "${@:2}"
      run_tsan
    fi
    ;;
  tsan) run_tsan ;;
  build) ;;
  *) echo "setup: unknown step '$1' (use run, test, tsan, fuzz or nothing)" >&2; exit 2 ;;
esac
