/* t-cases.c - case generation: the seeded product of referenced axes (docs/task-format.md). */
#include "unit.h"

#include "cases.h"
#include "tolerance.h"

/* One-entry spec: args and extra entry fields in single quotes. */
#define ONE_ENTRY(args, extra)                                                                  \
	"{'schema': 1, 'op': 'foo', 'source': 'aten', 'entries': [{'name': 'f',"                \
	" 'signature': 'f(x)', 'args': [" args "]" extra "}]}"
#define X_SHAPE_DTYPE "{'name': 'x', 'tensor': {'shape': '$shape', 'dtype': '$dtype'}}"
/* A one-element tensor argument x (any dtype text, '$axis' included), a value argument v. */
#define X_OF(dtype) "{'name': 'x', 'tensor': {'shape': [1], 'dtype': '" dtype "'}}"
#define V_OF(value) "{'name': 'v', 'value': " value "}"

/*
 * Shared axes dtype and unused (no expression names it), f's own shape axis and perf shapes,
 * and a second entry g that only uses dtype.
 */
static const char grid_spec[] =
	"{'schema': 1, 'op': 'foo', 'source': 'aten',"
	" 'axes': {'dtype': ['float16', 'float32'], 'unused': [1, 2, 3]},"
	" 'entries': ["
	"  {'name': 'f', 'signature': 'f(x)', 'args': [" X_SHAPE_DTYPE "],"
	"   'axes': {'shape': [[2], [3], [4]]}, 'perf': {'shape': [[1024], [2048]]}},"
	"  {'name': 'g', 'signature': 'g(x)',"
	"   'args': [{'name': 'x', 'tensor': {'shape': [5], 'dtype': '$dtype'}}]}"
	" ]}";

static void generate_ok(const struct task *t, bool with_perf, unsigned long long run_seed,
			struct case_list *l)
{
	struct strbuf err = STRBUF_INIT;
	int r = cases_generate(t, with_perf, run_seed, l, &err);

	if (r != 0)
		fail_msg("cases_generate: %d: %s", r, err.buf);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
}

static void assert_case(const struct case_desc *c, const char *entry, bool timed,
			const char *axes_sq)
{
	json_t *want = unit_json(axes_sq);

	assert_string_equal(c->entry, entry);
	assert_int_equal(c->timed, timed);
	assert_json_equal(c->axes, want);
	json_decref(want);
}

static void test_product_and_order(void **state)
{
	static const char *const f_axes[] = {
		"{'dtype': 'float16', 'shape': [2]}", "{'dtype': 'float16', 'shape': [3]}",
		"{'dtype': 'float16', 'shape': [4]}", "{'dtype': 'float32', 'shape': [2]}",
		"{'dtype': 'float32', 'shape': [3]}", "{'dtype': 'float32', 'shape': [4]}",
	};
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(fx, grid_spec);
	struct case_list l = {0};
	json_t *want;

	/* 2 dtypes x 3 shapes for f (not x 3 for the unused axis), 2 dtypes for g. */
	generate_ok(t, false, 0, &l);
	assert_int_equal(l.nr, 6 + 2);
	for (size_t i = 0; i < 6; i++) {
		print_message("case %zu\n", i);
		assert_case(&l.v[i], "f", false, f_axes[i]);
		assert_int_equal(l.v[i].entry_idx, 0);
	}
	assert_case(&l.v[6], "g", false, "{'dtype': 'float16'}");
	assert_case(&l.v[7], "g", false, "{'dtype': 'float32'}");
	assert_int_equal(l.v[7].entry_idx, 1);
	/* Arguments are resolved: no '$' left. */
	want = unit_json("[{'name': 'x', 'tensor': {'shape': [3], 'dtype': 'float32',"
			 " 'layout': 'contiguous', 'dist': 'normal'}}]");
	assert_json_equal(l.v[4].args, want);
	json_decref(want);
	case_list_release(&l);
	assert_int_equal(l.nr, 0);
	assert_null(l.v);
}

static void test_perf_cases(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(fx, grid_spec);
	struct case_list l = {0};

	/* An entry's perf cases follow its checked ones: perf replaces shape, dtype stays. */
	generate_ok(t, true, 0, &l);
	assert_int_equal(l.nr, 6 + 4 + 2);
	for (size_t i = 0; i < 6; i++)
		assert_false(l.v[i].timed);
	assert_case(&l.v[6], "f", true, "{'dtype': 'float16', 'shape': [1024]}");
	assert_case(&l.v[7], "f", true, "{'dtype': 'float16', 'shape': [2048]}");
	assert_case(&l.v[8], "f", true, "{'dtype': 'float32', 'shape': [1024]}");
	assert_case(&l.v[9], "f", true, "{'dtype': 'float32', 'shape': [2048]}");
	assert_case(&l.v[10], "g", false, "{'dtype': 'float16'}");
	assert_case(&l.v[11], "g", false, "{'dtype': 'float32'}");
	case_list_release(&l);
}

/* An axis named only in bytes, flops, reduce, scale or out_dtype multiplies the cases too. */
static void test_refs_outside_args(void **state)
{
	static const struct {
		const char *field;
		size_t nr;
	} rows[] = {
		{", 'bytes': '4 * $n'", 3},
		{", 'flops': '$n'", 3},
		{", 'reduce': '$n'", 3},
		{", 'scale': '$n'", 3},
		{", 'bytes': 12", 1},
	};
	struct unit_fx *fx = *state;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct strbuf spec = STRBUF_INIT;
		struct case_list l = {0};

		print_message("%s\n", rows[i].field);
		strbuf_addf(&spec, ONE_ENTRY(V_OF("1"), "%s, 'axes': {'n': [1, 2, 3]}"),
			    rows[i].field);
		generate_ok(unit_fx_load(fx, spec.buf), false, 0, &l);
		assert_int_equal(l.nr, rows[i].nr);
		case_list_release(&l);
		strbuf_release(&spec);
	}
}

