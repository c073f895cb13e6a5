#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

double stats_geomean(const double *v, size_t n)
{
	double sum = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0) || isinf(v[i]))
			continue;
		sum += log(v[i]);
		k++;
	}
	return k ? exp(sum / (double)k) : NAN;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double stats_median(const double *v, size_t n)
{
	double *c, m;

	if (!n)
		return NAN;
	c = xmalloc(n * sizeof(*c));
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

double stats_rate(size_t passed, size_t total)
{
	return total ? (double)passed / (double)total : NAN;
}

double stats_pass_at_k(size_t n, size_t c, size_t k)
{
	double prod = 1;

	if (k == 0 || k > n || c > n)
		return NAN;
	if (n - c < k)
		return 1.0;
	/* C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k / i) */
	for (size_t i = n - c + 1; i <= n; i++)
		prod *= 1.0 - (double)k / (double)i;
	return 1.0 - prod;
}
