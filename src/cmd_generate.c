/*
 * cmd_generate.c - `kgb generate`: a model or an agent writes candidates, kgb scores them.
 *
 * Option parsing, the Slurm glue (submit, a shard's second parse, the driver's callbacks) and
 * output. The tasks, the shards' options and the run itself are generate_run.h's (the
 * platform, the store's run around gen_run()); the scores are gen_report.h's
 * (docs/generation.md, docs/metrics.md): Pass@k over the first round, solved within r rounds,
 * and tokens, cost and time per solved task.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "gen_report.h"
#include "generate.h"
#include "generate_run.h"
#include "kgb.h"
#include "sandbox.h"
#include "slurm_run.h"
#include "store.h"
#include "util/fs.h"
#include "util/parse.h"
#include "util/xalloc.h"

/* The command's options: the run's (generate_run.h), and what decides the output and backend. */
struct generate_args {
	struct gen_run_opts o;
	bool json;
	/* --backend slurm (docs/cluster.md): the tasks as shards of a Slurm array job. */
	struct slurm_run_opts sr;
	bool shard_args; /* parsing the plan's options of a shard (the second parse) */
	json_t *params;	 /* owned: the --param fields (o.g.llm.params points here) */
};

static void usage(void)
{
	printf("usage: kgb generate --model M --base-url URL [options]\n"
	       "       kgb generate --track external --agent-cmd CMD [options]\n"
	       "\n"
	       "Asks a model (or runs an agent) for a kernel per task, evaluates every candidate\n"
	       "with `kgb eval`, and prints per task and overall: Pass@k, solved within r rounds,\n"
	       "tokens, cost and time per solved task (docs/generation.md).\n"
	       "\n"
	       "  --track T         sample (default), agent (generate, verify, tune), or external\n"
	       "  --api A           openai (chat completions; vLLM, SGLang, llama.cpp, Ollama, ...)\n"
	       "                    or anthropic (Messages API); default openai\n"
	       "  --base-url URL    e.g. http://127.0.0.1:8000/v1 (openai) or\n"
	       "                    https://api.anthropic.com (anthropic)\n"
	       "  --model M         the model name the server knows\n"
	       "  --key-env VAR     environment variable holding the API key (default\n"
	       "                    OPENAI_API_KEY or ANTHROPIC_API_KEY; unset: no key sent)\n"
	       "  --samples N       samples per task (sample track; default 1)\n"
	       "  --rounds R        reflection rounds after a failure (sample), or further\n"
	       "                    iterations of verify and tune (agent); default 0 and 4\n"
	       "  --k LIST          Pass@k values to report, e.g. 1,5 (default 1 and the samples)\n"
	       "  --temperature T   sampling temperature (default: the server's)\n"
	       "  --max-tokens N    completion tokens per request (default 8192)\n"
	       "  --max-tokens-field F  the body field it goes in (default: the API's,\n"
	       "                    max_completion_tokens or max_tokens; none: not sent)\n"
	       "  --param K=V       a field of every request body, V as JSON or else a string,\n"
	       "                    e.g. reasoning_effort=high, top_p=0.95 (repeatable)\n"
	       "  --concurrency N   requests in flight (default 4)\n"
	       "  --request-timeout SEC  per attempt (default 600)\n"
	       "  --retries N       attempts after a 429, 5xx, timeout or cut-off reply (default 4)\n"
	       "  --backoff SEC     first retry delay, doubled per retry (default 2; Retry-After wins)\n"
	       "  --stream          server-sent events instead of one JSON reply\n"
	       "  --budget-tokens N stop sending once the run used N tokens (prompt + completion)\n"
	       "  --budget-usd X    stop sending once the run cost X dollars (needs --prices)\n"
	       "  --prices FILE     JSON {\"<model>\": {\"input\", \"cached_input\", \"output\"}} in USD\n"
	       "                    per million tokens; without it costs are unknown (null)\n"
	       "  --task-time SEC   agent track: wall clock per task (default: none)\n"
	       "  --agent-cmd CMD   external track: run by /bin/sh -c in a fresh workspace per task\n"
	       "                    holding prompt.md and ./verify; it writes solution.py and may\n"
	       "                    report usage.json (docs/generation.md)\n"
	       "  --agent-timeout SEC  external track: wall clock per task (default 3600)\n"
	       "  --agent-sandbox M auto (default), strict or off: the agent's sandbox (read-only\n"
	       "                    files but its workspace, catalog and .git hidden; network on)\n"
	       "  --agent-writable DIR  external track: also writable for the agent (its own\n"
	       "                    state, e.g. ~/.cache; repeatable)\n"
	       "  --out DIR         candidates and workspaces (default kgb-gen/run-<id>)\n"
	       "  --task T          only task T (repeatable)\n"
	       "  --source S        only tasks of source S\n"
	       "  --platform P      cuda or interpreter (default: detected)\n"
	       "  --store PATH      results store (default $KGB_STORE or ./kgb-results.db)\n"
	       "  --seed N          case seed of the evaluations (default 0)\n"
	       "  --json            kgb.generate.v1 per task, then kgb.generate.summary.v1\n"
	       "  --fail-on-error   exit 1 when a request failed (after its retries); without it,\n"
	       "                    only a run where no request got a reply fails (exit 4)\n"
	       "\n"
	       "On a Slurm cluster (docs/cluster.md): the tasks as shards of one array job per\n"
	       "platform, each generating (same model and options; budgets apply per shard) into\n"
	       "DIR/shard-K.db and DIR/out-K; rerun the same command to resubmit the shards that\n"
	       "failed or were cancelled, and, once all are done, to merge them into --store and\n"
	       "print the run. The shards read the API key from their environment (sbatch passes\n"
	       "the submitting one on by default).\n"
	       "%s", slurm_run_usage);
}

