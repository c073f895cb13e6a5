#!/usr/bin/env bash
# needs:slurm - `kgb generate --backend slurm` on a real single-node Slurm cluster
# (scripts/slurm-local.sh, as in t0240) against the scripted chat server (tests/llm/server.py,
# as in t0210): five tasks in two shards of one array job, each shard generating into its own
# store and out dir; once both are done the same command merges them, and the merged store has
# every task's requests and evaluations once, with the outcomes of a local `kgb generate` of the
# same tasks; running it again submits nothing and adds nothing.
# Outside CI the test skips when Slurm cannot start; in CI ($CI set) that is a failure.
. "$(dirname "$0")/lib.sh"

PY=$ROOT/.venv/bin/python
CAT=$TMP/tasks
RUN=$TMP/run
GOOD=$FIXTURES/gen-tasks/aten/scale/solution.py
export OPENAI_API_KEY=sk-test-5e1d
SERVER_PID=
. "$(dirname "$0")/slurm-lib.sh"
trap 'stop_slurm; [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null' EXIT
start_slurm 7919

# Five copies of the fixture task (each its own op, so its own prompt), with few cases. The
# model: s00, s02, s04 right at once; s01 wrong at first, right once told so (round 1); s03
# never answers with code.
for k in 00 01 02 03 04; do
	mkdir -p "$CAT/aten" && cp -rL "$FIXTURES/gen-tasks/aten/scale" "$CAT/aten/s$k" &&
		sed -i -e "s/\"op\": \"scale\"/\"op\": \"s$k\"/" \
			-e "s/\"shape\": \[.*\],\$/\"shape\": [[7], [33, 65]],/" \
			-e "s/\"dtype\": \[.*\],\$/\"dtype\": [\"float32\"],/" "$CAT/aten/s$k/task.json"
done
"$PY" - "$TMP/llm.json" "$GOOD" <<-'PY'
import json, sys
good = open(sys.argv[2]).read()
bad = good.replace("x * 2", "x * 3")
rule = lambda m, r: {"match": m, "replies": [r]}
json.dump({"rules": [rule("wrong results", {"code": good}),
                     rule("implement `s00`", {"code": good}), rule("implement `s01`", {"code": bad}),
                     rule("implement `s02`", {"code": good}), rule("implement `s04`", {"code": good}),
                     rule("", {"text": "I would rather not write code."})]},
          open(sys.argv[1], "w"))
PY
"$PY" "$ROOT/tests/llm/server.py" "$TMP/llm.json" "$TMP/llm.log" "$TMP/llm.port" &
SERVER_PID=$!
for _ in $(seq 100); do [ -s "$TMP/llm.port" ] && break; sleep 0.1; done
URL=http://127.0.0.1:$(cat "$TMP/llm.port")/v1

gen() {
	"$KGB" --tasks "$CAT" generate --platform interpreter --base-url "$URL" --model m \
		--rounds 1 --concurrency 1 --backoff 0 --retries 0 "$@"
}
sub() {
	gen --backend slurm --partition debug --shards 2 --time 20 --run-dir "$RUN" \
		--store "$TMP/merged.db" "$@"
}
# The requests of a store: task, sample, round, stage, outcome (one line each, sorted).
requests() {
	sqlite3 "$1" "select task, sample, round, stage, outcome from generations order by 1, 2, 3, 4"
}

test_expect_success 'a local run of the five tasks, for reference' '
	"$KGB" --tasks "$CAT" list >"$TMP/list" && test "$(grep -c "^aten/s0" "$TMP/list")" = 5 &&
	gen --store "$TMP/local.db" --out "$TMP/local-out" --json >"$TMP/local.json" &&
	json_eval "$TMP/local.json" "[(r[\"task\"], r[\"passed\"], r[\"pass_at_k\"], r[\"solved_within_rounds\"]) for r in recs[:-1]]" >"$TMP/want" &&
	test "$(json_eval "$TMP/local.json" "recs[-1][\"solved\"], recs[-1][\"tasks\"]")" = "(4, 5)" &&
	requests "$TMP/local.db" >"$TMP/want.req" && test "$(wc -l <"$TMP/want.req")" = 7
'

test_expect_success 'the tasks go as one array job of two shards' '
	sub >"$TMP/sub1.out" 2>"$TMP/sub1.err" &&
	grep -q "submitted 2 shards (0-1) of platform .interpreter. as Slurm job" "$TMP/sub1.err" &&
	test "$(wc -l <"$RUN/jobs.tsv")" = 1 && test -x "$RUN/shard.sh" &&
	"$PY" -c "import json, sys; p = json.load(open(sys.argv[1])); print(p[\"command\"], *[\" \".join(s[\"tasks\"]) for s in p[\"shards\"]], sep=\"|\")" "$RUN/plan.json" >"$TMP/plan.txt" &&
	test "$(cat "$TMP/plan.txt")" = "generate|aten/s00 aten/s02 aten/s04|aten/s01 aten/s03" &&
	! grep -q sk-test-5e1d "$RUN/plan.json"
