#!/usr/bin/env bash
# Checks that includes point down the layers: runtime <- tuning <- families <- group <- library.
#   include/clforge/  public headers: only other public headers
#   src/runtime/      devices, sources, program cache, launch layer: runtime and public headers
#   src/tuning/       specs, database, tuner: runtime, tuning, public headers (the tuner also the
#                     host references it verifies candidates against and the output harness)
#   src/<family>/     families: any of the above and families; the host references only in a
#                     family's tuner target (*_tune.cpp)
#   src/group/        one job across devices (the chunk pipeline over the families' plans):
#                     runtime, tuning, group and public headers; a family only through its public
#                     plan (no family's internal header); no family includes it
#   src/mpi/          the MPI component (its own library, clforge::mpi): any of the above; nothing
#                     in the main library includes it
#   src/library/      the one list of the families (specs, tuner targets): any of the above
#   host/             references and test data (used by tests, bench and the tuner): public headers
#                     and host/ only, never src/, so that every reference is computed from its
#                     definition and a mistake in the library's own math cannot hide in it
#   python/           the Python module: public headers and its own headers only
# Prints every include that goes up a layer and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
families=$(cd src && ls -d */ | tr -d / | grep -vx 'runtime\|tuning\|library\|group\|mpi' | paste -sd'|')
check() {  # file, allowed-prefix regex
  local f=$1 allowed=$2
  while IFS= read -r line; do
    inc=$(sed -E 's/^#include "([^"]+)".*/\1/' <<<"$line")
    if ! grep -qE "^($allowed)" <<<"$inc"; then
      echo "$f: includes \"$inc\" (a higher layer)"
      bad=1
    fi
  done < <(grep -E '^#include "' "$f" || true)
}
for f in include/clforge/*.hpp include/clforge/detail/*.hpp; do check "$f" 'clforge/'; done
for f in src/runtime/*; do check "$f" 'clforge/|runtime/'; done
for f in src/tuning/*; do
  case "$f" in
    src/tuning/tuner.*|src/tuning/tune_instance.cpp) check "$f" 'clforge/|runtime/|tuning/|host/' ;;
    *) check "$f" 'clforge/|runtime/|tuning/' ;;
  esac
done
for f in src/library/*; do check "$f" "clforge/|runtime/|tuning/|($families)/|group/"; done
for f in src/group/*; do check "$f" 'clforge/|runtime/|tuning/|group/'; done
for f in src/mpi/*; do check "$f" "clforge/|runtime/|tuning/|($families)/|group/|mpi/"; done
for d in $(cd src && ls -d */ | tr -d / | grep -vx 'runtime\|tuning\|library\|group\|mpi'); do
  for f in src/$d/*; do
    case "$f" in
      *_tune.cpp) check "$f" "clforge/|runtime/|tuning/|host/|($families)/" ;;
      *) check "$f" "clforge/|runtime/|tuning/|($families)/" ;;
    esac
  done
done
for f in host/*; do check "$f" 'clforge/|host/'; done
for f in python/*.cpp python/*.hpp; do check "$f" 'clforge/|[a-z_]+\.hpp$'; done
if [ $bad -ne 0 ]; then echo "check_layers: includes that go up a layer (see tools/check_layers.sh)"; exit 1; fi
echo "check_layers: every include points down the layers"
