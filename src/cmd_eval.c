/*
 * cmd_eval.c - `kgb eval`: evaluate candidates (default: the shipped solutions) on a platform.
 *
 * Option parsing, the Slurm glue (submit, a shard's options, the merged report) and output:
 * the evaluation itself is the engine's (eval.h). Per candidate a progress line on stderr
 * (with -v, or on a terminal); then the run's table, read back from the store (report.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "escape.h"
#include "eval.h"
#include "eval_shard.h"
#include "kgb.h"
#include "profile.h"
#include "report.h"
#include "sandbox.h"
#include "slurm.h"
#include "slurm_run.h"
#include "store.h"
#include "util/fs.h"
#include "util/parse.h"
#include "util/xalloc.h"

/* The command's options: the engine's, and what decides the output and the backend. */
struct eval_cmd {
	struct eval_opts e;
	bool json, exit_status;
	/* --backend slurm (docs/cluster.md): submit the run as shards instead of evaluating. */
	struct slurm_run_opts sr;
};

static void usage(void)
{
	printf("usage: kgb eval [options]\n"
	       "\n"
	       "Evaluates candidates on this machine's platform and prints one row per candidate.\n"
	       "Without --solutions, evaluates the shipped solution of every task.\n"
	       "\n"
	       "  --solutions DIR   candidates: DIR/<task>.py or DIR/<task>/<sample>.py\n"
	       "  --method NAME     a library's kernels as the candidates: one per task its\n"
	       "                    table covers ('kgb methods', docs/methods.md)\n"
	       "  --task T          only task T (op or source/op; repeatable)\n"
	       "  --source S        only tasks of source S\n"
	       "  --platform P      cuda or interpreter (default: detected)\n"
	       "  -j, --jobs N      checking slots (default: one per CPU core, at most 8 per GPU\n"
	       "                    and one per 10 GiB of its memory)\n"
	       "  --timing-jobs N   timing workers per GPU (default 4): the timed rounds run\n"
	       "                    alone on the GPU, the others prepare meanwhile; 1: serial\n"
	       "  --timing METHOD   events (default: each call, launch included) or cuda_graph\n"
	       "                    (replays of a captured call); labelled in the results\n"
	       "  --cache-root DIR  keep each candidate's Triton cache in DIR across runs (a warm\n"
	       "                    cache: a re-run compiles nothing); default: per run\n"
	       "  --split N         check each candidate in N jobs (default: one, more for a\n"
	       "                    candidate that would hold the checking phase open alone)\n"
	       "  --history FILE    another store whose past wall times order and split the\n"
	       "                    checking jobs of tasks this store has none of (read-only)\n"
	       "  --standby N       workers started ahead per slot, importing while the slot\n"
	       "                    is busy (default: 1 while timing, 0 while checking)\n"
	       "  --timeout SEC     wall-clock limit per candidate (default 300)\n"
	       "  --store PATH      results store (default $KGB_STORE or ./kgb-results.db)\n"
	       "  --seed N          case seed (default 0)\n"
	       "  --heldout         add the tasks' held-out cases (use with a secret --seed)\n"
	       "  --python PATH     Python for workers (default $KGB_PYTHON or <root>/.venv)\n"
	       "  --sandbox=MODE    worker isolation (docs/security.md): auto (default: every\n"
	       "                    facility this machine allows, the others named on stderr),\n"
	       "                    strict (all of them or exit 4), off (process group, timeout\n"
	       "                    and plain limits only)\n"
	       "  --memory-limit MIB  memory per worker (default: the RAM divided by the slots, at\n"
	       "                    least 4096): address space, or on cuda private writable\n"
	       "                    memory (RLIMIT_DATA; CUDA reserves terabytes of addresses),\n"
	       "                    and a memory cgroup's limit where one can be made\n"
	       "  --cache-limit MIB  disk space of a candidate's Triton cache (default 512); over\n"
	       "                    it the candidate gets `crash` and the cache is removed\n"
	       "  --force           re-evaluate even when a stored result exists\n"
	       "  --exit-status     exit 1 when any candidate does not pass\n"
	       "  --json            JSON lines: kgb.eval.v1 per candidate, then kgb.summary.v1\n"
	       "\n"
	       "On a Slurm cluster (docs/cluster.md): the run as shards of one array job per\n"
	       "platform, each writing DIR/shard-K.db; rerun the same command to resubmit the\n"
	       "shards that failed or were cancelled, and, once all are done, to merge them into\n"
	       "--store and print the run.\n"
	       "%s", slurm_run_usage);
}

