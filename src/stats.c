#include "stats.h"

#include <math.h>
#include <stdint.h>
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

double stats_fast_p(const double *speedup, const bool *passed, size_t n, double p)
{
	size_t fast = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (passed[i] && speedup[i] > p)
			fast++;
	return (double)fast / (double)n;
}

/* splitmix64: small, seedable, and the same on every platform (rand() is not). */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#define BOOTSTRAP_SAMPLES 2000

void stats_geomean_ci(const double *v, size_t n, double level, double *lo, double *hi)
{
	double *logs = xmalloc((n ? n : 1) * sizeof(*logs));
	double *means = xmalloc(BOOTSTRAP_SAMPLES * sizeof(*means));
	uint64_t state = 0x6b6762; /* fixed: a report is reproducible */
	size_t k = 0;
	double tail = (1 - level) / 2;

	*lo = *hi = NAN;
	for (size_t i = 0; i < n; i++)
		if (v[i] > 0 && !isinf(v[i]))
			logs[k++] = log(v[i]);
	if (k >= 2) {
		for (size_t b = 0; b < BOOTSTRAP_SAMPLES; b++) {
			double sum = 0;
			for (size_t j = 0; j < k; j++)
				sum += logs[next_random(&state) % k];
			means[b] = sum / (double)k;
		}
		qsort(means, BOOTSTRAP_SAMPLES, sizeof(*means), cmp_double);
		*lo = exp(means[(size_t)(tail * (BOOTSTRAP_SAMPLES - 1))]);
		*hi = exp(means[(size_t)((1 - tail) * (BOOTSTRAP_SAMPLES - 1) + 0.5)]);
	}
	free(means);
	free(logs);
}
