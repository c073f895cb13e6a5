/* t-catalog.c - loading and validating tasks/<source>/<op>/task.json (docs/task-format.md). */
#include "unit.h"

#include <ctype.h>

/* Building blocks of specs, in single quotes (unit_sq). */
#define TOP "'schema': 1, 'op': 'foo', 'source': 'aten'"
#define ARG_X "{'name': 'x', 'tensor': {'shape': [2], 'dtype': 'float32'}}"
#define ENTRY(args, extra) "{'name': 'f', 'signature': 'f(x)', 'args': [" args "]" extra "}"
#define SPEC_TOP(top, entries) "{" top ", 'entries': [" entries "]}"
#define SPEC(entries) SPEC_TOP(TOP, entries)
#define TENSOR(desc) "{'name': 'x', 'tensor': {" desc "}}"

static const char valid_spec[] =
	"{'schema': 1, 'op': 'foo', 'source': 'aten', 'platforms': ['cuda'], 'seed': 7,"
	" 'axes': {'dtype': ['float16', 'float32'], 'shape': [[1], [2]]},"
	" 'entries': ["
	"  {'name': 'f', 'signature': 'f(Tensor x, *, Scalar alpha) -> Tensor',"
	"   'args': [{'name': 'x', 'tensor': {'shape': '$shape', 'dtype': '$dtype'}},"
	"            {'name': 'alpha', 'value': '$alpha', 'keyword': true}],"
	"   'axes': {'shape': [[3], [4]], 'alpha': [1, 2]},"
	"   'perf': {'shape': [[1024]]},"
	"   'mutates': ['x'], 'returns': 'x', 'reference_precision': 'native',"
	"   'reduce': '$shape[0]', 'scale': 2, 'bytes': 'numel($shape)', 'flops': 2,"
	"   'out_dtype': 'float64', 'tolerance': {'atol': 2, 'rtol': 0.5}},"
	"  {'name': 'g', 'signature': 'g(Tensor x) -> Tensor',"
	"   'args': [{'name': 'x', 'tensor': {'shape': [2], 'dtype': 'float32'}}]}"
	" ]}";

/* Fails unless the object's keys are exactly `keys`, in that order. */
static void assert_keys(json_t *obj, const char *const *keys, size_t n)
{
	const char *key;
	json_t *v;
	size_t i = 0;

	assert_true(json_is_object(obj));
	assert_int_equal(json_object_size(obj), n);
	json_object_foreach(obj, key, v) {
		assert_string_equal(key, keys[i]);
		i++;
	}
}

static void test_valid_task(void **state)
{
	static const char *const merged_keys[] = {"dtype", "shape", "alpha"};
	static const char *const shared_keys[] = {"dtype", "shape"};
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(fx, valid_spec);
	const struct task_entry *f, *g;
	char *dir = path_join(fx->root, "aten/foo"), *abs = path_abs(dir), *p;
	json_t *want;

	assert_int_equal(fx->errs.len, 0);
	assert_int_equal(fx->cat->nr_tasks, 1);
	assert_string_equal(t->op, "foo");
	assert_string_equal(t->source, "aten");
	assert_string_equal(t->kind, "compute");
	assert_string_equal(t->dir, abs);
	assert_int_equal(t->seed, 7);
	assert_true(task_supports_platform(t, "cuda"));
	assert_false(task_supports_platform(t, "interpreter"));
	p = task_path(t, "reference.py");
	assert_true(path_is_file(p));
	free(p);
	assert_int_equal(t->nr_entries, 2);

	f = &t->entries[0];
	assert_string_equal(f->name, "f");
	assert_string_equal(f->signature, "f(Tensor x, *, Scalar alpha) -> Tensor");
	assert_int_equal(json_array_size(f->args), 2);
	/* Shared axes first, in spec order; the entry's replace theirs and add new ones. */
	want = unit_json("{'dtype': ['float16', 'float32'], 'shape': [[3], [4]], 'alpha': [1, 2]}");
	assert_json_equal(f->axes, want);
	assert_keys(f->axes, merged_keys, ARRAY_SIZE(merged_keys));
	json_decref(want);
	/* perf is laid over the merged axes. */
	want = unit_json("{'dtype': ['float16', 'float32'], 'shape': [[1024]], 'alpha': [1, 2]}");
	assert_json_equal(f->perf_axes, want);
	assert_keys(f->perf_axes, merged_keys, ARRAY_SIZE(merged_keys));
	json_decref(want);
	want = unit_json("['x']");
	assert_json_equal(f->mutates, want);
	json_decref(want);
	assert_string_equal(json_string_value(f->returns), "x");
	assert_string_equal(f->reference_precision, "native");
	assert_string_equal(json_string_value(f->reduce), "$shape[0]");
	assert_int_equal(json_integer_value(f->scale), 2);
	assert_string_equal(json_string_value(f->bytes), "numel($shape)");
	assert_int_equal(json_integer_value(f->flops), 2);
	assert_string_equal(json_string_value(f->out_dtype), "float64");
	assert_float_equal(f->atol_mult, 2, 0);
	assert_float_equal(f->rtol_mult, 0.5, 0);

	/* Defaults. */
	g = &t->entries[1];
	assert_string_equal(g->name, "g");
	want = unit_json("{'dtype': ['float16', 'float32'], 'shape': [[1], [2]]}");
	assert_json_equal(g->axes, want);
	assert_keys(g->axes, shared_keys, ARRAY_SIZE(shared_keys));
	json_decref(want);
	assert_null(g->perf_axes);
	assert_true(json_is_array(g->mutates));
	assert_int_equal(json_array_size(g->mutates), 0);
	assert_string_equal(json_string_value(g->returns), "value");
	assert_string_equal(g->reference_precision, "float64");
	assert_null(g->reduce);
	assert_null(g->scale);
	assert_null(g->bytes);
	assert_null(g->flops);
	assert_null(g->out_dtype);
	assert_float_equal(g->atol_mult, 1, 0);
	assert_float_equal(g->rtol_mult, 1, 0);
	free(abs);
	free(dir);
}

