#!/usr/bin/env bash
# GPU faults (issue 6): candidates that fault on the device fail alone, the run goes on.
#
# Evaluates tests/gpu-faults/scale/*.py (an illegal memory access in a Triton kernel, a kernel
# that never ends, a device allocation no GPU has) and the fixture's honest candidate on the task
# `scale`, twice over in one run (each file also as <name>_2, so that every fault has a
# neighbour on the GPU at the same time and after it), and checks every verdict against its
# file's first line with tests/gpu-faults/check.py. Run on the GPU machine with build/kgb
# carried: run(command="bash bench/gpu-faults.sh", ...). KGB_PLATFORM=interpreter runs it here
# (t0165 does, with KGB_FAULT_TIMEOUT=15: the interpreter's expectations are the files'
# `# expect-interpreter:` lines).
# Writes under $OUT (or ./out): faults.jsonl, faults.txt, faults.db.
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
export KGB_PYTHON=${KGB_PYTHON:-python3}
platform=${KGB_PLATFORM:-cuda}
timeout=${KGB_FAULT_TIMEOUT:-60}
sol=$(mktemp -d)
mkdir -p "$sol/scale" "$sol/faults"
cp tests/gpu-faults/scale/*.py "$sol/faults/"
# The honest neighbour: the fixture's own good candidate, which must pass.
{ echo "# expect: pass"; cat tests/cli/fixtures/candidates/scale/good.py; } >"$sol/faults/good.py"
for f in "$sol"/faults/*.py; do
	n=$(basename "$f" .py)
	cp "$f" "$sol/scale/$n.py"
	{ cat "$f"; echo "# the second copy"; } >"$sol/scale/${n}_2.py"
done
cp -r "$sol/faults" "$sol/expect"
for f in "$sol"/faults/*.py; do cp "$f" "$sol/expect/$(basename "$f" .py)_2.py"; done
{
	date -u +%FT%TZ
	build/kgb --version
	start=$(date +%s)
	build/kgb --tasks tests/cli/fixtures/tasks eval --platform "$platform" --timeout "$timeout" \
		--store "$out/faults.db" --solutions "$sol" --json >"$out/faults.jsonl"
	echo "eval exit status: $? after $(($(date +%s) - start)) s"
	$KGB_PYTHON tests/gpu-faults/check.py "$out/faults.jsonl" "$sol/expect" "$platform"
	echo "check exit status: $?"
	nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv 2>/dev/null
} 2>&1 | tee "$out/faults.txt"
rm -rf "$sol"
