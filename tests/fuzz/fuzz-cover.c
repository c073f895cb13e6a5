/*
 * fuzz-cover.c - src/cover.c: the pairwise covering arrays that expand a spec entry with
 * "cover": "pairwise" (cases.c expand_entry(), which refuses a grid whose cover_pairwise_cost()
 * exceeds CASES_MAX_PER_ENTRY rows or CASES_MAX_COVER_WORK steps before building it).
 *
 * Input: the first byte picks the form. Even: each further byte (at most MAX_AXES) is the
 * length of an axis, 0 to 69 values, so the row cap (64 x 64 = 4096) lies inside the range.
 * Odd: each further 8 bytes are the length of an axis, any size_t (at most MAX_AXES): only the
 * cost is computed, whose arithmetic must saturate rather than wrap.
 * Checks, besides the sanitizers (with cases.c's cap, max_rows = CASES_MAX_PER_ENTRY):
 * - cover_pairwise_cost(): min_rows is the two largest axes' product (one axis: its length; no
 *   axis: 1), saturated at SIZE_MAX exactly when it does not fit; work is SIZE_MAX when min_rows
 *   is, and never below min_rows when there are two axes or more;
 * - an axis with no values gives 0 rows;
 * - within the caps cases.c applies (and cheap enough for this harness: FUZZ_MAX_WORK), the
 *   cover has at least min_rows rows, every index in range, every pair of values of every two
 *   axes in some row (one axis: its values in order; no axis: one empty row), or it needs more
 *   than max_rows and comes back as max_rows + 1 without rows; a second call with max_rows its
 *   row count gives the same rows, one with a row fewer gives none;
 * - the cost never under-estimates: the steps building the cover took (cover.c's loops,
 *   counted from the rows: the search for each row's first uncovered pair, going on from where
 *   the last one stopped, each other axis's values weighed against every axis, marking the
 *   row's pairs) are at most the work the cost announced. The cost is what keeps a hostile grid
 *   from running for minutes.
 */
#include "fuzz.h"

#include <stdbool.h>

#include "cases.h"
#include "cover.h"

#define MAX_AXES 8
#define MAX_LEN 69
#define FUZZ_MAX_WORK 2000000 /* about 0.1 s at most under the sanitizers */

