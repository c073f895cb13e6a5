/*
 * gen_report.c - the scores of a generate run, printed, and counted again from the store
 * (gen_report.h).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gen_report.h"
#include "kgb.h"
#include "stats.h"
#include "util/fs.h"
#include "util/xalloc.h"

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Pass@k of one task: over the first round's samples (unbiased; NAN when k > n). */
static double task_pass_at_k(const struct gen_task_result *r, unsigned k)
{
	return stats_pass_at_k(r->n, r->solved_by_round[0], k);
}

/* A stored row's token count: -1 (unknown) where the row has none. */
static long long row_tokens(json_t *row, const char *key)
{
	json_t *v = json_object_get(row, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* A token count for JSON: null when unknown (-1). */
static json_t *tokens_json(long long n)
{
	return n < 0 ? json_null() : json_integer((json_int_t)n);
}

/* Whether attempt a is a request to a model: the LLM tracks' generate and tune stages. */
static bool is_request(const struct gen_run_opts *o, const struct gen_attempt *a)
{
	return o->g.track != GEN_EXTERNAL && (!a->stage || strcmp(a->stage, "final"));
}

void gen_requests_count(const struct gen_run_opts *o, const struct gen_task_result *res, size_t n,
			struct gen_requests *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < res[i].nr_attempts; j++) {
			const struct gen_attempt *a = &res[i].attempts[j];

			if (!is_request(o, a))
				continue;
			if (!strcmp(a->outcome, "budget")) {
				ret->not_sent++;
				continue;
			}
			ret->sent++;
			if (!strcmp(a->outcome, "no_reply")) {
				ret->failed++;
				if (!ret->first_error)
					ret->first_error = a->error;
			} else {
				ret->replied++;
				ret->with_code += strcmp(a->outcome, "no_code") != 0;
			}
		}
}

/*
 * The kind of a failed request's reason (llm.h's "POST <url>: <why>"): "HTTP <status>" for an
 * error status, "unusable reply" for a reply that could not be used, else "no HTTP reply"
 * (no connection, a timeout).
 */
static void error_kind(const char *error, char out[32])
{
	const char *why = error ? strstr(error, ": ") : NULL;
	int status;

	why = why ? why + 2 : error ? error : "";
	if (sscanf(why, "HTTP %3d", &status) == 1)
		snprintf(out, 32, "HTTP %d", status);
	else if (!strncmp(why, "the ", 4))
		snprintf(out, 32, "unusable reply");
	else
		snprintf(out, 32, "no HTTP reply");
}

/*
 * The distinct reasons of task r's failed requests, in the order first seen: a JSON array of
 * {"kind", "message", "count"} (owned), empty when none failed.
 */
static json_t *task_errors(const struct gen_run_opts *o, const struct gen_task_result *r)
{
	json_t *errs = json_array();

	for (size_t j = 0; j < r->nr_attempts; j++) {
		const struct gen_attempt *a = &r->attempts[j];
		const char *msg = a->error ? a->error : "no reply";
		json_t *e = NULL;
		size_t k;
		char kind[32];

		if (!is_request(o, a) || strcmp(a->outcome, "no_reply"))
			continue;
		json_array_foreach(errs, k, e)
			if (!strcmp(json_string_value(json_object_get(e, "message")), msg))
				break;
		if (k < json_array_size(errs)) {
			json_t *c = json_object_get(e, "count");

			json_integer_set(c, json_integer_value(c) + 1);
			continue;
		}
		error_kind(msg, kind);
		json_array_append_new(errs, json_pack("{s:s, s:s, s:i}", "kind", kind, "message",
						      msg, "count", 1));
	}
	return errs;
}

/* The request counts q as JSON (owned). */
static json_t *requests_json(const struct gen_requests *q)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "sent", (json_int_t)q->sent, "replied",
			 (json_int_t)q->replied, "with_code", (json_int_t)q->with_code, "failed",
			 (json_int_t)q->failed, "not_sent", (json_int_t)q->not_sent);
}

/*
 * What task r's attempts (not a final evaluation) came to, {"pass": 1, "no_code": 2, ...} in
 * the order first seen (owned).
 */
static json_t *task_outcomes(const struct gen_task_result *r)
{
	json_t *by = json_object();

	for (size_t j = 0; j < r->nr_attempts; j++) {
		const struct gen_attempt *a = &r->attempts[j];

		if (!*a->outcome || (a->stage && !strcmp(a->stage, "final")))
			continue;
		json_object_set_new(by, a->outcome, json_integer(
			json_integer_value(json_object_get(by, a->outcome)) + 1));
	}
	return by;
}

