/*
 * generate.c - the sample, agent and external tracks (generate.h).
 *
 * A round is: every unfinished trajectory's request at once (llm_run overlaps them), each
 * reply's code written to <out>/r<round>/<op>/s<sample>.py, one evaluation of <out>/r<round>
 * by the engine (eval.h) over all of them (so the round's candidates share the worker slots),
 * then per trajectory the feedback that becomes the next round's last message. Rounds keep the
 * evaluation batched, which on a GPU is the difference between compiling on every core at once
 * and one candidate at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "eval.h"
#include "extract.h"
#include "generate.h"
#include "platform.h"
#include "proc.h"
#include "prompt.h"
#include "report.h"
#include "sandbox.h"
#include "stats.h"
#include "store.h"
#include "util/fs.h"
#include "util/xalloc.h"

extern char **environ;

/* The wall-clock limit per candidate, as `kgb eval`'s default. */
#define GEN_EVAL_TIMEOUT_S 300.0

static const char *const track_names[] = {"sample", "agent", "external"};

void gen_task_result_release(struct gen_task_result *r)
{
	for (size_t i = 0; i < r->nr_attempts; i++) {
		struct gen_attempt *a = &r->attempts[i];

		free(a->finish);
		free(a->error);
		free(a->candidate);
		free(a->eval_key);
		free(a->detail);
	}
	free(r->attempts);
	free(r->solved_by_round);
	memset(r, 0, sizeof(*r));
}

/* ---- evaluation ---- */

/*
 * The kgb.eval.v1 records of the candidates under dir, evaluated in this process by the
 * engine (eval.h) as `kgb eval --solutions dir --json` would (its store, platform and seed),
 * as an object "<op>/<sample>" -> record: the records are the run's JSON report, read back
 * from the store, so a generation run judges exactly as `kgb eval` does.
 */
static int eval_dir(const struct gen_opts *o, const char *dir, bool heldout, json_t **ret,
		    struct strbuf *err)
{
	struct kgb_ctx kctx = {.root = o->kgb_root, .tasks_dir = o->tasks_dir,
			       .verbose = o->verbose > 0 ? 1 : -1};
	struct eval_opts eo = {.cmd = "generate", .solutions = dir, .store_path = o->store_path,
			       .platform = o->platform, .seed = o->seed, .heldout = heldout,
			       .timeout_s = GEN_EVAL_TIMEOUT_S, .sandbox = SANDBOX_AUTO,
			       .standby = -1, .cmdline = STORE_GENERATE_COMMAND};
	struct eval_hooks hooks = {.candidate = report_eval_event, .reused = report_eval_reused,
				   .data = &kctx.verbose};
	struct eval_outcome out;
	char *text = NULL;
	size_t len = 0, failed = 0;
	json_t *by = json_object();
	FILE *f;
	int code, r = 0;

	code = eval_run(&eo, &kctx, &hooks, &out);
	if (code == KGB_EXIT_OK && out.env_failures)
		code = KGB_EXIT_ENV;
	if (code != KGB_EXIT_OK) {
		strbuf_addf(err, "evaluating '%s' failed (kgb exit status %d, said above)", dir, code);
		r = -ECHILD;
	} else if (!(f = open_memstream(&text, &len))) {
		strbuf_addf(err, "open_memstream: %s", strerror(errno));
		r = -errno;
	} else {
		r = report_from_store(f, out.store, out.run_id, out.platform, o->store_path,
				      out.tasks_skipped, out.sandbox, true, &failed, err);
		fclose(f);
	}
	eval_outcome_release(&out);
	for (const char *p = text; r == 0 && p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		json_t *rec = json_loadb(p, n, 0, NULL);
		const char *schema = json_string_value(json_object_get(rec, "schema"));

		if (schema && !strcmp(schema, "kgb.eval.v1")) {
			struct strbuf k = STRBUF_INIT;

			strbuf_addf(&k, "%s/%s", json_string_value(json_object_get(rec, "task")) ?: "",
				    json_string_value(json_object_get(rec, "sample")) ?: "");
			json_object_set(by, k.buf, rec);
			strbuf_release(&k);
		}
		json_decref(rec);
		p += n + (nl ? 1 : 0);
	}
	free(text);
	if (r < 0) {
		json_decref(by);
		return r;
	}
	*ret = by;
	return 0;
}

/*
 * What evaluating record rec's candidate cost this run: its wall time, or nothing when the
 * store already held its verdict (reused): an evaluation is counted once, where it ran.
 */
static double eval_ms_of(json_t *rec)
{
	json_t *ms = json_object_get(rec, "wall_ms");

	if (json_is_true(json_object_get(rec, "reused")))
		return 0;
	return json_is_number(ms) ? json_number_value(ms) : NAN;
}

/* ---- feedback ---- */

void gen_feedback(const char *verdict, const char *first_failure_json, struct strbuf *out)
{
	json_t *ff = first_failure_json ? json_loads(first_failure_json, 0, NULL) : NULL;
	const char *msg = json_string_value(json_object_get(ff, "message"));
	json_t *axes = json_object_get(ff, "axes");
	const char *entry = json_string_value(json_object_get(ff, "entry"));

	if (!strcmp(verdict, "hack"))
		strbuf_addstr(out, "Your module was rejected by the anti-hack checks");
	else if (!strcmp(verdict, "mismatch"))
		strbuf_addstr(out, "Your kernel ran but gave wrong results");
	else if (!strcmp(verdict, "timeout"))
		strbuf_addstr(out, "Your kernel did not finish in time");
	else
		strbuf_addf(out, "Your module failed (%s)", verdict);
	if (json_is_object(ff) && json_integer_value(json_object_get(ff, "case")) >= 0 && axes) {
		char *a = json_dumps(axes, JSON_COMPACT | JSON_SORT_KEYS);

		strbuf_addf(out, " on %s%s%s with %s", entry ? "`" : "", entry ? entry : "this case",
			    entry ? "`" : "", a ? a : "?");
		free(a);
	}
	strbuf_addstr(out, msg ? ":\n\n" : ".\n");
	if (msg) {
		strbuf_addstr(out, msg);
		strbuf_addch(out, '\n');
	}
	strbuf_addstr(out, "\nFix it and reply with the whole corrected module in one Python code "
			   "block.");
	json_decref(ff);
}

