#!/usr/bin/env bash
# needs:slurm - `kgb eval --backend slurm` on a real single-node Slurm cluster
# (scripts/slurm-local.sh: munged, slurmctld, slurmd started here, as root): fourteen tasks in
# four shards of one array job; one shard cancelled with scancel mid-run; the same command
# resubmits only that shard, which resumes from its own store; once all are done the same
# command merges them, and the merged run has the keys and verdicts of a local run, each once.
# Outside CI the test skips when Slurm cannot start; in CI ($CI set) that is a failure.
. "$(dirname "$0")/lib.sh"

CAT=$TMP/tasks
RUN=$TMP/run
. "$(dirname "$0")/slurm-lib.sh"
start_slurm

# Fourteen tasks, copies of the fixture task under other names (each its own key): cheap on the
# interpreter. Dealt round-robin into four shards, shard 1 holds s01 s05 s09 s13; s13 has ten
# times the cases, so shard 1 is still running when the others are done.
test_expect_success 'a catalog of fourteen cheap tasks' '
	for k in 00 01 02 03 04 05 06 07 08 09 10 11 12 13; do
		cp -r "$FIXTURES/tasks/aten/scale" "$CAT/aten/s$k" 2>/dev/null ||
			{ mkdir -p "$CAT/aten" && cp -r "$FIXTURES/tasks/aten/scale" "$CAT/aten/s$k"; } &&
		sed -i "s/\"op\": \"scale\"/\"op\": \"s$k\"/" "$CAT/aten/s$k/task.json" || return 1
	done &&
	sed -i "s/\"shape\": \[.*\],\$/\"shape\": [[], [7], [9], [11], [13], [17], [19], [23], [29], [31], [37], [41], [43], [47], [53], [59], [61], [67], [71], [73], [79], [83], [89], [97], [101], [1000], [4096], [33, 65], [3, 5], [5, 7]],/" "$CAT/aten/s13/task.json" &&
	"$KGB" --tasks "$CAT" list >"$TMP/list" && test "$(grep -c "^aten/s" "$TMP/list")" = 14 &&
	grep "^aten/s13" "$TMP/list" | grep -q " 120 "
'

test_expect_success 'a local run, for reference' '
	"$KGB" --tasks "$CAT" eval --platform interpreter -j 2 --store "$TMP/local.db" --json \
		>"$TMP/local.json" &&
	json_eval "$TMP/local.json" "sorted((r[\"task\"], r[\"key\"], r[\"verdict\"]) for r in recs[:-1])" >"$TMP/want" &&
	test "$(wc -l <"$TMP/local.json")" = 15
'

sub() {
	"$KGB" --tasks "$CAT" eval --backend slurm --platform interpreter --partition debug \
		--shards 4 -j 2 --time 20 --run-dir "$RUN" --store "$TMP/merged.db" "$@"
}

test_expect_success 'the run is submitted as one array job of four shards' '
	sub >"$TMP/sub1.out" 2>"$TMP/sub1.err" &&
	grep -q "submitted 4 shards (0-3) of platform .interpreter. as Slurm job" "$TMP/sub1.err" &&
	test "$(wc -l <"$RUN/jobs.tsv")" = 1 &&
	test "$(cut -f2 "$RUN/jobs.tsv")" = 0-3 &&
	test -f "$RUN/plan.json" && test -x "$RUN/shard.sh"
'
job1=$(cut -f1 "$RUN/jobs.tsv" 2>/dev/null | head -1)

