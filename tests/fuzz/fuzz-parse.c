/*
 * fuzz-parse.c - src/util/parse.c: the checked number parsers (command-line options, the store's
 * schema version, number literals of spec expressions).
 *
 * Input: any bytes, taken as a C string. Checks, besides the sanitizers:
 * - the result is written only on success (a sentinel survives a failure);
 * - parse_long / parse_ull accept exactly [+-]?[0-9]+ / \+?[0-9]+ (nothing before or after the
 *   digits, no sign on an unsigned number) and give the value an independent digit loop computes,
 *   failing with -ERANGE exactly when that value does not fit;
 * - parse_int_range agrees with parse_long and its bounds;
 * - parse_double accepts no leading or trailing white space, and fails with -EINVAL or -ERANGE
 *   only.
 */
#include "fuzz.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>

#include "util/parse.h"

/* Independent reference for decimal integers: 0 ok, -EINVAL not [+-]?digits, -ERANGE overflow. */
static int ref_integer(const char *s, bool allow_minus, long long min, unsigned long long max,
		       bool *ret_neg, unsigned long long *ret_mag)
{
	unsigned long long mag = 0;
	bool neg = false, over = false;
	const char *p = s;

	if (*p == '+' || (*p == '-' && allow_minus))
		neg = *p++ == '-';
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		if (__builtin_mul_overflow(mag, 10ULL, &mag) ||
		    __builtin_add_overflow(mag, (unsigned long long)(*p - '0'), &mag))
			over = true;
	}
	/* -(min + 1) + 1: |min| without overflowing for LLONG_MIN. */
	if (over || (neg ? mag > (unsigned long long)-(min + 1) + 1 : mag > max))
		return -ERANGE;
	*ret_neg = neg;
	*ret_mag = mag;
	return 0;
}

static void check_long(const char *s)
{
	long v = 12345, w = 12345;
	int r = parse_long(s, &v), want, rr;
	unsigned long long mag = 0;
	bool neg = false;

	want = ref_integer(s, true, LONG_MIN, LONG_MAX, &neg, &mag);
	FUZZ_CHECK(r == want, "parse_long('%s') = %d, want %d", s, r, want);
	if (r < 0) {
		FUZZ_CHECK(v == 12345, "parse_long('%s') failed but wrote %ld", s, v);
	} else {
		long expect = neg ? (long)(0ULL - mag) : (long)mag;

		FUZZ_CHECK(v == expect, "parse_long('%s') gave %ld, want %ld", s, v, expect);
	}
	rr = parse_int_range(s, -1000, 1000, &w);
	if (r < 0)
		FUZZ_CHECK(rr == r && w == 12345, "parse_int_range('%s') = %d, parse_long %d", s,
			   rr, r);
	else if (v < -1000 || v > 1000)
		FUZZ_CHECK(rr == -ERANGE && w == 12345, "parse_int_range('%s') = %d for %ld", s, rr,
			   v);
	else
		FUZZ_CHECK(rr == 0 && w == v, "parse_int_range('%s') = %d (%ld) for %ld", s, rr, w,
			   v);
}

static void check_ull(const char *s)
{
	unsigned long long v = 12345, mag = 0;
	int r = parse_ull(s, &v), want;
	bool neg = false;

	want = ref_integer(s, false, 0, ULLONG_MAX, &neg, &mag);
	FUZZ_CHECK(r == want, "parse_ull('%s') = %d, want %d", s, r, want);
	if (r < 0)
		FUZZ_CHECK(v == 12345, "parse_ull('%s') failed but wrote %llu", s, v);
	else
		FUZZ_CHECK(v == mag, "parse_ull('%s') gave %llu, want %llu", s, v, mag);
}

static void check_double(const char *s)
{
	double v = 12345.0;
	int r = parse_double(s, &v);
	size_t n = strlen(s);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE, "parse_double('%s') = %d", s, r);
	if (r < 0) {
		FUZZ_CHECK(v == 12345.0, "parse_double('%s') failed but wrote %g", s, v);
		return;
	}
	FUZZ_CHECK(n && !isspace((unsigned char)s[0]) && !isspace((unsigned char)s[n - 1]),
		   "parse_double accepted white space in '%s'", s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);

	check_long(s);
	check_ull(s);
	check_double(s);
	free(s);
	return 0;
}
