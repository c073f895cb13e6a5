# kgb - KernelGenBench. Plain make with pkg-config: the C side has a handful of files and four
# Debian libraries, so a Makefile is all the build system it needs (see README "Building").
#
#   make            build build/kgb (release flags)
#   make setup      Debian packages + .venv + the methods' libraries (scripts/bootstrap.sh;
#                   idempotent)
#   make methods    only the methods' libraries, FlagGems and Liger-Kernel, into build/methods
#                   (scripts/methods.sh; docs/methods.md)
#   make interop    the litellm proxy of the interoperability test of kgb generate, into
#                   build/interop/venv (scripts/interop.sh; make check runs it, make run not)
#   make run        setup, build, evaluate the shipped solutions on this machine's platform
#                   (on the CPU interpreter a representative subset: scripts/run.sh)
#   make run-all    the same over every task, on any platform
#   make check      setup, build, every test: C units (ASan+UBSan), runtime (pytest), runtime
#                   types (mypy), CLI, fuzz
#   make check-full every shipped solution on the interpreter (make check runs the demo's)
#   make check-fuzz each libFuzzer harness for 10 s (tests/fuzz, docs/fuzzing.md)
#   make format     clang-format the C sources

CC ?= cc
PKGS := sqlite3 jansson libcrypto libseccomp libcurl
# Deferred (`=`, not `:=`) and checked: the flags are asked of pkg-config when a recipe runs,
# never when make parses this file. `make run` and `make check` start with the bootstrap, which
# installs the -dev packages; flags computed at parse time were empty on a fresh machine, so
# the first link failed (undefined EVP_DigestUpdate, sqlite3_*, json_*) and only a second
# `make` worked. tests/cli/t0002-make-fresh.sh keeps it so.
PKG_CHECK = $(if $(shell pkg-config --exists $(PKGS) $(HDR_PKGS) 2>/dev/null && echo ok),,$(error \
	pkg-config does not find all of: $(PKGS) $(HDR_PKGS); run `make setup` (scripts/bootstrap.sh) first))
# kgb serve's libmicrohttpd: its header at build time only; the binary loads the library
# with dlopen (src/mhd.h), so it still starts on machines without it.
HDR_PKGS := libmicrohttpd
PKG_CFLAGS = $(PKG_CHECK)$(shell pkg-config --cflags $(PKGS) $(HDR_PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS)) -lm
# The commit of this project's own tree only: a checkout that sits inside another repository
# (without a .git of its own) must not be stamped with that repository's commit.
GIT_COMMIT := $(shell test -e .git && git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
BOOTSTRAP ?= scripts/bootstrap.sh

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(PKG_CFLAGS) -iquote src \
	-DKGB_GIT_COMMIT='"$(GIT_COMMIT)"'
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

LIB_SRCS := $(filter-out src/main.c,$(wildcard src/*.c)) $(wildcard src/util/*.c)
MAIN_SRC := src/main.c
HDRS := $(wildcard src/*.h src/*.def src/util/*.h)
UNIT_TESTS := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/t-*.c))

build/kgb: $(LIB_SRCS) $(MAIN_SRC) $(HDRS)
	@mkdir -p build
	$(CC) $(ALL_CFLAGS) -o $@ $(MAIN_SRC) $(LIB_SRCS) $(PKG_LIBS) $(LDFLAGS)

# Sanitized binary for the CLI tests; unit tests are built sanitized as well. The library is
# compiled once into objects that kgb-san and every unit test link: compiling all of it again
# per test binary took 280 s of `make check` on a 2-core machine.
SAN_OBJS := $(patsubst %.c,build/san/%.o,$(LIB_SRCS))

build/san/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

build/kgb-san: $(SAN_OBJS) $(MAIN_SRC) $(HDRS)
	@mkdir -p build
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $(MAIN_SRC) $(SAN_OBJS) $(PKG_LIBS)

build/unit/%: tests/unit/%.c tests/unit/unit.h $(SAN_OBJS) $(HDRS)
	@mkdir -p build/unit
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -iquote tests/unit -o $@ $< $(SAN_OBJS) $(PKG_LIBS) $$(pkg-config --libs cmocka)

# The Python runtime's copy of the verdict table (src/verdicts.def); committed, and
# tests/cli/t0003-verdicts.sh fails when it is not current.
runtime/verdicts.py: src/verdicts.def scripts/gen-verdicts.sh
	scripts/gen-verdicts.sh >$@.tmp && mv $@.tmp $@

.PHONY: setup methods interop run run-all check check-full check-unit check-runtime check-types check-cli check-fuzz \
	fuzz-build format clean

setup:
	$(BOOTSTRAP)

methods:
	scripts/methods.sh

interop:
	scripts/interop.sh

# The targets that set up first build in a second make, started after the bootstrap, so
# that nothing of the build is decided before the packages exist.
run: setup
	@$(MAKE) --no-print-directory build/kgb
	scripts/run.sh

run-all: setup
	@$(MAKE) --no-print-directory build/kgb
	scripts/run.sh --all

check-unit: $(addprefix build/unit/,$(UNIT_TESTS))
	@rc=0; for t in $^; do echo "== $$t"; $$t || rc=1; done; exit $$rc

check-runtime: setup
	TRITON_INTERPRET=1 .venv/bin/python -m pytest -q tests/runtime

# mypy --strict over runtime/ (its settings: mypy.ini). MYPY names another mypy to run it with,
# e.g. MYPY="/path/to/mypy --python-executable .venv/bin/python".
MYPY ?= .venv/bin/python -m mypy
check-types: setup
	$(MYPY) --strict runtime

check-cli: build/kgb build/kgb-san
	tests/cli/run-all.sh

# Every shipped solution on every case of the interpreter (t0200 over all tasks, ~12 min on
# two cores); `make check` runs the demo's tasks. docs/testing.md says when to run it.
check-full: setup
	@$(MAKE) --no-print-directory build/kgb build/kgb-san
	KGB_CHECK_FULL=1 tests/cli/t0200-eval-shipped.sh

# Fuzz harnesses (tests/fuzz, docs/fuzzing.md): clang's libFuzzer under ASan+UBSan. The parsers
# and what they call are compiled once with coverage hooks and linked into each harness.
# check-fuzz runs each for FUZZ_SECONDS, and says it skipped them when clang is missing.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 10
FUZZ_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_HARNESSES := $(patsubst tests/fuzz/fuzz-%.c,build/fuzz/fuzz-%,$(wildcard tests/fuzz/fuzz-*.c))
FUZZ_SRCS := $(addprefix src/,catalog.c cases.c cover.c escape.c expr.c extract.c llm.c proto.c \
	stats.c store.c tolerance.c verdict.c) $(wildcard src/util/*.c)
FUZZ_OBJS := $(patsubst src/%.c,build/fuzz/obj/%.o,$(FUZZ_SRCS))

build/fuzz/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz.h $(FUZZ_OBJS)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -iquote tests/fuzz -o $@ $< \
		$(FUZZ_OBJS) $(PKG_LIBS)

fuzz-build: $(FUZZ_OBJS) $(FUZZ_HARNESSES)

check-fuzz:
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory -s fuzz-build && tests/fuzz/run.sh $(FUZZ_SECONDS); \
	else \
		echo "check-fuzz: skipped: $(FUZZ_CC) not found (scripts/bootstrap.sh installs clang)"; \
	fi

check: setup
	@$(MAKE) --no-print-directory build/kgb build/kgb-san
	tests/check.sh

format:
	clang-format -i src/*.c src/*.h src/util/*.c src/util/*.h tests/unit/*.c tests/unit/*.h

clean:
	rm -rf build
