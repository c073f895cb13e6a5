#!/usr/bin/env bash
# The workers' bytecode cache (src/platform.h platform_pycache_dir): kgb fills it before the
# workers start, outside the sandbox; the workers read it through PYTHONPYCACHEPREFIX and never
# write it. On by default only where results are timed (the GPU); KGB_PYCACHE forces it here.
. "$(dirname "$0")/lib.sh"

ev() { "$KGB" -v eval --platform interpreter -j 1 --force --task aten/item "$@"; }
PY=$("$ROOT/.venv/bin/python" -c 'import sys; print(sys.implementation.cache_tag)')

test_expect_success 'KGB_PYCACHE: filled with what a worker imports, the eval unchanged' '
	KGB_PYCACHE="$TMP/pyc" ev >"$TMP/o" 2>"$TMP/e" &&
	grep -q "aten/item .*pass" "$TMP/o" &&
	test -f "$TMP/pyc$ROOT/runtime/worker.$PY.pyc" &&
	test -n "$(find "$TMP/pyc" -path "*/torch/_dynamo/*.pyc" | head -1)" &&
	test -n "$(find "$TMP/pyc" -path "*/sympy/*.pyc" | head -1)"
'
test_expect_success 'workers do not write it: no bytecode of a task or candidate' '
	test -z "$(find "$TMP/pyc" -path "*/tasks/*" | head -1)"
'
# A --python that reports the environment a worker gets, then fails it (kgb keeps a failed
# worker'"'"'s stderr); the probe and the fill run the real Python.
cat >"$TMP/py" <<SH
#!/bin/sh
if [ "\$3" = runtime.worker ]; then echo "prefix=[\$PYTHONPYCACHEPREFIX]" >&2; exit 1; fi
exec "$ROOT/.venv/bin/python" "\$@"
SH
chmod +x "$TMP/py"
test_expect_success 'the workers get PYTHONPYCACHEPREFIX' '
	KGB_PYCACHE="$TMP/pyc" ev --python "$TMP/py" >"$TMP/o" 2>"$TMP/e" || : &&
	grep -q "prefix=\[$TMP/pyc\]" "$TMP/o"
'
test_expect_success 'KGB_PYCACHE=off, and the interpreter by default: none' '
	KGB_PYCACHE=off ev --python "$TMP/py" >"$TMP/o" 2>"$TMP/e" || : &&
	grep -q "prefix=\[\]" "$TMP/o" &&
	ev --python "$TMP/py" >"$TMP/o" 2>"$TMP/e" || : &&
	grep -q "prefix=\[\]" "$TMP/o"
'
test_expect_success 'a cache that cannot be made is no error: the workers compile' '
	: >"$TMP/file" &&
	KGB_PYCACHE="$TMP/file/pyc" ev >"$TMP/o" 2>"$TMP/e" &&
	grep -q "aten/item .*pass" "$TMP/o" &&
	grep -q "no bytecode cache for the workers: cannot create" "$TMP/e"
'
test_done
