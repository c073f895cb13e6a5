/* t-tolerance.c - the adaptive tolerance, checked against docs/task-format.md "Tolerance". */
#include "unit.h"

#include "tolerance.h"

#define EPS_F16 0x1p-10
#define EPS_BF16 0x1p-7
#define EPS_F32 0x1p-23
#define EPS_F64 0x1p-52

static void test_exact_types(void **state)
{
	static const char *const dtypes[] = {"bool", "uint8", "int8", "int16", "int32", "int64"};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(dtypes); i++) {
		struct tolerance t = {-1, -1};

		print_message("%s\n", dtypes[i]);
		assert_int_equal(tolerance_compute(dtypes[i], 1000, 5, 3, 3, &t), 0);
		assert_float_equal(t.atol, 0, 0);
		assert_float_equal(t.rtol, 0, 0);
		assert_float_equal(tolerance_eps(dtypes[i]), 0, 0);
	}
}

/* K = 1, S = 1, multipliers 1: rtol = R and atol = F + 32 eps_acc. */
static void test_float_types(void **state)
{
	static const struct {
		const char *dtype;
		double eps, rtol, floor_abs, eps_acc;
	} rows[] = {
		{"float16", EPS_F16, 2 * EPS_F16, 1e-5, EPS_F32},
		{"bfloat16", EPS_BF16, 2 * EPS_BF16, 1e-5, EPS_F32},
		{"float32", EPS_F32, 64 * EPS_F32, 1e-6, EPS_F32},
		{"float64", EPS_F64, 64 * EPS_F64, 1e-12, EPS_F64},
		/* complex types use their component type */
		{"complex64", EPS_F32, 64 * EPS_F32, 1e-6, EPS_F32},
		{"complex128", EPS_F64, 64 * EPS_F64, 1e-12, EPS_F64},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct tolerance t;

		print_message("%s\n", rows[i].dtype);
		assert_float_equal(tolerance_eps(rows[i].dtype), rows[i].eps, 0);
		assert_int_equal(tolerance_compute(rows[i].dtype, 1, 1, 1, 1, &t), 0);
		assert_close(t.rtol, rows[i].rtol, 1e-15);
		assert_close(t.atol, rows[i].floor_abs + 32 * rows[i].eps_acc, 1e-15);
	}
	/* The documented float16 value: 2 * 2^-10 = 0.001953125. */
	assert_float_equal(2 * EPS_F16, 0.001953125, 0);
}

/* atol minus its floor: the part that grows with the reduction. */
static double reduction_part(const char *dtype, double k, double s)
{
	struct tolerance t, floor_only;

	assert_int_equal(tolerance_compute(dtype, k, s, 1, 1, &t), 0);
	/* A scale so small the reduction term vanishes against the floor leaves F alone. */
	assert_int_equal(tolerance_compute(dtype, 1, 1e-300, 1, 1, &floor_only), 0);
	return t.atol - floor_only.atol;
}

static void test_atol_grows_with_sqrt_k(void **state)
{
	static const char *const dtypes[] = {"float16", "bfloat16", "float32", "float64"};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(dtypes); i++) {
		double one = reduction_part(dtypes[i], 1, 1);

		print_message("%s\n", dtypes[i]);
		assert_true(one > 0);
		assert_close(reduction_part(dtypes[i], 4, 1), 2 * one, 1e-9);
		assert_close(reduction_part(dtypes[i], 10000, 1), 100 * one, 1e-9);
		/* Linear in the term magnitude S. */
		assert_close(reduction_part(dtypes[i], 1, 3), 3 * one, 1e-9);
		assert_close(reduction_part(dtypes[i], 4, 0.5), one, 1e-9);
		/* K < 1 is clamped to 1. */
		assert_close(reduction_part(dtypes[i], 0, 1), one, 1e-12);
		assert_close(reduction_part(dtypes[i], -5, 1), one, 1e-12);
	}
	/* rtol does not depend on K. */
	{
		struct tolerance a, b;

		assert_int_equal(tolerance_compute("float32", 1, 1, 1, 1, &a), 0);
		assert_int_equal(tolerance_compute("float32", 1e6, 1, 1, 1, &b), 0);
		assert_float_equal(a.rtol, b.rtol, 0);
	}
}

static void test_multipliers_scale(void **state)
{
	static const char *const dtypes[] = {"float16", "bfloat16", "float32", "float64"};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(dtypes); i++) {
		struct tolerance base, t;

		print_message("%s\n", dtypes[i]);
		assert_int_equal(tolerance_compute(dtypes[i], 64, 2, 1, 1, &base), 0);
		assert_int_equal(tolerance_compute(dtypes[i], 64, 2, 3, 0.5, &t), 0);
		assert_close(t.atol, 3 * base.atol, 1e-12);
		assert_close(t.rtol, 0.5 * base.rtol, 1e-12);
	}
}

