/* t-proto.c - the worker protocol, kgb's side (docs/protocol.md). */
#include "unit.h"

#include "cases.h"
#include "proto.h"
#include "verdict.h"

static void test_parse_valid(void **state)
{
	static const struct {
		const char *line;
		enum proto_msg_type type;
		long long case_id;
		const char *verdict;
	} rows[] = {
		{"{'type': 'hello', 'protocol': 1, 'python': '3.11.7', 'torch': '2.13.0+cpu',"
		 " 'triton': '3.6.0', 'numpy': '2.2.6'}",
		 PROTO_HELLO, 0, NULL},
		{"{'type': 'loaded', 'import_ms': 812.4}", PROTO_LOADED, 0, NULL},
		{"{'type': 'case', 'id': 0, 'verdict': 'pass', 'max_abs_err': 0.0009765625,"
		 " 'tol_use': 0.42, 'base_tol_use': 0.40, 'ms': 3.1}",
		 PROTO_CASE, 0, "pass"},
		{"{'type': 'case', 'id': 17, 'verdict': 'mismatch', 'max_abs_err': 4, 'bad': 3,"
		 " 'first_bad': 10, 'message': 'x'}",
		 PROTO_CASE, 17, "mismatch"},
		{"{'type': 'case', 'id': 2, 'verdict': 'pass', 'ms': 1, 'time_base_ms': 0.5,"
		 " 'time_cand_ms': 0.25, 'speedup': 2, 'time_base_iqr_ms': 0.01}",
		 PROTO_CASE, 2, "pass"},
		/* an optional number may be null (NaN has no JSON spelling) */
		{"{'type': 'case', 'id': 1, 'verdict': 'error', 'max_abs_err': null,"
		 " 'trace': '...'}",
		 PROTO_CASE, 1, "error"},
		{"{'type': 'case', 'id': 3, 'verdict': 'bad_output'}", PROTO_CASE, 3, "bad_output"},
		{"{'type': 'case', 'id': 4, 'verdict': 'mutated_input'}", PROTO_CASE, 4,
		 "mutated_input"},
		{"{'type': 'case', 'id': 5, 'verdict': 'ref_error'}", PROTO_CASE, 5, "ref_error"},
		{"{'type': 'fatal', 'stage': 'load', 'verdict': 'syntax_error',"
		 " 'message': 'candidate.py:3: invalid syntax', 'trace': '...'}",
		 PROTO_FATAL, 0, "syntax_error"},
		{"{'type': 'fatal', 'stage': 'load', 'verdict': 'import_error'}", PROTO_FATAL, 0,
		 "import_error"},
		{"{'type': 'fatal', 'stage': 'entry', 'verdict': 'missing_entry'}", PROTO_FATAL, 0,
		 "missing_entry"},
		{"{'type': 'fatal', 'stage': 'scan', 'verdict': 'hack', 'layer': 'L1',"
		 " 'message': 'line 3: torch-api: torch.mul is not allowed',"
		 " 'findings': [{'line': 3, 'rule': 'torch-api', 'message': 'x'}]}",
		 PROTO_FATAL, 0, "hack"},
		{"{'type': 'fatal', 'stage': 'job', 'verdict': 'protocol'}", PROTO_FATAL, 0,
		 "protocol"},
		{"{'type': 'done', 'cases': 96, 'wall_ms': 5120.7}", PROTO_DONE, 0, NULL},
		/* surrounding whitespace, including the line's own newline, and unknown fields */
		{"  {'type': 'done'}\n", PROTO_DONE, 0, NULL},
		{"{'type': 'loaded', 'future_field': [1, 2]}", PROTO_LOADED, 0, NULL},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *line = unit_sq(rows[i].line);
		struct proto_msg m = {0};
		struct strbuf err = STRBUF_INIT;
		int r;

		print_message("%s\n", line);
		r = proto_parse_line(line, strlen(line), &m, &err);
		if (r != 0)
			fail_msg("%d: %s", r, err.buf);
		assert_int_equal(err.len, 0);
		assert_int_equal(m.type, rows[i].type);
		assert_true(json_is_object(m.obj));
		if (rows[i].type == PROTO_CASE)
			assert_int_equal(m.case_id, rows[i].case_id);
		if (rows[i].verdict)
			assert_string_equal(m.verdict, rows[i].verdict);
		else
			assert_null(m.verdict);
		proto_msg_release(&m);
		assert_null(m.obj);
		strbuf_release(&err);
		free(line);
	}
}

