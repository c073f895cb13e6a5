#include "catalog.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr.h"
#include "util/fs.h"
#include "util/xalloc.h"

const char *const catalog_sources[] = {"aten", "vllm", "cublas", NULL};

bool catalog_source_known(const char *source)
{
	for (int i = 0; catalog_sources[i]; i++)
		if (!strcmp(catalog_sources[i], source))
			return true;
	return false;
}

/*
 * What a source's speedups are measured against. A task may ship baseline.py (vLLM's own op,
 * a cuBLAS call), used where it loads. vLLM tasks' baseline.py calls vLLM's op where vLLM is
 * installed (runtime/vllm_ops.py); it is not on the machines we measure on, so there a vLLM
 * speedup is over our reference run in the inputs' dtype. Each timed case records its actual
 * baseline (`baseline`).
 */
const char *catalog_source_baseline(const char *source)
{
	if (!strcmp(source, "aten"))
		return "ATen (torch eager, the same operator)";
	if (!strcmp(source, "vllm"))
		return "the task's PyTorch reference in the inputs' dtype (not vLLM's kernels), "
		       "unless the task's baseline.py loads: see each timed case's baseline";
	if (!strcmp(source, "cublas"))
		return "cuBLAS";
	return "the task's reference";
}

static const char *const dtypes[] = {"float16", "bfloat16", "float32", "float64", "int8",
				     "int16",	"int32",    "int64",   "uint8",	  "bool",
				     "complex64", "complex128", "float8_e4m3fn", "float8_e5m2", NULL};
static const char *const layouts[] = {"contiguous", "transposed", "strided", "offset",
				      "expanded",   "channels_last", NULL};
static const char *const dists[] = {"normal", "uniform", "randint", "bool",   "ones",
				    "zeros",  "arange",	 "special", "poison", "distinct",
				    "sorted", "sorted_desc", "choice", NULL};
/* ATen's lazy bits on a tensor: torch.conj's conjugate bit, torch._neg_view's negative bit. */
static const char *const bits[] = {"none", "conj", "neg", NULL};
static const char *const kinds[] = {"compute", "view", "alloc", "random", "scalar", NULL};
/* torch.<name>: the values of ATen's MemoryFormat (channels_last_3d is the 5-d channels_last). */
static const char *const memory_formats[] = {"contiguous_format", "channels_last",
					     "channels_last_3d", "preserve_format", NULL};
/* runtime/inputs.py turns these into float('inf'), float('-inf') and float('nan'). */
static const char *const nonfinite[] = {"inf", "-inf", "nan", NULL};
static const char *const platforms[] = {"cuda", "interpreter", "rocm", "xpu", "npu", "musa", NULL};
const char *const catalog_mutants[] = {"zero",	   "tail",	   "last", "dtype",
				       "perturb", "mutate_input", NULL};
static const char *const deep_checks[] = {"validity", "zero",	 "tail",	 "last",
					  "dtype",    "perturb", "mutate_input", "ghost", NULL};
const char *const catalog_degenerate_keys[] = {"empty", "size1", "npot", "dim_size1", NULL};
static const char *const task_files[] = {"task.json", "reference.py", "prompt.md", "solution.py",
					 NULL};
/* The same and the optional baseline: every file of a task kgb or its workers read. */
static const char *const all_task_files[] = {"task.json", "reference.py", "prompt.md",
					     "solution.py", "baseline.py", NULL};


bool catalog_is_layout(const char *name)
{
	return strv_contains(layouts, name);
}

bool catalog_is_dist(const char *name)
{
	return strv_contains(dists, name);
}

bool catalog_is_dtype(const char *name)
{
	return strv_contains(dtypes, name);
}

bool catalog_is_bit(const char *name)
{
	return strv_contains(bits, name);
}

bool catalog_is_memory_format(const char *name)
{
	return strv_contains(memory_formats, name);
}

bool catalog_is_nonfinite(const char *s)
{
	return strv_contains(nonfinite, s);
}

/*
 * Whether `s` reads as a non-finite float in some other spelling ("Infinity", "+inf", "NaN",
 * "-nan"): almost surely meant as one, and passed on as a string it would reach the op as text.
 */
static bool is_nonfinite_misspelling(const char *s)
{
	const char *p = s + (*s == '+' || *s == '-');

	if (catalog_is_nonfinite(s))
		return false;
	return !strcasecmp(p, "inf") || !strcasecmp(p, "infinity") || !strcasecmp(p, "nan");
}

