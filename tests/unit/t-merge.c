/*
 * t-merge.c - store_merge() (docs/cluster.md): shard stores folded into one, idempotently, one
 * run per platform linking every candidate; a key stored with another verdict is a conflict
 * kept as it was; store_progress() reads a shard's progress.
 */
#include "unit.h"

#include "store.h"

/* Stores one evaluation of task `task` on `platform` with key char `k` repeated, and 2 cases. */
static void put(struct store *s, long long run, const char *task, const char *platform, char k,
		const char *verdict)
{
	struct store_eval e = {0};
	struct strbuf err = STRBUF_INIT;
	json_t *cases = unit_json("[{'entry': 'f', 'axes': {'n': 1}, 'result': {'verdict': 'pass'}},"
				  " {'entry': 'f', 'axes': {'n': 2}, 'result': {'verdict': 'pass'}}]");

	memset(e.key, k, HASH_HEX_LEN);
	e.task = (char *)task;
	e.source = "aten";
	e.task_version = "v1";
	e.candidate_hash = "c";
	e.sample = "shipped";
	e.platform = (char *)platform;
	e.harness = "h";
	e.verdict = (char *)verdict;
	e.cases_total = 2;
	e.cases_passed = 2;
	e.speedup = NAN;
	e.max_tol_use = NAN;
	e.import_ms = NAN;
	e.wall_ms = 5;
	if (store_eval_put(s, run, &e, cases, &err) < 0)
		fail_msg("store_eval_put: %s", err.buf);
	json_decref(cases);
	strbuf_release(&err);
}

static struct store *open_store(const char *dir, const char *name, char **ret_path)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;

	*ret_path = path_join(dir, name);
	if (store_open(*ret_path, &s, &err) < 0)
		fail_msg("store_open: %s", err.buf);
	strbuf_release(&err);
	return s;
}

/* The number of runs merged under label "L" in the store at path, reopened; -1 on failure. */
static long long merged_runs(const char *path)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	long long n = -1;

	if (store_open(path, &s, &err) == 0) {
		long long *ids = NULL;
		char **plats = NULL;
		size_t nr = 0;

		if (store_merge_runs(s, "L", &ids, &plats, &nr, &err) == 0)
			n = (long long)nr;
		free(ids);
		strv_free(plats);
	}
	store_free(s);
	strbuf_release(&err);
	return n;
}

