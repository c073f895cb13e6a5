/*
 * cmd_eval.c - `kgb eval`: evaluate candidates (default: the shipped solutions) on a platform.
 *
 * catalog → candidates → content address (reuse stored results) → cases → jobs on worker slots
 * → each result committed to the store as it ends → the run's table, read back from the store.
 *
 * On a timing platform the jobs run in two phases (DESIGN §5, docs/architecture.md): first
 * every case is checked on many slots at once, which is where Triton compiles, so compilation
 * uses every core; then each candidate that passed runs its timed cases again, one job per
 * GPU at a time, with nothing else on the device. A candidate is stored once, after both.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"
#include "catalog.h"
#include "ceilings.h"
#include "escape.h"
#include "kgb.h"
#include "platform.h"
#include "profile.h"
#include "proto.h"
#include "report.h"
#include "sandbox.h"
#include "sched.h"
#include "slurm.h"
#include "slurm_run.h"
#include "stats.h"
#include "store.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/parse.h"
#include "util/xalloc.h"

/* Default checking workers per GPU on a timing platform (each holds a context and its inputs). */
#define EVAL_CHECK_SLOTS_PER_GPU 8u

/*
 * Default timing workers per GPU (--timing-jobs). They share the GPU through its lock
 * (runtime/gpulock.py): the timed rounds run alone on it, while the other workers start,
 * load and check their next cases, which were most of the serial timing phase
 * (bench/results/h200-2026-12-04: about 0.3 s of every 0.4 s timed case outside the rounds).
 */
#define EVAL_TIMING_JOBS_PER_GPU 4u
/*
 * The longest a timing worker may hold its GPU alone (runtime/gpulock.py kills a worker past
 * it); every other worker's timeout is extended by this much per other slot on its GPU.
 */
#define EVAL_GPU_HOLD_MAX_S 60.0

/* A candidate file larger than this is refused before it reaches a worker. */
#define EVAL_MAX_CANDIDATE_BYTES (1u << 20)

extern char **environ;

struct eval_opts {
	const char *solutions;
	const char **tasks;
	size_t nr_tasks;
	const char *source;
	const char *platform;
	const char *store_path;
	const char *python;
	unsigned slots;
	double timeout_s;
	unsigned long long seed;
	unsigned long long memory_mib; /* 0: the default (sched_default_limits) */
	unsigned long long cache_mib;  /* 0: the default (sched_default_limits) */
	enum sandbox_mode sandbox;
	int standby; /* -1: the default of each phase */
	const char *timing; /* "events" (NULL) or "cuda_graph" (runtime/timing.py) */
	const struct profile *profile; /* resolved or detected; its sources filter the tasks */
	const char *cache_root; /* --cache-root, or NULL */
	const char *history;	/* --history: a store of past runs, read for their wall times */
	unsigned split;       /* --split: checking jobs per candidate; 0: plan_shards() decides */
	unsigned timing_jobs; /* --timing-jobs: timing workers per GPU; 0: the default */
	bool json, force, exit_status, heldout;
	/* --backend slurm (docs/cluster.md): submit the run as shards instead of evaluating. */
	struct slurm_run_opts sr;
};

struct candidate {
	const struct task *task;
	char *path;   /* absolute */
	char *sample;
	char *sample_shown; /* sample through escape_text(): it is a file name */
	char hash[HASH_HEX_LEN + 1];
	char key[HASH_HEX_LEN + 1];
	struct case_list cases;
	size_t cases_skipped;	 /* dropped from `cases`: the platform cannot judge them */
	struct strbuf skip_note; /* why, for the detail; empty when none */
	char *job_line;
	bool duplicate; /* same key as an earlier candidate of this run */
	double check_cost; /* check_cost() of its cases: the order of the checking jobs */
	/*
	 * Checking in shards (plan_shards): shard s checks shard_cases[s], whose case k is
	 * cases.v[shard_ids[s][k]]; with one shard, the job is job_line over all cases. The
	 * shards' results are merged into `merged` (owned) as they end.
	 */
	size_t nshards, shards_done;
	struct shard_ref *refs;	       /* owned: one per shard, the jobs' data */
	struct case_list *shard_cases; /* owned arrays of shallow copies */
	size_t **shard_ids;
	char **shard_lines;
	struct sched_result merged;
	bool merging, shard_failed;
	char *prechecked; /* owned: its check from an earlier run (store_check_get), or NULL */
	/* Timing phase: the checked result, held (owned) until the timing job ends. */
	struct sched_result checked;
	bool held;
	struct case_list timed; /* shallow copies of the timed cases of `cases`; only .v owned */
	size_t *timed_ids;	/* timed.v[k] is cases.v[timed_ids[k]] */
	char *time_job_line;
};

enum eval_phase { PHASE_ALL, PHASE_CHECK, PHASE_TIME };

/* The data of a checking job: which candidate, which of its shards. */
struct shard_ref {
	struct candidate *c;
	size_t shard;
};

struct eval_ctx {
	struct store *store;
	long long run_id;
	const char *platform;
	const char *harness;
	int verbose;
	enum eval_phase phase;
	struct ceilings ceil; /* the device's speed-of-light; .known false without */
	size_t done, total;
	size_t env_failures; /* candidates not evaluated: the worker's platform did not start */
	double start_s; /* monotonic time the jobs started, for progress lines */
	const struct sched_opts *so; /* for sched_judge_cases */
};

