#!/usr/bin/env bash
# One run with an honest candidate and five broken ones on the same task: each broken one gets
# its own verdict, the honest one still passes, and nothing is left running.
. "$(dirname "$0")/lib.sh"

run_faults() {
	"$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter -j 2 --timeout 30 \
		--solutions "$FIXTURES/candidates" --json >"$TMP/r"
}
verdict() { json_eval "$TMP/r" "[r[\"verdict\"] for r in recs if r.get(\"sample\") == \"$1\"][0]"; }

test_expect_success 'the run completes despite the faults' 'run_faults'
test_expect_success 'honest candidate passes' 'test "$(verdict good)" = pass'
test_expect_success 'syntax error is syntax_error with a line number' '
	test "$(verdict syntax_error)" = syntax_error &&
	json_eval "$TMP/r" "[r[\"detail\"] for r in recs if r.get(\"sample\") == \"syntax_error\"][0]" | grep -q ":4"
'
test_expect_success 'wrong tail is mismatch, and only non-aligned cases fail' '
	test "$(verdict wrong_tail)" = mismatch &&
	json_eval "$TMP/r" "[r for r in recs if r.get(\"sample\") == \"wrong_tail\"][0][\"first_failure\"][\"axes\"][\"shape\"]" >"$TMP/s" &&
	grep -Eq "\[7\]|\[1000\]|\[33, 65\]|\[\]" "$TMP/s" &&
	test "$(json_eval "$TMP/r" "[r[\"cases_passed\"] for r in recs if r.get(\"sample\") == \"wrong_tail\"][0]")" -gt 0
'
test_expect_success 'raising candidate is error with the exception text' '
	test "$(verdict raises)" = error &&
	json_eval "$TMP/r" "[r[\"detail\"] for r in recs if r.get(\"sample\") == \"raises\"][0]" | grep -q "always raises"
'
test_expect_success 'segfaulting candidate is crash by signal 11' '
	test "$(verdict segfault)" = crash &&
	json_eval "$TMP/r" "[r[\"detail\"] for r in recs if r.get(\"sample\") == \"segfault\"][0]" | grep -q "signal 11"
'
test_expect_success 'hanging candidate is timeout' 'test "$(verdict hang)" = timeout'
test_expect_success 'summary counts 1 pass of 6' '
	test "$(json_eval "$TMP/r" "recs[-1][\"pass\"], recs[-1][\"total\"]")" = "(1, 6)"
'
test_expect_success 'no worker is left running' '
	! pgrep -f "runtime.worker.*" -u "$(id -u)" -a | grep -q "$TMP" &&
	! pgrep -f "hang.py" >/dev/null
'
test_expect_success 'records carry per-entry (per-overload) counts' '
	test "$(json_eval "$TMP/r" "[r[\"entries\"] for r in recs if r.get(\"sample\") == \"wrong_tail\"][0][\"scale\"][\"passed\"] > 0")" = True
'
test_expect_success 'failing verdicts give exit 1 under --exit-status' '
	expect_status 1 "$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter \
		--solutions "$FIXTURES/candidates" --exit-status >/dev/null
'
# A worker whose platform does not start (on the GPU: CUDA failing before the candidate is
# imported) is the machine's failure: nothing is stored for the candidate, the run exits 4, and
# a later run on a sound machine evaluates it.
test_expect_success 'a platform that does not start is not the candidate'"'"'s verdict' '
	cat >"$TMP/brokenpy" <<-SH &&
	#!/bin/sh
	# -P -m runtime.worker (the judge), with the platform setup failing as a dead GPU would
	case "\$*" in *runtime.runner*|*runtime.replay_runner*) exec "$ROOT/.venv/bin/python" "\$@" ;; esac
	exec "$ROOT/.venv/bin/python" -P -c "
	import sys, runtime.worker as w
	def broken(platform, traces=False):
	    raise RuntimeError(\"cudaGetDeviceCount(): error 304\")
	w.setup_platform = broken
	sys.exit(w.main())"
	SH
	chmod +x "$TMP/brokenpy" &&
	mkdir -p "$TMP/one/scale" && cp "$FIXTURES/candidates/scale/good.py" "$TMP/one/scale/" &&
	expect_status 4 env KGB_PYTHON="$TMP/brokenpy" "$KGB" --tasks "$FIXTURES/tasks" eval \
		--platform interpreter --solutions "$TMP/one" --store "$TMP/env.db" --json \
		>"$TMP/o" 2>"$TMP/e" &&
	grep -q "aten/scale good: not evaluated: the worker could not start platform .interpreter.: RuntimeError: cudaGetDeviceCount(): error 304 (nothing stored)" "$TMP/e" &&
	grep -q "1 candidate not evaluated" "$TMP/e" &&
	test "$(json_eval "$TMP/o" "recs[-1][\"total\"]")" = 0 &&
	"$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter --solutions "$TMP/one" \
		--store "$TMP/env.db" --json >"$TMP/o2" &&
	test "$(json_eval "$TMP/o2" "recs[0][\"verdict\"] == \"pass\" and recs[-1][\"evaluated\"] == 1")" = True
'
# A FIFO waits for a writer that never comes, and a huge file costs memory: a candidate or a
# task.json that is not a regular file, or a candidate over 1 MiB, is refused with its reason.
test_expect_success 'a FIFO or an oversized file as candidate or task.json: refused, never waited on' '
	mkdir -p "$TMP/ff/scale" && mkfifo "$TMP/ff/scale/fifo.py" &&
	head -c 1100000 /dev/zero | tr "\0" "#" >"$TMP/ff/scale/big.py" &&
	timeout 120 "$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter --task scale \
		--solutions "$TMP/ff" --store "$TMP/ff.db" >/dev/null 2>"$TMP/e" &&
	grep -q "fifo.py.: not a regular file, skipping" "$TMP/e" &&
	grep -q "big.py.: larger than 1 MiB, skipping" "$TMP/e" &&
	mkdir -p "$TMP/fcat/aten" && cp -r "$FIXTURES/tasks/aten/scale" "$TMP/fcat/aten/" &&
	rm "$TMP/fcat/aten/scale/task.json" && mkfifo "$TMP/fcat/aten/scale/task.json" &&
	expect_status 1 timeout 60 "$KGB" --tasks "$TMP/fcat" lint >"$TMP/o" 2>&1 &&
	grep -q "task.json: cannot read: not a regular file" "$TMP/o"
'
# A catalog from elsewhere may link a task's files out of its directory: a prompt.md linked to
# a key would be sent to a model, a task.json's text shown in an error. A link within the
# task's directory is fine, and so is a task directory that is itself a link (a catalog put
# together from others).
test_expect_success 'links out of a task directory: refused, their targets never read' '
	echo "SECRET-t0100-not-for-anyone" >"$TMP/secret.txt" &&
	mkdir -p "$TMP/lcat/aten" "$TMP/lcat2/aten" &&
	cp -r "$FIXTURES/tasks/aten/scale" "$TMP/lcat/aten/" &&
	mv "$TMP/lcat/aten/scale/prompt.md" "$TMP/lcat/aten/scale/prompt-inside.md" &&
	ln -s prompt-inside.md "$TMP/lcat/aten/scale/prompt.md" &&
	"$KGB" --tasks "$TMP/lcat" lint >"$TMP/o" 2>&1 &&
	ln -s "$TMP/lcat/aten/scale" "$TMP/lcat2/aten/scale" &&
	"$KGB" --tasks "$TMP/lcat2" lint >"$TMP/o" 2>&1 &&
	ln -sf "$TMP/secret.txt" "$TMP/lcat/aten/scale/prompt.md" &&
	expect_status 1 "$KGB" --tasks "$TMP/lcat" lint >"$TMP/o" 2>&1 &&
	grep -q "prompt.md: a link out of its task directory (to .*secret.txt.): not read" "$TMP/o" &&
	expect_status 3 "$KGB" --tasks "$TMP/lcat" show scale >"$TMP/o2" 2>&1 &&
	! grep -q SECRET "$TMP/o" "$TMP/o2" &&
	ln -sf prompt-inside.md "$TMP/lcat/aten/scale/prompt.md" &&
	cp "$TMP/secret.txt" "$TMP/secret.json" &&
	rm "$TMP/lcat/aten/scale/task.json" &&
	ln -s "$TMP/secret.json" "$TMP/lcat/aten/scale/task.json" &&
	expect_status 1 "$KGB" --tasks "$TMP/lcat" lint >"$TMP/o" 2>&1 &&
	grep -q "task.json: a link out of its task directory (to .*secret.json.): not read" "$TMP/o" &&
	! grep -q SECRET "$TMP/o"
'

# Candidates given with --solutions are the submitter's files: one linked out of the directory
# (to the shipped solution, say) would be scored as theirs.
test_expect_success 'a candidate linked out of --solutions: not followed, skipped with the reason' '
	mkdir -p "$TMP/lsol/scale" "$TMP/lsol2" &&
	ln -s "$FIXTURES/tasks/aten/scale/solution.py" "$TMP/lsol/scale/shipped.py" &&
	ln -s "$FIXTURES/tasks/aten/scale" "$TMP/lsol2/scale" &&
	cp "$FIXTURES/candidates/scale/good.py" "$TMP/lsol/scale/own.py" &&
	ln -s own.py "$TMP/lsol/scale/again.py" &&
	"$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter --task scale \
		--solutions "$TMP/lsol" --store "$TMP/lsol.db" --json >"$TMP/o" 2>"$TMP/e" &&
	grep -q "candidate .*shipped.py. is a link out of --solutions (to .*solution.py.): not followed, skipping" "$TMP/e" &&
	test "$(json_eval "$TMP/o" "sorted(r[\"sample\"] for r in recs if r.get(\"schema\") == \"kgb.eval.v1\")")" = "['"'"'again'"'"', '"'"'own'"'"']" &&
	"$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter --task scale \
		--solutions "$TMP/lsol2" --store "$TMP/lsol2.db" --json >"$TMP/o" 2>"$TMP/e" &&
	grep -q "is a link out of --solutions" "$TMP/e" &&
	test "$(json_eval "$TMP/o" "[r for r in recs if r.get(\"schema\") == \"kgb.eval.v1\"]")" = "[]"
'

test_done
