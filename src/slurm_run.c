#include "slurm_run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgb.h"
#include "profile.h"
#include "shard.h"
#include "util/fs.h"
#include "util/parse.h"
#include "util/xalloc.h"

const char slurm_run_usage[] =
        "  --backend B       local (default) or slurm\n"
        "  --run-dir DIR     the run's directory on the shared filesystem (required)\n"
        "  --shards N        shards per platform (default: one per task)\n"
        "  --partition [P=]Q partition Q for platform P's shards (repeatable; without P:\n"
        "                    every platform's); the platforms named are the run's\n"
        "  --gres [P=]G      GRES per shard (e.g. gpu:1); --constraint [P=]C likewise\n"
        "  --time T          time limit per shard (minutes, or Slurm's formats)\n"
        "  --mem M           memory per shard (MB, or Slurm's formats)\n"
        "  --account A, --qos Q, --cpus-per-task N  passed to sbatch (eval: N\n"
        "                    also sets -j)\n"
        "  --sbatch-arg ARG  any other sbatch option, verbatim (repeatable)\n";

/* PLATFORM=VALUE (or VALUE: every platform) appended to *v. */
static int add_part(struct slurm_part **v, size_t *n, const char *cmd, const char *opt, char *arg)
{
	char *eq = strchr(arg, '=');

	if (!*arg || (eq && (eq == arg || !eq[1])))
		return kgb_usage_error(cmd, "--%s: expected [PLATFORM=]VALUE, got '%s'", opt, arg);
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	if (eq) {
		*eq = '\0'; /* argv's own storage: the platform and the value in place */
		(*v)[*n] = (struct slurm_part){arg, eq + 1};
	} else {
		(*v)[*n] = (struct slurm_part){NULL, arg};
	}
	(*n)++;
	return 0;
}

int slurm_run_parse_opt(struct slurm_run_opts *o, const char *cmd, int c, char *arg)
{
	long l;
	int r;

	switch (c) {
	case SLURM_RUN_OPT_BACKEND:
		if (strcmp(arg, "local") && strcmp(arg, "slurm"))
			return kgb_usage_error(cmd, "--backend: expected local or slurm, got '%s'",
			                       arg);
		o->slurm = !strcmp(arg, "slurm");
		return 0;
	case SLURM_RUN_OPT_RUN_DIR:
		o->run_dir = arg;
		return 0;
	case SLURM_RUN_OPT_SHARDS:
		if (parse_int_range(arg, 1, 100000, &l) < 0)
			return kgb_usage_error(cmd, "--shards: expected 1..100000, got '%s'", arg);
		o->shards = (size_t)l;
		break;
	case SLURM_RUN_OPT_SHARD:
		if (parse_int_range(arg, 0, 4000000, &l) < 0)
			return kgb_usage_error(cmd, "--shard: expected a shard index, got '%s'",
			                       arg);
		o->shard = l;
		return 0;
	case SLURM_RUN_OPT_PARTITION:
	case SLURM_RUN_OPT_GRES:
	case SLURM_RUN_OPT_CONSTRAINT: {
		bool part = c == SLURM_RUN_OPT_PARTITION, gres = c == SLURM_RUN_OPT_GRES;

		r = add_part(part   ? &o->partitions
		             : gres ? &o->gres
		                    : &o->constraints,
		             part   ? &o->nr_partitions
		             : gres ? &o->nr_gres
		                    : &o->nr_constraints,
		             cmd,
		             part   ? "partition"
		             : gres ? "gres"
		                    : "constraint",
		             arg);
		if (r)
			return r;
		break;
	}
	case SLURM_RUN_OPT_TIME:
	case SLURM_RUN_OPT_MEM:
	case SLURM_RUN_OPT_ACCOUNT:
	case SLURM_RUN_OPT_QOS:
		if (!*arg)
			return kgb_usage_error(cmd, "an empty Slurm option value");
		*(c == SLURM_RUN_OPT_TIME      ? &o->time
		  : c == SLURM_RUN_OPT_MEM     ? &o->mem
		  : c == SLURM_RUN_OPT_ACCOUNT ? &o->account
		                               : &o->qos) = arg;
		break;
	case SLURM_RUN_OPT_CPUS_PER_TASK:
		if (parse_int_range(arg, 1, 4096, &l) < 0)
			return kgb_usage_error(cmd, "--cpus-per-task: expected 1..4096, got '%s'",
			                       arg);
		o->cpus_per_task = (unsigned)l;
		break;
	case SLURM_RUN_OPT_SBATCH_ARG:
		o->sbatch_args =
		        xrealloc(o->sbatch_args, (o->nr_sbatch_args + 2) * sizeof(*o->sbatch_args));
		o->sbatch_args[o->nr_sbatch_args++] = arg;
		o->sbatch_args[o->nr_sbatch_args] = NULL;
		break;
	default:
		return -ENOENT;
	}
	o->slurm_only = true;
	return 0;
}

