#!/usr/bin/env bash
# needs:slurm - `kgb serve --backend slurm` on a real single-node Slurm cluster
# (scripts/slurm-local.sh): each batch of the queue becomes the shards of a Slurm run under
# --run-dir, its candidates judged by `kgb eval` in the shards, merged into the server's store;
# the results are the local backend's (verdicts, case counts), a `ranked` candidate's held-out
# run is a second Slurm run, the plan (which holds the seed) is the owner's only, the server's
# log and answers never show the secret seed, and a server killed (-9) while its batch is a
# Slurm job runs the batch again when restarted, storing its result once. Outside CI the test skips when Slurm
# cannot start; in CI ($CI set) that is a failure.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
. "$(dirname "$0")/slurm-lib.sh"
start_slurm 7

C=$FIXTURES/candidates/scale
RUN=$TMP/srun
# grid.py: right on every public shape, wrong on the held-out ones (t0260's).
sed "s/(triton.cdiv(x.numel(), 256),)/(min(triton.cdiv(x.numel(), 256), 16),)/" "$C/good.py" >"$TMP/grid.py"

# plan_args DIR: the options every shard of the Slurm run in DIR gets, a line each.
plan_args() {
	"$PY" -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["eval_args"]))' "$1/plan.json"
}

test_expect_success 'the server starts with the Slurm backend (and needs --run-dir, --platform)' '
	expect_status 2 "$KGB" serve --backend slurm --listen 127.0.0.1:0 2>"$TMP/e" &&
	grep -q "needs --run-dir" "$TMP/e" &&
	expect_status 2 "$KGB" serve --backend slurm --run-dir "$RUN" --listen 127.0.0.1:0 2>"$TMP/e" &&
	grep -q "name the platform" "$TMP/e" &&
	expect_status 2 "$KGB" serve --partition debug --listen 127.0.0.1:0 2>"$TMP/e" &&
	grep -q "need --backend slurm" "$TMP/e" &&
	serve_start --backend slurm --run-dir "$RUN" --partition debug --time 20 --batch 8
'

test_expect_success 'a batch as a Slurm run: verdicts and cases as the local backend gives them' '
	submission "$TMP/good.json" scale "$C/good.py" &&
	http POST /v1/evaluations "$TMP/good.json" && good=$(body_get "b[\"id\"]") &&
	submission "$TMP/wrong.json" scale "$C/wrong_tail.py" &&
	http POST /v1/evaluations "$TMP/wrong.json" && wrong=$(body_get "b[\"id\"]") &&
	http GET "/v1/evaluations/$good?wait=120" && cat "$TMP/body" &&
	test "$(body_get "b[\"status\"], b[\"result\"][\"verdict\"], b[\"result\"][\"cases_total\"]")" = \
		"('"'"'done'"'"', '"'"'pass'"'"', 28)" &&
	http GET "/v1/evaluations/$wrong?wait=120" &&
	test "$(body_get "b[\"result\"][\"verdict\"]")" = mismatch &&
	grep -q "kgb eval: submitted 1 shard (0) of platform .interpreter. as Slurm job" "$TMP/serve.log" &&
	test "$(sqlite3 "$TMP/serve.db" "select group_concat(verdict) from (select verdict from evaluations order by verdict)")" = "mismatch,pass" &&
	ls -d "$RUN"/batch-*-run-* >"$TMP/dirs" && test -s "$TMP/dirs" &&
	while read -r d; do
		test "$(stat -c %a "$d")" = 700 && plan_args "$d" | grep -qx -- "--seed=0" || exit 1
	done <"$TMP/dirs" &&
	test -z "$(ls -d "$RUN"/batch-[0-9] "$RUN"/batch-[0-9][0-9] 2>/dev/null)"
'

test_expect_success 'ranked: the held-out run is a second Slurm run under the secret seed' '
	submission "$TMP/gr.json" scale "$TMP/grid.py" "{\"ranked\": true}" &&
	http POST /v1/evaluations "$TMP/gr.json" && id=$(body_get "b[\"id\"]") &&
	http GET "/v1/evaluations/$id?wait=180" && cat "$TMP/body" &&
	test "$(body_get "b[\"result\"][\"verdict\"], b[\"result\"][\"cases_total\"] > 28")" = \
		"('"'"'mismatch'"'"', True)" &&
	ranked=$(ls -d "$RUN"/batch-*-ranked-run-*) &&
	seed=$(plan_args "$ranked" | sed -n "s/^--seed=//p") &&
	test -n "$seed" && test "$seed" != 0 &&
	! grep -q -- "$seed" "$TMP/serve.log" "$TMP/body"
'

test_expect_success 'kill -9 while a batch is a Slurm job: the restart runs it again, stores it once' '
	{ cat "$C/good.py"; echo "# killed"; } >"$TMP/k.py" &&
	submission "$TMP/k.json" scale "$TMP/k.py" &&
	http POST /v1/evaluations "$TMP/k.json" && id=$(body_get "b[\"id\"]") &&
	for _ in $(seq 200); do
		test "$(grep -c "as Slurm job" "$TMP/serve.log")" -ge 4 && break; sleep 0.1
	done &&
	serve_kill KILL &&
	serve_start --backend slurm --run-dir "$RUN" --partition debug --time 20 --batch 8 &&
	http GET "/v1/evaluations/$id?wait=120" &&
	test "$(body_get "b[\"status\"], b[\"result\"][\"verdict\"]")" = "('"'"'done'"'"', '"'"'pass'"'"')" &&
	key=$(body_get "b[\"result\"][\"key\"]") &&
	test "$(sqlite3 "$TMP/serve.db" "select count(*) from evaluations where key = '"'"'$key'"'"'")" = 1
'

test_expect_success 'the server stops cleanly; what it judged is in its store' '
	serve_kill TERM &&
	test "$(sqlite3 "$TMP/serve.db" "select count(*) from submissions where state = '"'"'done'"'"'")" = 4
'
scancel --user="$(id -un)" >/dev/null 2>&1 || true
test_done
