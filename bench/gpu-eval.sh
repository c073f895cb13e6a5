#!/usr/bin/env bash
# Evaluate every shipped solution on the GPU machine and record the output.
#
# Run on the H200 through the device tool, carrying the binary built here:
#   run(command="bash bench/gpu-eval.sh", carry=["build/kgb"])
# It writes under $OUT (or ./out): eval.txt (the table of the first, cold run, with its wall
# time), eval.jsonl (the same run as JSON lines), rerun.txt (a second run of the same command,
# which must reuse every stored result), env.txt (versions), and the store itself.
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
export KGB_PYTHON=${KGB_PYTHON:-python3}
{
	date -u +%FT%TZ
	build/kgb --version
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
	$KGB_PYTHON -m runtime.platform
} >"$out/env.txt" 2>&1
# The device tool limits one call to 600 s; a cold run of every task may need more. The store
# is content-addressed, so a run cut short by the budget resumes where it stopped when the
# previous store is carried back (RESUME_DB=path/to/gpu.db).
budget=${KGB_GPU_BUDGET:-540}
if [ -n "${RESUME_DB:-}" ] && [ -f "$RESUME_DB" ]; then cp "$RESUME_DB" "$out/gpu.db"; fi
start=$(date +%s.%N)
timeout --signal=INT "$budget" build/kgb -v eval --store "$out/gpu.db" 2>"$out/progress.txt" | tee "$out/eval.txt"
status=${PIPESTATUS[0]}
end=$(date +%s.%N)
echo "wall time: $(awk "BEGIN { print $end - $start }") s (exit status $status)" | tee -a "$out/eval.txt"
# Only a finished run is worth reading back; a cut one resumes next call instead.
if [ "$status" -eq 0 ] || [ "$status" -eq 1 ]; then
	build/kgb eval --store "$out/gpu.db" --json >"$out/eval.jsonl"
	build/kgb eval --store "$out/gpu.db" | tail -4 | tee "$out/rerun.txt"
fi