/* What the tasks of a run add up to. */
struct totals {
	size_t solved;
	long long prompt, completion, cached;
	double cost, llm_s, eval_s;
	bool cost_known; /* every task's cost is: one unknown makes the sum unknown */
	/* Per k of --k: the tasks' Pass@k summed, over tasks_k[j] tasks (those where k <= n). */
	double sum_k[GEN_MAX_K];
	size_t tasks_k[GEN_MAX_K];
	unsigned rounds;
	double *within; /* [rounds + 1], owned: the tasks' fractions solved by round r, summed */
	struct gen_requests requests;
	double *speedups; /* [tasks], owned: the solved tasks' best speedups, nr_speedups of them */
	size_t nr_speedups;
};

static void totals_add(struct totals *t, const struct gen_run_opts *o,
		       const struct gen_task_result *r)
{
	t->solved += r->solved;
	t->prompt = gen_tokens_add(t->prompt, r->prompt_tokens);
	t->completion = gen_tokens_add(t->completion, r->completion_tokens);
	t->cached = gen_tokens_add(t->cached, r->cached_tokens);
	if (isfinite(r->cost_usd))
		t->cost += r->cost_usd;
	else if (r->nr_attempts)
		t->cost_known = false;
	t->llm_s += r->llm_s;
	t->eval_s += r->eval_s;
	if (r->solved && isfinite(r->best_speedup) && r->best_speedup > 0)
		t->speedups[t->nr_speedups++] = r->best_speedup;
	for (size_t j = 0; j < o->nr_ks; j++) {
		double p = task_pass_at_k(r, o->ks[j]);

		if (!isnan(p)) {
			t->sum_k[j] += p;
			t->tasks_k[j]++;
		}
	}
	for (unsigned rr = 0; rr <= t->rounds; rr++)
		t->within[rr] += (double)r->solved_by_round[rr] / r->n;
}

static void print_json(FILE *f, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);

	fprintf(f, "%s\n", s);
	free(s);
}

/* One task's kgb.generate.v1 line. */
static void print_task_json(FILE *f, const struct gen_run_opts *opts,
			    const struct gen_task_result *r)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:b, s:o, s:o, s:o}", "schema",
			      "kgb.generate.v1", "task", r->task->op, "source", r->task->source,
			      "track", opts->track, "samples", (json_int_t)r->n,
			      "passed_first_round", (json_int_t)r->solved_by_round[0], "passed",
			      (json_int_t)r->solved_by_round[r->rounds], "solved", r->solved,
			      "prompt_tokens", tokens_json(r->prompt_tokens), "completion_tokens",
			      tokens_json(r->completion_tokens), "cached_tokens",
			      tokens_json(r->cached_tokens));
	json_t *pk = json_object(), *wr = json_array();

	for (size_t j = 0; j < opts->nr_ks; j++) {
		char key[16];

		snprintf(key, sizeof(key), "%u", opts->ks[j]);
		json_object_set_new(pk, key, num_or_null(task_pass_at_k(r, opts->ks[j])));
	}
	for (unsigned rr = 0; rr <= r->rounds; rr++)
		json_array_append_new(wr, json_real((double)r->solved_by_round[rr] / r->n));
	json_object_set_new(o, "pass_at_k", pk);
	json_object_set_new(o, "solved_within_rounds", wr);
	json_object_set_new(o, "cost_usd", num_or_null(r->cost_usd));
	json_object_set_new(o, "llm_s", json_real(r->llm_s));
	json_object_set_new(o, "eval_s", json_real(r->eval_s));
	json_object_set_new(o, "best_speedup", num_or_null(r->best_speedup));
	json_object_set_new(o, "final_verdict",
			    r->final_verdict ? json_string(r->final_verdict) : json_null());
	json_object_set_new(o, "outcomes", task_outcomes(r));
	if (opts->g.track != GEN_EXTERNAL) {
		struct gen_requests q;

		gen_requests_count(opts, r, 1, &q);
		json_object_set_new(o, "requests", requests_json(&q));
		json_object_set_new(o, "errors", task_errors(opts, r));
	}
	print_json(f, o);
	json_decref(o);
}

