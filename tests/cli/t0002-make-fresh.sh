#!/usr/bin/env bash
# `make run` and `make check` work the first time on a machine without the -dev packages: the
# build's flags are asked of pkg-config after the bootstrap installed them, not when make read
# the Makefile (on a fresh Debian machine the first link failed for want of them). Simulated:
# pkg-config knows the packages only once a stand-in bootstrap has "installed" them, and a
# stand-in compiler records the command lines it was given.
. "$(dirname "$0")/lib.sh"

P=$TMP/proj
BIN=$TMP/bin
mkdir -p "$P/scripts" "$P/tests" "$BIN"
cp "$ROOT/Makefile" "$P/"
cp -r "$ROOT/src" "$P/src"
for s in scripts/run.sh tests/check.sh; do
	printf '#!/bin/sh\necho "%s ran" >>"%s"\n' "$s" "$TMP/ran" >"$P/$s"
	chmod +x "$P/$s"
done
# The bootstrap installs the packages; until then pkg-config knows none of them.
printf '#!/bin/sh\ntouch "%s"\n' "$TMP/installed" >"$TMP/bootstrap"
cat >"$BIN/pkg-config" <<EOF
#!/bin/sh
[ -e "$TMP/installed" ] || exit 1
case "\$1" in
--cflags) echo "-DFROM_PKG_CONFIG" ;;
--libs) echo "-lfrom_pkg_config" ;;
esac
EOF
# The compiler writes its command line and the file named after -o.
cat >"$BIN/fakecc" <<EOF
#!/bin/sh
echo "\$*" >>"$TMP/cc"
while [ \$# -gt 1 ]; do [ "\$1" = -o ] && { mkdir -p "\$(dirname "\$2")"; : >"\$2"; }; shift; done
EOF
chmod +x "$TMP/bootstrap" "$BIN/pkg-config" "$BIN/fakecc"
run_make() { PATH="$BIN:$PATH" make -C "$P" --no-print-directory CC=fakecc BOOTSTRAP="$TMP/bootstrap" "$@"; }

test_expect_success 'without the packages, building says to run make setup' '
	! run_make build/kgb >"$TMP/o" 2>&1 &&
	grep -q "run .make setup." "$TMP/o" &&
	! test -e "$TMP/cc"
'
test_expect_success 'make run from nothing: set up, then built with the packages flags' '
	run_make run >"$TMP/o" 2>&1 &&
	grep -q "scripts/run.sh ran" "$TMP/ran" &&
	grep -- "-o build/kgb" "$TMP/cc" >"$TMP/link" &&
	grep -q -- "-DFROM_PKG_CONFIG" "$TMP/link" &&
	grep -q -- "-lfrom_pkg_config" "$TMP/link"
'
test_expect_success 'make check from nothing: both binaries built with the flags' '
	rm -f "$TMP/installed" "$TMP/cc" && rm -rf "$P/build" &&
	run_make check >"$TMP/o" 2>&1 &&
	grep -q "tests/check.sh ran" "$TMP/ran" &&
	grep -- "-o build/kgb-san" "$TMP/cc" | grep -q -- "-lfrom_pkg_config" &&
	! grep -v -- "-DFROM_PKG_CONFIG" "$TMP/cc"
'
test_expect_success 'the commit stamp is the project tree s own, not an enclosing repository s' '
	git -C "$TMP" init -q outer &&
	mv "$P" "$TMP/outer/proj" && P=$TMP/outer/proj &&
	git -C "$TMP/outer" -c user.email=t@t -c user.name=t commit -q --allow-empty -m outer &&
	rm -f "$TMP/cc" && rm -rf "$P/build" &&
	run_make build/kgb >"$TMP/o" 2>&1 &&
	grep -q "KGB_GIT_COMMIT=\"unknown\"" "$TMP/cc"
'
test_done