enum {
	OPT_TRACK = 0x100, OPT_API, OPT_BASE_URL, OPT_MODEL, OPT_KEY_ENV, OPT_SAMPLES,
	OPT_ROUNDS, OPT_K, OPT_TEMPERATURE, OPT_MAX_TOKENS, OPT_CONCURRENCY,
	OPT_REQUEST_TIMEOUT, OPT_RETRIES, OPT_BACKOFF, OPT_STREAM, OPT_BUDGET_TOKENS,
	OPT_BUDGET_USD, OPT_PRICES, OPT_TASK_TIME, OPT_AGENT_CMD, OPT_AGENT_TIMEOUT, OPT_OUT,
	OPT_AGENT_SANDBOX, OPT_AGENT_WRITABLE, OPT_MAX_TOKENS_FIELD, OPT_PARAM, OPT_FAIL_ON_ERROR,
	OPT_TASK, OPT_SOURCE, OPT_PLATFORM, OPT_STORE, OPT_SEED, OPT_JSON,
};

static const struct option long_opts[] = {
	{"track", required_argument, NULL, OPT_TRACK},
	{"api", required_argument, NULL, OPT_API},
	{"base-url", required_argument, NULL, OPT_BASE_URL},
	{"model", required_argument, NULL, OPT_MODEL},
	{"key-env", required_argument, NULL, OPT_KEY_ENV},
	{"samples", required_argument, NULL, OPT_SAMPLES},
	{"rounds", required_argument, NULL, OPT_ROUNDS},
	{"k", required_argument, NULL, OPT_K},
	{"temperature", required_argument, NULL, OPT_TEMPERATURE},
	{"max-tokens", required_argument, NULL, OPT_MAX_TOKENS},
	{"max-tokens-field", required_argument, NULL, OPT_MAX_TOKENS_FIELD},
	{"param", required_argument, NULL, OPT_PARAM},
	{"fail-on-error", no_argument, NULL, OPT_FAIL_ON_ERROR},
	{"concurrency", required_argument, NULL, OPT_CONCURRENCY},
	{"request-timeout", required_argument, NULL, OPT_REQUEST_TIMEOUT},
	{"retries", required_argument, NULL, OPT_RETRIES},
	{"backoff", required_argument, NULL, OPT_BACKOFF},
	{"stream", no_argument, NULL, OPT_STREAM},
	{"budget-tokens", required_argument, NULL, OPT_BUDGET_TOKENS},
	{"budget-usd", required_argument, NULL, OPT_BUDGET_USD},
	{"prices", required_argument, NULL, OPT_PRICES},
	{"task-time", required_argument, NULL, OPT_TASK_TIME},
	{"agent-cmd", required_argument, NULL, OPT_AGENT_CMD},
	{"agent-timeout", required_argument, NULL, OPT_AGENT_TIMEOUT},
	{"agent-sandbox", required_argument, NULL, OPT_AGENT_SANDBOX},
	{"agent-writable", required_argument, NULL, OPT_AGENT_WRITABLE},
	{"out", required_argument, NULL, OPT_OUT},
	{"task", required_argument, NULL, OPT_TASK},
	{"source", required_argument, NULL, OPT_SOURCE},
	{"platform", required_argument, NULL, OPT_PLATFORM},
	{"store", required_argument, NULL, OPT_STORE},
	{"seed", required_argument, NULL, OPT_SEED},
	{"json", no_argument, NULL, OPT_JSON},
	SLURM_RUN_LONG_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{0},
};

