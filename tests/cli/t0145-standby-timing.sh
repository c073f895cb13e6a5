#!/usr/bin/env bash
# --standby: a slot's next worker starts (and imports torch and triton) while the slot's job
# runs, and gets its job once the slot is free; the results are those of a run without it.
# --timing picks the timing method, which only a platform that times accepts.
. "$(dirname "$0")/lib.sh"

# The worker command logs when each job's judge starts (no sandbox: the log is outside the
# scratch); its runner starts with it.
setup() {
	mkdir -p "$TMP/sol/scale" &&
	for n in a b c; do
		{ cat "$FIXTURES/candidates/scale/good.py" && echo "# $n"; } >"$TMP/sol/scale/$n.py" ||
			return 1
	done &&
	printf '#!/bin/sh\ncase "$*" in *runtime.worker*) echo "$(date +%%s.%%N)" >>"%s/starts" ;; esac\nexec "%s" "$@"\n' "$TMP" \
		"$ROOT/.venv/bin/python" >"$TMP/py" &&
	chmod +x "$TMP/py"
}

# $1: --standby value; prints the seconds between the first two workers' starts.
run_gap() {
	rm -f "$TMP/starts" "$TMP/r.db" &&
	"$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter --sandbox=off --python "$TMP/py" \
		--jobs 1 --standby "$1" --store "$TMP/r.db" --solutions "$TMP/sol" --json >"$TMP/r$1" &&
	test "$(json_eval "$TMP/r$1" "sorted(r[\"verdict\"] for r in recs[:-1])")" = \
		"['pass', 'pass', 'pass']" &&
	tail -3 "$TMP/starts" | head -2 | awk "NR == 1 { a = \$1 } NR == 2 { printf \"%.3f\n\", \$1 - a }"
}

test_expect_success 'with --standby 1 the second worker starts beside the first' '
	setup &&
	gap=$(run_gap 1) && echo "gap $gap s" &&
	awk -v g="$gap" "BEGIN { exit !(g < 0.5) }"
'
test_expect_success 'with --standby 0 it starts once the first is done' '
	gap=$(run_gap 0) && echo "gap $gap s" &&
	awk -v g="$gap" "BEGIN { exit !(g >= 0.5) }"
'
test_expect_success '--standby is checked' '
	expect_status 2 "$KGB" eval --standby 9 &&
	expect_status 2 "$KGB" eval --standby x
'
test_expect_success '--timing is checked, and refused where nothing is timed' '
	expect_status 2 "$KGB" eval --timing wallclock &&
	expect_status 2 "$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter \
		--timing cuda_graph --solutions "$TMP/sol" 2>"$TMP/err" &&
	grep -q "platform .interpreter. does not time" "$TMP/err"
'
test_done