static void tune_feedback(double speedup, double sol, struct strbuf *out)
{
	strbuf_addf(out, "The kernel is correct. Its speedup over the baseline is %.3fx", speedup);
	if (isfinite(sol))
		strbuf_addf(out, " and it reaches %.0f%% of the device's speed of light", sol * 100);
	strbuf_addstr(out,
		      ". Make it faster without changing what it computes: try other block sizes, "
		      "num_warps (2-16) and num_stages (2-5), a @triton.autotune over a few such "
		      "configs keyed on the sizes, fewer launches, and wider or contiguous memory "
		      "accesses. Reply with the whole module in one Python code block.");
}

/* ---- trajectories ---- */

struct trajectory {
	const struct task *task;
	struct gen_task_result *res;
	unsigned sample;
	struct llm_message *msgs; /* contents owned (strdup) */
	size_t nr_msgs, alloc_msgs;
	bool done, passed;
	double started;
	char *best_candidate; /* the best passing file so far (agent track) */
	double best_speedup;
};

static void traj_say(struct trajectory *t, const char *role, const char *content)
{
	xgrow((void **)&t->msgs, sizeof(*t->msgs), t->nr_msgs + 1, &t->alloc_msgs);
	t->msgs[t->nr_msgs].role = role;
	t->msgs[t->nr_msgs].content = xstrdup(content);
	t->nr_msgs++;
}

static void traj_release(struct trajectory *t)
{
	for (size_t i = 0; i < t->nr_msgs; i++)
		free((char *)t->msgs[i].content);
	free(t->msgs);
	free(t->best_candidate);
}

static struct gen_attempt *new_attempt(struct gen_task_result *r)
{
	r->attempts = xrealloc(r->attempts, (r->nr_attempts + 1) * sizeof(*r->attempts));
	memset(&r->attempts[r->nr_attempts], 0, sizeof(*r->attempts));
	r->attempts[r->nr_attempts].speedup = NAN;
	r->attempts[r->nr_attempts].cost_usd = NAN;
	r->attempts[r->nr_attempts].eval_ms = NAN;
	return &r->attempts[r->nr_attempts++];
}

static void set_outcome(struct gen_attempt *a, const char *what)
{
	snprintf(a->outcome, sizeof(a->outcome), "%s", what);
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static int store_attempt(struct store *st, long long run_id, const struct gen_opts *o,
			 const struct task *t, const struct gen_attempt *a, struct strbuf *err)
{
	json_t *row = json_pack("{s:s, s:s, s:I, s:I, s:s, s:s, s:s?, s:s}", "task", t->op,
				"source", t->source, "sample", (json_int_t)a->sample, "round",
				(json_int_t)a->round, "stage", a->stage, "track",
				track_names[o->track], "model",
				o->track == GEN_EXTERNAL ? o->agent_cmd : o->llm.model, "outcome",
				a->outcome);
	int r;

	json_object_set_new(row, "finish", a->finish ? json_string(a->finish) : json_null());
	json_object_set_new(row, "error", a->error ? json_string(a->error) : json_null());
	json_object_set_new(row, "prompt_tokens", json_integer(a->prompt_tokens));
	json_object_set_new(row, "completion_tokens", json_integer(a->completion_tokens));
	json_object_set_new(row, "cached_tokens", json_integer(a->cached_tokens));
	json_object_set_new(row, "latency_ms", real_or_null(a->latency_ms));
	json_object_set_new(row, "eval_ms", real_or_null(a->eval_ms));
	json_object_set_new(row, "cost_usd", real_or_null(a->cost_usd));
	json_object_set_new(row, "http_attempts", json_integer(a->http_attempts));
	json_object_set_new(row, "candidate",
			    a->candidate ? json_string(a->candidate) : json_null());
	json_object_set_new(row, "eval_key", a->eval_key ? json_string(a->eval_key) : json_null());
	json_object_set_new(row, "speedup", real_or_null(a->speedup));
	json_object_set_new(row, "feedback", a->detail ? json_string(a->detail) : json_null());
	r = store_generation_put(st, run_id, row, err);
	json_decref(row);
	return r;
}

static void add_usage(struct gen_task_result *r, const struct gen_attempt *a)
{
	r->prompt_tokens = gen_tokens_add(r->prompt_tokens, a->prompt_tokens);
	r->completion_tokens = gen_tokens_add(r->completion_tokens, a->completion_tokens);
	r->cached_tokens = gen_tokens_add(r->cached_tokens, a->cached_tokens);
	/*
	 * A task costs what its requests (or its agent) cost; a final evaluation sends none. One
	 * of unknown cost (NAN) makes the task's unknown: a partial sum would look like a cost.
	 */
	if (!a->stage || strcmp(a->stage, "final"))
		r->cost_usd += a->cost_usd;
	if (isfinite(a->latency_ms))
		r->llm_s += a->latency_ms / 1000;
	if (isfinite(a->eval_ms))
		r->eval_s += a->eval_ms / 1000;
}

static int write_file(const char *path, const char *text, struct strbuf *err)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	FILE *f;
	int r = 0;

	if (slash)
		*slash = '\0';
	if (slash && mkdir_p(dir, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", dir, strerror(errno));
		free(dir);
		return -EIO;
	}
	free(dir);
	f = fopen(path, "w");
	if (!f)
		r = -errno;
	if (f && fputs(text, f) < 0)
		r = -errno;
	/* fclose() frees f even when it fails (a full disk shows here): never twice. */
	if (f && fclose(f) != 0 && r == 0)
		r = -errno;
	if (r < 0) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(-r));
		r = -EIO;
	}
	return r;
}