static void test_defaults_top_level(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(fx, SPEC(ENTRY(ARG_X, "")));

	assert_string_equal(t->kind, "compute");
	assert_null(t->platforms);
	assert_true(task_supports_platform(t, "interpreter"));
	assert_true(task_supports_platform(t, "cuda"));
	assert_int_equal(t->seed, 0);
	/* No axes anywhere: an empty object, not NULL. */
	assert_true(json_is_object(t->entries[0].axes));
	assert_int_equal(json_object_size(t->entries[0].axes), 0);
}

static void assert_hex64(const char *s)
{
	assert_int_equal(strlen(s), HASH_HEX_LEN);
	for (const char *p = s; *p; p++)
		if (!isxdigit((unsigned char)*p) || isupper((unsigned char)*p))
			fail_msg("'%s' is not lowercase hex", s);
}

static void test_version_hash(void **state)
{
	static const struct {
		const char *file, *text;
		bool changes;
	} rows[] = {
		/* the shipped solution is a candidate, not part of the task */
		{"solution.py", "def f(x):\n    return x + 0\n", false},
		{"reference.py", "import torch\n\ndef f(x):\n    return x * 1\n", true},
		{"prompt.md", "Returns its input, unchanged.\n", true},
		{"task.json", NULL, true},
	};
	struct unit_fx *fx = *state;
	char *dir = path_join(fx->root, "aten/foo");
	char before[HASH_HEX_LEN + 1];

	snprintf(before, sizeof(before), "%s", unit_fx_load(fx, valid_spec)->version);
	assert_hex64(before);
	/* Loading again gives the same version. */
	assert_int_equal(unit_fx_reload(fx), 0);
	assert_string_equal(catalog_find(fx->cat, "foo")->version, before);

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *after;

		print_message("%s\n", rows[i].file);
		if (rows[i].text) {
			unit_write_file(dir, rows[i].file, rows[i].text);
		} else {
			/* the same spec with one more space */
			struct strbuf sb = STRBUF_INIT;
			char *spec = unit_sq(valid_spec);

			strbuf_addf(&sb, " %s", spec);
			unit_write_file(dir, rows[i].file, sb.buf);
			strbuf_release(&sb);
			free(spec);
		}
		if (unit_fx_reload(fx) != 0)
			fail_msg("%s", fx->errs.buf);
		after = catalog_find(fx->cat, "foo")->version;
		assert_hex64(after);
		if (rows[i].changes)
			assert_string_not_equal(after, before);
		else
			assert_string_equal(after, before);
		snprintf(before, sizeof(before), "%s", after);
	}
	free(dir);
}

