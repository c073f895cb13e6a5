/*
 * cmd_generate.c - `kgb generate`: a model or an agent writes candidates, kgb scores them.
 *
 * Options → the selected tasks → gen_run() (generate.c) → one row per task and the scores
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
#include <unistd.h>

#include "catalog.h"
#include "generate.h"
#include "kgb.h"
#include "platform.h"
#include "profile.h"
#include "sandbox.h"
#include "slurm_run.h"
#include "stats.h"
#include "store.h"
#include "util/fs.h"
#include "util/parse.h"
#include "util/xalloc.h"

#define GEN_MAX_K 8

struct generate_args {
	struct gen_opts g;
	const char *api, *key_env, *prices, *source, *track;
	const char **tasks;
	size_t nr_tasks;
	const char **agent_writable; /* NULL-terminated; the strings are argv's */
	size_t nr_agent_writable;
	unsigned ks[GEN_MAX_K];
	size_t nr_ks;
	bool json;
	/* --backend slurm (docs/cluster.md): the tasks as shards of a Slurm array job. */
	struct slurm_run_opts sr;
	bool shard_args; /* parsing the plan's options of a shard (the second parse) */
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
	       "\n"
	       "On a Slurm cluster (docs/cluster.md): the tasks as shards of one array job per\n"
	       "platform, each generating (same model and options; budgets apply per shard) into\n"
	       "DIR/shard-K.db and DIR/out-K; rerun the same command to resubmit the shards that\n"
	       "failed or were cancelled, and, once all are done, to merge them into --store and\n"
	       "print the run. The shards read the API key from their environment (sbatch passes\n"
	       "the submitting one on by default).\n"
	       "%s", slurm_run_usage);
}

static int parse_ks(const char *s, struct generate_args *a)
{
	char *copy = xstrdup(s), *save = NULL;

	a->nr_ks = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long k;

		if (a->nr_ks == GEN_MAX_K || parse_int_range(tok, 1, 1000000, &k) < 0) {
			free(copy);
			return -EINVAL;
		}
		a->ks[a->nr_ks++] = (unsigned)k;
	}
	free(copy);
	return a->nr_ks ? 0 : -EINVAL;
}

