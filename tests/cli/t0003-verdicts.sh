#!/usr/bin/env bash
# One table of verdicts (src/verdicts.def): the Python runtime's runtime/verdicts.py is what
# scripts/gen-verdicts.sh makes of it, the C side agrees with it, docs/protocol.md lists the
# verdicts a case and a fatal line may carry, and no runtime module spells a verdict the
# table does not have.
. "$(dirname "$0")/lib.sh"
PY=$ROOT/.venv/bin/python

test_expect_success 'runtime/verdicts.py is generated from src/verdicts.def, and current' '
	(cd "$ROOT" && scripts/gen-verdicts.sh) >"$TMP/v.py" &&
	diff -u "$ROOT/runtime/verdicts.py" "$TMP/v.py"
'
test_expect_success 'the generator reads the table: a new line is a new verdict' '
	sed "/^VERDICT(TIMEOUT/a VERDICT(SLOW, \"slow\", V_CANDIDATE, V_FAIL, \"a test\")" \
		"$ROOT/src/verdicts.def" >"$TMP/v.def" &&
	(cd "$ROOT" && scripts/gen-verdicts.sh "$TMP/v.def") >"$TMP/v2.py" &&
	grep -q "^SLOW: Final = \"slow\"$" "$TMP/v2.py" &&
	! grep -q "slow" "$ROOT/runtime/verdicts.py"
'
test_expect_success 'docs/protocol.md lists every case verdict, and the fatal ones' '
	"$PY" - "$ROOT" <<-\PY
	import re, sys
	sys.path.insert(0, sys.argv[1])
	from runtime import verdicts
	doc = open(sys.argv[1] + "/docs/protocol.md", encoding="utf-8").read()
	listed = set(re.findall(r"^\| `(\w+)` \|", doc, re.M))
	missing = sorted(verdicts.CASE - listed)
	assert not missing, f"not in the case table of docs/protocol.md: {missing}"
	fatal = re.search(r"`verdict` \(([^)]*)\)", doc).group(1)
	assert set(re.findall(r"\w+", fatal)) & set(verdicts.TABLE) == verdicts.FATAL, fatal
	PY
'
test_expect_success 'the runtime spells no verdict the table lacks' '
	"$PY" - "$ROOT" <<-\PY
	import ast, pathlib, sys
	sys.path.insert(0, sys.argv[1])
	from runtime import verdicts
	bad = []
	for f in sorted(pathlib.Path(sys.argv[1], "runtime").glob("*.py")):
	    for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
	        # CaseReport(id, "verdict", ...) and {"verdict": "..."} / verdict="..."
	        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "CaseReport":
	            if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
	                v = node.args[1].value
	                if v not in verdicts.CASE:
	                    bad.append((f.name, node.lineno, v))
	        if isinstance(node, ast.Dict):
	            for k, v in zip(node.keys, node.values):
	                if (isinstance(k, ast.Constant) and k.value == "verdict"
	                        and isinstance(v, ast.Constant) and v.value not in verdicts.TABLE):
	                    bad.append((f.name, node.lineno, v.value))
	assert not bad, bad
	PY
'
test_done
