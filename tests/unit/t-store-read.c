/*
 * t-store-read.c - the store's readers for reports (store.h): a run's row, an evaluation's
 * cases as JSON, a generation run's first-round attempts and totals. Every SQL statement is
 * the store's; report_runs.c reads through these.
 */
#include "unit.h"

#include <sqlite3.h>

#include "escape.h"
#include "store.h"

static struct store *open_store(const char *dir, char **ret_path)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;

	*ret_path = path_join(dir, "s.db");
	if (store_open(*ret_path, &s, &err) < 0)
		fail_msg("store_open: %s", err.buf);
	strbuf_release(&err);
	return s;
}

static void test_run_row_and_cases(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf err = STRBUF_INIT;
	char *path, *started = NULL, *command = NULL, *harness = NULL;
	struct store *s = open_store(fx->root, &path);
	struct store_eval e = {0};
	json_t *cases = unit_json("[{'entry': 'f', 'axes': {'n': 1}, 'timed': true, 'atol': 0.001,"
				  "  'rtol': 0.002, 'result': {'verdict': 'pass', 'max_abs_err': 0.5,"
				  "  'speedup': 2.0}},"
				  " {'entry': 'g', 'axes': {'n': 2}, 'result': {'verdict': 'mismatch'}}]");
	json_t *got = NULL, *c0, *c1;
	long long run;

	assert_int_equal(store_run_begin(s, "interpreter", "h1", "kgb eval x", "{}", &run, &err), 0);
	memset(e.key, 'k', HASH_HEX_LEN);
	e.task = "add";
	e.source = "aten";
	e.task_version = "v1";
	e.candidate_hash = "c";
	e.sample = "shipped";
	e.platform = "interpreter";
	e.harness = "h1";
	e.verdict = "mismatch";
	e.cases_total = 2;
	e.speedup = e.max_tol_use = e.import_ms = e.wall_ms = NAN;
	assert_int_equal(store_eval_put(s, run, &e, cases, &err), 0);

	assert_int_equal(store_run_row(s, run, &started, &command, &harness, &err), 0);
	assert_non_null(started);
	assert_string_equal(command, "kgb eval x");
	assert_string_equal(harness, "h1");
	assert_int_equal(store_run_row(s, run + 1, &started, &command, &harness, &err), -ENOENT);

	assert_int_equal(store_eval_cases(s, e.key, &got, &err), 0);
	assert_int_equal(json_array_size(got), 2);
	c0 = json_array_get(got, 0);
	c1 = json_array_get(got, 1);
	assert_int_equal(json_integer_value(json_object_get(c0, "case_id")), 0);
	assert_string_equal(json_string_value(json_object_get(c0, "entry")), "f");
	assert_int_equal(json_integer_value(json_object_get(c0, "timed")), 1);
	assert_true(json_real_value(json_object_get(c0, "max_abs_err")) == 0.5);
	assert_true(json_real_value(json_object_get(c0, "speedup")) == 2.0);
	assert_true(json_real_value(json_object_get(c0, "rtol")) == 0.002);
	assert_string_equal(json_string_value(json_object_get(c1, "verdict")), "mismatch");
	/* Not stored (NULL in the table): null, never a made-up number. */
	assert_true(json_is_null(json_object_get(c1, "speedup")));
	assert_true(json_is_null(json_object_get(c1, "max_abs_err")));
	json_decref(got);
	got = NULL;
	assert_int_equal(store_eval_cases(s, "nosuchkey", &got, &err), 0);
	assert_int_equal(json_array_size(got), 0);

	json_decref(got);
	json_decref(cases);
	free(started);
	free(command);
	free(harness);
	store_free(s);
	free(path);
	strbuf_release(&err);
}