/* Option c of the model and its requests into *l: 0, a usage error, or -ENOENT if not one. */
static int parse_llm_opt(int c, const char *arg, struct llm_config *l)
{
	long v;
	double d;

	switch (c) {
	case OPT_BASE_URL:
		l->base_url = arg;
		break;
	case OPT_MODEL:
		l->model = arg;
		break;
	case OPT_TEMPERATURE:
		if (parse_double(arg, &d) < 0 || d < 0 || d > 10)
			return kgb_usage_error("generate", "--temperature: expected 0..10");
		l->temperature = d;
		break;
	case OPT_MAX_TOKENS:
		if (parse_int_range(arg, 1, 10000000, &v) < 0)
			return kgb_usage_error("generate", "--max-tokens: expected a positive "
					   "integer");
		l->max_tokens = v;
		break;
	case OPT_CONCURRENCY:
		if (parse_int_range(arg, 1, 1024, &v) < 0)
			return kgb_usage_error("generate", "--concurrency: expected 1..1024");
		l->concurrency = (unsigned)v;
		break;
	case OPT_REQUEST_TIMEOUT:
		/* curl counts whole milliseconds in a long, and 0 means no timeout there. */
		if (parse_double(arg, &d) < 0 || !(d >= 0.001 && d <= 1e6))
			return kgb_usage_error("generate", "--request-timeout: expected seconds "
					   "from 0.001 to 1000000, got '%s'", arg);
		l->timeout_s = d;
		break;
	case OPT_RETRIES:
		if (parse_int_range(arg, 0, 100, &v) < 0)
			return kgb_usage_error("generate", "--retries: expected 0..100");
		l->max_retries = (unsigned)v;
		break;
	case OPT_BACKOFF:
		if (parse_double(arg, &d) < 0 || d < 0 || d > 600)
			return kgb_usage_error("generate", "--backoff: expected 0..600 seconds");
		l->backoff_s = d;
		break;
	case OPT_MAX_TOKENS_FIELD:
		l->max_tokens_field = strcmp(arg, "none") ? arg : "";
		break;
	case OPT_STREAM:
		l->stream = true;
		break;
	case OPT_BUDGET_TOKENS:
		if (parse_int_range(arg, 1, LONG_MAX, &v) < 0)
			return kgb_usage_error("generate", "--budget-tokens: expected a positive "
					   "integer");
		l->budget_tokens = v;
		break;
	case OPT_BUDGET_USD:
		if (parse_double(arg, &d) < 0 || !(d > 0))
			return kgb_usage_error("generate", "--budget-usd: expected dollars > 0");
		l->budget_usd = d;
		break;
	default:
		return -ENOENT;
	}
	return 0;
}

/*
 * Option c of the track, its agent and its tasks, with its argument, into *a: 0, a usage
 * error (printed), or -ENOENT when c is not one of them. *rounds_set: --rounds was given.
 */