/* v, or SIZE_MAX when it does not fit. */
static size_t sat(unsigned __int128 v)
{
	return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

static void check_cost(const size_t *len, size_t nr, size_t min_rows, size_t work)
{
	unsigned __int128 first = 0, second = 0, want;

	for (size_t i = 0; i < nr; i++) {
		if (len[i] > first) {
			second = first;
			first = len[i];
		} else if (len[i] > second) {
			second = len[i];
		}
	}
	want = nr >= 2 ? first * second : nr ? first : 1;
	FUZZ_CHECK(min_rows == sat(want), "min_rows %zu for %zu axes", min_rows, nr);
	FUZZ_CHECK(min_rows != SIZE_MAX || work == SIZE_MAX, "work %zu under saturated rows", work);
	FUZZ_CHECK(nr < 2 || work >= min_rows, "work %zu below min_rows %zu", work, min_rows);
}

/* Whether the pair (axis i = a, axis j = b), i < j, is in some row: one flag per pair. */
struct seen {
	size_t nr;
	const size_t *len;
	bool *pair[MAX_AXES][MAX_AXES];
};

static bool *seen_at(struct seen *s, size_t i, size_t a, size_t j, size_t b)
{
	return &s->pair[i][j][a * s->len[j] + b];
}

/*
 * Checks the rows against len and returns the steps cover_pairwise() took to build them, as
 * its loops run: per row, the search for the first pair no earlier row covers (going on from
 * where the last one stopped), gain() over every axis for each value of each axis the row did
 * not start from, and marking the row's pairs.
 */
static size_t check_rows(const size_t *len, size_t nr, const size_t *rows, size_t n)
{
	struct seen s = {.nr = nr, .len = len};
	size_t steps = 0, left = 0, ci = 0, cj = 1, off = 0;

	for (size_t i = 0; i < nr; i++)
		for (size_t j = i + 1; j < nr; j++) {
			s.pair[i][j] = xcalloc(len[i] * len[j], sizeof(bool));
			left += len[i] * len[j];
		}
	for (size_t r = 0; r < n; r++) {
		const size_t *row = rows + r * nr;
		bool found = false;

		for (size_t i = 0; i < nr; i++)
			FUZZ_CHECK(row[i] < len[i], "row %zu: index %zu of axis %zu of %zu values",
				   r, row[i], i, len[i]);
		while (!found && ci < nr) {
			if (cj >= nr) {
				ci++;
				cj = ci + 1;
				off = 0;
				continue;
			}
			for (; off < len[ci] * len[cj]; off++) {
				steps++;
				if (!s.pair[ci][cj][off]) {
					found = true;
					break;
				}
			}
			if (!found) {
				cj++;
				off = 0;
			}
		}
		FUZZ_CHECK(nr < 2 || found, "row %zu of %zu covers nothing new", r, n);
		for (size_t k = 0; k < nr; k++)
			if (k != ci && k != cj)
				steps += len[k] * nr;
		for (size_t i = 0; i < nr; i++)
			for (size_t j = i + 1; j < nr; j++) {
				bool *f = seen_at(&s, i, row[i], j, row[j]);

				steps++;
				left -= !*f;
				*f = true;
			}
	}
	FUZZ_CHECK(left == 0, "%zu pairs of values not covered by %zu rows", left, n);
	for (size_t i = 0; i < nr; i++)
		for (size_t j = i + 1; j < nr; j++)
			free(s.pair[i][j]);
	return steps;
}

static void check_cover(const size_t *len, size_t nr)
{
	size_t min_rows, work, n, n2, steps, *rows = NULL, *rows2 = NULL;
	bool empty = false;

	cover_pairwise_cost(len, nr, CASES_MAX_PER_ENTRY, &min_rows, &work);
	check_cost(len, nr, min_rows, work);
	for (size_t i = 0; i < nr; i++)
		empty |= len[i] == 0;
	if (empty) {
		n = cover_pairwise(len, nr, CASES_MAX_PER_ENTRY, &rows);
		FUZZ_CHECK(n == 0, "%zu rows with an empty axis", n);
		free(rows);
		return;
	}
	if (min_rows > CASES_MAX_PER_ENTRY || work > CASES_MAX_COVER_WORK || work > FUZZ_MAX_WORK)
		return; /* refused by cases.c, or too slow to fuzz */
	n = cover_pairwise(len, nr, CASES_MAX_PER_ENTRY, &rows);
	if (n > CASES_MAX_PER_ENTRY) { /* too many: none built */
		FUZZ_CHECK(n == CASES_MAX_PER_ENTRY + 1 && !rows, "%zu rows over the cap", n);
		return;
	}
	FUZZ_CHECK(n >= min_rows, "%zu rows, fewer than the %zu the cost says any cover needs", n,
		   min_rows);
	FUZZ_CHECK(rows, "no rows");
	if (nr == 0)
		FUZZ_CHECK(n == 1, "%zu rows without an axis", n);
	for (size_t v = 0; nr == 1 && v < n; v++)
		FUZZ_CHECK(n == len[0] && rows[v] == v, "one axis: row %zu is %zu", v, rows[v]);
	steps = check_rows(len, nr, rows, n);
	FUZZ_CHECK(nr < 2 || steps <= work,
		   "building %zu rows took %zu steps, the cost said %zu (min_rows %zu)", n, steps,
		   work, min_rows);
	/* The same rows again, with a cap of exactly as many; one fewer stops without rows. */
	n2 = cover_pairwise(len, nr, n, &rows2);
	FUZZ_CHECK(n2 == n && (!nr || !memcmp(rows, rows2, n * nr * sizeof(*rows))),
		   "a second call gave other rows");
	free(rows2);
	rows2 = NULL;
	n2 = cover_pairwise(len, nr, n - 1, &rows2);
	FUZZ_CHECK(n2 == n && !rows2, "a cap of %zu rows under %zu: %zu rows", n - 1, n, n2);
	free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len[MAX_AXES], nr = 0, min_rows, work;

	if (size < 1)
		return 0;
	if (!(data[0] & 1)) {
		for (size_t i = 1; i < size && nr < MAX_AXES; i++)
			len[nr++] = data[i] % (MAX_LEN + 1);
		check_cover(len, nr);
		return 0;
	}
	for (size_t i = 1; i + 8 <= size && nr < MAX_AXES; i += 8) {
		uint64_t v;

		memcpy(&v, data + i, 8);
		len[nr++] = (size_t)v;
	}
	cover_pairwise_cost(len, nr, CASES_MAX_PER_ENTRY, &min_rows, &work);
	check_cost(len, nr, min_rows, work);
	return 0;
}
