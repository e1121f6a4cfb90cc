#!/usr/bin/env bash
# Sets up clforge on a fresh Debian 12 machine: installs the Debian dependencies, configures
# and builds (Release) into build/. Then run e.g. `build/clforge demo`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$root/build" -j "$(nproc)"
echo "built: $root/build/clforge"