/* One task's row of the table. */
static void print_task_row(FILE *f, const struct gen_run_opts *o, const struct gen_task_result *r)
{
	char cost_s[32], tok_s[32], note[128] = "";
	long long tok = gen_tokens_add(r->prompt_tokens, r->completion_tokens);
	struct gen_requests q;
	struct strbuf id = STRBUF_INIT;

	gen_requests_count(o, r, 1, &q);
	if (q.failed)
		snprintf(note, sizeof(note), "%zu of %zu requests failed", q.failed, q.sent);
	if (!r->solved) { /* what came instead of a pass (failed requests said above) */
		json_t *by = task_outcomes(r), *c;
		const char *what;

		json_object_foreach(by, what, c)
			if (strcmp(what, "no_reply"))
				snprintf(note + strlen(note), sizeof(note) - strlen(note),
					 "%s%s x%lld", *note ? ", " : "", what,
					 (long long)json_integer_value(c));
		json_decref(by);
	}

	if (isfinite(r->cost_usd))
		snprintf(cost_s, sizeof(cost_s), "$%.4f", r->cost_usd);
	else
		snprintf(cost_s, sizeof(cost_s), "unknown");
	if (r->final_verdict)
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "%sheld-out: %s",
			 *note ? ", " : "", r->final_verdict);
	if (isfinite(r->best_speedup))
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "%sbest speedup %.2fx",
			 *note ? ", " : "", r->best_speedup);
	if (tok < 0)
		snprintf(tok_s, sizeof(tok_s), "unknown");
	else
		snprintf(tok_s, sizeof(tok_s), "%lld", tok);
	strbuf_addf(&id, "%s/%s", r->task->source, r->task->op);
	fprintf(f, "%-28s %-8u %-7u %-7.3f %-9s %-11s %s\n", id.buf, r->n,
		r->solved_by_round[r->rounds], task_pass_at_k(r, 1), tok_s, cost_s, note);
	strbuf_release(&id);
}

/* Under the table: why each task's failed requests failed, each reason once with its count. */
static void print_errors_text(FILE *f, const struct gen_run_opts *o,
			      const struct gen_task_result *res, size_t n)
{
	bool header = false;

	for (size_t i = 0; i < n; i++) {
		json_t *errs = task_errors(o, &res[i]), *e;
		size_t k;

		json_array_foreach(errs, k, e) {
			if (!header)
				fprintf(f, "\nfailed requests:\n");
			header = true;
			fprintf(f, "  %s/%s: %lld x %s\n", res[i].task->source, res[i].task->op,
				(long long)json_integer_value(json_object_get(e, "count")),
				json_string_value(json_object_get(e, "message")));
		}
		json_decref(errs);
	}
}

/* The failed requests of res[0..n) by kind (error_kind()): {"HTTP 429": 2, ...} (owned). */
static json_t *failed_by_kind(const struct gen_run_opts *o, const struct gen_task_result *res,
			      size_t n)
{
	json_t *by = json_object();

	for (size_t i = 0; i < n; i++) {
		json_t *errs = task_errors(o, &res[i]), *e;
		size_t k;

		json_array_foreach(errs, k, e) {
			const char *kind = json_string_value(json_object_get(e, "kind"));
			json_int_t c = json_integer_value(json_object_get(e, "count"));

			json_object_set_new(by, kind, json_integer(
				json_integer_value(json_object_get(by, kind)) + c));
		}
		json_decref(errs);
	}
	return by;
}