static int parse_args(int argc, char **argv, struct generate_args *a)
{
	enum {
		OPT_TRACK = 0x100, OPT_API, OPT_BASE_URL, OPT_MODEL, OPT_KEY_ENV, OPT_SAMPLES,
		OPT_ROUNDS, OPT_K, OPT_TEMPERATURE, OPT_MAX_TOKENS, OPT_CONCURRENCY,
		OPT_REQUEST_TIMEOUT, OPT_RETRIES, OPT_BACKOFF, OPT_STREAM, OPT_BUDGET_TOKENS,
		OPT_BUDGET_USD, OPT_PRICES, OPT_TASK_TIME, OPT_AGENT_CMD, OPT_AGENT_TIMEOUT, OPT_OUT,
		OPT_AGENT_SANDBOX, OPT_AGENT_WRITABLE,
		OPT_TASK, OPT_SOURCE, OPT_PLATFORM, OPT_STORE, OPT_SEED, OPT_JSON,
	};
	static const struct option opts[] = {
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
	bool rounds_set = false;
	long v;
	double d;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_TRACK:
			a->track = optarg;
			break;
		case OPT_API:
			a->api = optarg;
			break;
		case OPT_BASE_URL:
			a->g.llm.base_url = optarg;
			break;
		case OPT_MODEL:
			a->g.llm.model = optarg;
			break;
		case OPT_KEY_ENV:
			a->key_env = optarg;
			break;
		case OPT_SAMPLES:
			if (parse_int_range(optarg, 1, 100000, &v) < 0)
				return kgb_usage_error("generate", "--samples: expected 1..100000");
			a->g.samples = (unsigned)v;
			break;
		case OPT_ROUNDS:
			if (parse_int_range(optarg, 0, 1000, &v) < 0)
				return kgb_usage_error("generate", "--rounds: expected 0..1000");
			a->g.rounds = (unsigned)v;
			rounds_set = true;
			break;
		case OPT_K:
			if (parse_ks(optarg, a) < 0)
				return kgb_usage_error("generate", "--k: expected a list like 1,5 (at "
						   "most %d positive integers)", GEN_MAX_K);
			break;
		case OPT_TEMPERATURE:
			if (parse_double(optarg, &d) < 0 || d < 0 || d > 10)
				return kgb_usage_error("generate", "--temperature: expected 0..10");
			a->g.llm.temperature = d;
			break;
		case OPT_MAX_TOKENS:
			if (parse_int_range(optarg, 1, 10000000, &v) < 0)
				return kgb_usage_error("generate", "--max-tokens: expected a positive "
						   "integer");
			a->g.llm.max_tokens = v;
			break;
		case OPT_CONCURRENCY:
			if (parse_int_range(optarg, 1, 1024, &v) < 0)
				return kgb_usage_error("generate", "--concurrency: expected 1..1024");
			a->g.llm.concurrency = (unsigned)v;
			break;
		case OPT_REQUEST_TIMEOUT:
			/* curl counts whole milliseconds in a long, and 0 means no timeout there. */
			if (parse_double(optarg, &d) < 0 || !(d >= 0.001 && d <= 1e6))
				return kgb_usage_error("generate", "--request-timeout: expected seconds "
						   "from 0.001 to 1000000, got '%s'", optarg);
			a->g.llm.timeout_s = d;
			break;
		case OPT_RETRIES:
			if (parse_int_range(optarg, 0, 100, &v) < 0)
				return kgb_usage_error("generate", "--retries: expected 0..100");
			a->g.llm.max_retries = (unsigned)v;
			break;
		case OPT_BACKOFF:
			if (parse_double(optarg, &d) < 0 || d < 0 || d > 600)
				return kgb_usage_error("generate", "--backoff: expected 0..600 seconds");
			a->g.llm.backoff_s = d;
			break;
		case OPT_STREAM:
			a->g.llm.stream = true;
			break;
		case OPT_BUDGET_TOKENS:
			if (parse_int_range(optarg, 1, LONG_MAX, &v) < 0)
				return kgb_usage_error("generate", "--budget-tokens: expected a positive "
						   "integer");
			a->g.llm.budget_tokens = v;
			break;
		case OPT_BUDGET_USD:
			if (parse_double(optarg, &d) < 0 || !(d > 0))
				return kgb_usage_error("generate", "--budget-usd: expected dollars > 0");
			a->g.llm.budget_usd = d;
			break;
		case OPT_PRICES:
			a->prices = optarg;
			break;
		case OPT_TASK_TIME:
			if (parse_double(optarg, &d) < 0 || !(d > 0))
				return kgb_usage_error("generate", "--task-time: expected seconds > 0");
			a->g.task_time_s = d;
			break;
		case OPT_AGENT_CMD:
			a->g.agent_cmd = optarg;
			break;
		case OPT_AGENT_TIMEOUT:
			if (parse_double(optarg, &d) < 0 || !(d > 0))
				return kgb_usage_error("generate", "--agent-timeout: expected seconds > 0");
			a->g.agent_timeout_s = d;
			break;
		case OPT_AGENT_SANDBOX:
			a->g.agent_sandbox = sandbox_mode_from_string(optarg);
			if (a->g.agent_sandbox < 0)
				return kgb_usage_error("generate", "--agent-sandbox: expected auto, "
						       "strict or off, got '%s'", optarg);
			break;
		case OPT_AGENT_WRITABLE:
			if (optarg[0] != '/')
				return kgb_usage_error("generate", "--agent-writable: expected an "
						       "absolute directory, got '%s'", optarg);
			a->agent_writable = xrealloc(a->agent_writable,
						     (a->nr_agent_writable + 2) *
							     sizeof(*a->agent_writable));
			a->agent_writable[a->nr_agent_writable++] = optarg;
			a->agent_writable[a->nr_agent_writable] = NULL;
			a->g.agent_writable = a->agent_writable;
			break;
		case OPT_OUT:
			a->g.out_dir = optarg;
			break;
		case OPT_TASK:
			a->tasks = xrealloc(a->tasks, (a->nr_tasks + 1) * sizeof(*a->tasks));
			a->tasks[a->nr_tasks++] = optarg;
			break;
		case OPT_SOURCE:
			a->source = optarg;
			break;
		case OPT_PLATFORM:
			a->g.platform = optarg; /* resolved once the profiles are loaded */
			break;
		case OPT_STORE:
			a->g.store_path = optarg;
			break;
		case OPT_SEED:
			if (parse_ull(optarg, &a->g.seed) < 0)
				return kgb_usage_error("generate", "--seed: expected a non-negative "
						   "integer");
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case 'h':
			usage();
			return -1;
		default:
			r = slurm_run_parse_opt(&a->sr, "generate", c, optarg);
			if (r == -ENOENT)
				return kgb_usage_error("generate", "unknown option");
			if (r)
				return r;
		}
	}
	if (optind != argc)
		return kgb_usage_error("generate", "unexpected argument '%s'", argv[optind]);
	if ((r = slurm_run_check_opts(&a->sr, "generate", false)))
		return r;
	if (a->sr.slurm && a->g.out_dir)
		return kgb_usage_error("generate", "--out with --backend slurm: shard K writes "
				       "its candidates to DIR/out-K");
	/* `kgb generate --run-dir DIR --shard K`: the options come with the plan (shard_setup). */
	if (a->sr.shard >= 0 && !a->shard_args)
		return 0;
	if (!strcmp(a->track, "sample"))
		a->g.track = GEN_SAMPLE;
	else if (!strcmp(a->track, "agent"))
		a->g.track = GEN_AGENT;
	else if (!strcmp(a->track, "external"))
		a->g.track = GEN_EXTERNAL;
	else
		return kgb_usage_error("generate", "--track: expected sample, agent or external, "
				       "got '%s'", a->track);
	if (!strcmp(a->api, "openai"))
		a->g.llm.api = LLM_API_OPENAI;
	else if (!strcmp(a->api, "anthropic"))
		a->g.llm.api = LLM_API_ANTHROPIC;
	else
		return kgb_usage_error("generate", "--api: expected openai or anthropic, got '%s'",
				       a->api);
	if (a->g.track == GEN_EXTERNAL && !a->g.agent_cmd)
		return kgb_usage_error("generate", "--track external needs --agent-cmd");
	if (a->g.track != GEN_EXTERNAL && (!a->g.llm.model || !a->g.llm.base_url))
		return kgb_usage_error("generate", "--model and --base-url are required");
	if (a->g.track == GEN_AGENT && !rounds_set)
		a->g.rounds = 4;
	if (a->g.track != GEN_SAMPLE && a->g.samples > 1)
		return kgb_usage_error("generate", "--samples is for the sample track; the agent "
				       "tracks run one trajectory per task");
	if (a->g.llm.budget_usd > 0 && !a->prices)
		return kgb_usage_error("generate", "--budget-usd needs --prices");
	return 0;
}

