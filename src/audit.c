#include "audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fs.h"
#include "util/xalloc.h"

/* The degenerate sizes, in catalog_degenerate_keys order. */
enum { DEG_EMPTY, DEG_SIZE1, DEG_NPOT, DEG_DIM_SIZE1, DEG_NR };

/* What is missing, for a shape (a tensor, a size list) and for one integer size (m, n, k). */
static const char *const missing_dim[] = {
	"has no dimension of size 0 (an empty tensor)",
	"has no dimension of size 1",
	"has no dimension of a size >= 3 that is not a power of two",
};
static const char *const missing_int[] = {
	"is never 0",
	"is never 1",
	"is never a size >= 3 that is not a power of two",
};

/* The BLAS size arguments of a cuBLAS task: its shape axes (its tensors are flat buffers). */
static const char *const blas_sizes[] = {"m", "n", "k", "batchCount", NULL};
/*
 * Integer-list arguments that are a shape: factories' size, reshape's shape, the backward ops'
 * input and output sizes.
 */
static const char *const size_lists[] = {"size", "shape", "input_sizes", "input_size",
					 "output_size", NULL};
/* Integer (or integer-list, or null) arguments that index dimensions: see dim_target(). */
static const char *const dim_names[] = {"dim", "dims", NULL};

struct arg_audit {
	const char *name;
	bool bearing; /* has a shape (or is a size) in some regular case */
	bool scalar;  /* an integer size (cuBLAS's m, n, k), not a shape */
	bool reach[DEG_DIM_SIZE1];
};

static bool is_cublas(const struct task *t)
{
	return !strcmp(t->source, "cublas");
}

/* A list of integers, or one integer as a list of one, in *ret (owned); false otherwise. */
static bool int_list(json_t *v, json_t **ret)
{
	size_t i;
	json_t *x;

	if (json_is_integer(v)) {
		*ret = json_pack("[O]", v);
		return true;
	}
	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, x) {
		if (!json_is_integer(x))
			return false;
	}
	*ret = json_incref(v);
	return true;
}

/*
 * Notes the sizes of one shape (negative entries, reshape's -1, are no size). Sizes 1 and
 * npot count only in a shape with elements (and not `empty`, a case whose other sizes leave no
 * work): [1, 0] has no element for a size-1 path to get wrong.
 */
static void note_shape(struct arg_audit *a, json_t *shape, bool empty)
{
	size_t i;
	json_t *x;

	json_array_foreach(shape, i, x) empty |= json_integer_value(x) == 0;
	json_array_foreach(shape, i, x) {
		json_int_t v = json_integer_value(x);

		if (v < 0)
			continue;
		a->bearing = true;
		a->reach[DEG_EMPTY] |= v == 0;
		a->reach[DEG_SIZE1] |= v == 1 && !empty;
		a->reach[DEG_NPOT] |= v >= 3 && (v & (v - 1)) && !empty;
	}
}

/* Whether a resolved tensor descriptor is an out= buffer, whose shape the op dictates. */
static bool is_out_buffer(json_t *t)
{
	const char *d = json_string_value(json_object_get(t, "dist"));

	return d && !strcmp(d, "poison");
}

/*
 * The size argument of arg `a` (resolved) of a task as a list of integers (owned), or NULL when
 * `a` is no size argument.
 */
static json_t *size_arg(const struct task *t, json_t *a)
{
	const char *name = json_string_value(json_object_get(a, "name"));
	json_t *v = json_object_get(a, "value"), *l = NULL;

	if (!name || !v)
		return NULL;
	if (is_cublas(t) && strv_contains(blas_sizes, name) && json_is_integer(v))
		return json_pack("[O]", v);
	if (strv_contains(size_lists, name) && json_is_array(v) && int_list(v, &l))
		return l;
	return NULL;
}

/*
 * The shape a dim argument indexes in a resolved case (owned), or NULL: the shape of highest
 * rank among the input tensors (a list's first; out= buffers aside) and size arguments, the
 * first among equals. That is self for a reduction or a gather, and input_sizes for
 * select_backward, whose grad_output lacks the selected dimension.
 */