static const struct {
	const char *what;
	const char *spec; /* single-quoted; written verbatim otherwise */
	const char *want; /* a line of errs has this and the task.json path */
	const char *op_dir;  /* directory name; "foo" when NULL */
	const char *remove;  /* a task file to delete */
} invalid_rows[] = {
	{"invalid JSON", "{'schema': 1,\n 'op': 'foo',,\n}", "task.json:2:14: invalid JSON"},
	{"duplicate key", "{'schema': 1, 'schema': 1}", "invalid JSON: duplicate object key"},
	{"not an object", "[1]", "task.json: (top): expected an object, got a list"},
	{"schema 2", SPEC_TOP("'schema': 2, 'op': 'foo', 'source': 'aten'", ENTRY(ARG_X, "")),
	 "task.json: schema: expected 1"},
	{"no schema", SPEC_TOP("'op': 'foo', 'source': 'aten'", ENTRY(ARG_X, "")),
	 "task.json: schema: expected 1"},
	{"op not a string", SPEC_TOP("'schema': 1, 'op': 3, 'source': 'aten'", ENTRY(ARG_X, "")),
	 "task.json: op: expected a string"},
	{"op not matching dir", SPEC(ENTRY(ARG_X, "")),
	 "task.json: op: 'foo' does not match the directory name 'bar'", "bar"},
	{"source not matching dir", SPEC_TOP("'schema': 1, 'op': 'foo', 'source': 'vllm'",
					     ENTRY(ARG_X, "")),
	 "task.json: source: 'vllm' does not match the directory 'aten'"},
	{"unknown source",
	 SPEC_TOP("'schema': 1, 'op': 'foo', 'source': 'torch'", ENTRY(ARG_X, "")),
	 "task.json: source: expected one of aten, vllm, cublas"},
	{"unknown top-level field", SPEC_TOP(TOP ", 'extra': 1", ENTRY(ARG_X, "")),
	 "task.json: extra: unknown field (expected one of schema, op, source"},
	{"bad kind", SPEC_TOP(TOP ", 'kind': 'magic'", ENTRY(ARG_X, "")),
	 "task.json: kind: expected one of compute, view"},
	{"bad platform", SPEC_TOP(TOP ", 'platforms': ['cuda', 'tpu']", ENTRY(ARG_X, "")),
	 "task.json: platforms: element 1: expected one of cuda, interpreter"},
	{"platforms not a list", SPEC_TOP(TOP ", 'platforms': 'cuda'", ENTRY(ARG_X, "")),
	 "task.json: platforms: expected a list of platform names"},
	{"seed not an integer", SPEC_TOP(TOP ", 'seed': 1.5", ENTRY(ARG_X, "")),
	 "task.json: seed: expected an integer"},
	{"allow not a list", SPEC_TOP(TOP ", 'allow': 'torch.ops'", ENTRY(ARG_X, "")),
	 "task.json: allow: expected a list of names the static scan allows"},
	{"allow with a non-string", SPEC_TOP(TOP ", 'allow': ['sum', 3]", ENTRY(ARG_X, "")),
	 "task.json: allow: element 1: expected a non-empty string"},
	{"allow with an empty string", SPEC_TOP(TOP ", 'allow': ['']", ENTRY(ARG_X, "")),
	 "task.json: allow: element 0: expected a non-empty string"},
	{"no entries", "{" TOP "}", "task.json: entries: expected a non-empty list of entries"},
	{"empty entries", SPEC(""), "task.json: entries: expected a non-empty list of entries"},
	{"entry not an object", SPEC("1"),
	 "task.json: entries[0]: expected an object, got an integer"},
	{"entry without name", SPEC("{'signature': 'f()', 'args': [" ARG_X "]}"),
	 "task.json: entries[0]: 'name': expected a Python identifier"},
	{"entry name not an identifier",
	 SPEC("{'name': 'add.Tensor', 'signature': 'f()', 'args': [" ARG_X "]}"),
	 "task.json: entries[0]: 'name': expected a Python identifier"},
	{"duplicate entry names", SPEC(ENTRY(ARG_X, "") ", " ENTRY(ARG_X, "")),
	 "task.json: entries[1]: duplicate entry name 'f'"},
	{"unknown entry field", SPEC(ENTRY(ARG_X, ", 'bogus': 1")),
	 "task.json: entries[0]: unknown field 'bogus'"},
	{"entry without signature", SPEC("{'name': 'f', 'args': [" ARG_X "]}"),
	 "task.json: entries[0]: 'signature': expected a string"},
	{"empty args", SPEC(ENTRY("", "")),
	 "task.json: entries[0].args: expected a non-empty list of arguments"},
	{"arg not an object", SPEC(ENTRY("'x'", "")),
	 "task.json: entries[0].args[0]: expected an object, got a string"},
	{"arg with two kinds",
	 SPEC(ENTRY("{'name': 'x', 'tensor': {'shape': [2], 'dtype': 'float32'}, 'value': 1}", "")),
	 "task.json: entries[0].args[0]: expected exactly one of tensor, tensors, value, dtype"},
	{"arg with no kind", SPEC(ENTRY("{'name': 'x'}", "")),
	 "task.json: entries[0].args[0]: expected exactly one of tensor, tensors, value, dtype"},
	{"arg without name", SPEC(ENTRY("{'value': 1}", "")),
	 "task.json: entries[0].args[0]: 'name': expected an identifier"},
	{"duplicate arg names", SPEC(ENTRY(ARG_X ", {'name': 'x', 'value': 1}", "")),
	 "task.json: entries[0].args[1]: duplicate argument name 'x'"},
	{"unknown arg field", SPEC(ENTRY("{'name': 'x', 'value': 1, 'shape': [1]}", "")),
	 "task.json: entries[0].args[0]: unknown field 'shape'"},
	{"keyword not a boolean", SPEC(ENTRY("{'name': 'x', 'value': 1, 'keyword': 1}", "")),
	 "task.json: entries[0].args[0]: 'keyword': expected true or false"},
	{"bad dtype literal", SPEC(ENTRY(TENSOR("'shape': [2], 'dtype': 'float17'"), "")),
	 "task.json: entries[0].args[0].tensor.dtype: expected a dtype name or \"$axis\", got "
	 "'float17'"},
	{"dtype not a string", SPEC(ENTRY(TENSOR("'shape': [2], 'dtype': 7"), "")),
	 "task.json: entries[0].args[0].tensor.dtype: expected a dtype name or \"$axis\", got an "
	 "integer"},
	{"no dtype", SPEC(ENTRY(TENSOR("'shape': [2]"), "")),
	 "task.json: entries[0].args[0].tensor.dtype: missing"},
	{"no shape", SPEC(ENTRY(TENSOR("'dtype': 'float32'"), "")),
	 "task.json: entries[0].args[0].tensor.shape: missing"},
	{"negative dim", SPEC(ENTRY(TENSOR("'shape': [2, -1], 'dtype': 'float32'"), "")),
	 "task.json: entries[0].args[0].tensor.shape: element 1: expected a non-negative integer"},
	{"shape not a list", SPEC(ENTRY(TENSOR("'shape': 3, 'dtype': 'float32'"), "")),
	 "task.json: entries[0].args[0].tensor.shape: expected a list of integers or \"$axis\", "
	 "got an integer"},
	{"bad layout",
	 SPEC(ENTRY(TENSOR("'shape': [2], 'dtype': 'float32', 'layout': 'tiled'"), "")),
	 "task.json: entries[0].args[0].tensor.layout: expected a layout or \"$axis\", "
	 "got 'tiled'"},
	{"bad dist", SPEC(ENTRY(TENSOR("'shape': [2], 'dtype': 'float32', 'dist': 'cauchy'"), "")),
	 "task.json: entries[0].args[0].tensor.dist: expected a distribution or \"$axis\""},
	{"bad bit", SPEC(ENTRY(TENSOR("'shape': [2], 'dtype': 'complex64', 'bit': 'imag'"), "")),
	 "task.json: entries[0].args[0].tensor.bit: expected none, conj or neg or \"$axis\", got "
	 "'imag'"},
	{"unknown tensor field",
	 SPEC(ENTRY(TENSOR("'shape': [2], 'dtype': 'float32', 'strides': [1]"), "")),
	 "task.json: entries[0].args[0].tensor: unknown field 'strides' (expected one of shape, "
	 "dtype, layout, dist, scale, low, high, p, bit, values, field_bits)"},
	{"scale not a number",
	 SPEC(ENTRY(TENSOR("'shape': [2], 'dtype': 'float32', 'scale': [1]"), "")),
	 "task.json: entries[0].args[0].tensor.scale: expected a number or an expression string, "
	 "got a list"},
	{"tensor not an object", SPEC(ENTRY("{'name': 'x', 'tensor': [2]}", "")),
	 "task.json: entries[0].args[0].tensor: expected a tensor descriptor object, got a list"},
	{"bad dtype in tensors",
	 SPEC(ENTRY("{'name': 'xs', 'tensors': [{'shape': [1], 'dtype': 'f32'}]}", "")),
	 "task.json: entries[0].args[0].tensors[0].dtype: expected a dtype name"},
	{"tensors not a list", SPEC(ENTRY("{'name': 'xs', 'tensors': 3}", "")),
	 "task.json: entries[0].args[0].tensors: expected a list of tensor descriptors"},
	{"bad dtype arg", SPEC(ENTRY("{'name': 'd', 'dtype': 'float99'}", "")),
	 "task.json: entries[0].args[0].dtype: expected a dtype name or null or \"$axis\", got 'float99'"},
	{"unknown axis in args", SPEC(ENTRY(TENSOR("'shape': '$shap', 'dtype': 'float32'"),
					    ", 'axes': {'shape': [[1]]}")),
	 "task.json: entries[0]: '$shap' is used but no axis 'shap' exists"},
	{"unknown axis in bytes", SPEC(ENTRY(ARG_X, ", 'bytes': '4 * numel($nope)'")),
	 "task.json: entries[0]: '$nope' is used but no axis 'nope' exists"},
	{"unknown axis in out_dtype", SPEC(ENTRY(ARG_X, ", 'out_dtype': '$odt'")),
	 "task.json: entries[0]: '$odt' is used but no axis 'odt' exists"},
	{"axis of another entry",
	 SPEC(ENTRY(ARG_X, ", 'axes': {'n': [1]}") ", "
	      "{'name': 'g', 'signature': 'g(x)', 'args': [{'name': 'x', 'value': '$n'}]}"),
	 "task.json: entries[1]: '$n' is used but no axis 'n' exists"},
	{"empty axis", SPEC(ENTRY(ARG_X, ", 'axes': {'n': []}")),
	 "task.json: entries[0].axes: axis 'n': expected a non-empty list of values"},
	{"axis not a list", SPEC_TOP(TOP ", 'axes': {'n': 3}", ENTRY(ARG_X, "")),
	 "task.json: axes: axis 'n': expected a non-empty list of values"},
	{"axes not an object", SPEC_TOP(TOP ", 'axes': [1]", ENTRY(ARG_X, "")),
	 "task.json: axes: expected an object of axis name -> list of values, got a list"},
	{"axis name not an identifier", SPEC_TOP(TOP ", 'axes': {'a-b': [1]}", ENTRY(ARG_X, "")),
	 "task.json: axes: axis name 'a-b' is not an identifier"},
	{"perf axis not of the entry", SPEC(ENTRY(ARG_X, ", 'perf': {'zzz': [1]}")),
	 "task.json: entries[0].perf: perf axis 'zzz' is not an axis of the entry"},
	{"mutates naming a non-arg", SPEC(ENTRY(ARG_X, ", 'mutates': ['x', 'y']")),
	 "task.json: entries[0]: 'mutates'[1]: expected the name of an argument"},
	{"mutates not a list", SPEC(ENTRY(ARG_X, ", 'mutates': 'x'")),
	 "task.json: entries[0]: 'mutates': expected a list of argument names"},
	{"returns naming a non-arg", SPEC(ENTRY(ARG_X, ", 'returns': 'y'")),
	 "task.json: entries[0]: 'returns': expected \"value\", \"none\", an argument name or a list"},
	{"returns list naming a non-arg", SPEC(ENTRY(ARG_X, ", 'returns': ['x', 'y']")),
	 "task.json: entries[0]: 'returns': expected \"value\", \"none\", an argument name or a list"},
	{"bad reference_precision", SPEC(ENTRY(ARG_X, ", 'reference_precision': 'float32'")),
	 "task.json: entries[0]: 'reference_precision': expected \"float64\" or \"native\""},
	{"tolerance atol 0", SPEC(ENTRY(ARG_X, ", 'tolerance': {'atol': 0}")),
	 "task.json: entries[0]: 'tolerance.atol': expected a positive number"},
	{"tolerance rtol negative", SPEC(ENTRY(ARG_X, ", 'tolerance': {'rtol': -1}")),
	 "task.json: entries[0]: 'tolerance.rtol': expected a positive number"},
	{"tolerance not a number", SPEC(ENTRY(ARG_X, ", 'tolerance': {'rtol': '2'}")),
	 "task.json: entries[0]: 'tolerance.rtol': expected a positive number"},
	{"tolerance unknown field", SPEC(ENTRY(ARG_X, ", 'tolerance': {'abs': 1}")),
	 "task.json: entries[0]: 'tolerance': unknown field 'abs'"},
	{"tolerance not an object", SPEC(ENTRY(ARG_X, ", 'tolerance': 2")),
	 "task.json: entries[0]: 'tolerance': expected an object"},
	{"bad out_dtype", SPEC(ENTRY(ARG_X, ", 'out_dtype': 'half'")),
	 "task.json: entries[0].out_dtype: expected a dtype name or \"$axis\", got 'half'"},
	{"reduce not a number", SPEC(ENTRY(ARG_X, ", 'reduce': [1]")),
	 "task.json: entries[0].reduce: expected a number or an expression string, got a list"},
	{"misspelled infinity in a value", SPEC(ENTRY("{'name': 'p', 'value': 'Infinity'}", "")),
	 "task.json: entries[0].args[0].value: expected \"inf\", \"-inf\" or \"nan\" for a "
	 "non-finite float, got 'Infinity'"},
	{"signed inf inside a list value", SPEC(ENTRY("{'name': 'p', 'value': [1, ['+inf']]}", "")),
	 "task.json: entries[0].args[0].value[1][0]: expected \"inf\", \"-inf\" or \"nan\""},
	{"NaN in a shared axis", SPEC_TOP(TOP ", 'axes': {'p': [1, 'NaN']}", ENTRY(ARG_X, "")),
	 "task.json: axes.p[1]: expected \"inf\", \"-inf\" or \"nan\" for a non-finite float, "
	 "got 'NaN'"},
	{"-nan in an entry axis object", SPEC(ENTRY(ARG_X, ", 'axes': {'c': [{'lo': '-nan'}]}")),
	 "task.json: entries[0].axes.c[0].lo: expected \"inf\", \"-inf\" or \"nan\""},
	{"INF in a perf axis",
	 SPEC(ENTRY(ARG_X, ", 'axes': {'p': ['inf']}, 'perf': {'p': ['INF']}")),
	 "task.json: entries[0].perf.p[0]: expected \"inf\", \"-inf\" or \"nan\""},
	{"bad memory format", SPEC(ENTRY("{'name': 'm', 'memory_format': 'channels_first'}", "")),
	 "task.json: entries[0].args[0].memory_format: expected a memory format (contiguous_format, "
	 "channels_last, channels_last_3d, preserve_format) or null or \"$axis\", got "
	 "'channels_first'"},
	{"memory format not a string", SPEC(ENTRY("{'name': 'm', 'memory_format': 2}", "")),
	 "task.json: entries[0].args[0].memory_format: expected a memory format"},
	{"memory format beside a value",
	 SPEC(ENTRY("{'name': 'm', 'memory_format': null, 'value': 1}", "")),
	 "task.json: entries[0].args[0]: expected exactly one of tensor, tensors, value, dtype, "
	 "device, memory_format"},
	{"task exempt unknown check", SPEC_TOP(TOP ", 'exempt': {'bogus': 'not a check at all'}",
					       ENTRY(ARG_X, "")),
	 "task.json: exempt: unknown check 'bogus' (expected validity, ghost or a mutant"},
	{"entry exempt unknown check",
	 SPEC(ENTRY(ARG_X, ", 'exempt': {'bogus': 'not a check at all'}")),
	 "task.json: entries[0].exempt: unknown check 'bogus' (expected validity, ghost or a mutant"},
	{"entry exempt without a reason", SPEC(ENTRY(ARG_X, ", 'exempt': {'zero': 'zeros'}")),
	 "task.json: entries[0].exempt: 'zero': expected the reason as a sentence"},
	{"entry exempt not an object", SPEC(ENTRY(ARG_X, ", 'exempt': ['zero']")),
	 "task.json: entries[0].exempt: expected an object of check name -> reason"},
	{"entry exempt repeating the task's",
	 SPEC_TOP(TOP ", 'exempt': {'zero': 'the output is zeros by definition'}",
		  ENTRY(ARG_X, ", 'exempt': {'zero': 'the output is zeros by definition'}")),
	 "task.json: entries[0].exempt: 'zero': already exempted for the whole task"},
	{"missing solution.py", SPEC(ENTRY(ARG_X, "")), "task.json: solution.py: missing file ",
	 NULL, "solution.py"},
	{"missing reference.py", SPEC(ENTRY(ARG_X, "")), "task.json: reference.py: missing file ",
	 NULL, "reference.py"},
	{"missing prompt.md", SPEC(ENTRY(ARG_X, "")), "task.json: prompt.md: missing file ", NULL,
	 "prompt.md"},
};