static bool selected(const struct generate_args *a, const struct catalog *cat,
		     const struct task *t, const struct profile *prof)
{
	if (a->source && strcmp(t->source, a->source))
		return false;
	if (!task_supports_platform(t, prof->runtime) || !profile_supports_source(prof, t->source))
		return false;
	if (!a->nr_tasks)
		return true;
	for (size_t i = 0; i < a->nr_tasks; i++)
		if (catalog_find(cat, a->tasks[i]) == t)
			return true;
	return false;
}

/* Every --task names a task of the catalog: KGB_EXIT_OK, else KGB_EXIT_DATA (printed). */
static int check_tasks(const struct generate_args *a, const struct catalog *cat)
{
	for (size_t i = 0; i < a->nr_tasks; i++) {
		if (!catalog_find(cat, a->tasks[i])) {
			fprintf(stderr, "kgb generate: --task '%s': no such task (see 'kgb list')\n",
				a->tasks[i]);
			return KGB_EXIT_DATA;
		}
	}
	return KGB_EXIT_OK;
}

/* The selected tasks of the platform, in catalog order: a new array of *ret_nr (borrowed). */
static const struct task **select_tasks(const struct generate_args *a, const struct catalog *cat,
					const struct profile *prof, size_t *ret_nr)
{
	const struct task **sel = xcalloc(cat->nr_tasks + 1, sizeof(*sel));
	size_t n = 0;

	for (size_t i = 0; i < cat->nr_tasks; i++)
		if (selected(a, cat, &cat->tasks[i], prof))
			sel[n++] = &cat->tasks[i];
	*ret_nr = n;
	return sel;
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Pass@k of one task: over the first round's samples (unbiased; NAN when k > n). */
static double task_pass_at_k(const struct gen_task_result *r, unsigned k)
{
	return stats_pass_at_k(r->n, r->solved_by_round[0], k);
}

static void print_results(const struct generate_args *a, const struct gen_task_result *res,
			  size_t n, double wall_s)
{
	long long prompt = 0, completion = 0, cached = 0;
	double cost = 0, llm_s = 0, eval_s = 0, sum_k[GEN_MAX_K] = {0};
	size_t solved = 0, tasks_k[GEN_MAX_K] = {0};
	unsigned rounds = n ? res[0].rounds : 0;
	double *within = xcalloc(rounds + 1, sizeof(double));
	bool cost_known = true;
	json_t *sum;

	if (!a->json)
		printf("%-28s %-8s %-7s %-7s %-9s %-11s %s\n", "TASK", "SAMPLES", "SOLVED", "PASS@1",
		       "TOKENS", "COST", "NOTE");
	for (size_t i = 0; i < n; i++) {
		const struct gen_task_result *r = &res[i];
		long long tok = r->prompt_tokens + r->completion_tokens;
		unsigned last = r->solved_by_round[r->rounds];

		solved += r->solved;
		prompt += r->prompt_tokens;
		completion += r->completion_tokens;
		cached += r->cached_tokens;
		if (isfinite(r->cost_usd))
			cost += r->cost_usd;
		else if (r->nr_attempts)
			cost_known = false;
		llm_s += r->llm_s;
		eval_s += r->eval_s;
		for (size_t j = 0; j < a->nr_ks; j++) {
			double p = task_pass_at_k(r, a->ks[j]);

			if (!isnan(p)) {
				sum_k[j] += p;
				tasks_k[j]++;
			}
		}
		for (unsigned rr = 0; rr <= rounds; rr++)
			within[rr] += (double)r->solved_by_round[rr] / r->n;
		if (a->json) {
			json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:b, s:I, s:I, s:I}",
					      "schema", "kgb.generate.v1", "task", r->task->op,
					      "source", r->task->source, "track", a->track, "samples",
					      (json_int_t)r->n, "passed_first_round",
					      (json_int_t)r->solved_by_round[0], "passed",
					      (json_int_t)last, "solved", r->solved, "prompt_tokens",
					      (json_int_t)r->prompt_tokens, "completion_tokens",
					      (json_int_t)r->completion_tokens, "cached_tokens",
					      (json_int_t)r->cached_tokens);
			json_t *pk = json_object(), *wr = json_array();
			char *s;

			for (size_t j = 0; j < a->nr_ks; j++) {
				char key[16];

				snprintf(key, sizeof(key), "%u", a->ks[j]);
				json_object_set_new(pk, key, num_or_null(task_pass_at_k(r, a->ks[j])));
			}
			for (unsigned rr = 0; rr <= r->rounds; rr++)
				json_array_append_new(wr, json_real((double)r->solved_by_round[rr] /
								    r->n));
			json_object_set_new(o, "pass_at_k", pk);
			json_object_set_new(o, "solved_within_rounds", wr);
			json_object_set_new(o, "cost_usd", num_or_null(r->cost_usd));
			json_object_set_new(o, "llm_s", json_real(r->llm_s));
			json_object_set_new(o, "eval_s", json_real(r->eval_s));
			json_object_set_new(o, "best_speedup", num_or_null(r->best_speedup));
			json_object_set_new(o, "final_verdict", r->final_verdict
									? json_string(r->final_verdict)
									: json_null());
			s = json_dumps(o, JSON_COMPACT);
			printf("%s\n", s);
			free(s);
			json_decref(o);
		} else {
			char cost_s[32], note[96] = "";

			if (isfinite(r->cost_usd))
				snprintf(cost_s, sizeof(cost_s), "$%.4f", r->cost_usd);
			else
				snprintf(cost_s, sizeof(cost_s), "unknown");
			if (r->final_verdict)
				snprintf(note, sizeof(note), "held-out: %s", r->final_verdict);
			if (isfinite(r->best_speedup))
				snprintf(note + strlen(note), sizeof(note) - strlen(note),
					 "%sbest speedup %.2fx", *note ? ", " : "", r->best_speedup);
			printf("%-28s %-8u %-7u %-7.3f %-9lld %-11s %s\n", r->task->op, r->n, last,
			       task_pass_at_k(r, 1), tok, cost_s, note);
		}
	}
	sum = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "schema",
			"kgb.generate.summary.v1", "track", a->track, "tasks", (json_int_t)n,
			"solved", (json_int_t)solved, "prompt_tokens", (json_int_t)prompt,
			"completion_tokens", (json_int_t)completion, "cached_tokens",
			(json_int_t)cached);
	{
		json_t *pk = json_object(), *wr = json_array();
		double per = solved ? 1.0 / (double)solved : NAN;

		for (size_t j = 0; j < a->nr_ks; j++) {
			char key[16];

			snprintf(key, sizeof(key), "%u", a->ks[j]);
			json_object_set_new(pk, key, json_pack("{s:o, s:I}", "value",
							       num_or_null(tasks_k[j] ? sum_k[j] /
									   tasks_k[j] : NAN),
							       "tasks", (json_int_t)tasks_k[j]));
		}
		for (unsigned rr = 0; rr <= rounds; rr++)
			json_array_append_new(wr, num_or_null(n ? within[rr] / (double)n : NAN));
		json_object_set_new(sum, "pass_at_k", pk);
		json_object_set_new(sum, "solved_within_rounds", wr);
		json_object_set_new(sum, "cost_usd", cost_known ? json_real(cost) : json_null());
		json_object_set_new(sum, "tokens_per_success",
				    num_or_null((double)(prompt + completion) * per));
		json_object_set_new(sum, "cost_per_success",
				    cost_known ? num_or_null(cost * per) : json_null());
		json_object_set_new(sum, "seconds_per_success", num_or_null((llm_s + eval_s) * per));
		json_object_set_new(sum, "llm_s", json_real(llm_s));
		json_object_set_new(sum, "eval_s", json_real(eval_s));
		json_object_set_new(sum, "wall_s", num_or_null(wall_s));
	}
	if (a->json) {
		char *s = json_dumps(sum, JSON_COMPACT);

		printf("%s\n", s);
		free(s);
	} else {
		printf("\nsolved: %zu/%zu tasks", solved, n);
		for (size_t j = 0; j < a->nr_ks; j++)
			if (tasks_k[j])
				printf("  pass@%u %.3f", a->ks[j], sum_k[j] / (double)tasks_k[j]);
		printf("\n");
		if (rounds) {
			printf("solved within r rounds (sequential):");
			for (unsigned rr = 0; rr <= rounds; rr++)
				printf(" r%u %.3f", rr, n ? within[rr] / (double)n : NAN);
			printf("\n");
		}
		printf("tokens: %lld prompt (%lld cached) + %lld completion", prompt, cached,
		       completion);
		if (solved)
			printf("; %.0f per solved task", (double)(prompt + completion) / solved);
		printf("\ncost: ");
		if (cost_known)
			printf("$%.4f%s", cost, solved ? "" : "\n");
		else
			printf("unknown (no --prices for this model)\n");
		if (cost_known && solved)
			printf("; $%.4f per solved task\n", cost / solved);
		printf("time: %.1f s of model replies + %.1f s of evaluation", llm_s, eval_s);
		if (solved)
			printf("; %.1f s per solved task", (llm_s + eval_s) / solved);
		if (isfinite(wall_s))
			printf(" (wall %.1f s)", wall_s);
		printf("\n");
	}
	json_decref(sum);
	free(within);
}

