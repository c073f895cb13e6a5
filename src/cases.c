#include "cases.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cover.h"
#include "expr.h"
#include "util/hash.h"
#include "util/fs.h"
#include "util/xalloc.h"



static bool dtype_is_int(const char *d)
{
	return !strncmp(d, "int", 3) || !strcmp(d, "uint8");
}

/*
 * dist "choice" (docs/task-format.md): `values` a non-empty list of integers for an integer
 * dtype; `field_bits`, when given, a divisor of the dtype's width that every value fits in
 * unsigned. Both fields belong to this distribution only.
 */
static int check_choice(json_t *t, const char *dtype, struct strbuf *err)
{
	const char *dist = json_string_value(json_object_get(t, "dist"));
	json_t *values = json_object_get(t, "values"), *fb = json_object_get(t, "field_bits"), *x;
	long long bits = 0, width;
	size_t i;

	if (strcmp(dist, "choice")) {
		if (values || fb) {
			strbuf_addstr(err, "values, field_bits: only with dist choice");
			return -EINVAL;
		}
		return 0;
	}
	if (!dtype_is_int(dtype)) {
		strbuf_addf(err, "dist: choice needs an integer dtype, got %s", dtype);
		return -EINVAL;
	}
	if (!json_is_array(values) || !json_array_size(values)) {
		strbuf_addstr(err, "values: expected a non-empty list of integers for dist choice");
		return -EINVAL;
	}
	width = 8 * (!strcmp(dtype, "int8") || !strcmp(dtype, "uint8")	   ? 1
		     : !strcmp(dtype, "int16")				   ? 2
		     : !strcmp(dtype, "int32")				   ? 4
									   : 8);
	if (fb) {
		if (!json_is_integer(fb) || json_integer_value(fb) <= 0 ||
		    width % json_integer_value(fb)) {
			strbuf_addf(err, "field_bits: expected a divisor of %lld (the bits of %s)", width,
				    dtype);
			return -EINVAL;
		}
		bits = json_integer_value(fb);
	}
	json_array_foreach(values, i, x) {
		if (!json_is_integer(x)) {
			strbuf_addf(err, "values: element %zu: expected an integer", i);
			return -EINVAL;
		}
		if (bits && (json_integer_value(x) < 0 ||
			     (bits < 63 && json_integer_value(x) >= 1LL << bits))) {
			strbuf_addf(err, "values: element %zu: %lld does not fit in %lld unsigned bits",
				    i, (long long)json_integer_value(x), bits);
			return -EINVAL;
		}
	}
	return 0;
}

/* Fills defaults and validates one resolved tensor descriptor (owned by the caller). */
static int finish_tensor(json_t *t, struct strbuf *err)
{
	json_t *shape = json_object_get(t, "shape"), *x;
	const char *dtype;
	long long numel = 1;
	size_t i;

	if (!json_is_array(shape)) {
		strbuf_addstr(err, "shape: expected a list of integers after substitution");
		return -EINVAL;
	}
	json_array_foreach(shape, i, x) {
		if (!json_is_integer(x) || json_integer_value(x) < 0) {
			strbuf_addf(err, "shape[%zu]: expected a non-negative integer", i);
			return -EINVAL;
		}
		if (__builtin_mul_overflow(numel, json_integer_value(x), &numel) ||
		    numel > CASES_MAX_NUMEL) {
			strbuf_addf(err, "shape: more than %lld elements", CASES_MAX_NUMEL);
			return -E2BIG;
		}
	}
	x = json_object_get(t, "dtype");
	if (!json_is_string(x) || !catalog_is_dtype(json_string_value(x))) {
		strbuf_addstr(err, "dtype: expected a dtype name after substitution");
		return -EINVAL;
	}
	dtype = json_string_value(x);
	x = json_object_get(t, "layout");
	if (!x)
		json_object_set_new(t, "layout", json_string("contiguous"));
	else if (!json_is_string(x) || !catalog_is_layout(json_string_value(x))) {
		strbuf_addstr(err, "layout: expected a layout name after substitution");
		return -EINVAL;
	}
	x = json_object_get(t, "dist");
	if (!x)
		json_object_set_new(t, "dist", json_string(!strcmp(dtype, "bool") ? "bool"
							   : dtype_is_int(dtype)     ? "randint"
										     : "normal"));
	else if (!json_is_string(x) || !catalog_is_dist(json_string_value(x))) {
		strbuf_addstr(err, "dist: expected a distribution name after substitution");
		return -EINVAL;
	}
	x = json_object_get(t, "bit");
	if (x && (!json_is_string(x) || !catalog_is_bit(json_string_value(x)))) {
		strbuf_addstr(err, "bit: expected none, conj or neg after substitution");
		return -EINVAL;
	}
	/* ATen has no negation of bool, so no negative bit on a bool tensor either. */
	if (x && !strcmp(json_string_value(x), "neg") && !strcmp(dtype, "bool")) {
		strbuf_addstr(err, "bit: neg needs a numeric dtype, not bool");
		return -EINVAL;
	}
	if (check_choice(t, dtype, err) < 0)
		return -EINVAL;
	for (const char *const *f = (const char *const[]){"scale", "low", "high", "p", NULL}; *f;
	     f++) {
		x = json_object_get(t, *f);
		if (x && json_is_string(x) && catalog_is_nonfinite(json_string_value(x))) {
			/* "inf" and "nan" are argument values; a distribution needs finite bounds. */
			strbuf_addf(err, "%s: expected a finite number after substitution, got '%s'",
				    *f, json_string_value(x));
			return -EINVAL;
		}
		if (x && !json_is_number(x)) {
			strbuf_addf(err, "%s: expected a number after substitution", *f);
			return -EINVAL;
		}
	}
	return 0;
}