static void test_generation(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf err = STRBUF_INIT;
	char *path;
	struct store *s = open_store(fx->root, &path);
	struct store_attempt *a = NULL;
	struct store_gen_totals tot;
	size_t n = 0;
	long long run;
	/* Two tasks; b's sample 1 fails round 0 and passes round 1 (not a first attempt). */
	const char *rows[] = {
		"{'task': 'b', 'source': 'aten', 'sample': 1, 'round': 0, 'stage': 'generate',"
		" 'model': 'm', 'track': 'sample', 'outcome': 'mismatch', 'prompt_tokens': 10,"
		" 'completion_tokens': 5, 'cost_usd': 0.5, 'latency_ms': 100, 'eval_ms': 50,"
		" 'eval_key': 'kb1'}",
		"{'task': 'b', 'source': 'aten', 'sample': 1, 'round': 1, 'stage': 'generate',"
		" 'model': 'm', 'track': 'sample', 'outcome': 'pass', 'prompt_tokens': 20,"
		" 'completion_tokens': 5, 'cost_usd': 0.25, 'latency_ms': 10, 'eval_ms': 40}",
		"{'task': 'a', 'source': 'aten', 'sample': 0, 'round': 0, 'stage': 'generate',"
		" 'model': 'm', 'track': 'sample', 'outcome': 'no_code', 'error': 'no fence',"
		" 'prompt_tokens': 1, 'completion_tokens': 1, 'cost_usd': 0.25}",
	};

	assert_int_equal(store_run_begin(s, "interpreter", "generate", "kgb generate", "{}", &run,
					 &err), 0);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		json_t *row = unit_json(rows[i]);

		assert_int_equal(store_generation_put(s, run, row, &err), 0);
		json_decref(row);
	}
	assert_int_equal(store_first_attempts(s, run, &a, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(a[0].task, "a"); /* by source, task, sample */
	assert_string_equal(a[0].outcome, "no_code");
	assert_string_equal(a[0].error, "no fence");
	assert_null(a[0].eval_key);
	assert_string_equal(a[1].task, "b");
	assert_int_equal(a[1].sample, 1);
	assert_string_equal(a[1].eval_key, "kb1");
	store_attempts_free(a, n);

	assert_int_equal(store_generation_totals(s, run, &tot, &err), 0);
	assert_int_equal(tot.tokens, 42);
	assert_true(tot.cost_usd == 1.0);
	assert_true(tot.time_ms == 200.0);
	assert_int_equal(tot.tasks, 2);
	assert_int_equal(tot.solved, 1);
	assert_string_equal(tot.model, "m");
	assert_string_equal(tot.track, "sample");
	free(tot.model);
	free(tot.track);

	/* One request without a cost: the run's cost is unknown, not the sum of the others. */
	{
		json_t *row = unit_json("{'task': 'c', 'source': 'aten', 'sample': 0, 'round': 0,"
					" 'stage': 'generate', 'track': 'sample', 'outcome': 'pass'}");

		assert_int_equal(store_generation_put(s, run, row, &err), 0);
		json_decref(row);
	}
	assert_int_equal(store_generation_totals(s, run, &tot, &err), 0);
	assert_true(isnan(tot.cost_usd));
	assert_int_equal(tot.solved, 2);
	free(tot.model);
	free(tot.track);
	store_free(s);
	free(path);
	strbuf_release(&err);
}

/* Runs sql on the file at path, outside the store: what another tool or a hand may write. */
static void edit_file(const char *path, const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* A generation run without a request: tokens -1 as the header says (it was 0; fuzz-store). */
static void test_totals_without_requests(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf err = STRBUF_INIT;
	char *path;
	struct store *s = open_store(fx->root, &path);
	struct store_gen_totals tot;
	long long run;

	assert_int_equal(store_run_begin(s, "interpreter", "generate", "kgb generate", "{}", &run,
					 &err), 0);
	assert_int_equal(store_generation_totals(s, run, &tot, &err), 0);
	assert_int_equal(tot.tokens, -1);
	assert_int_equal(tot.tasks, 0);
	assert_true(isnan(tot.cost_usd) && isnan(tot.time_ms));
	assert_null(tot.model);
	store_free(s);
	free(path);
	strbuf_release(&err);
}

/*
 * Per-entry counts of cases whose entry is not UTF-8, NULL, or "?": every case counted, the
 * name escaped like all text read, and names that meet added up (an entry that was not UTF-8
 * was dropped, since JSON refuses such a key, and NULL replaced "?"; fuzz-store).
 */
static void test_entries_odd_names(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf err = STRBUF_INIT;
	char *path;
	struct store *s = open_store(fx->root, &path);
	struct store_eval e = {0};
	json_t *cases = unit_json("[{'entry': 'a', 'result': {'verdict': 'pass'}},"
				  " {'entry': 'b', 'result': {'verdict': 'pass'}},"
				  " {'entry': 'c', 'result': {'verdict': 'mismatch'}},"
				  " {'entry': '?', 'result': {'verdict': 'pass'}}]");
	json_t *got = NULL;
	long long run, total = 0;
	const char *name;
	json_t *v;

	assert_int_equal(store_run_begin(s, "interpreter", "h1", "kgb eval", "{}", &run, &err), 0);
	memset(e.key, 'k', HASH_HEX_LEN);
	e.task = e.source = e.task_version = e.candidate_hash = e.sample = "x";
	e.platform = "interpreter";
	e.harness = "h1";
	e.verdict = "mismatch";
	e.speedup = e.max_tol_use = e.import_ms = e.wall_ms = NAN;
	assert_int_equal(store_eval_put(s, run, &e, cases, &err), 0);
	store_free(s);
	edit_file(path, "UPDATE cases SET entry = CAST(X'ff41' AS TEXT) WHERE case_id = 0;"
			"UPDATE cases SET entry = NULL WHERE case_id = 1;");
	s = NULL;
	assert_int_equal(store_open_readonly(path, &s, &err), 0);
	assert_int_equal(store_eval_entries(s, e.key, &got, &err), 0);
	json_object_foreach(got, name, v)
		total += json_integer_value(json_object_get(v, "total"));
	assert_int_equal(total, 4);
	assert_int_equal(json_object_size(got), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(got, "\\xffA"),
							    "total")), 1);
	v = json_object_get(got, "?");
	assert_int_equal(json_integer_value(json_object_get(v, "total")), 2);
	assert_int_equal(json_integer_value(json_object_get(v, "passed")), 2);
	json_decref(got);
	json_decref(cases);
	store_free(s);
	free(path);
	strbuf_release(&err);
}