static void test_invalid_specs(void **state)
{
	struct unit_fx *fx = *state;

	for (size_t i = 0; i < ARRAY_SIZE(invalid_rows); i++) {
		const char *op = invalid_rows[i].op_dir ? invalid_rows[i].op_dir : "foo";
		struct strbuf dir = STRBUF_INIT, file = STRBUF_INIT;

		print_message("%s\n", invalid_rows[i].what);
		strbuf_addf(&dir, "%s/aten/%s", fx->root, op);
		assert_int_equal(rm_rf(dir.buf), 0);
		unit_write_task(fx->root, "aten", op, invalid_rows[i].spec);
		if (invalid_rows[i].remove) {
			char *p = path_join(dir.buf, invalid_rows[i].remove);

			assert_int_equal(unlink(p), 0);
			free(p);
		}
		assert_int_equal(unit_fx_reload(fx), -EINVAL);
		/* An invalid task is not kept. */
		assert_non_null(fx->cat);
		assert_int_equal(fx->cat->nr_tasks, 0);
		/* Every problem is one line naming the file. */
		assert_true(fx->errs.len > 0);
		assert_int_equal(fx->errs.buf[fx->errs.len - 1], '\n');
		strbuf_addf(&file, "%s/task.json", dir.buf);
		assert_line_has(fx->errs.buf, file.buf, invalid_rows[i].want);
		assert_int_equal(rm_rf(dir.buf), 0);
		strbuf_release(&dir);
		strbuf_release(&file);
	}
}

