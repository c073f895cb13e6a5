/*
 * fuzz-expr.c - src/expr.c: the expression language of task specs (shapes, cost model,
 * tolerance inputs), which task files (outside data) are full of.
 *
 * Input: "EXPRESSION" or "EXPRESSION\nAXES", AXES being a JSON object of axis values; without
 * it (or when it is not an object) the axes are a fixed set in the style of tests/unit/t-expr.c.
 * Checks, besides the sanitizers (leaks included):
 * - expr_eval returns 0 with a value and no message, or -EINVAL with a message and no value;
 * - the axes it reads are the ones expr_collect_refs() finds: evaluating against only those axes
 *   gives the same answer (cases.c builds each case's axes exactly that way, and catalog.c
 *   reports unknown axes from the same scan);
 * - expr_subst keeps the shape of a template (a list and an object holding the expression)
 *   on success, so no argument or field silently disappears;
 * - expr_eval_number agrees with expr_eval.
 */
#include "fuzz.h"

#include <errno.h>
#include <math.h>

#include "expr.h"

static const char default_axes[] =
	"{\"shape\": [2, 3, 4], \"pair\": {\"a\": 5, \"b\": [7, 8]}, \"n\": 10, \"x\": 2.5,"
	" \"dtype\": \"float16\", \"empty\": [], \"neg\": -7, \"badshape\": [2, -1],"
	" \"big\": 4611686018427387904, \"min\": -9223372036854775808, \"tiny\": 1e-300,"
	" \"huge\": 1e300, \"hugeshape\": [4294967296, 4294967296, 4294967296],"
	" \"dims\": [0, 2], \"lastdim\": [-1], \"alldims\": null, \"flag\": true,"
	" \"s\": \"$n\"}";

static json_t *axes_for(const char *text)
{
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;

	if (json_is_object(j))
		return j;
	json_decref(j);
	j = json_loads(default_axes, 0, NULL);
	FUZZ_CHECK(j, "default axes");
	return j;
}

static char *dump(json_t *v)
{
	return v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : xstrdup("(null)");
}

/* expr_eval with its contract checked; returns the value (NULL on failure). */
static json_t *eval_checked(const char *src, json_t *axes)
{
	struct strbuf err = STRBUF_INIT;
	json_t *v = NULL;
	int r = expr_eval(src, axes, &v, &err);

	if (r == 0) {
		FUZZ_CHECK(v != NULL, "expr_eval('%s') succeeded without a value", src);
		FUZZ_CHECK(err.len == 0, "expr_eval('%s') succeeded with '%s'", src, err.buf);
		if (json_is_real(v))
			FUZZ_CHECK(isfinite(json_real_value(v)), "'%s' gave %g", src,
				   json_real_value(v));
	} else {
		FUZZ_CHECK(r == -EINVAL, "expr_eval('%s') = %d", src, r);
		FUZZ_CHECK(err.len > 0, "expr_eval('%s') failed without a message", src);
		FUZZ_CHECK(v == NULL, "expr_eval('%s') failed but set a value", src);
	}
	strbuf_release(&err);
	return v;
}

static void check_refs(const char *src, json_t *axes, json_t *v)
{
	json_t *refs = json_object(), *only = json_object(), *w, *x;
	const char *key;

	expr_collect_refs(src, refs);
	json_object_foreach(refs, key, x) {
		json_t *a = json_object_get(axes, key);

		if (a)
			json_object_set(only, key, a);
	}
	w = eval_checked(src, only);
	if (v) {
		char *a = dump(v), *b = dump(w);

		FUZZ_CHECK(w && json_equal(v, w),
			   "'%s' reads an axis expr_collect_refs misses: %s with all axes, %s with "
			   "the referenced ones",
			   src, a, b);
		free(a);
		free(b);
	}
	/* Fewer axes can only make it fail: */
	FUZZ_CHECK(v || !w, "'%s' fails with all axes but not with fewer", src);
	json_decref(w);
	json_decref(refs);
	json_decref(only);
}

static void check_subst(const char *src, json_t *axes, json_t *v)
{
	struct strbuf err = STRBUF_INIT;
	json_t *tmpl, *out = NULL;
	int r;

	if (src[0] != '$')
		return;
	tmpl = json_pack("[s, {s:s}, i]", src, "k", src, 3);
	if (!tmpl) /* not UTF-8: no spec string can hold it */
		return;
	r = expr_subst(tmpl, axes, &out, &err);
	if (r == 0) {
		FUZZ_CHECK(v, "expr_subst succeeded where expr_eval failed on '%s'", src);
		FUZZ_CHECK(json_array_size(out) == 3 &&
				   json_object_size(json_array_get(out, 1)) == 1,
			   "expr_subst('%s') lost part of the template", src);
		FUZZ_CHECK(json_equal(json_array_get(out, 0), v) &&
				   json_equal(json_object_get(json_array_get(out, 1), "k"), v),
			   "expr_subst('%s') differs from expr_eval", src);
	} else {
		FUZZ_CHECK(!v && r == -EINVAL && err.len, "expr_subst('%s') = %d, expr_eval %s",
			   src, r, v ? "succeeded" : "failed");
	}
	json_decref(out);
	json_decref(tmpl);
	strbuf_release(&err);
}

static void check_number(const char *src, json_t *axes, json_t *v)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s = json_string(src);
	double d = 12345.0;
	int r;

	if (!s) /* not UTF-8: no spec string can hold it */
		return;
	r = expr_eval_number(s, axes, &d, &err);
	if (json_is_number(v))
		FUZZ_CHECK(r == 0 && d == json_number_value(v), "expr_eval_number('%s') = %d", src,
			   r);
	else
		FUZZ_CHECK(r == -EINVAL && err.len && d == 12345.0,
			   "expr_eval_number('%s') = %d for a non-number", src, r);
	json_decref(s);
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *nl = strchr(text, '\n');
	json_t *axes, *v, *names = json_object();

	if (nl)
		*nl = '\0';
	axes = axes_for(nl ? nl + 1 : NULL);
	v = eval_checked(text, axes);
	check_refs(text, axes, v);
	check_subst(text, axes, v);
	check_number(text, axes, v);
	/* The reference scan over a template must not trip on anything either. */
	expr_collect_refs_tree(axes, names);
	json_decref(names);
	json_decref(v);
	json_decref(axes);
	free(text);
	return 0;
}
