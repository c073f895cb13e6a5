#!/usr/bin/env bash
# Every candidate compiles into a Triton cache of its own under the run's scratch directory, so
# no candidate can plant compiled kernels for another; the directory goes with the run, unless
# --cache-root keeps the caches (a warm cache for the next run of the same candidate).
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
test_expect_success 'with --cache-root the caches outlive the run, one per candidate' '
	"$KGB" --tasks "$TMP/tasks" eval --platform interpreter --solutions "$TMP/sol" \
		--cache-root "$TMP/cache" --store "$TMP/c.db" --json >"$TMP/r2" &&
	json_eval "$TMP/r2" "[r[\"first_failure\"][\"message\"] for r in recs[:-1]]" >"$TMP/m2" &&
	grep -Eo "cache=[^ ]+" "$TMP/m2" | sort -u >"$TMP/dirs2" &&
	test "$(wc -l <"$TMP/dirs2")" = 2 &&
	! grep -Ev "^cache=$TMP/cache/triton-[0-9a-f]{64}$" "$TMP/dirs2" &&
	ls "$TMP/cache" >"$TMP/left" && cat "$TMP/left" &&
	test "$(grep -c "^triton-" "$TMP/left")" = 2 &&
	! grep -v "^triton-" "$TMP/left"
'
test_expect_success '--cache-root must be absolute' '
	expect_status 2 "$KGB" eval --cache-root rel/dir
'
test_done
