/*
 * t-slurm.c - the pure parts of the Slurm backend: the shard split, Slurm's array index lists,
 * the squeue/sacct/sbatch output parsers, the shard state decision, the sbatch argv and the
 * plan's JSON round trip (docs/cluster.md).
 */
#include "unit.h"

#include "shard.h"
#include "slurm.h"

static void test_shard_split(void **state)
{
	size_t sizes[4] = {0};

	(void)state;
	assert_int_equal(shard_count(14, 4), 4);
	assert_int_equal(shard_count(3, 4), 3);	 /* no empty shard */
	assert_int_equal(shard_count(5, 0), 5);	 /* default: one per task */
	assert_int_equal(shard_count(0, 4), 1);
	/* Round-robin: neighbours apart, sizes within one of each other, same on every call. */
	for (size_t i = 0; i < 14; i++)
		sizes[shard_of(i, 4)]++;
	assert_int_equal(sizes[0], 4);
	assert_int_equal(sizes[1], 4);
	assert_int_equal(sizes[2], 3);
	assert_int_equal(sizes[3], 3);
	assert_int_equal(shard_of(13, 4), 1);
	assert_int_equal(shard_of(5, 1), 0);
}

static void test_ranges(void **state)
{
	static const struct {
		size_t v[8];
		size_t n;
		const char *want;
	} rows[] = {
		{{0, 1, 2, 3}, 4, "0-3"},
		{{1}, 1, "1"},
		{{0, 1, 2, 3, 5, 7, 8}, 7, "0-3,5,7-8"},
		{{2, 4, 6}, 3, "2,4,6"},
		{{0}, 0, ""},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct strbuf sb = STRBUF_INIT;
		size_t *back = NULL, n = 0;

		shard_format_ranges(&sb, rows[i].v, rows[i].n);
		assert_string_equal(sb.buf, rows[i].want);
		if (rows[i].n) {
			assert_int_equal(slurm_parse_ranges(sb.buf, 100, &back, &n), 0);
			assert_int_equal(n, rows[i].n);
			for (size_t k = 0; k < n; k++)
				assert_int_equal(back[k], rows[i].v[k]);
			free(back);
		}
		strbuf_release(&sb);
	}
	{
		size_t *v = NULL, n = 0;

		/* A throttle ("%2") limits how many run at once; the indices are the same. */
		assert_int_equal(slurm_parse_ranges("0-3%2", 100, &v, &n), 0);
		assert_int_equal(n, 4);
		free(v);
	}
	{
		static const char *const bad[] = {"", "a", "3-1", "1,", ",1", "1-", "1 2", "5-200"};
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			size_t *v = NULL, n = 0;

			print_message("'%s'\n", bad[i]);
			assert_int_equal(slurm_parse_ranges(bad[i], 100, &v, &n), -EBADMSG);
			assert_null(v);
		}
	}
}

