#!/usr/bin/env bash
# The test command: installs missing Debian dependencies, builds (Release) into build/ and runs
# every test with CTest on the available OpenCL devices (PoCL's CPU device on a machine without GPU),
# then the sanitizer job (tools/run_sanitizers.sh: ASan + UBSan and TSan builds of the library and
# tests, a time-boxed selection of them run). Fails when either fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/bootstrap.sh"
(cd "$root/build" && ctest --output-on-failure -j "$(nproc)" "$@")
"$root/tools/run_sanitizers.sh"
