/* t-serve.c - the pure parts of `kgb serve` (src/serve.h): reward, routing, token digests. */
#include "unit.h"

#include "serve.h"

static void test_reward(void **state)
{
	(void)state;
	assert_float_equal(serve_reward("pass", NAN), 1, 0);	 /* untimed: interpreter */
	assert_float_equal(serve_reward("pass", 1.0), 1, 1e-12);
	assert_float_equal(serve_reward("pass", 2.0), 1.5, 1e-12);
	assert_float_equal(serve_reward("pass", 8.0), 1.5, 1e-12); /* clamped */
	assert_float_equal(serve_reward("pass", 0.5), 0.5, 1e-12);
	assert_float_equal(serve_reward("pass", 0.01), 0.5, 1e-12);
	assert_float_equal(serve_reward("pass", sqrt(2.0)), 1.25, 1e-12);
	assert_float_equal(serve_reward("hack", NAN), -1, 0);
	assert_float_equal(serve_reward("hack", 3.0), -1, 0);
	assert_float_equal(serve_reward("mismatch", NAN), 0, 0);
	assert_float_equal(serve_reward("crash", NAN), 0, 0);
	assert_float_equal(serve_reward("timeout", NAN), 0, 0);
	assert_float_equal(serve_reward("syntax_error", NAN), 0, 0);
	assert_true(isnan(serve_reward("ref_error", NAN)));
	assert_true(isnan(serve_reward("skipped", NAN)));
	assert_true(isnan(serve_reward("degenerate", NAN)));
	assert_true(isnan(serve_reward("env_error", NAN)));
	assert_true(isnan(serve_reward("no-such-verdict", NAN)));
	assert_true(isnan(serve_reward(NULL, 2.0)));
}

static void test_route(void **state)
{
	static const struct {
		const char *method, *path;
		enum serve_route want;
		const char *arg, *allow;
	} rows[] = {
		{"POST", "/v1/evaluations", SERVE_ROUTE_SUBMIT, NULL, NULL},
		{"GET", "/v1/evaluations", SERVE_ROUTE_BAD_METHOD, NULL, "POST"},
		{"POST", "/v1/evaluations:batch", SERVE_ROUTE_BATCH, NULL, NULL},
		{"PUT", "/v1/evaluations:batch", SERVE_ROUTE_BAD_METHOD, NULL, "POST"},
		{"GET", "/v1/evaluations/abc", SERVE_ROUTE_STATUS, "abc", NULL},
		{"HEAD", "/v1/evaluations/abc", SERVE_ROUTE_STATUS, "abc", NULL},
		{"POST", "/v1/evaluations/abc", SERVE_ROUTE_BAD_METHOD, NULL, "GET"},
		{"GET", "/v1/evaluations/", SERVE_ROUTE_NOT_FOUND, NULL, NULL},
		{"GET", "/v1/evaluations/a/b", SERVE_ROUTE_NOT_FOUND, NULL, NULL},
		{"GET", "/v1/tasks", SERVE_ROUTE_TASKS, NULL, NULL},
		{"GET", "/v1/tasks/add", SERVE_ROUTE_TASK, "add", NULL},
		{"GET", "/v1/tasks/aten/add", SERVE_ROUTE_TASK, "aten/add", NULL},
		{"GET", "/v1/tasks/aten/", SERVE_ROUTE_NOT_FOUND, NULL, NULL},
		{"GET", "/v1/tasks/a/b/c", SERVE_ROUTE_NOT_FOUND, NULL, NULL},
		{"GET", "/v1/tasksx", SERVE_ROUTE_NOT_FOUND, NULL, NULL},
		{"GET", "/healthz", SERVE_ROUTE_HEALTH, NULL, NULL},
		{"GET", "/healthz/", SERVE_ROUTE_NOT_FOUND, NULL, NULL},
		{"DELETE", "/metrics", SERVE_ROUTE_BAD_METHOD, NULL, "GET"},
		{"GET", "/metrics", SERVE_ROUTE_METRICS, NULL, NULL},
		{"GET", "/", SERVE_ROUTE_NOT_FOUND, NULL, NULL},
		{"GET", "", SERVE_ROUTE_NOT_FOUND, NULL, NULL},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *arg, *allow;
		enum serve_route r = serve_route(rows[i].method, rows[i].path, &arg, &allow);

		if (r != rows[i].want)
			fail_msg("%s %s: route %d, expected %d", rows[i].method, rows[i].path, r,
				 rows[i].want);
		if (rows[i].arg)
			assert_string_equal(arg, rows[i].arg);
		else
			assert_null(arg);
		if (rows[i].allow)
			assert_string_equal(allow, rows[i].allow);
		else
			assert_null(allow);
	}
}

static void test_tokens(void **state)
{
	char dir[] = "/tmp/kgb-t-serve.XXXXXX", path[64], d[HASH_HEX_LEN + 1], e[HASH_HEX_LEN + 1];
	struct strbuf err = STRBUF_INIT;
	struct serve s;
	FILE *f;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tokens", dir);
	serve_token_digest("abc", 3, d);
	serve_token_digest("abd", 3, e);
	assert_int_equal(strlen(d), HASH_HEX_LEN);
	assert_string_not_equal(d, e);
	assert_null(strstr(d, "abc"));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# comment\n\n  abc \r\nsecond-token\n", f);
	fclose(f);
	assert_int_equal(serve_load_tokens(&s, path, &err), 0);
	assert_int_equal(s.nr_tokens, 2);
	assert_string_equal(s.tokens[0], d);
	assert_true(serve_auth(&s, "Bearer abc", e));
	assert_string_equal(e, d);
	assert_true(serve_auth(&s, "bearer second-token", e));
	assert_false(serve_auth(&s, "Bearer abcd", e));
	assert_false(serve_auth(&s, "Bearer ", e));
	assert_false(serve_auth(&s, "Basic abc", e));
	assert_false(serve_auth(&s, NULL, e));
	free(s.tokens);
	s.tokens = NULL;
	s.nr_tokens = 0;
	/* No tokens file: everyone is the one anonymous client. */
	assert_true(serve_auth(&s, NULL, e));
	assert_string_equal(e, "");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# only a comment\n", f);
	fclose(f);
	assert_int_equal(serve_load_tokens(&s, path, &err), -EINVAL);
	unlink(path);
	rmdir(dir);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_reward),
	cmocka_unit_test(test_route),
	cmocka_unit_test(test_tokens),
};

UNIT_MAIN(tests)