/* A missing file is named by its full path too. */
static void test_missing_file_path(void **state)
{
	struct unit_fx *fx = *state;
	char *p = path_join(fx->root, "aten/foo/solution.py");

	unit_write_task(fx->root, "aten", "foo", SPEC(ENTRY(ARG_X, "")));
	assert_int_equal(unlink(p), 0);
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	assert_line_has(fx->errs.buf, "solution.py: missing file", p);
	free(p);
}

/* Every problem of a file is reported, not only the first (kgb lint lists them all). */
static void test_all_problems_reported(void **state)
{
	struct unit_fx *fx = *state;
	size_t lines = 0;

	unit_write_task(fx->root, "aten", "foo",
			SPEC_TOP("'schema': 2, 'op': 'foo', 'source': 'aten', 'extra': 1",
				 ENTRY(TENSOR("'shape': [2], 'dtype': 'float17'"),
				       ", 'mutates': ['y']")));
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	for (const char *p = fx->errs.buf; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 4);
	assert_contains(fx->errs.buf, "schema: expected 1");
	assert_contains(fx->errs.buf, "extra: unknown field");
	assert_contains(fx->errs.buf, "tensor.dtype: expected a dtype name");
	assert_contains(fx->errs.buf, "'mutates'[0]: expected the name of an argument");
}