/*
 * An evaluation's key as read is UTF-8 and at most HASH_HEX_LEN bytes, cut at a character's
 * start: bytes that are not UTF-8 are escaped like all text read (they were copied, and
 * `kgb report --json` printed "(null)" for the evaluation; fuzz-store).
 */
static void test_key_not_utf8(void **state)
{
	static const char *const edits[] = {
		"UPDATE evaluations SET key = CAST(X'ff41' AS TEXT);"
		"UPDATE run_evals SET eval_key = CAST(X'ff41' AS TEXT);",
		/* 33 two-byte characters: 66 bytes, the 33rd cut */
		"UPDATE evaluations SET key = replace(printf('%.33c', 'x'), 'x', char(233));"
		"UPDATE run_evals SET eval_key = (SELECT key FROM evaluations);",
	};
	static const char *const want[] = {"\\xffA", NULL};
	struct unit_fx *fx = *state;

	for (size_t i = 0; i < ARRAY_SIZE(edits); i++) {
		struct strbuf err = STRBUF_INIT;
		char dir[32], *sub, *path;
		struct store *s;
		struct store_eval e = {0}, *v = NULL;
		json_t *cases = unit_json("[]");
		bool *reused = NULL;
		size_t n = 0;
		long long run;

		snprintf(dir, sizeof(dir), "key%zu", i);
		sub = path_join(fx->root, dir);
		assert_int_equal(mkdir_p(sub, 0755), 0);
		s = open_store(sub, &path);
		assert_int_equal(
			store_run_begin(s, "interpreter", "h1", "kgb eval", "{}", &run, &err), 0);
		memset(e.key, 'k', HASH_HEX_LEN);
		e.task = e.source = e.task_version = e.candidate_hash = e.sample = "x";
		e.platform = "interpreter";
		e.harness = "h1";
		e.verdict = "pass";
		e.speedup = e.max_tol_use = e.import_ms = e.wall_ms = NAN;
		assert_int_equal(store_eval_put(s, run, &e, cases, &err), 0);
		store_free(s);
		edit_file(path, edits[i]);
		s = NULL;
		assert_int_equal(store_open_readonly(path, &s, &err), 0);
		assert_int_equal(store_run_evals(s, run, &v, &n, &reused, &err), 0);
		assert_int_equal(n, 1);
		assert_true(escape_utf8_valid(v[0].key));
		if (want[i])
			assert_string_equal(v[0].key, want[i]);
		else
			assert_int_equal(strlen(v[0].key), 64); /* 32 characters of 2 bytes */
		store_eval_release(&v[0]);
		free(v);
		free(reused);
		json_decref(cases);
		store_free(s);
		free(path);
		free(sub);
		strbuf_release(&err);
	}
}

/*
 * The runs of a merge, from a store whose runs table another tool rebuilt without NOT NULL and
 * left a NULL platform: "?" for it, and the list goes on (a NULL ended it there, strv_free()
 * leaked the rest and `kgb merge` printed "(null)"; fuzz-store).
 */