static void usage(void)
{
	printf("usage: kgb eval [options]\n"
	       "\n"
	       "Evaluates candidates on this machine's platform and prints one row per candidate.\n"
	       "Without --solutions, evaluates the shipped solution of every task.\n"
	       "\n"
	       "  --solutions DIR   candidates: DIR/<task>.py or DIR/<task>/<sample>.py\n"
	       "  --task T          only task T (op or source/op; repeatable)\n"
	       "  --source S        only tasks of source S\n"
	       "  --platform P      cuda or interpreter (default: detected)\n"
	       "  -j, --jobs N      checking slots (default: one per CPU core, at most 8 per GPU)\n"
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

static int parse_args(int argc, char **argv, struct eval_opts *o)
{
	enum {
		OPT_SOLUTIONS = 0x100,
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
	static const struct option opts[] = {
		{"solutions", required_argument, NULL, OPT_SOLUTIONS},
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
	long l;

	o->timeout_s = 300;
	o->sandbox = SANDBOX_AUTO;
	o->standby = -1;
	while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOLUTIONS:
			o->solutions = optarg;
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
		case 'j':
			if (parse_int_range(optarg, 1, 1024, &l) < 0)
				return kgb_usage_error("eval", "--jobs: expected 1..1024, got '%s'",
						       optarg);
			o->slots = (unsigned)l;
			break;
		case OPT_TIMEOUT:
			if (parse_double(optarg, &o->timeout_s) < 0 || !(o->timeout_s > 0))
				return kgb_usage_error("eval", "--timeout: expected seconds > 0, got '%s'",
						       optarg);
			break;
		case OPT_STORE:
			o->store_path = optarg;
			break;
		case OPT_SEED:
			if (parse_ull(optarg, &o->seed) < 0)
				return kgb_usage_error("eval", "--seed: expected a non-negative integer, got '%s'",
						       optarg);
			break;
		case OPT_PYTHON:
			o->python = optarg;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_EXIT_STATUS:
			o->exit_status = true;
			break;
		case OPT_JSON:
			o->json = true;
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
		case OPT_MEMORY_LIMIT:
			if (parse_ull(optarg, &o->memory_mib) < 0 || !o->memory_mib ||
			    o->memory_mib > (1ULL << 30))
				return kgb_usage_error("eval", "--memory-limit: expected MiB > 0, got "
						       "'%s'", optarg);
			break;
		case OPT_CACHE_LIMIT:
			if (parse_ull(optarg, &o->cache_mib) < 0 || !o->cache_mib ||
			    o->cache_mib > (1ULL << 30))
				return kgb_usage_error("eval", "--cache-limit: expected MiB > 0, got "
						       "'%s'", optarg);
			break;
		case OPT_TIMING_JOBS:
			if (parse_int_range(optarg, 1, 64, &l) < 0)
				return kgb_usage_error("eval", "--timing-jobs: expected 1..64, got "
						       "'%s'", optarg);
			o->timing_jobs = (unsigned)l;
			break;
		case OPT_STANDBY:
			if (parse_int_range(optarg, 0, 8, &l) < 0)
				return kgb_usage_error("eval", "--standby: expected 0..8, got '%s'",
						       optarg);
			o->standby = (int)l;
			break;
		case OPT_SPLIT:
			if (parse_int_range(optarg, 1, 1024, &l) < 0)
				return kgb_usage_error("eval", "--split: expected 1..1024, got '%s'",
						       optarg);
			o->split = (unsigned)l;
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
			r = slurm_run_parse_opt(&o->sr, "eval", c, optarg);
			if (r == -ENOENT)
				return kgb_usage_error("eval", "unknown option");
			if (r)
				return r;
		}
	}
	if (optind < argc)
		return kgb_usage_error("eval", "unexpected argument '%s'", argv[optind]);
	return slurm_run_check_opts(&o->sr, "eval", o->force);
}

/*
 * The harness version: kgb's version, the protocol, and the bytes of the Python runtime; with
 * "+<method>" when the timing method is not the default, so that times of two methods are
 * never one stored result (report.c reads the label back from it).
 */
static char *harness_version(const char *root, struct strbuf *err, const char *timing)
{
	char *dir = path_join(root, "runtime"), **names = NULL;
	char hex[HASH_HEX_LEN + 1];
	struct strbuf sb = STRBUF_INIT;
	struct hash h;
	int r;

	r = list_dir_sorted(dir, &names);
	if (r < 0) {
		strbuf_addf(err, "cannot read the runtime directory '%s': %s", dir, strerror(-r));
		free(dir);
		return NULL;
	}
	hash_init(&h);
	for (char **n = names; *n; n++) {
		char *p;
		size_t len = strlen(*n);

		if (len < 3 || strcmp(*n + len - 3, ".py"))
			continue;
		p = path_join(dir, *n);
		r = hash_update_file(&h, p, *n);
		free(p);
		if (r < 0)
			break;
	}
	hash_hex(&h, hex);
	strv_free(names);
	free(dir);
	if (r < 0) {
		strbuf_addf(err, "cannot read the runtime: %s", strerror(-r));
		return NULL;
	}
	strbuf_addf(&sb, "kgb-%s/proto-%d/runtime-%.16s", KGB_VERSION, PROTO_VERSION, hex);
	if (timing)
		strbuf_addf(&sb, "+%s", timing);
	return strbuf_detach(&sb, NULL);
}

static bool task_selected(const struct eval_opts *o, const struct catalog *cat,
			  const struct task *t, const char *platform)
{
	if (o->source && strcmp(o->source, t->source))
		return false;
	if (!task_supports_platform(t, platform))
		return false;
	if (o->profile && !profile_supports_source(o->profile, t->source))
		return false;
	if (!o->nr_tasks)
		return true;
	for (size_t i = 0; i < o->nr_tasks; i++)
		if (catalog_find(cat, o->tasks[i]) == t)
			return true;
	return false;
}

static void add_candidate(struct candidate **v, size_t *n, size_t *alloc, const struct task *t,
			  const char *path, const char *sample)
{
	struct candidate *c;
	char *abs = path_abs(path);

	XGROW(*v, *n + 1, *alloc);
	c = &(*v)[(*n)++];
	memset(c, 0, sizeof(*c));
	c->task = t;
	c->path = abs ? abs : xstrdup(path);
	c->sample = xstrdup(sample);
	strbuf_init(&c->skip_note, 0);
	c->sample_shown = escape_text_dup(sample);
}

/* Collects the candidates of the selected tasks; *ret_skipped counts tasks with none. */
static int collect_candidates(const struct eval_opts *o, const struct catalog *cat,
			      const char *platform, struct candidate **ret, size_t *ret_nr,
			      size_t *ret_skipped, struct strbuf *err)
{
	struct candidate *v = NULL;
	size_t n = 0, alloc = 0, skipped = 0;

	if (o->solutions && !path_is_dir(o->solutions)) {
		strbuf_addf(err, "--solutions '%s': not a directory", o->solutions);
		return -ENOENT;
	}
	for (size_t i = 0; i < cat->nr_tasks; i++) {
		const struct task *t = &cat->tasks[i];
		size_t before = n;

		if (!task_selected(o, cat, t, platform))
			continue;
		if (!o->solutions) {
			char *p = task_path(t, "solution.py");
			add_candidate(&v, &n, &alloc, t, p, "shipped");
			free(p);
			continue;
		}
		{
			struct strbuf file = STRBUF_INIT;
			char *dir = path_join(o->solutions, t->op), **names = NULL;

			strbuf_addf(&file, "%s/%s.py", o->solutions, t->op);
			if (path_is_file(file.buf))
				add_candidate(&v, &n, &alloc, t, file.buf, "-");
			if (path_is_dir(dir) && list_dir_sorted(dir, &names) == 0) {
				for (char **nm = names; *nm; nm++) {
					size_t len = strlen(*nm);
					char *p, *sample;

					if (len < 4 || strcmp(*nm + len - 3, ".py"))
						continue;
					p = path_join(dir, *nm);
					sample = xstrndup(*nm, len - 3);
					add_candidate(&v, &n, &alloc, t, p, sample);
					free(sample);
					free(p);
				}
				strv_free(names);
			}
			free(dir);
			strbuf_release(&file);
		}
		if (n == before)
			skipped++;
	}
	for (size_t i = 0; i < o->nr_tasks; i++) {
		if (!catalog_find(cat, o->tasks[i])) {
			strbuf_addf(err, "--task '%s': no such task (see 'kgb list')", o->tasks[i]);
			for (size_t k = 0; k < n; k++) {
				free(v[k].path);
				free(v[k].sample);
			}
			free(v);
			return -ENOENT;
		}
	}
	*ret = v;
	*ret_nr = n;
	*ret_skipped = skipped;
	return 0;
}

/* First failing case as JSON text for the store, or NULL when all passed. */
static char *first_failure_json(struct candidate *c, struct sched_result *res)
{
	for (size_t i = 0; i < c->cases.nr; i++) {
		json_t *m = json_array_get(res->cases, i), *o;
		const char *v = json_string_value(json_object_get(m, "verdict"));
		char *s;

		if (v && !strcmp(v, "pass"))
			continue;
		o = json_pack("{s:I, s:s, s:O, s:s}", "case", (json_int_t)i, "entry",
			      c->cases.v[i].entry, "axes", c->cases.v[i].axes, "verdict",
			      v ? v : "not run");
		if (json_is_number(json_object_get(m, "max_abs_err")))
			json_object_set(o, "max_abs_err", json_object_get(m, "max_abs_err"));
		if (json_is_string(json_object_get(m, "message")))
			json_object_set(o, "message", json_object_get(m, "message"));
		s = json_dumps(o, JSON_COMPACT);
		json_decref(o);
		return s;
	}
	return NULL;
}

/*
 * The rates a timed case achieved, from the task's cost model (DESIGN §5, speed-of-light):
 * achieved_gbps = bytes / time, achieved_tflops = flops / time, and with the device's ceilings
 * sol_fraction, added to the case's record. Returns true when the case is faster than the
 * device can be (sol_exceeded, also recorded): its speedup must not count.
 */
static bool add_achieved(json_t *m, const struct case_desc *cd, const struct ceilings *ceil)
{
	json_t *ms = json_object_get(m, "time_cand_ms");
	double s, gbps = -1, tflops = -1, f;

	if (!json_is_number(ms) || json_number_value(ms) <= 0)
		return false;
	s = json_number_value(ms) * 1e-3;
	if (cd->bytes >= 0)
		json_object_set_new(m, "achieved_gbps", json_real(gbps = cd->bytes / s / 1e9));
	if (cd->flops >= 0)
		json_object_set_new(m, "achieved_tflops", json_real(tflops = cd->flops / s / 1e12));
	f = ceilings_fraction(ceil, cd->out_dtype, gbps, tflops);
	if (isnan(f))
		return false;
	json_object_set_new(m, "sol_fraction", json_real(f));
	if (f <= CEILINGS_SOL_LIMIT)
		return false;
	json_object_set_new(m, "sol_exceeded", json_true());
	return true;
}

/*
 * A rough guess of a candidate's checking time in seconds, used only to order the checking jobs
 * longest first (so that the slowest candidates do not start last and hold the phase open while the
 * other slots idle: bench/results/h200-2026-12-03c): a fixed cost per case plus its bytes and
 * FLOPs at rates a checking worker reaches (its references run in float64).
 */
static double check_cost(const struct case_list *cl)
{
	double s = 0;

	for (size_t i = 0; i < cl->nr; i++) {
		const struct case_desc *cd = &cl->v[i];

		s += 0.02 + (cd->bytes > 0 ? cd->bytes / 2e11 : 0) +
		     (cd->flops > 0 ? cd->flops / 2e13 : 0);
	}
	return s;
}

/*
 * The longest wall time (s) a stored evaluation of the task took on the platform: this store's,
 * else the --history store's (a fresh store for a cold-cache measurement, a new machine);
 * NAN when neither has one. A store that cannot be read only loses the hint.
 */
static double past_wall_s(struct store *store, struct store *history, const struct task *t,
			  const char *platform)
{
	struct strbuf err = STRBUF_INIT;
	double ms = NAN;

	if (store_task_wall_ms(store, t->source, t->op, platform, &ms, &err) < 0)
		ms = NAN;
	if (isnan(ms) && history &&
	    store_task_wall_ms(history, t->source, t->op, platform, &ms, &err) < 0)
		ms = NAN;
	strbuf_release(&err);
	return ms * 1e-3;
}

/* Longest first; ties in the candidates' order, so that a run's order is reproducible. */
static int by_check_cost(const void *a, const void *b)
{
	const struct shard_ref *ra = ((const struct sched_job *)a)->data;
	const struct shard_ref *rb = ((const struct sched_job *)b)->data;
	double ka = ra->c->check_cost / (double)ra->c->nshards;
	double kb = rb->c->check_cost / (double)rb->c->nshards;

	if (ka != kb)
		return ka < kb ? 1 : -1;
	if (ra->c != rb->c)
		return ra->c < rb->c ? -1 : 1;
	return ra->shard < rb->shard ? -1 : ra->shard > rb->shard;
}

/* A shard below this guessed length is not worth another worker's start. */
#define SHARD_MIN_S 30.0
/* Nor one of fewer cases. */
#define SHARD_MIN_CASES 16

/*
 * How many checking jobs a candidate gets: `split` when given; else as many as keep each
 * under the longer of SHARD_MIN_S and the phase's fair share (all candidates' cost over the
 * slots), so that no candidate alone holds the phase open while other slots idle
 * (bench/results/h200-2026-12-03c: matmul checked for 230 s, the other 29 tasks in 120 s).
 */
static size_t shards_of(const struct candidate *c, double total_cost, unsigned slots,
			unsigned split)
{
	double share = total_cost / (slots ? slots : 1);
	size_t k, most = c->cases.nr / SHARD_MIN_CASES;

	if (split)
		return split < c->cases.nr ? split : (c->cases.nr ? c->cases.nr : 1);
	if (share < SHARD_MIN_S)
		share = SHARD_MIN_S;
	k = (size_t)ceil(c->check_cost / share);
	if (k > slots)
		k = slots;
	if (k > most)
		k = most;
	return k ? k : 1;
}

/*
 * Splits c's cases over k shards, round-robin (a task's grid puts its large cases together:
 * dealing them out spreads them), and renders each shard's job line.
 */
static void make_shards(struct candidate *c, size_t k, const char *platform)
{
	c->nshards = k;
	c->refs = xcalloc(k, sizeof(*c->refs));
	for (size_t s = 0; s < k; s++)
		c->refs[s] = (struct shard_ref){.c = c, .shard = s};
	if (k == 1)
		return;
	c->shard_cases = xcalloc(k, sizeof(*c->shard_cases));
	c->shard_ids = xcalloc(k, sizeof(*c->shard_ids));
	c->shard_lines = xcalloc(k, sizeof(*c->shard_lines));
	for (size_t s = 0; s < k; s++) {
		struct case_list *l = &c->shard_cases[s];

		for (size_t i = s; i < c->cases.nr; i += k) {
			XGROW(l->v, l->nr + 1, l->alloc);
			c->shard_ids[s] = xrealloc(c->shard_ids[s], (l->nr + 1) * sizeof(size_t));
			c->shard_ids[s][l->nr] = i;
			l->v[l->nr++] = c->cases.v[i];
		}
		c->shard_lines[s] = proto_build_job(c->task, c->path, platform, l, NULL);
	}
}

/* The sched_job of shard s of c. */
static struct sched_job shard_job(struct candidate *c, size_t s)
{
	struct sched_job j = {.task = c->task, .cache_key = c->key, .candidate = c->path,
			      .replay = proto_task_ghost(c->task), .data = &c->refs[s]};

	j.nr_cases = c->nshards == 1 ? c->cases.nr : c->shard_cases[s].nr;
	j.job_line = c->nshards == 1 ? c->job_line : c->shard_lines[s];
	return j;
}

static void result_release(struct sched_result *r)
{
	strbuf_release(&r->detail);
	strbuf_release(&r->stderr_tail);
	json_decref(r->cases);
	json_decref(r->hello);
	memset(r, 0, sizeof(*r));
}

/*
 * Folds one shard's result into c->merged. Returns the candidate's whole checking result once
 * every shard has ended (res itself when there is one shard), else NULL. A shard whose worker
 * did not report all its cases (a crash, a timeout, a load error) gives the candidate its
 * verdict, the first such shard's; otherwise the merged cases are judged as one job's.
 */
static struct sched_result *merge_shard(struct eval_ctx *ctx, struct shard_ref *ref,
					struct sched_result *res)
{
	struct candidate *c = ref->c;
	struct sched_result *m = &c->merged;
	size_t nr = c->shard_cases ? c->shard_cases[ref->shard].nr : 0;

	if (c->nshards == 1)
		return res;
	if (!c->merging) {
		c->merging = true;
		strbuf_init(&m->detail, 0);
		strbuf_init(&m->stderr_tail, 0);
		m->cases = json_array();
		for (size_t i = 0; i < c->cases.nr; i++)
			json_array_append_new(m->cases, json_null());
		m->import_ms = -1;
	}
	for (size_t k = 0; k < nr; k++) {
		json_t *cr = json_array_get(res->cases, k);

		if (json_is_object(cr)) {
			json_object_set_new(cr, "id", json_integer((json_int_t)c->shard_ids[ref->shard][k]));
			json_array_set(m->cases, c->shard_ids[ref->shard][k], cr);
		}
	}
	m->cases_done += res->cases_done;
	m->wall_ms += res->wall_ms;
	if (res->import_ms > m->import_ms)
		m->import_ms = res->import_ms;
	if (!m->hello && res->hello)
		m->hello = json_incref(res->hello);
	if (res->cases_done < nr && !c->shard_failed) {
		c->shard_failed = true;
		m->verdict = res->verdict;
		/* Which shard matters where the detail counts its cases, not for a load error. */
		if (!proto_is_fatal_verdict(res->verdict))
			strbuf_addf(&m->detail, "shard %zu of %zu: ", ref->shard + 1, c->nshards);
		strbuf_addstr(&m->detail, res->detail.buf);
		strbuf_add(&m->stderr_tail, res->stderr_tail.buf, res->stderr_tail.len);
	}
	if (++c->shards_done < c->nshards)
		return NULL;
	if (!c->shard_failed)
		sched_judge_cases(ctx->so, m->cases, c->cases.nr, m);
	return m;
}

/* Picks the timed cases of a checked candidate; false when it has none. */
static bool select_timed(struct candidate *c)
{
	for (size_t i = 0; i < c->cases.nr; i++) {
		if (!c->cases.v[i].timed)
			continue;
		XGROW(c->timed.v, c->timed.nr + 1, c->timed.alloc);
		c->timed_ids = xrealloc(c->timed_ids, (c->timed.nr + 1) * sizeof(*c->timed_ids));
		c->timed_ids[c->timed.nr] = i;
		c->timed.v[c->timed.nr++] = c->cases.v[i];
	}
	return c->timed.nr > 0;
}

/*
 * Folds the timing job's result into the held check result: its case reports replace those of
 * the same cases, and a failure while timing (a crash, a wrong output on the timed inputs) is
 * the candidate's verdict. Returns the merged result, owned by the candidate.
 */
static struct sched_result *merge_timing(struct candidate *c, struct sched_result *t)
{
	struct sched_result *m = &c->checked;

	for (size_t k = 0; k < c->timed.nr; k++) {
		json_t *cr = json_array_get(t->cases, k);

		if (cr) {
			json_object_set_new(cr, "id", json_integer((json_int_t)c->timed_ids[k]));
			json_array_set(m->cases, c->timed_ids[k], cr);
		}
	}
	m->wall_ms += t->wall_ms;
	if (!strcmp(t->verdict, "pass"))
		return m;
	m->verdict = t->verdict;
	strbuf_reset(&m->detail);
	for (size_t k = 0; k < c->timed.nr && !proto_is_fatal_verdict(t->verdict); k++) {
		json_t *cr = json_array_get(t->cases, k);
		const char *v = json_string_value(json_object_get(cr, "verdict"));
		const char *msg = json_string_value(json_object_get(cr, "message"));

		if (v && strcmp(v, "pass")) {
			strbuf_addf(&m->detail, "case %zu (timed run): %s", c->timed_ids[k],
				    msg ? msg : v);
			return m;
		}
	}
	strbuf_addf(&m->detail, "timed run: %s", t->detail.buf);
	strbuf_release(&m->stderr_tail);
	m->stderr_tail = t->stderr_tail;
	strbuf_init(&t->stderr_tail, 0);
	return m;
}

/* A held checking result as JSON, for the store's checks table (store_check_put). */
static char *checked_json(const struct sched_result *r)
{
	json_t *o = json_pack("{s:s, s:s, s:O, s:f, s:f}", "verdict", r->verdict, "detail",
			      r->detail.len ? r->detail.buf : "", "cases", r->cases, "import_ms",
			      r->import_ms, "wall_ms", r->wall_ms);
	char *text;

	if (r->hello)
		json_object_set(o, "hello", r->hello);
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

/*
 * Back from checked_json() into *ret: 0, or -EINVAL when the text is not a passing check of
 * nr_cases cases (the candidate is then checked again).
 */
static int checked_from_json(const char *text, size_t nr_cases, struct sched_result *ret)
{
	json_t *o = json_loads(text, 0, NULL);
	json_t *cases = json_object_get(o, "cases");
	const char *v = json_string_value(json_object_get(o, "verdict"));
	const char *detail = json_string_value(json_object_get(o, "detail"));

	if (!json_is_array(cases) || json_array_size(cases) != nr_cases || !v || strcmp(v, "pass")) {
		json_decref(o);
		return -EINVAL;
	}
	memset(ret, 0, sizeof(*ret));
	ret->verdict = "pass";
	strbuf_init(&ret->detail, 0);
	strbuf_addstr(&ret->detail, detail ? detail : "");
	strbuf_init(&ret->stderr_tail, 0);
	ret->cases = json_incref(cases);
	ret->hello = json_incref(json_object_get(o, "hello"));
	ret->cases_done = nr_cases;
	ret->import_ms = json_number_value(json_object_get(o, "import_ms"));
	ret->wall_ms = json_number_value(json_object_get(o, "wall_ms"));
	json_decref(o);
	return 0;
}

static int on_done(void *vctx, struct sched_job *job, struct sched_result *res)
{
	struct eval_ctx *ctx = vctx;
	struct candidate *c;
	struct store_eval e = {0};
	struct strbuf err = STRBUF_INIT;
	json_t *rows;
	double *speedups, max_tol = NAN;
	size_t nsp = 0, passed = 0, timed = 0, over_sol = 0;
	int r;

	if (ctx->phase == PHASE_TIME) {
		c = job->data;
	} else {
		c = ((struct shard_ref *)job->data)->c;
		res = merge_shard(ctx, job->data, res);
		if (!res)
			return 0; /* more shards to come */
	}
	if (ctx->phase == PHASE_CHECK && !strcmp(res->verdict, "pass") && select_timed(c)) {
		char *text;

		/* Hold it: the result is stored after the timing phase. */
		c->checked = *res;
		memset(res, 0, sizeof(*res));
		c->held = true;
		/* Kept meanwhile, so that a run killed while timing need not check it again. */
		text = checked_json(&c->checked);
		if (store_check_put(ctx->store, c->key, text, &err) < 0)
			fprintf(stderr, "kgb eval: %s (not kept)\n", err.buf);
		free(text);
		strbuf_release(&err);
		report_progress_clear(ctx->verbose); /* the live bar (report.h) */
		if (ctx->verbose > 0 || (ctx->verbose == 0 && isatty(STDERR_FILENO)))
			fprintf(stderr, "[%zu/%zu +%.0fs] %s/%s %s: checked, %zu cases to time\n",
				++ctx->done, ctx->total, monotonic_s() - ctx->start_s, c->task->source,
				c->task->op, c->sample_shown, c->timed.nr);
		report_progress_draw(ctx->done, ctx->total, monotonic_s() - ctx->start_s,
				     ctx->verbose);
		return 0;
	}
	if (ctx->phase == PHASE_TIME)
		res = merge_timing(c, res);
	ctx->done++;
	if (!strcmp(res->verdict, "env_error")) {
		/* The machine failed, not the candidate: nothing is stored, so a later run retries. */
		char *d = escape_text_dup(res->detail.buf);

		fprintf(stderr, "kgb eval: %s/%s %s: not evaluated: %s (nothing stored)\n",
			c->task->source, c->task->op, c->sample_shown, d);
		free(d);
		ctx->env_failures++;
		return 0;
	}
	rows = json_array();
	speedups = xcalloc(c->cases.nr + 1, sizeof(*speedups));

	for (size_t i = 0; i < c->cases.nr; i++) {
		struct case_desc *cd = &c->cases.v[i];
		json_t *m = json_array_get(res->cases, i);
		const char *v = json_string_value(json_object_get(m, "verdict"));
		json_t *sp = json_object_get(m, "speedup"), *tu = json_object_get(m, "tol_use");

		bool impossible = add_achieved(m, cd, &ctx->ceil);

		passed += v && !strcmp(v, "pass");
		timed += cd->timed;
		over_sol += impossible;
		if (cd->timed && json_is_number(sp) && !impossible)
			speedups[nsp++] = json_number_value(sp);
		if (json_is_number(tu) && (isnan(max_tol) || json_number_value(tu) > max_tol))
			max_tol = json_number_value(tu);
		json_array_append_new(rows, json_pack("{s:s, s:O, s:b, s:f, s:f, s:O}", "entry",
						      cd->entry, "axes", cd->axes, "timed", cd->timed,
						      "atol", cd->tol.atol, "rtol", cd->tol.rtol,
						      "result", m ? m : json_null()));
	}
	memcpy(e.key, c->key, sizeof(e.key));
	e.task = c->task->op;
	e.source = c->task->source;
	e.task_version = (char *)c->task->version;
	e.candidate_hash = c->hash;
	e.candidate_path = c->path;
	e.sample = c->sample;
	e.platform = (char *)ctx->platform;
	e.harness = (char *)ctx->harness;
	e.verdict = (char *)res->verdict;
	if (over_sol)
		strbuf_addf(&res->detail, "%s%zu timed case%s faster than %.2fx the device's measured "
			    "ceilings (speed-of-light): not counted in the speedup",
			    res->detail.len ? "; " : "", over_sol, over_sol == 1 ? "" : "s",
			    CEILINGS_SOL_LIMIT);
	if (c->skip_note.len)
		strbuf_addf(&res->detail, "%s%s", res->detail.len ? "; " : "", c->skip_note.buf);
	e.detail = res->detail.buf;
	e.cases_total = (long long)c->cases.nr;
	e.cases_skipped = (long long)c->cases_skipped;
	e.cases_passed = (long long)passed;
	e.timed_cases = (long long)timed;
	/* A candidate that never loaded failed no particular case. */
	e.first_failure = strcmp(res->verdict, "pass") && !proto_is_fatal_verdict(res->verdict)
				  ? first_failure_json(c, res)
				  : NULL;
	e.speedup = stats_geomean(speedups, nsp);
	e.max_tol_use = max_tol;
	e.import_ms = res->import_ms < 0 ? NAN : res->import_ms;
	e.wall_ms = res->wall_ms;
	r = store_eval_put(ctx->store, ctx->run_id, &e, rows, &err);
	if (r < 0)
		fprintf(stderr, "kgb eval: %s\n", err.buf);
	report_progress_clear(ctx->verbose); /* the live bar (report.h) */
	if (ctx->verbose > 0 || (ctx->verbose == 0 && isatty(STDERR_FILENO)))
		fprintf(stderr, "[%s%zu/%zu +%.0fs] %s/%s %s: %s (%zu/%zu cases, %.1f s)\n",
			ctx->phase == PHASE_TIME ? "timed " : "", ctx->done, ctx->total,
			monotonic_s() - ctx->start_s, c->task->source, c->task->op, c->sample_shown,
			res->verdict, passed, c->cases.nr, res->wall_ms / 1e3);
	report_progress_draw(ctx->done, ctx->total, monotonic_s() - ctx->start_s, ctx->verbose);
	if (ctx->verbose > 1 && res->stderr_tail.len) {
		/* Line by line, each escaped: the worker wrote it (escape.h). */
		struct strbuf tail = STRBUF_INIT, line = STRBUF_INIT;

		for (const char *l = res->stderr_tail.buf; *l;) {
			size_t n = strcspn(l, "\n");

			strbuf_reset(&line);
			strbuf_add(&line, l, n);
			escape_text(&tail, line.buf);
			strbuf_addch(&tail, '\n');
			l += n + (l[n] == '\n');
		}
		strbuf_release(&line);
		fprintf(stderr, "--- worker stderr (tail) ---\n%s---\n", tail.buf);
		strbuf_release(&tail);
	}
	free(e.first_failure);
	free(speedups);
	json_decref(rows);
	strbuf_release(&err);
	return r;
}

/* Whether some path of the list is dir or lies below it. */
static bool holds_any(const char *dir, char *const *list)
{
	size_t n = strlen(dir);

	for (; list && *list; list++) {
		char *rp = realpath(*list, NULL);
		bool in = rp && !strncmp(rp, dir, n) && (rp[n] == '/' || !rp[n] || n == 1);

		free(rp);
		if (in)
			return true;
	}
	return false;
}

/*
 * A store (results, --history) hidden from workers: its directory when that holds nothing a
 * worker needs (the project root, the catalog, Python), else the database and its journal
 * files one by one (a store in the project root).
 */
static void hide_store(struct kgb_sandbox_view *v, const char *path)
{
	char *abs = path ? realpath(path, NULL) : NULL, *slash;
	static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};

	if (!abs)
		return;
	slash = strrchr(abs, '/');
	if (slash && slash != abs) {
		*slash = '\0';
		if (!holds_any(abs, v->visible)) {
			kgb_sandbox_view_add(&v->hidden, abs);
			free(abs);
			return;
		}
		*slash = '/';
	}
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s%s", abs, suffixes[i]);
		kgb_sandbox_view_add(&v->hidden, sb.buf);
		strbuf_release(&sb);
	}
	free(abs);
}

/*
 * What eval's workers see (docs/security.md, hidden_paths): kgb_sandbox_view_init()'s view,
 * the --solutions directory hidden (each worker sees its own candidate and its own task's
 * directory, where today's worker reads the reference and the baseline: sched_job), and the
 * stores hidden. The catalog is not hidden unless it lies below a hidden path or
 * KGB_SANDBOX_HIDE names it.
 */
static void sandbox_view(struct kgb_sandbox_view *v, const struct eval_opts *o,
			 const struct kgb_ctx *kctx, const char *python, const char *platform)
{
	kgb_sandbox_view_init(v, kctx->root, python, platform, "eval");
	if (o->solutions) {
		char *abs = realpath(o->solutions, NULL);

		if (abs)
			kgb_sandbox_view_add(&v->hidden, abs);
		free(abs);
	}
	hide_store(v, o->store_path);
	hide_store(v, o->history);
	kgb_sandbox_view_hide_from_runner(v, kctx->tasks_dir);
}

static int link_candidate(struct store *store, long long run_id, struct candidate *c,
			  bool reused, struct strbuf *err)
{
	struct store_eval e = {0};

	memcpy(e.key, c->key, sizeof(e.key));
	e.task = c->task->op;
	e.sample = c->sample;
	e.candidate_path = c->path;
	return store_run_link(store, run_id, &e, reused, err);
}

static char *command_line(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "kgb");
	for (int i = 0; i < argc; i++)
		strbuf_addf(&sb, " %s", argv[i]);
	return strbuf_detach(&sb, NULL);
}

