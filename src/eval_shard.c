/*
 * eval_shard.c - an evaluation as shards of a Slurm run (eval_shard.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "eval_shard.h"
#include "kgb.h"
#include "profile.h"
#include "util/fs.h"
#include "util/xalloc.h"

char **eval_shard_args(const struct eval_opts *o, unsigned cpus)
{
	char **v = xcalloc(1, sizeof(*v));
	size_t n = 0;

	if (o->solutions) {
		char *abs = path_abs(o->solutions);

		slurm_run_strv_pushf(&v, &n, "--solutions=%s", abs ? abs : o->solutions);
		free(abs);
	}
	if (o->source)
		slurm_run_strv_pushf(&v, &n, "--source=%s", o->source);
	/* Each shard writes its tasks' candidates from the table (the same files on any node). */
	if (o->method)
		slurm_run_strv_pushf(&v, &n, "--method=%s", o->method);
	slurm_run_strv_pushf(&v, &n, "--seed=%llu", o->seed);
	if (o->heldout)
		slurm_run_strv_push(&v, &n, "--heldout");
	slurm_run_strv_pushf(&v, &n, "--timeout=%g", o->timeout_s);
	if (o->slots)
		slurm_run_strv_pushf(&v, &n, "--jobs=%u", o->slots);
	else if (cpus)
		slurm_run_strv_pushf(&v, &n, "--jobs=%u", cpus);
	if (o->timing)
		slurm_run_strv_pushf(&v, &n, "--timing=%s", o->timing);
	if (o->cache_root)
		slurm_run_strv_pushf(&v, &n, "--cache-root=%s", o->cache_root);
	if (o->split)
		slurm_run_strv_pushf(&v, &n, "--split=%u", o->split);
	if (o->history)
		slurm_run_strv_pushf(&v, &n, "--history=%s", o->history);
	if (o->standby >= 0)
		slurm_run_strv_pushf(&v, &n, "--standby=%d", o->standby);
	if (o->timing_jobs)
		slurm_run_strv_pushf(&v, &n, "--timing-jobs=%u", o->timing_jobs);
	if (o->python)
		slurm_run_strv_pushf(&v, &n, "--python=%s", o->python);
	slurm_run_strv_pushf(&v, &n, "--sandbox=%s", sandbox_mode_to_string(o->sandbox));
	if (o->memory_mib)
		slurm_run_strv_pushf(&v, &n, "--memory-limit=%llu", o->memory_mib);
	if (o->cache_mib)
		slurm_run_strv_pushf(&v, &n, "--cache-limit=%llu", o->cache_mib);
	return v;
}

int eval_plan_platform(struct eval_opts *o, const struct slurm_run_opts *sr,
		       const struct catalog *cat, const struct profile *prof,
		       const char *platform, struct slurm_plan *plan)
{
	const struct profile *was = o->profile;
	struct strbuf err = STRBUF_INIT;
	const struct task **tasks = NULL;
	size_t *counts = NULL, ntasks = 0;
	int r;

	o->profile = prof; /* its sources filter the tasks */
	r = eval_collect_tasks(o, cat, prof->runtime, &tasks, &counts, &ntasks, &err);
	o->profile = was;
	if (r < 0) {
		fprintf(stderr, "kgb %s: %s\n", o->cmd, err.buf);
		strbuf_release(&err);
		return r == -ENOENT ? KGB_EXIT_USAGE : KGB_EXIT_DATA;
	}
	strbuf_release(&err);
	if (!ntasks)
		fprintf(stderr, "kgb %s: platform '%s': no candidate to evaluate, skipping\n",
			o->cmd, platform);
	slurm_run_deal(sr, plan, platform, tasks, counts, ntasks);
	free(tasks);
	free(counts);
	return KGB_EXIT_OK;
}
