#!/usr/bin/env bash
# `kgb report -o` (the self-contained HTML report), `kgb export` and `kgb compare`'s per-task
# changes with significance. Two real methods on the interpreter: the shipped solutions of the
# generation fixtures and a `kgb generate` run against the scripted chat server
# (tests/llm/server.py); plus two synthetic cuda runs written into a second store (speedups with
# per-case values, for the speedup plots and the significance rule). The page is opened in
# headless Chromium: no console errors, its own #selftest sorts and filters the per-task table,
# and a screenshot is taken (copied with the page to bench/results/report-2026-12-03/ when
# KGB_RECORD_REPORT=1: a test run must not rewrite committed files). Without Chromium the
# browser checks fail under $CI and are skipped (said so) elsewhere.
. "$(dirname "$0")/lib.sh"

PY=$ROOT/.venv/bin/python
G=$FIXTURES/gen-tasks/aten
CAT=$TMP/cat
SHOTS=$ROOT/bench/results/report-2026-12-03
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
export KGB_STORE=$TMP/r.db
export OPENAI_API_KEY=sk-test-report
mkdir -p "$CAT/aten" && ln -s "$G/scale" "$G/shift" "$CAT/aten/"

# The chat server: scale right then wrong, shift without code then right (2 samples each).
"$PY" - "$TMP/srv.json" "$G/scale/solution.py" "$G/shift/solution.py" <<-'PY'
import json, sys
good, shift = open(sys.argv[2]).read(), open(sys.argv[3]).read()
bad = good.replace("x * 2", "x * 3")
json.dump({"rules": [
    {"match": "implement `scale`", "replies": [
        {"code": good, "usage": {"prompt": 1000, "completion": 200}},
        {"code": bad, "usage": {"prompt": 1000, "completion": 300}}]},
    {"match": "implement `shift`", "replies": [
        {"text": "no code today", "usage": {"prompt": 900, "completion": 100}},
        {"code": shift}]}]}, open(sys.argv[1], "w"))
PY
"$PY" "$ROOT/tests/llm/server.py" "$TMP/srv.json" "$TMP/srv.log" "$TMP/srv.port" &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$TMP/srv.port" ] && break; sleep 0.1; done

# html_eval FILE EXPR: EXPR over `cells` {(table id, method or row, data-key): data-value} and
# the page text `page`, with Python's own HTML parser.
html_eval() {
	"$PY" - "$1" "$2" <<-'PY'
	import sys
	from html.parser import HTMLParser
	page = open(sys.argv[1]).read()
	cells, rows = {}, {}
	class P(HTMLParser):
	    table = None
	    row = None
	    def handle_starttag(self, tag, attrs):
	        a = dict(attrs)
	        if tag == "table":
	            P.table = a.get("id")
	        elif tag == "tr":
	            P.row = a.get("data-method")
	        elif tag == "td" and "data-key" in a and P.row is not None:
	            cells[(P.table, int(P.row), a["data-key"])] = a.get("data-value")
	P().feed(page)
	num = lambda v: None if v in (None, "null") else float(v)
	print(eval(sys.argv[2]))
	PY
}

# need_chromium: ends a case where there is no Chromium: failed under $CI, else skipped.
need_chromium() {
	[ -n "$CHROMIUM" ] && return 0
	if [ -n "${CI:-}" ]; then echo "chromium is missing (scripts/bootstrap.sh installs it)"; exit 1; fi
	echo "skipped: no chromium here"
	exit 0
}

# page_selftest PAGE OUT: the #selftest record of PAGE as headless Chromium renders it (one JSON
# line: the sorted table, and per plot its labels as drawn and its source groups) into OUT.
page_selftest() {
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$TMP/chrome" \
		--virtual-time-budget=3000 --dump-dom "file://$1#selftest" 2>/dev/null >"$2.dom" &&
	"$PY" - "$2.dom" >"$2" <<-'PY'
	import html, re, sys
	m = re.search(r'<pre id="selftest">([^<]*)</pre>', open(sys.argv[1]).read())
	print(html.unescape(m.group(1)))
	PY
}

# legends_apart JSON: in every plot, each method's label lies inside the SVG and reads unlike
# the others' (a label cut by the SVG's edge, or two cut alike, cannot be told apart).
legends_apart() {
	"$PY" - "$1" <<-'PY'
	import json, sys
	for name, plot in json.load(open(sys.argv[1]))["plots"].items():
	    texts = [l["text"] for l in plot["legend"]]
	    assert len(set(texts)) == len(texts), (name, texts)
	    assert all(l["fits"] for l in plot["legend"]), (name, plot["legend"])
	PY
}