/*
 * The round's requests: the conversation of every unfinished trajectory into reqs[0..n),
 * idx[k] its trajectory and att[k] SIZE_MAX (no attempt yet). A trajectory whose time per task
 * is spent is done instead. Returns n.
 */
static size_t round_requests(const struct gen_opts *o, struct trajectory *tr, size_t ntr,
			     struct llm_request *reqs, size_t *att, size_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < ntr; i++) {
		struct trajectory *t = &tr[i];

		if (t->done)
			continue;
		if (o->task_time_s > 0 && monotonic_s() - t->started > o->task_time_s) {
			t->done = true; /* the agent's time per task is spent */
			continue;
		}
		reqs[n].msgs = t->msgs;
		reqs[n].nr_msgs = t->nr_msgs;
		att[n] = SIZE_MAX;
		idx[n++] = i;
	}
	return n;
}

/*
 * Reply q of trajectory t into its attempt a of this round: the request's usage, and either
 * the code of the reply written to <dir>/<op>/s<sample>.py (a->candidate) or the outcome
 * without code and why (no reply: the trajectory is done, and with verbose > 0 its reason is
 * printed on stderr). A negative errno, with err set, only when the candidate cannot be
 * written.
 */
static int take_reply(struct trajectory *t, const struct llm_request *q, unsigned round,
		      const char *dir, int verbose, struct gen_attempt *a, struct strbuf *err)
{
	const char **names;
	struct strbuf why = STRBUF_INIT;
	char *code = NULL;
	int r = 0;

	a->sample = t->sample;
	a->round = round;
	a->stage = t->passed ? "tune" : "generate";
	a->prompt_tokens = q->prompt_tokens;
	a->completion_tokens = q->completion_tokens;
	a->cached_tokens = q->cached_tokens;
	a->latency_ms = q->latency_ms;
	a->cost_usd = q->cost_usd;
	a->http_attempts = q->attempts;
	a->finish = q->finish ? xstrdup(q->finish) : NULL;
	if (q->status != LLM_OK) {
		set_outcome(a, q->status == LLM_BUDGET ? "budget" : "no_reply");
		a->error = xstrdup(q->error ? q->error : "no reply");
		if (verbose > 0)
			fprintf(stderr, "kgb generate: %s/%s sample %u round %u: %s\n",
				t->task->source, t->task->op, t->sample, round, a->error);
		t->done = true; /* nothing new to say to a model that did not answer */
		return 0;
	}
	names = xcalloc(t->task->nr_entries + 1, sizeof(*names));
	for (size_t e = 0; e < t->task->nr_entries; e++)
		names[e] = t->task->entries[e].name;
	traj_say(t, "assistant", q->text ? q->text : "");
	if (extract_code(q->text, q->finish, names, t->task->nr_entries, &code, &why) < 0) {
		set_outcome(a, "no_code");
		a->error = strbuf_detach(&why, NULL);
	} else {
		struct strbuf path = STRBUF_INIT;

		strbuf_addf(&path, "%s/%s/s%u.py", dir, t->task->op, t->sample);
		r = write_file(path.buf, code, err);
		a->candidate = strbuf_detach(&path, NULL);
	}
	free(code);
	free(names);
	strbuf_release(&why);
	return r;
}

/*
 * A passing candidate of round `round` (speedup sp, speed-of-light fraction sol): the task is
 * solved from this round on, the trajectory's best kernel kept, and on a timing platform the
 * agent asked to tune it (fb); otherwise the trajectory is done.
 */
static void take_pass(const struct gen_opts *o, struct trajectory *t, const struct gen_attempt *a,
		      unsigned round, double sp, double sol, struct strbuf *fb)
{
	bool better = !t->best_candidate || (isfinite(sp) && !(sp <= t->best_speedup));

	if (!t->passed) {
		for (unsigned rr = round; rr <= t->res->rounds; rr++)
			t->res->solved_by_round[rr]++;
	}
	t->passed = true;
	t->res->solved = true;
	if (isfinite(sp) && (isnan(t->res->best_speedup) || sp > t->res->best_speedup))
		t->res->best_speedup = sp;
	if (better) {
		free(t->best_candidate);
		t->best_candidate = xstrdup(a->candidate);
		t->best_speedup = sp;
	}
	/* The agent tunes what passes, where speed is measured. */
	if (o->track == GEN_AGENT && isfinite(sp))
		tune_feedback(sp, sol, fb);
	else
		t->done = true;
}

/*
 * Attempt a of trajectory t judged: its candidate's record in evals (keyed "<op>/s<sample>")
 * gives its outcome, and what the model is told next (a->detail, the trajectory's next
 * message) unless the trajectory is done.
 */