/* Valid tasks load even when a sibling is invalid; the call still fails. */
static void test_valid_kept_beside_invalid(void **state)
{
	struct unit_fx *fx = *state;

	unit_write_task(fx->root, "aten", "foo", SPEC(ENTRY(ARG_X, "")));
	unit_write_task(fx->root, "aten", "bad", "{");
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	assert_int_equal(fx->cat->nr_tasks, 1);
	assert_non_null(catalog_find(fx->cat, "foo"));
	assert_null(catalog_find(fx->cat, "bad"));
	assert_contains(fx->errs.buf, "aten/bad/task.json:");
}

static void test_limits(void **state)
{
	struct unit_fx *fx = *state;
	json_t *spec = unit_json(SPEC(ENTRY(ARG_X, ""))), *entries, *args;
	struct strbuf big = STRBUF_INIT;
	char *text;

	/* More entries than CATALOG_MAX_ENTRIES. */
	entries = json_object_get(spec, "entries");
	for (int i = 1; i <= CATALOG_MAX_ENTRIES; i++) {
		json_t *e = json_deep_copy(json_array_get(entries, 0));
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		json_object_set_new(e, "name", json_string(name));
		json_array_append_new(entries, e);
	}
	text = json_dumps(spec, 0);
	unit_write_task(fx->root, "aten", "foo", text);
	free(text);
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	assert_contains(fx->errs.buf, "task.json: entries: more than 64 entries");
	json_array_clear(entries);

	/* More arguments than CATALOG_MAX_ARGS. */
	args = json_array();
	for (int i = 0; i <= CATALOG_MAX_ARGS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "a%d", i);
		json_array_append_new(args, json_pack("{s:s, s:i}", "name", name, "value", i));
	}
	json_array_append_new(entries, json_pack("{s:s, s:s, s:o}", "name", "f", "signature", "f()",
						 "args", args));
	text = json_dumps(spec, 0);
	unit_write_task(fx->root, "aten", "foo", text);
	free(text);
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	assert_contains(fx->errs.buf, "task.json: entries[0].args: more than 64 arguments");
	json_decref(spec);

	/* A task.json over CATALOG_MAX_SPEC_BYTES is not read at all. */
	strbuf_addstr(&big, "{");
	while (big.len <= CATALOG_MAX_SPEC_BYTES)
		strbuf_addstr(&big, "                                ");
	strbuf_addstr(&big, "}");
	unit_write_task(fx->root, "aten", "foo", big.buf);
	strbuf_release(&big);
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	assert_contains(fx->errs.buf, "aten/foo/task.json: cannot read: larger than 4 MiB");
}

