#!/usr/bin/env bash
# Formats every hand-written C++ and OpenCL C file with clang-format (.clang-format at the root).
# --check: change nothing, list the files that differ and exit 1 if there is one.
# The generated cl/fft/fft_butterflies.cl is left to its generator.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files 'src/*.cpp' 'src/*.hpp' 'include/*.hpp' 'tests/*.cpp' 'tests/*.hpp' 'bench/*.cpp' 'bench/*.hpp' \
  'tools/*.cpp' 'tools/*.hpp' 'host/*.cpp' 'host/*.hpp' 'python/*.cpp' 'python/*.hpp' 'cl/*.cl' 'bench/*.cl' | grep -v '^cl/fft/fft_butterflies.cl$')
if [ "${1:-}" = --check ]; then
  bad=0
  for f in $files; do
    if ! clang-format --style=file "$f" | cmp -s - "$f"; then echo "$f: not formatted"; bad=1; fi
  done
  exit $bad
fi
for f in $files; do  # rewrite only what changes, so builds are not invalidated for nothing
  clang-format --style=file "$f" | cmp -s - "$f" || clang-format -i --style=file "$f"
done