test_expect_success 'shard 1 is cancelled with scancel while it runs' '
	wait_status 150 "recs[1][\"state\"] == \"running\" and recs[1][\"done\"] >= 1" &&
	scancel "${job1}_1" &&
	wait_status 120 "recs[-1][\"states\"][\"running\"] + recs[-1][\"states\"][\"pending\"] == 0" &&
	test "$(json_eval "$TMP/st.json" "[r[\"state\"] for r in recs[:-1]] == [\"done\", \"cancelled\", \"done\", \"done\"]")" = True &&
	test "$(json_eval "$TMP/st.json" "recs[1][\"done\"] < recs[1][\"total\"] == 4")" = True &&
	"$KGB" status "$RUN" >"$TMP/st.txt" && grep -q "3 of 4 shards done" "$TMP/st.txt" &&
	grep -q "1 cancelled" "$TMP/st.txt"
'

test_expect_success 'the same command resubmits only the cancelled shard' '
	sub >"$TMP/sub2.out" 2>"$TMP/sub2.err" &&
	grep -q "submitted 1 shard (1) of platform" "$TMP/sub2.err" &&
	test "$(wc -l <"$RUN/jobs.tsv")" = 2 &&
	test "$(sed -n 2p "$RUN/jobs.tsv" | cut -f2)" = 1 &&
	wait_status 150 "recs[-1][\"complete\"]"
'

test_expect_success 'the resubmitted shard resumed: what it had finished was not redone' '
	test "$(sqlite3 "$RUN/shard-1.db" "select count(*) from runs")" = 2 &&
	test "$(sqlite3 "$RUN/shard-1.db" "select count(*) from run_evals where run_id = 2 and reused = 1")" -ge 1 &&
	for k in 0 2 3; do
		test "$(sqlite3 "$RUN/shard-$k.db" "select count(*) from runs")" = 1 || return 1
	done
'

test_expect_success 'once all are done, the same command merges and prints the run' '
	sub --json >"$TMP/final.json" 2>"$TMP/final.err" &&
	grep -q "4 shards merged" "$TMP/final.err" &&
	json_eval "$TMP/final.json" "sorted((r[\"task\"], r[\"key\"], r[\"verdict\"]) for r in recs[:-1])" >"$TMP/got" &&
	test -s "$TMP/want" && diff -u "$TMP/want" "$TMP/got" &&
	test "$(json_eval "$TMP/final.json" "recs[-1][\"total\"], recs[-1][\"pass\"]")" = "(14, 14)"
'

test_expect_success 'the merged store holds each result once, linked by one run' '
	test "$(sqlite3 "$TMP/merged.db" "select count(*), count(distinct key) from evaluations")" = "14|14" &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*) from runs")" = 1 &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*) from run_evals")" = 14 &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*) from cases")" = "$(sqlite3 "$TMP/local.db" "select count(*) from cases")"
'

test_expect_success 'merging again adds nothing (kgb merge, and the eval command again)' '
	"$KGB" merge --json "$TMP/merged.db" "$RUN"/shard-*.db >"$TMP/m.json" &&
	test "$(json_eval "$TMP/m.json" "recs[0][\"evaluations_added\"], recs[0][\"cases_added\"], recs[0][\"links_added\"], recs[0][\"evaluations_known\"]")" = "(0, 0, 0, 14)" &&
	sub --json >"$TMP/again.json" 2>/dev/null &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*), count(distinct key) from evaluations")" = "14|14" &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*) from runs")" = 1 &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*) from run_evals")" = 14 &&
	test "$(wc -l <"$RUN/jobs.tsv")" = 2
'

test_expect_success 'kgb merge folds shards into a store that already has the local results' '
	cp "$TMP/local.db" "$TMP/both.db" &&
	"$KGB" merge --json "$TMP/both.db" "$RUN"/shard-*.db >"$TMP/m2.json" &&
	test "$(json_eval "$TMP/m2.json" "recs[0][\"evaluations_added\"], recs[0][\"evaluations_known\"], recs[0][\"conflicts\"], recs[0][\"links_added\"]")" = "(0, 14, 0, 14)" &&
	test "$(sqlite3 "$TMP/both.db" "select count(*) from runs")" = 2
'

