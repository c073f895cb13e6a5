/*
 * tolerance.h - the adaptive tolerance of DESIGN §3 (formula and reasons: docs/task-format.md).
 *
 * A candidate output element c passes against the float64 reference r when
 *     |c - r| <= atol + rtol * |r|
 * with rtol from the output dtype's epsilon and atol growing with sqrt(K) for a reduction of K
 * terms of magnitude S. Integer and bool outputs get 0/0 (exact).
 */
#ifndef KGB_TOLERANCE_H
#define KGB_TOLERANCE_H

#include "util/compiler.h"

struct tolerance {
	double atol;
	double rtol;
};

/*
 * Fills *ret for an output of `dtype`. reduce_len K >= 1 and scale S > 0 (smaller values are
 * clamped to 1 and rejected respectively); the multipliers come from the task and the
 * platform profile. -EINVAL for an unknown dtype, a non-positive scale or multiplier, or values
 * so large the tolerance overflows to inf; *ret is set only on success.
 */
int tolerance_compute(const char *dtype, double reduce_len, double scale, double atol_mult,
		      double rtol_mult, struct tolerance *ret) KGB_WUR;
/* Machine epsilon of a floating dtype (the component type for complex); 0 for exact types,
 * -1 for unknown names. */
double tolerance_eps(const char *dtype);

#endif