/* The dtype of the first tensor argument, or NULL. */
static const char *first_tensor_dtype(json_t *args)
{
	size_t i;
	json_t *a, *t;

	json_array_foreach(args, i, a) {
		t = json_object_get(a, "tensor");
		if (t)
			return json_string_value(json_object_get(t, "dtype"));
		t = json_object_get(a, "tensors");
		for (size_t k = 0; json_is_array(t) && k < json_array_size(t); k++)
			if (json_is_object(json_array_get(t, k)))
				return json_string_value(
					json_object_get(json_array_get(t, k), "dtype"));
	}
	return NULL;
}

static int resolve_args(json_t *tmpl, json_t *axes, json_t **ret, struct strbuf *err)
{
	json_t *args, *a;
	size_t i;

	if (expr_subst(tmpl, axes, &args, err) < 0)
		return -EINVAL;
	json_array_foreach(args, i, a) {
		json_t *t, *ts, *present = json_object_get(a, "present");
		int r = 0;

		/* An optional argument this case leaves out is passed as None. */
		if (present && !json_is_boolean(present)) {
			strbuf_addf(err, "present: expected true or false after substitution "
					 "(argument '%s')",
				    json_string_value(json_object_get(a, "name")));
			json_decref(args);
			return -EINVAL;
		}
		if (present && json_is_false(present)) {
			static const char *const kinds[] = {"tensor", "tensors", "dtype", "device",
							    "memory_format", NULL};
			for (const char *const *k = kinds; *k; k++)
				json_object_del(a, *k);
			json_object_set_new(a, "value", json_null());
		}
		json_object_del(a, "present");
		t = json_object_get(a, "tensor");
		ts = json_object_get(a, "tensors");

		if (t)
			r = finish_tensor(t, err);
		else if (ts) {
			size_t k;
			json_t *e;

			if (!json_is_array(ts)) {
				strbuf_addstr(err, "tensors: expected a list after substitution");
				r = -EINVAL;
			} else
				json_array_foreach(ts, k, e) {
					/* null: an absent entry of an optional list (Tensor?[]). */
					if (json_is_null(e))
						continue;
					if (!json_is_object(e)) {
						strbuf_addstr(err,
							      "tensors: expected descriptor objects or null");
						r = -EINVAL;
					} else
						r = finish_tensor(e, err);
					if (r < 0)
						break;
				}
		} else if (json_object_get(a, "dtype")) {
			json_t *d = json_object_get(a, "dtype");
			if (!json_is_null(d) &&
			    (!json_is_string(d) || !catalog_is_dtype(json_string_value(d)))) {
				strbuf_addstr(err, "dtype: expected a dtype name or null after substitution");
				r = -EINVAL;
			}
		} else if (json_object_get(a, "memory_format")) {
			json_t *m = json_object_get(a, "memory_format");
			if (!json_is_null(m) &&
			    (!json_is_string(m) || !catalog_is_memory_format(json_string_value(m)))) {
				strbuf_addstr(err, "memory_format: expected a memory format name or null "
						   "after substitution");
				r = -EINVAL;
			}
		}
		if (r < 0) {
			strbuf_addf(err, " (argument '%s')",
				    json_string_value(json_object_get(a, "name")));
			json_decref(args);
			return r;
		}
	}
	*ret = args;
	return 0;
}

