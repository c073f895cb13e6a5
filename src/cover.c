#include "cover.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Uncovered pairs of axes i < j: one flag per (value of i, value of j). */
struct pairs {
	const size_t *len;
	size_t nr;
	bool **uncovered; /* [i * nr + j], i < j: len[i] * len[j] flags */
	size_t left;
	size_t ci, cj, off; /* where first_uncovered() stopped: flag off of axes ci < cj */
};

static bool *flag(struct pairs *p, size_t i, size_t a, size_t j, size_t b)
{
	if (i > j) {
		size_t t = i;
		i = j;
		j = t;
		t = a;
		a = b;
		b = t;
	}
	return &p->uncovered[i * p->nr + j][a * p->len[j] + b];
}

/* Pairs that value v of axis k would newly cover with the axes already set in row. */
static size_t gain(struct pairs *p, const size_t *row, const bool *set, size_t k, size_t v)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nr; i++)
		if (i != k && set[i] && *flag(p, i, row[i], k, v))
			n++;
	return n;
}

/*
 * The first uncovered pair in axis and value order; false when none is left. Pairs are only
 * ever covered, never uncovered again, so the search goes on from where the last one stopped:
 * all the searches of a cover together read each flag about once (restarting from the first
 * pair made each row cost a scan of every pair).
 */
static bool first_uncovered(struct pairs *p, size_t *i, size_t *a, size_t *j, size_t *b)
{
	while (p->ci < p->nr) {
		if (p->cj >= p->nr) {
			p->ci++;
			p->cj = p->ci + 1;
			p->off = 0;
			continue;
		}
		for (size_t n = p->len[p->ci] * p->len[p->cj]; p->off < n; p->off++)
			if (p->uncovered[p->ci * p->nr + p->cj][p->off]) {
				*i = p->ci;
				*j = p->cj;
				*a = p->off / p->len[p->cj];
				*b = p->off % p->len[p->cj];
				return true;
			}
		p->cj++;
		p->off = 0;
	}
	return false;
}

size_t cover_pairwise(const size_t *len, size_t nr, size_t max_rows, size_t **ret_rows)
{
	struct pairs p = {.len = len, .nr = nr, .cj = 1};
	size_t *rows = NULL, nrows = 0, alloc = 0;
	size_t *row = xcalloc(nr + 1, sizeof(*row));
	bool *set = xcalloc(nr + 1, sizeof(*set));

	for (size_t i = 0; i < nr; i++) {
		if (!len[i]) {
			free(row);
			free(set);
			*ret_rows = NULL;
			return 0;
		}
	}
	p.uncovered = xcalloc(nr * nr + 1, sizeof(*p.uncovered));
	for (size_t i = 0; i < nr; i++)
		for (size_t j = i + 1; j < nr; j++) {
			size_t n = len[i] * len[j];

			p.uncovered[i * nr + j] = xmalloc(n * sizeof(bool));
			memset(p.uncovered[i * nr + j], 1, n * sizeof(bool));
			p.left += n;
		}
	/* One axis: every value once. No axis: one empty row. */
	if (nr < 2 && (nr ? len[0] : 1) > max_rows) {
		nrows = max_rows + 1;
	} else if (nr < 2) {
		nrows = nr ? len[0] : 1;
		rows = xcalloc(nrows * (nr ? 1 : 0) + 1, sizeof(*rows));
		for (size_t v = 0; nr && v < len[0]; v++)
			rows[v] = v;
	}
	while (nr >= 2 && p.left) {
		size_t i, a, j, b;

		if (nrows == max_rows) { /* more are needed: stop before building them */
			free(rows);
			rows = NULL;
			nrows = max_rows + 1;
			break;
		}
		if (!first_uncovered(&p, &i, &a, &j, &b))
			break;
		memset(set, 0, nr * sizeof(*set));
		row[i] = a;
		row[j] = b;
		set[i] = set[j] = true;
		/* The other axes in order, each with the value that covers the most new pairs. */
		for (size_t k = 0; k < nr; k++) {
			size_t best = 0, best_gain = 0;

			if (set[k])
				continue;
			for (size_t v = 0; v < len[k]; v++) {
				size_t g = gain(&p, row, set, k, v);

				if (g > best_gain) {
					best = v;
					best_gain = g;
				}
			}
			row[k] = best;
			set[k] = true;
		}
		for (size_t x = 0; x < nr; x++)
			for (size_t y = x + 1; y < nr; y++) {
				bool *f = flag(&p, x, row[x], y, row[y]);

				if (*f) {
					*f = false;
					p.left--;
				}
			}
		XGROW(rows, (nrows + 1) * nr, alloc);
		memcpy(rows + nrows * nr, row, nr * sizeof(*row));
		nrows++;
	}
	for (size_t i = 0; i < nr * nr; i++)
		free(p.uncovered[i]);
	free(p.uncovered);
	free(row);
	free(set);
	*ret_rows = rows;
	return nrows;
}

/* a * b, or SIZE_MAX when it does not fit. */
static size_t mul_sat(size_t a, size_t b)
{
	return a && b > SIZE_MAX / a ? SIZE_MAX : a * b;
}

static size_t add_sat(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

void cover_pairwise_cost(const size_t *len, size_t nr, size_t max_rows, size_t *ret_min_rows,
			 size_t *ret_work)
{
	size_t first = 0, second = 0, pairs = 0, sum = 0, rows, per_row;

	for (size_t i = 0; i < nr; i++) {
		if (len[i] > first) {
			second = first;
			first = len[i];
		} else if (len[i] > second) {
			second = len[i];
		}
		sum = add_sat(sum, len[i]);
		for (size_t j = i + 1; j < nr; j++)
			pairs = add_sat(pairs, mul_sat(len[i], len[j]));
	}
	*ret_min_rows = nr < 2 ? (nr ? first : 1) : mul_sat(first, second);
	if (nr < 2) {
		*ret_work = *ret_min_rows;
		return;
	}
	/* Each row covers at least one pair no earlier row did. */
	rows = max_rows < pairs ? max_rows : pairs;
	/* Per row: the search's step onto the row's first pair, each other axis's values against
	 * every axis (gain()), and marking the row's pairs. */
	per_row = add_sat(1, add_sat(mul_sat(nr, sum), mul_sat(nr, nr)));
	*ret_work = add_sat(pairs, mul_sat(rows, per_row));
}