/* The long options of parse_args() that have no short form. */
enum {
	OPT_SOLUTIONS = 0x100,
	OPT_METHOD,
	OPT_TASK,
	OPT_SOURCE,
	OPT_PLATFORM,
	OPT_TIMEOUT,
	OPT_STORE,
	OPT_SEED,
	OPT_PYTHON,
	OPT_FORCE,
	OPT_EXIT_STATUS,
	OPT_JSON,
	OPT_HELDOUT,
	OPT_SANDBOX,
	OPT_MEMORY_LIMIT,
	OPT_CACHE_LIMIT,
	OPT_STANDBY,
	OPT_TIMING,
	OPT_CACHE_ROOT,
	OPT_SPLIT,
	OPT_TIMING_JOBS,
	OPT_HISTORY,
};

/*
 * The options that take a number into *o: 0, a usage error (exit code 2, printed), or
 * -ENOENT when c is none of them.
 */
static int parse_number_opt(int c, const char *arg, struct eval_opts *o)
{
	long l;

	switch (c) {
	case 'j':
		if (parse_int_range(arg, 1, 1024, &l) < 0)
			return kgb_usage_error("eval", "--jobs: expected 1..1024, got '%s'",
					       arg);
		o->slots = (unsigned)l;
		break;
	case OPT_TIMEOUT:
		if (parse_double(arg, &o->timeout_s) < 0 || !(o->timeout_s > 0))
			return kgb_usage_error("eval", "--timeout: expected seconds > 0, got '%s'",
					       arg);
		break;
	case OPT_SEED:
		if (parse_ull(arg, &o->seed) < 0)
			return kgb_usage_error("eval", "--seed: expected a non-negative integer, got '%s'",
					       arg);
		break;
	case OPT_MEMORY_LIMIT:
		if (parse_ull(arg, &o->memory_mib) < 0 || !o->memory_mib ||
		    o->memory_mib > (1ULL << 30))
			return kgb_usage_error("eval", "--memory-limit: expected MiB > 0, got "
					       "'%s'", arg);
		break;
	case OPT_CACHE_LIMIT:
		if (parse_ull(arg, &o->cache_mib) < 0 || !o->cache_mib ||
		    o->cache_mib > (1ULL << 30))
			return kgb_usage_error("eval", "--cache-limit: expected MiB > 0, got "
					       "'%s'", arg);
		break;
	case OPT_TIMING_JOBS:
		if (parse_int_range(arg, 1, 64, &l) < 0)
			return kgb_usage_error("eval", "--timing-jobs: expected 1..64, got "
					       "'%s'", arg);
		o->timing_jobs = (unsigned)l;
		break;
	case OPT_STANDBY:
		if (parse_int_range(arg, 0, 8, &l) < 0)
			return kgb_usage_error("eval", "--standby: expected 0..8, got '%s'",
					       arg);
		o->standby = (int)l;
		break;
	case OPT_SPLIT:
		if (parse_int_range(arg, 1, 1024, &l) < 0)
			return kgb_usage_error("eval", "--split: expected 1..1024, got '%s'",
					       arg);
		o->split = (unsigned)l;
		break;
	default:
		return -ENOENT;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct eval_cmd *cmd)
{
	struct eval_opts *o = &cmd->e;
	static const struct option opts[] = {
		{"solutions", required_argument, NULL, OPT_SOLUTIONS},
		{"method", required_argument, NULL, OPT_METHOD},
		{"task", required_argument, NULL, OPT_TASK},
		{"source", required_argument, NULL, OPT_SOURCE},
		{"platform", required_argument, NULL, OPT_PLATFORM},
		{"jobs", required_argument, NULL, 'j'},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"store", required_argument, NULL, OPT_STORE},
		{"seed", required_argument, NULL, OPT_SEED},
		{"python", required_argument, NULL, OPT_PYTHON},
		{"force", no_argument, NULL, OPT_FORCE},
		{"exit-status", no_argument, NULL, OPT_EXIT_STATUS},
		{"json", no_argument, NULL, OPT_JSON},
		{"heldout", no_argument, NULL, OPT_HELDOUT},
		{"sandbox", required_argument, NULL, OPT_SANDBOX},
		{"memory-limit", required_argument, NULL, OPT_MEMORY_LIMIT},
		{"cache-limit", required_argument, NULL, OPT_CACHE_LIMIT},
		{"standby", required_argument, NULL, OPT_STANDBY},
		{"timing", required_argument, NULL, OPT_TIMING},
		{"cache-root", required_argument, NULL, OPT_CACHE_ROOT},
		{"split", required_argument, NULL, OPT_SPLIT},
		{"timing-jobs", required_argument, NULL, OPT_TIMING_JOBS},
		{"history", required_argument, NULL, OPT_HISTORY},
		SLURM_RUN_LONG_OPTIONS,
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int c, r;

	o->timeout_s = 300;
	o->sandbox = SANDBOX_AUTO;
	o->standby = -1;
	while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOLUTIONS:
			o->solutions = optarg;
			break;
		case OPT_METHOD:
			o->method = optarg;
			break;
		case OPT_TASK:
			o->tasks = xrealloc(o->tasks, (o->nr_tasks + 1) * sizeof(*o->tasks));
			o->tasks[o->nr_tasks++] = optarg;
			break;
		case OPT_SOURCE:
			o->source = optarg;
			break;
		case OPT_PLATFORM:
			o->platform = optarg; /* a profile or runtime name, resolved with the profiles */
			break;
		case OPT_STORE:
			o->store_path = optarg;
			break;
		case OPT_PYTHON:
			o->python = optarg;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_EXIT_STATUS:
			cmd->exit_status = true;
			break;
		case OPT_JSON:
			cmd->json = true;
			break;
		case OPT_HELDOUT:
			o->heldout = true;
			break;
		case OPT_SANDBOX:
			o->sandbox = sandbox_mode_from_string(optarg);
			if (o->sandbox < 0)
				return kgb_usage_error("eval", "--sandbox: expected auto, strict or off, "
						       "got '%s'", optarg);
			break;
		case OPT_HISTORY:
			o->history = optarg;
			break;
		case OPT_CACHE_ROOT:
			if (optarg[0] != '/')
				return kgb_usage_error("eval", "--cache-root: expected an absolute path, "
						       "got '%s'", optarg);
			o->cache_root = optarg;
			break;
		case OPT_TIMING:
			if (strcmp(optarg, "events") && strcmp(optarg, "cuda_graph"))
				return kgb_usage_error("eval", "--timing: expected events or "
						       "cuda_graph, got '%s'", optarg);
			o->timing = strcmp(optarg, "events") ? optarg : NULL;
			break;
		case 'h':
			usage();
			return -1;
		default:
			r = parse_number_opt(c, optarg, o);
			if (r != -ENOENT) {
				if (r)
					return r;
				break;
			}
			r = slurm_run_parse_opt(&cmd->sr, "eval", c, optarg);
			if (r == -ENOENT)
				return kgb_usage_error("eval", "unknown option");
			if (r)
				return r;
		}
	}
	if (optind < argc)
		return kgb_usage_error("eval", "unexpected argument '%s'", argv[optind]);
	if (o->method && o->solutions)
		return kgb_usage_error("eval", "--method: not with --solutions");
	/* else it selects nothing, and an empty run is stored as if all went well */
	if (o->source && !catalog_source_known(o->source))
		return kgb_usage_error("eval", "unknown source '%s' (aten, vllm, cublas)",
				       o->source);
	return slurm_run_check_opts(&cmd->sr, "eval", o->force);
}