static void judge_attempt(const struct gen_opts *o, struct trajectory *t, struct gen_attempt *a,
			  json_t *evals, unsigned round)
{
	struct strbuf fb = STRBUF_INIT, key = STRBUF_INIT;
	json_t *rec;

	if (a->candidate) {
		const char *verdict;

		strbuf_addf(&key, "%s/s%u", t->task->op, t->sample);
		rec = json_object_get(evals, key.buf);
		verdict = json_string_value(json_object_get(rec, "verdict"));
		if (!rec || !verdict) {
			set_outcome(a, "not_evaluated");
			strbuf_addstr(&fb, "Your module could not be evaluated. Reply with the "
					   "whole module in one Python code block.");
		} else {
			json_t *ff = json_object_get(rec, "first_failure");
			char *fft = ff && !json_is_null(ff) ? json_dumps(ff, JSON_COMPACT) : NULL;
			double sp = json_is_number(json_object_get(rec, "speedup"))
					    ? json_number_value(json_object_get(rec, "speedup"))
					    : NAN;
			json_t *so = json_object_get(rec, "sol_fraction");
			double sol = json_is_number(so) ? json_number_value(so) : NAN;

			set_outcome(a, verdict);
			a->eval_key = xstrdup(json_string_value(json_object_get(rec, "key")) ?: "");
			a->speedup = sp;
			a->eval_ms = eval_ms_of(rec);
			if (!strcmp(verdict, "pass"))
				take_pass(o, t, a, round, sp, sol, &fb);
			else
				gen_feedback(verdict, fft, &fb);
			free(fft);
		}
	} else {
		strbuf_addf(&fb, "Your reply had no usable code: %s. Reply with the whole "
			    "module in one Python code block.", a->error);
	}
	if (!t->done && fb.len) {
		a->detail = xstrdup(fb.buf);
		traj_say(t, "user", fb.buf);
	}
	strbuf_release(&fb);
	strbuf_release(&key);
}

/*
 * One round of the sample and agent tracks over the unfinished trajectories: their requests
 * at once, each reply's code written to <out>/r<round>, one evaluation of them all, each
 * attempt judged, then every attempt of the round counted and stored.
 */
static int run_round(const struct gen_opts *o, struct llm_client *llm, struct store *st,
		     long long run_id, struct trajectory *tr, size_t ntr, unsigned round,
		     struct strbuf *err)
{
	struct llm_request *reqs = xcalloc(ntr ? ntr : 1, sizeof(*reqs));
	/* Indices into each result's attempts, which new_attempt() may move: SIZE_MAX for none. */
	size_t *att = xcalloc(ntr ? ntr : 1, sizeof(*att));
	size_t *idx = xcalloc(ntr ? ntr : 1, sizeof(*idx)), n;
	struct strbuf dir = STRBUF_INIT;
	json_t *evals = NULL;
	bool any_code = false;
	int r = 0;

	n = round_requests(o, tr, ntr, reqs, att, idx);
	if (!n)
		goto out;
	if ((r = llm_run(llm, reqs, n, err)) < 0)
		goto out;
	strbuf_addf(&dir, "%s/r%u", o->out_dir, round);
	for (size_t k = 0; k < n; k++) {
		struct trajectory *t = &tr[idx[k]];
		struct gen_attempt *a = new_attempt(t->res);

		att[k] = t->res->nr_attempts - 1;
		r = take_reply(t, &reqs[k], round, dir.buf, o->verbose, a, err);
		any_code = any_code || a->candidate;
		if (r < 0)
			goto out;
	}
	if (any_code && (r = eval_dir(o, dir.buf, false, &evals, err)) < 0)
		goto out;
	for (size_t k = 0; k < n; k++)
		judge_attempt(o, &tr[idx[k]], &tr[idx[k]].res->attempts[att[k]], evals, round);
out:
	for (size_t k = 0; k < n; k++) {
		struct trajectory *t = &tr[idx[k]];

		if (att[k] != SIZE_MAX) {
			add_usage(t->res, &t->res->attempts[att[k]]);
			if (r == 0)
				r = store_attempt(st, run_id, o, t->task, &t->res->attempts[att[k]],
						  err);
		}
		llm_request_release(&reqs[k]);
	}
	json_decref(evals);
	strbuf_release(&dir);
	free(reqs);
	free(att);
	free(idx);
	return r;
}

/*
 * The agent tracks' last step: the trajectory's best passing kernel (or, for the external
 * track, whatever it left), `code`, on the visible and the held-out cases together, as stage
 * "final". The code is written to <out>/final by kgb itself: what the engine reads there is
 * never a file an agent can still change or swap.
 */
static int final_eval(const struct gen_opts *o, struct store *st, long long run_id,
		      struct trajectory *t, const char *code, struct gen_attempt *a,
		      struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT, key = STRBUF_INIT;
	json_t *evals = NULL, *rec;
	int r;

	a->sample = t->sample;
	a->round = t->res->rounds + 1; /* after every round of the trajectory */
	a->stage = "final";
	strbuf_addf(&dir, "%s/final", o->out_dir);
	strbuf_addf(&path, "%s/%s/s%u.py", dir.buf, t->task->op, t->sample);
	if ((r = write_file(path.buf, code, err)) < 0)
		goto out;
	a->candidate = xstrdup(path.buf);
	if ((r = eval_dir(o, dir.buf, true, &evals, err)) < 0)
		goto out;
	strbuf_addf(&key, "%s/s%u", t->task->op, t->sample);
	rec = json_object_get(evals, key.buf);
	set_outcome(a, json_string_value(json_object_get(rec, "verdict")) ?: "not_evaluated");
	if (json_string_value(json_object_get(rec, "key")))
		a->eval_key = xstrdup(json_string_value(json_object_get(rec, "key")));
	if (json_is_number(json_object_get(rec, "speedup")))
		a->speedup = json_number_value(json_object_get(rec, "speedup"));
	a->eval_ms = eval_ms_of(rec);
	t->res->final_verdict = !strcmp(a->outcome, "pass") ? "pass" : "fail";
	add_usage(t->res, a);
	r = store_attempt(st, run_id, o, t->task, a, err);
out:
	json_decref(evals);
	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&key);
	return r;
}