/*
 * The options every shard's `kgb eval` gets (the plan's eval_args): those that change what is
 * evaluated or how, with paths made absolute (the shards run elsewhere). The platform, the
 * store and the tasks are each shard's own.
 */
static char **shard_eval_args(const struct eval_opts *o)
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
	slurm_run_strv_pushf(&v, &n, "--seed=%llu", o->seed);
	if (o->heldout)
		slurm_run_strv_push(&v, &n, "--heldout");
	slurm_run_strv_pushf(&v, &n, "--timeout=%g", o->timeout_s);
	if (o->slots)
		slurm_run_strv_pushf(&v, &n, "--jobs=%u", o->slots);
	else if (o->sr.cpus_per_task)
		slurm_run_strv_pushf(&v, &n, "--jobs=%u", o->sr.cpus_per_task);
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

/*
 * `kgb eval --run-dir DIR --shard K` (the batch script's call): the plan's options for shard K
 * parsed into *o, as if typed, with its platform, its tasks and DIR/shard-K.db as the store.
 * *ret_plan and *ret_argv (owned) hold the strings *o points into. A KGB_EXIT_* code.
 */
static int shard_setup(struct eval_opts *o, struct slurm_plan *ret_plan, char ***ret_argv)
{
	const char *cpus = getenv("SLURM_CPUS_PER_TASK");
	struct slurm_run_opts sr = o->sr;
	size_t n = 0;
	long l;
	int r;

	r = slurm_run_shard_argv(&sr, "eval", ret_plan, ret_argv, &n);
	if (r != KGB_EXIT_OK)
		return r;
	optind = 0;
	r = parse_args((int)n, *ret_argv, o);
	if (r)
		return r < 0 ? KGB_EXIT_USAGE : r;
	/* Without -j, as many checking slots as Slurm gave the shard CPUs (no binding here). */
	if (!o->slots && cpus && parse_int_range(cpus, 1, 1024, &l) == 0)
		o->slots = (unsigned)l;
	return KGB_EXIT_OK;
}