/*
 * `kgb eval --run-dir DIR --shard K` (the batch script's call): the plan's options for shard K
 * parsed into *o, as if typed, with its platform, its tasks and DIR/shard-K.db as the store.
 * *ret_plan and *ret_argv (owned) hold the strings *cmd points into. A KGB_EXIT_* code.
 */
static int shard_setup(struct eval_cmd *cmd, struct slurm_plan *ret_plan, char ***ret_argv)
{
	struct eval_opts *o = &cmd->e;
	const char *cpus = getenv("SLURM_CPUS_PER_TASK");
	struct slurm_run_opts sr = cmd->sr;
	size_t n = 0;
	long l;
	int r;

	r = slurm_run_shard_argv(&sr, "eval", ret_plan, ret_argv, &n);
	if (r != KGB_EXIT_OK)
		return r;
	optind = 0;
	r = parse_args((int)n, *ret_argv, cmd);
	if (r)
		return r < 0 ? KGB_EXIT_USAGE : r;
	/* Without -j, as many checking slots as Slurm gave the shard CPUs (no binding here). */
	if (!o->slots && cpus && parse_int_range(cpus, 1, 1024, &l) == 0)
		o->slots = (unsigned)l;
	return KGB_EXIT_OK;
}

/* A platform's shards of a Slurm run (slurm_run_driver.plan_platform): eval_shard.h's. */
static int plan_platform(void *data, const struct catalog *cat, const struct profile *prof,
			 const char *platform, struct slurm_plan *plan)
{
	struct eval_cmd *cmd = data;

	return eval_plan_platform(&cmd->e, &cmd->sr, cat, prof, platform, plan);
}