static void test_merge_runs_null_platform(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf err = STRBUF_INIT;
	char *path;
	struct store *s = open_store(fx->root, &path);
	long long run, *ids = NULL;
	char **plats = NULL;
	size_t n = 0;

	assert_int_equal(store_run_begin(s, "cuda", "h1", "kgb merge --label x", "{}", &run, &err),
			 0);
	assert_int_equal(store_run_begin(s, "rocm", "h1", "kgb merge --label x", "{}", &run, &err),
			 0);
	store_free(s);
	edit_file(path, "CREATE TABLE r2 AS SELECT * FROM runs; DROP TABLE runs;"
			"ALTER TABLE r2 RENAME TO runs; UPDATE runs SET platform = NULL"
			" WHERE platform = 'cuda';");
	s = NULL;
	assert_int_equal(store_open_readonly(path, &s, &err), 0);
	assert_int_equal(store_merge_runs(s, "x", &ids, &plats, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(plats[0], "?");
	assert_string_equal(plats[1], "rocm");
	assert_null(plats[2]);
	free(ids);
	strv_free(plats);
	store_free(s);
	free(path);
	strbuf_release(&err);
}

/*
 * A stored check or ceilings whose value is NULL (the table rebuilt without NOT NULL) is none:
 * -ENOENT, never 0 without a string (ceilings.c then failed with "not JSON"; fuzz-store).
 */
static void test_null_value_is_none(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf err = STRBUF_INIT;
	char *path, *json = NULL;
	struct store *s = open_store(fx->root, &path);

	assert_int_equal(store_check_put(s, "k", "{}", &err), 0);
	assert_int_equal(store_ceilings_put(s, "H200", "torch", "{}", &err), 0);
	store_free(s);
	edit_file(path, "CREATE TABLE c2 AS SELECT * FROM checks; DROP TABLE checks;"
			"ALTER TABLE c2 RENAME TO checks; UPDATE checks SET result = NULL;"
			"CREATE TABLE c3 AS SELECT * FROM ceilings; DROP TABLE ceilings;"
			"ALTER TABLE c3 RENAME TO ceilings; UPDATE ceilings SET value = NULL;");
	s = NULL;
	assert_int_equal(store_open_readonly(path, &s, &err), 0);
	assert_int_equal(store_check_get(s, "k", &json, &err), -ENOENT);
	assert_int_equal(store_ceilings_get(s, "H200", "torch", &json, &err), -ENOENT);
	assert_null(json);
	assert_int_equal(err.len, 0);
	store_free(s);
	free(path);
	strbuf_release(&err);
}

/*
 * A kgb store of another schema, in rollback-journal mode (a shard store on a network
 * filesystem is kept so): store_open() refuses it and leaves every byte, journal mode included
 * (it switched the file to WAL before reading the schema; fuzz-store).
 */
static void test_open_other_schema_untouched(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf err = STRBUF_INIT, before = STRBUF_INIT, after = STRBUF_INIT;
	char *path;
	struct store *s = open_store(fx->root, &path);

	store_free(s);
	edit_file(path, "PRAGMA journal_mode=DELETE; UPDATE meta SET value = '3' WHERE key = "
			"'schema';");
	assert_int_equal(strbuf_read_file(&before, path, 0), 0);
	s = NULL;
	assert_int_equal(store_open(path, &s, &err), -EPROTO);
	assert_contains(err.buf, "has schema 3");
	assert_null(s);
	assert_int_equal(strbuf_read_file(&after, path, 0), 0);
	assert_int_equal(after.len, before.len);
	assert_memory_equal(after.buf, before.buf, before.len);
	free(path);
	strbuf_release(&err);
	strbuf_release(&before);
	strbuf_release(&after);
}

/* The latest run (store_run_info() with run 0): one a command started, not a generate run's
 * evaluation of its candidates; a run with no command line counts as one started. */
static void test_latest_run(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf err = STRBUF_INIT;
	char *path, *platform = NULL, *env = NULL;
	struct store *s = open_store(fx->root, &path);
	long long eval_run, gen_run, inner, none, got = 0;

	assert_int_equal(store_run_begin(s, "interpreter", "h1", "kgb eval", "{}", &eval_run, &err),
			 0);
	assert_int_equal(store_run_info(s, &got, &platform, &env, &err), 0);
	assert_int_equal(got, eval_run);
	free(platform);
	free(env);
	assert_int_equal(store_run_begin(s, "interpreter", "generate", "kgb generate", "{}",
					 &gen_run, &err), 0);
	assert_int_equal(store_run_begin(s, "interpreter", "h1", "kgb generate", "{}", &inner,
					 &err), 0);
	got = 0;
	assert_int_equal(store_run_info(s, &got, &platform, &env, &err), 0);
	assert_int_equal(got, gen_run);
	free(platform);
	free(env);
	got = inner; /* named, it is read like any */
	assert_int_equal(store_run_info(s, &got, &platform, &env, &err), 0);
	assert_int_equal(got, inner);
	free(platform);
	free(env);
	assert_int_equal(store_run_begin(s, "interpreter", "h1", NULL, "{}", &none, &err), 0);
	got = 0;
	assert_int_equal(store_run_info(s, &got, &platform, &env, &err), 0);
	assert_int_equal(got, none);
	free(platform);
	free(env);
	store_free(s);
	free(path);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
	unit_test_fx(test_latest_run),
	unit_test_fx(test_run_row_and_cases),
	unit_test_fx(test_generation),
	unit_test_fx(test_totals_without_requests),
	unit_test_fx(test_entries_odd_names),
	unit_test_fx(test_key_not_utf8),
	unit_test_fx(test_merge_runs_null_platform),
	unit_test_fx(test_null_value_is_none),
	unit_test_fx(test_open_other_schema_untouched),
};

UNIT_MAIN(tests)