/* ---- the external track ---- */

/*
 * The workspace's ./verify: checks ./solution.py on the task's visible cases with kgb eval.
 * Every value in it is quoted for sh: the paths come from --out, the catalog and where kgb is,
 * and a ' or a $( ) in one would otherwise end its quoting and run as code.
 */
static void verify_script(const struct gen_opts *o, const struct task *task, const char *catalog,
			  struct strbuf *out)
{
	struct strbuf copy = STRBUF_INIT;

	strbuf_addf(&copy, ".verify/%s.py", task->op);
	strbuf_addstr(out, "#!/bin/sh\n"
			   "# Checks ./solution.py on this task's visible cases with kgb eval and "
			   "prints the result.\n"
			   "# Exit status 0: it passes; 1: it does not (the table says why).\n"
			   "set -e\n"
			   "cd \"$(dirname \"$0\")\"\n"
			   "mkdir -p .verify\n"
			   "cp solution.py ");
	strbuf_add_sh_quoted(out, copy.buf);
	strbuf_addstr(out, "\nexec ");
	strbuf_add_sh_quoted(out, o->kgb_exe);
	strbuf_addstr(out, " --tasks ");
	strbuf_add_sh_quoted(out, catalog);
	strbuf_addstr(out, " eval --solutions .verify --store .verify/store.db --platform ");
	strbuf_add_sh_quoted(out, o->platform);
	strbuf_addstr(out, " --task ");
	strbuf_add_sh_quoted(out, task->op);
	/*
	 * Inside the agent's sandbox, ./verify runs the candidate without a sandbox of its own:
	 * the agent's already holds it (read-only files, catalog hidden), and a nested one would
	 * need the capabilities the agent must not have (they would let it undo its own box).
	 * The final score is computed outside, under the full sandbox.
	 */
	if (o->agent_sandbox != SANDBOX_OFF)
		strbuf_addstr(out, " --sandbox=off");
	strbuf_addstr(out, " --exit-status \"$@\"\n");
	strbuf_release(&copy);
}

/* The most kgb copies of one file of a task's directory into the agent's catalog. */
#define GEN_MAX_CATALOG_FILE_BYTES (64u << 20)

/*
 * The catalog the agent's ./verify uses: a copy of the task's directory without its shipped
 * solution, at <out_dir>/external/.catalog/<source>/<op>; the real catalog is hidden from the
 * agent. Its absolute root goes in *ret_root (owned by the caller).
 */
static int agent_catalog(const struct gen_opts *o, const struct task *task, char **ret_root,
			 struct strbuf *err)
{
	char *root = NULL, *dir, **names = NULL;
	struct strbuf src = STRBUF_INIT, dst = STRBUF_INIT, text = STRBUF_INIT;
	int r;

	strbuf_addf(&src, "%s/external/.catalog", o->out_dir);
	if (mkdir_p(src.buf, 0755) < 0 || !(root = path_abs(src.buf))) {
		strbuf_addf(err, "cannot create '%s'", src.buf);
		strbuf_release(&src);
		return -EIO;
	}
	dir = xmalloc(strlen(root) + strlen(task->source) + strlen(task->op) + 3);
	sprintf(dir, "%s/%s/%s", root, task->source, task->op);
	rm_rf(dir);
	if (mkdir_p(dir, 0755) < 0 || (r = list_dir_sorted(task->dir, &names)) < 0) {
		strbuf_addf(err, "cannot copy the task '%s' to '%s'", task->dir, dir);
		r = -EIO;
		goto out;
	}
	for (char **n = names; *n; n++) {
		strbuf_reset(&src);
		strbuf_reset(&dst);
		strbuf_reset(&text);
		strbuf_addf(&src, "%s/%s", task->dir, *n);
		strbuf_addf(&dst, "%s/%s", dir, *n);
		if (!strcmp(*n, "solution.py") || !path_is_file(src.buf))
			continue;
		/* Refuses what turned into a FIFO or a device since path_is_file(): never waits. */
		if ((r = strbuf_read_file(&text, src.buf, GEN_MAX_CATALOG_FILE_BYTES)) < 0) {
			strbuf_addf(err, "cannot copy the task's '%s' for the agent: ", src.buf);
			if (r == -E2BIG)
				strbuf_addf(err, "larger than %u MiB",
					    GEN_MAX_CATALOG_FILE_BYTES >> 20);
			else
				strbuf_addstr(err, r == -EINVAL ? "not a regular file"
								: strerror(-r));
			r = -EIO;
			goto out;
		}
		if ((r = write_file(dst.buf, text.buf, err)) < 0)
			goto out;
	}
	/* The catalog format wants the file; the agent's ./verify never runs it. */
	strbuf_reset(&dst);
	strbuf_addf(&dst, "%s/solution.py", dir);
	if ((r = write_file(dst.buf, "\"\"\"Withheld from the agent: ./verify checks its own "
					 "solution.py.\"\"\"\n", err)) < 0)
		goto out;
	*ret_root = root;
	root = NULL;
	r = 0;
out:
	free(root);
	free(dir);
	strv_free(names);
	strbuf_release(&src);
	strbuf_release(&dst);
	strbuf_release(&text);
	return r;
}

