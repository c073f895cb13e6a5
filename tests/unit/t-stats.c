/* t-stats.c - the reported numbers against hand-computed values (docs/metrics.md). */
#include "unit.h"

#include "stats.h"

static void test_geomean(void **state)
{
	static const struct {
		const char *what;
		double v[6];
		size_t n;
		double want; /* NAN: undefined */
	} rows[] = {
		{"one value", {5}, 1, 5},
		{"two values", {2, 8}, 2, 4},
		{"three values", {1, 10, 100}, 3, 10},
		{"speedups", {0.5, 2}, 2, 1},
		{"zero and negatives ignored", {0, 4, -3, 9}, 4, 6},
		{"NaN and inf ignored", {NAN, 4, INFINITY, 9, -INFINITY}, 5, 6},
		{"empty", {0}, 0, NAN},
		{"nothing positive", {0, -1, NAN}, 3, NAN},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		double got = stats_geomean(rows[i].v, rows[i].n);

		print_message("%s\n", rows[i].what);
		if (isnan(rows[i].want))
			assert_true(isnan(got));
		else
			assert_close(got, rows[i].want, 1e-12);
	}
}

static void test_median(void **state)
{
	static const struct {
		double v[6];
		size_t n;
		double want;
	} rows[] = {
		{{7}, 1, 7},
		{{3, 1, 2}, 3, 2},
		{{5, 1, 4, 2, 3}, 5, 3},
		{{4, 1}, 2, 2.5},
		{{10, 1, 3, 2}, 4, 2.5},
		{{-1, -1, 8, 8}, 4, 3.5},
	};
	double v[] = {3, 1, 2};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		assert_float_equal(stats_median(rows[i].v, rows[i].n), rows[i].want, 0);
	assert_true(isnan(stats_median(v, 0)));
	/* The input is not sorted in place. */
	assert_float_equal(stats_median(v, 3), 2, 0);
	assert_float_equal(v[0], 3, 0);
	assert_float_equal(v[1], 1, 0);
	assert_float_equal(v[2], 2, 0);
}

static void test_rate(void **state)
{
	(void)state;
	assert_float_equal(stats_rate(3, 4), 0.75, 0);
	assert_float_equal(stats_rate(0, 7), 0, 0);
	assert_float_equal(stats_rate(7, 7), 1, 0);
	assert_true(isnan(stats_rate(0, 0)));
}

static void test_pass_at_k(void **state)
{
	static const struct {
		size_t n, c, k;
		double want; /* NAN: undefined */
	} rows[] = {
		/* 1 - C(3,1)/C(5,1) = 1 - 3/5 */
		{5, 2, 1, 0.4},
		/* 1 - C(3,2)/C(5,2) = 1 - 3/10 */
		{5, 2, 2, 0.7},
		/* 1 - C(7,3)/C(10,3) = 1 - 35/120 */
		{10, 3, 3, 85.0 / 120.0},
		/* k = 1 is the pass rate c/n */
		{200, 37, 1, 37.0 / 200.0},
		{10, 0, 1, 0},
		{10, 0, 10, 0},
		{10, 10, 1, 1},
		{10, 10, 10, 1},
		/* n - c < k: every k-subset holds a pass */
		{5, 4, 2, 1},
		{5, 3, 3, 1},
		/* n - c == k: one subset of C(5,2) = 10 fails */
		{5, 3, 2, 0.9},
		{5, 2, 6, NAN},
		{5, 2, 0, NAN},
		{0, 0, 1, NAN},
		{5, 6, 1, NAN},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		double got = stats_pass_at_k(rows[i].n, rows[i].c, rows[i].k);

		print_message("n=%zu c=%zu k=%zu\n", rows[i].n, rows[i].c, rows[i].k);
		if (isnan(rows[i].want))
			assert_true(isnan(got));
		else if (rows[i].want == 0 || rows[i].want == 1)
			assert_float_equal(got, rows[i].want, 0);
		else
			assert_close(got, rows[i].want, 1e-12);
	}
}

static void test_pass_at_k_large_n(void **state)
{
	/* C(n, k) overflows doubles for n = 2000; the product form must stay finite and exact. */
	double got = stats_pass_at_k(2000, 1000, 1000);

	(void)state;
	assert_true(isfinite(got));
	assert_true(got > 0.999999 && got <= 1);
	assert_close(stats_pass_at_k(2000, 500, 1), 0.25, 1e-12);
}

static void test_fast_p(void **state)
{
	/* 4 items: fast pass, slow pass, a failure whose "speedup" must not count, a 1.0x pass */
	double sp[] = {2.0, 0.5, 10.0, 1.0};
	bool ok[] = {true, true, false, true};

	(void)state;
	assert_close(stats_fast_p(sp, ok, 4, 1.0), 0.25, 1e-12); /* strictly faster */
	assert_close(stats_fast_p(sp, ok, 4, 0.8), 0.5, 1e-12);
	assert_close(stats_fast_p(sp, ok, 4, 0.0), 0.75, 1e-12);
	assert_true(isnan(stats_fast_p(sp, ok, 0, 1.0)));
}

static void test_geomean_ci(void **state)
{
	double same[] = {2.0, 2.0, 2.0, 2.0};
	double spread[] = {0.5, 1.0, 2.0, 4.0, 8.0, 1.5, 3.0, 0.8};
	double one[] = {3.0, -1.0, NAN};
	double lo, hi, lo2, hi2, g = stats_geomean(spread, 8);

	(void)state;
	stats_geomean_ci(same, 4, 0.95, &lo, &hi);
	assert_close(lo, 2.0, 1e-12);
	assert_close(hi, 2.0, 1e-12);
	stats_geomean_ci(spread, 8, 0.95, &lo, &hi);
	assert_true(lo < g && g < hi);
	assert_true(lo >= 0.5 && hi <= 8.0);
	stats_geomean_ci(spread, 8, 0.95, &lo2, &hi2); /* fixed seed: reproducible */
	assert_true(lo == lo2 && hi == hi2);
	stats_geomean_ci(spread, 8, 0.5, &lo2, &hi2); /* lower coverage, narrower */
	assert_true(lo2 >= lo && hi2 <= hi && (lo2 > lo || hi2 < hi));
	stats_geomean_ci(one, 3, 0.95, &lo, &hi); /* one qualifying value: no interval */
	assert_true(isnan(lo) && isnan(hi));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_geomean),	  cmocka_unit_test(test_median),
	cmocka_unit_test(test_rate),	  cmocka_unit_test(test_pass_at_k),
	cmocka_unit_test(test_pass_at_k_large_n), cmocka_unit_test(test_fast_p),
	cmocka_unit_test(test_geomean_ci),
};

UNIT_MAIN(tests)
