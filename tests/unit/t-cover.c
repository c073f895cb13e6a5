/* t-cover.c - pairwise covering arrays: every pair covered, far fewer rows than the product. */
#include "unit.h"

#include "cover.h"

/* Every value pair of every two axes appears in some row; every index is in range. */
static void assert_covers(const size_t *len, size_t nr, const size_t *rows, size_t nrows)
{
	for (size_t r = 0; r < nrows; r++)
		for (size_t i = 0; i < nr; i++)
			assert_true(rows[r * nr + i] < len[i]);
	for (size_t i = 0; i < nr; i++)
		for (size_t j = i + 1; j < nr; j++)
			for (size_t a = 0; a < len[i]; a++)
				for (size_t b = 0; b < len[j]; b++) {
					bool found = false;

					for (size_t r = 0; r < nrows && !found; r++)
						found = rows[r * nr + i] == a && rows[r * nr + j] == b;
					if (!found)
						fail_msg("pair (axis %zu = %zu, axis %zu = %zu) not covered", i,
							 a, j, b);
				}
}

static void test_covers_every_pair(void **state)
{
	static const struct {
		size_t len[8], nr, max_rows;
	} rows[] = {
		{{3, 3, 3, 3}, 4, 12},		 /* product 81; a perfect array has 9 rows */
		{{2, 2, 2, 2, 2, 2, 2, 2}, 8, 10}, /* product 256 */
		{{6, 4, 3, 2, 2}, 5, 30},	 /* product 288; at least 6 * 4 = 24 */
		{{10, 10, 3}, 3, 110},		 /* product 300; at least 100 */
		{{5, 1, 4}, 3, 20},		 /* an axis with one value */
		{{7, 3}, 2, 21},		 /* two axes: the product itself */
	};

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(rows); k++) {
		size_t *got = NULL, n = cover_pairwise(rows[k].len, rows[k].nr, SIZE_MAX - 1, &got);

		print_message("row %zu: %zu rows\n", k, n);
		assert_covers(rows[k].len, rows[k].nr, got, n);
		assert_true(n <= rows[k].max_rows);
		free(got);
	}
}

static void test_edges_and_determinism(void **state)
{
	size_t one[] = {4}, empty[] = {3, 0, 2}, len[] = {4, 3, 5, 2};
	size_t *a = NULL, *b = NULL, n;

	(void)state;
	n = cover_pairwise(NULL, 0, 4096, &a);
	assert_int_equal(n, 1); /* no axis: one case */
	free(a);
	n = cover_pairwise(one, 1, 4096, &a);
	assert_int_equal(n, 4);
	for (size_t v = 0; v < 4; v++)
		assert_int_equal(a[v], v);
	free(a);
	assert_int_equal(cover_pairwise(empty, 3, 4096, &a), 0);
	free(a);
	n = cover_pairwise(len, 4, 4096, &a);
	assert_int_equal(cover_pairwise(len, 4, 4096, &b), n);
	assert_memory_equal(a, b, n * 4 * sizeof(*a));
	free(a);
	free(b);
}

/* The cost is known before building: the least rows, and a bound that grows with the grid. */
static void test_cost(void **state)
{
	size_t two[] = {1000, 1000}, three[] = {6, 4, 3}, one[] = {9}, huge[] = {SIZE_MAX, 2, 3};
	size_t rows, work, w_small, w_big, many[64];

	(void)state;
	cover_pairwise_cost(two, 2, 4096, &rows, &work);
	assert_int_equal(rows, 1000000);
	cover_pairwise_cost(three, 3, 4096, &rows, &w_small);
	assert_int_equal(rows, 24); /* 6 * 4 */
	cover_pairwise_cost(one, 1, 4096, &rows, &work);
	assert_int_equal(rows, 9);
	cover_pairwise_cost(NULL, 0, 4096, &rows, &work);
	assert_int_equal(rows, 1);
	cover_pairwise_cost(huge, 3, 4096, &rows, &work); /* saturates, never wraps */
	assert_true(rows == SIZE_MAX && work == SIZE_MAX);
	for (size_t i = 0; i < 64; i++)
		many[i] = 64;
	cover_pairwise_cost(many, 64, 4096, &rows, &w_big);
	assert_int_equal(rows, 4096);
	assert_true(w_big > 1000 * w_small);
}

/*
 * max_rows stops the construction: a cover needing more returns max_rows + 1 and no rows, one
 * that fits is the same as without the cap.
 */
static void test_max_rows(void **state)
{
	size_t len[] = {4, 3, 5, 2}, one[] = {9};
	size_t *a = NULL, *b = NULL, n;

	(void)state;
	n = cover_pairwise(len, 4, SIZE_MAX - 1, &a);
	assert_int_equal(cover_pairwise(len, 4, n, &b), n);
	assert_memory_equal(a, b, n * 4 * sizeof(*a));
	free(b);
	b = NULL;
	assert_int_equal(cover_pairwise(len, 4, n - 1, &b), n);
	assert_null(b);
	assert_int_equal(cover_pairwise(one, 1, 8, &b), 9);
	assert_null(b);
	assert_int_equal(cover_pairwise(NULL, 0, 0, &b), 1);
	assert_null(b);
	free(a);
}

/*
 * The cost bounds the build (issue 36, found by fuzz-cover): each row weighs the values of
 * every axis but the two it starts from against every axis, so building n rows takes at least
 * n * (nr - 2) * values * nr steps. The greedy cover of 100 two-value axes has 68 rows, not the
 * 4 the old cost counted (159,200 steps, against more than 1.3 million).
 */
static void test_cost_bounds_build(void **state)
{
	static const struct {
		size_t nr, values;
	} grids[] = {{100, 2}, {8, 4}, {4, 3}, {12, 6}};

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(grids); k++) {
		size_t len[100], *rows = NULL, n, min_rows, work, nr = grids[k].nr;

		for (size_t i = 0; i < nr; i++)
			len[i] = grids[k].values;
		cover_pairwise_cost(len, nr, 4096, &min_rows, &work);
		n = cover_pairwise(len, nr, 4096, &rows);
		print_message("%zu axes of %zu: %zu rows (at least %zu), work %zu\n", nr,
			      grids[k].values, n, min_rows, work);
		assert_true(n >= min_rows && n <= 4096);
		assert_true(work >= n * (nr - 2) * grids[k].values * nr);
		free(rows);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_cost),
	cmocka_unit_test(test_covers_every_pair),
	cmocka_unit_test(test_edges_and_determinism),
	cmocka_unit_test(test_max_rows),
	cmocka_unit_test(test_cost_bounds_build),
};

UNIT_MAIN(tests)