static json_t *dim_target(const struct task *t, json_t *args)
{
	json_t *best = NULL, *a, *e, *shape;
	size_t i, k;

	json_array_foreach(args, i, a) {
		shape = NULL;
		if (json_is_object(json_object_get(a, "tensor"))) {
			if (is_out_buffer(json_object_get(a, "tensor")))
				continue;
			shape = json_incref(json_object_get(json_object_get(a, "tensor"), "shape"));
		} else if (json_is_array(json_object_get(a, "tensors"))) {
			json_array_foreach(json_object_get(a, "tensors"), k, e) {
				if (json_is_object(e) && !is_out_buffer(e)) {
					shape = json_incref(json_object_get(e, "shape"));
					break;
				}
			}
		} else {
			shape = size_arg(t, a);
		}
		if (shape && (!best || json_array_size(shape) > json_array_size(best))) {
			json_decref(best);
			best = shape;
		} else {
			json_decref(shape);
		}
	}
	return best;
}

/*
 * The dim rule for one case: 1 when dim value `v` indexes (null: reduces over all) a dimension
 * of size 1 of `shape`, 0 when it indexes none (or `shape` has no element), -1 when it does not
 * apply (no shape, a 0-d tensor, or a value that is no dim).
 */
static int dim_hits_size1(json_t *v, json_t *shape)
{
	size_t nd = json_array_size(shape);
	json_t *dims = NULL, *x;
	size_t i;
	int hit = 0;

	if (!json_is_array(shape) || !nd)
		return -1;
	json_array_foreach(shape, i, x) {
		if (!json_integer_value(x))
			return 0; /* no element: nothing indexed to get wrong */
	}
	if (json_is_null(v)) {
		json_array_foreach(shape, i, x) hit |= json_integer_value(x) == 1;
		return hit;
	}
	if (!int_list(v, &dims))
		return -1;
	json_array_foreach(dims, i, x) {
		json_int_t d = json_integer_value(x);

		if (d < 0)
			d += (json_int_t)nd;
		if (d >= 0 && d < (json_int_t)nd)
			hit |= json_integer_value(json_array_get(shape, (size_t)d)) == 1;
	}
	json_decref(dims);
	return hit;
}

/*
 * The shapes of a resolved case, as the held-out rule compares them: every tensor's shape and
 * every size argument, as compact JSON (owned). cuBLAS cases: the size arguments only.
 */
static char *case_shapes(const struct task *t, json_t *args)
{
	json_t *sig = json_array(), *a, *ts, *e, *l;
	size_t i, k;
	char *s;

	json_array_foreach(args, i, a) {
		if ((l = size_arg(t, a)))
			json_array_append_new(sig, l);
		else if (is_cublas(t))
			continue;
		else if (json_is_object(json_object_get(a, "tensor")))
			json_array_append(sig, json_object_get(json_object_get(a, "tensor"), "shape"));
		else if (json_is_array(ts = json_object_get(a, "tensors"))) {
			l = json_array();
			json_array_foreach(ts, k, e) json_array_append(
				l, json_is_object(e) ? json_object_get(e, "shape") : json_null());
			json_array_append_new(sig, l);
		}
	}
	s = json_dumps(sig, JSON_COMPACT);
	json_decref(sig);
	return s;
}

/*
 * The `degenerate` excuse of entry `ei` for size `key` of argument `arg`: the entry's (one
 * sentence for all, or the argument's), else the task's. Borrowed JSON string or NULL.
 */
static json_t *excuse(const struct task *t, size_t ei, const char *key, const char *arg)
{
	json_t *levels[] = {t->entries[ei].degenerate, t->degenerate};

	for (size_t i = 0; i < 2; i++) {
		json_t *x = levels[i] ? json_object_get(levels[i], key) : NULL;

		if (json_is_string(x))
			return x;
		if (json_is_string(json_object_get(x, arg)))
			return json_object_get(x, arg);
	}
	return NULL;
}

static void mark_used(json_t *used, json_t *why)
{
	char k[32];

	snprintf(k, sizeof(k), "%p", (void *)why);
	json_object_set_new(used, k, json_true());
}

