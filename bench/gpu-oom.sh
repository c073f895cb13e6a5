#!/usr/bin/env bash
# Out-of-memory retries on the GPU (runtime/evaluator.py _OOM_WAITS_S): while kgb evaluates the
# tasks that ran out of device memory with 16 checking slots in bench/results/h200-2026-12-04c,
# a second process takes all but 4 GiB of the device for 30 s, starting once the first kgb
# worker is up. Every case that runs out of memory in that window must run again and pass:
# the cases with `oom_retries` and the final verdicts are in oom.txt.
#
#   run(command="KGB_CALL_S=390 bash bench/gpu-session.sh oom", carry=["out/pin.tar"])
#
# Runs in the unpacked pin (bench/gpu-session.sh), writing under $OUT.
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
export KGB_PYTHON=${KGB_PYTHON:-python3}
tasks=${KGB_OOM_TASKS:-aten/add aten/copy_ aten/embedding aten/rsub aten/scatter aten/sgn aten/poisson}
hold_s=${KGB_OOM_HOLD_S:-30}
(
	for _ in $(seq 600); do # at most 120 s
		grep -qs runtime.worker /proc/[0-9]*/cmdline && break
		sleep 0.2
	done
	$KGB_PYTHON -c '
import sys, time, torch
free, total = torch.cuda.mem_get_info()
hog = torch.empty(free - (4 << 30), dtype=torch.uint8, device="cuda")
print(f"hog: {hog.numel() / 2**30:.1f} GiB of {total / 2**30:.1f} taken at {time.time():.1f}", flush=True)
time.sleep(float(sys.argv[1]))
del hog
print(f"hog: released at {time.time():.1f}", flush=True)
' "$hold_s" >"$out/hog.txt" 2>&1
) &
args=()
for t in $tasks; do args+=(--task "$t"); done
echo "kgb start at $(date +%s.%N)" >"$out/oom.txt"
timeout --signal=INT "${KGB_GPU_BUDGET:-300}" build/kgb -v eval --store "$out/gpu.db" \
	--jobs "${KGB_GPU_JOBS:-16}" "${args[@]}" >>"$out/oom.txt" 2>"$out/progress.txt"
echo "kgb status $?" >>"$out/oom.txt"
wait
$KGB_PYTHON - "$out/gpu.db" >>"$out/oom.txt" 2>&1 <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""SELECT r.task, c.case_id, c.verdict, json_extract(c.detail, '$.oom_retries')
    FROM cases c JOIN run_evals r ON r.eval_key = c.eval_key
    WHERE json_extract(c.detail, '$.oom_retries') IS NOT NULL OR c.verdict != 'pass'""")
for row in rows:
    print("case", *row)
for row in db.execute("SELECT task, verdict FROM evaluations"):
    print("evaluation", *row)
PY
