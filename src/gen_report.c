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
	print_json(f, o);
	json_decref(o);
}

/* One task's row of the table. */
static void print_task_row(FILE *f, const struct gen_task_result *r)
{
	char cost_s[32], tok_s[32], note[96] = "";
	long long tok = gen_tokens_add(r->prompt_tokens, r->completion_tokens);

	if (isfinite(r->cost_usd))
		snprintf(cost_s, sizeof(cost_s), "$%.4f", r->cost_usd);
	else
		snprintf(cost_s, sizeof(cost_s), "unknown");
	if (r->final_verdict)
		snprintf(note, sizeof(note), "held-out: %s", r->final_verdict);
	if (isfinite(r->best_speedup))
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "%sbest speedup %.2fx",
			 *note ? ", " : "", r->best_speedup);
	if (tok < 0)
		snprintf(tok_s, sizeof(tok_s), "unknown");
	else
		snprintf(tok_s, sizeof(tok_s), "%lld", tok);
	fprintf(f, "%-28s %-8u %-7u %-7.3f %-9s %-11s %s\n", r->task->op, r->n,
		r->solved_by_round[r->rounds], task_pass_at_k(r, 1), tok_s, cost_s, note);
}

/* The run's kgb.generate.summary.v1 line, over n tasks. */
static void print_summary_json(FILE *f, const struct gen_run_opts *o, const struct totals *t,
			       size_t n, double wall_s)
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
	print_json(f, sum);
	json_decref(sum);
}

/* The run's totals under the table, over n tasks. */
static void print_summary_text(FILE *f, const struct gen_run_opts *o, const struct totals *t,
			       size_t n, double wall_s)
{
	fprintf(f, "\nsolved: %zu/%zu tasks", t->solved, n);
	for (size_t j = 0; j < o->nr_ks; j++)
		if (t->tasks_k[j])
			fprintf(f, "  pass@%u %.3f", o->ks[j], t->sum_k[j] / (double)t->tasks_k[j]);
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
	if (!json)
		fprintf(f, "%-28s %-8s %-7s %-7s %-9s %-11s %s\n", "TASK", "SAMPLES", "SOLVED",
			"PASS@1", "TOKENS", "COST", "NOTE");
	for (size_t i = 0; i < n; i++) {
		totals_add(&t, o, &res[i]);
		if (json)
			print_task_json(f, o, &res[i]);
		else
			print_task_row(f, &res[i]);
	}
	if (json)
		print_summary_json(f, o, &t, n, wall_s);
	else
		print_summary_text(f, o, &t, n, wall_s);
	free(t.within);
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
	/* Zeroed attempts: only their number counts (the totals); release frees nothing. */
	r->attempts = xcalloc(r->nr_attempts + 1, sizeof(*r->attempts));
	free(first);
}

/*
 * The results of stored run run_id, one per task of cat it holds requests of, in the store's
 * order: *ret (owned) and *ret_nr.
 */
static int results_from_store(struct store *st, long long run_id, const struct catalog *cat,
			      const struct gen_run_opts *o, struct gen_task_result **ret,
			      size_t *ret_nr, struct strbuf *err)
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
		from = k;
	}
	json_decref(rows);
	*ret = res;
	*ret_nr = n;
	return 0;
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