static void test_parse_states(void **state)
{
	/* squeue -r -h -t all -o '%i|%T', then sacct -n -P -X -o JobID,State. */
	const char *text = "12_0|COMPLETED\n"
			   "12_1|RUNNING\n"
			   "  12_2|PENDING  \n"
			   "\n"
			   "13|CANCELLED by 0\n"
			   "14_[3-5,9%2]|PENDING\n"
			   "15_7|PREEMPTED\n"
			   "15_8|OUT_OF_MEMORY\n"
			   "15.batch|COMPLETED\n"
			   "16_1|NEVER_HEARD_OF\n";
	struct slurm_task_state *v = NULL;
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;
	static const struct {
		long long job, task;
		enum slurm_state state;
	} want[] = {
		{12, 0, SLURM_STATE_COMPLETED}, {12, 1, SLURM_STATE_RUNNING},
		{12, 2, SLURM_STATE_PENDING},	{13, -1, SLURM_STATE_CANCELLED},
		{14, 3, SLURM_STATE_PENDING},	{14, 4, SLURM_STATE_PENDING},
		{14, 5, SLURM_STATE_PENDING},	{14, 9, SLURM_STATE_PENDING},
		{15, 7, SLURM_STATE_PREEMPTED}, {15, 8, SLURM_STATE_FAILED},
		{16, 1, SLURM_STATE_UNKNOWN},
	};

	(void)state;
	assert_int_equal(slurm_parse_states(text, &v, &n, &err), 0);
	assert_int_equal(n, ARRAY_SIZE(want));
	for (size_t i = 0; i < n; i++) {
		print_message("row %zu\n", i);
		assert_int_equal(v[i].job_id, want[i].job);
		assert_int_equal(v[i].task_id, want[i].task);
		assert_int_equal(v[i].state, want[i].state);
	}
	free(v);
	v = NULL;
	n = 0;
	{
		static const char *const bad[] = {"12_1 RUNNING\n", "x|RUNNING\n", "12_|RUNNING\n",
						  "12_[1-|PENDING\n", "12_1x|RUNNING\n"};
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			strbuf_reset(&err);
			print_message("'%s'\n", bad[i]);
			assert_int_equal(slurm_parse_states(bad[i], &v, &n, &err), -EBADMSG);
			assert_contains(err.buf, "malformed job state line");
		}
	}
	free(v);
	strbuf_release(&err);
	assert_int_equal(slurm_state_from_string("TIMEOUT"), SLURM_STATE_FAILED);
	assert_int_equal(slurm_state_from_string("CANCELLED+"), SLURM_STATE_CANCELLED);
	assert_string_equal(slurm_state_to_string(SLURM_STATE_RUNNING), "running");
}

static void test_parse_sbatch(void **state)
{
	struct strbuf err = STRBUF_INIT;
	long long id = 0;

	(void)state;
	assert_int_equal(slurm_parse_sbatch("4242\n", &id, &err), 0);
	assert_int_equal(id, 4242);
	assert_int_equal(slurm_parse_sbatch("77;cluster-a\n", &id, &err), 0);
	assert_int_equal(id, 77);
	assert_int_equal(slurm_parse_sbatch("Submitted batch job 5\n", &id, &err), -EBADMSG);
	assert_contains(err.buf, "unexpected sbatch output");
	strbuf_reset(&err);
	assert_int_equal(slurm_parse_sbatch("", &id, &err), -EBADMSG);
	strbuf_release(&err);
}

static void test_decide(void **state)
{
	(void)state;
	/* The store decides "done", whatever Slurm says; Slurm decides the rest. */
	assert_int_equal(slurm_shard_decide(true, SLURM_STATE_CANCELLED, true), SLURM_SHARD_DONE);
	assert_int_equal(slurm_shard_decide(false, SLURM_STATE_UNKNOWN, false), SLURM_SHARD_NEW);
	assert_int_equal(slurm_shard_decide(true, SLURM_STATE_PENDING, false),
			 SLURM_SHARD_PENDING);
	assert_int_equal(slurm_shard_decide(true, SLURM_STATE_RUNNING, false),
			 SLURM_SHARD_RUNNING);
	assert_int_equal(slurm_shard_decide(true, SLURM_STATE_CANCELLED, false),
			 SLURM_SHARD_CANCELLED);
	assert_int_equal(slurm_shard_decide(true, SLURM_STATE_PREEMPTED, false),
			 SLURM_SHARD_PREEMPTED);
	/* Exit 0 without a finished store (killed worker platform, env failure): failed. */
	assert_int_equal(slurm_shard_decide(true, SLURM_STATE_COMPLETED, false),
			 SLURM_SHARD_FAILED);
	assert_int_equal(slurm_shard_decide(true, SLURM_STATE_UNKNOWN, false), SLURM_SHARD_LOST);
	assert_false(slurm_shard_needs_submit(SLURM_SHARD_DONE));
	assert_false(slurm_shard_needs_submit(SLURM_SHARD_PENDING));
	assert_false(slurm_shard_needs_submit(SLURM_SHARD_RUNNING));
	assert_true(slurm_shard_needs_submit(SLURM_SHARD_CANCELLED));
	assert_true(slurm_shard_needs_submit(SLURM_SHARD_PREEMPTED));
	assert_true(slurm_shard_needs_submit(SLURM_SHARD_LOST));
	assert_true(slurm_shard_needs_submit(SLURM_SHARD_NEW));
}