/* An absolute form of a path that may not exist yet (the store). */
static char *abs_path(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return xstrdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	return path_join(cwd, path);
}

static char *self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

/*
 * The options every shard's `kgb generate` gets (the plan's eval_args): what is asked of whom
 * and how, with paths made absolute (the shards run elsewhere); never the key (each shard
 * reads it from its environment). The platform, the store, the tasks and --out are each
 * shard's own.
 */
static char **shard_gen_args(const struct generate_args *a)
{
	const struct gen_opts *g = &a->g;
	char **v = xcalloc(1, sizeof(*v));
	struct strbuf ks = STRBUF_INIT;
	size_t n = 0;

	slurm_run_strv_pushf(&v, &n, "--track=%s", a->track);
	if (g->track != GEN_EXTERNAL) {
		slurm_run_strv_pushf(&v, &n, "--api=%s", a->api);
		slurm_run_strv_pushf(&v, &n, "--base-url=%s", g->llm.base_url);
		slurm_run_strv_pushf(&v, &n, "--model=%s", g->llm.model);
	}
	if (a->key_env)
		slurm_run_strv_pushf(&v, &n, "--key-env=%s", a->key_env);
	slurm_run_strv_pushf(&v, &n, "--samples=%u", g->samples);
	slurm_run_strv_pushf(&v, &n, "--rounds=%u", g->rounds);
	for (size_t i = 0; i < a->nr_ks; i++)
		strbuf_addf(&ks, "%s%u", i ? "," : "", a->ks[i]);
	if (ks.len)
		slurm_run_strv_pushf(&v, &n, "--k=%s", ks.buf);
	if (isfinite(g->llm.temperature))
		slurm_run_strv_pushf(&v, &n, "--temperature=%.17g", g->llm.temperature);
	slurm_run_strv_pushf(&v, &n, "--max-tokens=%ld", g->llm.max_tokens);
	slurm_run_strv_pushf(&v, &n, "--concurrency=%u", g->llm.concurrency);
	slurm_run_strv_pushf(&v, &n, "--request-timeout=%.17g", g->llm.timeout_s);
	slurm_run_strv_pushf(&v, &n, "--retries=%u", g->llm.max_retries);
	slurm_run_strv_pushf(&v, &n, "--backoff=%.17g", g->llm.backoff_s);
	if (g->llm.stream)
		slurm_run_strv_push(&v, &n, "--stream");
	if (g->llm.budget_tokens > 0)
		slurm_run_strv_pushf(&v, &n, "--budget-tokens=%lld", g->llm.budget_tokens);
	if (g->llm.budget_usd > 0)
		slurm_run_strv_pushf(&v, &n, "--budget-usd=%.17g", g->llm.budget_usd);
	if (a->prices) {
		char *abs = path_abs(a->prices);

		slurm_run_strv_pushf(&v, &n, "--prices=%s", abs ? abs : a->prices);
		free(abs);
	}
	if (g->task_time_s > 0)
		slurm_run_strv_pushf(&v, &n, "--task-time=%.17g", g->task_time_s);
	if (g->agent_cmd) {
		slurm_run_strv_pushf(&v, &n, "--agent-cmd=%s", g->agent_cmd);
		slurm_run_strv_pushf(&v, &n, "--agent-timeout=%.17g", g->agent_timeout_s);
		slurm_run_strv_pushf(&v, &n, "--agent-sandbox=%s",
				     sandbox_mode_to_string(g->agent_sandbox));
	}
	for (size_t i = 0; i < a->nr_agent_writable; i++)
		slurm_run_strv_pushf(&v, &n, "--agent-writable=%s", a->agent_writable[i]);
	if (a->source)
		slurm_run_strv_pushf(&v, &n, "--source=%s", a->source);
	slurm_run_strv_pushf(&v, &n, "--seed=%llu", g->seed);
	strbuf_release(&ks);
	return v;
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

/*
 * The scores of one task of a merged run, from its stored requests rows[from..to) (all of the
 * task): what gen_run() counted as it went, counted again from the generations table.
 */
static void result_from_rows(const struct generate_args *a, const struct task *t, json_t *rows,
			     size_t from, size_t to, struct gen_task_result *r)
{
	unsigned per_task = a->g.track == GEN_SAMPLE ? a->g.samples : 1;
	unsigned *first = xcalloc(per_task, sizeof(*first));
	bool final_seen = false, final_pass = false;

	memset(r, 0, sizeof(*r));
	r->task = t;
	r->n = per_task;
	r->rounds = a->g.track == GEN_EXTERNAL ? 0 : a->g.rounds;
	r->solved_by_round = xcalloc(r->rounds + 1, sizeof(unsigned));
	r->best_speedup = NAN;
	r->cost_usd = 0; /* as gen_run()'s add_usage(): NAN once a request's cost is unknown */
	for (unsigned s = 0; s < per_task; s++)
		first[s] = UINT_MAX;
	for (size_t i = from; i < to; i++) {
		json_t *row = json_array_get(rows, i);
		const char *stage = json_string_value(json_object_get(row, "stage"));
		const char *outcome = json_string_value(json_object_get(row, "outcome"));
		json_int_t sample = json_integer_value(json_object_get(row, "sample"));
		json_int_t round = json_integer_value(json_object_get(row, "round"));
		json_t *sp = json_object_get(row, "speedup"), *cost = json_object_get(row, "cost_usd");
		bool pass = outcome && !strcmp(outcome, "pass");

		r->nr_attempts++;
		r->prompt_tokens += json_integer_value(json_object_get(row, "prompt_tokens"));
		r->completion_tokens += json_integer_value(json_object_get(row, "completion_tokens"));
		r->cached_tokens += json_integer_value(json_object_get(row, "cached_tokens"));
		if (!stage || strcmp(stage, "final")) /* a final evaluation sends no request */
			r->cost_usd += json_is_number(cost) ? json_number_value(cost) : NAN;
		if (json_is_number(json_object_get(row, "latency_ms")))
			r->llm_s += json_number_value(json_object_get(row, "latency_ms")) / 1000;
		if (json_is_number(json_object_get(row, "eval_ms")))
			r->eval_s += json_number_value(json_object_get(row, "eval_ms")) / 1000;
		if (stage && !strcmp(stage, "final")) {
			final_seen = true;
			final_pass = pass;
			/* The external track's only verdict is its final one. */
			if (pass && a->g.track == GEN_EXTERNAL) {
				first[0] = 0;
				r->best_speedup = json_is_number(sp) ? json_number_value(sp) : NAN;
			}
			continue;
		}
		if (!pass || sample < 0 || sample >= (json_int_t)per_task)
			continue;
		if (round >= 0 && (json_int_t)first[sample] > round)
			first[sample] = (unsigned)round;
		if (json_is_number(sp) &&
		    (isnan(r->best_speedup) || json_number_value(sp) > r->best_speedup))
			r->best_speedup = json_number_value(sp);
	}
	for (unsigned s = 0; s < per_task; s++) {
		if (first[s] == UINT_MAX)
			continue;
		r->solved = true;
		for (unsigned rr = first[s] < r->rounds ? first[s] : r->rounds; rr <= r->rounds; rr++)
			r->solved_by_round[rr]++;
	}
	if (a->g.track != GEN_SAMPLE && (final_seen || a->g.track == GEN_AGENT))
		r->final_verdict = final_pass ? "pass" : "fail";
	/* Zeroed attempts: only their number counts (print_results); release frees nothing. */
	r->attempts = xcalloc(r->nr_attempts + 1, sizeof(*r->attempts));
	free(first);
}

/* Prints the generate run(s) the shards were merged into (slurm_run_driver.report). */
static int merged_report(void *data, const struct catalog *cat, struct store *store,
			 const char *store_path, const char *label, struct strbuf *err)
{
	const struct generate_args *a = data;
	long long *ids = NULL;
	char **plats = NULL;
	size_t nr = 0;
	int r;

	r = store_merge_gen_runs(store, label, &ids, &plats, &nr, err);
	for (size_t i = 0; r == 0 && i < nr; i++) {
		struct gen_task_result *res;
		json_t *rows = NULL;
		size_t n = 0, from = 0, nrows;

		if ((r = store_generations_get(store, ids[i], &rows, err)) < 0)
			break;
		nrows = json_array_size(rows);
		res = xcalloc(nrows + 1, sizeof(*res));
		/* Rows come task by task (source, then op): one result per run of rows. */
		for (size_t k = 1; k <= nrows; k++) {
			json_t *p = json_array_get(rows, from), *q = json_array_get(rows, k);
			struct strbuf id = STRBUF_INIT;
			const struct task *t;

			if (k < nrows &&
			    json_equal(json_object_get(p, "task"), json_object_get(q, "task")) &&
			    json_equal(json_object_get(p, "source"), json_object_get(q, "source")))
				continue;
			strbuf_addf(&id, "%s/%s", json_string_value(json_object_get(p, "source")),
				    json_string_value(json_object_get(p, "task")));
			t = catalog_find(cat, id.buf);
			strbuf_release(&id);
			if (t)
				result_from_rows(a, t, rows, from, k, &res[n++]);
			from = k;
		}
		if (!a->json)
			printf("run %lld (%s) in %s\n", ids[i], plats[i], store_path);
		print_results(a, res, n, NAN);
		for (size_t k = 0; k < n; k++)
			gen_task_result_release(&res[k]);
		free(res);
		json_decref(rows);
	}
	free(ids);
	strv_free(plats);
	return r < 0 ? r : KGB_EXIT_OK;
}

/* A platform's shards of a Slurm run (slurm_run_driver.plan_platform): its selected tasks. */
static int plan_platform(void *data, const struct catalog *cat, const struct profile *prof,
			 const char *platform, struct slurm_plan *plan)
{
	const struct generate_args *a = data;
	const struct task **sel;
	size_t nsel = 0;
	int ret = check_tasks(a, cat);

	if (ret != KGB_EXIT_OK)
		return ret;
	sel = select_tasks(a, cat, prof, &nsel);
	if (!nsel)
		fprintf(stderr, "kgb generate: platform '%s': no task selected, skipping\n",
			platform);
	slurm_run_deal(&a->sr, plan, platform, sel, NULL, nsel);
	free(sel);
	return KGB_EXIT_OK;
}

/* `kgb generate --backend slurm` (slurm_run.h): submits; never asks a model anything itself. */
static int generate_submit(struct generate_args *a, struct kgb_ctx *ctx)
{
	struct slurm_run_driver d = {.cmd = "generate", .platform = a->g.platform,
				     .store_path = a->g.store_path, .json = a->json,
				     .verbose = ctx->verbose, .plan_platform = plan_platform,
				     .report = merged_report, .data = a};

	return slurm_run_submit(&a->sr, &d, ctx, shard_gen_args(a));
}

int cmd_generate(int argc, char **argv, struct kgb_ctx *ctx)
{
	struct generate_args a = {
		.api = "openai",
		.track = "sample",
		.g = {.llm = {.temperature = NAN, .max_tokens = 8192, .timeout_s = 600,
			      .max_retries = 4, .backoff_s = 2, .concurrency = 4,
			      .price = {NAN, NAN, NAN}},
		      .samples = 1, .agent_timeout_s = 3600, .agent_sandbox = SANDBOX_AUTO},
		.sr = {.shard = -1},
	};
	struct slurm_plan shard_plan = {0};
	struct kgb_ctx shard_ctx;
	char **shard_argv = NULL;
	struct strbuf err = STRBUF_INIT, out_dir = STRBUF_INIT, env = STRBUF_INIT;
	const struct task **sel = NULL;
	struct gen_task_result *res = NULL;
	struct catalog *cat = NULL;
	struct store *st = NULL;
	struct profile_set profiles = {0};
	const struct profile *prof = NULL;
	char *exe = NULL, *tasks_abs = NULL, *store_abs = NULL;
	const char *key_env;
	long long run_id = 0;
	size_t nsel = 0;
	double t0 = monotonic_s();
	int ret = KGB_EXIT_OK, r;

	r = parse_args(argc, argv, &a);
	if (r == 0 && !a.nr_ks) { /* before a plan's options are taken: a shard gets them all */
		a.ks[a.nr_ks++] = 1;
		if (a.g.samples > 1)
			a.ks[a.nr_ks++] = a.g.samples;
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
		free(a.tasks);
		free(a.agent_writable);
		slurm_run_opts_release(&a.sr);
		strv_free(shard_argv);
		slurm_plan_release(&shard_plan);
		return r < 0 ? KGB_EXIT_OK : r;
	}
	key_env = a.key_env ? a.key_env
			    : a.g.llm.api == LLM_API_OPENAI ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
	a.g.llm.key = getenv(key_env);
	if (a.prices) {
		r = llm_price_load(a.prices, a.g.llm.model ? a.g.llm.model : "", &a.g.llm.price,
				   &err);
		if (r < 0 && (r != -ENOENT || a.g.llm.budget_usd > 0)) {
			fprintf(stderr, "kgb generate: %s\n", err.buf);
			ret = KGB_EXIT_DATA;
			goto out;
		}
		strbuf_reset(&err);
	}
	if ((ret = kgb_load_profiles(ctx, "generate", &profiles)) != KGB_EXIT_OK)
		goto out;
	if (a.g.platform && !(prof = kgb_platform_arg(&profiles, "generate", a.g.platform, &ret)))
		goto out;
	cat = kgb_load_catalog(ctx, &ret);
	if (!cat)
		goto out;
	if (!prof) {
		char *root = platform_root(), *python = platform_python(root);
		json_t *probe = NULL;

		r = platform_probe(root, python, &probe, &err);
		free(root);
		free(python);
		if (r < 0) {
			fprintf(stderr, "kgb generate: %s\n", err.buf);
			ret = KGB_EXIT_ENV;
			goto out;
		}
		prof = profile_detect(&profiles, probe);
		json_decref(probe);
		if (!prof) {
			fprintf(stderr, "kgb generate: no platform profile matches this machine (kgb "
				"platforms --detect); name one with --platform\n");
			ret = KGB_EXIT_ENV;
			goto out;
		}
	}
	if (!profile_runnable(prof)) {
		fprintf(stderr, "kgb generate: platform '%s' has no worker runtime in kgb yet "
			"(runtime '%s'; docs/platforms.md)\n", prof->name, prof->runtime);
		ret = KGB_EXIT_ENV;
		goto out;
	}
	a.g.platform = prof->name;
	a.g.platform_prompt = prof->prompt;
	if ((ret = check_tasks(&a, cat)) != KGB_EXIT_OK)
		goto out;
	sel = select_tasks(&a, cat, prof, &nsel);
	if (!nsel) {
		fprintf(stderr, "kgb generate: no task selected on platform '%s'\n", a.g.platform);
		ret = KGB_EXIT_DATA;
		goto out;
	}
	exe = self_exe();
	tasks_abs = path_abs(ctx->tasks_dir);
	if (!a.g.store_path)
		a.g.store_path = getenv("KGB_STORE") ? getenv("KGB_STORE") : "kgb-results.db";
	store_abs = abs_path(a.g.store_path);
	if (!exe || !tasks_abs || !store_abs) {
		fprintf(stderr, "kgb generate: cannot resolve this binary, the catalog or the store\n");
		ret = KGB_EXIT_ENV;
		goto out;
	}
	a.g.kgb_exe = exe;
	a.g.tasks_dir = tasks_abs;
	a.g.kgb_root = ctx->root;
	a.g.store_path = store_abs;
	a.g.verbose = ctx->verbose;
	/* The run: what was asked of whom, never the key. */
	{
		json_t *e = json_pack("{s:s, s:s?, s:s?, s:s?, s:I, s:I, s:I}", "track", a.track,
				      "api", a.g.track == GEN_EXTERNAL ? NULL : a.api, "model",
				      a.g.llm.model, "agent_cmd", a.g.agent_cmd, "samples",
				      (json_int_t)a.g.samples, "rounds", (json_int_t)a.g.rounds,
				      "max_tokens", (json_int_t)a.g.llm.max_tokens);
		char *s;

		json_object_set_new(e, "temperature", num_or_null(a.g.llm.temperature));
		json_object_set_new(e, "base_url",
				    a.g.llm.base_url ? json_string(a.g.llm.base_url) : json_null());
		s = json_dumps(e, JSON_COMPACT);
		strbuf_addstr(&env, s);
		free(s);
		json_decref(e);
	}
	if (store_open(a.g.store_path, &st, &err) < 0 ||
	    store_run_begin(st, a.g.platform, "generate", "kgb generate", env.buf, &run_id, &err) <
		    0) {
		fprintf(stderr, "kgb generate: %s\n", err.buf);
		ret = err.len && strstr(err.buf, "locked") ? KGB_EXIT_ENV : KGB_EXIT_DATA;
		goto out;
	}
	if (!a.g.out_dir) {
		strbuf_addf(&out_dir, "kgb-gen/run-%lld", run_id);
		a.g.out_dir = out_dir.buf;
	}
	r = gen_run(&a.g, sel, nsel, run_id, &res, &err);
	if (r < 0) {
		fprintf(stderr, "kgb generate: %s\n", err.buf);
		ret = r == -EBADMSG ? KGB_EXIT_DATA : KGB_EXIT_ENV; /* a task's prompt.md */
		goto out;
	}
	if (store_run_end(st, run_id, &err) < 0) {
		fprintf(stderr, "kgb generate: %s\n", err.buf);
		ret = KGB_EXIT_DATA;
	}
	/*
	 * A shard's store is read from other hosts (kgb status, the merge): once its children are
	 * done, from WAL to the rollback journal (docs/cluster.md).
	 */
	if (ret == KGB_EXIT_OK && a.sr.shard >= 0 && store_use_rollback_journal(st, &err) < 0) {
		fprintf(stderr, "kgb generate: %s\n", err.buf);
		ret = KGB_EXIT_ENV;
	}
	print_results(&a, res, nsel, monotonic_s() - t0);
	for (size_t i = 0; i < nsel; i++)
		gen_task_result_release(&res[i]);
	free(res);
out:
	store_free(st);
	catalog_free(cat);
	profile_set_release(&profiles);
	free(sel);
	free(exe);
	free(tasks_abs);
	free(store_abs);
	free(a.tasks);
	free(a.agent_writable);
	slurm_run_opts_release(&a.sr);
	strv_free(shard_argv);
	slurm_plan_release(&shard_plan);
	strbuf_release(&err);
	strbuf_release(&out_dir);
	strbuf_release(&env);
	return ret;
}