/* A platform's shards of a Slurm run (slurm_run_driver.plan_platform): its tasks with candidates. */
static int plan_platform(void *data, const struct catalog *cat, const struct profile *prof,
			 const char *platform, struct slurm_plan *plan)
{
	struct eval_opts *o = data;
	struct strbuf err = STRBUF_INIT;
	struct candidate *cands = NULL;
	size_t nr = 0, skipped = 0, ntasks = 0;
	const struct task **tasks;
	size_t *counts;
	int r;

	o->profile = prof; /* its sources filter the tasks */
	r = collect_candidates(o, cat, prof->runtime, &cands, &nr, &skipped, &err);
	o->profile = NULL;
	if (r < 0) {
		fprintf(stderr, "kgb eval: %s\n", err.buf);
		strbuf_release(&err);
		return r == -ENOENT ? KGB_EXIT_USAGE : KGB_EXIT_DATA;
	}
	strbuf_release(&err);
	/* Candidates come task by task in catalog order: the task list and its counts. */
	tasks = xcalloc(nr + 1, sizeof(*tasks));
	counts = xcalloc(nr + 1, sizeof(*counts));
	for (size_t i = 0; i < nr; i++) {
		if (!ntasks || tasks[ntasks - 1] != cands[i].task)
			tasks[ntasks++] = cands[i].task;
		counts[ntasks - 1]++;
		free(cands[i].path);
		free(cands[i].sample);
		free(cands[i].sample_shown);
	}
	free(cands);
	if (!ntasks)
		fprintf(stderr, "kgb eval: platform '%s': no candidate to evaluate, skipping\n",
			platform);
	slurm_run_deal(&o->sr, plan, platform, tasks, counts, ntasks);
	free(tasks);
	free(counts);
	return KGB_EXIT_OK;
}

