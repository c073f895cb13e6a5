#!/usr/bin/env bash
# Method sanity (issue 5, benchmark 3): the timing and speed-of-light numbers on a kernel whose
# answer is known. Evaluates aten/clone twice over: the shipped copy kernel, and a planted
# candidate that runs the same kernel twice per call (exactly twice the work). On the GPU:
#   the shipped copy should reach >= 90% of the device's measured copy bandwidth, and
#   the planted one should measure 2x the shipped one's time, within 5%,
# at the largest timed shape (bench/method.py prints every timed case and the verdicts).
# Run on the GPU machine with build/kgb carried: run(command="bash bench/gpu-method.sh", ...).
# Writes $OUT/method.txt, method.jsonl and the store method.db. KGB_TIMING=cuda_graph times the
# same with the CUDA-graph method (written as method-cuda_graph.*).
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
export KGB_PYTHON=${KGB_PYTHON:-python3}
method=${KGB_TIMING:-events}
suffix= timing=()
if [ "$method" != events ]; then suffix=-$method timing=(--timing "$method"); fi
sol=$(mktemp -d)
mkdir -p "$sol/clone"
cp tasks/aten/clone/solution.py "$sol/clone/shipped.py"
{
	cat tasks/aten/clone/solution.py
	cat <<'PY'


_clone_once = clone
_clone_out_once = clone_out


def clone(self: torch.Tensor, *, memory_format=None) -> torch.Tensor:
    """Planted for bench/gpu-method.sh: the same copy twice, twice the shipped work."""
    _clone_once(self, memory_format=memory_format)
    return _clone_once(self, memory_format=memory_format)


def clone_out(self: torch.Tensor, *, memory_format=None, out: torch.Tensor) -> torch.Tensor:
    _clone_out_once(self, memory_format=memory_format, out=out)
    return _clone_out_once(self, memory_format=memory_format, out=out)
PY
} >"$sol/clone/twice.py"
db="$out/method$suffix.db"
{
	date -u +%FT%TZ
	build/kgb --version
	build/kgb eval --task aten/clone --solutions "$sol" --store "$db" "${timing[@]}" \
		--json >"$out/method$suffix.jsonl"
	echo "eval exit status: $?"
	$KGB_PYTHON bench/method.py "$db"
	echo "method check exit status: $?"
} 2>&1 | tee "$out/method$suffix.txt"
rm -rf "$sol"