int slurm_run_check_opts(const struct slurm_run_opts *o, const char *cmd, bool force)
{
	if (o->slurm_only && !o->slurm)
		return kgb_usage_error(cmd, "Slurm options need --backend slurm");
	if ((o->slurm || o->shard >= 0) && !o->run_dir)
		return kgb_usage_error(cmd, "%s needs --run-dir DIR",
		                       o->slurm ? "--backend slurm" : "--shard");
	if (o->run_dir && !o->slurm && o->shard < 0)
		return kgb_usage_error(cmd, "--run-dir needs --backend slurm (or --shard)");
	if (o->slurm && o->shard >= 0)
		return kgb_usage_error(cmd, "--shard is the shards' own call; not with --backend");
	if (o->slurm && force)
		return kgb_usage_error(cmd, "--force with --backend slurm: use a new --run-dir "
		                            "(its shards start from empty stores)");
	return 0;
}

void slurm_run_opts_release(struct slurm_run_opts *o)
{
	free(o->partitions);
	free(o->gres);
	free(o->constraints);
	free(o->sbatch_args);
	o->partitions = o->gres = o->constraints = NULL;
	o->sbatch_args = NULL;
	o->nr_partitions = o->nr_gres = o->nr_constraints = o->nr_sbatch_args = 0;
}

const char **slurm_run_platforms(const struct slurm_run_opts *o, const char *platform,
                                 size_t *ret_nr)
{
	const struct slurm_part *lists[] = {o->partitions, o->gres, o->constraints};
	size_t counts[] = {o->nr_partitions, o->nr_gres, o->nr_constraints};
	const char **v = xcalloc(o->nr_partitions + o->nr_gres + o->nr_constraints + 2, sizeof(*v));
	size_t n = 0;

	if (platform)
		v[n++] = platform;
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t i = 0; i < counts[l]; i++)
			if (lists[l][i].platform &&
			    !strv_contains((const char *const *)v, lists[l][i].platform))
				v[n++] = lists[l][i].platform;
	*ret_nr = n;
	return v;
}

void slurm_run_deal(const struct slurm_run_opts *o, struct slurm_plan *plan, const char *platform,
                    const struct task *const *tasks, const size_t *counts, size_t ntasks)
{
	size_t nshards = ntasks ? shard_count(ntasks, o->shards) : 0, first = plan->nr_shards;

	for (size_t k = 0; k < nshards; k++)
		(void)slurm_plan_add_shard(plan, platform);
	for (size_t i = 0; i < ntasks; i++) {
		struct slurm_shard *sh = &plan->shards[first + shard_of(i, nshards)];
		struct strbuf id = STRBUF_INIT;

		strbuf_addf(&id, "%s/%s", tasks[i]->source, tasks[i]->op);
		slurm_shard_add_task(sh, id.buf);
		sh->candidates += counts ? counts[i] : 1;
		strbuf_release(&id);
	}
}