/*
 * Runs the agent command in its workspace `ws`, sandboxed (o->agent_sandbox): every mount
 * read-only but the workspace and o->agent_writable, the catalog and the kgb repository's
 * .git hidden, its own process group, user, mount and pid namespaces, no capabilities. The
 * network stays (the agent talks to its model), so neither the network namespace nor the
 * seccomp filters (which allow Unix sockets only, and no connect()) apply; nor do the
 * environment's allow-list and the minimal /dev. Its stdin is /dev/null, its output
 * goes to <ws>/agent.log, TMPDIR is <ws>/.tmp. Killed with its whole group after
 * o->agent_timeout_s.
 */
/* What the agent's sandbox lacks, said as it starts. */
static void say_missing(const struct sandbox_child *c, void *data)
{
	enum sandbox_facility missing;

	(void)data;
	if (sandbox_report_missing(&c->report, &missing))
		fprintf(stderr, "kgb generate: agent sandbox: %s unavailable: %s; continuing "
			"without it\n", sandbox_facility_name(missing), c->report.reason[missing]);
}

static int run_agent(const struct gen_opts *o, const char *ws, char **env, int *ret_status,
		     bool *ret_timed_out, struct strbuf *err)
{
	static const char wrapper[] = "cd \"$1\" || exit 127; exec </dev/null >>agent.log 2>&1; "
				      "exec /bin/sh -c \"$2\"";
	char *argv[] = {"/bin/sh", "-c", (char *)wrapper, "kgb-agent", (char *)ws,
			(char *)o->agent_cmd, NULL};
	const char *hide[3] = {o->tasks_dir, NULL, NULL};
	const char **writable = NULL;
	char *git = o->kgb_root ? path_join(o->kgb_root, ".git") : NULL;
	struct sandbox *box = sandbox_new((enum sandbox_mode)o->agent_sandbox);
	struct sandbox_opts so = {.argv = argv, .envp = env, .box = box, .inherit_stdio = true};
	/* Killed with its whole group at the deadline. */
	struct proc_opts po = {.timeout_s = o->agent_timeout_s, .started = say_missing};
	struct proc c;
	size_t nw = 0;
	int r;

	*ret_timed_out = false;
	if (git && path_is_dir(git))
		hide[1] = git;
	while (o->agent_writable && o->agent_writable[nw])
		nw++;
	writable = xcalloc(nw + 2, sizeof(*writable));
	writable[0] = ws;
	for (size_t i = 0; i < nw; i++)
		writable[i + 1] = o->agent_writable[i];
	so.writable = writable;
	so.hide_also = hide;
	/*
	 * It talks to its model (TCP: no netns, no seccomp, no unix_sockets filter, which denies
	 * every connect()), with its keys (no clean_env), and runs a developer's tools, which may
	 * want a terminal's devices (no min_dev).
	 */
	if ((r = sandbox_skip(box, "netns,seccomp,unix_sockets,clean_env,min_dev", err)) < 0)
		goto out;
	r = proc_run(&so, &po, &c, err);
	if (r == 0) {
		*ret_timed_out = c.timed_out;
		*ret_status = c.child.status;
	}
	proc_release(&c);
out:
	sandbox_free(box);
	free(writable);
	free(git);
	return r;
}

/* A usage report is a few numbers; more than this is not one. */
#define GEN_MAX_USAGE_BYTES (64u << 10)

/* What a file of the agent's workspace is instead of a regular file, in words. */
static const char *file_type(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "something";
}

/*
 * `name` of the agent's workspace (open as wsfd) into sb, at most max_bytes: the agent is not
 * trusted with what it leaves there, so a symbolic link is never followed (it could point at
 * the hidden shipped solution, or at any file kgb can read and the agent cannot), and what is
 * not a regular file is never opened (a FIFO would block kgb forever). On failure, -errno and
 * *why says what was there; -ENOENT (nothing there) leaves *why to the caller.
 */
static int read_ws_file(int wsfd, const char *name, size_t max_bytes, struct strbuf *sb,
			struct strbuf *why)
{
	struct stat st;
	int r;

	memset(&st, 0, sizeof(st));
	r = strbuf_read_file_at(sb, wsfd, name, max_bytes, &st);
	if (r == 0 || r == -ENOENT)
		return r;
	strbuf_addf(why, "%s in the agent's workspace ", name);
	if (r == -ELOOP)
		strbuf_addstr(why, "is a symbolic link: not followed");
	else if ((r == -EISDIR || r == -EINVAL) && !S_ISREG(st.st_mode))
		strbuf_addf(why, "is %s, not a regular file: not read", file_type(st.st_mode));
	else if (r == -E2BIG && max_bytes % (1u << 20) == 0)
		strbuf_addf(why, "is larger than %zu MiB: not read", max_bytes >> 20);
	else if (r == -E2BIG)
		strbuf_addf(why, "is larger than %zu KiB: not read", max_bytes >> 10);
	else
		strbuf_addf(why, "cannot be read: %s", strerror(-r));
	return r;
}

/*
 * usage.json of the agent's workspace: what it reports it spent. Anything but a small regular
 * file holding a JSON object leaves its tokens (-1) and cost unknown, with the reason in
 * a->error; the attempt itself goes on (its solution is still scored).
 */
