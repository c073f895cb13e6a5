#!/usr/bin/env bash
# bench/gpu-faults.sh on the interpreter: the GPU fault candidates (a wild store, a kernel that
# never ends, an impossible allocation) each fail alone with their verdict, twice over in one
# run, and the honest candidates beside them pass. On the GPU the same script checks the
# GPU's verdicts (illegal memory access, timeout, CUDA out of memory).
. "$(dirname "$0")/lib.sh"
# 30 s per candidate: at 15 s the honest ones timed out on a loaded 2-core machine (Python,
# torch and 28 interpreted cases), beside the hanging ones that use their whole limit.

test_expect_success 'every fault fails alone, the honest candidates pass' '
	(cd "$ROOT" && OUT="$TMP/f" KGB_PLATFORM=interpreter KGB_FAULT_TIMEOUT=30 \
		KGB_PYTHON="$ROOT/.venv/bin/python" bash bench/gpu-faults.sh) >"$TMP/log" 2>&1
	cat "$TMP/log" &&
	grep -q "^check exit status: 0" "$TMP/log" &&
	test "$(grep -c "^ok " "$TMP/log")" = 8
'
test_done