void slurm_run_strv_push(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

void slurm_run_strv_pushf(char ***v, size_t *n, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	slurm_run_strv_push(v, n, sb.buf);
	strbuf_release(&sb);
}

int slurm_run_shard_argv(const struct slurm_run_opts *o, const char *cmd,
                         struct slurm_plan *ret_plan, char ***ret_argv, size_t *ret_n)
{
	struct strbuf err = STRBUF_INIT;
	const struct slurm_shard *sh;
	const char *want = !strcmp(cmd, "eval") ? NULL : cmd;
	char **v = xcalloc(1, sizeof(*v)), *store;
	size_t n = 0;
	long k = o->shard;
	int r;

	r = slurm_plan_load(o->run_dir, ret_plan, &err);
	if (r < 0) {
		fprintf(stderr, "kgb %s: %s\n", cmd, err.buf);
		strbuf_release(&err);
		free(v);
		return KGB_EXIT_DATA;
	}
	strbuf_release(&err);
	if ((want || ret_plan->command) &&
	    (!want || !ret_plan->command || strcmp(want, ret_plan->command))) {
		fprintf(stderr, "kgb %s: the plan in '%s' is one of 'kgb %s'\n", cmd, o->run_dir,
		        ret_plan->command ? ret_plan->command : "eval");
		free(v);
		return KGB_EXIT_USAGE;
	}
	if ((size_t)k >= ret_plan->nr_shards) {
		fprintf(stderr, "kgb %s: --shard %ld: the plan in '%s' has %zu shards\n", cmd, k,
		        o->run_dir, ret_plan->nr_shards);
		free(v);
		return KGB_EXIT_USAGE;
	}
	sh = &ret_plan->shards[k];
	slurm_run_strv_push(&v, &n, cmd);
	for (char **a = ret_plan->eval_args; *a; a++)
		slurm_run_strv_push(&v, &n, *a);
	slurm_run_strv_pushf(&v, &n, "--platform=%s", sh->platform);
	store = slurm_shard_store(o->run_dir, (size_t)k);
	slurm_run_strv_pushf(&v, &n, "--store=%s", store);
	free(store);
	for (char **t = sh->tasks; *t; t++)
		slurm_run_strv_pushf(&v, &n, "--task=%s", *t);
	*ret_argv = v;
	*ret_n = n;
	return KGB_EXIT_OK;
}

/* Folds every shard store of a finished run into the store and has the command report it. */
static int merge_report(const struct slurm_run_driver *d, const struct catalog *cat,
                        const struct slurm_plan *plan, const char *run_dir)
{
	struct strbuf err = STRBUF_INIT, label = STRBUF_INIT;
	struct store_merge_stats ms = {0};
	struct store *store = NULL;
	const char *store_path = d->store_path;
	int r, ret = KGB_EXIT_OK;

	if (!store_path)
		store_path = getenv("KGB_STORE") && *getenv("KGB_STORE") ? getenv("KGB_STORE")
		                                                         : "kgb-results.db";
	strbuf_addf(&label, "slurm:%s", run_dir);
	r = store_open(store_path, &store, &err);
	for (size_t k = 0; r == 0 && k < plan->nr_shards; k++) {
		char *path = slurm_shard_store(run_dir, k);

		r = store_merge(store, path, label.buf, &ms, &err);
		free(path);
	}
	if (r == 0) {
		fprintf(stderr,
		        "kgb %s: %zu shards merged into '%s': %lld results added, %lld known",
		        d->cmd, plan->nr_shards, store_path, ms.evaluations_added,
		        ms.evaluations_known);
		if (slurm_plan_generates(plan))
			fprintf(stderr, ", %lld requests added", ms.generations_added);
		fprintf(stderr, "\n");
		if (ms.conflicts)
			fprintf(stderr,
			        "kgb %s: %lld results stored before with another verdict "
			        "kept as they were (kgb merge)\n",
			        d->cmd, ms.conflicts);
		r = d->report(d->data, cat, store, store_path, label.buf, &err);
	}
	if (r < 0) {
		fprintf(stderr, "kgb %s: %s\n", d->cmd, err.buf);
		ret = r == -EBUSY ? KGB_EXIT_ENV : KGB_EXIT_DATA;
	} else {
		ret = r;
	}
	store_free(store);
	strbuf_release(&label);
	strbuf_release(&err);
	return ret;
}

/* Writes or checks the plan, submits what needs it, merges once all are done. */
static int drive(const struct slurm_run_opts *o, const struct slurm_run_driver *d,
                 const struct catalog *cat, const struct slurm_plan *plan,
                 const char *const *platforms, size_t nr_platforms)
{
	struct strbuf err = STRBUF_INIT, name = STRBUF_INIT;
	struct slurm_shard_status *st = NULL;
	char *run_dir = NULL, *self = NULL;
	size_t ndone = 0;
	bool fresh = false; /* the plan is new: first submission */
	int ret = KGB_EXIT_OK, r;

	r = mkdir_p(o->run_dir, 0755);
	run_dir = r == 0 ? path_abs(o->run_dir) : NULL;
	if (!run_dir) {
		fprintf(stderr, "kgb %s: cannot create the run directory '%s': %s\n", d->cmd,
		        o->run_dir, strerror(r < 0 ? -r : errno));
		ret = KGB_EXIT_ENV;
		goto out;
	}
	r = slurm_plan_reconcile(plan, run_dir, &fresh, &err);
	if (r < 0) {
		fprintf(stderr, "kgb %s: %s\n", d->cmd, err.buf);
		ret = r == -EEXIST ? KGB_EXIT_USAGE : KGB_EXIT_ENV;
		goto out;
	}
	if (fresh && d->verbose > 0)
		fprintf(stderr, "kgb %s: %zu shards planned in '%s/plan.json'\n", d->cmd,
		        plan->nr_shards, run_dir);
	st = xcalloc(plan->nr_shards, sizeof(*st));
	r = slurm_run_status(plan, run_dir, st, &err);
	for (size_t k = 0; k < plan->nr_shards; k++)
		ndone += st[k].state == SLURM_SHARD_DONE;
	/* Slurm unreachable: only a run whose stores are all done can go on (to its merge). */
	if (r < 0 && !(r == -EAGAIN && ndone == plan->nr_shards)) {
		fprintf(stderr, "kgb %s: %s%s\n", d->cmd, err.buf,
		        r == -EAGAIN ? "; submitting nothing (run this command again later)" : "");
		ret = r == -EAGAIN ? KGB_EXIT_ENV : KGB_EXIT_DATA;
		goto out;
	}
	ndone = 0;
	self = path_abs("/proc/self/exe");
	{
		const char *base = strrchr(run_dir, '/');

		strbuf_addf(&name, "kgb-%s", base && base[1] ? base + 1 : "run");
	}
	for (size_t p = 0; p < nr_platforms; p++) {
		/* clang-format off */
		struct slurm_submit_opts so = {
			.partitions = o->partitions, .nr_partitions = o->nr_partitions,
			.gres = o->gres, .nr_gres = o->nr_gres, .constraints = o->constraints,
			.nr_constraints = o->nr_constraints, .time = o->time, .mem = o->mem,
			.account = o->account, .qos = o->qos, .cpus_per_task = o->cpus_per_task,
			.extra = o->sbatch_args, .kgb = self, .job_name = name.buf,
			.command = plan->command,
		};
		/* clang-format on */

		size_t *idx = xcalloc(plan->nr_shards + 1, sizeof(*idx)), n = 0;
		long long job = 0;

		for (size_t k = 0; k < plan->nr_shards; k++)
			if (!strcmp(plan->shards[k].platform, platforms[p]) &&
			    slurm_shard_needs_submit(st[k].state))
				idx[n++] = k;
		if (n) {
			struct strbuf ranges = STRBUF_INIT;

			shard_format_ranges(&ranges, idx, n);
			strbuf_reset(&err);
			r = slurm_submit(&so, run_dir, platforms[p], idx, n, &job, &err);
			if (r < 0) {
				fprintf(stderr, "kgb %s: submitting shards %s: %s\n", d->cmd,
				        ranges.buf, err.buf);
				ret = KGB_EXIT_ENV;
			} else {
				fprintf(stderr,
				        "kgb %s: submitted %zu shard%s (%s) of platform '%s' "
				        "as Slurm job %lld\n",
				        d->cmd, n, n == 1 ? "" : "s", ranges.buf, platforms[p],
				        job);
				for (size_t i = 0; i < n; i++) {
					st[idx[i]].state = SLURM_SHARD_PENDING;
					st[idx[i]].job_id = job;
					st[idx[i]].task_id = (long long)idx[i];
				}
			}
			strbuf_release(&ranges);
		}
		free(idx);
	}
	for (size_t k = 0; k < plan->nr_shards; k++)
		ndone += st[k].state == SLURM_SHARD_DONE;
	if (ret == KGB_EXIT_OK && ndone == plan->nr_shards) {
		ret = merge_report(d, cat, plan, run_dir);
		goto out;
	}
	if (!d->quiet)
		slurm_status_write(stdout, plan, st, d->json);
	if (ret == KGB_EXIT_OK && !d->quiet)
		fprintf(stderr,
		        "kgb %s: %zu of %zu shards done; 'kgb status %s' follows them; "
		        "run this command again to %s\n",
		        d->cmd, ndone, plan->nr_shards, run_dir,
		        "resubmit failed or cancelled shards, and to merge once all are done");
out:
	free(st);
	free(self);
	free(run_dir);
	strbuf_release(&name);
	strbuf_release(&err);
	return ret;
}

int slurm_run_submit(const struct slurm_run_opts *o, const struct slurm_run_driver *d,
                     struct kgb_ctx *kctx, char **args)
{
	struct profile_set profiles = {0};
	struct slurm_plan plan = {.eval_args = args};
	struct catalog *cat = NULL;
	const char **platforms;
	size_t nr_platforms = 0;
	int ret = KGB_EXIT_OK;

	platforms = slurm_run_platforms(o, d->platform, &nr_platforms);
	if (!nr_platforms) {
		ret = kgb_usage_error(
		        d->cmd, "--backend slurm: name the platform (--platform P, or "
		                "--partition P=PARTITION per platform); this host need not be a "
		                "compute node");
		goto out;
	}
	cat = kgb_load_catalog(kctx, &ret);
	if (!cat)
		goto out;
	if ((ret = kgb_load_profiles(kctx, d->cmd, &profiles)) != KGB_EXIT_OK)
		goto out;
	plan.tasks_dir = path_abs(kctx->tasks_dir);
	if (!plan.tasks_dir)
		plan.tasks_dir = xstrdup(kctx->tasks_dir);
	if (strcmp(d->cmd, "eval"))
		plan.command = xstrdup(d->cmd);
	for (size_t p = 0; p < nr_platforms; p++) {
		const struct profile *prof =
		        kgb_platform_arg(&profiles, d->cmd, platforms[p], &ret);

		if (!prof)
			goto out;
		if (!profile_runnable(prof)) {
			fprintf(stderr, "kgb %s: platform '%s' has no worker runtime in kgb yet\n",
			        d->cmd, prof->name);
			ret = KGB_EXIT_ENV;
			goto out;
		}
		if ((ret = d->plan_platform(d->data, cat, prof, platforms[p], &plan)) !=
		    KGB_EXIT_OK)
			goto out;
	}
	if (!plan.nr_shards) {
		fprintf(stderr, "kgb %s: no task selected on the platforms named\n", d->cmd);
		ret = KGB_EXIT_DATA;
		goto out;
	}
	ret = drive(o, d, cat, &plan, platforms, nr_platforms);
out:
	free(platforms);
	slurm_plan_release(&plan);
	profile_set_release(&profiles);
	catalog_free(cat);
	return ret;
}
