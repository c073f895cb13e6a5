/*
 * stats.h - the numbers kgb reports (definitions: docs/metrics.md).
 *
 * Pure functions over arrays; NAN marks "undefined" (no data), never a silent zero.
 */
#ifndef KGB_STATS_H
#define KGB_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* Geometric mean of the positive finite values in v; NAN when there are none. */
double stats_geomean(const double *v, size_t n);
/* Median (mean of the two middle values for even n); NAN for n == 0. Does not modify v. */
double stats_median(const double *v, size_t n);
/* Fraction passed/total; NAN for total == 0. */
double stats_rate(size_t passed, size_t total);
/*
 * Unbiased pass@k for one task with n samples of which c passed (Chen et al. 2021):
 * 1 - C(n-c, k) / C(n, k), computed as a product to stay exact for large n.
 * NAN when k > n or k == 0.
 */
double stats_pass_at_k(size_t n, size_t c, size_t k);

/*
 * fast_p (KernelBench): the fraction of all n items that passed AND have a speedup above p.
 * A failed item counts in the denominator; speedup[i] is ignored (may be NAN) where
 * !passed[i]. NAN for n == 0.
 */
double stats_fast_p(const double *speedup, const bool *passed, size_t n, double p);
/*
 * Percentile-bootstrap interval (coverage `level`, e.g. 0.95) of the geometric mean of the
 * positive finite values in v, resampling them with a fixed-seed generator: the same values
 * always give the same interval. Sets *lo and *hi to NAN when fewer than two values qualify.
 */
void stats_geomean_ci(const double *v, size_t n, double level, double *lo, double *hi);

#endif
