#!/bin/sh
# SpMV on the largest METIS example graph (mdual.graph of libmetis-doc: 258,569 rows, 1,026,264
# nonzeros) over the board: the wall time of a full run (every byte placed, walked and verified
# against the host reference) and of a timing-only run, each a whole treesim process, the simulated
# cycles, and their ratios to a native host SpMV of the same matrix (bench_spmv_native, plain CSR).
# Usage: bench/spmv_board.sh [TREESIM] [BENCH_SPMV_NATIVE]
set -eu
treesim=${1:-build/tools/treesim}
native=${2:-$(dirname "$treesim")/../bench/bench_spmv_native}
root=$(cd "$(dirname "$0")/.." && pwd)
graph=/usr/share/doc/libmetis-dev/examples/graphs/mdual.graph
report=$(mktemp)
native_json=$(mktemp)
trap 'rm -f "$report" "$native_json"' EXIT

"$native" --benchmark_format=json --benchmark_min_time=0.5 >"$native_json" 2>/dev/null
echo "encoding  partition  mode          cycles  sim_us  wall_s  wall/native  sim/native"
for case in "csr rows" "csr nnz" "bsr2x2 rows" "ell4 rows"; do
  set -- $case
  for mode in full timing-only; do
    extra=--verify
    [ "$mode" = timing-only ] && extra=--timing-only
    start=$(python3 -c 'import time; print(time.monotonic())')
    "$treesim" run spmv --machine "$root/configs/mncore-board.yaml" --matrix "$graph" --encoding "$1" \
      --partition "$2" -q --report "$report" $extra
    python3 - "$report" "$native_json" "$1" "$2" "$mode" "$start" <<'PY'
import json, sys, time
wall = time.monotonic() - float(sys.argv[6])
r = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))["benchmarks"][0]
native_s = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
print(f'{sys.argv[3]:<9} {sys.argv[4]:<10} {sys.argv[5]:<12} {r["cycles"]:>7} {r["seconds"] * 1e6:>7.1f} '
      f'{wall:>7.2f} {wall / native_s:>11.0f} {r["seconds"] / native_s:>11.3f}')
PY
  done
done
python3 - "$native_json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
print(f'native host SpMV (CSR, int8, 1 core): {b["real_time"]:.3f} {b["time_unit"]} per product')
PY
