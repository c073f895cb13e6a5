#include "tolerance.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define EPS_F16 0x1p-10
#define EPS_BF16 0x1p-7
#define EPS_F32 0x1p-23
#define EPS_F64 0x1p-52
/* float8: e4m3fn has 3 mantissa bits, e5m2 two; tolerances are one unit in the last place. */
#define EPS_E4M3 0x1p-3
#define EPS_E5M2 0x1p-2

double tolerance_eps(const char *dtype)
{
	if (!strcmp(dtype, "float16"))
		return EPS_F16;
	if (!strcmp(dtype, "bfloat16"))
		return EPS_BF16;
	if (!strcmp(dtype, "float32") || !strcmp(dtype, "complex64"))
		return EPS_F32;
	if (!strcmp(dtype, "float64") || !strcmp(dtype, "complex128"))
		return EPS_F64;
	if (!strcmp(dtype, "float8_e4m3fn"))
		return EPS_E4M3;
	if (!strcmp(dtype, "float8_e5m2"))
		return EPS_E5M2;
	if (!strcmp(dtype, "bool") || !strcmp(dtype, "uint8") || !strcmp(dtype, "int8") ||
	    !strcmp(dtype, "int16") || !strcmp(dtype, "int32") || !strcmp(dtype, "int64"))
		return 0;
	return -1;
}

int tolerance_compute(const char *dtype, double reduce_len, double scale, double atol_mult,
		      double rtol_mult, struct tolerance *ret)
{
	double eps = tolerance_eps(dtype), eps_acc, r_ulps, floor_abs, atol, rtol;

	if (eps < 0 || !(scale > 0) || !(atol_mult > 0) || !(rtol_mult > 0))
		return -EINVAL;
	if (eps == 0) {
		ret->atol = ret->rtol = 0;
		return 0;
	}
	if (!(reduce_len >= 1))
		reduce_len = 1;
	if (eps == EPS_E4M3 || eps == EPS_E5M2) {
		/*
		 * float8 outputs are quantisation results: the value in float32 rounded once. One
		 * ulp of relative slack covers a float32 step landing on the other side of a
		 * rounding boundary; the absolute floor is the smallest subnormal. No reduction term:
		 * whatever was reduced, it was in float32 before the one rounding.
		 */
		rtol = rtol_mult * eps;
		atol = atol_mult * (eps == EPS_E4M3 ? 0x1p-9 : 0x1p-16);
		ret->atol = atol;
		ret->rtol = rtol;
		return 0;
	}
	if (eps == EPS_F16 || eps == EPS_BF16) {
		/*
		 * 16-bit outputs: one rounding of the result to the output dtype (eps/2) plus one
		 * intermediate rounding, computed in float32 as the prompt asks.
		 */
		r_ulps = 2;
		floor_abs = 1e-5;
		eps_acc = EPS_F32;
	} else if (eps == EPS_F32) {
		/* float32: transcendental functions and reassociation cost tens of ulps. */
		r_ulps = 64;
		floor_abs = 1e-6;
		eps_acc = EPS_F32;
	} else {
		r_ulps = 64;
		floor_abs = 1e-12;
		eps_acc = EPS_F64;
	}
	rtol = rtol_mult * r_ulps * eps;
	/* Rounding errors of a K-term reduction random-walk: sqrt(K), never K (DESIGN §3). */
	atol = atol_mult * (floor_abs + 32 * eps_acc * sqrt(reduce_len) * scale);
	/* Huge K, S or multipliers overflow to inf: a check that passes anything, and a value
	 * the job line (JSON) cannot carry. */
	if (!isfinite(atol) || !isfinite(rtol))
		return -EINVAL;
	ret->atol = atol;
	ret->rtol = rtol;
	return 0;
}
