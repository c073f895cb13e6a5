#!/usr/bin/env bash
# Every candidate compiles into a Triton cache of its own under the run's scratch directory, so
# no candidate can plant compiled kernels for another; the directory goes with the run.
. "$(dirname "$0")/lib.sh"

test_expect_success 'two candidates see two private Triton caches' '
	mkdir -p "$TMP/tasks/aten" "$TMP/sol/scale" &&
	cp -r "$FIXTURES/tasks/aten/scale" "$TMP/tasks/aten/" &&
	sed -i "s/\"schema\": 1,/\"schema\": 1, \"allow\": [\"os\"],/" "$TMP/tasks/aten/scale/task.json" &&
	for n in a b; do
		printf "import os\n\n\ndef scale(self):\n    raise RuntimeError(\"cache=\" + os.environ[\"TRITON_CACHE_DIR\"] + \" $n\")\n" \
			>"$TMP/sol/scale/$n.py" || return 1
	done &&
	TMPDIR="$TMP/scratch" "$KGB" --tasks "$TMP/tasks" eval --platform interpreter \
		--solutions "$TMP/sol" --json >"$TMP/r" &&
	json_eval "$TMP/r" "[r[\"first_failure\"][\"message\"] for r in recs[:-1]]" >"$TMP/m" &&
	cat "$TMP/m" &&
	grep -Eo "cache=[^ ]+" "$TMP/m" | sort -u >"$TMP/dirs" &&
	test "$(wc -l <"$TMP/dirs")" = 2 &&
	! grep -Ev "^cache=$TMP/scratch/kgb-[0-9]+/triton-[0-9a-f]{64}$" "$TMP/dirs"
'
test_expect_success 'the caches are gone when the run ends' '
	test -z "$(ls -A "$TMP/scratch")"
'
test_done