static void test_seeds(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(fx, grid_spec);
	struct case_list a = {0}, b = {0}, other = {0}, checked_only = {0};

	generate_ok(t, true, 42, &a);
	generate_ok(t, true, 42, &b);
	generate_ok(t, true, 43, &other);
	generate_ok(t, false, 42, &checked_only);
	assert_int_equal(a.nr, b.nr);
	assert_int_equal(a.nr, other.nr);
	for (size_t i = 0; i < a.nr; i++) {
		print_message("case %zu\n", i);
		/* deterministic */
		assert_int_equal(a.v[i].seed, b.v[i].seed);
		/* a different run seed changes every case */
		assert_int_not_equal(a.v[i].seed, other.v[i].seed);
		/* distinct between cases, timed or not, of every entry */
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(a.v[i].seed, a.v[j].seed);
	}
	/* Asking for perf cases does not move the seeds of the checked ones. */
	for (size_t i = 0, j = 0; i < a.nr; i++) {
		if (a.v[i].timed)
			continue;
		assert_int_equal(a.v[i].seed, checked_only.v[j].seed);
		j++;
	}
	case_list_release(&a);
	case_list_release(&b);
	case_list_release(&other);
	case_list_release(&checked_only);
}

/* The task's own seed is folded in. */
static void test_seeds_task_seed(void **state)
{
	struct unit_fx *fx = *state;
	struct case_list a = {0}, b = {0};

	generate_ok(unit_fx_load(fx, ONE_ENTRY(X_SHAPE_DTYPE, ", 'axes': {'shape': [[1], [2]],"
							      " 'dtype': ['float32']}")),
		    false, 7, &a);
	generate_ok(unit_fx_load(fx, "{'schema': 1, 'op': 'foo', 'source': 'aten', 'seed': 1,"
				     " 'entries': [{'name': 'f', 'signature': 'f(x)', 'args': ["
				     X_SHAPE_DTYPE "], 'axes': {'shape': [[1], [2]],"
				     " 'dtype': ['float32']}}]}"),
		    false, 7, &b);
	assert_int_equal(a.nr, 2);
	assert_int_equal(b.nr, 2);
	for (size_t i = 0; i < a.nr; i++)
		assert_int_not_equal(a.v[i].seed, b.v[i].seed);
	case_list_release(&a);
	case_list_release(&b);
}

static void test_descriptor_defaults(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, ONE_ENTRY("{'name': 'a', 'tensor': {'shape': [2], 'dtype': 'float32'}},"
			      " {'name': 'b', 'tensor': {'shape': [2], 'dtype': 'int32'}},"
			      " {'name': 'c', 'tensor': {'shape': [2], 'dtype': 'bool'}},"
			      " {'name': 'd', 'tensor': {'shape': ['$n', 2], 'dtype': 'uint8',"
			      "  'layout': 'strided', 'dist': 'uniform', 'low': 0, 'high': '$n'}},"
			      " {'name': 'e', 'tensors': [{'shape': [1], 'dtype': 'int64'},"
			      "  {'shape': [3], 'dtype': 'bfloat16', 'layout': '$layout'}]},"
			      " {'name': 'f', 'value': '$n', 'keyword': true},"
			      " {'name': 'g', 'dtype': '$dt'}",
			      ", 'axes': {'n': [5], 'layout': ['offset'], 'dt': ['complex64']}"));
	json_t *want = unit_json(
		"[{'name': 'a', 'tensor': {'shape': [2], 'dtype': 'float32',"
		"  'layout': 'contiguous', 'dist': 'normal'}},"
		" {'name': 'b', 'tensor': {'shape': [2], 'dtype': 'int32',"
		"  'layout': 'contiguous', 'dist': 'randint'}},"
		" {'name': 'c', 'tensor': {'shape': [2], 'dtype': 'bool',"
		"  'layout': 'contiguous', 'dist': 'bool'}},"
		" {'name': 'd', 'tensor': {'shape': [5, 2], 'dtype': 'uint8',"
		"  'layout': 'strided', 'dist': 'uniform', 'low': 0, 'high': 5}},"
		" {'name': 'e', 'tensors': ["
		"  {'shape': [1], 'dtype': 'int64', 'layout': 'contiguous', 'dist': 'randint'},"
		"  {'shape': [3], 'dtype': 'bfloat16', 'layout': 'offset', 'dist': 'normal'}]},"
		" {'name': 'f', 'value': 5, 'keyword': true},"
		" {'name': 'g', 'dtype': 'complex64'}]");
	struct case_list l = {0};

	generate_ok(t, false, 0, &l);
	assert_int_equal(l.nr, 1);
	assert_json_equal(l.v[0].args, want);
	json_decref(want);
	case_list_release(&l);
}