/* Prints the run(s) the shards were merged into (slurm_run_driver.report). */
static int slurm_report(void *data, const struct catalog *cat, struct store *store,
			const char *store_path, const char *label, struct strbuf *err)
{
	const struct eval_opts *o = data;
	long long *ids = NULL;
	char **plats = NULL;
	size_t nr = 0, failed = 0, total_failed = 0;
	int r;

	(void)cat;
	r = store_merge_runs(store, label, &ids, &plats, &nr, err);
	for (size_t i = 0; r == 0 && i < nr; i++) {
		r = report_from_store(stdout, store, ids[i], plats[i], store_path, 0, NULL, o->json,
				      &failed, err);
		total_failed += failed;
	}
	free(ids);
	strv_free(plats);
	if (r < 0)
		return r;
	return o->exit_status && total_failed ? KGB_EXIT_NO : KGB_EXIT_OK;
}

/*
 * The GPU lock file of the timing workers, <scratch>/gpu.lock, open read-write at a descriptor
 * above SANDBOX_REPLAY_FD (the sandbox passes it on as SANDBOX_PASS_FD). *ret_fd is the caller's to close.
 */
static int open_gpu_lock(const char *scratch, int *ret_fd, struct strbuf *err)
{
	char *path = path_join(scratch, "gpu.lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600), r = 0;

	if (fd < 0) {
		r = -errno;
		strbuf_addf(err, "cannot create the GPU lock '%s': %s", path, strerror(errno));
	} else {
		*ret_fd = fcntl(fd, F_DUPFD_CLOEXEC, SANDBOX_REPLAY_FD + 1);
		if (*ret_fd < 0) {
			r = -errno;
			*ret_fd = 0;
			strbuf_addf(err, "cannot duplicate the GPU lock: %s", strerror(errno));
		}
		close(fd);
	}
	free(path);
	return r;
}

/*
 * `--heldout` promises cases no public grid has. A task that has none (no `heldout` axes, and
 * no input drawn from the seed) would report its public result as the held-out one, so the run
 * is refused, naming every such task.
 */
static int check_heldout(const struct candidate *cands, size_t nr, unsigned long long seed,
			 struct strbuf *err)
{
	int r = 0;

	for (size_t i = 0; i < nr; i++) {
		struct case_list l = {0};
		size_t held = 0;
		bool seen = false;

		for (size_t k = 0; k < i; k++)
			seen |= cands[k].task == cands[i].task;
		if (seen)
			continue;
		if (cases_generate(cands[i].task, CASES_HELDOUT, seed, &l, err) < 0)
			return -EINVAL; /* the same error comes again when its cases are built */
		for (size_t k = 0; k < l.nr; k++)
			held += l.v[k].heldout;
		case_list_release(&l);
		if (!held) {
			strbuf_addf(err,
				    "%s--heldout: task '%s' has no held-out cases (%s/task.json: "
				    "no 'heldout' axes and no input drawn from the seed)",
				    r ? "; " : "", cands[i].task->op, cands[i].task->dir);
			r = -EINVAL;
		}
	}
	return r;
}

/* `kgb eval --backend slurm` (slurm_run.h): submits; never evaluates anything itself. */
static int eval_submit(struct eval_opts *o, struct kgb_ctx *kctx)
{
	struct slurm_run_driver d = {.cmd = "eval", .platform = o->platform,
				     .store_path = o->store_path, .json = o->json,
				     .verbose = kctx->verbose, .plan_platform = plan_platform,
				     .report = slurm_report, .data = o};

	return slurm_run_submit(&o->sr, &d, kctx, shard_eval_args(o));
}

int cmd_eval(int argc, char **argv, struct kgb_ctx *kctx)
{
	struct eval_opts o = {.sr = {.shard = -1}};
	struct slurm_plan shard_plan = {0};
	char **shard_argv = NULL;
	struct kgb_ctx shard_ctx;
	struct catalog *cat = NULL;
	struct candidate *cands = NULL;
	struct sched_job *jobs = NULL;
	struct store *store = NULL;
	struct store *history = NULL; /* --history, read-only */
	size_t nr_cands = 0, skipped = 0, nr_jobs = 0, nr_checked = 0, nr_prechecked = 0;
	double total_cost = 0;
	struct strbuf err = STRBUF_INIT, scratch = STRBUF_INIT;
	char *python = NULL, *harness = NULL, *cmdline = NULL, *probe_text = NULL;
	char *pycache = NULL;
	struct profile_set profiles = {0};
	/* -P: the worker's working directory is not put on sys.path. */
	char *wargv[] = {NULL, "-P", "-m", "runtime.worker", NULL};
	char *rargv[] = {NULL, "-P", "-m", "runtime.runner", NULL};
	char *replay_argv[] = {NULL, "-P", "-m", "runtime.replay_runner", NULL};
	struct sched_opts so = {0};
	struct kgb_sandbox_view view = {0};
	struct sandbox *box = NULL;
	json_t *sandbox_json = NULL;
	char *heldout_harness = NULL;
	char **env = NULL, **time_env = NULL, **slot_dev = NULL;
	int gpu_lock_fd = 0;
	json_t *probe = NULL;
	struct ceilings ceil = {0};
	size_t failed = 0, env_failures = 0;
	const char *platform;
	long long run_id = 0;
	int ret = KGB_EXIT_OK, r;
	unsigned slots, ncpu, ngpu = 0;
	bool two_phase;

	r = parse_args(argc, argv, &o);
	if (r != 0 || o.sr.slurm) {
		if (r == 0)
			r = eval_submit(&o, kctx);
		free(o.tasks);
		slurm_run_opts_release(&o.sr);
		return r < 0 ? KGB_EXIT_OK : r;
	}
	if (o.sr.shard >= 0) {
		ret = shard_setup(&o, &shard_plan, &shard_argv);
		if (ret != KGB_EXIT_OK)
			goto out;
		shard_ctx = *kctx;
		shard_ctx.tasks_dir = shard_plan.tasks_dir;
		kctx = &shard_ctx;
	}
	if (!o.store_path)
		o.store_path = getenv("KGB_STORE") && *getenv("KGB_STORE") ? getenv("KGB_STORE")
									    : "kgb-results.db";
	cat = kgb_load_catalog(kctx, &ret);
	if (!cat)
		goto out;
	python = o.python ? xstrdup(o.python) : platform_python(kctx->root);
	wargv[0] = python;
	rargv[0] = python;
	replay_argv[0] = python;
	harness = harness_version(kctx->root, &err, o.timing);
	if (!harness) {
		fprintf(stderr, "kgb eval: %s\n", err.buf);
		ret = KGB_EXIT_ENV;
		goto out;
	}
	if ((ret = kgb_load_profiles(kctx, "eval", &profiles)) != KGB_EXIT_OK)
		goto out;
	if (o.platform && !(o.profile = kgb_platform_arg(&profiles, "eval", o.platform, &ret)))
		goto out;
	/* Skip the probe (seconds of torch import) when the user named the interpreter. */
	if (!o.profile || strcmp(o.profile->runtime, "interpreter")) {
		r = platform_probe(kctx->root, python, &probe, &err);
		if (r < 0) {
			fprintf(stderr, "kgb eval: %s\n", err.buf);
			ret = KGB_EXIT_ENV;
			goto out;
		}
		if (!o.profile && !(o.profile = profile_detect(&profiles, probe))) {
			fprintf(stderr, "kgb eval: no platform profile matches this machine (kgb "
				"platforms --detect); name one with --platform\n");
			ret = KGB_EXIT_ENV;
			goto out;
		}
		if (!strcmp(o.profile->runtime, "cuda") && strcmp(platform_detect(probe), "cuda")) {
			fprintf(stderr, "kgb eval: --platform %s, but torch sees no CUDA device\n",
				o.profile->name);
			ret = KGB_EXIT_ENV;
			goto out;
		}
	}
	if (!profile_runnable(o.profile)) {
		fprintf(stderr, "kgb eval: platform '%s' has no worker runtime in kgb yet (runtime "
			"'%s'; docs/platforms.md)\n", o.profile->name, o.profile->runtime);
		ret = KGB_EXIT_ENV;
		goto out;
	}
	platform = o.profile->runtime;
	{
		/* Results are keyed by the profile's contents too: its tolerances change verdicts. */
		size_t len = strlen(harness) + strlen(o.profile->name) + 16;
		char *h = xmalloc(len);

		snprintf(h, len, "%s+%s-%.8s", harness, o.profile->name, o.profile->digest);
		free(harness);
		harness = h;
	}
	ncpu = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	if (!strcmp(platform, "cuda"))
		ngpu = (unsigned)json_integer_value(json_object_get(probe, "device_count"));
	if (!ngpu)
		ngpu = 1;
	/*
	 * Checking slots: one per core (compilation is CPU-bound), at most EVAL_CHECK_SLOTS_PER_GPU
	 * per GPU so that the workers' contexts and inputs fit in device memory. Timing slots: one
	 * per GPU, whatever -j says.
	 */
	if (o.slots)
		slots = o.slots;
	else if (!strcmp(platform, "cuda"))
		slots = ncpu < EVAL_CHECK_SLOTS_PER_GPU * ngpu ? ncpu : EVAL_CHECK_SLOTS_PER_GPU * ngpu;
	else
		slots = ncpu;
	if (!slots)
		slots = 1;
	if (!strcmp(platform, "cuda")) {
		/* Slots share the GPUs round-robin, so slots 0..ngpu-1 are one per GPU. */
		slot_dev = sched_slot_devices(getenv("CUDA_VISIBLE_DEVICES"), ngpu, slots, &err);
		if (!slot_dev) {
			fprintf(stderr, "kgb eval: %s\n", err.buf);
			ret = KGB_EXIT_ENV;
			goto out;
		}
	}
	r = collect_candidates(&o, cat, platform, &cands, &nr_cands, &skipped, &err);
	if (r < 0) {
		fprintf(stderr, "kgb eval: %s\n", err.buf);
		ret = r == -ENOENT ? KGB_EXIT_USAGE : KGB_EXIT_DATA;
		goto out;
	}
	if (o.heldout && check_heldout(cands, nr_cands, o.seed, &err) < 0) {
		fprintf(stderr, "kgb eval: %s\n", err.buf);
		ret = KGB_EXIT_DATA;
		goto out;
	}
	r = store_open(o.store_path, &store, &err);
	/* A shard's store is read from other hosts while it runs: no WAL (docs/cluster.md). */
	if (r == 0 && o.sr.shard >= 0)
		r = store_use_rollback_journal(store, &err);
	if (r < 0) {
		fprintf(stderr, "kgb eval: %s\n", err.buf);
		ret = r == -EBUSY ? KGB_EXIT_ENV : KGB_EXIT_DATA;
		goto out;
	}
	if (o.history) {
		r = store_open_readonly(o.history, &history, &err);
		if (r < 0) {
			fprintf(stderr, "kgb eval: --history: %s\n", err.buf);
			ret = r == -ENOENT ? KGB_EXIT_USAGE : KGB_EXIT_DATA;
			goto out;
		}
	}
	cmdline = command_line(argc, argv);
	{
		/* Scratch roots of kgb processes killed with -9 go first. */
		const char *tmp = getenv("TMPDIR");

		tmp = tmp && *tmp ? tmp : "/tmp";
		rm_stale_pid_dirs(tmp, "kgb-", NULL);
		rm_stale_pid_dirs(tmp, "kgb-lint-", NULL);
		if (o.cache_root) {
			/* The run's scratch goes inside the cache root, which workers see hidden. */
			r = mkdir_p(o.cache_root, 0700);
			if (r < 0) {
				fprintf(stderr, "kgb eval: cannot create the cache root '%s': %s\n",
					o.cache_root, strerror(-r));
				ret = KGB_EXIT_ENV;
				goto out;
			}
			rm_stale_pid_dirs(o.cache_root, "kgb-", NULL);
			tmp = o.cache_root;
		}
		strbuf_addf(&scratch, "%s/kgb-%ld", tmp, (long)getpid());
	}
	box = sandbox_new(o.sandbox);
	pycache = platform_pycache_dir(kctx->root, platform);
	if (pycache && platform_pycache_fill(kctx->root, python, pycache, &err) < 0) {
		/* Not fatal: the workers compile what they import, as without a cache. */
		if (kctx->verbose > 0)
			fprintf(stderr, "kgb eval: no bytecode cache for the workers: %s\n",
				err.buf);
		strbuf_reset(&err);
		free(pycache);
		pycache = NULL;
	}
	env = platform_worker_env(kctx->root, platform, slots, pycache);
	so.slots = slots;
	so.standby = o.standby < 0 ? 0 : (unsigned)o.standby;
	so.timeout_s = o.timeout_s;
	so.argv = wargv;
	so.runner_argv = rargv;
	so.replay_argv = replay_argv;
	so.env = env;
	so.scratch_root = scratch.buf;
	so.cache_root = o.cache_root;
	so.slot_devices = (const char *const *)slot_dev;
	so.box = box;
	sched_default_limits(&so.limits, platform, o.timeout_s, slots);
	if (o.memory_mib)
		so.limits.memory_bytes = o.memory_mib << 20;
	if (o.cache_mib)
		so.limits.cache_bytes = o.cache_mib << 20;
	sandbox_view(&view, &o, kctx, python, platform);
	kgb_sandbox_view_apply(&view, &so);
	/* What the workers' sandbox applies goes with the run's record and its summary. */
	sandbox_json = kgb_sandbox_probe(&so, o.sandbox, strcmp(platform, "cuda") ? NULL : python,
				     "eval");
	if (!sandbox_json) {
		ret = KGB_EXIT_ENV;
		goto out;
	}
	if (!probe)
		probe = json_object();
	json_object_set(probe, "sandbox", sandbox_json);
	json_object_set_new(probe, "profile", json_pack("{s:s, s:b, s:s}", "name", o.profile->name,
							"verified", o.profile->verified, "digest",
							o.profile->digest));
	/* Speed-of-light needs the device's ceilings: measured once, then read from the store. */
	if (platform_times(platform)) {
		json_t *cj = NULL;

		strbuf_reset(&err);
		if (ceilings_get(store, kctx->root, python, probe, &ceil, &cj, &err) < 0)
			fprintf(stderr, "kgb eval: %s; no speed-of-light fractions in this run\n",
				err.buf);
		else
			json_object_set_new(probe, "ceilings", cj);
	}
	probe_text = json_dumps(probe, JSON_COMPACT);
	r = store_run_begin(store, platform, harness, cmdline, probe_text, &run_id, &err);
	if (r < 0) {
		fprintf(stderr, "kgb eval: %s\n", err.buf);
		ret = KGB_EXIT_ENV;
		goto out;
	}
	/*
	 * KGB_TWO_PHASE=1 runs a platform that does not time in the GPU's two phases too (its
	 * "timing" jobs re-check the timed cases): how the tests exercise that flow on the CPU.
	 */
	two_phase = platform_times(platform) ||
		    (getenv("KGB_TWO_PHASE") && !strcmp(getenv("KGB_TWO_PHASE"), "1"));
	if (o.timing && !two_phase) {
		fprintf(stderr, "kgb eval: --timing %s: platform '%s' does not time\n", o.timing,
			platform);
		ret = KGB_EXIT_USAGE;
		goto out;
	}
	heldout_harness = xmalloc(strlen(harness) + 16);
	snprintf(heldout_harness, strlen(harness) + 16, "%s+heldout", harness);
	jobs = xcalloc(nr_cands + 1, sizeof(*jobs));
	for (size_t i = 0; i < nr_cands; i++) {
		struct candidate *c = &cands[i];
		struct store_eval prev;
		struct hash h;

		strbuf_reset(&err);
		hash_init(&h);
		r = hash_update_file(&h, c->path, "candidate");
		hash_hex(&h, c->hash);
		if (r < 0) {
			char *shown = escape_text_dup(c->path); /* a file name (escape.h) */

			fprintf(stderr, "kgb eval: cannot read candidate '%s': %s, skipping\n", shown,
				strerror(-r));
			free(shown);
			continue;
		}
		/* Held-out runs are other evaluations of the same candidate. */
		store_eval_key(c->hash, c->task->version, platform, o.heldout ? heldout_harness : harness,
			       o.seed, c->key);
		if (!o.force) {
			r = store_eval_get(store, c->key, &prev, &err);
			if (r == 0) {
				r = link_candidate(store, run_id, c, true, &err);
				if (kctx->verbose > 0)
					fprintf(stderr, "[stored] %s/%s %s: %s (%lld/%lld cases)\n",
						c->task->source, c->task->op, c->sample_shown, prev.verdict,
						prev.cases_passed, prev.cases_total);
				store_eval_release(&prev);
				if (r < 0) {
					fprintf(stderr, "kgb eval: %s\n", err.buf);
					ret = KGB_EXIT_ENV;
					goto out;
				}
				continue;
			}
			if (r != -ENOENT) {
				fprintf(stderr, "kgb eval: %s\n", err.buf);
				ret = KGB_EXIT_ENV;
				goto out;
			}
			/* Checked by an earlier run that ended before timing it: time it only. */
			if (two_phase && store_check_get(store, c->key, &c->prechecked, &err) < 0 &&
			    !c->prechecked)
				strbuf_reset(&err);
		}
		/* Same bytes twice in one run: evaluate once, link both once it is stored. */
		for (size_t k = 0; k < i; k++)
			if (cands[k].job_line && !strcmp(cands[k].key, c->key))
				c->duplicate = true;
		if (c->duplicate)
			continue;
		r = cases_generate(c->task,
				   (two_phase ? CASES_PERF : 0) |
					   (o.heldout ? CASES_HELDOUT : 0),
				   o.seed, &c->cases, &err);
		if (r < 0) {
			fprintf(stderr, "kgb eval: %s/task.json: %s\n", c->task->dir, err.buf);
			ret = KGB_EXIT_DATA;
			goto out;
		}
		c->cases_skipped = profile_drop_unsupported(o.profile, &c->cases, &c->skip_note);
		if (!c->cases.nr) {
			fprintf(stderr, "kgb eval: %s/%s %s: not evaluated: %s\n", c->task->source,
				c->task->op, c->sample_shown, c->skip_note.buf);
			continue;
		}
		for (size_t k = 0; k < c->cases.nr; k++) { /* the platform's tolerance multipliers */
			double m = profile_tol_mult(o.profile, c->cases.v[k].out_dtype);

			c->cases.v[k].tol.atol *= m;
			c->cases.v[k].tol.rtol *= m;
		}
		/* A past wall time of the task, where a store has one, beats the guess. */
		c->check_cost = past_wall_s(store, history, c->task, platform);
		if (isnan(c->check_cost))
			c->check_cost = check_cost(&c->cases);
		/* With two phases the first job checks every case (timed ones too) untimed. */
		c->job_line = proto_build_job(c->task, c->path, platform, &c->cases, NULL);
		if (c->prechecked &&
		    checked_from_json(c->prechecked, c->cases.nr, &c->checked) == 0) {
			if (select_timed(c)) {
				c->held = true;
				nr_prechecked++;
				continue;
			}
			result_release(&c->checked);
		}
		total_cost += c->check_cost;
		nr_checked++;
	}
	if (nr_prechecked && kctx->verbose > 0)
		fprintf(stderr, "kgb eval: %zu candidate%s checked by an earlier run: timing only\n",
			nr_prechecked, nr_prechecked == 1 ? "" : "s");
	/* The checking jobs: one per shard of each candidate to check (shards_of). */
	for (size_t i = 0; i < nr_cands; i++) {
		struct candidate *c = &cands[i];

		if (!c->job_line || c->duplicate || c->held)
			continue;
		make_shards(c, shards_of(c, total_cost, slots, o.split), platform);
		jobs = xrealloc(jobs, (nr_jobs + c->nshards + nr_cands + 1) * sizeof(*jobs));
		for (size_t k = 0; k < c->nshards; k++)
			jobs[nr_jobs++] = shard_job(c, k);
	}
	if (nr_jobs || nr_prechecked) {
		struct eval_ctx ectx = {.store = store, .run_id = run_id, .platform = platform,
					.harness = harness, .verbose = kctx->verbose, .ceil = ceil,
					.total = nr_checked, .start_s = monotonic_s(), .so = &so};

		ectx.phase = two_phase ? PHASE_CHECK : PHASE_ALL;
		qsort(jobs, nr_jobs, sizeof(*jobs), by_check_cost);
		strbuf_reset(&err);
		r = nr_jobs ? sched_run(&so, jobs, nr_jobs, on_done, &ectx, &err) : 0;
		if (r >= 0 && two_phase) {
			/* 4 warm-up calls per side: the first is discarded, the other three
			 * calibrate the rounds and size the hold (runtime/timing.py). With 10,
			 * the warm-up was a fifth of the calls of the serial timing pass. */
			struct proto_job_opts jo = {.timed = true, .warmup = 4, .rounds = 25,
						    .timing_method = o.timing};
			unsigned timing_jobs = o.timing_jobs ? o.timing_jobs
							     : EVAL_TIMING_JOBS_PER_GPU;
			size_t nr_timed = 0;

			for (size_t i = 0; i < nr_cands; i++) {
				struct candidate *c = &cands[i];

				if (!c->held)
					continue;
				c->time_job_line = proto_build_job(c->task, c->path, platform, &c->timed,
								   &jo);
				jobs[nr_timed].task = c->task;
				jobs[nr_timed].nr_cases = c->timed.nr;
				jobs[nr_timed].job_line = c->time_job_line;
				jobs[nr_timed].cache_key = c->key;
				jobs[nr_timed].candidate = c->path;
				jobs[nr_timed].replay = false; /* timing jobs replay nothing */
				jobs[nr_timed].data = c;
				nr_timed++;
			}
			ectx.phase = PHASE_TIME;
			ectx.done = 0;
			ectx.total = nr_timed;
			so.slots = ngpu * timing_jobs;
			if (timing_jobs > 1 && nr_timed) {
				r = open_gpu_lock(scratch.buf, &gpu_lock_fd, &err);
				so.gpu_lock_fd = gpu_lock_fd;
				/* A worker may wait while each other one on its GPU holds it. */
				so.timeout_s = o.timeout_s + (timing_jobs - 1) * EVAL_GPU_HOLD_MAX_S;
			}
			if (slot_dev && r >= 0) {
				/* Round-robin again: slot i on GPU i % ngpu, as in checking. */
				sched_slot_devices_free(slot_dev);
				slot_dev = sched_slot_devices(getenv("CUDA_VISIBLE_DEVICES"), ngpu,
							      so.slots, &err);
				so.slot_devices = (const char *const *)slot_dev;
				if (!slot_dev)
					r = -EINVAL;
			}
			/* The next timing worker imports while this one times (bench/throughput.sh). */
			so.standby = o.standby < 0 ? 1 : (unsigned)o.standby;
			sched_default_limits(&so.limits, platform, o.timeout_s, so.slots);
			if (o.memory_mib)
				so.limits.memory_bytes = o.memory_mib << 20;
			if (o.cache_mib)
				so.limits.cache_bytes = o.cache_mib << 20;
			/* The timing workers have the cores to themselves (input generation, checks). */
			time_env = platform_worker_env(kctx->root, platform, so.slots, pycache);
			so.env = time_env;
			if (nr_timed && r >= 0)
				r = sched_run(&so, jobs, nr_timed, on_done, &ectx, &err);
		}
		env_failures = ectx.env_failures;
		if (r < 0) {
			fprintf(stderr, "kgb eval: %s\n", err.buf);
			ret = KGB_EXIT_ENV;
			goto out;
		}
	}
	for (size_t i = 0; i < nr_cands; i++) {
		if (cands[i].duplicate && link_candidate(store, run_id, &cands[i], true, &err) < 0) {
			fprintf(stderr, "kgb eval: %s\n", err.buf);
			ret = KGB_EXIT_ENV;
			goto out;
		}
	}
	if (store_run_end(store, run_id, &err) < 0 ||
	    report_from_store(stdout, store, run_id, platform, o.store_path, skipped, sandbox_json,
			      o.json, &failed, &err) < 0) {
		fprintf(stderr, "kgb eval: %s\n", err.buf);
		ret = KGB_EXIT_ENV;
		goto out;
	}
	if (o.exit_status && failed)
		ret = KGB_EXIT_NO;
	if (env_failures) {
		fprintf(stderr,
			"kgb eval: %zu candidate%s not evaluated: the platform did not start in "
			"their workers (see above); run again once the machine is fixed\n",
			env_failures, env_failures == 1 ? "" : "s");
		ret = KGB_EXIT_ENV;
	}
out:
	if (scratch.len)
		rm_rf(scratch.buf);
	sandbox_free(box);
	kgb_sandbox_view_release(&view);
	json_decref(sandbox_json);
	for (size_t i = 0; i < nr_cands; i++) {
		free(cands[i].path);
		free(cands[i].sample);
		free(cands[i].sample_shown);
		free(cands[i].job_line);
		free(cands[i].time_job_line);
		free(cands[i].timed.v); /* shallow copies */
		free(cands[i].timed_ids);
		for (size_t k = 0; cands[i].shard_cases && k < cands[i].nshards; k++) {
			free(cands[i].shard_cases[k].v); /* shallow copies */
			free(cands[i].shard_ids[k]);
			free(cands[i].shard_lines[k]);
		}
		free(cands[i].shard_cases);
		free(cands[i].shard_ids);
		free(cands[i].shard_lines);
		free(cands[i].refs);
		free(cands[i].prechecked);
		result_release(&cands[i].merged);
		strbuf_release(&cands[i].checked.detail);
		strbuf_release(&cands[i].checked.stderr_tail);
		json_decref(cands[i].checked.cases);
		json_decref(cands[i].checked.hello);
		case_list_release(&cands[i].cases);
		strbuf_release(&cands[i].skip_note);
	}
	free(cands);
	free(jobs);
	strv_free(env);
	strv_free(time_env);
	free(pycache);
	sched_slot_devices_free(slot_dev);
	if (gpu_lock_fd > 0)
		close(gpu_lock_fd);
	store_free(store);
	store_free(history);
	catalog_free(cat);
	json_decref(probe);
	profile_set_release(&profiles);
	free(probe_text);
	free(python);
	free(harness);
	free(heldout_harness);
	free(cmdline);
	free(o.tasks);
	slurm_run_opts_release(&o.sr);
	strv_free(shard_argv);
	slurm_plan_release(&shard_plan);
	strbuf_release(&err);
	strbuf_release(&scratch);
	return ret;
}
