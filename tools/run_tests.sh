#!/usr/bin/env bash
# The test command: installs missing Debian dependencies, builds (Release) into build/ and runs
# every test with CTest on the available OpenCL devices (PoCL's CPU device on a machine without
# GPU). The sanitizer job (tools/run_sanitizers.sh) is CI's second command.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh"  # all of tools/deps.txt: the tests' packages too
"$root/tools/bootstrap.sh"
cmake --build "$root/build" -j "$(nproc)"  # what bootstrap leaves out: tests, Python module
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" "$@"