/* "cover": "pairwise" replaces the product of the entry's axes; perf cases keep theirs. */
static void test_pairwise_cover(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, ONE_ENTRY("{'name': 'x', 'tensor': {'shape': '$s', 'dtype': '$d',"
			      " 'layout': '$l', 'dist': '$v'}}",
			      ", 'cover': 'pairwise', 'axes': {'s': [[1], [7], [40999]],"
			      " 'd': ['float16', 'bfloat16', 'float32'],"
			      " 'l': ['contiguous', 'strided', 'offset'],"
			      " 'v': ['normal', 'special', 'uniform']},"
			      " 'perf': {'s': [[1024], [2048]], 'l': ['contiguous'], 'v': ['normal']}"));
	static const char *const axes[] = {"s", "d", "l", "v"};
	struct case_list l = {0};
	size_t regular = 0, timed = 0;

	generate_ok(t, true, 0, &l);
	for (size_t i = 0; i < l.nr; i++)
		l.v[i].timed ? timed++ : regular++;
	assert_int_equal(timed, 2 * 3); /* the perf product: s x d */
	assert_true(regular >= 9 && regular <= 12); /* the product would be 81 */
	for (size_t a = 0; a < 4; a++)
		for (size_t b = a + 1; b < 4; b++)
			for (size_t va = 0; va < 3; va++)
				for (size_t vb = 0; vb < 3; vb++) {
					json_t *all = t->entries[0].axes;
					json_t *x = json_array_get(json_object_get(all, axes[a]), va);
					json_t *y = json_array_get(json_object_get(all, axes[b]), vb);
					bool found = false;

					for (size_t i = 0; i < regular && !found; i++)
						found = json_equal(json_object_get(l.v[i].axes, axes[a]), x) &&
							json_equal(json_object_get(l.v[i].axes, axes[b]), y);
					if (!found)
						fail_msg("pair %s=%zu %s=%zu not covered", axes[a], va, axes[b],
							 vb);
				}
	case_list_release(&l);
}

/* An optional argument: `present` false turns it into None; null entries of `tensors` stay. */
static void test_optional_arguments(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, ONE_ENTRY("{'name': 'x', 'tensor': {'shape': [2], 'dtype': 'float16'}},"
			      " {'name': 'bias', 'tensor': {'shape': [2], 'dtype': 'float16'},"
			      "  'present': '$has_bias', 'keyword': true},"
			      " {'name': 'idx', 'tensors': [null, {'shape': [1], 'dtype': 'int64'}]}",
			      ", 'axes': {'has_bias': [true, false]}"));
	json_t *with = unit_json("{'name': 'bias', 'tensor': {'shape': [2], 'dtype': 'float16',"
				 " 'layout': 'contiguous', 'dist': 'normal'}, 'keyword': true}");
	json_t *without = unit_json("{'name': 'bias', 'keyword': true, 'value': null}");
	json_t *idx = unit_json("[null, {'shape': [1], 'dtype': 'int64', 'layout': 'contiguous',"
				" 'dist': 'randint'}]");
	struct case_list l = {0};

	generate_ok(t, false, 0, &l);
	assert_int_equal(l.nr, 2);
	assert_json_equal(json_array_get(l.v[0].args, 1), with);
	assert_json_equal(json_array_get(l.v[1].args, 1), without);
	assert_json_equal(json_object_get(json_array_get(l.v[1].args, 2), "tensors"), idx);
	json_decref(with);
	json_decref(without);
	json_decref(idx);
	case_list_release(&l);
}

/*
 * "inf", "-inf" and "nan" reach the case as the strings they are (the worker makes floats of
 * them), so the case JSON stays valid; memory formats resolve from axes, null included.
 */
static void test_nonfinite_and_memory_format(void **state)
{
	static const char *const want[] = {
		"[{'name': 'p', 'value': 'inf'}, {'name': 'm', 'memory_format': 'channels_last'}]",
		"[{'name': 'p', 'value': 'inf'}, {'name': 'm', 'memory_format': null}]",
		"[{'name': 'p', 'value': '-inf'}, {'name': 'm', 'memory_format': 'channels_last'}]",
		"[{'name': 'p', 'value': '-inf'}, {'name': 'm', 'memory_format': null}]",
		"[{'name': 'p', 'value': 'nan'}, {'name': 'm', 'memory_format': 'channels_last'}]",
		"[{'name': 'p', 'value': 'nan'}, {'name': 'm', 'memory_format': null}]",
		"[{'name': 'p', 'value': 2}, {'name': 'm', 'memory_format': 'channels_last'}]",
		"[{'name': 'p', 'value': 2}, {'name': 'm', 'memory_format': null}]",
	};
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, ONE_ENTRY("{'name': 'p', 'value': '$p'}, {'name': 'm', 'memory_format': '$m'}",
			      ", 'axes': {'p': ['inf', '-inf', 'nan', 2],"
			      " 'm': ['channels_last', null]}"));
	struct case_list l = {0};

	generate_ok(t, false, 0, &l);
	assert_int_equal(l.nr, ARRAY_SIZE(want));
	for (size_t i = 0; i < l.nr; i++) {
		json_t *w = unit_json(want[i]);
		char *line;

		print_message("case %zu\n", i);
		assert_json_equal(l.v[i].args, w);
		json_decref(w);
		/* The whole case still encodes as JSON (no bare inf/NaN number). */
		line = json_dumps(l.v[i].args, JSON_COMPACT);
		assert_non_null(line);
		free(line);
	}
	case_list_release(&l);

	/* An absent memory format (present false) is None, like any optional argument. */
	t = unit_fx_load(fx, ONE_ENTRY("{'name': 'm', 'memory_format': 'channels_last_3d',"
				       " 'present': '$has'}",
				       ", 'axes': {'has': [true, false]}"));
	generate_ok(t, false, 0, &l);
	assert_int_equal(l.nr, 2);
	{
		json_t *with = unit_json("[{'name': 'm', 'memory_format': 'channels_last_3d'}]");
		json_t *without = unit_json("[{'name': 'm', 'value': null}]");

		assert_json_equal(l.v[0].args, with);
		assert_json_equal(l.v[1].args, without);
		json_decref(with);
		json_decref(without);
	}
	case_list_release(&l);
}