test_expect_success 'two real methods: shipped solutions and a generate run' '
	"$KGB" --tasks "$CAT" eval --platform interpreter -j 2 >"$TMP/eval.txt" &&
	"$KGB" --tasks "$CAT" generate --platform interpreter --backoff 0 --model m-test \
		--base-url "http://127.0.0.1:$(cat "$TMP/srv.port")/v1" --samples 2 --concurrency 2 \
		--out "$TMP/gen" >"$TMP/gen.txt" &&
	test "$(sqlite3 "$KGB_STORE" "select group_concat(harness) from runs")" != "" &&
	test "$(sqlite3 "$KGB_STORE" "select harness from runs where id = 2")" = generate
'

# Two cuda runs, 50 and 51, in a second store: per-case speedups (timed cases) per task.
test_expect_success 'synthetic cuda runs in a second store' '
	"$PY" - "$KGB_STORE" "$TMP/cuda.db" <<-'PY'
	import json, math, sqlite3, sys
	src = sqlite3.connect(sys.argv[1]); db = sqlite3.connect(sys.argv[2])
	src.backup(db)  # the schema (and a WAL-safe copy), then only the synthetic rows
	for t in ("generations", "run_evals", "cases", "evaluations", "runs"):
	    db.execute("DELETE FROM " + t)
	runs = {50: {"t_fast": [1.0, 1.1, 0.9, 1.0], "t_noise": [1.0, 1.5, 0.7, 1.2],
	             "t_break": [1.2, 1.3], "<b>evil</b>": [1.3, 1.3]},
	        51: {"t_fast": [2.0, 2.1, 1.9, 2.2], "t_noise": [1.1, 1.6, 0.8, 1.2],
	             "t_break": None, "<b>evil</b>": [1.3, 1.3]}}
	for run, tasks in runs.items():
	    db.execute("INSERT INTO runs(id, started_at, platform, harness, command, env) VALUES(?, \"t\", \"cuda\", \"h\", \"kgb eval\", ?)",
	               (run, json.dumps({"profile": {"name": "nvidia-hopper"}})))
	    for task, sp in tasks.items():
	        key = "k%d-%s" % (run, task)
	        ok = sp is not None
	        g = math.exp(sum(map(math.log, sp)) / len(sp)) if ok else None
	        db.execute("INSERT INTO evaluations(key, task, source, task_version, candidate_hash, platform,"
	                   " harness, verdict, detail, cases_total, cases_passed, timed_cases, speedup, wall_ms, created_at, run_id)"
	                   " VALUES(?, ?, \"vllm\", \"v\", ?, \"cuda\", \"h\", ?, ?, 4, 4, 4, ?, 1000, \"t\", ?)",
	                   (key, task, key, "pass" if ok else "mismatch", "" if ok else "case 1: \"wrong\", off", g, run))
	        db.execute("INSERT INTO run_evals VALUES(?, ?, \"shipped\", NULL, ?, 0)", (run, task, key))
	        for cid, s in enumerate(sp or []):
	            db.execute("INSERT INTO cases(eval_key, case_id, entry, timed, verdict, speedup) VALUES(?, ?, \"e\", 1, \"pass\", ?)",
	                       (key, cid, s))
	db.commit()
	PY
'

