/*
 * eval.c - the evaluation engine (eval.h).
 *
 * catalog → candidates → content address (reuse stored results) → cases → jobs on worker slots
 * → each result committed to the store as it ends; the caller prints the run from the store.
 *
 * On a timing platform the jobs run in two phases (DESIGN §5, docs/architecture.md): first
 * every case is checked on many slots at once, which is where Triton compiles, so compilation
 * uses every core; then each candidate that passed runs its timed cases again, a few workers
 * per GPU sharing it through its lock, the timed rounds alone on it. A candidate is stored
 * once, after both.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "eval.h"
#include "kgb.h"
#include "method.h"
#include "platform.h"
#include "precheck.h"
#include "profile.h"
#include "proto.h"
#include "report.h"
#include "sandbox.h"
#include "sched.h"
#include "stats.h"
#include "store.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include "verdict.h"

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
/*
 * The longest kgb waits for the precheck's answer on one candidate before its judge scans it
 * instead: a scan takes milliseconds; the first answer includes the process's start.
 */
#define EVAL_PRECHECK_TIMEOUT_S 30.0

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
	const char *cmd; /* for messages */
	const struct eval_hooks *hooks;
	enum eval_phase phase;
	struct ceilings ceil; /* the device's speed-of-light; .known false without */
	size_t done, total;
	size_t env_failures; /* candidates not evaluated: the worker's platform did not start */
	double start_s; /* monotonic time the jobs started, for progress lines */
	const struct sched_opts *so; /* for sched_judge_cases */
};

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

bool eval_task_selected(const struct catalog *cat, const struct task *t, const char *source,
			const char *const *tasks, size_t nr_tasks, const char *runtime,
			const struct profile *prof)
{
	if (source && strcmp(source, t->source))
		return false;
	if (!task_supports_platform(t, runtime))
		return false;
	if (prof && !profile_supports_source(prof, t->source))
		return false;
	if (!nr_tasks)
		return true;
	for (size_t i = 0; i < nr_tasks; i++)
		if (catalog_find(cat, tasks[i]) == t)
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

/* Frees what add_candidate() allocated in each of v[0..n) and v itself. */
static void candidates_free(struct candidate *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].sample);
		free(v[i].sample_shown);
		strbuf_release(&v[i].skip_note);
	}
	free(v);
}

/*
 * Whether the candidate file `path` resolves inside --solutions (sol_real: its real path); a
 * link out of it (to a shipped solution, say, which would then be scored as the submitter's)
 * is said on stderr and not followed.
 */
static bool inside_solutions(const struct eval_opts *o, const char *sol_real, const char *path)
{
	char *real = path_abs(path);
	bool in = !real || path_within(sol_real, real);

	if (!in) {
		char *shown = escape_text_dup(path), *to = escape_text_dup(real);

		fprintf(stderr, "kgb %s: candidate '%s' is a link out of --solutions (to '%s'): not "
			"followed, skipping\n", o->cmd, shown, to);
		free(shown);
		free(to);
	}
	free(real);
	return in;
}

/*
 * The candidate of a method (method.h) for task t, which kgb writes from the method's table:
 * added with the method's name as its sample; a task the method does not cover has none
 * (`kgb methods NAME` says why). 0, or -EIO (err set) when the file cannot be written.
 */
static int add_method_candidate(const struct method *m, const struct task *t,
				struct candidate **v, size_t *n, size_t *alloc, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	const json_t *entries;
	char *path;
	bool covered = method_task(m, t, &entries, &why);

	strbuf_release(&why);
	if (!covered)
		return 0;
	if (!(path = method_write(m, t, entries, err)))
		return -EIO;
	add_candidate(v, n, alloc, t, path, m->name);
	free(path);
	return 0;
}

/* Collects the candidates of the selected tasks; *ret_skipped counts tasks with none. */
static int collect_candidates(const struct eval_opts *o, const struct catalog *cat,
			      const char *platform, const struct method *m,
			      struct candidate **ret, size_t *ret_nr, size_t *ret_skipped,
			      struct strbuf *err)
{
	struct candidate *v = NULL;
	size_t n = 0, alloc = 0, skipped = 0;
	char *sol_real = NULL;