static int optional_number(json_t *expr, json_t *axes, double dflt, double *ret,
			   const char *what, struct strbuf *err)
{
	if (!expr) {
		*ret = dflt;
		return 0;
	}
	if (expr_eval_number(expr, axes, ret, err) < 0) {
		strbuf_addf(err, " (%s)", what);
		return -EINVAL;
	}
	return 0;
}

static int build_case(const struct task *t, size_t ei, json_t *axes, bool timed,
		      unsigned long long seed, struct case_desc *c, struct strbuf *err)
{
	const struct task_entry *e = &t->entries[ei];
	const char *dt;
	int r;

	memset(c, 0, sizeof(*c));
	c->entry_idx = ei;
	c->entry = e->name;
	c->timed = timed;
	c->seed = seed;
	c->axes = json_incref(axes);
	r = resolve_args(e->args, axes, &c->args, err);
	if (r < 0)
		return r;
	if (e->out_dtype) {
		json_t *v;

		if (json_string_value(e->out_dtype)[0] == '$') {
			if (expr_eval(json_string_value(e->out_dtype), axes, &v, err) < 0)
				return -EINVAL;
		} else {
			v = json_incref(e->out_dtype);
		}
		dt = json_is_string(v) && catalog_is_dtype(json_string_value(v)) ? json_string_value(v)
										 : NULL;
		snprintf(c->out_dtype, sizeof(c->out_dtype), "%s", dt ? dt : "");
		json_decref(v);
		if (!dt) {
			strbuf_addstr(err, "out_dtype: expected a dtype name after substitution");
			return -EINVAL;
		}
	} else {
		dt = first_tensor_dtype(c->args);
		snprintf(c->out_dtype, sizeof(c->out_dtype), "%s", dt ? dt : "float32");
	}
	if (optional_number(e->reduce, axes, 1, &c->reduce, "reduce", err) < 0 ||
	    optional_number(e->scale, axes, 1, &c->scale, "scale", err) < 0 ||
	    optional_number(e->bytes, axes, -1, &c->bytes, "bytes", err) < 0 ||
	    optional_number(e->flops, axes, -1, &c->flops, "flops", err) < 0)
		return -EINVAL;
	if (tolerance_compute(c->out_dtype, c->reduce, c->scale, e->atol_mult, e->rtol_mult,
			      &c->tol) < 0) {
		strbuf_addf(err, "tolerance: bad inputs (dtype %s, scale %g)", c->out_dtype, c->scale);
		return -EINVAL;
	}
	return 0;
}