/* float8 (vLLM's quantised outputs): one ulp relative, the smallest subnormal absolute, no
 * growth with K (the one rounding follows a float32 computation). */
static void test_float8(void **state)
{
	struct tolerance t, big;

	(void)state;
	assert_float_equal(tolerance_eps("float8_e4m3fn"), 0x1p-3, 0);
	assert_float_equal(tolerance_eps("float8_e5m2"), 0x1p-2, 0);
	assert_int_equal(tolerance_compute("float8_e4m3fn", 1, 1, 1, 1, &t), 0);
	assert_float_equal(t.rtol, 0x1p-3, 0);
	assert_float_equal(t.atol, 0x1p-9, 0);
	assert_int_equal(tolerance_compute("float8_e4m3fn", 1e6, 100, 2, 3, &big), 0);
	assert_float_equal(big.atol, 2 * 0x1p-9, 0);
	assert_float_equal(big.rtol, 3 * 0x1p-3, 0);
	assert_int_equal(tolerance_compute("float8_e5m2", 1, 1, 1, 1, &t), 0);
	assert_float_equal(t.rtol, 0x1p-2, 0);
	assert_float_equal(t.atol, 0x1p-16, 0);
}

static void test_invalid(void **state)
{
	static const struct {
		const char *dtype;
		double scale, atol_mult, rtol_mult;
	} rows[] = {
		{"float8", 1, 1, 1},   {"", 1, 1, 1},	   {"Float32", 1, 1, 1},
		{"float32", 0, 1, 1},  {"float32", -1, 1, 1}, {"float32", NAN, 1, 1},
		{"float32", 1, 0, 1},  {"float32", 1, 1, 0},  {"float32", 1, -2, 1},
		{"float32", 1, 1, NAN}, {"int32", 0, 1, 1},	   {"bool", 1, -1, 1},
		/* not dtypes, though they start like one */
		{"int128", 1, 1, 1},   {"integer", 1, 1, 1},  {"int", 1, 1, 1},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct tolerance t = {-7, -7};

		print_message("%s scale=%g atol_mult=%g rtol_mult=%g\n", rows[i].dtype,
			      rows[i].scale, rows[i].atol_mult, rows[i].rtol_mult);
		assert_int_equal(tolerance_compute(rows[i].dtype, 1, rows[i].scale,
						   rows[i].atol_mult, rows[i].rtol_mult, &t),
				 -EINVAL);
		/* Untouched on failure. */
		assert_float_equal(t.atol, -7, 0);
		assert_float_equal(t.rtol, -7, 0);
	}
	assert_float_equal(tolerance_eps("float8"), -1, 0);
	assert_float_equal(tolerance_eps(""), -1, 0);
	assert_float_equal(tolerance_eps("int4"), -1, 0);
}

/* Found by tests/fuzz/fuzz-catalog: a spec's huge reduce/scale/tolerance made atol inf, which
 * passes any output and cannot be sent in the job line (the case vanished from it). */
static void test_overflow(void **state)
{
	static const struct {
		double k, scale, atol_mult;
	} rows[] = {{1e300, 1e300, 1}, {1, 1e308, 1e10}, {4, 1e300, 1e300}, {INFINITY, 1, 1}};
	struct tolerance t = {-7, -7};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		print_message("K=%g S=%g atol_mult=%g\n", rows[i].k, rows[i].scale,
			      rows[i].atol_mult);
		assert_int_equal(tolerance_compute("float32", rows[i].k, rows[i].scale,
						   rows[i].atol_mult, 1, &t),
				 -EINVAL);
		assert_float_equal(t.atol, -7, 0);
		assert_float_equal(t.rtol, -7, 0);
	}
	/* Large but finite is still a tolerance. */
	assert_int_equal(tolerance_compute("float32", 1e12, 1e250, 1, 1, &t), 0);
	assert_true(isfinite(t.atol) && t.atol > 1e250);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_exact_types),
	cmocka_unit_test(test_float_types),
	cmocka_unit_test(test_atol_grows_with_sqrt_k),
	cmocka_unit_test(test_multipliers_scale),
	cmocka_unit_test(test_float8),
	cmocka_unit_test(test_invalid),
	cmocka_unit_test(test_overflow),
};

UNIT_MAIN(tests)
