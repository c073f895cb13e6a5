# kgb - KernelGenBench. Plain make with pkg-config: the C side has a handful of files and four
# Debian libraries, so a Makefile is all the build system it needs (see README "Building").
#
#   make            build build/kgb (release flags)
#   make setup      Debian packages + .venv (scripts/bootstrap.sh; idempotent)
#   make run        setup, build, evaluate the shipped solutions on this machine's platform
#   make check      setup, build, every test: C units (ASan+UBSan), runtime (pytest), CLI, fuzz
#   make check-fuzz each libFuzzer harness for 10 s (tests/fuzz, docs/fuzzing.md)
#   make format     clang-format the C sources

CC ?= cc
PKGS := sqlite3 jansson libcrypto libseccomp libcurl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(PKG_CFLAGS) -iquote src \
	-DKGB_GIT_COMMIT='"$(GIT_COMMIT)"'
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

LIB_SRCS := $(filter-out src/main.c,$(wildcard src/*.c)) $(wildcard src/util/*.c)
MAIN_SRC := src/main.c
HDRS := $(wildcard src/*.h src/util/*.h)
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

.PHONY: setup run check check-unit check-runtime check-cli check-fuzz fuzz-build format clean

setup:
	scripts/bootstrap.sh

run: setup build/kgb
	build/kgb eval

check-unit: $(addprefix build/unit/,$(UNIT_TESTS))
	@rc=0; for t in $^; do echo "== $$t"; $$t || rc=1; done; exit $$rc

check-runtime: setup
	TRITON_INTERPRET=1 .venv/bin/python -m pytest -q tests/runtime

check-cli: build/kgb build/kgb-san
	tests/cli/run-all.sh

# Fuzz harnesses (tests/fuzz, docs/fuzzing.md): clang's libFuzzer under ASan+UBSan. The parsers
# and what they call are compiled once with coverage hooks and linked into each harness.
# check-fuzz runs each for FUZZ_SECONDS, and says it skipped them when clang is missing.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 10
FUZZ_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_HARNESSES := $(patsubst tests/fuzz/fuzz-%.c,build/fuzz/fuzz-%,$(wildcard tests/fuzz/fuzz-*.c))
FUZZ_SRCS := $(addprefix src/,catalog.c cases.c cover.c expr.c extract.c llm.c proto.c tolerance.c) \
	$(wildcard src/util/*.c)
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

check: setup build/kgb build/kgb-san
	tests/check.sh

format:
	clang-format -i src/*.c src/*.h src/util/*.c src/util/*.h tests/unit/*.c tests/unit/*.h

clean:
	rm -rf build