static int parse_run_opt(int c, const char *arg, struct generate_args *a, bool *rounds_set)
{
	struct gen_run_opts *o = &a->o;
	long v;
	double d;

	switch (c) {
	case OPT_TRACK:
		o->track = arg;
		break;
	case OPT_API:
		o->api = arg;
		break;
	case OPT_KEY_ENV:
		o->key_env = arg;
		break;
	case OPT_SAMPLES:
		if (parse_int_range(arg, 1, 100000, &v) < 0)
			return kgb_usage_error("generate", "--samples: expected 1..100000");
		o->g.samples = (unsigned)v;
		break;
	case OPT_ROUNDS:
		if (parse_int_range(arg, 0, 1000, &v) < 0)
			return kgb_usage_error("generate", "--rounds: expected 0..1000");
		o->g.rounds = (unsigned)v;
		*rounds_set = true;
		break;
	case OPT_K:
		if (gen_parse_ks(arg, o) < 0)
			return kgb_usage_error("generate", "--k: expected a list like 1,5 (at "
					   "most %d positive integers)", GEN_MAX_K);
		break;
	case OPT_PRICES:
		o->prices = arg;
		break;
	case OPT_TASK_TIME:
		if (parse_double(arg, &d) < 0 || !(d > 0))
			return kgb_usage_error("generate", "--task-time: expected seconds > 0");
		o->g.task_time_s = d;
		break;
	case OPT_AGENT_CMD:
		o->g.agent_cmd = arg;
		break;
	case OPT_AGENT_TIMEOUT:
		if (parse_double(arg, &d) < 0 || !(d > 0))
			return kgb_usage_error("generate", "--agent-timeout: expected seconds > 0");
		o->g.agent_timeout_s = d;
		break;
	case OPT_AGENT_SANDBOX:
		o->g.agent_sandbox = sandbox_mode_from_string(arg);
		if (o->g.agent_sandbox < 0)
			return kgb_usage_error("generate", "--agent-sandbox: expected auto, "
					       "strict or off, got '%s'", arg);
		break;
	case OPT_AGENT_WRITABLE:
		if (arg[0] != '/')
			return kgb_usage_error("generate", "--agent-writable: expected an "
					       "absolute directory, got '%s'", arg);
		o->agent_writable = xrealloc(o->agent_writable, (o->nr_agent_writable + 2) *
									sizeof(*o->agent_writable));
		o->agent_writable[o->nr_agent_writable++] = arg;
		o->agent_writable[o->nr_agent_writable] = NULL;
		o->g.agent_writable = o->agent_writable;
		break;
	case OPT_OUT:
		o->g.out_dir = arg;
		break;
	case OPT_TASK:
		o->tasks = xrealloc(o->tasks, (o->nr_tasks + 1) * sizeof(*o->tasks));
		o->tasks[o->nr_tasks++] = arg;
		break;
	case OPT_SOURCE:
		o->source = arg;
		break;
	case OPT_PLATFORM:
		o->g.platform = arg; /* resolved once the profiles are loaded */
		break;
	case OPT_STORE:
		o->g.store_path = arg;
		break;
	case OPT_SEED:
		if (parse_ull(arg, &o->g.seed) < 0)
			return kgb_usage_error("generate", "--seed: expected a non-negative "
					   "integer");
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_FAIL_ON_ERROR:
		o->fail_on_error = true;
		break;
	case OPT_PARAM: {
		struct strbuf why = STRBUF_INIT;
		int r = gen_param_add(&a->params, arg, &why);

		if (r == 0) {
			o->params = xrealloc(o->params, (o->nr_params + 1) * sizeof(*o->params));
			o->params[o->nr_params++] = arg;
			o->g.llm.params = a->params;
		} else {
			r = kgb_usage_error("generate", "--param '%s': %s", arg, why.buf);
		}
		strbuf_release(&why);
		return r;
	}
	default:
		return -ENOENT;
	}
	return 0;
}

/* The options read, taken together: 0, or a usage error (printed). */
static int check_args(struct generate_args *a, bool rounds_set)
{
	struct gen_run_opts *o = &a->o;
	int r;

	if ((r = slurm_run_check_opts(&a->sr, "generate", false)))
		return r;
	if (a->sr.slurm && o->g.out_dir)
		return kgb_usage_error("generate", "--out with --backend slurm: shard K writes "
				       "its candidates to DIR/out-K");
	/* `kgb generate --run-dir DIR --shard K`: the options come with the plan (shard_setup). */
	if (a->sr.shard >= 0 && !a->shard_args)
		return 0;
	if ((r = gen_resolve_names(o)) != 0)
		return kgb_usage_error("generate", "%s: expected %s, got '%s'",
				       r == 1 ? "--track" : "--api",
				       r == 1 ? "sample, agent or external" : "openai or anthropic",
				       r == 1 ? o->track : o->api);
	if (o->g.track == GEN_AGENT && !rounds_set)
		o->g.rounds = 4;
	{
		struct strbuf why = STRBUF_INIT;

		r = gen_check_opts(o, &why) < 0 ? kgb_usage_error("generate", "%s", why.buf) : 0;
		strbuf_release(&why);
	}
	return r;
}

/* The command line into *a: 0, -1 after --help, or a usage error (printed). */
static int parse_args(int argc, char **argv, struct generate_args *a)
{
	bool rounds_set = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			usage();
			return -1;
		}
		r = parse_llm_opt(c, optarg, &a->o.g.llm);
		if (r == -ENOENT)
			r = parse_run_opt(c, optarg, a, &rounds_set);
		if (r == -ENOENT)
			r = slurm_run_parse_opt(&a->sr, "generate", c, optarg);
		if (r == -ENOENT)
			return kgb_usage_error("generate", "unknown option");
		if (r)
			return r;
	}
	if (optind != argc)
		return kgb_usage_error("generate", "unexpected argument '%s'", argv[optind]);
	return check_args(a, rounds_set);
}

