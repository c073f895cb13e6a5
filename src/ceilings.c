#include "ceilings.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "store.h"

static double positive(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	double d = json_is_number(v) ? json_number_value(v) : NAN;

	return d > 0 && isfinite(d) ? d : NAN;
}

int ceilings_from_json(json_t *j, struct ceilings *ret, struct strbuf *err)
{
	json_t *mm = json_object_get(j, "mm_tflops");

	memset(ret, 0, sizeof(*ret));
	ret->copy_gbps = positive(j, "copy_gbps");
	ret->mm_tflops_f16 = positive(mm, "float16");
	ret->mm_tflops_bf16 = positive(mm, "bfloat16");
	ret->mm_tflops_f32 = positive(mm, "float32");
	if (isnan(ret->copy_gbps) || !json_is_object(mm) ||
	    (isnan(ret->mm_tflops_f16) && isnan(ret->mm_tflops_bf16) &&
	     isnan(ret->mm_tflops_f32))) {
		strbuf_addstr(err, "ceilings: expected copy_gbps > 0 and mm_tflops with at least "
		                   "one of float16, bfloat16, float32 > 0");
		return -EBADMSG;
	}
	ret->known = true;
	return 0;
}

static double max_known(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

double ceilings_fraction(const struct ceilings *c, const char *dtype, double gbps, double tflops)
{
	double mm = NAN, f = NAN;

	if (!c->known)
		return NAN;
	if (dtype && !strcmp(dtype, "float16"))
		mm = c->mm_tflops_f16;
	else if (dtype && !strcmp(dtype, "bfloat16"))
		mm = c->mm_tflops_bf16;
	else if (dtype && !strcmp(dtype, "float32"))
		mm = c->mm_tflops_f32;
	if (isnan(mm))
		mm = max_known(c->mm_tflops_f16, max_known(c->mm_tflops_bf16, c->mm_tflops_f32));
	if (gbps >= 0)
		f = gbps / c->copy_gbps;
	if (tflops >= 0 && !isnan(mm))
		f = max_known(f, tflops / mm);
	return f;
}

int ceilings_get(struct store *s, const char *root, const char *python, json_t *probe,
                 struct ceilings *ret, json_t **ret_json, struct strbuf *err)
{
	const char *device = json_string_value(json_object_get(probe, "device_name"));
	struct strbuf stack = STRBUF_INIT;
	char *stored = NULL;
	json_t *j = NULL;
	json_error_t jerr;
	int r;

	if (!device) {
		strbuf_addstr(err, "ceilings: the platform probe names no device");
		return -EINVAL;
	}
	strbuf_addf(&stack, "torch %s, triton %s, cuda %s",
	            json_string_value(json_object_get(probe, "torch")),
	            json_string_value(json_object_get(probe, "triton")),
	            json_string_value(json_object_get(probe, "cuda_version")));
	r = store_ceilings_get(s, device, stack.buf, &stored, err);
	if (r == 0) {
		j = json_loads(stored, 0, &jerr);
		if (!j)
			strbuf_addf(err, "ceilings stored for '%s' are not JSON: %s", device,
			            jerr.text);
		r = j ? ceilings_from_json(j, ret, err) : -EBADMSG;
	} else if (r == -ENOENT) {
		/* Once per device and stack: a 1 GiB copy and 8192^3 products, seconds. */
		fprintf(stderr, "kgb: measuring this device's ceilings once (%s, %s)\n", device,
		        stack.buf);
		r = platform_run_module(root, python, "runtime.ceilings", 300, &j, err);
		if (r == 0 && (r = ceilings_from_json(j, ret, err)) == 0) {
			char *text = json_dumps(j, JSON_COMPACT);

			r = store_ceilings_put(s, device, stack.buf, text, err);
			free(text);
		}
	}
	free(stored);
	strbuf_release(&stack);
	if (r < 0) {
		json_decref(j);
		return r;
	}
	*ret_json = j;
	return 0;
}
