/*
 * fuzz.h - shared helpers of the libFuzzer harnesses (tests/fuzz/fuzz-<parser>.c, docs/fuzzing.md).
 *
 * Each harness defines LLVMFuzzerTestOneInput(), feeds the bytes to one parser of outside data
 * and checks the parser's contract from its header, not just "no crash": a broken contract is
 * reported with FUZZ_CHECK(), which prints the condition and aborts, so libFuzzer saves the
 * input as a crash like any sanitizer report. Harnesses are built with
 * -fsanitize=fuzzer,address,undefined and -fno-sanitize-recover=all (Makefile, `fuzz-build`).
 */
#ifndef KGB_TESTS_FUZZ_H
#define KGB_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                                   \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "%s:%d: contract broken: %s: ", __FILE__, __LINE__,     \
				#cond);                                                         \
			fprintf(stderr, __VA_ARGS__);                                           \
			fputc('\n', stderr);                                                    \
			abort();                                                                \
		}                                                                               \
	} while (0)

/* The input as a C string, cut at its first NUL (the parsers take C strings); owned. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	return xstrndup((const char *)data, size);
}

#endif