'

test_expect_success 'kgb status follows the shards to done; each wrote its own store and out dir' '
	wait_status 90 "recs[-1][\"complete\"]" &&
	test "$(json_eval "$TMP/st.json" "[(r[\"state\"], r[\"done\"], r[\"total\"]) for r in recs[:-1]]")" = "[('"'"'done'"'"', 3, 3), ('"'"'done'"'"', 2, 2)]" &&
	"$KGB" status "$RUN" | grep -q "2 of 2 shards done, 5 of 5 tasks" &&
	test "$(sqlite3 "$RUN/shard-0.db" "select group_concat(distinct task) from generations")" = "s00,s02,s04" &&
	test "$(sqlite3 "$RUN/shard-1.db" "select group_concat(distinct task) from generations")" = "s01,s03" &&
	test -f "$RUN/out-0/r0/s00/s0.py" && test -f "$RUN/out-1/r1/s01/s0.py"
'

test_expect_success 'the same command merges, with the outcomes of the local run' '
	sub --json >"$TMP/final.json" 2>"$TMP/final.err" &&
	grep -q "2 shards merged into .*: [1-9] results added, 0 known, 7 requests added" "$TMP/final.err" &&
	! grep -q submitted "$TMP/final.err" &&
	json_eval "$TMP/final.json" "[(r[\"task\"], r[\"passed\"], r[\"pass_at_k\"], r[\"solved_within_rounds\"]) for r in recs[:-1]]" >"$TMP/got" &&
	diff -u "$TMP/want" "$TMP/got" &&
	test "$(json_eval "$TMP/final.json" "[recs[-1][k] for k in (\"solved\", \"tasks\", \"pass_at_k\", \"prompt_tokens\", \"completion_tokens\")]")" = "$(json_eval "$TMP/local.json" "[recs[-1][k] for k in (\"solved\", \"tasks\", \"pass_at_k\", \"prompt_tokens\", \"completion_tokens\")]")" &&
	requests "$TMP/merged.db" >"$TMP/got.req" && diff -u "$TMP/want.req" "$TMP/got.req"
'

test_expect_success 'the merged store holds each request and evaluation once, under one run' '
	test "$(sqlite3 "$TMP/merged.db" "select count(*), count(distinct task || sample || round || stage) from generations")" = "7|7" &&
	test "$(sqlite3 "$TMP/merged.db" "select count(distinct run_id) from generations")" = 1 &&
	test "$(sqlite3 "$TMP/merged.db" "select harness from runs where id = (select run_id from generations)")" = generate &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*), count(distinct key) from evaluations")" = "$(sqlite3 "$TMP/local.db" "select count(*), count(*) from evaluations")" &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*) from generations g where g.eval_key is not null and not exists (select 1 from evaluations e where e.key = g.eval_key)")" = 0 &&
	test "$(sqlite3 "$TMP/merged.db" "select group_concat(key) from (select key from evaluations order by key)")" = "$(sqlite3 "$TMP/local.db" "select group_concat(key) from (select key from evaluations order by key)")"
'

test_expect_success 'running it again submits nothing and adds nothing; nor does kgb merge' '
	sub >/dev/null 2>"$TMP/again.err" &&
	! grep -q submitted "$TMP/again.err" &&
	grep -q "0 results added, [1-9] known, 0 requests added" "$TMP/again.err" &&
	test "$(wc -l <"$RUN/jobs.tsv")" = 1 &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*) from generations")" = 7 &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*) from runs")" = 2 &&
	"$KGB" merge --json "$TMP/merged.db" "$RUN"/shard-*.db >"$TMP/m.json" &&
	test "$(json_eval "$TMP/m.json" "recs[0][\"evaluations_added\"], recs[0][\"generations_added\"], recs[0][\"links_added\"]")" = "(0, 0, 0)" &&
	test "$(sqlite3 "$TMP/merged.db" "select count(*) from runs")" = 2
'

test_expect_success 'usage errors; a run directory is not reused for another run' '
	expect_status 2 gen --backend slurm --run-dir "$RUN" --out "$TMP/o" 2>"$TMP/e" &&
	grep -q "out with --backend slurm" "$TMP/e" &&
	expect_status 2 gen --partition debug 2>"$TMP/e" && grep -q "need --backend slurm" "$TMP/e" &&
	expect_status 2 gen --backend slurm 2>"$TMP/e" && grep -q "needs --run-dir" "$TMP/e" &&
	expect_status 2 "$KGB" --tasks "$CAT" eval --backend slurm --platform interpreter \
		--shards 2 --run-dir "$RUN" --store "$TMP/x.db" 2>"$TMP/e" &&
	grep -q "holds another run (the commands" "$TMP/e" &&
	expect_status 2 sub --samples 2 2>"$TMP/e" && grep -q "holds another run" "$TMP/e"
'
stop_slurm
test_done