/* Expands one entry's axes (all or perf) into cases appended to `l`. */
/* kind: 0 regular, CASES_PERF timed, CASES_HELDOUT held out. */
static int expand_entry(const struct task *t, size_t ei, json_t *all_axes, unsigned kind,
			unsigned long long run_seed, struct case_list *l, struct strbuf *err)
{
	const struct task_entry *e = &t->entries[ei];
	json_t *refs = json_object(), *used = json_object(), *x;
	json_t *exprs[] = {e->reduce, e->scale, e->bytes, e->flops, e->out_dtype};
	const char **names = NULL;
	size_t *idx = NULL, *len = NULL, *rows = NULL, nr = 0, total = 1, alloc = 0;
	/* Timed cases are a few chosen shapes: always their full product. */
	bool cover = e->cover_pairwise && kind != CASES_PERF;
	const char *key;
	int r = 0;

	expr_collect_refs_tree(e->args, refs);
	for (size_t i = 0; i < ARRAY_SIZE(exprs); i++)
		if (exprs[i] && json_is_string(exprs[i]))
			expr_collect_refs(json_string_value(exprs[i]), refs);
	/* Axes in spec order; only those the entry references multiply its cases. */
	json_object_foreach(all_axes, key, x) {
		if (!json_object_get(refs, key))
			continue;
		XGROW(names, nr + 1, alloc);
		names[nr++] = key;
	}
	idx = xcalloc(nr + 1, sizeof(*idx));
	len = xcalloc(nr + 1, sizeof(*len));
	for (size_t i = 0; i < nr; i++)
		len[i] = json_array_size(json_object_get(all_axes, names[i]));
	if (kind == CASES_HELDOUT) {
		/* Held-out axes the entry does not use would only repeat its public cases. */
		bool uses = false;

		for (size_t i = 0; i < nr; i++)
			uses |= json_object_get(e->heldout_over, names[i]) != NULL;
		if (!uses)
			goto out;
	}
	if (cover) {
		size_t min_rows, work;

		/* Before building it: a hostile grid must not cost minutes or gigabytes first. */
		cover_pairwise_cost(len, nr, CASES_MAX_PER_ENTRY, &min_rows, &work);
		if (min_rows > CASES_MAX_PER_ENTRY) {
			strbuf_addf(err, "entries[%zu]: more than %d cases even when covering pairs "
					 "(its two largest axes alone need %zu)",
				    ei, CASES_MAX_PER_ENTRY, min_rows);
			r = -E2BIG;
			goto out;
		}
		if (work > CASES_MAX_COVER_WORK) {
			strbuf_addf(err, "entries[%zu]: covering the pairs of %zu axes could take "
					 "up to %zu steps (at most %d): fewer axes or values",
				    ei, nr, work, CASES_MAX_COVER_WORK);
			r = -E2BIG;
			goto out;
		}
	}
	if (cover && (total = cover_pairwise(len, nr, CASES_MAX_PER_ENTRY, &rows)) >
			     CASES_MAX_PER_ENTRY) {
		strbuf_addf(err, "entries[%zu]: more than %d cases even when covering pairs", ei,
			    CASES_MAX_PER_ENTRY);
		r = -E2BIG;
		goto out;
	}
	for (size_t i = 0; i < nr && !cover; i++) {
		total *= len[i];
		if (total > CASES_MAX_PER_ENTRY) {
			strbuf_addf(err, "entries[%zu]%s: more than %d cases; cut the grid", ei,
				    kind == CASES_PERF ? ".perf" : kind ? ".heldout" : "",
				    CASES_MAX_PER_ENTRY);
			r = -E2BIG;
			goto out;
		}
	}
	for (size_t n = 0; n < total; n++) {
		struct case_desc c;
		unsigned long long seed;
		size_t rem = n;

		for (size_t i = nr; i-- > 0;) {
			idx[i] = cover ? rows[n * nr + i] : rem % len[i];
			rem /= len[i];
		}
		json_object_clear(used);
		for (size_t i = 0; i < nr; i++)
			json_object_set(used, names[i],
					json_array_get(json_object_get(all_axes, names[i]), idx[i]));
		seed = hash_mix64(run_seed ^ hash_mix64((unsigned long long)t->seed) ^
				  hash_fnv1a(t->op) ^ hash_mix64(hash_fnv1a(e->name) + n) ^
				  (kind == CASES_PERF ? 0x5bd1e995ULL : 0) ^
				  (kind == CASES_HELDOUT ? 0xc2b2ae3d27d4eb4fULL : 0));
		r = build_case(t, ei, used, kind == CASES_PERF, seed, &c, err);
		c.heldout = kind == CASES_HELDOUT;
		if (r < 0) {
			struct strbuf ctx = STRBUF_INIT;

			strbuf_addf(&ctx, "entries[%zu]%s case %zu: ", ei,
				    kind == CASES_PERF ? ".perf" : kind ? ".heldout" : "", n);
			strbuf_add(&ctx, err->buf, err->len);
			strbuf_reset(err);
			strbuf_add(err, ctx.buf, ctx.len);
			strbuf_release(&ctx);
			json_decref(c.axes);
			json_decref(c.args);
			goto out;
		}
		/* `used` is reused: give the case its own copy. */
		json_decref(c.axes);
		c.axes = json_deep_copy(used);
		XGROW(l->v, l->nr + 1, l->alloc);
		l->v[l->nr++] = c;
	}
out:
	free(names);
	free(idx);
	free(len);
	free(rows);
	json_decref(refs);
	json_decref(used);
	return r;
}

/* How many cases from l->v[from] on are regular ones (neither timed nor held out). */
static size_t count_regular(const struct case_list *l, size_t from)
{
	size_t n = 0;

	while (from + n < l->nr && !l->v[from + n].timed && !l->v[from + n].heldout)
		n++;
	return n;
}

