/*
 * cover.h - pairwise covering arrays, for case grids whose full product is too large (DESIGN §3).
 *
 * Given nr axes with len[i] values each, cover_pairwise() returns rows (one value index per
 * axis) such that every pair of values of every two axes appears together in at least one row.
 * The construction is greedy and deterministic: the same lengths give the same rows, so case
 * seeds and stored results stay stable. It is not minimal; for k axes of v values it gives a few
 * more than the v*v rows a perfect array needs, against v^k for the product.
 */
#ifndef KGB_COVER_H
#define KGB_COVER_H

#include <stddef.h>

/*
 * *ret_rows: nrows * nr indexes, row-major, owned by the caller (free()). nr = 0 gives one empty
 * row; an axis with no values gives no rows. Returns the number of rows, or max_rows + 1 (and
 * no rows) when the cover needs more than max_rows: it stops there, so that what it costs is
 * bounded before it runs (cover_pairwise_cost() with the same max_rows).
 */
size_t cover_pairwise(const size_t *len, size_t nr, size_t max_rows, size_t **ret_rows);
/*
 * What cover_pairwise() with this max_rows would cost, known before it runs (a hostile grid of
 * two 1,000-value axes ran for minutes): *ret_min_rows, the fewest rows any pairwise cover has
 * (the two largest axes' product: each of their pairs needs a row of its own), and *ret_work,
 * an upper bound on its steps: one scan of the value pairs, then per row (at most max_rows,
 * and at most one per pair) each axis's values weighed against every axis. The greedy cover
 * has more rows than min_rows (three times as many for 8 axes of 4 values), so its cost is
 * bounded by the rows it may reach, not by min_rows. Both saturate at SIZE_MAX.
 */
void cover_pairwise_cost(const size_t *len, size_t nr, size_t max_rows, size_t *ret_min_rows,
			 size_t *ret_work);

#endif