test_expect_success 'report -o writes one self-contained page with every method' '
	"$KGB" report -o "$TMP/page.html" 1 2 "$TMP/cuda.db:50" "$TMP/cuda.db:51" &&
	grep -q "<svg" "$TMP/page.html" && grep -q "<style>" "$TMP/page.html" &&
	! grep -Eiq "(src|href)=\"(https?:)?//" "$TMP/page.html" &&
	! grep -q "<link" "$TMP/page.html" &&
	for id in leaderboard by-source by-platform tasks runs plot-speedup plot-fast-p plot-sources \
		plot-tokens plot-heatmap; do grep -q "id=\"$id\"" "$TMP/page.html" || exit 1; done &&
	test "$(html_eval "$TMP/page.html" "sorted({k[1] for k in cells if k[0] == \"leaderboard\"})")" = "[0, 1, 2, 3]" &&
	grep -q "m-test (sample)" "$TMP/page.html" && grep -q ">shipped (r.db:1)<" "$TMP/page.html" && grep -q ">shipped (cuda.db:51)<" "$TMP/page.html" &&
	grep -q "data-kgb-commit=" "$TMP/page.html" && grep -q "$TMP/cuda.db" "$TMP/page.html" &&
	grep -q "&lt;b&gt;evil&lt;/b&gt;" "$TMP/page.html" && ! grep -q "<b>evil" "$TMP/page.html" &&
	grep -c "<circle" "$TMP/page.html" | grep -qv "^0$" &&
	"$KGB" report -o "$TMP/latest.html" &&
	grep -q "data-run=\"$(sqlite3 "$KGB_STORE" "select max(id) from runs where harness = '"'"'generate'"'"' or command != '"'"'kgb generate'"'"'")\"" "$TMP/latest.html" &&
	expect_status 3 "$KGB" report -o "$TMP/x.html" "$TMP/none.db" 2>"$TMP/e" &&
	grep -q "cannot read store .*none.db" "$TMP/e" && test ! -e "$TMP/none.db" &&
	expect_status 3 "$KGB" report -o "$TMP/x.html" "$TMP/cuda.db:99" 2>"$TMP/e" &&
	grep -q "has no run 99" "$TMP/e" &&
	expect_status 2 "$KGB" report -o "$TMP/x.html" --json 2>"$TMP/e" &&
	expect_status 2 "$KGB" report 1 2>"$TMP/e" && grep -q "runs are named with -o" "$TMP/e"
'

test_expect_success 'leaderboard numbers are the store'"'"'s' '
	"$KGB" report --json --run 1 >"$TMP/r1.json" &&
	"$KGB" report --json --store "$TMP/cuda.db" --run 50 >"$TMP/r50.json" &&
	test "$(html_eval "$TMP/page.html" "num(cells[(\"leaderboard\", 0, \"pass_rate\")])")" = \
		"$(json_eval "$TMP/r1.json" "float(recs[-1][\"pass_rate\"])")" &&
	test "$(html_eval "$TMP/page.html" "num(cells[(\"leaderboard\", 0, \"pass_at_1\")])")" = \
		"$(json_eval "$TMP/r1.json" "float(recs[-1][\"pass_at_k\"][\"1\"][\"value\"])")" &&
	test "$(html_eval "$TMP/page.html" "round(num(cells[(\"leaderboard\", 2, \"geomean_speedup\")]), 12)")" = \
		"$(json_eval "$TMP/r50.json" "round(recs[-1][\"geomean_speedup\"], 12)")" &&
	test "$(html_eval "$TMP/page.html" "num(cells[(\"leaderboard\", 2, \"fast_1.0\")])")" = \
		"$(json_eval "$TMP/r50.json" "recs[-1][\"fast_p\"][\"1.0\"]")" &&
	tokens=$(sqlite3 "$KGB_STORE" "select sum(prompt_tokens + completion_tokens) from generations where run_id = 2") &&
	solved=$(sqlite3 "$KGB_STORE" "select count(distinct task) from generations where run_id = 2 and outcome = \"pass\"") &&
	test "$solved" = 2 &&
	test "$(html_eval "$TMP/page.html" "num(cells[(\"leaderboard\", 1, \"tokens_per_success\")])")" = \
		"$("$PY" -c "print(float($tokens / $solved))")" &&
	p1=$(sqlite3 "$KGB_STORE" "select avg(f) from (select avg(outcome = \"pass\") as f from generations where run_id = 2 and round = 0 group by task)") &&
	test "$(html_eval "$TMP/page.html" "num(cells[(\"leaderboard\", 1, \"pass_at_1\")])")" = "$("$PY" -c "print(float($p1))")" &&
	test "$(html_eval "$TMP/page.html" "num(cells[(\"leaderboard\", 1, \"pass_at_k\")])")" = 1.0 &&
	test "$(html_eval "$TMP/page.html" "num(cells[(\"leaderboard\", 1, \"candidates\")])")" = 4.0
'

test_expect_success 'the page in headless Chromium: no console errors, sorting, screenshot' '
	if [ -z "$CHROMIUM" ]; then
		if [ -n "${CI:-}" ]; then echo "chromium is missing (scripts/bootstrap.sh installs it)"; exit 1; fi
		echo "skipped: no chromium here"; exit 0
	fi
	chrome() { "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$TMP/chrome" "$@"; } &&
	chrome --enable-logging=stderr --v=0 --virtual-time-budget=3000 --dump-dom \
		"file://$TMP/page.html#selftest" >"$TMP/dom.html" 2>"$TMP/chrome.err" &&
	! grep -E ":CONSOLE|Uncaught" "$TMP/chrome.err" &&
	grep -o "<pre id=\"selftest\">[^<]*</pre>" "$TMP/dom.html" | sed "s/<[^>]*>//g; s/&quot;/\"/g" >"$TMP/selftest.json" &&
	cat "$TMP/selftest.json" &&
	test "$(json_eval "$TMP/selftest.json" "recs[0][\"sorted_desc\"]")" = True &&
	test "$(json_eval "$TMP/selftest.json" "recs[0][\"errors\"]")" = "[]" &&
	test "$(json_eval "$TMP/selftest.json" "recs[0][\"order\"]")" = \
		"$(json_eval "$TMP/selftest.json" "sorted(recs[0][\"order\"], reverse=True)")" &&
	test "$(json_eval "$TMP/selftest.json" "len(recs[0][\"order\"])")" = 6 &&
	test "$(json_eval "$TMP/selftest.json" "recs[0][\"filter_shown\"]")" -ge 1 &&
	chrome --screenshot="$TMP/report.png" --window-size=1400,2000 "file://$TMP/page.html" 2>/dev/null &&
	"$PY" -c "import sys; d = open(sys.argv[1], \"rb\").read(); assert d[:8] == b\"\x89PNG\r\n\x1a\n\" and len(d) > 20000, len(d)" "$TMP/report.png" &&
	if test -n "${KGB_RECORD_REPORT:-}"; then
		mkdir -p "$SHOTS" && cp "$TMP/report.png" "$SHOTS/report.png" &&
		cp "$TMP/page.html" "$SHOTS/report.html"
	fi
'

# Issue 37: two generation runs of one model, with different options, were labelled alike in
# the plots (the label's end, where report_methods_disambiguate tells them apart, was cut off).
LONG=a-model-name-longer-than-any-legend-of-the-report
test_expect_success 'plot labels past the legend width: apart, inside the plot, whole in <title>' '
	for t in 0 1; do
		"$KGB" --tasks "$CAT" generate --platform interpreter --backoff 0 --task scale \
			--model "$LONG" --temperature $t --store "$TMP/long.db" --out "$TMP/long-$t" \
			--base-url "http://127.0.0.1:$(cat "$TMP/srv.port")/v1" >/dev/null || exit 1
	done &&
	test "$(sqlite3 "$TMP/long.db" "select group_concat(id) from runs where harness = \"generate\"")" = 1,3 &&
	"$KGB" report -o "$TMP/long.html" "$TMP/long.db:1" "$TMP/long.db:3" &&
	grep -q "<title>$LONG (sample) (long.db:1)</title>" "$TMP/long.html" &&
	grep -q "<title>$LONG (sample) (long.db:3)</title>" "$TMP/long.html" &&
	need_chromium &&
	page_selftest "$TMP/long.html" "$TMP/long.json" && cat "$TMP/long.json" &&
	test "$(json_eval "$TMP/long.json" "len(recs[0][\"plots\"][\"plot-fast-p\"][\"legend\"])")" = 2 &&
	legends_apart "$TMP/long.json" &&
	page_selftest "$TMP/page.html" "$TMP/page.json" && legends_apart "$TMP/page.json"
'

# Issue 37: a source no run has candidates of got an empty group (read as a pass rate of 0).
test_expect_success 'pass rate by source: a group only for the sources with candidates' '
	"$KGB" report -o "$TMP/aten.html" 1 2 &&
	need_chromium &&
	page_selftest "$TMP/aten.html" "$TMP/aten.json" &&
	test "$(json_eval "$TMP/aten.json" "recs[0][\"plots\"][\"plot-sources\"][\"groups\"]")" = "['"'"'aten'"'"']" &&
	page_selftest "$TMP/page.html" "$TMP/page.json" &&
	test "$(json_eval "$TMP/page.json" "recs[0][\"plots\"][\"plot-sources\"][\"groups\"]")" = "['"'"'aten'"'"', '"'"'vllm'"'"']"
'

test_expect_success 'export: CSV (RFC 4180) and JSON lines, per evaluation and per case' '
	"$KGB" export --format csv --store "$TMP/cuda.db" --run 51 >"$TMP/x.csv" &&
	"$KGB" export --format jsonl --store "$TMP/cuda.db" --run 51 >"$TMP/x.jsonl" &&
	"$PY" - "$TMP/x.csv" "$TMP/x.jsonl" <<-'PY' &&
	import csv, json, sys
	rows = list(csv.DictReader(open(sys.argv[1], newline="")))
	recs = [json.loads(l) for l in open(sys.argv[2])]
	assert len(rows) == len(recs) == 4, (len(rows), len(recs))
	assert list(rows[0])[:8] == ["run_id", "store", "method", "platform", "source", "task", "sample", "verdict"], list(rows[0])
	for r, j in zip(rows, recs):
	    assert j["schema"] == "kgb.export.eval.v1"
	    assert r["task"] == j["task"] and r["detail"] == j["detail"] and r["verdict"] == j["verdict"]
	    assert (r["speedup"] == "") == (j["speedup"] is None)
	    if j["speedup"] is not None:
	        assert float(r["speedup"]) == j["speedup"]
	broken = [r for r in rows if r["task"] == "t_break"][0]
	assert broken["detail"] == "case 1: \"wrong\", off" and broken["verdict"] == "mismatch", broken
	assert open(sys.argv[1], "rb").read().count(b"\r\n") == 5
	PY
	grep -q "\"case 1: \"\"wrong\"\", off\"" "$TMP/x.csv" &&
	"$KGB" export --format csv --cases --run 1 >"$TMP/c.csv" &&
	test "$("$PY" -c "import csv, sys; print(len(list(csv.DictReader(open(sys.argv[1], newline=\"\")))))" "$TMP/c.csv")" = \
		"$(sqlite3 "$KGB_STORE" "select count(*) from cases where eval_key in (select eval_key from run_evals where run_id = 1)")" &&
	"$KGB" export --format jsonl --run 2 >"$TMP/g.jsonl" &&
	test "$(json_eval "$TMP/g.jsonl" "sorted((r[\"task\"], r[\"verdict\"]) for r in recs)")" = \
		"[('"'"'scale'"'"', '"'"'mismatch'"'"'), ('"'"'scale'"'"', '"'"'pass'"'"'), ('"'"'shift'"'"', '"'"'no_code'"'"'), ('"'"'shift'"'"', '"'"'pass'"'"')]" &&
	test "$(json_eval "$TMP/g.jsonl" "sorted(r[\"sample\"] for r in recs)")" = "['"'"'s0'"'"', '"'"'s0'"'"', '"'"'s1'"'"', '"'"'s1'"'"']" &&
	expect_status 2 "$KGB" export --format xml 2>"$TMP/e" && grep -q "expected csv or jsonl" "$TMP/e" &&
	expect_status 3 "$KGB" export --format csv --run 99 2>"$TMP/e" && grep -q "has no run 99" "$TMP/e"
'

test_expect_success 'compare: per-task better or worse, significant when the intervals are apart' '
	"$KGB" compare "$TMP/cuda.db:50" "$TMP/cuda.db:51" >"$TMP/cmp.txt" && cat "$TMP/cmp.txt" &&
	grep -q "vllm/t_fast .*better speedup: 1.00x -> 2.05x (significant)" "$TMP/cmp.txt" &&
	grep -q "vllm/t_noise .*better speedup: .* (not significant)" "$TMP/cmp.txt" &&
	grep -q "vllm/t_break .*worse  verdict: 1/1 pass -> 0/1 pass (significant)" "$TMP/cmp.txt" &&
	! grep -q "evil.*better\|evil.*worse" "$TMP/cmp.txt" &&
	"$KGB" compare --json "$TMP/cuda.db:50" "$TMP/cuda.db:51" >"$TMP/cmp.json" &&
	test "$(json_eval "$TMP/cmp.json" "[recs[-1][k] for k in (\"better\", \"better_significant\", \"worse\", \"worse_significant\")]")" = "[2, 1, 1, 1]" &&
	test "$(json_eval "$TMP/cmp.json" "[r[\"by_platform\"][1][\"change\"] for r in recs if r[\"schema\"] == \"kgb.compare.v1\" and r[\"task\"] == \"t_fast\"]")" = "['"'"'better'"'"']" &&
	test "$(json_eval "$TMP/cmp.json" "recs[-1][\"retained\"]")" = 0.75
'

test_done