static void test_out_dtype(void **state)
{
	static const struct {
		const char *args, *extra;
		const char *want[2];
	} rows[] = {
		/* the first tensor argument's dtype, skipping other kinds */
		{V_OF("1") ", " X_OF("int32") ", {'name': 'y', 'tensor': {'shape': [1],"
					     " 'dtype': 'float16'}}",
		 "", {"int32"}},
		{"{'name': 'xs', 'tensors': [{'shape': [1], 'dtype': 'bfloat16'}]}", "",
		 {"bfloat16"}},
		{X_OF("$dtype"), ", 'axes': {'dtype': ['float16', 'int64']}", {"float16", "int64"}},
		/* no tensor at all */
		{V_OF("1"), "", {"float32"}},
		/* overridden */
		{X_OF("float16"), ", 'out_dtype': 'float64'", {"float64"}},
		{X_OF("float16"), ", 'out_dtype': '$odt', 'axes': {'odt': ['bool', 'complex128']}",
		 {"bool", "complex128"}},
		{X_OF("float16"), ", 'out_dtype': '$p.out', 'axes': {'p': [{'out': 'int8'}]}",
		 {"int8"}},
	};
	struct unit_fx *fx = *state;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct strbuf spec = STRBUF_INIT;
		struct case_list l = {0};
		size_t n = rows[i].want[1] ? 2 : 1;

		print_message("%s %s\n", rows[i].args, rows[i].extra);
		strbuf_addf(&spec, ONE_ENTRY("%s", "%s"), rows[i].args, rows[i].extra);
		generate_ok(unit_fx_load(fx, spec.buf), false, 0, &l);
		assert_int_equal(l.nr, n);
		for (size_t k = 0; k < n; k++)
			assert_string_equal(l.v[k].out_dtype, rows[i].want[k]);
		case_list_release(&l);
		strbuf_release(&spec);
	}
}

static void test_tolerance_filled(void **state)
{
	static const struct {
		const char *dtype;
		double k, s;
	} want[] = {
		{"float16", 1, 0.5}, {"float16", 1, 3}, {"float16", 100, 0.5}, {"float16", 100, 3},
		{"int32", 1, 0.5},   {"int32", 1, 3},	{"int32", 100, 0.5},   {"int32", 100, 3},
	};
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, ONE_ENTRY(X_OF("$dtype"),
			      ", 'reduce': '$k', 'scale': '$s',"
			      " 'tolerance': {'atol': 2, 'rtol': 3},"
			      " 'axes': {'dtype': ['float16', 'int32'], 'k': [1, 100],"
			      " 's': [0.5, 3]}"));
	struct case_list l = {0};

	generate_ok(t, false, 0, &l);
	assert_int_equal(l.nr, ARRAY_SIZE(want));
	for (size_t i = 0; i < l.nr; i++) {
		struct tolerance tol;

		print_message("case %zu\n", i);
		assert_string_equal(l.v[i].out_dtype, want[i].dtype);
		assert_float_equal(l.v[i].reduce, want[i].k, 0);
		assert_float_equal(l.v[i].scale, want[i].s, 0);
		assert_int_equal(tolerance_compute(want[i].dtype, want[i].k, want[i].s, 2, 3, &tol),
				 0);
		assert_float_equal(l.v[i].tol.atol, tol.atol, 0);
		assert_float_equal(l.v[i].tol.rtol, tol.rtol, 0);
	}
	/* integer outputs are exact; float ones are not */
	assert_float_equal(l.v[4].tol.atol, 0, 0);
	assert_true(l.v[0].tol.atol > 0 && l.v[0].tol.rtol > 0);
	case_list_release(&l);
}

static void test_tolerance_defaults(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, ONE_ENTRY("{'name': 'x', 'tensor': {'shape': [4], 'dtype': 'float32'}}", ""));
	struct case_list l = {0};
	struct tolerance tol;

	generate_ok(t, false, 0, &l);
	assert_float_equal(l.v[0].reduce, 1, 0);
	assert_float_equal(l.v[0].scale, 1, 0);
	assert_int_equal(tolerance_compute("float32", 1, 1, 1, 1, &tol), 0);
	assert_float_equal(l.v[0].tol.atol, tol.atol, 0);
	assert_float_equal(l.v[0].tol.rtol, tol.rtol, 0);
	case_list_release(&l);
}

static void test_cost_model(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, "{'schema': 1, 'op': 'foo', 'source': 'aten',"
		    " 'axes': {'shape': [[2, 3], [10]], 'dtype': ['float16']},"
		    " 'entries': ["
		    "  {'name': 'f', 'signature': 'f(x)', 'args': [" X_SHAPE_DTYPE "],"
		    "   'bytes': '2 * numel($shape) * itemsize($dtype)',"
		    "   'flops': 'numel($shape) / 4'},"
		    "  {'name': 'g', 'signature': 'g(x)', 'args': [" X_SHAPE_DTYPE "], 'flops': 7},"
		    "  {'name': 'h', 'signature': 'h(x)', 'args': [" X_SHAPE_DTYPE "]}]}");
	struct case_list l = {0};

	generate_ok(t, false, 0, &l);
	assert_int_equal(l.nr, 6);
	assert_float_equal(l.v[0].bytes, 24, 0);
	assert_float_equal(l.v[0].flops, 1.5, 0);
	assert_float_equal(l.v[1].bytes, 40, 0);
	assert_float_equal(l.v[1].flops, 2.5, 0);
	/* a number is taken as is; no cost model is < 0 */
	assert_true(l.v[2].bytes < 0);
	assert_float_equal(l.v[2].flops, 7, 0);
	assert_true(l.v[4].bytes < 0);
	assert_true(l.v[4].flops < 0);
	case_list_release(&l);
}