/*
 * `kgb generate --run-dir DIR --shard K` (the batch script's call): the plan's options for
 * shard K parsed into *a, as if typed, with its platform, its tasks, DIR/shard-K.db as the
 * store and DIR/out-K as --out. *ret_plan and *ret_argv (owned) hold the strings *a points
 * into. A KGB_EXIT_* code.
 */
static int shard_setup(struct generate_args *a, struct slurm_plan *ret_plan, char ***ret_argv)
{
	struct slurm_run_opts sr = a->sr;
	size_t n = 0;
	int r;

	r = slurm_run_shard_argv(&sr, "generate", ret_plan, ret_argv, &n);
	if (r != KGB_EXIT_OK)
		return r;
	slurm_run_strv_pushf(ret_argv, &n, "--out=%s/out-%ld", sr.run_dir, sr.shard);
	a->shard_args = true;
	optind = 0;
	r = parse_args((int)n, *ret_argv, a);
	return r ? (r < 0 ? KGB_EXIT_USAGE : r) : KGB_EXIT_OK;
}

/* Prints the generate run(s) the shards were merged into (slurm_run_driver.report). */
static int merged_report(void *data, const struct catalog *cat, struct store *store,
			 const char *store_path, const char *label, struct strbuf *err)
{
	const struct generate_args *a = data;
	int r = gen_report_merged(stdout, store, store_path, label, cat, &a->o, a->json, err);

	return r < 0 ? r : KGB_EXIT_OK;
}

/* A platform's shards of a Slurm run (slurm_run_driver.plan_platform): its selected tasks. */
static int plan_platform(void *data, const struct catalog *cat, const struct profile *prof,
			 const char *platform, struct slurm_plan *plan)
{
	const struct generate_args *a = data;

	return gen_plan_platform(&a->o, &a->sr, cat, prof, platform, plan);
}

/* `kgb generate --backend slurm` (slurm_run.h): submits; never asks a model anything itself. */
static int generate_submit(struct generate_args *a, struct kgb_ctx *ctx)
{
	struct slurm_run_driver d = {.cmd = "generate", .platform = a->o.g.platform,
				     .store_path = a->o.g.store_path, .json = a->json,
				     .verbose = ctx->verbose, .plan_platform = plan_platform,
				     .report = merged_report, .data = a};

	return slurm_run_submit(&a->sr, &d, ctx, gen_shard_args(&a->o));
}

int cmd_generate(int argc, char **argv, struct kgb_ctx *ctx)
{
	struct generate_args a = {
		.o = {.g = {.llm = {.temperature = NAN, .max_tokens = 8192, .timeout_s = 600,
				    .max_retries = 4, .backoff_s = 2, .concurrency = 4,
				    .price = {NAN, NAN, NAN}},
			    .samples = 1, .agent_timeout_s = 3600, .agent_sandbox = SANDBOX_AUTO},
		      .api = "openai", .track = "sample"},
		.sr = {.shard = -1},
	};
	struct slurm_plan shard_plan = {0};
	struct kgb_ctx shard_ctx;
	char **shard_argv = NULL;
	struct gen_outcome out = {0};
	double t0 = monotonic_s();
	int ret, r;

	r = parse_args(argc, argv, &a);
	if (r == 0 && !a.o.nr_ks) { /* before a plan's options are taken: a shard gets them all */
		a.o.ks[a.o.nr_ks++] = 1;
		if (a.o.g.samples > 1)
			a.o.ks[a.o.nr_ks++] = a.o.g.samples;
	}
	if (r == 0 && a.sr.shard >= 0) {
		r = shard_setup(&a, &shard_plan, &shard_argv);
		shard_ctx = *ctx;
		shard_ctx.tasks_dir = shard_plan.tasks_dir;
		ctx = &shard_ctx;
	}
	if (r || a.sr.slurm) {
		if (r == 0)
			r = generate_submit(&a, ctx);
		ret = r < 0 ? KGB_EXIT_OK : r;
		goto out;
	}
	a.o.shard = a.sr.shard >= 0;
	ret = gen_execute(&a.o, ctx, &out);
	if (out.res)
		gen_report_print(stdout, &a.o, a.json, out.res, out.nr_res, monotonic_s() - t0);
	if (out.res && ret == KGB_EXIT_OK)
		ret = gen_report_exit(stderr, &a.o, out.res, out.nr_res);
out:
	gen_outcome_release(&out);
	free(a.o.tasks);
	free(a.o.agent_writable);
	free(a.o.params);
	json_decref(a.params);
	slurm_run_opts_release(&a.sr);
	strv_free(shard_argv);
	slurm_plan_release(&shard_plan);
	return ret;
}