static void test_sbatch_argv(void **state)
{
	/* One partition per platform, a default GRES, one constraint for cuda only. */
	const struct slurm_part parts[] = {{"cuda", "gpuq"}, {"interpreter", "cpuq"}};
	const struct slurm_part gres[] = {{NULL, "gpu:1"}, {"interpreter", "none"}};
	const struct slurm_part cons[] = {{"cuda", "h200"}};
	const char *const extra[] = {"--exclusive", NULL};
	struct slurm_submit_opts so = {
		.partitions = parts, .nr_partitions = 2, .gres = gres, .nr_gres = 2,
		.constraints = cons, .nr_constraints = 1, .time = "30", .mem = "16000",
		.account = "acct", .qos = "high", .cpus_per_task = 8, .extra = extra,
		.kgb = "/opt/kgb/build/kgb", .job_name = "kgb-run",
	};
	size_t idx[] = {0, 1, 2, 5};
	struct strbuf all = STRBUF_INIT;
	char **v;

	(void)state;
	assert_string_equal(slurm_part_lookup(parts, 2, "cuda"), "gpuq");
	assert_null(slurm_part_lookup(parts, 2, "rocm"));
	assert_string_equal(slurm_part_lookup(gres, 2, "rocm"), "gpu:1");
	v = slurm_sbatch_argv(&so, "/shared/run 1", "cuda", idx, 4);
	for (char **a = v; *a; a++)
		strbuf_addf(&all, "%s\n", *a);
	assert_string_equal(all.buf, "sbatch\n--parsable\n--job-name=kgb-run\n--array=0-2,5\n"
				     "--output=/shared/run 1/logs/shard-%a-%A.out\n"
				     "--chdir=/shared/run 1\n--partition=gpuq\n--gres=gpu:1\n"
				     "--constraint=h200\n--time=30\n--mem=16000\n--account=acct\n"
				     "--qos=high\n--cpus-per-task=8\n--exclusive\n"
				     "/shared/run 1/shard.sh\n/opt/kgb/build/kgb\n/shared/run 1\n");
	strv_free(v);
	strbuf_reset(&all);
	v = slurm_sbatch_argv(&so, "/r", "interpreter", idx, 1);
	for (char **a = v; *a; a++)
		strbuf_addf(&all, "%s ", *a);
	assert_contains(all.buf, "--partition=cpuq --gres=none --time=30");
	assert_false(strstr(all.buf, "--constraint"));
	strv_free(v);
	strbuf_release(&all);
}

static void test_plan_json(void **state)
{
	struct slurm_plan p = {0}, back = {0};
	struct strbuf err = STRBUF_INIT;
	struct slurm_shard *s;
	json_t *j, *j2;

	(void)state;
	p.tasks_dir = xstrdup("/shared/tasks");
	p.eval_args = xcalloc(3, sizeof(char *));
	p.eval_args[0] = xstrdup("--seed=0");
	p.eval_args[1] = xstrdup("--timeout=300");
	s = slurm_plan_add_shard(&p, "cuda");
	slurm_shard_add_task(s, "aten/abs");
	slurm_shard_add_task(s, "vllm/rms_norm");
	s->candidates = 3;
	s = slurm_plan_add_shard(&p, "interpreter");
	slurm_shard_add_task(s, "aten/neg");
	s->candidates = 1;
	j = slurm_plan_to_json(&p);
	assert_int_equal(slurm_plan_from_json(j, &back, &err), 0);
	j2 = slurm_plan_to_json(&back);
	assert_json_equal(j, j2);
	assert_int_equal(back.nr_shards, 2);
	assert_int_equal(back.shards[0].nr_tasks, 2);
	assert_string_equal(back.shards[1].platform, "interpreter");
	json_decref(j2);
	slurm_plan_release(&back);
	/* A shard out of order, or another schema, is refused. */
	json_object_set_new(json_array_get(json_object_get(j, "shards"), 1), "index",
			    json_integer(7));
	assert_int_equal(slurm_plan_from_json(j, &back, &err), -EBADMSG);
	json_object_set_new(j, "schema", json_string("kgb.slurm.plan.v0"));
	strbuf_reset(&err);
	assert_int_equal(slurm_plan_from_json(j, &back, &err), -EBADMSG);
	assert_contains(err.buf, "kgb.slurm.plan.v1");
	json_decref(j);
	slurm_plan_release(&p);
	strbuf_release(&err);
}