	if (o->solutions && (!path_is_dir(o->solutions) || !(sol_real = path_abs(o->solutions)))) {
		strbuf_addf(err, "--solutions '%s': not a directory", o->solutions);
		return -ENOENT;
	}
	for (size_t i = 0; i < cat->nr_tasks; i++) {
		const struct task *t = &cat->tasks[i];
		size_t before = n;

		if (!eval_task_selected(cat, t, o->source, o->tasks, o->nr_tasks, platform,
					o->profile))
			continue;
		if (m) {
			if (add_method_candidate(m, t, &v, &n, &alloc, err) < 0) {
				candidates_free(v, n);
				return -EIO;
			}
			skipped += n == before;
			continue;
		}
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
			if (path_is_file(file.buf) && inside_solutions(o, sol_real, file.buf))
				add_candidate(&v, &n, &alloc, t, file.buf, "-");
			if (path_is_dir(dir) && list_dir_sorted(dir, &names) == 0) {
				for (char **nm = names; *nm; nm++) {
					size_t len = strlen(*nm);
					char *p, *sample;

					if (len < 4 || strcmp(*nm + len - 3, ".py"))
						continue;
					p = path_join(dir, *nm);
					sample = xstrndup(*nm, len - 3);
					if (inside_solutions(o, sol_real, p))
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
			candidates_free(v, n);
			free(sol_real);
			return -ENOENT;
		}
	}
	free(sol_real);
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

		if (v && verdict_is_pass(v))
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
static void make_shards(struct candidate *c, size_t k, const char *platform,
			const struct proto_job_opts *jo)
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
		c->shard_lines[s] = proto_build_job(c->task, c->path, platform, l, jo);
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
		if (!verdict_at(res->verdict, V_FATAL))
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
	if (verdict_is_pass(t->verdict))
		return m;
	m->verdict = t->verdict;
	strbuf_reset(&m->detail);
	for (size_t k = 0; k < c->timed.nr && !verdict_at(t->verdict, V_FATAL); k++) {
		json_t *cr = json_array_get(t->cases, k);
		const char *v = json_string_value(json_object_get(cr, "verdict"));
		const char *msg = json_string_value(json_object_get(cr, "message"));

		if (v && !verdict_is_pass(v)) {
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

	if (!json_is_array(cases) || json_array_size(cases) != nr_cases || !verdict_is_pass(v)) {
		json_decref(o);
		return -EINVAL;
	}
	memset(ret, 0, sizeof(*ret));
	ret->verdict = verdict_name(VERDICT_PASS);
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

/* Hands one candidate's end to the caller's hook (eval_hooks). */
static void tell(struct eval_ctx *ctx, const struct candidate *c, const struct sched_result *res,
		 size_t passed, bool checked_only)
{
	struct eval_event ev = {
		.timing_phase = ctx->phase == PHASE_TIME, .checked_only = checked_only,
		.done = ctx->done, .total = ctx->total, .elapsed_s = monotonic_s() - ctx->start_s,
		.task = c->task, .sample_shown = c->sample_shown, .verdict = res->verdict,
		.detail = res->detail.len ? res->detail.buf : "", .cases_passed = passed,
		.cases_total = c->cases.nr, .cases_to_time = c->timed.nr, .wall_ms = res->wall_ms,
		.stderr_tail = res->stderr_tail.len ? res->stderr_tail.buf : ""};

	if (ctx->hooks && ctx->hooks->candidate)
		ctx->hooks->candidate(ctx->hooks->data, &ev);
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
	if (ctx->phase == PHASE_CHECK && verdict_is_pass(res->verdict) && select_timed(c)) {
		char *text;

		/* Hold it: the result is stored after the timing phase. */
		c->checked = *res;
		memset(res, 0, sizeof(*res));
		c->held = true;
		/* Kept meanwhile, so that a run killed while timing need not check it again. */
		text = checked_json(&c->checked);
		if (store_check_put(ctx->store, c->key, text, &err) < 0)
			fprintf(stderr, "kgb %s: %s (not kept)\n", ctx->cmd, err.buf);
		free(text);
		strbuf_release(&err);
		ctx->done++;
		tell(ctx, c, res, 0, true);
		return 0;
	}
	if (ctx->phase == PHASE_TIME)
		res = merge_timing(c, res);
	ctx->done++;
	if (verdict_is(res->verdict, VERDICT_ENV_ERROR)) {
		/* The machine failed, not the candidate: nothing is stored, so a later run retries. */
		char *d = escape_text_dup(res->detail.buf);

		fprintf(stderr, "kgb %s: %s/%s %s: not evaluated: %s (nothing stored)\n",
			ctx->cmd, c->task->source, c->task->op, c->sample_shown, d);
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

		passed += v && verdict_is_pass(v);
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
	e.first_failure = !verdict_is_pass(res->verdict) && !verdict_at(res->verdict, V_FATAL)
				  ? first_failure_json(c, res)
				  : NULL;
	e.speedup = stats_geomean(speedups, nsp);
	e.max_tol_use = max_tol;
	e.import_ms = res->import_ms < 0 ? NAN : res->import_ms;
	e.wall_ms = res->wall_ms;
	r = store_eval_put(ctx->store, ctx->run_id, &e, rows, &err);
	if (r < 0)
		fprintf(stderr, "kgb %s: %s\n", ctx->cmd, err.buf);
	tell(ctx, c, res, passed, false);
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
			 const struct kgb_ctx *kctx, const char *python, const char *platform,
			 const struct method *m)
{
	kgb_sandbox_view_init(v, kctx->root, python, platform, "eval");
	/* A method run's library, bound back into the hidden METHOD_BUILD_DIR (kgb.h). */
	if (m && m->lib)
		kgb_sandbox_view_add(&v->visible, m->lib);
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


/* Everything one eval_run holds, released by engine_release(). */
struct engine {
	struct eval_opts *o;
	struct kgb_ctx *kctx;
	const struct eval_hooks *hooks;
	struct eval_outcome *out;
	struct catalog *cat;
	struct candidate *cands;
	size_t nr_cands;
	struct sched_job *jobs;
	size_t nr_jobs, nr_checked, nr_prechecked;
	double total_cost;
	struct store *history; /* --history, read-only */
	struct strbuf err, scratch;
	char *python, *harness, *heldout_harness, *probe_text, *pycache;
	struct platform_worker_argv argv;
	struct sched_opts so;
	struct kgb_sandbox_view view;
	struct sandbox *box;
	char **env, **time_env, **slot_dev;
	int gpu_lock_fd;
	json_t *probe;
	struct ceilings ceil;
	const char *platform;
	unsigned slots, ngpu;
	bool two_phase;
	struct method method; /* --method's table (method.h) */
	json_t *method_job;   /* its jobs' "method" object; NULL when not a method run */
	struct proto_job_opts check_jo; /* the checking jobs': only .method */
};

/* Prints "kgb <cmd>: <err>" and returns exit_code. */
static int fail(struct engine *g, int exit_code)
{
	fprintf(stderr, "kgb %s: %s\n", g->o->cmd, g->err.buf);
	return exit_code;
}

/*
 * The platform: the workers' Python, the harness version, the profile (named or detected by
 * probing torch), and the checking slots and their devices.
 */
static int setup_platform(struct engine *g)
{
	struct eval_opts *o = g->o;
	int ret;

	g->python = o->python ? xstrdup(o->python) : platform_python(g->kctx->root);
	/*
	 * On the interpreter nothing runs it before the workers, which would all end `crash`: a
	 * verdict on the candidates, stored, for a wrong path ("python3" is looked up in $PATH).
	 */
	if (strchr(g->python, '/') && access(g->python, X_OK) < 0) {
		fprintf(stderr, "kgb %s: %s '%s': %s\n", o->cmd,
			o->python ? "--python" : "the workers' Python", g->python, strerror(errno));
		return o->python ? KGB_EXIT_USAGE : KGB_EXIT_ENV;
	}
	g->harness = harness_version(g->kctx->root, &g->err, o->timing);
	if (!g->harness)
		return fail(g, KGB_EXIT_ENV);
	g->out->profiles = xcalloc(1, sizeof(*g->out->profiles));
	if ((ret = kgb_load_profiles(g->kctx, o->cmd, g->out->profiles)) != KGB_EXIT_OK)
		return ret;
	if (o->platform && !(o->profile = kgb_platform_arg(g->out->profiles, o->cmd, o->platform,
							   &ret)))
		return ret;
	/* Skip the probe (seconds of torch import) when the user named the interpreter. */
	if (!o->profile || strcmp(o->profile->runtime, "interpreter")) {
		if (platform_probe(g->kctx->root, g->python, &g->probe, &g->err) < 0)
			return fail(g, KGB_EXIT_ENV);
		if (!o->profile && !(o->profile = profile_detect(g->out->profiles, g->probe))) {
			fprintf(stderr, "kgb %s: no platform profile matches this machine (kgb "
				"platforms --detect); name one with --platform\n", o->cmd);
			return KGB_EXIT_ENV;
		}
		if (!strcmp(o->profile->runtime, "cuda") && strcmp(platform_detect(g->probe), "cuda")) {
			fprintf(stderr, "kgb %s: --platform %s, but torch sees no CUDA device\n",
				o->cmd, o->profile->name);
			return KGB_EXIT_ENV;
		}
	}
	if (!profile_runnable(o->profile)) {
		fprintf(stderr, "kgb %s: platform '%s' has no worker runtime in kgb yet (runtime "
			"'%s'; docs/platforms.md)\n", o->cmd, o->profile->name, o->profile->runtime);
		return KGB_EXIT_ENV;
	}
	g->platform = g->out->platform = o->profile->runtime;
	{
		/* Results are keyed by the profile's contents too: its tolerances change verdicts. */
		size_t len = strlen(g->harness) + strlen(o->profile->name) + 16;
		char *h = xmalloc(len);

		snprintf(h, len, "%s+%s-%.8s", g->harness, o->profile->name, o->profile->digest);
		free(g->harness);
		g->harness = h;
	}
	g->heldout_harness = xmalloc(strlen(g->harness) + 16);
	snprintf(g->heldout_harness, strlen(g->harness) + 16, "%s+heldout", g->harness);
	/* Checking slots and their GPUs; the timing phase's are set in time_phase(). */
	if (platform_check_slots(g->platform, g->probe, o->slots, getenv("CUDA_VISIBLE_DEVICES"),
				 &g->slots, &g->ngpu, &g->slot_dev, &g->err) < 0)
		return fail(g, KGB_EXIT_ENV);
	return KGB_EXIT_OK;
}

/*
 * The --history store (read-only), then the results store: a wrong --history fails before the
 * results store is made.
 */
static int open_stores(struct engine *g)
{
	struct eval_opts *o = g->o;
	int r;

	if (o->history) {
		r = store_open_readonly(o->history, &g->history, &g->err);
		if (r < 0) {
			fprintf(stderr, "kgb %s: --history: %s\n", o->cmd, g->err.buf);
			return r == -ENOENT ? KGB_EXIT_USAGE : KGB_EXIT_DATA;
		}
	}
	r = store_open(o->store_path, &g->out->store, &g->err);
	/* A shard's store is read from other hosts while it runs: no WAL (docs/cluster.md). */
	if (r == 0 && o->shard)
		r = store_use_rollback_journal(g->out->store, &g->err);
	if (r < 0)
		return fail(g, r == -EBUSY ? KGB_EXIT_ENV : KGB_EXIT_DATA);
	return KGB_EXIT_OK;
}

/* The run's scratch root, $TMPDIR/kgb-<pid> or inside --cache-root, after stale ones go. */
static int make_scratch(struct engine *g)
{
	const char *tmp = getenv("TMPDIR");
	int r;

	/* Scratch roots of kgb processes killed with -9 go first. */
	tmp = tmp && *tmp ? tmp : "/tmp";
	rm_stale_pid_dirs(tmp, "kgb-", NULL);
	rm_stale_pid_dirs(tmp, "kgb-lint-", NULL);
	if (g->o->cache_root) {
		/* The run's scratch goes inside the cache root, which workers see hidden. */
		r = mkdir_p(g->o->cache_root, 0700);
		if (r < 0) {
			fprintf(stderr, "kgb %s: cannot create the cache root '%s': %s\n", g->o->cmd,
				g->o->cache_root, strerror(-r));
			return KGB_EXIT_ENV;
		}
		rm_stale_pid_dirs(g->o->cache_root, "kgb-", NULL);
		tmp = g->o->cache_root;
	}
	strbuf_addf(&g->scratch, "%s/kgb-%ld", tmp, (long)getpid());
	return KGB_EXIT_OK;
}

/* The limits of a phase's workers: the defaults for its slots, or the options'. */
static void set_limits(struct engine *g)
{
	sched_default_limits(&g->so.limits, g->platform, g->o->timeout_s, g->so.slots);
	if (g->o->memory_mib)
		g->so.limits.memory_bytes = g->o->memory_mib << 20;
	if (g->o->cache_mib)
		g->so.limits.cache_bytes = g->o->cache_mib << 20;
}

/*
 * The workers' world: sandbox, environment, bytecode cache and scheduler options; then the
 * run's record, which carries what the sandbox applied and the device's ceilings.
 */
static int setup_workers(struct engine *g)
{
	struct eval_opts *o = g->o;
	struct sched_opts *so = &g->so;
	int ret;

	platform_worker_argv(&g->argv, g->python, g->platform);
	if ((ret = make_scratch(g)) != KGB_EXIT_OK)
		return ret;
	g->box = sandbox_new(o->sandbox);
	g->pycache = platform_pycache_dir(g->kctx->root, g->platform);
	if (g->pycache && platform_pycache_fill(g->kctx->root, g->python, g->pycache, &g->err) < 0) {
		/* Not fatal: the workers compile what they import, as without a cache. */
		if (g->kctx->verbose > 0)
			fprintf(stderr, "kgb %s: no bytecode cache for the workers: %s\n", o->cmd,
				g->err.buf);
		strbuf_reset(&g->err);
		free(g->pycache);
		g->pycache = NULL;
	}
	g->env = platform_worker_env(g->kctx->root, g->platform, g->slots, g->pycache);
	so->slots = g->slots;
	so->standby = o->standby < 0 ? 0 : (unsigned)o->standby;
	so->timeout_s = o->timeout_s;
	so->argv = g->argv.judge;
	so->runner_argv = g->argv.runner;
	so->replay_argv = g->argv.replay;
	so->env = g->env;
	so->scratch_root = g->scratch.buf;
	so->cache_root = o->cache_root;
	so->slot_devices = (const char *const *)g->slot_dev;
	so->box = g->box;
	set_limits(g);
	sandbox_view(&g->view, o, g->kctx, g->python, g->platform,
		     g->method_job ? &g->method : NULL);
	kgb_sandbox_view_apply(&g->view, so);
	/* What the workers' sandbox applies goes with the run's record and its summary. */
	g->out->sandbox = kgb_sandbox_probe(so, o->sandbox,
					    strcmp(g->platform, "cuda") ? NULL : g->python, o->cmd);
	if (!g->out->sandbox)
		return KGB_EXIT_ENV;
	/* Only now the stores: whatever fails above (a strict sandbox) leaves no new store. */
	if ((ret = open_stores(g)) != KGB_EXIT_OK)
		return ret;
	if (!g->probe)
		g->probe = json_object();
	json_object_set(g->probe, "sandbox", g->out->sandbox);
	json_object_set_new(g->probe, "profile",
			    json_pack("{s:s, s:b, s:s}", "name", o->profile->name, "verified",
				      o->profile->verified, "digest", o->profile->digest));
	/* Speed-of-light needs the device's ceilings: measured once, then read from the store. */
	if (platform_times(g->platform)) {
		json_t *cj = NULL;

		strbuf_reset(&g->err);
		if (ceilings_get(g->out->store, g->kctx->root, g->python, g->probe, &g->ceil, &cj,
				 &g->err) < 0)
			fprintf(stderr, "kgb %s: %s; no speed-of-light fractions in this run\n",
				o->cmd, g->err.buf);
		else
			json_object_set_new(g->probe, "ceilings", cj);
	}
	g->probe_text = json_dumps(g->probe, JSON_COMPACT);
	if (store_run_begin(g->out->store, g->platform, g->harness, o->cmdline, g->probe_text,
			    &g->out->run_id, &g->err) < 0)
		return fail(g, KGB_EXIT_ENV);
	return KGB_EXIT_OK;
}

/*
 * A method run (--method, docs/methods.md): the method's table and its library, installed at
 * the table's version. The harness gets "+method-<name>-<version>": the method's candidates
 * are judged with their library's import allowed, so their results must never be another
 * candidate's of the same bytes (a --solutions copy of one is refused by L1). The run's record
 * names the method, which reports show as the run's label.
 */
static int load_method(struct engine *g)
{
	struct method *m = &g->method;
	int r = method_load(g->kctx->root, g->o->method, m, &g->err);
	char *h;

	if (r < 0)
		return fail(g, r == -ENOENT ? KGB_EXIT_USAGE : KGB_EXIT_DATA);
	if (!m->installed || strcmp(m->installed, m->version)) {
		fprintf(stderr, "kgb %s: method %s: %s %s is %s%s in %s (scripts/methods.sh %s "
			"installs it)\n", g->o->cmd, m->name, m->package, m->version,
			m->installed ? "not the installed " : "not installed",
			m->installed ? m->installed : "", m->lib, m->name);
		return KGB_EXIT_ENV;
	}
	h = xmalloc(strlen(g->harness) + strlen(m->name) + strlen(m->version) + 16);
	sprintf(h, "%s+method-%s-%s", g->harness, m->name, m->version);
	free(g->harness);
	g->harness = h;
	h = xmalloc(strlen(g->harness) + 16);
	sprintf(h, "%s+heldout", g->harness);
	free(g->heldout_harness);
	g->heldout_harness = h;
	g->method_job = method_job(m);
	g->check_jo.method = g->method_job;
	if (!g->probe)
		g->probe = json_object();
	json_object_set_new(g->probe, "method", json_pack("{s:s, s:s, s:s}", "name", m->name,
							  "package", m->package, "version",
							  m->version));
	return KGB_EXIT_OK;
}

/*
 * Candidate c's content address, and whether the store already holds its result (then linked
 * to the run) or an earlier run's check of it (c->prechecked). *ret_skip: nothing to evaluate
 * (reused, or unreadable: said on stderr). A KGB_EXIT_* code; failures are printed.
 */
static int address_candidate(struct engine *g, struct candidate *c, bool *ret_skip)
{
	struct eval_opts *o = g->o;
	struct store_eval prev;
	struct hash h;
	int r;

	strbuf_reset(&g->err);
	hash_init(&h);
	r = hash_update_file_capped(&h, c->path, "candidate", EVAL_MAX_CANDIDATE_BYTES);
	hash_hex(&h, c->hash);
	if (r < 0) {
		char *shown = escape_text_dup(c->path); /* a file name (escape.h) */

		fprintf(stderr, "kgb %s: cannot read candidate '%s': %s, skipping\n", o->cmd, shown,
			r == -EINVAL  ? "not a regular file"
			: r == -E2BIG ? "larger than 1 MiB"
				      : strerror(-r));
		free(shown);
		*ret_skip = true;
		return KGB_EXIT_OK;
	}
	/* Held-out runs are other evaluations of the same candidate. */
	store_eval_key(c->hash, c->task->version, g->platform,
		       o->heldout ? g->heldout_harness : g->harness, o->seed, c->key);
	*ret_skip = false;
	if (o->force)
		return KGB_EXIT_OK;
	r = store_eval_get(g->out->store, c->key, &prev, &g->err);
	if (r == 0) {
		r = link_candidate(g->out->store, g->out->run_id, c, true, &g->err);
		if (g->hooks && g->hooks->reused)
			g->hooks->reused(g->hooks->data, c->task, c->sample_shown, prev.verdict,
					 prev.cases_passed, prev.cases_total);
		store_eval_release(&prev);
		*ret_skip = true;
		return r < 0 ? fail(g, KGB_EXIT_ENV) : KGB_EXIT_OK;
	}
	if (r != -ENOENT)
		return fail(g, KGB_EXIT_ENV);
	/* Checked by an earlier run that ended before timing it: time it only. */
	if (g->two_phase && store_check_get(g->out->store, c->key, &c->prechecked, &g->err) < 0 &&
	    !c->prechecked)
		strbuf_reset(&g->err);
	return KGB_EXIT_OK;
}

/*
 * Candidate c's cases and checking job line; with an earlier check of it, held for timing
 * only. KGB_EXIT_OK, or KGB_EXIT_DATA (printed) when its task's cases cannot be built.
 */
static int plan_candidate(struct engine *g, struct candidate *c)
{
	struct eval_opts *o = g->o;

	if (cases_generate(c->task, (g->two_phase ? CASES_PERF : 0) | (o->heldout ? CASES_HELDOUT : 0),
			   o->seed, &c->cases, &g->err) < 0) {
		fprintf(stderr, "kgb %s: %s/task.json: %s\n", o->cmd, c->task->dir, g->err.buf);
		return KGB_EXIT_DATA;
	}
	c->cases_skipped = profile_apply(o->profile, &c->cases, &c->skip_note);
	if (!c->cases.nr) {
		fprintf(stderr, "kgb %s: %s/%s %s: not evaluated: %s\n", o->cmd, c->task->source,
			c->task->op, c->sample_shown, c->skip_note.buf);
		return KGB_EXIT_OK;
	}
	/* A past wall time of the task, where a store has one, beats the guess. */
	c->check_cost = past_wall_s(g->out->store, g->history, c->task, g->platform);
	if (isnan(c->check_cost))
		c->check_cost = check_cost(&c->cases);
	/* With two phases the first job checks every case (timed ones too) untimed. */
	c->job_line = proto_build_job(c->task, c->path, g->platform, &c->cases, &g->check_jo);
	if (c->prechecked && checked_from_json(c->prechecked, c->cases.nr, &c->checked) == 0) {
		if (select_timed(c)) {
			c->held = true;
			g->nr_prechecked++;
			return KGB_EXIT_OK;
		}
		result_release(&c->checked);
	}
	g->total_cost += c->check_cost;
	g->nr_checked++;
	return KGB_EXIT_OK;
}

/* Every candidate addressed and planned, then the checking jobs: one per shard (shards_of). */
static int plan(struct engine *g)
{
	int r;

	g->jobs = xcalloc(g->nr_cands + 1, sizeof(*g->jobs));
	for (size_t i = 0; i < g->nr_cands; i++) {
		struct candidate *c = &g->cands[i];

		bool skip;

		if ((r = address_candidate(g, c, &skip)) != KGB_EXIT_OK)
			return r;
		if (skip)
			continue;
		/* Same bytes twice in one run: evaluate once, link both once it is stored. */
		for (size_t k = 0; k < i; k++)
			if (g->cands[k].job_line && !strcmp(g->cands[k].key, c->key))
				c->duplicate = true;
		if (!c->duplicate && (r = plan_candidate(g, c)) != KGB_EXIT_OK)
			return r;
	}
	if (g->nr_prechecked && g->kctx->verbose > 0)
		fprintf(stderr, "kgb %s: %zu candidate%s checked by an earlier run: timing only\n",
			g->o->cmd, g->nr_prechecked, g->nr_prechecked == 1 ? "" : "s");
	for (size_t i = 0; i < g->nr_cands; i++) {
		struct candidate *c = &g->cands[i];

		if (!c->job_line || c->duplicate || c->held)
			continue;
		make_shards(c, shards_of(c, g->total_cost, g->slots, g->o->split), g->platform,
			    &g->check_jo);
		g->jobs = xrealloc(g->jobs, (g->nr_jobs + c->nshards + g->nr_cands + 1) *
						    sizeof(*g->jobs));
		for (size_t k = 0; k < c->nshards; k++)
			g->jobs[g->nr_jobs++] = shard_job(c, k);
	}
	return KGB_EXIT_OK;
}

/*
 * The timing phase: each held candidate's timed cases, `timing_jobs` workers per GPU sharing
 * it through the GPU lock (runtime/gpulock.py). 0 or a negative errno with g->err set.
 */
static int time_phase(struct engine *g, struct eval_ctx *ectx)
{
	struct eval_opts *o = g->o;
	struct sched_opts *so = &g->so;
	/* 4 warm-up calls per side: the first is discarded, the other three calibrate the rounds
	 * and size the hold (runtime/timing.py). With 10, the warm-up was a fifth of the calls
	 * of the serial timing pass. */
	struct proto_job_opts jo = {.timed = true, .warmup = 4, .rounds = 25,
				    .timing_method = o->timing, .method = g->method_job};
	unsigned timing_jobs = o->timing_jobs ? o->timing_jobs : EVAL_TIMING_JOBS_PER_GPU;
	size_t nr_timed = 0;
	int r = 0;

	for (size_t i = 0; i < g->nr_cands; i++) {
		struct candidate *c = &g->cands[i];

		if (!c->held)
			continue;
		c->time_job_line = proto_build_job(c->task, c->path, g->platform, &c->timed, &jo);
		g->jobs[nr_timed] = (struct sched_job){
			.task = c->task, .nr_cases = c->timed.nr, .job_line = c->time_job_line,
			.cache_key = c->key, .candidate = c->path,
			.replay = false, /* timing jobs replay nothing */
			.data = c};
		nr_timed++;
	}
	ectx->phase = PHASE_TIME;
	ectx->done = 0;
	ectx->total = nr_timed;
	if (!nr_timed)
		return 0;
	so->slots = g->ngpu * timing_jobs;
	if (timing_jobs > 1) {
		r = open_gpu_lock(g->scratch.buf, &g->gpu_lock_fd, &g->err);
		so->gpu_lock_fd = g->gpu_lock_fd;
		/* A worker may wait while each other one on its GPU holds it. */
		so->timeout_s = o->timeout_s + (timing_jobs - 1) * EVAL_GPU_HOLD_MAX_S;
	}
	if (g->slot_dev && r >= 0) {
		/* Round-robin again: slot i on GPU i % ngpu, as in checking. */
		sched_slot_devices_free(g->slot_dev);
		g->slot_dev = sched_slot_devices(getenv("CUDA_VISIBLE_DEVICES"), g->ngpu, so->slots,
						 &g->err);
		so->slot_devices = (const char *const *)g->slot_dev;
		if (!g->slot_dev)
			r = -EINVAL;
	}
	/* The next timing worker imports while this one times (bench/throughput.sh). */
	so->standby = o->standby < 0 ? 1 : (unsigned)o->standby;
	set_limits(g);
	/* The timing workers have the cores to themselves (input generation, checks). */
	g->time_env = platform_worker_env(g->kctx->root, g->platform, so->slots, g->pycache);
	so->env = g->time_env;
	return r < 0 ? r : sched_run(so, g->jobs, nr_timed, on_done, ectx, &g->err);
}
/*
 * L1 before any worker starts. Each checking job's candidate is put to the resident precheck
 * (runtime/precheck.py: runtime.source.judge_source, the very code the judge runs at its load
 * stage, in a process that imports neither torch nor Triton and never the candidate); a job
 * whose candidate it refuses ends here with the judge's fatal verdict and detail, and no
 * judge, runner or replay runner is started for it: on the 2-core CPU machine each such job
 * cost about 1.3 s of CPU for the judge's torch import alone, on a GPU a CUDA start besides.
 * A precheck that gives no answer changes nothing: the job runs and its judge scans as before.
 * The jobs that stay are compacted in place. 0, or -EIO when storing a result failed.
 */
static int precheck_jobs(struct engine *g, struct eval_ctx *ectx)
{
	struct precheck *pc = NULL;
	json_t *none = json_array();
	size_t kept = 0;
	int r, ret = 0;

	for (size_t i = 0; i < g->nr_jobs; i++) {
		struct sched_job *job = &g->jobs[i];
		struct candidate *c = ((struct shard_ref *)job->data)->c;
		struct sched_result res = {0};
		const char *verdict = NULL;
		json_t *ans = NULL, *allow = json_copy(c->task->allow ? c->task->allow : none);
		double t0 = monotonic_s();

		/* A method's candidate may import its library: the job says so to its judge. */
		if (g->method_job && g->method.module)
			json_array_append_new(allow, json_string(g->method.module));
		if (!pc)
			pc = precheck_new(g->python, g->kctx->root);
		strbuf_reset(&g->err);
		r = precheck_ask(pc, c->path, allow, EVAL_PRECHECK_TIMEOUT_S, &ans, &g->err);
		json_decref(allow);
		if (r == 0)
			verdict = verdict_static_name(
				json_string_value(json_object_get(ans, "verdict")));
		else if (g->kctx->verbose > 0)
			fprintf(stderr, "kgb %s: %s: %s (its judge scans it)\n", g->o->cmd,
				c->sample_shown, g->err.buf);
		if (!verdict || !verdict_at(verdict, V_FATAL)) {
			json_decref(ans);
			g->jobs[kept++] = *job;
			continue;
		}
		if (g->kctx->verbose > 0)
			fprintf(stderr, "kgb %s: %s/%s %s: %s at the precheck, no worker started\n",
				g->o->cmd, c->task->source, c->task->op, c->sample_shown, verdict);
		res.verdict = verdict;
		strbuf_init(&res.detail, 0);
		if (json_is_string(json_object_get(ans, "detail")))
			strbuf_addstr(&res.detail, json_string_value(json_object_get(ans, "detail")));
		strbuf_init(&res.stderr_tail, 0);
		res.cases = json_array();
		for (size_t k = 0; k < job->nr_cases; k++)
			json_array_append_new(res.cases, json_null());
		res.import_ms = -1;
		res.wall_ms = (monotonic_s() - t0) * 1e3;
		/* As sched_run() does: a result the store refused fails the run, the rest go on. */
		if (on_done(ectx, job, &res) < 0 && !ret)
			ret = -EIO;
		result_release(&res);
		json_decref(ans);
	}
	g->nr_jobs = kept;
	precheck_free(pc);
	json_decref(none);
	return ret;
}

/* The jobs of both phases, each candidate stored as it ends (on_done). */
static int run_jobs(struct engine *g)
{
	struct eval_ctx ectx = {.store = g->out->store, .run_id = g->out->run_id,
				.platform = g->platform, .harness = g->harness, .cmd = g->o->cmd,
				.hooks = g->hooks, .ceil = g->ceil, .total = g->nr_checked,
				.start_s = monotonic_s(), .so = &g->so};
	int r, pre = 0;

	if (!g->nr_jobs && !g->nr_prechecked)
		return KGB_EXIT_OK;
	ectx.phase = g->two_phase ? PHASE_CHECK : PHASE_ALL;
	if (!g->o->prechecked)
		pre = precheck_jobs(g, &ectx);
	qsort(g->jobs, g->nr_jobs, sizeof(*g->jobs), by_check_cost);
	strbuf_reset(&g->err);
	r = g->nr_jobs ? sched_run(&g->so, g->jobs, g->nr_jobs, on_done, &ectx, &g->err) : 0;
	if (r >= 0 && pre < 0) {
		r = pre;
		strbuf_addstr(&g->err, "storing a result failed");
	}
	if (r >= 0 && g->two_phase)
		r = time_phase(g, &ectx);
	g->out->env_failures = ectx.env_failures;
	return r < 0 ? fail(g, KGB_EXIT_ENV) : KGB_EXIT_OK;
}

static void engine_release(struct engine *g)
{
	if (g->scratch.len)
		rm_rf(g->scratch.buf);
	sandbox_free(g->box);
	kgb_sandbox_view_release(&g->view);
	for (size_t i = 0; i < g->nr_cands; i++) {
		struct candidate *c = &g->cands[i];

		free(c->job_line);
		free(c->time_job_line);
		free(c->timed.v); /* shallow copies */
		free(c->timed_ids);
		for (size_t k = 0; c->shard_cases && k < c->nshards; k++) {
			free(c->shard_cases[k].v); /* shallow copies */
			free(c->shard_ids[k]);
			free(c->shard_lines[k]);
		}
		free(c->shard_cases);
		free(c->shard_ids);
		free(c->shard_lines);
		free(c->refs);
		free(c->prechecked);
		result_release(&c->merged);
		result_release(&c->checked);
		case_list_release(&c->cases);
	}
	candidates_free(g->cands, g->nr_cands);
	free(g->jobs);
	strv_free(g->env);
	strv_free(g->time_env);
	free(g->pycache);
	sched_slot_devices_free(g->slot_dev);
	if (g->gpu_lock_fd > 0)
		close(g->gpu_lock_fd);
	store_free(g->history);
	catalog_free(g->cat);
	json_decref(g->probe);
	json_decref(g->method_job);
	method_release(&g->method);
	free(g->probe_text);
	free(g->python);
	free(g->harness);
	free(g->heldout_harness);
	strbuf_release(&g->err);
	strbuf_release(&g->scratch);
}

int eval_run(struct eval_opts *o, struct kgb_ctx *kctx, const struct eval_hooks *hooks,
	     struct eval_outcome *ret)
{
	struct engine g = {.o = o, .kctx = kctx, .hooks = hooks, .out = ret};
	int r;

	memset(ret, 0, sizeof(*ret));
	strbuf_init(&g.err, 0);
	strbuf_init(&g.scratch, 0);
	if (!(g.cat = kgb_load_catalog(kctx, &r)))
		goto out;
	if ((r = setup_platform(&g)) != KGB_EXIT_OK)
		goto out;
	/*
	 * KGB_TWO_PHASE=1 runs a platform that does not time in the GPU's two phases too (its
	 * "timing" jobs re-check the timed cases): how the tests exercise that flow on the CPU.
	 */
	g.two_phase = platform_times(g.platform) ||
		      (getenv("KGB_TWO_PHASE") && !strcmp(getenv("KGB_TWO_PHASE"), "1"));
	if (o->timing && !g.two_phase) {
		fprintf(stderr, "kgb %s: --timing %s: platform '%s' does not time\n", o->cmd,
			o->timing, g.platform);
		r = KGB_EXIT_USAGE;
		goto out;
	}
	if (o->method && (r = load_method(&g)) != KGB_EXIT_OK)
		goto out;
	r = collect_candidates(o, g.cat, g.platform, g.method_job ? &g.method : NULL, &g.cands,
			       &g.nr_cands, &ret->tasks_skipped, &g.err);
	if (r < 0) {
		r = fail(&g, r == -ENOENT ? KGB_EXIT_USAGE
			     : r == -EIO  ? KGB_EXIT_ENV
					  : KGB_EXIT_DATA);
		goto out;
	}
	if (g.method_job && kctx->verbose >= 0)
		fprintf(stderr, "kgb %s: method %s (%s %s) covers %zu of the %zu selected tasks "
			"('kgb methods %s' says why not the others)\n", o->cmd, g.method.name,
			g.method.package, g.method.version, g.nr_cands,
			g.nr_cands + ret->tasks_skipped, g.method.name);
	if (o->heldout && check_heldout(g.cands, g.nr_cands, o->seed, &g.err) < 0) {
		r = fail(&g, KGB_EXIT_DATA);
		goto out;
	}
	/* setup_workers() opens the stores once all else is ready: a failure leaves none new. */
	if ((r = setup_workers(&g)) != KGB_EXIT_OK)
		goto out;
	if ((r = plan(&g)) != KGB_EXIT_OK || (r = run_jobs(&g)) != KGB_EXIT_OK)
		goto out;
	for (size_t i = 0; i < g.nr_cands; i++) {
		if (g.cands[i].duplicate &&
		    link_candidate(ret->store, ret->run_id, &g.cands[i], true, &g.err) < 0) {
			r = fail(&g, KGB_EXIT_ENV);
			goto out;
		}
	}
	if (store_run_end(ret->store, ret->run_id, &g.err) < 0)
		r = fail(&g, KGB_EXIT_ENV);
out:
	engine_release(&g);
	return r;
}

void eval_outcome_release(struct eval_outcome *o)
{
	store_free(o->store);
	json_decref(o->sandbox);
	if (o->profiles)
		profile_set_release(o->profiles);
	free(o->profiles);
	memset(o, 0, sizeof(*o));
}

int eval_collect_tasks(const struct eval_opts *o, const struct catalog *cat,
		       const char *platform, const struct task ***ret_tasks, size_t **ret_counts,
		       size_t *ret_nr, struct strbuf *err)
{
	struct candidate *cands = NULL;
	size_t nr = 0, skipped = 0, ntasks = 0;
	const struct task **tasks;
	size_t *counts;
	int r;

	r = collect_candidates(o, cat, platform, NULL, &cands, &nr, &skipped, err);
	if (r < 0)
		return r;
	/* Candidates come task by task in catalog order: the task list and its counts. */
	tasks = xcalloc(nr + 1, sizeof(*tasks));
	counts = xcalloc(nr + 1, sizeof(*counts));
	for (size_t i = 0; i < nr; i++) {
		if (!ntasks || tasks[ntasks - 1] != cands[i].task)
			tasks[ntasks++] = cands[i].task;
		counts[ntasks - 1]++;
	}
	candidates_free(cands, nr);
	*ret_tasks = tasks;
	*ret_counts = counts;
	*ret_nr = ntasks;
	return 0;
}