/* A spec with axes a (na values) and b (nb values), both used, and perf over b. */
static char *grid_of(size_t na, size_t nb, size_t nperf)
{
	json_t *spec = unit_json(
		ONE_ENTRY("{'name': 'x', 'value': '$a'}, {'name': 'y', 'value': '$b'}",
			  ", 'axes': {'a': [], 'b': []}, 'perf': {'b': []}"));
	json_t *e = json_array_get(json_object_get(spec, "entries"), 0);
	json_t *axes = json_object_get(e, "axes"), *perf = json_object_get(e, "perf");
	char *text;

	for (size_t i = 0; i < na; i++)
		json_array_append_new(json_object_get(axes, "a"), json_integer((json_int_t)i));
	for (size_t i = 0; i < nb; i++)
		json_array_append_new(json_object_get(axes, "b"), json_integer((json_int_t)i));
	for (size_t i = 0; i < nperf; i++)
		json_array_append_new(json_object_get(perf, "b"), json_integer((json_int_t)i));
	text = json_dumps(spec, JSON_COMPACT);
	json_decref(spec);
	return text;
}

static void test_too_many_cases(void **state)
{
	static const struct {
		size_t na, nb, nperf;
		bool with_perf;
		int want;
		const char *msg;
	} rows[] = {
		{64, 64, 1, true, 0, NULL}, /* 4096: the limit itself */
		{65, 64, 1, true, -E2BIG, "entries[0]: more than 4096 cases; cut the grid"},
		{4097, 1, 1, false, -E2BIG, "entries[0]: more than 4096 cases"},
		/* the perf grid has its own limit, checked only when perf cases are asked for */
		{64, 1, 65, false, 0, NULL},
		{64, 1, 65, true, -E2BIG, "entries[0].perf: more than 4096 cases"},
	};
	struct unit_fx *fx = *state;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *spec = grid_of(rows[i].na, rows[i].nb, rows[i].nperf);
		const struct task *t = unit_fx_load(fx, spec);
		struct case_list l = {0};
		struct strbuf err = STRBUF_INIT;
		int r;

		print_message("%zu x %zu, perf %zu%s\n", rows[i].na, rows[i].nb, rows[i].nperf,
			      rows[i].with_perf ? " (with perf)" : "");
		r = cases_generate(t, rows[i].with_perf, 0, &l, &err);
		assert_int_equal(r, rows[i].want);
		if (r == 0) {
			size_t nperf = rows[i].with_perf ? rows[i].na * rows[i].nperf : 0;

			assert_int_equal(l.nr, rows[i].na * rows[i].nb + nperf);
		} else {
			assert_contains(err.buf, rows[i].msg);
			/* nothing handed out on failure */
			assert_int_equal(l.nr, 0);
			assert_null(l.v);
		}
		case_list_release(&l);
		strbuf_release(&err);
		free(spec);
	}
}

/* A pairwise-covered spec: value arguments a0.. over axes of `values` values each. */
static char *cover_grid_of(size_t naxes, size_t values)
{
	json_t *spec = unit_json(ONE_ENTRY("", ", 'cover': 'pairwise', 'axes': {}"));
	json_t *e = json_array_get(json_object_get(spec, "entries"), 0);
	json_t *args = json_object_get(e, "args"), *axes = json_object_get(e, "axes");
	char *text;

	for (size_t k = 0; k < naxes; k++) {
		char name[24], ref[26];
		json_t *vals = json_array();

		snprintf(name, sizeof(name), "a%zu", k);
		snprintf(ref, sizeof(ref), "$a%zu", k);
		json_array_append_new(args, json_pack("{s:s, s:s}", "name", name, "value", ref));
		for (size_t v = 0; v < values; v++)
			json_array_append_new(vals, json_integer((json_int_t)v));
		json_object_set_new(axes, name, vals);
	}
	text = json_dumps(spec, JSON_COMPACT);
	json_decref(spec);
	return text;
}

/*
 * A covering array too large to build is refused before it is built (issue 36: two 1,000-value
 * axes ran for minutes, 40,000 values took 1.6 GB): by its least row count, or by its cost.
 */
static void test_cover_refused_before_built(void **state)
{
	static const struct {
		size_t naxes, values;
		int want;
		const char *msg;
	} rows[] = {
		{4, 16, 0, NULL},
		{2, 1000, -E2BIG, "more than 4096 cases even when covering pairs (its two largest "
				  "axes alone need 1000000)"},
		{2, 40000, -E2BIG, "its two largest axes alone need 1600000000"},
		{64, 64, -E2BIG, "covering the pairs of 64 axes could take up to"},
	};
	struct unit_fx *fx = *state;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *spec = cover_grid_of(rows[i].naxes, rows[i].values);
		const struct task *t = unit_fx_load(fx, spec);
		struct case_list l = {0};
		struct strbuf err = STRBUF_INIT;
		int r = cases_generate(t, false, 0, &l, &err);

		print_message("%zu axes of %zu values: %d %s\n", rows[i].naxes, rows[i].values, r,
			      err.buf);
		assert_int_equal(r, rows[i].want);
		if (rows[i].msg)
			assert_contains(err.buf, rows[i].msg);
		case_list_release(&l);
		strbuf_release(&err);
		free(spec);
	}
}