/* The run's kgb.generate.summary.v1 line, over n tasks. */
static void print_summary_json(FILE *f, const struct gen_run_opts *o, const struct totals *t,
			       const struct gen_task_result *res, size_t n, double wall_s)
{
	json_t *sum = json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:o}", "schema",
				"kgb.generate.summary.v1", "track", o->track, "tasks",
				(json_int_t)n, "solved", (json_int_t)t->solved, "prompt_tokens",
				tokens_json(t->prompt), "completion_tokens",
				tokens_json(t->completion), "cached_tokens", tokens_json(t->cached));
	json_t *pk = json_object(), *wr = json_array();
	double per = t->solved ? 1.0 / (double)t->solved : NAN;

	for (size_t j = 0; j < o->nr_ks; j++) {
		double mean = t->tasks_k[j] ? t->sum_k[j] / t->tasks_k[j] : NAN;
		char key[16];

		snprintf(key, sizeof(key), "%u", o->ks[j]);
		json_object_set_new(pk, key, json_pack("{s:o, s:I}", "value", num_or_null(mean),
						       "tasks", (json_int_t)t->tasks_k[j]));
	}
	for (unsigned rr = 0; rr <= t->rounds; rr++)
		json_array_append_new(wr, num_or_null(n ? t->within[rr] / (double)n : NAN));
	json_object_set_new(sum, "pass_at_k", pk);
	json_object_set_new(sum, "solved_within_rounds", wr);
	json_object_set_new(sum, "cost_usd", t->cost_known ? json_real(t->cost) : json_null());
	json_object_set_new(sum, "tokens_per_success",
			    t->prompt < 0 || t->completion < 0
				    ? json_null()
				    : num_or_null((double)(t->prompt + t->completion) * per));
	json_object_set_new(sum, "cost_per_success",
			    t->cost_known ? num_or_null(t->cost * per) : json_null());
	json_object_set_new(sum, "seconds_per_success", num_or_null((t->llm_s + t->eval_s) * per));
	json_object_set_new(sum, "llm_s", json_real(t->llm_s));
	json_object_set_new(sum, "eval_s", json_real(t->eval_s));
	json_object_set_new(sum, "wall_s", num_or_null(wall_s));
	json_object_set_new(sum, "geomean_best_speedup",
			    t->nr_speedups ? json_real(stats_geomean(t->speedups, t->nr_speedups))
					   : json_null());
	json_object_set_new(sum, "timed_solved_tasks", json_integer((json_int_t)t->nr_speedups));
	if (o->g.track != GEN_EXTERNAL) {
		json_t *q = requests_json(&t->requests);

		json_object_set_new(q, "failed_by_kind", failed_by_kind(o, res, n));
		json_object_set_new(sum, "requests", q);
	}
	print_json(f, sum);
	json_decref(sum);
}

/*
 * "requests: 4 sent: 1 replied (1 with code), 3 failed (HTTP 429: 2, no HTTP reply: 1), 0 not
 * sent (budget)".
 */
static void print_requests_text(FILE *f, const struct gen_run_opts *o, const struct gen_requests *q,
				const struct gen_task_result *res, size_t n)
{
	json_t *by = failed_by_kind(o, res, n), *c;
	const char *kind, *sep = " (";

	fprintf(f, "requests: %zu sent: %zu replied (%zu with code), %zu failed", q->sent,
		q->replied, q->with_code, q->failed);
	json_object_foreach(by, kind, c) {
		fprintf(f, "%s%s: %lld", sep, kind, (long long)json_integer_value(c));
		sep = ", ";
	}
	fprintf(f, "%s, %zu not sent (budget)\n", *sep == ',' ? ")" : "", q->not_sent);
	json_decref(by);
}

/* The run's totals under the table, over n tasks. */
static void print_summary_text(FILE *f, const struct gen_run_opts *o, const struct totals *t,
			       const struct gen_task_result *res, size_t n, double wall_s)
{
	fprintf(f, "\nsolved: %zu/%zu tasks", t->solved, n);
	for (size_t j = 0; j < o->nr_ks; j++)
		if (t->tasks_k[j])
			fprintf(f, "  pass@%u %.3f", o->ks[j], t->sum_k[j] / (double)t->tasks_k[j]);
	if (t->nr_speedups)
		fprintf(f, "  geomean best speedup %.3fx over %zu timed solved task%s",
			stats_geomean(t->speedups, t->nr_speedups), t->nr_speedups,
			t->nr_speedups == 1 ? "" : "s");
	fprintf(f, "\n");
	if (t->rounds) {
		fprintf(f, "solved within r rounds (sequential):");
		for (unsigned rr = 0; rr <= t->rounds; rr++)
			fprintf(f, " r%u %.3f", rr, n ? t->within[rr] / (double)n : NAN);
		fprintf(f, "\n");
	}
	if (t->prompt < 0 || t->completion < 0 || t->cached < 0) {
		fprintf(f, "tokens: unknown (an agent reported none)");
	} else {
		fprintf(f, "tokens: %lld prompt (%lld cached) + %lld completion", t->prompt,
			t->cached, t->completion);
	}
	if (t->solved && t->prompt >= 0 && t->completion >= 0)
		fprintf(f, "; %.0f per solved task",
			(double)(t->prompt + t->completion) / t->solved);
	fprintf(f, "\ncost: ");
	if (t->cost_known)
		fprintf(f, "$%.4f%s", t->cost, t->solved ? "" : "\n");
	else
		fprintf(f, "unknown (no --prices for this model)\n");
	if (t->cost_known && t->solved)
		fprintf(f, "; $%.4f per solved task\n", t->cost / t->solved);
	if (o->g.track != GEN_EXTERNAL)
		print_requests_text(f, o, &t->requests, res, n);
	fprintf(f, "time: %.1f s of model replies + %.1f s of evaluation", t->llm_s, t->eval_s);
	if (t->solved)
		fprintf(f, "; %.1f s per solved task", (t->llm_s + t->eval_s) / t->solved);
	if (isfinite(wall_s))
		fprintf(f, " (wall %.1f s)", wall_s);
	fprintf(f, "\n");
}

