#!/bin/sh
# How close qgemm's default plans get to the roofline over issue 30's grid — nine shapes on
# mncore-die and mncore-board — and on issue 19's die 1024³ with K split over MAB and PE and board 4096³: per case
# the simulated cycles, the roofline bound and the resource that sets it, the MAC bound, roofline /
# cycles, the target (90%, 70% for 256³), what the critical path spends after the last MAC, and the
# most of the roofline any schedule can reach ("reach"): the roofline counts no latency, and no GEMM
# ends before its last load has crossed DRAM ((A + B) bytes / DRAM's rate at least), the path
# latency down, and one store's path latency up (`treesim info`'s path latency, docs/timing.md
# §8.6). Timing-only runs (the same cycles as full runs, no data moved). Ends with how many cases
# meet their target (`qgemm_roofline_met=`), the lowest share (`qgemm_roofline_min_pct=`) and how
# many targets are above their reach (`qgemm_roofline_unreachable=`).
# Usage: bench/qgemm_roofline.sh [TREESIM] (default build/tools/treesim).
set -eu
treesim=${1:-build/tools/treesim}
root=$(cd "$(dirname "$0")/.." && pwd)
report=$(mktemp)
rows=$(mktemp)
info=$(mktemp)
trap 'rm -f "$report" "$rows" "$info"' EXIT

# name, target %, machine, M N K, extra options
run_case() {
  name=$1 target=$2 machine=$3 m=$4 n=$5 k=$6
  shift 6
  "$treesim" run qgemm --machine "$root/configs/$machine.yaml" --m "$m" --n "$n" --k "$k" \
    --timing-only -q --report "$report" "$@"
  "$treesim" info --machine "$root/configs/$machine.yaml" --json > "$info"
  /usr/bin/python3 - "$report" "$name" "$target" "$rows" "$info" "$m" "$n" "$k" <<'PY'
import json, math, sys
r = json.load(open(sys.argv[1]))
info = json.load(open(sys.argv[5]))
m, n, k = map(int, sys.argv[6:9])
roof = r["roofline"]
pct = 100.0 * roof["cycles"] / r["cycles"]
tail = 100.0 * r["critical_path"]["after_last_mac_cycles"] / r["cycles"]
dram_per_cycle = info["dram"]["bytes_per_second"] / (info["clock_ghz"] * 1e9)
floor = math.ceil((m * k + k * n) / dram_per_cycle) + 2 * info["path_latency_cycles"]
reach = 100.0 * roof["cycles"] / max(roof["cycles"], floor)
print(f'{sys.argv[2]:<28} {r["cycles"]:>9} {roof["cycles"]:>9} {roof["resource"]:<9} '
      f'{roof["bounds"]["mac"]:>9} {pct:>6.1f}% {float(sys.argv[3]):>5.0f}% {tail:>5.0f}% {reach:>5.1f}%')
with open(sys.argv[4], "a") as f:
    f.write(f"{pct} {sys.argv[3]} {reach}\n")
PY
}

/usr/bin/python3 -c 'print("%-28s %9s %9s %-9s %9s %7s %6s %6s %6s" % ("case", "cycles", "roofline", "set by", "mac bound", "% roof", "target", "tail", "reach"))'
for machine in mncore-die mncore-board; do
  short=${machine#mncore-}
  for shape in "1024 1024 1024" "2048 2048 2048" "4096 1024 1024" "1024 4096 1024" "512 512 4096" \
               "8192 64 512" "3000 3000 3000" "128 8192 1024" "256 256 256"; do
    set -- $shape
    target=90
    [ "$1" = 256 ] && target=70
    run_case "$short $1×$2×$3" $target $machine "$@"
  done
done
run_case "die 1024³, K over MAB×PE" 84 mncore-die 1024 1024 1024 \
  --layout-a "((4_L2B, 8_L1B, 32:1024), (16_MAB, 4_PE, 16:1))"
run_case "board 4096³" 92 mncore-board 4096 4096 4096
/usr/bin/python3 - "$rows" <<'PY'
import sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
print(f"qgemm_roofline_met={sum(p >= t for p, t, _ in rows)}/{len(rows)}")
print(f"qgemm_roofline_min_pct={min(p for p, _, _ in rows):.1f}")
print(f"qgemm_roofline_unreachable={sum(t > reach for _, t, reach in rows)}")
PY