/*
 * A cover's cost bounds its build by the rows the greedy construction may reach, not by the
 * fewest rows any cover has (issue 36, found by fuzz-cover): 1,000 two-value axes need at least
 * 4 rows and were costed at 1.6e7 steps, so they were built: 527 rows, in 4.5 s (optimised
 * build; 30 s under the sanitizers). One list-valued argument references every axis.
 */
static void test_cover_cost_bounds_its_rows(void **state)
{
	json_t *spec = unit_json(ONE_ENTRY("{'name': 'v', 'value': []}",
					   ", 'cover': 'pairwise', 'axes': {}"));
	json_t *e = json_array_get(json_object_get(spec, "entries"), 0);
	json_t *value = json_object_get(json_array_get(json_object_get(e, "args"), 0), "value");
	struct unit_fx *fx = *state;
	struct case_list l = {0};
	struct strbuf err = STRBUF_INIT;
	const struct task *t;
	char *text;
	int r;

	for (size_t k = 0; k < 1000; k++) {
		char name[24], ref[26];

		snprintf(name, sizeof(name), "a%zu", k);
		snprintf(ref, sizeof(ref), "$a%zu", k);
		json_array_append_new(value, json_string(ref));
		json_object_set_new(json_object_get(e, "axes"), name, json_pack("[i, i]", 0, 1));
	}
	text = json_dumps(spec, JSON_COMPACT);
	t = unit_fx_load(fx, text);
	r = cases_generate(t, false, 0, &l, &err);
	print_message("%d %s\n", r, err.buf);
	assert_int_equal(r, -E2BIG);
	assert_contains(err.buf, "covering the pairs of 1000 axes could take up to");
	case_list_release(&l);
	strbuf_release(&err);
	json_decref(spec);
	free(text);
}

/* Tensor x over $shape and $dtype with these axes; int8 tensor x with one more field. */
#define X_AXES(axes) ONE_ENTRY(X_SHAPE_DTYPE, ", 'axes': {" axes "}")
#define X_FIELD(field, axes)                                                                    \
	ONE_ENTRY("{'name': 'x', 'tensor': {'shape': [1], 'dtype': 'int8', " field "}}",       \
		  ", 'axes': {" axes "}")

