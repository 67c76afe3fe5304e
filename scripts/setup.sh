#!/usr/bin/env bash
# One-command set-up for a fresh Debian 12 machine (run as root):
#   scripts/setup.sh run    install, build, run the default scenario
#   scripts/setup.sh test   install, build, run the tests (dev build, then ASan+UBSan build)
#   scripts/setup.sh        install and build only
# Installing is idempotent: apt-get runs only when a package is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  g++ cmake ninja-build pkg-config git
  libdpdk-dev dpdk-dev            # engine; dpdk-testpmd for the benchmark
  libtomlplusplus-dev             # scenario files
  libpcap-dev                     # capture files
  libsqlite3-dev                  # the store
  libpfm4-dev libdw-dev           # perf_event encoding; stack symbolization
  tshark                          # test: reads back annotated pcapng
  libgtest-dev                    # tests
  iproute2 iputils-ping procps    # tap tests: ip, ping -6, sysctl
  ministat                        # test: pathscope stats against the real ministat
  python3 python3-html5lib python3-jsonschema  # test: reports by real HTML/XML/JSON parsers
  nodejs node-jsdom               # test: the HTML flame graph's zoom and search in a DOM
  curl ca-certificates            # test: speedscope's published schema (npm registry)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# speedscope's file-format schema ships in its npm package; tests validate
# exports against it. Pinned by version and checksum; without it the tests
# still check the documented fields.
SCHEMA=build/speedscope/file-format-schema.json
if [ ! -s "$SCHEMA" ]; then
  mkdir -p build/speedscope
  tgz=build/speedscope/speedscope-1.25.0.tgz
  if curl -sSf --retry 2 -m 60 -o "$tgz" https://registry.npmjs.org/speedscope/-/speedscope-1.25.0.tgz &&
     echo "2831f1e0d26df914b477e522d78b8485511495a6af81a0b88158f8b48f9e0d03  $tgz" | sha256sum -c --quiet; then
    tar -xzf "$tgz" -O package/dist/release/file-format-schema.json > "$SCHEMA"
  else
    echo "setup: could not fetch speedscope's schema; tests check its documented fields only" >&2
    rm -f "$SCHEMA"
  fi
  rm -f "$tgz"
fi

PRESET=${PATHSCOPE_PRESET:-dev}
cmake --preset "$PRESET" -DPATHSCOPE_GUI=OFF >/dev/null
cmake --build --preset "$PRESET"

case "${1:-build}" in
  run)  exec "build/$PRESET/cli/pathscope" run "${@:2}" ;;
  test)
    ctest --preset "$PRESET" "${@:2}"
    if [ -z "${PATHSCOPE_PRESET:-}" ]; then
      echo "setup: the same tests under ASan + UBSan"
      cmake --preset asan -DPATHSCOPE_GUI=OFF >/dev/null
      cmake --build --preset asan
      ctest --preset asan "${@:2}"
    fi
    ;;
  build) ;;
  *) echo "setup: unknown step '$1' (use run, test or nothing)" >&2; exit 2 ;;
esac