static void test_duplicate_op_across_sources(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf file = STRBUF_INIT;
	const struct task *t;

	unit_write_task(fx->root, "aten", "foo", SPEC(ENTRY(ARG_X, "")));
	unit_write_task(fx->root, "vllm", "foo",
			SPEC_TOP("'schema': 1, 'op': 'foo', 'source': 'vllm'", ENTRY(ARG_X, "")));
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	strbuf_addf(&file, "%s/vllm/foo/task.json", fx->root);
	assert_line_has(fx->errs.buf, file.buf, "op: 'foo' is already defined by another source");
	/* The first source in catalog order keeps the op. */
	assert_int_equal(fx->cat->nr_tasks, 1);
	t = catalog_find(fx->cat, "foo");
	assert_non_null(t);
	assert_string_equal(t->source, "aten");
	assert_null(catalog_find(fx->cat, "vllm/foo"));
	strbuf_release(&file);
}

static void test_find_and_order(void **state)
{
	static const struct {
		const char *name, *source, *op; /* source NULL: not found */
	} rows[] = {
		{"foo", "aten", "foo"},
		{"aten/foo", "aten", "foo"},
		{"bar", "vllm", "bar"},
		{"vllm/bar", "vllm", "bar"},
		{"cublas/abc", "cublas", "abc"},
		{"abc", "cublas", "abc"},
		{"aten/bar", NULL, NULL},
		{"vllm/foo", NULL, NULL},
		{"nope", NULL, NULL},
		{"aten", NULL, NULL},
		{"aten/", NULL, NULL},
		{"/foo", NULL, NULL},
		{"ate/foo", NULL, NULL},
		{"", NULL, NULL},
	};
	struct unit_fx *fx = *state;

	unit_write_task(fx->root, "cublas", "abc",
			SPEC_TOP("'schema': 1, 'op': 'abc', 'source': 'cublas'", ENTRY(ARG_X, "")));
	unit_write_task(fx->root, "vllm", "bar",
			SPEC_TOP("'schema': 1, 'op': 'bar', 'source': 'vllm'", ENTRY(ARG_X, "")));
	unit_write_task(fx->root, "aten", "foo", SPEC(ENTRY(ARG_X, "")));
	/* Ignored: hidden directories, plain files, unknown source directories. */
	unit_write_task(fx->root, "aten", ".hidden", "{");
	unit_write_file(fx->root, "aten/README", "not a task\n");
	unit_write_task(fx->root, "other", "foo", "{");
	if (unit_fx_reload(fx) != 0)
		fail_msg("%s", fx->errs.buf);
	assert_int_equal(fx->errs.len, 0);

	/* Sorted by source in catalog order (aten, vllm, cublas), then op. */
	assert_int_equal(fx->cat->nr_tasks, 3);
	assert_string_equal(fx->cat->tasks[0].source, "aten");
	assert_string_equal(fx->cat->tasks[1].source, "vllm");
	assert_string_equal(fx->cat->tasks[2].source, "cublas");

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct task *t = catalog_find(fx->cat, rows[i].name);

		print_message("'%s'\n", rows[i].name);
		if (!rows[i].source) {
			assert_null(t);
			continue;
		}
		assert_non_null(t);
		assert_string_equal(t->source, rows[i].source);
		assert_string_equal(t->op, rows[i].op);
	}
}