static void test_plan_reconcile(void **state)
{
	struct unit_fx *fx = *state;
	struct slurm_plan p = {0}, q = {0};
	struct strbuf err = STRBUF_INIT;
	char *dir = path_join(fx->root, "run");
	bool fresh = false;

	p.tasks_dir = xstrdup("/t");
	p.eval_args = xcalloc(1, sizeof(char *));
	slurm_shard_add_task(slurm_plan_add_shard(&p, "interpreter"), "aten/neg");
	assert_int_equal(slurm_plan_reconcile(&p, dir, &fresh, &err), 0);
	assert_true(fresh);
	assert_int_equal(slurm_plan_reconcile(&p, dir, &fresh, &err), 0);
	assert_false(fresh);
	q.tasks_dir = xstrdup("/t");
	q.eval_args = xcalloc(1, sizeof(char *));
	slurm_shard_add_task(slurm_plan_add_shard(&q, "interpreter"), "aten/abs");
	assert_int_equal(slurm_plan_reconcile(&q, dir, &fresh, &err), -EEXIST);
	assert_contains(err.buf, "holds another run");
	slurm_plan_release(&q);
	assert_int_equal(slurm_plan_load(dir, &q, &err), 0);
	assert_string_equal(q.shards[0].tasks[0], "aten/neg");
	slurm_plan_release(&q);
	slurm_plan_release(&p);
	free(dir);
	strbuf_release(&err);
}

static void test_exec(void **state)
{
	const char *const ok[] = {"sh", "-c", "echo out; echo err >&2", NULL};
	const char *const bad[] = {"sh", "-c", "echo first >&2; echo 'no such job' >&2; exit 3",
				   NULL};
	const char *const slow[] = {"sleep", "5", NULL};
	const char *const missing[] = {"kgb-no-such-client", NULL};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	assert_int_equal(slurm_exec(ok, 10, &out, &err), 0);
	assert_string_equal(out.buf, "out\n");
	assert_int_equal(err.len, 0);
	assert_int_equal(slurm_exec(bad, 10, &out, &err), -EIO);
	assert_string_equal(err.buf, "'sh' exited 3: no such job");
	strbuf_reset(&err);
	assert_int_equal(slurm_exec(slow, 0.2, &out, &err), -ETIMEDOUT);
	assert_contains(err.buf, "did not answer");
	strbuf_reset(&err);
	assert_int_equal(slurm_exec(missing, 10, &out, &err), -ENOENT);
	assert_contains(err.buf, "cannot run 'kgb-no-such-client'");
	strbuf_release(&out);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_shard_split),   cmocka_unit_test(test_ranges),
	cmocka_unit_test(test_parse_states),  cmocka_unit_test(test_parse_sbatch),
	cmocka_unit_test(test_decide),	      cmocka_unit_test(test_sbatch_argv),
	cmocka_unit_test(test_plan_json),     unit_test_fx(test_plan_reconcile),
	cmocka_unit_test(test_exec),
};

UNIT_MAIN(tests)
