#!/usr/bin/env bash
# Runs every libFuzzer harness of a fuzz build (make fuzz) for SECONDS each, on a scratch copy of
# its seed corpus (tests/fuzz/corpus/<name>/ is never written), and fails if any harness finds a
# crash, leak, timeout or out-of-memory. Usage: tools/run-fuzzers.sh BUILD_DIR SECONDS [JOBS]
# JOBS harnesses run at once (default 1): each is one single-threaded process.
set -uo pipefail
build="$1"
seconds="$2"
jobs_max="${3:-1}"
if ! [[ "$jobs_max" =~ ^[1-9][0-9]*$ ]]; then
  echo "run-fuzzers.sh: JOBS must be a whole number of at least 1, got '$jobs_max'" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
# harness:max_len (bytes). Text formats get room for a few machine levels / program lines; binary
# formats for a header and a small payload.
harnesses="machine_yaml:4096 layout:256 program:4096 npy:2048 idx:4096 quant_yaml:1024 dpt_file:1024 trace_file:4096 sparse_encoding:512 matrix_market:2048 onnx_model:4096 harwell_boeing:4096 metis_graph:2048 memspec:2048 plan_file:2048 chain_spec:512 sweep_spec:2048 backend_test:8192"
# One harness; its one-line summary (and the crash lines) go to $build/fuzz-NAME.result.
run_one() {
  local name="${1%%:*}" max_len="${1##*:}"
  local scratch="$build/fuzz-corpus/$name" artifacts="$build/fuzz-artifacts/$name"
  local log="$build/fuzz-$name.log" result="$build/fuzz-$name.result"
  rm -rf "$scratch" "$artifacts" && mkdir -p "$scratch" "$artifacts"
  cp tests/fuzz/corpus/"$name"/* "$scratch"/
  "$build/tests/fuzz/fuzz_$name" "$scratch" -max_total_time="$seconds" -max_len="$max_len" \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
  local rc=$?
  # The last status line ("#N DONE cov: C ft: F corp: ...") and the final exec/s.
  local status speed runs
  status=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')
  speed=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $name: ok, ${runs:-?} runs, ${speed:-?} exec/s, ${status:-no status}" >"$result"
  else
    { echo "fuzz $name: FAILED (exit $rc), log $log, input in $artifacts/:"
      grep -E 'ERROR|SUMMARY|terminate|runtime error|Test unit written' "$log" | head -8; } >"$result"
  fi
}
for entry in $harnesses; do
  rm -f "$build/fuzz-${entry%%:*}.result"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  run_one "$entry" &
done
wait
failed=()
for entry in $harnesses; do
  name="${entry%%:*}"
  result="$build/fuzz-$name.result"
  if [ -f "$result" ]; then cat "$result"; else echo "fuzz $name: FAILED (no result)"; fi
  grep -q ': ok,' "$result" 2>/dev/null || failed+=("$name")
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