static void test_not_a_directory(void **state)
{
	struct unit_fx *fx = *state;
	char *missing = path_join(fx->root, "missing");

	assert_int_equal(catalog_load(missing, &fx->cat, &fx->errs), -ENOENT);
	assert_non_null(fx->cat);
	assert_int_equal(fx->cat->nr_tasks, 0);
	assert_line_has(fx->errs.buf, missing, "not a directory");
	free(missing);
}

/* inf and NaN spelled as strings, memory formats, and exemptions of the task and its entries. */
static void test_nonfinite_memory_format_exempt(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, SPEC_TOP(TOP ", 'exempt': {'validity': 'the output is constant by definition'},"
			     " 'axes': {'p': [1, 'inf', '-inf', 'nan'], 'c': [{'lo': '-inf'}]}",
			     "{'name': 'f', 'signature': 'f(x)', 'args': [" ARG_X ","
			     " {'name': 'p', 'value': '$p'}, {'name': 'q', 'value': ['nan', 2.5]},"
			     " {'name': 'lo', 'value': '$c.lo'}, {'name': 's', 'value': 'info'},"
			     " {'name': 'm', 'memory_format': '$m', 'keyword': true}],"
			     " 'axes': {'m': ['channels_last', null, 'preserve_format']},"
			     " 'exempt': {'mutate_input': 'x is the only tensor and the op writes it',"
			     "            'ghost': 'the op returns x itself, no kernel runs'}},"
			     "{'name': 'g', 'signature': 'g(x)', 'args': [" ARG_X ","
			     " {'name': 'm', 'memory_format': 'contiguous_format'}]}"));

	assert_int_equal(fx->errs.len, 0);
	assert_non_null(t);
	/* The entry's own reason, else the task's, else none. */
	assert_string_equal(task_entry_exemption(t, 0, "mutate_input"),
			    "x is the only tensor and the op writes it");
	assert_string_equal(task_entry_exemption(t, 0, "ghost"),
			    "the op returns x itself, no kernel runs");
	assert_string_equal(task_entry_exemption(t, 0, "validity"),
			    "the output is constant by definition");
	assert_string_equal(task_entry_exemption(t, 1, "validity"),
			    "the output is constant by definition");
	assert_null(task_entry_exemption(t, 1, "mutate_input"));
	assert_null(task_entry_exemption(t, 0, "zero"));
	/* An entry index out of range has only the task's. */
	assert_null(task_entry_exemption(t, 2, "mutate_input"));
	assert_string_equal(task_entry_exemption(t, 7, "validity"),
			    "the output is constant by definition");
	/* The task-wide lookup does not see an entry's exemption. */
	assert_null(task_exemption(t, "mutate_input"));
	assert_null(t->entries[1].exempt);

	assert_true(catalog_is_nonfinite("inf"));
	assert_true(catalog_is_nonfinite("-inf"));
	assert_true(catalog_is_nonfinite("nan"));
	for (const char *const *s = (const char *const[]){"+inf", "Inf", "NaN", "-nan", "infinity",
							   "", "in", "inf ", NULL};
	     *s; s++)
		assert_false(catalog_is_nonfinite(*s));
	assert_true(catalog_is_memory_format("channels_last"));
	assert_true(catalog_is_memory_format("channels_last_3d"));
	assert_true(catalog_is_memory_format("contiguous_format"));
	assert_true(catalog_is_memory_format("preserve_format"));
	assert_false(catalog_is_memory_format("torch.channels_last"));
	assert_false(catalog_is_memory_format("contiguous"));
}

static void test_is_dtype(void **state)
{
	static const char *const yes[] = {"float16", "bfloat16", "float32", "float64",
					  "int8",    "int16",	 "int32",   "int64",
					  "uint8",   "bool",	 "complex64", "complex128"};
	static const char *const no[] = {"", "float", "half", "int", "uint16", "Float32"};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		assert_true(catalog_is_dtype(yes[i]));
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		assert_false(catalog_is_dtype(no[i]));
}

static const struct CMUnitTest tests[] = {
	unit_test_fx(test_valid_task),
	unit_test_fx(test_defaults_top_level),
	unit_test_fx(test_version_hash),
	unit_test_fx(test_invalid_specs),
	unit_test_fx(test_missing_file_path),
	unit_test_fx(test_all_problems_reported),
	unit_test_fx(test_valid_kept_beside_invalid),
	unit_test_fx(test_limits),
	unit_test_fx(test_duplicate_op_across_sources),
	unit_test_fx(test_find_and_order),
	unit_test_fx(test_not_a_directory),
	cmocka_unit_test(test_is_dtype),
	unit_test_fx(test_nonfinite_memory_format_exempt),
};

UNIT_MAIN(tests)
