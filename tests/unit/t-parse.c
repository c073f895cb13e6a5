/* t-parse.c - the checked number parsers (src/util/parse.h): whole string or an error. */
#include "unit.h"

#include <limits.h>

#include "util/parse.h"

static void test_accepts(void **state)
{
	long l = 0;
	unsigned long long u = 0;
	double d = 0;

	(void)state;
	assert_int_equal(parse_long("-42", &l), 0);
	assert_int_equal(l, -42);
	assert_int_equal(parse_long("+7", &l), 0);
	assert_int_equal(l, 7);
	assert_int_equal(parse_long("-9223372036854775808", &l), 0);
	assert_true(l == LONG_MIN);
	assert_int_equal(parse_int_range("1024", 1, 1024, &l), 0);
	assert_int_equal(l, 1024);
	assert_int_equal(parse_ull("18446744073709551615", &u), 0);
	assert_true(u == ULLONG_MAX);
	assert_int_equal(parse_double("2.5e-1", &d), 0);
	assert_float_equal(d, 0.25, 0);
}

/*
 * Found by tests/fuzz/fuzz-parse: strtol() and friends skip leading white space, and strtoull()
 * then accepts a '-' and wraps, so parse_ull(" -1") gave 18446744073709551615 (a --seed).
 */
static void test_rejects_white_space(void **state)
{
	static const char *const rows[] = {" 1", "\t0", "\n5", " -1", "1 ", "\v+2", " ", ""};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		long l = 77;
		unsigned long long u = 77;
		double d = 77;

		print_message("'%s'\n", rows[i]);
		assert_int_equal(parse_long(rows[i], &l), -EINVAL);
		assert_int_equal(parse_int_range(rows[i], -10, 10, &l), -EINVAL);
		assert_int_equal(parse_ull(rows[i], &u), -EINVAL);
		assert_int_equal(parse_double(rows[i], &d), -EINVAL);
		/* untouched on failure */
		assert_int_equal(l, 77);
		assert_true(u == 77);
		assert_float_equal(d, 77, 0);
	}
}

/* Garbage is -EINVAL even after digits that overflow (found by fuzz-parse); overflow alone is
 * -ERANGE. */
static void test_garbage_and_range(void **state)
{
	long l = 77;
	unsigned long long u = 77;
	double d = 77;

	(void)state;
	assert_int_equal(parse_long("99999999999999999999x", &l), -EINVAL);
	assert_int_equal(parse_long("99999999999999999999", &l), -ERANGE);
	assert_int_equal(parse_long("-9223372036854775809", &l), -ERANGE);
	assert_int_equal(parse_int_range("11", -10, 10, &l), -ERANGE);
	assert_int_equal(parse_ull("99999999999999999999]", &u), -EINVAL);
	assert_int_equal(parse_ull("18446744073709551616", &u), -ERANGE);
	assert_int_equal(parse_ull("-0", &u), -EINVAL);
	assert_int_equal(parse_double("1e999z", &d), -EINVAL);
	assert_int_equal(parse_double("1e999", &d), -ERANGE);
	assert_int_equal(l, 77);
	assert_true(u == 77);
	assert_float_equal(d, 77, 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_accepts),
	cmocka_unit_test(test_rejects_white_space),
	cmocka_unit_test(test_garbage_and_range),
};

UNIT_MAIN(tests)
