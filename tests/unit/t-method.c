/*
 * t-method.c - methods' adapter tables (method.h): validation, the installed version, coverage
 * and why not, and the candidate kgb renders from a table.
 */
#include "unit.h"

#include "method.h"

/* Task aten/foo: entry f(x, *, k). */
#define FOO_SPEC                                                                                \
	"{'schema': 1, 'op': 'foo', 'source': 'aten', 'entries': [{'name': 'f',"                \
	" 'signature': 'f(Tensor x, *, int k) -> Tensor', 'args': ["                             \
	"  {'name': 'x', 'tensor': {'shape': [3], 'dtype': 'float32'}},"                         \
	"  {'name': 'k', 'value': 2, 'keyword': true}]}]}"

/* A table "m" of package My-Pkg 1.0, module lib, with `tasks` (single-quoted JSON). */
static void write_table(struct unit_fx *fx, const char *name, const char *module,
			const char *tasks)
{
	struct strbuf sb = STRBUF_INIT;
	char *text;

	strbuf_addf(&sb, "{'schema': 1, 'name': '%s', 'title': 'M', 'about': 'a library',"
		    " 'package': 'My-Pkg', 'version': '1.0', 'module': '%s', 'requires': [],"
		    " 'env': {'LIB_MODE': 'test'}, 'imports': ['import %s'],"
		    " 'notes': {'interpreter': 'slow there'}, 'uncovered': 'not in its scope',"
		    " 'tasks': %s}", name, module, module, tasks);
	text = unit_sq(sb.buf);
	unit_write_file(fx->root, "methods/m.json", text);
	free(text);
	strbuf_release(&sb);
}

static const struct task *foo(struct unit_fx *fx)
{
	return unit_fx_load(fx, FOO_SPEC);
}

static void covered_task_renders_its_calls(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = foo(fx);
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT, text = STRBUF_INIT;
	const json_t *entries = NULL;
	struct method m;
	char *path, *rendered;
	json_t *job;

	write_table(fx, "m", "lib", "{'aten/foo': {'entries': {'f': {'call': 'lib.ops.f'}}}}");
	unit_write_file(fx->root, "build/methods/m/lib/my_pkg-1.0.dist-info/METADATA", "x\n");
	assert_int_equal(method_load(fx->root, "m", &m, &err), 0);
	assert_string_equal(m.installed, "1.0");
	assert_true(method_task(&m, t, &entries, &why));
	rendered = method_render(&m, t, entries);
	assert_contains(rendered, "import lib\n\n\ndef f(x, *, k):\n    return lib.ops.f(x, k=k)\n");
	assert_contains(rendered, "kgb method candidate: m (My-Pkg 1.0) for aten/foo.");
	/* Written once; a second write of the same bytes leaves the file as it is. */
	path = method_write(&m, t, entries, &err);
	assert_non_null(path);
	assert_contains(path, "/build/methods/m/candidates/aten/foo/m.py");
	assert_int_equal(strbuf_read_file(&text, path, 0), 0);
	assert_string_equal(text.buf, rendered);
	free(path);
	path = method_write(&m, t, entries, &err);
	assert_non_null(path);
	job = method_job(&m);
	assert_string_equal(json_string_value(json_object_get(job, "module")), "lib");
	assert_string_equal(json_string_value(json_object_get(json_object_get(job, "env"),
							      "LIB_MODE")), "test");
	assert_string_equal(method_note(&m, t, "interpreter"), "slow there");
	assert_null(method_note(&m, t, "cuda"));
	json_decref(job);
	free(path);
	free(rendered);
	method_release(&m);
	strbuf_release(&err);
	strbuf_release(&why);
	strbuf_release(&text);
}

/* Why a task is not covered: the table's default, its row's, or a row out of date. */
static void uncovered_tasks_say_why(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = foo(fx);
	const char *rows[][2] = {
		{"{}", "not in its scope"},
		{"{'aten/foo': {'uncovered': 'another convention'}}", "another convention"},
		{"{'aten/foo': {'entries': {'g': {'call': 'lib.g'}}}}", "is out of date"},
		{"{'aten/foo': {'entries': {'f': {'body': ['return x']}, 'g': {'body': ['pass']}}}}",
		 "the table's entries (2) are not the task's (1)"},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
		const json_t *entries = NULL;
		struct method m;

		write_table(fx, "m", "lib", rows[i][0]);
		assert_int_equal(method_load(fx->root, "m", &m, &err), 0);
		assert_null(m.installed);
		assert_false(method_task(&m, t, &entries, &why));
		assert_contains(why.buf, rows[i][1]);
		method_release(&m);
		strbuf_release(&err);
		strbuf_release(&why);
	}
}

/* What kgb writes into code must be code of one line and names: anything else is refused. */
static void invalid_tables_are_refused(void **state)
{
	struct unit_fx *fx = *state;
	const char *bad[][3] = {
		{"os.path", "{}", "module: 'os.path' is not a top-level module name"},
		{"lib", "{'aten/foo': {'entries': {'f': {'call': 'lib.f(x)'}}}}", "an entry's code"},
		{"lib", "{'aten/foo': {'entries': {'f': {'body': ['a', 'b\\nc']}}}}",
		 "an entry's code"},
		{"lib", "{'aten/foo': {'entries': {}, 'uncovered': 'x'}}", "exactly one of"},
		{"lib", "{'foo': {'uncovered': 'x'}}", "is not source/op"},
	};
	struct strbuf err = STRBUF_INIT;
	struct method m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_table(fx, "m", bad[i][0], bad[i][1]);
		strbuf_reset(&err);
		assert_int_equal(method_load(fx->root, "m", &m, &err), -EINVAL);
		assert_contains(err.buf, bad[i][2]);
		method_release(&m);
	}
	write_table(fx, "other", "lib", "{}");
	strbuf_reset(&err);
	assert_int_equal(method_load(fx->root, "m", &m, &err), -EINVAL);
	assert_contains(err.buf, "name: expected the file's name");
	method_release(&m);
	strbuf_reset(&err);
	assert_int_equal(method_load(fx->root, "nosuch", &m, &err), -ENOENT);
	method_release(&m);
	assert_int_equal(method_load(fx->root, "../m", &m, &err), -ENOENT);
	method_release(&m);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
	unit_test_fx(covered_task_renders_its_calls),
	unit_test_fx(uncovered_tasks_say_why),
	unit_test_fx(invalid_tables_are_refused),
};

UNIT_MAIN(tests)
