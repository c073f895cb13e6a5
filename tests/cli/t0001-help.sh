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
test_done
