#!/bin/sh
# tgemm (ternary W, packed) against qgemm (int8 B) on the board at 2048³: simulated cycles, the
# roofline bound and what sets it, and the wall time of a full run (every byte moved and computed)
# and of a timing-only run, each a whole treesim process. Usage: bench/tgemm_vs_qgemm.sh [TREESIM].
set -eu
treesim=${1:-build/tools/treesim}
root=$(cd "$(dirname "$0")/.." && pwd)
report=$(mktemp)
trap 'rm -f "$report"' EXIT

run_case() {
  name=$1
  shift
  for mode in full timing-only; do
    extra=""
    [ "$mode" = timing-only ] && extra=--timing-only
    start=$(python3 -c 'import time; print(time.monotonic())')
    "$treesim" run "$@" --machine "$root/configs/mncore-board.yaml" --m 2048 --n 2048 --k 2048 \
      -q --report "$report" $extra
    python3 - "$report" "$name" "$mode" "$start" <<'PY'
import json, sys, time
wall = time.monotonic() - float(sys.argv[4])
r = json.load(open(sys.argv[1]))
roof = r["roofline"]
print(f'{sys.argv[2]:<14} {sys.argv[3]:<12} {r["cycles"]:>8} {roof["cycles"]:>8} {roof["resource"]:<9} '
      f'{r["dram"]["read_bytes"]:>10} {wall:>7.2f}')
PY
  done
}

python3 -c 'print("%-14s %-12s %8s %8s %-9s %10s %7s" % ("kernel", "run", "cycles", "roofline", "set by", "DRAM read", "wall s"))'
run_case "qgemm" qgemm
run_case "tgemm dpt" tgemm --weight-encoding dpt
run_case "tgemm int8" tgemm --weight-encoding int8
