#!/usr/bin/env bash
# Evaluate every shipped solution on the GPU machine and record the output.
#
# Run on the H200 through the device tool, carrying the binary built here:
#   run(command="bash bench/gpu-eval.sh", carry=["build/kgb"])
# and, when a call ran out of time, again with the previous store carried back:
#   cp <files_at>/gpu.db out/resume.db
#   run(command="RESUME_DB=out/resume.db bash bench/gpu-eval.sh", carry=["build/kgb", "out/resume.db"])
#
# It writes under $OUT (or ./out): env.txt (versions), progress.txt (each candidate's line),
# eval.txt (the table of the whole suite, once every task is stored, with the wall time of this
# call), eval.jsonl (the same as JSON lines), and the store gpu.db itself.
#
# KGB_GPU_JOBS sets the checking slots (default: kgb eval's, at most 8 per GPU); KGB_SANDBOX
# passes --sandbox=MODE (default: kgb's auto); KGB_GPU_CACHE=DIR keeps the Triton caches there
# (--cache-root: run twice for a warm cache); KGB_TIMING=cuda_graph picks that method. ceilings.json holds the device's measured copy
# bandwidth and matrix throughput (runtime/ceilings.py), measured once per call.
#
# One call of the device tool may last 600 s. Nothing finished is lost when a call ends: each
# candidate's check is kept in the store as it ends (the checks table) and its evaluation once
# timed, so a later call with the store carried back times what was checked and checks the
# rest. KGB_GPU_CHUNK (default: all tasks in one `kgb eval`, which keeps every slot busy) splits
# the tasks into several runs. KGB_GPU_TASKS="t1 t2 ..." evaluates only those tasks (a re-run of
# what changed since a full run; the record then says which commit each part came from);
# KGB_GPU_SOURCE=S only the tasks of source S. KGB_GPU_HISTORY=DB orders and splits the checking
# jobs by the wall times of an earlier store (`kgb eval --history`): a fresh store has none.
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
export KGB_PYTHON=${KGB_PYTHON:-python3}
budget=${KGB_GPU_BUDGET:-540}
chunk=${KGB_GPU_CHUNK:-100000}
jobs=${KGB_GPU_JOBS:+--jobs $KGB_GPU_JOBS}
sandbox=${KGB_SANDBOX:+--sandbox=$KGB_SANDBOX}
cache=${KGB_GPU_CACHE:+--cache-root $KGB_GPU_CACHE}
timing=${KGB_TIMING:+--timing $KGB_TIMING}
history=${KGB_GPU_HISTORY:+--history $KGB_GPU_HISTORY}
start=$(date +%s)
{
	date -u +%FT%TZ
	build/kgb --version
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
	$KGB_PYTHON -m runtime.platform
} >"$out/env.txt" 2>&1
$KGB_PYTHON -m runtime.ceilings >"$out/ceilings.json" 2>>"$out/env.txt"
if [ -n "${RESUME_DB:-}" ] && [ -f "$RESUME_DB" ]; then cp "$RESUME_DB" "$out/gpu.db"; fi
sel=() # the final report's selection: every task, or the KGB_GPU_TASKS ones only
if [ -n "${KGB_GPU_TASKS:-}" ]; then
	read -r -a tasks <<<"$KGB_GPU_TASKS"
	for t in "${tasks[@]}"; do sel+=(--task "$t"); done
else
	# KGB_GPU_SOURCE=aten: every task of one source (a list too long for the tool's command).
	src=${KGB_GPU_SOURCE:+--source $KGB_GPU_SOURCE}
	mapfile -t tasks < <(build/kgb list --platform cuda $src | awk 'NR > 1 { print $1 }')
	[ -n "$src" ] && sel=($src)
fi
complete=1
for ((i = 0; i < ${#tasks[@]}; i += chunk)); do
	left=$((budget - ($(date +%s) - start)))
	if [ "$left" -lt 60 ]; then
		complete=0
		break
	fi
	args=()
	for t in "${tasks[@]:i:chunk}"; do args+=(--task "$t"); done
	timeout --signal=INT "$left" build/kgb -v eval --store "$out/gpu.db" $jobs $sandbox $cache $timing $history "${args[@]}" \
		>/dev/null 2>>"$out/progress.txt"
	st=$?
	if [ "$st" -ne 0 ] && [ "$st" -ne 1 ]; then
		complete=0
		echo "chunk at task $i ended with status $st" >>"$out/progress.txt"
		break
	fi
done
end=$(date +%s)
# Everything into gpu.db itself (no -wal beside it), so that RESUME_DB needs one file.
$KGB_PYTHON -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' \
	"$out/gpu.db" 2>>"$out/progress.txt"
if [ "$complete" -eq 1 ]; then
	# Reuse only: every result is in the store. (Without "${sel[@]}" a KGB_GPU_TASKS run
	# evaluated the whole suite here and ran out of time: bench/results/h200-2026-12-03g.)
	build/kgb eval --store "$out/gpu.db" $timing "${sel[@]}" | tee "$out/eval.txt"
	build/kgb eval --store "$out/gpu.db" $timing "${sel[@]}" --json >"$out/eval.jsonl"
	echo "this call: $((end - start)) s" | tee -a "$out/eval.txt"
else
	echo "incomplete after $((end - start)) s: carry gpu.db back with RESUME_DB (see above)"
fi