static bool is_identifier(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* Validation context: the file being read and where problems go. */
struct vctx {
	const char *file;
	struct strbuf *errs;
	int nr_errs;
};

static void verr(struct vctx *v, const char *path, const char *fmt, ...) KGB_PRINTF(3, 4);
static void verr(struct vctx *v, const char *path, const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(v->errs, "%s: %s: ", v->file, path);
	va_start(ap, fmt);
	strbuf_vaddf(v->errs, fmt, ap);
	va_end(ap);
	strbuf_addch(v->errs, '\n');
	v->nr_errs++;
}

static const char *json_type_name(json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "a list";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* A string field that is either "$expr" or a member of `allowed`. */
static void check_enum_or_expr(struct vctx *v, const char *path, json_t *j,
			       const char *const *allowed, const char *what)
{
	if (!j)
		return;
	if (!json_is_string(j)) {
		verr(v, path, "expected %s or \"$axis\", got %s", what, json_type_name(j));
		return;
	}
	if (json_string_value(j)[0] == '$')
		return;
	if (!strv_contains(allowed, json_string_value(j)))
		verr(v, path, "expected %s or \"$axis\", got '%s'", what, json_string_value(j));
}

/*
 * A value that may be a float (an argument value, an axis value) spells inf and NaN "inf", "-inf"
 * and "nan"; any other spelling of them is an error. Lists and objects are walked.
 */
static void check_float_spellings(struct vctx *v, const char *path, json_t *j)
{
	struct strbuf p = STRBUF_INIT;
	const char *key;
	json_t *x;
	size_t i;

	if (json_is_string(j) && is_nonfinite_misspelling(json_string_value(j))) {
		verr(v, path, "expected \"inf\", \"-inf\" or \"nan\" for a non-finite float, got '%s'",
		     json_string_value(j));
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, x) {
			strbuf_reset(&p);
			strbuf_addf(&p, "%s[%zu]", path, i);
			check_float_spellings(v, p.buf, x);
		}
	} else if (json_is_object(j)) {
		json_object_foreach(j, key, x) {
			strbuf_reset(&p);
			strbuf_addf(&p, "%s.%s", path, key);
			check_float_spellings(v, p.buf, x);
		}
	}
	strbuf_release(&p);
}

/*
 * A complex value is {"complex": [re, im]} (runtime/inputs.py): two numbers or non-finite
 * spellings, and no other key. Lists and other objects are walked.
 */
static void check_complex(struct vctx *v, const char *path, json_t *j)
{
	json_t *c = json_object_get(j, "complex"), *x;
	const char *key;
	size_t i;

	if (json_is_array(j)) {
		json_array_foreach(j, i, x) check_complex(v, path, x);
		return;
	}
	if (!json_is_object(j))
		return;
	if (!c) {
		json_object_foreach(j, key, x) check_complex(v, path, x);
		return;
	}
	if (json_object_size(j) != 1 || !json_is_array(c) || json_array_size(c) != 2)
		goto bad;
	json_array_foreach(c, i, x) {
		if (!json_is_number(x) &&
		    !(json_is_string(x) && catalog_is_nonfinite(json_string_value(x))))
			goto bad;
	}
	return;
bad:
	verr(v, path, "expected {\"complex\": [re, im]} with two numbers and no other key");
}

static void check_number_or_expr(struct vctx *v, const char *path, json_t *j)
{
	if (j && !json_is_number(j) && !json_is_string(j))
		verr(v, path, "expected a number or an expression string, got %s",
		     json_type_name(j));
}

static void check_tensor_desc(struct vctx *v, const char *path, json_t *t)
{
	static const char *const known[] = {"shape", "dtype", "layout", "dist",	  "scale",
					    "low",   "high",  "p",	    "bit",  "values",
					    "field_bits", NULL};
	struct strbuf p = STRBUF_INIT;
	const char *key;
	json_t *e, *shape;

	if (!json_is_object(t)) {
		verr(v, path, "expected a tensor descriptor object, got %s", json_type_name(t));
		return;
	}
	json_object_foreach(t, key, e) {
		if (!strv_contains(known, key))
			verr(v, path, "unknown field '%s' (expected one of shape, dtype, layout, dist, scale, low, high, p, bit, values, field_bits)",
			     key);
	}
	shape = json_object_get(t, "shape");
	strbuf_addf(&p, "%s.shape", path);
	if (!shape)
		verr(v, p.buf, "missing (expected a list of integers or \"$axis\")");
	else if (json_is_array(shape)) {
		size_t i;
		json_array_foreach(shape, i, e) {
			if (!(json_is_integer(e) && json_integer_value(e) >= 0) &&
			    !(json_is_string(e) && json_string_value(e)[0] == '$'))
				verr(v, p.buf, "element %zu: expected a non-negative integer or \"$expr\"",
				     i);
		}
	} else if (!(json_is_string(shape) && json_string_value(shape)[0] == '$'))
		verr(v, p.buf, "expected a list of integers or \"$axis\", got %s",
		     json_type_name(shape));
	strbuf_reset(&p);
	strbuf_addf(&p, "%s.dtype", path);
	if (!json_object_get(t, "dtype"))
		verr(v, p.buf, "missing (expected a dtype name or \"$axis\")");
	check_enum_or_expr(v, p.buf, json_object_get(t, "dtype"), dtypes, "a dtype name");
	strbuf_reset(&p);
	strbuf_addf(&p, "%s.layout", path);
	check_enum_or_expr(v, p.buf, json_object_get(t, "layout"), layouts, "a layout");
	strbuf_reset(&p);
	strbuf_addf(&p, "%s.dist", path);
	check_enum_or_expr(v, p.buf, json_object_get(t, "dist"), dists, "a distribution");
	strbuf_reset(&p);
	strbuf_addf(&p, "%s.bit", path);
	check_enum_or_expr(v, p.buf, json_object_get(t, "bit"), bits, "none, conj or neg");
	for (const char *const *f = (const char *const[]){"scale", "low", "high", "p", "field_bits",
							  NULL};
	     *f; f++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s.%s", path, *f);
		check_number_or_expr(v, p.buf, json_object_get(t, *f));
	}
	e = json_object_get(t, "values");
	strbuf_reset(&p);
	strbuf_addf(&p, "%s.values", path);
	if (e && !json_is_array(e) && !(json_is_string(e) && json_string_value(e)[0] == '$'))
		verr(v, p.buf, "expected a list of integers or \"$axis\", got %s",
		     json_type_name(e));
	strbuf_release(&p);
}

static void check_args(struct vctx *v, const char *path, json_t *args, json_t *seen_names)
{
	struct strbuf p = STRBUF_INIT;
	size_t i;
	json_t *a;

	if (!json_is_array(args) || !json_array_size(args)) {
		verr(v, path, "expected a non-empty list of arguments");
		return;
	}
	if (json_array_size(args) > CATALOG_MAX_ARGS)
		verr(v, path, "more than %d arguments", CATALOG_MAX_ARGS);
	json_array_foreach(args, i, a) {
		static const char *const arg_kinds[] = {"tensor", "tensors", "value", "dtype",
							"device", "memory_format", NULL};
		const char *key, *kind = NULL;
		json_t *e, *name;
		int nr_kinds = 0;

		strbuf_reset(&p);
		strbuf_addf(&p, "%s[%zu]", path, i);
		if (!json_is_object(a)) {
			verr(v, p.buf, "expected an object, got %s", json_type_name(a));
			continue;
		}
		name = json_object_get(a, "name");
		if (!json_is_string(name) || !is_identifier(json_string_value(name)))
			verr(v, p.buf, "'name': expected an identifier");
		else if (json_object_get(seen_names, json_string_value(name)))
			verr(v, p.buf, "duplicate argument name '%s'", json_string_value(name));
		else
			json_object_set_new(seen_names, json_string_value(name), json_true());
		json_object_foreach(a, key, e) {
			if (strv_contains(arg_kinds, key)) {
				kind = key;
				nr_kinds++;
			} else if (strcmp(key, "name") && strcmp(key, "keyword") &&
				   strcmp(key, "present")) {
				verr(v, p.buf, "unknown field '%s'", key);
			}
		}
		if (json_object_get(a, "keyword") && !json_is_boolean(json_object_get(a, "keyword")))
			verr(v, p.buf, "'keyword': expected true or false");
		e = json_object_get(a, "present");
		if (e && !json_is_boolean(e) && !(json_is_string(e) && json_string_value(e)[0] == '$'))
			verr(v, p.buf, "'present': expected true, false or \"$axis\"");
		if (nr_kinds != 1) {
			verr(v, p.buf, "expected exactly one of tensor, tensors, value, dtype, device, memory_format");
			continue;
		}
		strbuf_addf(&p, ".%s", kind);
		e = json_object_get(a, kind);
		if (!strcmp(kind, "tensor")) {
			check_tensor_desc(v, p.buf, e);
		} else if (!strcmp(kind, "tensors")) {
			size_t j;
			json_t *t;

			if (json_is_string(e) && json_string_value(e)[0] == '$')
				continue;
			if (!json_is_array(e)) {
				verr(v, p.buf, "expected a list of tensor descriptors");
				continue;
			}
			json_array_foreach(e, j, t) {
				struct strbuf q = STRBUF_INIT;

				if (json_is_null(t))
					continue; /* an absent entry of Tensor?[] */
				strbuf_addf(&q, "%s[%zu]", p.buf, j);
				check_tensor_desc(v, q.buf, t);
				strbuf_release(&q);
			}
		} else if (!strcmp(kind, "dtype")) {
			/* null is a legal value: the optional `ScalarType? dtype=None` of ATen. */
			if (!json_is_null(e))
				check_enum_or_expr(v, p.buf, e, dtypes, "a dtype name or null");
		} else if (!strcmp(kind, "memory_format")) {
			/* null: the optional `MemoryFormat? memory_format=None`. */
			if (!json_is_null(e))
				check_enum_or_expr(v, p.buf, e, memory_formats,
						   "a memory format (contiguous_format, channels_last, channels_last_3d, preserve_format) or null");
		} else if (!strcmp(kind, "value")) {
			check_float_spellings(v, p.buf, e);
			check_complex(v, p.buf, e);
		}
	}
	strbuf_release(&p);
}

static void check_axes(struct vctx *v, const char *path, json_t *axes)
{
	const char *key;
	json_t *vals;

	if (!axes)
		return;
	if (!json_is_object(axes)) {
		verr(v, path, "expected an object of axis name -> list of values, got %s",
		     json_type_name(axes));
		return;
	}
	json_object_foreach(axes, key, vals) {
		struct strbuf p = STRBUF_INIT;

		if (!is_identifier(key))
			verr(v, path, "axis name '%s' is not an identifier", key);
		if (!json_is_array(vals) || !json_array_size(vals))
			verr(v, path, "axis '%s': expected a non-empty list of values", key);
		strbuf_addf(&p, "%s.%s", path, key);
		check_float_spellings(v, p.buf, vals);
		check_complex(v, p.buf, vals);
		strbuf_release(&p);
	}
}

/* `exempt`, of the task or of one entry: check name -> the sentence saying why. */
static void check_exempt(struct vctx *v, const char *path, json_t *x, json_t *task_exempt)
{
	const char *ek;
	json_t *ev;

	if (!json_is_object(x)) {
		verr(v, path, "expected an object of check name -> reason");
		return;
	}
	json_object_foreach(x, ek, ev) {
		if (!strv_contains(deep_checks, ek))
			verr(v, path, "unknown check '%s' (expected validity, ghost or a mutant: zero, tail, last, dtype, perturb, mutate_input)", ek);
		else if (!json_is_string(ev) || strlen(json_string_value(ev)) < 10)
			verr(v, path, "'%s': expected the reason as a sentence", ek);
		else if (task_exempt && json_object_get(task_exempt, ek))
			verr(v, path, "'%s': already exempted for the whole task", ek);
	}
}

/*
 * `degenerate`, of the task or of one entry: degenerate size -> why the grid cannot reach it,
 * either one sentence for every argument or an object of argument name -> sentence. `arg_ok`
 * says whether an argument name exists (in the entry, or for the task in some entry).
 */
static void check_degenerate(struct vctx *v, const char *path, json_t *x,
			     bool (*arg_ok)(const struct task *, size_t, const char *),
			     const struct task *t, size_t idx)
{
	const char *dk, *ak;
	json_t *dv, *av;

	if (!json_is_object(x)) {
		verr(v, path, "expected an object of degenerate size -> reason");
		return;
	}
	json_object_foreach(x, dk, dv) {
		if (!strv_contains(catalog_degenerate_keys, dk)) {
			verr(v, path,
			     "unknown size '%s' (expected empty, size1, npot or dim_size1)", dk);
			continue;
		}
		if (json_is_string(dv) && strlen(json_string_value(dv)) >= 10)
			continue;
		if (!json_is_object(dv) || !json_object_size(dv)) {
			verr(v, path, "'%s': expected the reason as a sentence, or an object of argument name -> sentence", dk);
			continue;
		}
		json_object_foreach(dv, ak, av) {
			if (!arg_ok(t, idx, ak))
				verr(v, path, "'%s': '%s' is not an argument%s", dk, ak,
				     idx == (size_t)-1 ? " of any entry" : " of the entry");
			else if (!json_is_string(av) || strlen(json_string_value(av)) < 10)
				verr(v, path, "'%s'.'%s': expected the reason as a sentence", dk,
				     ak);
		}
	}
}

static bool entry_has_arg(const struct task *t, size_t idx, const char *name)
{
	size_t i;
	json_t *a;

	json_array_foreach(t->entries[idx].args, i, a) {
		const char *n = json_string_value(json_object_get(a, "name"));

		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

static bool task_has_arg(const struct task *t, size_t idx, const char *name)
{
	(void)idx;
	for (size_t i = 0; i < t->nr_entries; i++)
		if (json_is_array(t->entries[i].args) && entry_has_arg(t, i, name))
			return true;
	return false;
}

/* A new object: `base`'s axes with `over`'s replacing or adding (insertion order kept). */
static json_t *merge_axes(json_t *base, json_t *over)
{
	json_t *m = base ? json_deep_copy(base) : json_object();
	const char *key;
	json_t *vals;

	if (over)
		json_object_foreach(over, key, vals) json_object_set(m, key, vals);
	return m;
}

static void check_refs(struct vctx *v, const char *path, struct task_entry *e)
{
	json_t *refs = json_object();
	json_t *exprs[] = {e->reduce, e->scale, e->bytes, e->flops, e->out_dtype};
	const char *key;
	json_t *x;

	expr_collect_refs_tree(e->args, refs);
	for (size_t i = 0; i < ARRAY_SIZE(exprs); i++)
		if (exprs[i] && json_is_string(exprs[i]))
			expr_collect_refs(json_string_value(exprs[i]), refs);
	json_object_foreach(refs, key, x) {
		if (!json_object_get(e->axes, key))
			verr(v, path, "'$%s' is used but no axis '%s' exists", key, key);
	}
	json_decref(refs);
}

/* entries[i].heldout (`where`): the task's held-out axes the entry has, then its own. */
static void check_entry_heldout(struct vctx *v, const char *where, struct task *t,
				struct task_entry *e, json_t *j)
{
	/*
	 * The task's held-out axes apply to every entry that has them; the entry's own
	 * replace them.
	 */
	json_t *over = json_object(), *th = json_object_get(t->spec, "heldout");
	const char *hk;
	json_t *hv;

	if (json_is_object(th))
		json_object_foreach(th, hk, hv) {
			if (json_object_get(e->axes, hk))
				json_object_set(over, hk, hv);
		}
	if (json_is_object(json_object_get(j, "heldout")))
		json_object_foreach(json_object_get(j, "heldout"), hk, hv) {
			if (!json_object_get(e->axes, hk))
				verr(v, where,
				     "heldout axis '%s' is not an axis of the entry", hk);
			json_object_set(over, hk, hv);
		}
	if (json_object_size(over)) {
		e->heldout_axes = merge_axes(e->axes, over);
		e->heldout_over = over;
	} else {
		json_decref(over);
	}
}

/* An entry's mutates, returns and reference_precision (`where`: "entries[i]"). */
static void check_entry_outputs(struct vctx *v, const char *where, struct task_entry *e,
				json_t *j, json_t *arg_names)
{
	json_t *x;

	x = json_object_get(j, "mutates");
	if (x) {
		size_t i;
		json_t *m;

		if (!json_is_array(x))
			verr(v, where, "'mutates': expected a list of argument names");
		else
			json_array_foreach(x, i, m) {
				if (!json_is_string(m) || !json_object_get(arg_names, json_string_value(m)))
					verr(v, where, "'mutates'[%zu]: expected the name of an argument", i);
			}
		e->mutates = json_incref(x);
	} else {
		e->mutates = json_array();
	}
	x = json_object_get(j, "returns");
	e->returns = json_string("value");
	if (x) {
		bool ok = json_is_string(x) && (!strcmp(json_string_value(x), "value") ||
						!strcmp(json_string_value(x), "none") ||
						json_object_get(arg_names, json_string_value(x)));

		if (json_is_array(x) && json_array_size(x)) {
			size_t i;
			json_t *r;

			ok = true;
			json_array_foreach(x, i, r) ok &= json_is_string(r) &&
						      json_object_get(arg_names, json_string_value(r));
		}
		if (!ok)
			verr(v, where, "'returns': expected \"value\", \"none\", an argument name or a list of argument names");
		else {
			json_decref(e->returns);
			e->returns = json_incref(x);
		}
	}
	x = json_object_get(j, "reference_precision");
	if (x) {
		if (!json_is_string(x) || (strcmp(json_string_value(x), "float64") &&
					   strcmp(json_string_value(x), "native")))
			verr(v, where, "'reference_precision': expected \"float64\" or \"native\"");
		else
			e->reference_precision = json_string_value(x);
	}
}

/* An entry's cost and tolerance expressions and multipliers (`where`: "entries[i]"). */
static void check_entry_numbers(struct vctx *v, const char *where, struct task_entry *e,
				json_t *j)
{
	struct strbuf q = STRBUF_INIT;
	json_t *x;

	e->reduce = json_object_get(j, "reduce");
	e->scale = json_object_get(j, "scale");
	e->bytes = json_object_get(j, "bytes");
	e->flops = json_object_get(j, "flops");
	e->out_dtype = json_object_get(j, "out_dtype");
	{
		const char *names[] = {"reduce", "scale", "bytes", "flops"};
		json_t *vals[] = {e->reduce, e->scale, e->bytes, e->flops};

		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			strbuf_reset(&q);
			strbuf_addf(&q, "%s.%s", where, names[i]);
			check_number_or_expr(v, q.buf, vals[i]);
		}
		strbuf_reset(&q);
		strbuf_addf(&q, "%s.out_dtype", where);
		check_enum_or_expr(v, q.buf, e->out_dtype, dtypes, "a dtype name");
	}
	x = json_object_get(j, "tolerance");
	if (x) {
		const char *tk;
		json_t *tv;

		if (!json_is_object(x))
			verr(v, where, "'tolerance': expected an object {\"atol\": m, \"rtol\": m}");
		else
			json_object_foreach(x, tk, tv) {
				if (strcmp(tk, "atol") && strcmp(tk, "rtol"))
					verr(v, where, "'tolerance': unknown field '%s'", tk);
				else if (!json_is_number(tv) || json_number_value(tv) <= 0)
					verr(v, where, "'tolerance.%s': expected a positive number", tk);
				else if (!strcmp(tk, "atol"))
					e->atol_mult = json_number_value(tv);
				else
					e->rtol_mult = json_number_value(tv);
			}
	}
	strbuf_release(&q);
}

static void check_entry(struct vctx *v, struct task *t, size_t idx, json_t *j, json_t *shared)
{
	static const char *const known[] = {"name", "signature", "args", "axes", "perf", "heldout",
					    "mutates",
					    "returns", "reference_precision", "reduce", "scale",
					    "bytes", "flops", "out_dtype", "tolerance", "cover",
					    "exempt", "degenerate", NULL};
	struct task_entry *e = &t->entries[idx];
	struct strbuf p = STRBUF_INIT, q = STRBUF_INIT;
	json_t *x, *arg_names = json_object();
	const char *key;

	strbuf_addf(&p, "entries[%zu]", idx);
	e->atol_mult = e->rtol_mult = 1.0;
	e->reference_precision = "float64";
	if (!json_is_object(j)) {
		verr(v, p.buf, "expected an object, got %s", json_type_name(j));
		goto out;
	}
	json_object_foreach(j, key, x) {
		if (!strv_contains(known, key))
			verr(v, p.buf, "unknown field '%s'", key);
	}
	x = json_object_get(j, "name");
	if (!json_is_string(x) || !is_identifier(json_string_value(x))) {
		verr(v, p.buf, "'name': expected a Python identifier");
		e->name = xstrdup("?");
	} else {
		e->name = xstrdup(json_string_value(x));
		for (size_t k = 0; k < idx; k++)
			if (!strcmp(t->entries[k].name, e->name))
				verr(v, p.buf, "duplicate entry name '%s'", e->name);
	}
	x = json_object_get(j, "signature");
	if (!json_is_string(x))
		verr(v, p.buf, "'signature': expected a string");
	else
		e->signature = json_string_value(x);
	strbuf_addf(&q, "%s.args", p.buf);
	e->args = json_object_get(j, "args");
	check_args(v, q.buf, e->args, arg_names);
	strbuf_reset(&q);
	strbuf_addf(&q, "%s.axes", p.buf);
	check_axes(v, q.buf, json_object_get(j, "axes"));
	strbuf_reset(&q);
	strbuf_addf(&q, "%s.perf", p.buf);
	check_axes(v, q.buf, json_object_get(j, "perf"));
	e->axes = merge_axes(json_is_object(shared) ? shared : NULL,
			     json_is_object(json_object_get(j, "axes")) ? json_object_get(j, "axes")
								       : NULL);
	strbuf_reset(&q);
	strbuf_addf(&q, "%s.heldout", p.buf);
	check_axes(v, q.buf, json_object_get(j, "heldout"));
	check_entry_heldout(v, q.buf, t, e, j);
	strbuf_reset(&q);
	strbuf_addf(&q, "%s.perf", p.buf);
	if (json_is_object(json_object_get(j, "perf"))) {
		const char *pk;
		json_t *pv;

		e->perf_axes = merge_axes(e->axes, json_object_get(j, "perf"));
		json_object_foreach(json_object_get(j, "perf"), pk, pv) {
			if (!json_object_get(e->axes, pk))
				verr(v, q.buf, "perf axis '%s' is not an axis of the entry", pk);
		}
	}
	check_entry_outputs(v, p.buf, e, j, arg_names);
	x = json_object_get(j, "cover");
	if (x) {
		if (!json_is_string(x) || strcmp(json_string_value(x), "pairwise"))
			verr(v, p.buf, "'cover': expected \"pairwise\"");
		else
			e->cover_pairwise = true;
	}
	check_entry_numbers(v, p.buf, e, j);
	x = json_object_get(j, "exempt");
	if (x) {
		strbuf_reset(&q);
		strbuf_addf(&q, "%s.exempt", p.buf);
		check_exempt(v, q.buf, x, t->exempt);
		e->exempt = json_is_object(x) ? x : NULL;
	}
	x = json_object_get(j, "degenerate");
	if (x && json_is_array(e->args)) {
		strbuf_reset(&q);
		strbuf_addf(&q, "%s.degenerate", p.buf);
		check_degenerate(v, q.buf, x, entry_has_arg, t, idx);
		e->degenerate = json_is_object(x) ? x : NULL;
	}
	if (json_is_array(e->args))
		check_refs(v, p.buf, e);
out:
	if (!e->name)
		e->name = xstrdup("?");
	if (!e->axes)
		e->axes = json_object();
	if (!e->mutates)
		e->mutates = json_array();
	if (!e->returns)
		e->returns = json_string("value");
	json_decref(arg_names);
	strbuf_release(&p);
	strbuf_release(&q);
}

static void task_release(struct task *t)
{
	for (size_t i = 0; i < t->nr_entries; i++) {
		free(t->entries[i].name);
		json_decref(t->entries[i].axes);
		json_decref(t->entries[i].perf_axes);
		json_decref(t->entries[i].heldout_axes);
		json_decref(t->entries[i].heldout_over);
		json_decref(t->entries[i].mutates);
		json_decref(t->entries[i].returns);
	}
	free(t->entries);
	free(t->op);
	free(t->source);
	free(t->kind);
	free(t->dir);
	json_decref(t->spec);
	memset(t, 0, sizeof(*t));
}

/* Loads one task directory; on any problem returns -EINVAL with lines in errs. */
/* The task's entries, then the task-level held-out axes and degenerate sizes they decide. */
static void check_task_entries(struct vctx *v, struct task *t, json_t *j)
{
	json_t *x;

	x = json_object_get(j, "entries");
	if (!json_is_array(x) || !json_array_size(x)) {
		verr(v, "entries", "expected a non-empty list of entries");
	} else if (json_array_size(x) > CATALOG_MAX_ENTRIES) {
		verr(v, "entries", "more than %d entries", CATALOG_MAX_ENTRIES);
	} else {
		size_t i;
		json_t *e;

		t->entries = xcalloc(json_array_size(x), sizeof(*t->entries));
		t->nr_entries = json_array_size(x);
		json_array_foreach(x, i, e) check_entry(v, t, i, e, json_object_get(j, "axes"));
	}
	x = json_object_get(j, "heldout");
	if (json_is_object(x) && t->entries) {
		const char *hk;
		json_t *hv;

		json_object_foreach(x, hk, hv) {
			bool found = false;

			for (size_t i = 0; i < t->nr_entries; i++)
				found |= json_object_get(t->entries[i].axes, hk) != NULL;
			if (!found)
				verr(v, "heldout",
				     "heldout axis '%s' is not an axis of any entry", hk);
		}
	}
	x = json_object_get(j, "degenerate");
	if (x) {
		check_degenerate(v, "degenerate", x, task_has_arg, t, (size_t)-1);
		t->degenerate = json_is_object(x) ? x : NULL;
	}
}

/* t->version: the hash of the task's files but the shipped solution (errors to v). */
static void task_version(struct vctx *v, struct task *t, const char *dir)
{
	struct hash h;

	hash_init(&h);
	for (const char *const *f = task_files; *f; f++) {
		char *path;

		if (!strcmp(*f, "solution.py"))
			continue; /* the shipped solution is a candidate, not the task */
		path = path_join(dir, *f);
		if (hash_update_file(&h, path, *f) < 0)
			verr(v, *f, "cannot read for hashing");
		free(path);
	}
	/*
	 * The optional speedup baseline (docs/task-format.md) is part of the task: another
	 * baseline is another speedup. Hashed only where present, so that the version of
	 * a task without one is what it always was.
	 */
	char *bpath = path_join(dir, "baseline.py");

	if (path_is_file(bpath) && hash_update_file(&h, bpath, "baseline.py") < 0)
		verr(v, "baseline.py", "cannot read for hashing");
	free(bpath);
	hash_hex(&h, t->version);
}

/*
 * NULL when path resolves inside its task's directory (root_real: that directory's real path;
 * the directory itself may be a link, as when a catalog is put together from others), or when
 * it does not exist (the caller says so); else its real path (owned by the caller): a link
 * out, whose target kgb must not read (a prompt.md linked to a key would go to a model).
 */
static char *outside_task(const char *root_real, const char *path)
{
	char *real = path_abs(path);

	if (!real || path_within(root_real, real)) {
		free(real);
		return NULL;
	}
	return real;
}

static int task_load(const char *dir, const char *source_dir, const char *op_dir,
		     struct task *t, struct strbuf *errs)
{
	static const char *const known[] = {"schema", "op", "source", "kind", "platforms", "axes",
					    "entries", "seed", "exempt", "allow", "degenerate",
					    "heldout", NULL};
	struct vctx v = {.errs = errs};
	char *file = path_join(dir, "task.json");
	struct strbuf text = STRBUF_INIT;
	char *outside, *dir_real;
	json_error_t jerr;
	json_t *j, *x;
	const char *key;
	int r;

	memset(t, 0, sizeof(*t));
	v.file = file;
	dir_real = path_abs(dir);
	outside = dir_real ? outside_task(dir_real, file) : xstrdup(dir);
	if (outside) {
		strbuf_addf(errs, "%s: a link out of its task directory (to '%s'): not read\n", file,
			    outside);
		free(outside);
		free(dir_real);
		free(file);
		return -EINVAL;
	}
	r = strbuf_read_file(&text, file, CATALOG_MAX_SPEC_BYTES);
	if (r < 0) {
		strbuf_addf(errs, "%s: cannot read: %s\n", file,
			    r == -E2BIG    ? "larger than 4 MiB"
			    : r == -EINVAL ? "not a regular file"
					   : strerror(-r));
		strbuf_release(&text);
		free(dir_real);
		free(file);
		return -EINVAL;
	}
	j = json_loadb(text.buf, text.len, JSON_REJECT_DUPLICATES, &jerr);
	if (!j) {
		strbuf_addf(errs, "%s:%d:%d: invalid JSON: %s\n", file, jerr.line, jerr.column,
			    jerr.text);
		strbuf_release(&text);
		free(dir_real);
		free(file);
		return -EINVAL;
	}
	t->spec = j;
	t->dir = path_abs(dir);
	if (!t->dir)
		t->dir = xstrdup(dir);
	if (!json_is_object(j)) {
		verr(&v, "(top)", "expected an object, got %s", json_type_name(j));
		goto done;
	}
	json_object_foreach(j, key, x) {
		if (!strv_contains(known, key))
			verr(&v, key, "unknown field (expected one of schema, op, source, kind, platforms, axes, entries, seed, exempt, allow, degenerate, heldout)");
	}
	x = json_object_get(j, "schema");
	if (!json_is_integer(x) || json_integer_value(x) != 1)
		verr(&v, "schema", "expected 1");
	x = json_object_get(j, "op");
	if (!json_is_string(x))
		verr(&v, "op", "expected a string");
	else if (strcmp(json_string_value(x), op_dir))
		verr(&v, "op", "'%s' does not match the directory name '%s'", json_string_value(x),
		     op_dir);
	t->op = xstrdup(json_is_string(x) ? json_string_value(x) : op_dir);
	x = json_object_get(j, "source");
	if (!json_is_string(x) || !strv_contains(catalog_sources, json_string_value(x)))
		verr(&v, "source", "expected one of aten, vllm, cublas");
	else if (strcmp(json_string_value(x), source_dir))
		verr(&v, "source", "'%s' does not match the directory '%s'", json_string_value(x),
		     source_dir);
	t->source = xstrdup(source_dir);
	x = json_object_get(j, "kind");
	if (x && (!json_is_string(x) || !strv_contains(kinds, json_string_value(x))))
		verr(&v, "kind", "expected one of compute, view, alloc, random, scalar");
	t->kind = xstrdup(json_is_string(x) ? json_string_value(x) : "compute");
	x = json_object_get(j, "platforms");
	if (x) {
		size_t i;
		json_t *p;

		if (!json_is_array(x))
			verr(&v, "platforms", "expected a list of platform names");
		else
			json_array_foreach(x, i, p) {
				if (!json_is_string(p) || !strv_contains(platforms, json_string_value(p)))
					verr(&v, "platforms", "element %zu: expected one of cuda, interpreter, rocm, xpu", i);
			}
		t->platforms = x;
	}
	x = json_object_get(j, "seed");
	if (x && !json_is_integer(x))
		verr(&v, "seed", "expected an integer");
	t->seed = json_is_integer(x) ? json_integer_value(x) : 0;
	check_axes(&v, "axes", json_object_get(j, "axes"));
	x = json_object_get(j, "exempt");
	if (x) {
		check_exempt(&v, "exempt", x, NULL);
		t->exempt = json_is_object(x) ? x : NULL;
	}
	x = json_object_get(j, "allow");
	if (x) {
		size_t i;
		json_t *a;

		if (!json_is_array(x))
			verr(&v, "allow", "expected a list of names the static scan allows");
		else
			json_array_foreach(x, i, a) {
				if (!json_is_string(a) || !json_string_length(a))
					verr(&v, "allow", "element %zu: expected a non-empty string (a dotted name, method name or rule id)", i);
			}
		t->allow = x;
	}
	check_axes(&v, "heldout", json_object_get(j, "heldout"));
	check_task_entries(&v, t, j);
	for (const char *const *f = all_task_files; *f; f++) {
		char *path = path_join(dir, *f);
		char *real = outside_task(dir_real, path);

		if (real)
			verr(&v, *f, "a link out of its task directory (to '%s'): not read", real);
		else if (!path_is_file(path) && strcmp(*f, "baseline.py"))
			verr(&v, *f, "missing file %s", path);
		free(real);
		free(path);
	}
done:
	if (v.nr_errs == 0)
		task_version(&v, t, dir);
	strbuf_release(&text);
	free(dir_real);
	free(file);
	return v.nr_errs ? -EINVAL : 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct task *x = a, *y = b;
	int sx = 0, sy = 0;

	for (int i = 0; catalog_sources[i]; i++) {
		if (!strcmp(catalog_sources[i], x->source))
			sx = i;
		if (!strcmp(catalog_sources[i], y->source))
			sy = i;
	}
	if (sx != sy)
		return sx - sy;
	return strcmp(x->op, y->op);
}

int catalog_load(const char *tasks_dir, struct catalog **ret, struct strbuf *errs)
{
	struct catalog *cat = xcalloc(1, sizeof(*cat));
	size_t alloc = 0;
	int bad = 0;

	if (!path_is_dir(tasks_dir)) {
		strbuf_addf(errs, "%s: not a directory\n", tasks_dir);
		*ret = cat;
		return -ENOENT;
	}
	for (const char *const *src = catalog_sources; *src; src++) {
		char *sdir = path_join(tasks_dir, *src);
		char **ops = NULL;

		if (!path_is_dir(sdir) || list_dir_sorted(sdir, &ops) < 0) {
			free(sdir);
			continue;
		}
		for (char **op = ops; *op; op++) {
			char *odir = path_join(sdir, *op);
			struct task t;

			if ((*op)[0] == '.' || !path_is_dir(odir)) {
				free(odir);
				continue;
			}
			if (task_load(odir, *src, *op, &t, errs) < 0) {
				task_release(&t);
				bad = 1;
			} else if (catalog_find(cat, t.op)) {
				strbuf_addf(errs, "%s/task.json: op: '%s' is already defined by another source\n",
					    odir, t.op);
				task_release(&t);
				bad = 1;
			} else {
				XGROW(cat->tasks, cat->nr_tasks + 1, alloc);
				cat->tasks[cat->nr_tasks++] = t;
			}
			free(odir);
		}
		strv_free(ops);
		free(sdir);
	}
	if (cat->nr_tasks)
		qsort(cat->tasks, cat->nr_tasks, sizeof(*cat->tasks), cmp_task);
	*ret = cat;
	return bad ? -EINVAL : 0;
}

void catalog_free(struct catalog *cat)
{
	if (!cat)
		return;
	for (size_t i = 0; i < cat->nr_tasks; i++)
		task_release(&cat->tasks[i]);
	free(cat->tasks);
	free(cat);
}

const struct task *catalog_find(const struct catalog *cat, const char *name)
{
	const char *slash = strchr(name, '/');

	for (size_t i = 0; i < cat->nr_tasks; i++) {
		const struct task *t = &cat->tasks[i];

		if (slash) {
			size_t n = (size_t)(slash - name);
			if (strlen(t->source) == n && !strncmp(t->source, name, n) &&
			    !strcmp(t->op, slash + 1))
				return t;
		} else if (!strcmp(t->op, name)) {
			return t;
		}
	}
	return NULL;
}

bool task_supports_platform(const struct task *t, const char *platform)
{
	size_t i;
	json_t *p;

	if (!t->platforms)
		return true;
	json_array_foreach(t->platforms, i, p) {
		if (!strcmp(json_string_value(p), platform))
			return true;
	}
	return false;
}

char *task_path(const struct task *t, const char *file)
{
	return path_join(t->dir, file);
}

const char *task_exemption(const struct task *t, const char *check)
{
	return t->exempt ? json_string_value(json_object_get(t->exempt, check)) : NULL;
}

const char *task_entry_exemption(const struct task *t, size_t entry_idx, const char *check)
{
	const char *why = NULL;

	if (entry_idx < t->nr_entries && t->entries[entry_idx].exempt)
		why = json_string_value(json_object_get(t->entries[entry_idx].exempt, check));
	return why ? why : task_exemption(t, check);
}
