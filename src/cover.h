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
 * row; an axis with no values gives no rows. Returns the number of rows.
 */
size_t cover_pairwise(const size_t *len, size_t nr, size_t **ret_rows);
/*
 * What cover_pairwise() would cost, known before it runs (its time grows as rows x axes^2 x
 * values, and a hostile grid of two 1,000-value axes ran for minutes): *ret_min_rows, the
 * fewest rows any pairwise cover has (the two largest axes' product: each of their pairs needs
 * a row of its own), and *ret_work, an upper bound on the steps of building one with that many
 * rows. Both saturate at SIZE_MAX.
 */
void cover_pairwise_cost(const size_t *len, size_t nr, size_t *ret_min_rows, size_t *ret_work);

#endif