/* Values only known after substitution are validated per case, with the case in the message. */
static void test_invalid_cases(void **state)
{
	static const struct {
		const char *what, *spec;
		bool with_perf;
		int want;
		const char *msg;
	} rows[] = {
		{"shape not a list", X_AXES("'shape': [[2], 3, [4]], 'dtype': ['int8']"), false,
		 -EINVAL,
		 "entries[0] case 1: shape: expected a list of integers after substitution "
		 "(argument 'x')"},
		{"perf shape not a list",
		 ONE_ENTRY(X_SHAPE_DTYPE, ", 'axes': {'shape': [[2]], 'dtype': ['int8']},"
					  " 'perf': {'shape': [[2], 'big']}"),
		 true, -EINVAL, "entries[0].perf case 1: shape: expected a list of integers"},
		{"second entry",
		 "{'schema': 1, 'op': 'foo', 'source': 'aten',"
		 " 'axes': {'shape': [[1], [2, 'a']], 'dtype': ['int8']}, 'entries': ["
		 "{'name': 'f', 'signature': 'f(x)', 'args': [" V_OF("1") "]},"
		 "{'name': 'g', 'signature': 'g(x)', 'args': [" X_SHAPE_DTYPE "]}]}",
		 false, -EINVAL, "entries[1] case 1: shape[1]: expected a non-negative integer"},
		{"negative dim", X_AXES("'shape': [[2, -1]], 'dtype': ['int8']"), false, -EINVAL,
		 "entries[0] case 0: shape[1]: expected a non-negative integer"},
		{"bad dtype value", X_AXES("'shape': [[2]], 'dtype': ['float32', 'half']"), false,
		 -EINVAL,
		 "entries[0] case 1: dtype: expected a dtype name after substitution "
		 "(argument 'x')"},
		{"bad layout value", X_FIELD("'layout': '$l'", "'l': ['tiled']"), false, -EINVAL,
		 "entries[0] case 0: layout: expected a layout name"},
		{"bad dist value", X_FIELD("'dist': '$d'", "'d': ['ones', 7]"), false, -EINVAL,
		 "entries[0] case 1: dist: expected a distribution name"},
		{"scale not a number", X_FIELD("'scale': '$s'", "'s': [[1]]"), false, -EINVAL,
		 "entries[0] case 0: scale: expected a number after substitution"},
		{"tensors not a list",
		 ONE_ENTRY("{'name': 'xs', 'tensors': '$t'}", ", 'axes': {'t': [3]}"), false,
		 -EINVAL, "entries[0] case 0: tensors: expected a list after substitution"},
		{"tensors of non-objects",
		 ONE_ENTRY("{'name': 'xs', 'tensors': '$t'}", ", 'axes': {'t': [[1]]}"), false,
		 -EINVAL,
		 "entries[0] case 0: tensors: expected descriptor objects or null (argument 'xs')"},
		{"present not a boolean",
		 ONE_ENTRY("{'name': 'b', 'tensor': {'shape': [1], 'dtype': 'float32'},"
			   " 'present': '$p'}", ", 'axes': {'p': [1]}"),
		 false, -EINVAL,
		 "entries[0] case 0: present: expected true or false after substitution "
		 "(argument 'b')"},
		{"bad dtype arg",
		 ONE_ENTRY("{'name': 'd', 'dtype': '$d'}", ", 'axes': {'d': ['f8']}"), false,
		 -EINVAL,
		 "entries[0] case 0: dtype: expected a dtype name or null after substitution "
		 "(argument 'd')"},
		{"bad memory format value",
		 ONE_ENTRY("{'name': 'm', 'memory_format': '$m'}",
			   ", 'axes': {'m': [null, 'channels_first']}"),
		 false, -EINVAL,
		 "entries[0] case 1: memory_format: expected a memory format name or null after "
		 "substitution (argument 'm')"},
		{"memory format from a number",
		 ONE_ENTRY("{'name': 'm', 'memory_format': '$m'}", ", 'axes': {'m': [1]}"), false,
		 -EINVAL, "entries[0] case 0: memory_format: expected a memory format name"},
		{"bad bit value", X_FIELD("'bit': '$b'", "'b': ['neg', 'imag']"), false, -EINVAL,
		 "entries[0] case 1: bit: expected none, conj or neg after substitution (argument 'x')"},
		{"negative bit on bool",
		 ONE_ENTRY("{'name': 'x', 'tensor': {'shape': [1], 'dtype': '$d', 'bit': 'neg'}}",
			   ", 'axes': {'d': ['int8', 'bool']}"),
		 false, -EINVAL, "entries[0] case 1: bit: neg needs a numeric dtype, not bool"},
		{"inf as a distribution bound", X_FIELD("'low': '$s'", "'s': [0, 'inf']"), false,
		 -EINVAL,
		 "entries[0] case 1: low: expected a finite number after substitution, got 'inf' "
		 "(argument 'x')"},
		{"nan as a scale", X_FIELD("'scale': 'nan'", "'s': [0]"), false, -EINVAL,
		 "entries[0] case 0: scale: expected a finite number after substitution, got 'nan'"},
		{"expression error in args", ONE_ENTRY(V_OF("'$n // 0'"), ", 'axes': {'n': [1]}"),
		 false, -EINVAL, "entries[0] case 0: division by zero"},
		{"reduce not a number",
		 ONE_ENTRY(V_OF("1"), ", 'reduce': '$n', 'axes': {'n': [[4]]}"), false, -EINVAL,
		 "entries[0] case 0: expression does not give a number (reduce)"},
		{"bytes expression error",
		 ONE_ENTRY(V_OF("'$n'"), ", 'bytes': 'numel($n)', 'axes': {'n': [2]}"), false,
		 -EINVAL, "numel() takes one list"},
		{"bad out_dtype value",
		 ONE_ENTRY(V_OF("1"), ", 'out_dtype': '$o', 'axes': {'o': ['half']}"), false,
		 -EINVAL,
		 "entries[0] case 0: out_dtype: expected a dtype name after substitution"},
		{"zero scale", ONE_ENTRY(V_OF("1"), ", 'scale': 0"), false, -EINVAL,
		 "entries[0] case 0: tolerance: bad inputs"},
		/* dist choice: integer dtype, a list of integers, fields that fit */
		{"choice on a float",
		 ONE_ENTRY("{'name': 'x', 'tensor': {'shape': [1], 'dtype': 'float32',"
			   " 'dist': 'choice', 'values': [1]}}",
			   ""),
		 false, -EINVAL, "entries[0] case 0: dist: choice needs an integer dtype, got float32"},
		{"choice without values", X_FIELD("'dist': 'choice', 'values': '$v'", "'v': [[]]"),
		 false, -EINVAL,
		 "entries[0] case 0: values: expected a non-empty list of integers for dist choice"},
		{"choice of a non-integer", X_FIELD("'dist': 'choice', 'values': [1, 2.5]", "'v': [0]"),
		 false, -EINVAL, "entries[0] case 0: values: element 1: expected an integer"},
		{"field_bits not dividing",
		 X_FIELD("'dist': 'choice', 'values': [1], 'field_bits': 3", "'v': [0]"), false,
		 -EINVAL, "field_bits: expected a divisor of 8 (the bits of int8)"},
		{"value wider than its field",
		 X_FIELD("'dist': 'choice', 'values': [4, 16], 'field_bits': 4", "'v': [0]"), false,
		 -EINVAL, "values: element 1: 16 does not fit in 4 unsigned bits"},
		{"values without choice", X_FIELD("'values': [1]", "'v': [0]"), false, -EINVAL,
		 "values, field_bits: only with dist choice"},
		{"too many elements", X_AXES("'shape': [[17179869184, 2]], 'dtype': ['int8']"),
		 false, -E2BIG, "entries[0] case 0: shape: more than 17179869184 elements"},
		/* a product past 64 bits is over the limit too, not undefined behaviour */
		{"numel overflow",
		 X_AXES("'shape': [[17179869184, 17179869184, 8]], 'dtype': ['int8']"), false,
		 -E2BIG, "entries[0] case 0: shape: more than 17179869184 elements"},
	};
	struct unit_fx *fx = *state;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct task *t;
		struct case_list l = {0};
		struct strbuf err = STRBUF_INIT;

		print_message("%s\n", rows[i].what);
		t = unit_fx_load(fx, rows[i].spec);
		assert_int_equal(cases_generate(t, rows[i].with_perf, 0, &l, &err), rows[i].want);
		assert_contains(err.buf, rows[i].msg);
		assert_int_equal(l.nr, 0);
		assert_null(l.v);
		strbuf_release(&err);
	}
}