# A method run (docs/methods.md) through Slurm: the shard writes its task's candidate from the
# method's table and judges it; the merged run is Liger-Kernel's pass of aten/embedding, as in
# t0136 (its grid cut to 8 cases).
test_expect_success 'kgb eval --method through Slurm: the shard writes and judges the candidate' '
	mkdir -p "$TMP/mcat/aten" && cp -r "$ROOT/tasks/aten/embedding" "$TMP/mcat/aten/" &&
	"$ROOT/.venv/bin/python" - "$TMP/mcat/aten/embedding/task.json" <<-PY &&
	import json, sys
	t = json.load(open(sys.argv[1]))
	keep = {"dtype": ["float32", "float16"], "layout": ["contiguous", "transposed"],
	        "index_dtype": ["int64"]}
	for axes in [t.get("axes") or {}] + [e.get("axes") or {} for e in t["entries"]]:
	    for k, v in axes.items():
	        axes[k] = keep.get(k, v[:2])
	json.dump(t, open(sys.argv[1], "w"), indent=1)
	PY
	msub() {
		"$KGB" --tasks "$TMP/mcat" eval --backend slurm --platform interpreter \
			--partition debug --shards 1 -j 2 --time 20 --run-dir "$TMP/mrun" \
			--store "$TMP/method.db" --method liger "$@"
	} &&
	msub >/dev/null 2>"$TMP/msub.err" &&
	grep -q "submitted 1 shard (0) of platform .interpreter." "$TMP/msub.err" &&
	grep -q -- "--method=liger" "$TMP/mrun/plan.json" &&
	RUN=$TMP/mrun wait_status 150 "recs[-1][\"complete\"]" &&
	msub --json >"$TMP/mfinal.json" 2>"$TMP/mfinal.err" &&
	test "$(json_eval "$TMP/mfinal.json" "\" \".join(str(r[k]) for r in recs[:-1] for k in (\"task\", \"sample\", \"verdict\", \"cases_passed\"))")" = "embedding liger pass 8"
'

# Two platforms, one partition each: one array job per platform, in its partition. This machine
# has no GPU, so the cuda shard fails (its kgb says torch sees no CUDA device) and is shown so.
test_expect_success 'a multi-platform run: one array job per platform, each in its partition' '
	"$KGB" --tasks "$CAT" eval --backend slurm --partition interpreter=debug \
		--partition cuda=cpuq --task s00 --task s02 --shards 1 -j 1 --run-dir "$TMP/run2" \
		--store "$TMP/multi.db" 2>"$TMP/multi.err" >/dev/null &&
	grep -q "submitted 1 shard (0) of platform .interpreter." "$TMP/multi.err" &&
	grep -q "submitted 1 shard (1) of platform .cuda." "$TMP/multi.err" &&
	test "$(wc -l <"$TMP/run2/jobs.tsv")" = 2 &&
	jc=$(sed -n 2p "$TMP/run2/jobs.tsv" | cut -f1) &&
	test "$(squeue -h -t all -j "$jc" -o %P)" = cpuq &&
	RUN=$TMP/run2 wait_status 120 "recs[-1][\"states\"][\"running\"] + recs[-1][\"states\"][\"pending\"] == 0" &&
	test "$(json_eval "$TMP/st.json" "[(r[\"platform\"], r[\"state\"], r[\"done\"], r[\"total\"]) for r in recs[:-1]] == [(\"interpreter\", \"done\", 2, 2), (\"cuda\", \"failed\", 0, 2)]")" = True
'

test_expect_success 'Slurm unreachable: status says so (exit 4) and still shows the stores' '
	stop_slurm &&
	expect_status 4 "$KGB" status --json "$RUN" >"$TMP/down.json" 2>"$TMP/down.err" &&
	grep -q "cannot ask Slurm" "$TMP/down.err" &&
	test "$(json_eval "$TMP/down.json" "recs[-1][\"complete\"]")" = True
'

test_expect_success 'a run directory is not reused for another run' '
	expect_status 2 "$KGB" --tasks "$CAT" eval --backend slurm --platform interpreter \
		--shards 3 --run-dir "$RUN" --store "$TMP/merged.db" 2>"$TMP/other.err" &&
	grep -q "holds another run" "$TMP/other.err"
'

test_expect_success 'usage errors' '
	expect_status 2 "$KGB" --tasks "$CAT" eval --backend slurm --platform interpreter &&
	expect_status 2 "$KGB" --tasks "$CAT" eval --partition debug --run-dir "$RUN" &&
	expect_status 2 "$KGB" --tasks "$CAT" eval --backend slurm --run-dir "$RUN" &&
	expect_status 2 "$KGB" --tasks "$CAT" eval --backend slurm --platform interpreter \
		--run-dir "$RUN" --force &&
	expect_status 2 "$KGB" merge "$TMP/merged.db" &&
	expect_status 3 "$KGB" status "$TMP/nowhere"
'
stop_slurm
test_done
