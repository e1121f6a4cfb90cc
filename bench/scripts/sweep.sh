#!/usr/bin/env bash
# Runs one bench command for several parameter sets on one device, one line of output each.
# usage: bench/scripts/sweep.sh BUILD_DIR DEVICE ROUTINE "SIZE_ARGS" OUT_PREFIX "P=V P=V" ["P=V ..."]...
# e.g.   bench/scripts/sweep.sh build-rel nvidia transpose "--size 8192" out/t "TRA_TILE=32 TRA_WPT=4"
set -u
B=$1 DEV=$2 ROUTINE=$3 SIZES=$4 PREFIX=$5
shift 5
i=0
for cfg in "$@"; do
  args=()
  for p in $cfg; do args+=(-p "$p"); done
  i=$((i + 1))
  echo "== $ROUTINE on $DEV [$cfg]"
  # shellcheck disable=SC2086
  "$B/clforge" -d "$DEV" "${args[@]}" bench "$ROUTINE" $SIZES --out "${PREFIX}_$i.json" 2>&1 |
    grep -E "^$ROUTINE " || echo "   (failed)"
done
