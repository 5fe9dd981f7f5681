#!/bin/sh
# How close qgemm's schedule gets to the roofline on the four shapes of issue 19's acceptance list:
# per case the simulated cycles, the roofline bound and the resource that sets it, the MAC bound,
# and roofline / cycles. Timing-only runs (the same cycles as full runs, no data moved), so the
# four take a few seconds. Usage: bench/qgemm_roofline.sh [TREESIM] (default build/tools/treesim).
set -eu
treesim=${1:-build/tools/treesim}
root=$(cd "$(dirname "$0")/.." && pwd)
report=$(mktemp)
trap 'rm -f "$report"' EXIT

# name, target %, machine, M N K, extra options (layouts: die 1024³ has K split over MAB and PE)
run_case() {
  name=$1 target=$2 machine=$3 m=$4 n=$5 k=$6
  shift 6
  "$treesim" run qgemm --machine "$root/configs/$machine.yaml" --m "$m" --n "$n" --k "$k" \
    --timing-only -q --report "$report" "$@"
  python3 - "$report" "$name" "$target" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
roof = r["roofline"]
pct = 100.0 * roof["cycles"] / r["cycles"]
print(f'{sys.argv[2]:<28} {r["cycles"]:>9} {roof["cycles"]:>9} {roof["resource"]:<9} '
      f'{roof["bounds"]["mac"]:>9} {pct:>6.1f}% {float(sys.argv[3]):>5.0f}%')
EOF
}

python3 -c 'print("%-28s %9s %9s %-9s %9s %7s %6s" % ("case", "cycles", "roofline", "set by", "mac bound", "% roof", "target"))'
run_case "die 1024³, K over MAB×PE" 84 mncore-die 1024 1024 1024 \
  --layout-a "((4_L2B, 8_L1B, 32:1024), (16_MAB, 4_PE, 16:1))"
run_case "board 8192×64×512" 86 mncore-board 8192 64 512
run_case "die 8192×64×512" 90 mncore-die 8192 64 512
run_case "board 4096³" 92 mncore-board 4096 4096 4096