static bool is_used(json_t *used, json_t *why)
{
	char k[32];

	snprintf(k, sizeof(k), "%p", (void *)why);
	return json_object_get(used, k) != NULL;
}

/* One line: "<dir>/task.json: <where>: <what>". */
static size_t finding(struct strbuf *out, const struct task *t, const char *where,
		      const char *fmt, ...) KGB_PRINTF(4, 5);
static size_t finding(struct strbuf *out, const struct task *t, const char *where,
		      const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(out, "%s/task.json: %s: ", t->dir, where);
	va_start(ap, fmt);
	strbuf_vaddf(out, fmt, ap);
	va_end(ap);
	strbuf_addch(out, '\n');
	return 1;
}

/* The degenerate sizes of entry `ei`'s regular cases. */
static size_t audit_sizes(const struct task *t, size_t ei, const struct case_list *cases,
			  const char *where, json_t *used, struct strbuf *out)
{
	const struct task_entry *e = &t->entries[ei];
	size_t nargs = json_array_size(e->args), n = 0, i;
	struct arg_audit *aa = xcalloc(nargs + 1, sizeof(*aa));
	const char *dim_name = NULL;
	int dim_state = -1; /* -1: no dim argument applies; 0: none hits size 1; 1: one does */
	json_t *a;

	json_array_foreach(e->args, i, a) {
		aa[i].name = json_string_value(json_object_get(a, "name"));
		if (json_object_get(a, "value") && strv_contains(dim_names, aa[i].name))
			dim_name = aa[i].name;
	}
	for (size_t c = 0; c < cases->nr; c++) {
		const struct case_desc *cd = &cases->v[c];
		json_t *ts, *x, *l;
		size_t k;
		bool no_work = false; /* a cuBLAS case with a size 0: BLAS's quick return */

		if (cd->entry_idx != ei || cd->timed || cd->heldout)
			continue;
		json_array_foreach(cd->args, i, a) {
			if (is_cublas(t) && (l = size_arg(t, a))) {
				no_work |= json_integer_value(json_array_get(l, 0)) == 0;
				json_decref(l);
			}
		}
		json_array_foreach(cd->args, i, a) {
			if (i >= nargs)
				break;
			if ((l = size_arg(t, a))) {
				aa[i].scalar = json_is_integer(json_object_get(a, "value"));
				note_shape(&aa[i], l, no_work);
				json_decref(l);
			} else if (is_cublas(t)) {
				continue;
			} else if (json_is_object(x = json_object_get(a, "tensor"))) {
				if (!is_out_buffer(x))
					note_shape(&aa[i], json_object_get(x, "shape"), false);
			} else if (json_is_array(ts = json_object_get(a, "tensors"))) {
				json_array_foreach(ts, k, x) {
					if (json_is_object(x) && !is_out_buffer(x))
						note_shape(&aa[i], json_object_get(x, "shape"),
							   false);
				}
			} else if (dim_name && !strcmp(aa[i].name, dim_name) &&
				   json_object_get(a, "value")) {
				json_t *target = dim_target(t, cd->args);
				int h = dim_hits_size1(json_object_get(a, "value"), target);

				json_decref(target);
				if (h > dim_state)
					dim_state = h;
			}
		}
	}
	for (i = 0; i < nargs; i++) {
		for (int d = 0; d < DEG_DIM_SIZE1; d++) {
			const char *key = catalog_degenerate_keys[d];
			json_t *why = excuse(t, ei, key, aa[i].name);

			if (!aa[i].bearing || aa[i].reach[d])
				continue;
			if (why)
				mark_used(used, why);
			else
				n += finding(out, t, where, "argument '%s' %s in the regular grid (add a case, or say why the operation does not allow it in degenerate.%s)",
					     aa[i].name,
					     aa[i].scalar ? missing_int[d] : missing_dim[d], key);
		}
	}
	if (dim_state == 0) {
		json_t *why = excuse(t, ei, "dim_size1", dim_name);

		if (why)
			mark_used(used, why);
		else
			n += finding(out, t, where, "argument '%s' never indexes a dimension of size 1 in the regular grid (add a case, or say why not in degenerate.dim_size1)",
				     dim_name);
	}
	free(aa);
	return n;
}

