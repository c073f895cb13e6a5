#!/usr/bin/env bash
# Every command answers --help with usage on stdout and exit 0, and a bad option with exit 2.
. "$(dirname "$0")/lib.sh"

test_expect_success 'kgb --help' '"$KGB" --help >"$TMP/h" && grep -q "usage: kgb" "$TMP/h"'
test_expect_success 'kgb --version names commit and protocol' \
	'"$KGB" --version | grep -q "protocol 1"'
test_expect_success 'kgb without a command is a usage error' 'expect_status 2 "$KGB"'
test_expect_success 'unknown command is a usage error' 'expect_status 2 "$KGB" frobnicate'
for cmd in list show lint eval methods serve; do
	test_expect_success "kgb $cmd --help" \
		'"$KGB" '$cmd' --help >"$TMP/h" && grep -q "usage: kgb '$cmd'" "$TMP/h"'
	test_expect_success "kgb $cmd --bogus exits 2" \
		'expect_status 2 "$KGB" '$cmd' --bogus 2>"$TMP/e" && grep -q "Try" "$TMP/e"'
done

# Issue 37: a command that fails on its command line leaves no file behind (a store, its WAL
# or spool), in the working directory where the default store ./kgb-results.db would go.
test_expect_success 'a command line that fails leaves no store behind' '
	mkdir "$TMP/cwd" && echo "not a store" >"$TMP/afile" && cd "$TMP/cwd" &&
	while read -r want args; do
		rc=0
		env -u KGB_STORE "$KGB" $args >/dev/null 2>"$TMP/e" || rc=$?
		test "$rc" = "$want" || { echo "kgb $args: exit $rc, not $want"; cat "$TMP/e"; exit 1; }
		test -z "$(ls -A)" || { echo "kgb $args left: $(ls -A)"; exit 1; }
	done <<-EOF
	2 eval --bogus
	2 eval --source nosuch --platform interpreter
	2 eval --platform interpreter --task mm --python $TMP/no-python
	2 eval --platform interpreter --task mm --timing cuda_graph
	2 eval --platform interpreter --task mm --history $TMP/none.db
	4 eval --platform interpreter --task mm --cache-root $TMP/afile
	2 generate --model m
	2 generate --model m --base-url http://127.0.0.1:9/v1 --samples 0
	3 report
	3 merge dest.db $TMP/afile
	4 serve --listen 127.0.0.1:0 --platform interpreter --spool $TMP/afile
	EOF
'
test_done
