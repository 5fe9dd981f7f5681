#!/usr/bin/env bash
# Wall time of a 100-point sweep (4 LM sizes × 5 DRAM rates × 5 MAC widths) of a 1024³ qgemm on
# mncore-die, with --jobs 2: full runs, then timing-only runs. Usage: bench/sweep_wall_time.sh TREESIM
set -euo pipefail
treesim=$(readlink -f "${1:?usage: $0 BUILD/tools/treesim}")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for mode in full timing-only; do
  extra=""
  [ "$mode" = timing-only ] && extra=", timing-only: true"
  cat > "$tmp/$mode.yaml" <<SPEC
machine: $root/configs/mncore-die.yaml
kernel: qgemm
options: { m: 1024, n: 1024, k: 1024, seed: 1$extra }
grid:
  levels[PE].memory_bytes: [16KiB, 32KiB, 48KiB, 64KiB]
  dram.bytes_per_cycle: [64, 128, 256, 512, 1024]
  pe.mac.int8_macs_per_cycle: [8, 16, 32, 64, 128]
SPEC
  start=$(date +%s%N)
  "$treesim" sweep "$tmp/$mode.yaml" --out "$tmp/$mode" --jobs 2 >/dev/null 2>&1
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  printf 'sweep of 100 points, 1024^3 qgemm on mncore-die, --jobs 2, %-12s %d.%d s\n' "$mode:" \
    $((ms / 1000)) $((ms % 1000 / 100))
done