static void test_parse_invalid(void **state)
{
	static const struct {
		const char *what, *line;
		int want;
		const char *msg;
	} rows[] = {
		{"hello of another version", "{'type': 'hello', 'protocol': 2}", -EPROTO,
		 "worker speaks protocol 2, kgb speaks 1"},
		{"hello of version 0", "{'type': 'hello', 'protocol': 0}", -EPROTO,
		 "worker speaks protocol 0"},
		{"hello with a string version", "{'type': 'hello', 'protocol': '1'}", -EBADMSG,
		 "hello without an integer 'protocol'"},
		{"hello with a real version", "{'type': 'hello', 'protocol': 1.0}", -EBADMSG,
		 "hello without an integer 'protocol'"},
		{"hello without version", "{'type': 'hello'}", -EBADMSG,
		 "hello without an integer 'protocol'"},
		{"not JSON", "Traceback (most recent call last):", -EBADMSG, "not JSON"},
		{"empty line", "", -EBADMSG, "not JSON"},
		{"truncated", "{'type': 'done'", -EBADMSG, "not JSON"},
		{"two objects", "{'type': 'done'} {'type': 'done'}", -EBADMSG, "not JSON"},
		{"duplicate key", "{'type': 'done', 'type': 'hello'}", -EBADMSG, "not JSON"},
		{"a string", "'hello'", -EBADMSG, "not JSON"},
		{"an array", "[{'type': 'done'}]", -EBADMSG, "expected a JSON object"},
		{"missing type", "{'id': 1}", -EBADMSG, "missing 'type'"},
		{"type not a string", "{'type': 3}", -EBADMSG, "missing 'type'"},
		{"unknown type", "{'type': 'job'}", -EBADMSG, "unknown message type 'job'"},
		{"type in capitals", "{'type': 'HELLO', 'protocol': 1}", -EBADMSG,
		 "unknown message type 'HELLO'"},
		{"case without id", "{'type': 'case', 'verdict': 'pass'}", -EBADMSG,
		 "case without a non-negative integer 'id'"},
		{"case with negative id", "{'type': 'case', 'id': -1, 'verdict': 'pass'}", -EBADMSG,
		 "case without a non-negative integer 'id'"},
		{"case with string id", "{'type': 'case', 'id': '3', 'verdict': 'pass'}", -EBADMSG,
		 "case without a non-negative integer 'id'"},
		{"case with unknown verdict", "{'type': 'case', 'id': 0, 'verdict': 'ok'}",
		 -EBADMSG, "case with a missing or unknown 'verdict'"},
		{"case with a fatal verdict",
		 "{'type': 'case', 'id': 0, 'verdict': 'syntax_error'}", -EBADMSG,
		 "case with a missing or unknown 'verdict'"},
		{"case without verdict", "{'type': 'case', 'id': 0}", -EBADMSG,
		 "case with a missing or unknown 'verdict'"},
		{"case with string max_abs_err",
		 "{'type': 'case', 'id': 0, 'verdict': 'mismatch', 'max_abs_err': '0.1'}", -EBADMSG,
		 "case field 'max_abs_err' is not a number"},
		{"case with list ms", "{'type': 'case', 'id': 0, 'verdict': 'pass', 'ms': [1]}",
		 -EBADMSG, "case field 'ms' is not a number"},
		{"case with boolean tol_use",
		 "{'type': 'case', 'id': 0, 'verdict': 'pass', 'tol_use': true}", -EBADMSG,
		 "case field 'tol_use' is not a number"},
		{"case with string speedup",
		 "{'type': 'case', 'id': 0, 'verdict': 'pass', 'speedup': 'fast'}", -EBADMSG,
		 "case field 'speedup' is not a number"},
		{"fatal with unknown verdict",
		 "{'type': 'fatal', 'stage': 'load', 'verdict': 'crash'}", -EBADMSG,
		 "fatal with a missing or unknown 'verdict'"},
		{"fatal with a case verdict", "{'type': 'fatal', 'verdict': 'pass'}", -EBADMSG,
		 "fatal with a missing or unknown 'verdict'"},
		{"fatal without verdict", "{'type': 'fatal', 'stage': 'load'}", -EBADMSG,
		 "fatal with a missing or unknown 'verdict'"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *line = unit_sq(rows[i].line);
		struct proto_msg m = {.case_id = -42};
		struct strbuf err = STRBUF_INIT;

		print_message("%s\n", rows[i].what);
		assert_int_equal(proto_parse_line(line, strlen(line), &m, &err), rows[i].want);
		assert_contains(err.buf, rows[i].msg);
		/* ret untouched on failure */
		assert_null(m.obj);
		assert_int_equal(m.case_id, -42);
		strbuf_release(&err);
		free(line);
	}
}

/* A line of `len` bytes: a valid done message padded with a string. */
static char *done_line_of(size_t len)
{
	static const char head[] = "{\"type\":\"done\",\"pad\":\"", tail[] = "\"}";
	char *s = xmalloc(len + 1);

	memcpy(s, head, sizeof(head) - 1);
	memset(s + sizeof(head) - 1, 'x', len - (sizeof(head) - 1) - (sizeof(tail) - 1));
	memcpy(s + len - (sizeof(tail) - 1), tail, sizeof(tail));
	return s;
}

static void test_parse_line_length(void **state)
{
	struct proto_msg m = {0};
	struct strbuf err = STRBUF_INIT;
	char *line;

	(void)state;
	line = done_line_of(PROTO_MAX_LINE);
	assert_int_equal(strlen(line), PROTO_MAX_LINE);
	assert_int_equal(proto_parse_line(line, PROTO_MAX_LINE, &m, &err), 0);
	assert_int_equal(m.type, PROTO_DONE);
	proto_msg_release(&m);
	free(line);

	line = done_line_of(PROTO_MAX_LINE + 1);
	assert_int_equal(proto_parse_line(line, PROTO_MAX_LINE + 1, &m, &err), -EBADMSG);
	assert_contains(err.buf, "line longer than 1 MiB");
	assert_null(m.obj);
	free(line);
	strbuf_release(&err);
}

/* The length is what counts, not a NUL: bytes after an embedded NUL are still parsed. */
static void test_parse_embedded_nul(void **state)
{
	static const char line[] = "{\"type\":\"done\"}\0{\"type\":\"done\"}";
	struct proto_msg m = {0};
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(proto_parse_line(line, sizeof(line) - 1, &m, &err), -EBADMSG);
	assert_null(m.obj);
	strbuf_release(&err);
}

static void test_verdict_lists(void **state)
{
	(void)state;
	assert_true(verdict_at("pass", V_CASE));
	assert_true(verdict_at("ref_error", V_CASE));
	assert_false(verdict_at("crash", V_CASE));
	assert_false(verdict_at("", V_CASE));
	assert_true(verdict_at("missing_entry", V_FATAL));
	assert_true(verdict_at("hack", V_FATAL));
	assert_false(verdict_at("pass", V_FATAL));
	assert_false(verdict_at(NULL, V_CANDIDATE));
	assert_true(verdict_at("crash", V_CANDIDATE));
	assert_false(verdict_at("env_error", V_CANDIDATE)); /* never stored */
	/* Every name goes round the table; an unknown one counts as a failure. */
	for (int v = 0; v < VERDICT_UNKNOWN; v++) {
		assert_int_equal(verdict_of(verdict_name((enum verdict)v)), v);
		assert_ptr_equal(verdict_static_name(verdict_name((enum verdict)v)),
				 verdict_name((enum verdict)v));
	}
	assert_int_equal(verdict_of("Pass"), VERDICT_UNKNOWN);
	assert_null(verdict_static_name("passed"));
	assert_string_equal(verdict_name(VERDICT_UNKNOWN), "unknown");
	assert_int_equal(verdict_counts("nonsense"), V_FAIL);
	assert_int_equal(verdict_counts("skipped"), V_NONE);
	assert_int_equal(verdict_counts("env_error"), V_ENV);
	assert_true(verdict_is_pass("pass"));
	assert_false(verdict_is_pass(NULL));
	assert_true(verdict_is("timeout", VERDICT_TIMEOUT));
	assert_false(verdict_is("timeout", VERDICT_UNKNOWN));
}

static const char job_spec[] =
	"{'schema': 1, 'op': 'foo', 'source': 'aten',"
	" 'axes': {'shape': [[3], [2, 5]], 'dtype': ['float16']},"
	" 'entries': ["
	"  {'name': 'f', 'signature': 'f(x, *, alpha)',"
	"   'args': [{'name': 'x', 'tensor': {'shape': '$shape', 'dtype': '$dtype'}},"
	"            {'name': 'alpha', 'value': '$alpha', 'keyword': true}],"
	"   'axes': {'alpha': [1, 2.5]}, 'perf': {'shape': [[1024]], 'alpha': [1]}},"
	"  {'name': 'g_', 'signature': 'g_(x)', 'mutates': ['x'], 'returns': 'x',"
	"   'reference_precision': 'native', 'reduce': 'numel($shape)',"
	"   'args': [{'name': 'x', 'tensor': {'shape': '$shape', 'dtype': 'int32'}}]}"
	" ]}";

/* Parses a job line, checking it is exactly one line. */
static json_t *parse_job_line(const char *s)
{
	size_t len = strlen(s);
	json_error_t jerr;
	json_t *job;

	assert_true(len > 1);
	assert_ptr_equal(strchr(s, '\n'), s + len - 1);
	job = json_loadb(s, len - 1, JSON_REJECT_DUPLICATES, &jerr);
	if (!job)
		fail_msg("job line is not JSON: %s", jerr.text);
	return job;
}

static void test_build_job(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(fx, job_spec);
	struct proto_job_opts timing = {.timed = true, .warmup = 10, .rounds = 20};
	struct case_list l = {0};
	struct strbuf err = STRBUF_INIT;
	json_t *job, *task, *cases, *want;
	char *s;

	/* A run seed with the top bit set: the job's seeds must stay non-negative integers. */
	assert_int_equal(cases_generate(t, true, 0xfedcba9876543210ULL, &l, &err), 0);
	assert_int_equal(l.nr, 4 + 1 + 2);
	s = proto_build_job(t, "/abs/candidate.py", "cuda", &l, &timing);
	job = parse_job_line(s);
	/* every expression resolved */
	assert_null(strchr(s, '$'));

	assert_string_equal(json_string_value(json_object_get(job, "type")), "job");
	assert_int_equal(json_integer_value(json_object_get(job, "protocol")), PROTO_VERSION);
	assert_string_equal(json_string_value(json_object_get(job, "platform")), "cuda");
	assert_string_equal(json_string_value(json_object_get(job, "candidate")),
			    "/abs/candidate.py");
	want = unit_json("{'warmup': 10, 'rounds': 20}");
	assert_json_equal(json_object_get(job, "timing"), want);
	json_decref(want);

	task = json_object_get(job, "task");
	assert_string_equal(json_string_value(json_object_get(task, "op")), "foo");
	assert_string_equal(json_string_value(json_object_get(task, "source")), "aten");
	assert_string_equal(json_string_value(json_object_get(task, "dir")), t->dir);
	assert_true(t->dir[0] == '/');
	want = unit_json("[{'name': 'f', 'mutates': [], 'returns': 'value',"
			 "  'reference_precision': 'float64'},"
			 " {'name': 'g_', 'mutates': ['x'], 'returns': 'x',"
			 "  'reference_precision': 'native'}]");
	assert_json_equal(json_object_get(task, "entries"), want);
	json_decref(want);

	cases = json_object_get(job, "cases");
	assert_int_equal(json_array_size(cases), l.nr);
	for (size_t i = 0; i < l.nr; i++) {
		json_t *jc = json_array_get(cases, i), *seed = json_object_get(jc, "seed");
		const struct case_desc *c = &l.v[i];

		print_message("case %zu\n", i);
		assert_int_equal(json_integer_value(json_object_get(jc, "id")), i);
		assert_string_equal(json_string_value(json_object_get(jc, "entry")), c->entry);
		assert_true(json_is_integer(seed));
		assert_true(json_integer_value(seed) >= 0);
		assert_int_equal((unsigned long long)json_integer_value(seed),
				 c->seed & 0x7fffffffffffffffULL);
		assert_int_equal(json_is_true(json_object_get(jc, "timed")), c->timed);
		assert_true(json_is_boolean(json_object_get(jc, "timed")));
		/* reals survive the round trip exactly */
		assert_float_equal(json_real_value(json_object_get(jc, "atol")), c->tol.atol, 0);
		assert_float_equal(json_real_value(json_object_get(jc, "rtol")), c->tol.rtol, 0);
		assert_string_equal(json_string_value(json_object_get(jc, "out_dtype")),
				    c->out_dtype);
		assert_json_equal(json_object_get(jc, "axes"), c->axes);
		assert_json_equal(json_object_get(jc, "args"), c->args);
	}
	/* spot checks against the spec */
	want = unit_json("[{'name': 'x', 'tensor': {'shape': [2, 5], 'dtype': 'float16',"
			 "  'layout': 'contiguous', 'dist': 'normal'}},"
			 " {'name': 'alpha', 'value': 2.5, 'keyword': true}]");
	assert_json_equal(json_object_get(json_array_get(cases, 3), "args"), want);
	json_decref(want);
	assert_true(json_is_true(json_object_get(json_array_get(cases, 4), "timed")));
	assert_float_equal(json_real_value(json_object_get(json_array_get(cases, 6), "atol")), 0,
			   0);
	json_decref(job);
	free(s);
	case_list_release(&l);
	strbuf_release(&err);
}

/* Without timing (a platform that does not time) there is no timing field; no cases is []. */
static void test_build_job_untimed_empty(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(fx, job_spec);
	struct case_list l = {0};
	json_t *job;
	char *s;

	s = proto_build_job(t, "/c.py", "interpreter", &l, NULL);
	job = parse_job_line(s);
	assert_null(json_object_get(job, "timing"));
	/* a task without "allow" sends none */
	assert_null(json_object_get(json_object_get(job, "task"), "allow"));
	assert_string_equal(json_string_value(json_object_get(job, "platform")), "interpreter");
	assert_true(json_is_array(json_object_get(job, "cases")));
	assert_int_equal(json_array_size(json_object_get(job, "cases")), 0);
	json_decref(job);
	free(s);
}

/* A task's "allow" list reaches the worker in the job's task object, unchanged. */
static void test_build_job_allow(void **state)
{
	static const char spec[] =
		"{'schema': 1, 'op': 'foo', 'source': 'aten', 'allow': ['torch.ops.aten', 'sum'],"
		" 'entries': [{'name': 'f', 'signature': 'f(x)',"
		"  'args': [{'name': 'x', 'tensor': {'shape': [2], 'dtype': 'float32'}}]}]}";
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(fx, spec);
	struct case_list l = {0};
	json_t *job, *want;
	char *s;

	assert_int_equal(fx->errs.len, 0);
	s = proto_build_job(t, "/c.py", "interpreter", &l, NULL);
	job = parse_job_line(s);
	want = unit_json("['torch.ops.aten', 'sum']");
	assert_json_equal(json_object_get(json_object_get(job, "task"), "allow"), want);
	json_decref(want);
	json_decref(job);
	free(s);
}

/*
 * kgb lint --deep: an entry exempt from the ghost replay says so in its own entry (the task-wide
 * flag stays on for the others), and a job can stop each entry at its own first failure.
 */
static void test_build_job_entry_exemption_and_stop(void **state)
{
	static const char spec[] =
		"{'schema': 1, 'op': 'foo', 'source': 'aten', 'entries': ["
		" {'name': 'f', 'signature': 'f(x)',"
		"  'args': [{'name': 'x', 'tensor': {'shape': [2], 'dtype': 'float32'}}],"
		"  'exempt': {'ghost': 'f returns x itself, no kernel runs'}},"
		" {'name': 'g', 'signature': 'g(x)',"
		"  'args': [{'name': 'x', 'tensor': {'shape': [2], 'dtype': 'float32'}}]}]}";
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(fx, spec);
	struct case_list l = {0};
	struct proto_job_opts per_entry = {.stop_on_fail = true, .stop_per_entry = true};
	struct proto_job_opts whole = {.stop_on_fail = true};
	json_t *job, *entries, *task;
	char *s;

	s = proto_build_job(t, "/c.py", "interpreter", &l, &per_entry);
	job = parse_job_line(s);
	task = json_object_get(job, "task");
	entries = json_object_get(task, "entries");
	assert_true(json_is_true(json_object_get(task, "ghost")));
	assert_true(json_is_false(json_object_get(json_array_get(entries, 0), "ghost")));
	assert_null(json_object_get(json_array_get(entries, 1), "ghost"));
	assert_string_equal(json_string_value(json_object_get(job, "stop_on_fail")), "entry");
	json_decref(job);
	free(s);
	s = proto_build_job(t, "/c.py", "interpreter", &l, &whole);
	job = parse_job_line(s);
	assert_true(json_is_true(json_object_get(job, "stop_on_fail")));
	json_decref(job);
	free(s);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_parse_valid),
	cmocka_unit_test(test_parse_invalid),
	cmocka_unit_test(test_parse_line_length),
	cmocka_unit_test(test_parse_embedded_nul),
	cmocka_unit_test(test_verdict_lists),
	unit_test_fx(test_build_job),
	unit_test_fx(test_build_job_untimed_empty),
	unit_test_fx(test_build_job_allow),
	unit_test_fx(test_build_job_entry_exemption_and_stop),
};

UNIT_MAIN(tests)