static void read_usage(int wsfd, struct gen_attempt *a)
{
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	json_t *u = NULL;
	int r = read_ws_file(wsfd, "usage.json", GEN_MAX_USAGE_BYTES, &text, &why);

	if (r == 0)
		u = json_loadb(text.buf, text.len, 0, NULL);
	if (r == -ENOENT)
		strbuf_addstr(&why, "the agent reported no usage (usage.json in its workspace): "
				    "its tokens and cost are unknown");
	else if (r == 0 && !json_is_object(u))
		strbuf_addstr(&why, "usage.json in the agent's workspace is not a JSON object");
	if (why.len) {
		if (r != -ENOENT)
			strbuf_addstr(&why, "; the agent's tokens and cost are unknown");
		free(a->error);
		a->error = strbuf_detach(&why, NULL);
		a->prompt_tokens = a->completion_tokens = a->cached_tokens = -1;
	} else {
		a->prompt_tokens = json_integer_value(json_object_get(u, "prompt_tokens"));
		a->completion_tokens = json_integer_value(json_object_get(u, "completion_tokens"));
		a->cached_tokens = json_integer_value(json_object_get(u, "cached_tokens"));
		if (json_is_number(json_object_get(u, "cost_usd")))
			a->cost_usd = json_number_value(json_object_get(u, "cost_usd"));
	}
	json_decref(u);
	strbuf_release(&text);
	strbuf_release(&why);
}

/*
 * One task's agent: a fresh workspace, the agent run in it, then what it left read back as
 * untrusted data. Whatever the agent does (no solution, a link, a FIFO, a file too large, its
 * workspace gone, out of time) is this task's outcome, stored with its reason; only what
 * stops the run itself (the store, the sandbox, the disk, the evaluation engine) is an error.
 */
static int run_external(const struct gen_opts *o, struct store *st, long long run_id,
			struct trajectory *t, struct strbuf *err)
{
	struct strbuf ws = STRBUF_INIT, file = STRBUF_INIT, text = STRBUF_INIT, why = STRBUF_INIT;
	struct strbuf e_prompt = STRBUF_INIT, e_verify = STRBUF_INIT, e_sol = STRBUF_INIT,
		      e_task = STRBUF_INIT, e_tmp = STRBUF_INIT;
	struct gen_attempt *a = new_attempt(t->res);
	char *catalog = NULL;
	char **env;
	size_t ne = 0;
	int status = 0, wsfd = -1, r;
	bool timed_out = false;
	double t0;