/* Excuses in `deg` (of the task, or of one entry) that no missing size needed. */
static size_t audit_stale(const struct task *t, json_t *deg, const char *where, json_t *used,
			  struct strbuf *out)
{
	const char *key, *arg;
	json_t *v, *why;
	size_t n = 0;

	if (!deg)
		return 0;
	json_object_foreach(deg, key, v) {
		if (json_is_string(v) && !is_used(used, v))
			n += finding(out, t, where, "degenerate.%s: every case grid it covers reaches that size; drop the excuse", key);
		else if (json_is_object(v))
			json_object_foreach(v, arg, why) {
				if (!is_used(used, why))
					n += finding(out, t, where, "degenerate.%s.%s: the grid reaches that size for '%s' (or it has no shape); drop the excuse",
						     key, arg, arg);
			}
	}
	return n;
}

/*
 * Entry `ei`'s held-out shapes, where its shapes vary over the grid: some new one, and no
 * public one.
 */
static size_t audit_heldout(const struct task *t, size_t ei, const struct case_list *cases,
			    const char *where, struct strbuf *out)
{
	json_t *pub = json_object(), *reg = json_object();
	size_t fresh = 0, repeats = 0, held = 0, n = 0;
	char *first_repeat = NULL;

	for (size_t c = 0; c < cases->nr; c++) {
		const struct case_desc *cd = &cases->v[c];
		char *s;

		if (cd->entry_idx != ei || cd->heldout)
			continue;
		s = case_shapes(t, cd->args);
		json_object_set_new(pub, s, json_true());
		if (!cd->timed)
			json_object_set_new(reg, s, json_true());
		free(s);
	}
	for (size_t c = 0; c < cases->nr; c++) {
		const struct case_desc *cd = &cases->v[c];
		char *s;

		if (cd->entry_idx != ei || !cd->heldout || cd->reseeded)
			continue;
		held++;
		s = case_shapes(t, cd->args);
		if (!json_object_get(pub, s)) {
			fresh++;
		} else if (!repeats++) {
			first_repeat = cases_axes_summary(cd->axes);
		}
		free(s);
	}
	/* An entry of one fixed shape has no shape to hold out; its held-out values still count. */
	if (repeats && json_object_size(reg) > 1)
		n += finding(out, t, where, "%zu of %zu held-out cases have the shapes of a public case (first: %s); held-out shapes must be new",
			     repeats, held, first_repeat);
	if (json_object_size(reg) > 1 && !fresh)
		n += finding(out, t, where, "no held-out shapes: its shapes vary over the grid, but no 'heldout' axes give one that no public case has");
	free(first_repeat);
	json_decref(pub);
	json_decref(reg);
	return n;
}

size_t audit_task(const struct task *t, const struct case_list *cases, struct strbuf *out)
{
	json_t *used = json_object();
	struct strbuf where = STRBUF_INIT;
	size_t n = 0, held = 0;

	for (size_t c = 0; c < cases->nr; c++)
		held += cases->v[c].heldout;
	if (!held)
		n += finding(out, t, "heldout", "no held-out cases: kgb eval --heldout would add none (give an entry 'heldout' axes, or inputs drawn from the seed)");
	for (size_t ei = 0; ei < t->nr_entries; ei++) {
		strbuf_reset(&where);
		strbuf_addf(&where, "entries[%zu] (%s)", ei, t->entries[ei].name);
		n += audit_sizes(t, ei, cases, where.buf, used, out);
		n += audit_heldout(t, ei, cases, where.buf, out);
	}
	for (size_t ei = 0; ei < t->nr_entries; ei++) {
		strbuf_reset(&where);
		strbuf_addf(&where, "entries[%zu] (%s)", ei, t->entries[ei].name);
		n += audit_stale(t, t->entries[ei].degenerate, where.buf, used, out);
	}
	n += audit_stale(t, t->degenerate, "(task)", used, out);
	strbuf_release(&where);
	json_decref(used);
	return n;
}