static void test_merge(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf err = STRBUF_INIT;
	struct store_merge_stats ms = {0};
	struct store_progress pr;
	char *p1, *p2, *pd;
	struct store *a = open_store(fx->root, "shard-0.db", &p1);
	struct store *b = open_store(fx->root, "shard-1.db", &p2);
	struct store *d = open_store(fx->root, "dest.db", &pd);
	long long ra, rb1, rb2, rb3, *ids = NULL;
	char **plats = NULL;
	size_t nr = 0;

	assert_int_equal(store_run_begin(a, "interpreter", "h", "kgb eval", "{}", &ra, &err), 0);
	put(a, ra, "abs", "interpreter", 'a', "pass");
	put(a, ra, "neg", "interpreter", 'b', "mismatch");
	assert_int_equal(store_run_end(a, ra, &err), 0);
	/* Shard 1: a killed run, then a rerun that reuses its result and adds one. */
	assert_int_equal(store_run_begin(b, "interpreter", "h", "kgb eval", "{}", &rb1, &err), 0);
	put(b, rb1, "cos", "interpreter", 'c', "pass");
	assert_int_equal(store_run_begin(b, "interpreter", "h", "kgb eval", "{}", &rb2, &err), 0);
	put(b, rb2, "sin", "interpreter", 'd', "pass");
	{
		struct store_eval e = {0};

		memset(e.key, 'c', HASH_HEX_LEN);
		e.task = "cos";
		e.sample = "shipped";
		assert_int_equal(store_run_link(b, rb2, &e, true, &err), 0);
	}
	assert_int_equal(store_run_end(b, rb2, &err), 0);
	/* Another platform's run in the same file (killed): its own merged run. */
	assert_int_equal(store_run_begin(b, "cuda", "h", "kgb eval", "{}", &rb3, &err), 0);
	put(b, rb3, "cos", "cuda", 'e', "pass");
	store_free(a);
	store_free(b);

	assert_int_equal(store_progress(p2, &pr, &err), 0);
	assert_int_equal(pr.candidates, 2); /* cos and sin; a shard has one platform */
	assert_int_equal(pr.finished_runs, 1);
	assert_int_equal(pr.finished_links, 2);
	assert_int_equal(store_progress("/nonexistent/x.db", &pr, &err), -ENOENT);

	assert_int_equal(store_merge(d, p1, "L", &ms, &err), 0);
	assert_int_equal(store_merge(d, p2, "L", &ms, &err), 0);
	assert_int_equal(ms.evaluations_added, 5);
	assert_int_equal(ms.cases_added, 10);
	assert_int_equal(ms.evaluations_known, 0);
	assert_int_equal(store_merge_runs(d, "L", &ids, &plats, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(plats[0], "cuda");
	assert_string_equal(plats[1], "interpreter");
	{
		struct store_eval *v = NULL;
		bool *reused = NULL;
		size_t n = 0;

		assert_int_equal(store_run_evals(d, ids[1], &v, &n, &reused, &err), 0);
		assert_int_equal(n, 4); /* abs, cos, neg, sin: cos once */
		for (size_t i = 0; i < n; i++) {
			assert_false(reused[i]);
			store_eval_release(&v[i]);
		}
		free(v);
		free(reused);
	}
	free(ids);
	strv_free(plats);

	/* Again: nothing added, every key known. */
	memset(&ms, 0, sizeof(ms));
	assert_int_equal(store_merge(d, p1, "L", &ms, &err), 0);
	assert_int_equal(store_merge(d, p2, "L", &ms, &err), 0);
	assert_int_equal(ms.evaluations_added, 0);
	assert_int_equal(ms.cases_added, 0);
	assert_int_equal(ms.links_added, 0);
	assert_int_equal(ms.evaluations_known, 5);
	assert_int_equal(ms.conflicts, 0);
	store_free(d);
	assert_int_equal(merged_runs(pd), 2);

	/* A store holding key 'a' with another verdict: a conflict, its own row kept. */
	{
		char *pc;
		struct store *c = open_store(fx->root, "other.db", &pc);
		struct store_eval got;
		long long rc;

		assert_int_equal(store_run_begin(c, "interpreter", "h", "kgb eval", "{}", &rc, &err),
				 0);
		put(c, rc, "abs", "interpreter", 'a', "crash");
		memset(&ms, 0, sizeof(ms));
		assert_int_equal(store_merge(c, p1, "L", &ms, &err), 0);
		assert_int_equal(ms.conflicts, 1);
		assert_int_equal(ms.evaluations_added, 1);
		{
			char key[HASH_HEX_LEN + 1];

			memset(key, 'a', HASH_HEX_LEN);
			key[HASH_HEX_LEN] = '\0';
			assert_int_equal(store_eval_get(c, key, &got, &err), 0);
			assert_string_equal(got.verdict, "crash");
			store_eval_release(&got);
		}
		store_free(c);
		free(pc);
	}
	/* Not a store, or absent. */
	unit_write_file(fx->root, "junk.db", "not sqlite at all, not even close to a header....");
	free(pd);
	d = open_store(fx->root, "dest.db", &pd);
	{
		char *junk = path_join(fx->root, "junk.db");

		strbuf_reset(&err);
		assert_true(store_merge(d, junk, "L", &ms, &err) < 0);
		assert_contains(err.buf, "junk.db");
		strbuf_reset(&err);
		assert_int_equal(store_merge(d, "/nonexistent/s.db", "L", &ms, &err), -ENOENT);
		free(junk);
	}
	store_free(d);
	free(p1);
	free(p2);
	free(pd);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
	unit_test_fx(test_merge),
};

UNIT_MAIN(tests)