/* Prints the run(s) the shards were merged into (slurm_run_driver.report). */
static int slurm_report(void *data, const struct catalog *cat, struct store *store,
			const char *store_path, const char *label, struct strbuf *err)
{
	const struct eval_cmd *cmd = data;
	long long *ids = NULL;
	char **plats = NULL;
	size_t nr = 0, failed = 0, total_failed = 0;
	int r;

	(void)cat;
	r = store_merge_runs(store, label, &ids, &plats, &nr, err);
	for (size_t i = 0; r == 0 && i < nr; i++) {
		r = report_from_store(stdout, store, ids[i], plats[i], store_path, 0, NULL, cmd->json,
				      &failed, err);
		total_failed += failed;
	}
	free(ids);
	strv_free(plats);
	if (r < 0)
		return r;
	return cmd->exit_status && total_failed ? KGB_EXIT_NO : KGB_EXIT_OK;
}

/* `kgb eval --backend slurm` (slurm_run.h): submits; never evaluates anything itself. */
static int eval_submit(struct eval_cmd *cmd, struct kgb_ctx *kctx)
{
	struct slurm_run_driver d = {.cmd = "eval", .platform = cmd->e.platform,
				     .store_path = cmd->e.store_path, .json = cmd->json,
				     .verbose = kctx->verbose, .plan_platform = plan_platform,
				     .report = slurm_report, .data = cmd};

	return slurm_run_submit(&cmd->sr, &d, kctx, eval_shard_args(&cmd->e, cmd->sr.cpus_per_task));
}

int cmd_eval(int argc, char **argv, struct kgb_ctx *kctx)
{
	struct eval_cmd cmd = {.e = {.cmd = "eval"}, .sr = {.shard = -1}};
	struct slurm_plan shard_plan = {0};
	char **shard_argv = NULL;
	struct kgb_ctx shard_ctx;
	struct eval_hooks hooks = {.candidate = report_eval_event, .reused = report_eval_reused,
				   .data = &kctx->verbose};
	struct eval_outcome out = {0};
	struct strbuf err = STRBUF_INIT;
	char *cmdline = NULL;
	size_t failed = 0;
	int ret, r;

	r = parse_args(argc, argv, &cmd);
	if (r != 0 || cmd.sr.slurm) {
		if (r == 0)
			r = eval_submit(&cmd, kctx);
		free(cmd.e.tasks);
		slurm_run_opts_release(&cmd.sr);
		return r < 0 ? KGB_EXIT_OK : r;
	}
	if (cmd.sr.shard >= 0) {
		ret = shard_setup(&cmd, &shard_plan, &shard_argv);
		if (ret != KGB_EXIT_OK)
			goto out;
		shard_ctx = *kctx;
		shard_ctx.tasks_dir = shard_plan.tasks_dir;
		kctx = &shard_ctx;
		cmd.e.shard = true;
	}
	if (!cmd.e.store_path)
		cmd.e.store_path = getenv("KGB_STORE") && *getenv("KGB_STORE") ? getenv("KGB_STORE")
										: "kgb-results.db";
	cmdline = kgb_command_line(argc, argv);
	cmd.e.cmdline = cmdline;
	ret = eval_run(&cmd.e, kctx, &hooks, &out);
	if (ret != KGB_EXIT_OK)
		goto out;
	if (report_from_store(stdout, out.store, out.run_id, out.platform, cmd.e.store_path,
			      out.tasks_skipped, out.sandbox, cmd.json, &failed, &err) < 0) {
		fprintf(stderr, "kgb eval: %s\n", err.buf);
		ret = KGB_EXIT_ENV;
		goto out;
	}
	if (cmd.exit_status && failed)
		ret = KGB_EXIT_NO;
	if (out.env_failures) {
		fprintf(stderr,
			"kgb eval: %zu candidate%s not evaluated: the platform did not start in "
			"their workers (see above); run again once the machine is fixed\n",
			out.env_failures, out.env_failures == 1 ? "" : "s");
		ret = KGB_EXIT_ENV;
	}
out:
	eval_outcome_release(&out);
	free(cmdline);
	free(cmd.e.tasks);
	slurm_run_opts_release(&cmd.sr);
	strv_free(shard_argv);
	slurm_plan_release(&shard_plan);
	strbuf_release(&err);
	return ret;
}