void gen_report_print(FILE *f, const struct gen_run_opts *o, bool json,
		      const struct gen_task_result *res, size_t n, double wall_s)
{
	struct totals t = {.cost_known = true, .rounds = n ? res[0].rounds : 0};

	t.within = xcalloc(t.rounds + 1, sizeof(double));
	t.speedups = xcalloc(n + 1, sizeof(double));
	if (!json)
		fprintf(f, "%-28s %-8s %-7s %-7s %-9s %-11s %s\n", "TASK", "SAMPLES", "SOLVED",
			"PASS@1", "TOKENS", "COST", "NOTE");
	for (size_t i = 0; i < n; i++) {
		totals_add(&t, o, &res[i]);
		if (json)
			print_task_json(f, o, &res[i]);
		else
			print_task_row(f, o, &res[i]);
	}
	gen_requests_count(o, res, n, &t.requests);
	if (json) {
		print_summary_json(f, o, &t, res, n, wall_s);
	} else {
		print_errors_text(f, o, res, n);
		print_summary_text(f, o, &t, res, n, wall_s);
	}
	free(t.within);
	free(t.speedups);
}

int gen_report_exit(FILE *f, const struct gen_run_opts *o, const struct gen_task_result *res,
		    size_t n)
{
	struct gen_requests q;

	gen_requests_count(o, res, n, &q);
	if (q.sent && !q.replied) {
		fprintf(f, "kgb generate: no request got a reply (%zu sent); the first error: %s\n",
			q.sent, q.first_error ? q.first_error : "(no reason)");
		return KGB_EXIT_ENV;
	}
	if (o->fail_on_error && q.failed) {
		fprintf(f, "kgb generate: %zu of %zu requests failed (--fail-on-error)\n", q.failed,
			q.sent);
		return KGB_EXIT_NO;
	}
	return KGB_EXIT_OK;
}

/*
 * The scores of one task of a stored run, from its requests rows[from..to) (all of the task):
 * what gen_run() counted as it went, counted again from the generations table.
 */
static void result_from_rows(const struct gen_run_opts *o, const struct task *t, json_t *rows,
			     size_t from, size_t to, struct gen_task_result *r)
{
	unsigned per_task = o->g.track == GEN_SAMPLE ? o->g.samples : 1;
	unsigned *first = xcalloc(per_task, sizeof(*first));
	bool final_seen = false, final_pass = false;

	memset(r, 0, sizeof(*r));
	r->task = t;
	r->n = per_task;
	r->rounds = o->g.track == GEN_EXTERNAL ? 0 : o->g.rounds;
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
		r->prompt_tokens = gen_tokens_add(r->prompt_tokens, row_tokens(row, "prompt_tokens"));
		r->completion_tokens = gen_tokens_add(r->completion_tokens,
						      row_tokens(row, "completion_tokens"));
		r->cached_tokens = gen_tokens_add(r->cached_tokens, row_tokens(row, "cached_tokens"));
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
			if (pass && o->g.track == GEN_EXTERNAL) {
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
	if (o->g.track != GEN_SAMPLE && (final_seen || o->g.track == GEN_AGENT))
		r->final_verdict = final_pass ? "pass" : "fail";
	/* What each request came to (requests and errors); the rest stays zero. */
	r->attempts = xcalloc(r->nr_attempts + 1, sizeof(*r->attempts));
	for (size_t i = from; i < to; i++) {
		json_t *row = json_array_get(rows, i);
		struct gen_attempt *a = &r->attempts[i - from];
		const char *stage = json_string_value(json_object_get(row, "stage")) ?: "";
		const char *error = json_string_value(json_object_get(row, "error"));

		a->stage = !strcmp(stage, "final") ? "final" : !strcmp(stage, "tune") ? "tune"
										    : "generate";
		snprintf(a->outcome, sizeof(a->outcome), "%s",
			 json_string_value(json_object_get(row, "outcome")) ?: "");
		a->error = error ? xstrdup(error) : NULL;
	}
	free(first);
}

/*
 * The results of stored run run_id, one per task of cat it holds requests of, in the store's
 * order: *ret (owned) and *ret_nr; *ret_unknown counts the run's tasks not in cat (left out).
 */
static int results_of_catalog(struct store *st, long long run_id, const struct catalog *cat,
			      const struct gen_run_opts *o, struct gen_task_result **ret,
			      size_t *ret_nr, size_t *ret_unknown, struct strbuf *err)
{
	struct gen_task_result *res;
	json_t *rows = NULL;
	size_t n = 0, from = 0, nrows;
	int r;

	if ((r = store_generations_get(st, run_id, &rows, err)) < 0)
		return r;
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
			result_from_rows(o, t, rows, from, k, &res[n++]);
		else
			(*ret_unknown)++;
		from = k;
	}
	json_decref(rows);
	*ret = res;
	*ret_nr = n;
	return 0;
}

