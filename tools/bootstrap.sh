#!/usr/bin/env bash
# Sets up clforge on a fresh Debian 12 machine: installs the Debian packages that the library and
# the command line need (tools/deps.txt above its "# tests:" line), configures (Release) into
# build/ and builds what `build/clforge demo` needs: the library and the command line (with the
# benchmark library it links). The test command (tools/run_tests.sh) installs the other packages
# and builds the rest: tests, Python module.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh" --build
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$root/build" -j "$(nproc)" --target clforge_cli
echo "built: $root/build/clforge"