/* Whether a resolved tensor descriptor's values are drawn from the seed (and there are any). */
static bool tensor_is_drawn(json_t *t)
{
	static const char *const fixed[] = {"ones", "zeros", "arange", "poison", NULL};
	json_t *shape = json_object_get(t, "shape"), *x;
	size_t i;

	if (strv_contains(fixed, json_string_value(json_object_get(t, "dist"))))
		return false;
	json_array_foreach(shape, i, x) {
		if (!json_integer_value(x))
			return false;
	}
	return true;
}

/* Whether a case's inputs depend on its seed: another seed gives other values. */
static bool case_is_drawn(const struct case_desc *c)
{
	size_t i, k;
	json_t *a, *e;

	json_array_foreach(c->args, i, a) {
		if (json_is_object(json_object_get(a, "tensor")) &&
		    tensor_is_drawn(json_object_get(a, "tensor")))
			return true;
		json_array_foreach(json_object_get(a, "tensors"), k, e) {
			if (json_is_object(e) && tensor_is_drawn(e))
				return true;
		}
	}
	return false;
}

/*
 * Held-out seeds: up to CASES_RESEEDED of the entry's regular cases l->v[from..to) with drawn
 * inputs, chosen by the run seed (so which ones is as secret as the seed), appended again with
 * a seed no public case has. They catch a kernel fitted to the public values, on any task.
 */
static void add_reseeded(const struct task *t, size_t ei, size_t from, size_t to,
			 unsigned long long run_seed, struct case_list *l)
{
	size_t *q = xcalloc(to - from + 1, sizeof(*q)), nq = 0, pick[CASES_RESEEDED], np = 0;
	unsigned long long h = hash_mix64(run_seed ^ hash_fnv1a(t->op) ^
					  hash_mix64(hash_fnv1a(t->entries[ei].name)) ^
					  0x9e3779b97f4a7c15ULL);

	for (size_t i = from; i < to; i++)
		if (case_is_drawn(&l->v[i]))
			q[nq++] = i;
	/* A partial Fisher-Yates shuffle of q, driven by h. */
	for (; np < CASES_RESEEDED && np < nq; np++) {
		size_t j = np + (size_t)(h % (nq - np)), tmp = q[np];

		q[np] = q[j];
		q[j] = tmp;
		pick[np] = q[np];
		h = hash_mix64(h + 1);
	}
	for (size_t k = 0; k < np; k++) {
		struct case_desc c = l->v[pick[k]];

		c.axes = json_deep_copy(c.axes);
		c.args = json_deep_copy(c.args);
		c.heldout = c.reseeded = true;
		c.seed = hash_mix64(c.seed ^ 0x85ebca6bc2b2ae35ULL);
		XGROW(l->v, l->nr + 1, l->alloc);
		l->v[l->nr++] = c;
	}
	free(q);
}

int cases_generate(const struct task *t, unsigned flags, unsigned long long run_seed,
		   struct case_list *ret, struct strbuf *err)
{
	struct case_list l = {0};
	int r = 0;

	for (size_t ei = 0; ei < t->nr_entries && r == 0; ei++) {
		const struct task_entry *e = &t->entries[ei];
		size_t from = l.nr;

		r = expand_entry(t, ei, e->axes, 0, run_seed, &l, err);
		if (r == 0 && (flags & CASES_HELDOUT) && e->heldout_axes)
			r = expand_entry(t, ei, e->heldout_axes, CASES_HELDOUT, run_seed, &l, err);
		if (r == 0 && (flags & CASES_HELDOUT))
			add_reseeded(t, ei, from, from + count_regular(&l, from), run_seed, &l);
		if (r == 0 && (flags & CASES_PERF) && e->perf_axes)
			r = expand_entry(t, ei, e->perf_axes, CASES_PERF, run_seed, &l, err);
	}
	if (r < 0) {
		case_list_release(&l);
		return r;
	}
	*ret = l;
	return 0;
}

void case_list_release(struct case_list *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		json_decref(l->v[i].axes);
		json_decref(l->v[i].args);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

char *cases_axes_summary(json_t *axes)
{
	struct strbuf sb = STRBUF_INIT;
	const char *key;
	json_t *v;

	json_object_foreach(axes, key, v) {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_addf(&sb, "%s=", key);
		if (json_is_string(v))
			strbuf_addstr(&sb, json_string_value(v));
		else
			strbuf_addstr(&sb, s ? s : "?");
		free(s);
	}
	return strbuf_detach(&sb, NULL);
}