static void test_axes_summary(void **state)
{
	json_t *axes = unit_json("{'shape': [40999], 'dtype': 'float16', 'layout': 'strided',"
				 " 'pair': {'a': 1}}");
	char *s = cases_axes_summary(axes);

	(void)state;
	assert_string_equal(s, "shape=[40999] dtype=float16 layout=strided pair={\"a\":1}");
	free(s);
	json_decref(axes);
	axes = json_object();
	s = cases_axes_summary(axes);
	assert_string_equal(s, "");
	free(s);
	json_decref(axes);
}

/*
 * Held-out cases: an entry's heldout axes, then CASES_RESEEDED of its regular cases with drawn
 * inputs again under a seed no public case has, chosen by the run seed; a task's heldout axes
 * apply to the entries that use them.
 */
static void test_heldout_cases(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(fx,
		"{'schema': 1, 'op': 'foo', 'source': 'aten',"
		" 'axes': {'dtype': ['float16', 'float32'], 'shape': [[2], [3], [4]]},"
		" 'heldout': {'shape': [[9]]}, 'entries': ["
		"  {'name': 'f', 'signature': 'f(x)', 'args': [" X_SHAPE_DTYPE "],"
		"   'heldout': {'shape': [[5]]}},"
		"  {'name': 'g', 'signature': 'g(x)', 'args': [" X_SHAPE_DTYPE "]},"
		"  {'name': 'h', 'signature': 'h(x)',"
		"   'args': [{'name': 'x', 'tensor': {'shape': [5], 'dtype': '$dtype', 'dist': 'ones'}}]}"
		" ]}");
	struct case_list l = {0}, l2 = {0}, l3 = {0};
	struct strbuf err = STRBUF_INIT;
	size_t pub = 0, axes_held = 0, reseeded = 0;

	generate_ok(t, false, 0, &l);
	assert_int_equal(l.nr, 6 + 6 + 2);
	for (size_t i = 0; i < l.nr; i++)
		assert_false(l.v[i].heldout);
	case_list_release(&l);
	assert_int_equal(cases_generate(t, CASES_HELDOUT, 7, &l, &err), 0);
	/* f: 6 + 2 of shape [5] (its own heldout replaces the task's) + 2 reseeded; g: 6 + 2 of
	 * [9] + 2; h (ones, nothing drawn, no shape axis): 2 and nothing held out. */
	assert_int_equal(l.nr, 10 + 10 + 2);
	assert_case(&l.v[6], "f", false, "{'dtype': 'float16', 'shape': [5]}");
	assert_case(&l.v[16], "g", false, "{'dtype': 'float16', 'shape': [9]}");
	for (size_t i = 0; i < l.nr; i++) {
		const struct case_desc *c = &l.v[i];

		pub += !c->heldout;
		axes_held += c->heldout && !c->reseeded;
		reseeded += c->reseeded;
		assert_true(!c->reseeded || c->heldout);
		if (!c->reseeded)
			continue;
		/* A public case's axes and arguments again, under another seed. */
		{
			bool found = false;

			for (size_t k = 0; k < l.nr; k++) {
				if (l.v[k].heldout || l.v[k].entry_idx != c->entry_idx ||
				    !json_equal(l.v[k].axes, c->axes))
					continue;
				found = true;
				assert_true(json_equal(l.v[k].args, c->args));
				assert_true(l.v[k].seed != c->seed);
			}
			assert_true(found);
		}
	}
	assert_int_equal(pub, 14);
	assert_int_equal(axes_held, 4);
	assert_int_equal(reseeded, 4);
	/* The same run seed picks the same cases; the picks follow the seed, not the grid order. */
	assert_int_equal(cases_generate(t, CASES_HELDOUT, 7, &l2, &err), 0);
	for (size_t i = 0; i < l.nr; i++) {
		assert_true(json_equal(l.v[i].axes, l2.v[i].axes));
		assert_true(l.v[i].seed == l2.v[i].seed);
	}
	{
		bool differ = false;

		for (unsigned long long s = 8; s < 40 && !differ; s++) {
			case_list_release(&l3);
			assert_int_equal(cases_generate(t, CASES_HELDOUT, s, &l3, &err), 0);
			differ = !json_equal(l.v[8].axes, l3.v[8].axes);
		}
		assert_true(differ);
	}
	case_list_release(&l);
	case_list_release(&l2);
	case_list_release(&l3);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
	unit_test_fx(test_product_and_order),
	unit_test_fx(test_perf_cases),
	unit_test_fx(test_heldout_cases),
	unit_test_fx(test_refs_outside_args),
	unit_test_fx(test_seeds),
	unit_test_fx(test_seeds_task_seed),
	unit_test_fx(test_descriptor_defaults),
	unit_test_fx(test_out_dtype),
	unit_test_fx(test_tolerance_filled),
	unit_test_fx(test_tolerance_defaults),
	unit_test_fx(test_cost_model),
	unit_test_fx(test_too_many_cases),
	unit_test_fx(test_invalid_cases),
	cmocka_unit_test(test_axes_summary),
	unit_test_fx(test_optional_arguments),
	unit_test_fx(test_pairwise_cover),
	unit_test_fx(test_cover_refused_before_built),
	unit_test_fx(test_cover_cost_bounds_its_rows),
	unit_test_fx(test_nonfinite_and_memory_format),
};

UNIT_MAIN(tests)
