#!/usr/bin/env bash
# The bootstrap is idempotent: once set up, a second run installs nothing and takes seconds.
. "$(dirname "$0")/lib.sh"

test_expect_success 'second bootstrap run is quiet and fast' '
	"$ROOT/scripts/bootstrap.sh" &&
	start=$(date +%s) &&
	"$ROOT/scripts/bootstrap.sh" >"$TMP/o" 2>&1 &&
	end=$(date +%s) &&
	! grep -q "installing\|creating" "$TMP/o" &&
	test $((end - start)) -lt 30
'
test_expect_success 'bootstrap rejects an unknown option with exit 2' '
	expect_status 2 "$ROOT/scripts/bootstrap.sh" --bogus
'
test_done