	a->sample = t->sample;
	a->stage = "generate";
	strbuf_addf(&ws, "%s/external/%s", o->out_dir, t->task->op);
	rm_rf(ws.buf); /* a fresh workspace: nothing of an earlier run leaks in */
	if (mkdir_p(ws.buf, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s'", ws.buf);
		r = -EIO;
		goto out;
	}
	if ((r = agent_catalog(o, t->task, &catalog, err)) < 0)
		goto out;
	strbuf_addf(&e_tmp, "TMPDIR=%s/.tmp", ws.buf);
	if (mkdir_p(e_tmp.buf + 7, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s'", e_tmp.buf + 7);
		r = -EIO;
		goto out;
	}
	/* The prompt gen_run() built: the trajectory's first message. */
	strbuf_addf(&file, "%s/prompt.md", ws.buf);
	if ((r = write_file(file.buf, t->msgs[0].content, err)) < 0)
		goto out;
	verify_script(o, t->task, catalog, &text);
	strbuf_reset(&file);
	strbuf_addf(&file, "%s/verify", ws.buf);
	if ((r = write_file(file.buf, text.buf, err)) < 0 || chmod(file.buf, 0755) < 0) {
		r = r < 0 ? r : -errno;
		goto out;
	}
	strbuf_reset(&text);
	strbuf_addf(&e_prompt, "KGB_PROMPT=%s/prompt.md", ws.buf);
	strbuf_addf(&e_verify, "KGB_VERIFY=%s/verify", ws.buf);
	strbuf_addf(&e_sol, "KGB_SOLUTION=%s/solution.py", ws.buf);
	strbuf_addf(&e_task, "KGB_TASK=%s", t->task->op);
	while (environ[ne])
		ne++;
	env = xcalloc(ne + 6, sizeof(*env));
	ne = 0;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "TMPDIR=", 7))
			env[ne++] = *e;
	env[ne] = e_prompt.buf;
	env[ne + 1] = e_verify.buf;
	env[ne + 2] = e_sol.buf;
	env[ne + 3] = e_task.buf;
	env[ne + 4] = e_tmp.buf;
	t0 = monotonic_s();
	r = run_agent(o, ws.buf, env, &status, &timed_out, err);
	free(env);
	if (r < 0)
		goto out;
	a->latency_ms = (monotonic_s() - t0) * 1000;
	/* Its files are read relative to the workspace itself, never through a path again. */
	wsfd = open(ws.buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (wsfd < 0) {
		strbuf_addf(&why, "the agent's workspace cannot be opened any more: %s",
			    strerror(errno));
		a->prompt_tokens = a->completion_tokens = a->cached_tokens = -1;
	} else {
		read_usage(wsfd, a);
	}
	if (timed_out) {
		strbuf_reset(&why);
		strbuf_addstr(&why, "the agent command ran out of time");
	} else if (wsfd >= 0 && (r = read_ws_file(wsfd, "solution.py", EVAL_MAX_CANDIDATE_BYTES,
						  &text, &why)) == -ENOENT) {
		strbuf_addstr(&why, "the agent left no solution.py in its workspace");
	} else if (wsfd >= 0 && r == 0 && memchr(text.buf, '\0', text.len)) {
		/* Python refuses such a file; as a C string it would be scored cut short. */
		strbuf_addstr(&why, "solution.py in the agent's workspace holds a NUL byte: not "
				    "Python source");
	}
	if (why.len) {
		set_outcome(a, timed_out ? "timeout" : "no_code");
		free(a->error);
		a->error = strbuf_detach(&why, NULL);
		add_usage(t->res, a);
		r = store_attempt(st, run_id, o, t->task, a, err);
		goto out;
	}
	set_outcome(a, "generated");
	strbuf_reset(&file);
	strbuf_addf(&file, "%s/solution.py", ws.buf);
	a->candidate = strbuf_detach(&file, NULL);
	add_usage(t->res, a);
	if ((r = store_attempt(st, run_id, o, t->task, a, err)) < 0)
		goto out;
	{
		struct gen_attempt *fin = new_attempt(t->res);

		r = final_eval(o, st, run_id, t, text.buf, fin, err);
		if (r == 0 && !strcmp(fin->outcome, "pass")) {
			t->passed = t->res->solved = true;
			for (unsigned rr = 0; rr <= t->res->rounds; rr++)
				t->res->solved_by_round[rr]++;
			t->res->best_speedup = fin->speedup;
		}
	}
out:
	if (wsfd >= 0)
		close(wsfd);
	strbuf_release(&ws);
	strbuf_release(&file);
	strbuf_release(&text);
	strbuf_release(&why);
	strbuf_release(&e_prompt);
	strbuf_release(&e_verify);
	strbuf_release(&e_sol);
	strbuf_release(&e_task);
	strbuf_release(&e_tmp);
	free(catalog);
	return r;
}

int gen_run(const struct gen_opts *o, const struct task *const *tasks, size_t nr_tasks,
	    long long run_id, struct gen_task_result **ret, struct strbuf *err)
{
	unsigned per_task = o->track == GEN_SAMPLE ? (o->samples ? o->samples : 1) : 1;
	size_t ntr = nr_tasks * per_task;
	struct gen_task_result *res = xcalloc(nr_tasks ? nr_tasks : 1, sizeof(*res));
	struct trajectory *tr = xcalloc(ntr ? ntr : 1, sizeof(*tr));
	struct llm_client *llm = NULL;
	struct store *st = NULL;
	int r;

	if ((r = store_open(o->store_path, &st, err)) < 0)
		goto out;
	if (o->track != GEN_EXTERNAL && (r = llm_client_new(&o->llm, &llm, err)) < 0)
		goto out;
	for (size_t i = 0; i < nr_tasks; i++) {
		struct strbuf prompt = STRBUF_INIT;

		res[i].task = tasks[i];
		res[i].n = per_task;
		res[i].rounds = o->track == GEN_EXTERNAL ? 0 : o->rounds;
		res[i].solved_by_round = xcalloc(res[i].rounds + 1, sizeof(unsigned));
		res[i].best_speedup = NAN;
		res[i].cost_usd = 0; /* add_usage() adds each request's, NAN when unknown */
		if (prompt_build(tasks[i], o->platform, o->platform_prompt, &prompt, err) < 0) {
			strbuf_release(&prompt);
			r = -EBADMSG;
			goto out;
		}
		for (unsigned s = 0; s < per_task; s++) {
			struct trajectory *t = &tr[i * per_task + s];

			t->task = tasks[i];
			t->res = &res[i];
			t->sample = s;
			t->best_speedup = NAN;
			t->started = monotonic_s();
			traj_say(t, "user", prompt.buf);
		}
		strbuf_release(&prompt);
	}
	if (o->track == GEN_EXTERNAL) {
		long long used = 0;

		for (size_t i = 0; i < ntr && r == 0; i++) {
			/* An agent cannot be stopped mid-task by a budget; the next one is not started
			 * once the agents' reported usage has spent it. */
			if (o->llm.budget_tokens > 0 && used >= o->llm.budget_tokens) {
				struct gen_attempt *a = new_attempt(tr[i].res);

				a->stage = "generate";
				set_outcome(a, "budget");
				a->error = xstrdup("not started: the run's budget is spent");
				add_usage(tr[i].res, a);
				r = store_attempt(st, run_id, o, tr[i].task, a, err);
				continue;
			}
			r = run_external(o, st, run_id, &tr[i], err);
			used += tr[i].res->prompt_tokens > 0 ? tr[i].res->prompt_tokens : 0;
			used += tr[i].res->completion_tokens > 0 ? tr[i].res->completion_tokens : 0;
		}
		goto out;
	}
	for (unsigned round = 0; round <= o->rounds && r == 0; round++) {
		if (o->verbose > 0)
			fprintf(stderr, "kgb generate: round %u\n", round);
		r = run_round(o, llm, st, run_id, tr, ntr, round, err);
	}
	for (size_t i = 0; i < ntr && r == 0 && o->track == GEN_AGENT; i++) {
		struct strbuf code = STRBUF_INIT;

		if (!tr[i].best_candidate) {
			tr[i].res->final_verdict = "fail";
			continue;
		}
		/* A file kgb wrote from a reply's code block: no agent ever had it. */
		r = strbuf_read_file(&code, tr[i].best_candidate, EVAL_MAX_CANDIDATE_BYTES);
		if (r < 0)
			strbuf_addf(err, "cannot read '%s': %s", tr[i].best_candidate,
				    strerror(-r));
		else
			r = final_eval(o, st, run_id, &tr[i], code.buf, new_attempt(tr[i].res),
				       err);
		strbuf_release(&code);
	}
out:
	for (size_t i = 0; i < ntr; i++)
		traj_release(&tr[i]);
	free(tr);
	llm_client_free(llm);
	store_free(st);
	if (r < 0) {
		for (size_t i = 0; i < nr_tasks; i++)
			gen_task_result_release(&res[i]);
		free(res);
		return r;
	}
	*ret = res;
	return 0;
}