/* results_of_catalog(), the tasks left out said on stderr. */
static int results_from_store(struct store *st, long long run_id, const struct catalog *cat,
			      const struct gen_run_opts *o, struct gen_task_result **ret,
			      size_t *ret_nr, struct strbuf *err)
{
	size_t unknown = 0;
	int r = results_of_catalog(st, run_id, cat, o, ret, ret_nr, &unknown, err);

	if (r == 0 && unknown)
		fprintf(stderr, "kgb: run %lld: %zu task%s not in this catalog, left out\n", run_id,
			unknown, unknown == 1 ? "" : "s");
	return r;
}

int gen_report_stored(FILE *f, struct store *st, long long run_id, const char *env_text,
		      const struct catalog *cat, bool json, struct strbuf *err)
{
	json_t *env = env_text ? json_loads(env_text, 0, NULL) : NULL;
	struct gen_run_opts o = {.track = json_string_value(json_object_get(env, "track")),
				 .api = json_string_value(json_object_get(env, "api")) ?: "openai"};
	json_t *samples = json_object_get(env, "samples"), *rounds = json_object_get(env, "rounds");
	struct gen_task_result *res = NULL;
	size_t n = 0;
	int r;

	if (!o.track || gen_resolve_names(&o) != 0 || !json_is_integer(samples) ||
	    json_integer_value(samples) < 1 || !json_is_integer(rounds) ||
	    json_integer_value(rounds) < 0 || json_integer_value(rounds) > 1000) {
		strbuf_addf(err, "run %lld: its record does not say which track, samples and "
			    "rounds it ran (env: %s)", run_id, env_text ? env_text : "none");
		json_decref(env);
		return -EPROTO;
	}
	o.g.samples = (unsigned)json_integer_value(samples);
	o.g.rounds = (unsigned)json_integer_value(rounds);
	o.ks[o.nr_ks++] = 1;
	if (o.g.samples > 1)
		o.ks[o.nr_ks++] = o.g.samples;
	r = results_from_store(st, run_id, cat, &o, &res, &n, err);
	if (r == 0)
		gen_report_print(f, &o, json, res, n, NAN);
	for (size_t k = 0; k < n; k++)
		gen_task_result_release(&res[k]);
	free(res);
	json_decref(env);
	return r;
}

int gen_report_merged(FILE *f, struct store *st, const char *store_path, const char *label,
		      const struct catalog *cat, const struct gen_run_opts *o, bool json,
		      struct strbuf *err)
{
	long long *ids = NULL;
	char **plats = NULL;
	size_t nr = 0;
	int r;

	r = store_merge_gen_runs(st, label, &ids, &plats, &nr, err);
	for (size_t i = 0; r == 0 && i < nr; i++) {
		struct gen_task_result *res = NULL;
		size_t n = 0;

		if ((r = results_from_store(st, ids[i], cat, o, &res, &n, err)) < 0)
			break;
		if (!json)
			fprintf(f, "run %lld (%s) in %s\n", ids[i], plats[i], store_path);
		gen_report_print(f, o, json, res, n, NAN);
		for (size_t k = 0; k < n; k++)
			gen_task_result_release(&res[k]);
		free(res);
	}
	free(ids);
	strv_free(plats);
	return r;
}
