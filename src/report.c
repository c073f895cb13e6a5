#include "report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"
#include "catalog.h"
#include "escape.h"
#include "eval.h"
#include "platform.h"
#include "stats.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "verdict.h"

/* A short "case 12 (shape=[71] dtype=float16): max_abs_err 0.31" from a first_failure JSON. */
static void failure_note(const struct store_eval *e, struct strbuf *out)
{
	json_t *ff = e->first_failure ? json_loads(e->first_failure, 0, NULL) : NULL;

	if (ff) {
		json_t *err = json_object_get(ff, "max_abs_err");
		char *axes = cases_axes_summary(json_object_get(ff, "axes"));

		strbuf_addf(out, "case %lld %s (%s)",
			    (long long)json_integer_value(json_object_get(ff, "case")),
			    json_string_value(json_object_get(ff, "entry")), axes);
		if (json_is_number(err))
			strbuf_addf(out, " max_abs_err %.3g", json_number_value(err));
		free(axes);
		json_decref(ff);
	}
	if (e->detail && *e->detail) {
		const char *d = e->detail;
		size_t n = strcspn(d, "\n");

		if (ff)
			strbuf_addstr(out, ": ");
		/* the case prefix is already in the note */
		if (ff && !strncmp(d, "case ", 5) && strchr(d, ':'))
			d = strchr(d, ':') + 2, n = strcspn(d, "\n");
		strbuf_addf(out, "%.*s", (int)(n > 160 ? 160 : n), d);
	}
}

struct source_count {
	size_t pass, total;
};

static void count_sources(const struct report_run *r, struct source_count *by, size_t *ret_pass)
{
	size_t pass = 0;

	for (size_t i = 0; i < r->nr; i++) {
		const struct store_eval *e = &r->evals[i];
		bool ok = verdict_is_pass(e->verdict);

		pass += ok;
		for (int s = 0; catalog_sources[s]; s++) {
			if (strcmp(catalog_sources[s], e->source))
				continue;
			by[s].total++;
			by[s].pass += ok;
		}
	}
	*ret_pass = pass;
}

const double report_fast_p[REPORT_FAST_P_N] = {0.8, 1.0, 1.5};

const size_t report_pass_at_ks[3] = {1, 5, 10};
#define pass_at_ks report_pass_at_ks

static void pass_at_k(const struct report_run *r, const char *source, struct report_metrics *m)
{
	double sum[3] = {0};

	for (size_t i = 0; i < r->nr;) {
		size_t j = i, n = 0, c = 0;

		/* Evaluations come in task order: one group per task. */
		while (j < r->nr && !strcmp(r->evals[j].task, r->evals[i].task) &&
		       !strcmp(r->evals[j].source, r->evals[i].source)) {
			n++;
			c += verdict_is_pass(r->evals[j].verdict);
			j++;
		}
		if (!source || !strcmp(source, r->evals[i].source)) {
			m->ntasks++;
			m->multi += n > 1;
			for (int k = 0; k < 3; k++)
				if (n >= pass_at_ks[k]) {
					sum[k] += stats_pass_at_k(n, c, pass_at_ks[k]);
					m->pass_at_tasks[k]++;
				}
		}
		i = j;
	}
	for (int k = 0; k < 3; k++)
		m->pass_at[k] = m->pass_at_tasks[k] ? sum[k] / (double)m->pass_at_tasks[k] : NAN;
}

void report_compute_metrics(const struct report_run *r, const char *source,
			    struct report_metrics *m)
{
	double *sp = xcalloc(r->nr + 1, sizeof(*sp)), *tsp = xcalloc(r->nr + 1, sizeof(*tsp));
	double *sol = xcalloc(r->nr + 1, sizeof(*sol));
	bool *tpass = xcalloc(r->nr + 1, sizeof(*tpass));

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < r->nr; i++) {
		const struct store_eval *e = &r->evals[i];
		bool ok = verdict_is_pass(e->verdict);

		if (source && strcmp(source, e->source))
			continue;
		m->total++;
		m->pass += ok;
		if (ok && !isnan(e->speedup) && e->speedup > 0)
			sp[m->nsp++] = e->speedup;
		if (e->timed_cases > 0) {
			tsp[m->ntimed] = e->speedup;
			tpass[m->ntimed++] = ok && !isnan(e->speedup);
		}
		if (ok && r->sol && !isnan(r->sol[i]))
			sol[m->nsol++] = r->sol[i];
	}
	m->geomean = stats_geomean(sp, m->nsp);
	stats_geomean_ci(sp, m->nsp, 0.95, &m->ci_lo, &m->ci_hi);
	for (int k = 0; k < REPORT_FAST_P_N; k++)
		m->fast_p[k] = stats_fast_p(tsp, tpass, m->ntimed, report_fast_p[k]);
	m->sol_median = stats_median(sol, m->nsol);
	pass_at_k(r, source, m);
	free(sp);
	free(tsp);
	free(sol);
	free(tpass);
}

/* The run's timing method: a non-default one is a suffix of its harness (eval.c). */
static const char *timing_method(const struct report_run *r)
{
	for (size_t i = 0; i < r->nr; i++)
		if (r->evals[i].harness && strstr(r->evals[i].harness, "+cuda_graph"))
			return "cuda_graph";
	return "events";
}

void report_eval_table(FILE *f, const struct report_run *r)
{
	struct source_count by[4] = {0};
	size_t pass, nreused = 0;
	bool timed = platform_times(r->platform);
	struct report_metrics m;
	long long cases_skipped = 0;

	fprintf(f, "%-28s %-12s %-14s %-11s %-8s %s\n", "TASK", "SAMPLE", "VERDICT", "CASES",
		"SPEEDUP", "NOTE");
	for (size_t i = 0; i < r->nr; i++) {
		const struct store_eval *e = &r->evals[i];
		struct strbuf name = STRBUF_INIT, cases = STRBUF_INIT, note = STRBUF_INIT;
		struct strbuf sample = STRBUF_INIT, safe_note = STRBUF_INIT;
		char sp[32];

		strbuf_addf(&name, "%s/%s", e->source, e->task);
		strbuf_addf(&cases, "%lld/%lld", e->cases_passed, e->cases_total);
		if (e->cases_skipped)
			strbuf_addf(&cases, " +%lld", e->cases_skipped);
		cases_skipped += e->cases_skipped;
		if (!timed)
			snprintf(sp, sizeof(sp), "n/a");
		else if (isnan(e->speedup) || !verdict_is_pass(e->verdict))
			snprintf(sp, sizeof(sp), "-");
		else
			snprintf(sp, sizeof(sp), "%.2fx", e->speedup);
		if (!verdict_is_pass(e->verdict))
			failure_note(e, &note);
		if (!verdict_is_pass(e->verdict) && r->entries && r->entries[i] &&
		    json_object_size(r->entries[i]) > 1) {
			const char *en;
			json_t *ev;
			bool first = true;

			/* Which overloads fail, when the candidate got as far as running them. */
			json_object_foreach(r->entries[i], en, ev) {
				if (json_integer_value(json_object_get(ev, "passed")) ==
				    json_integer_value(json_object_get(ev, "total")))
					continue;
				strbuf_addstr(&note, first ? " [failing: " : ", ");
				strbuf_addstr(&note, en);
				first = false;
			}
			if (!first)
				strbuf_addch(&note, ']');
		}
		if (r->reused[i]) {
			nreused++;
			strbuf_addstr(&note, note.len ? " [stored]" : "[stored]");
		}
		/* The sample is a file name and the note a candidate's message (escape.h). */
		escape_text(&sample, e->sample ? e->sample : "-");
		escape_text(&safe_note, note.buf);
		fprintf(f, "%-28s %-12s %-14s %-11s %-8s %s\n", name.buf, sample.buf, e->verdict,
			cases.buf, sp, safe_note.buf);
		strbuf_release(&sample);
		strbuf_release(&safe_note);
		strbuf_release(&name);
		strbuf_release(&cases);
		strbuf_release(&note);
	}
	count_sources(r, by, &pass);
	fprintf(f, "\npass rate: %zu/%zu (%.1f%%)", pass, r->nr, 100 * stats_rate(pass, r->nr));
	for (int s = 0; catalog_sources[s]; s++)
		if (by[s].total)
			fprintf(f, "  %s %zu/%zu (%.1f%%)", catalog_sources[s], by[s].pass, by[s].total,
				100 * stats_rate(by[s].pass, by[s].total));
	fputc('\n', f);
	report_compute_metrics(r, NULL, &m);
	if (m.multi)
		for (int k = 0; k < 3; k++)
			if (m.pass_at_tasks[k])
				fprintf(f, "%spass@%zu %.3f (%zu tasks)%s", k ? "  " : "pass@k: ",
					pass_at_ks[k], m.pass_at[k], m.pass_at_tasks[k],
					k == 2 || !m.pass_at_tasks[k + 1] ? "\n" : "");
	if (!timed)
		fprintf(f, "speedup: n/a on platform '%s' (correctness only)\n", r->platform);
	else if (!m.nsp)
		fprintf(f, "speedup: no timed passing candidates\n");
	else {
		fprintf(f, "speedup: geometric mean %.3fx", m.geomean);
		if (!isnan(m.ci_lo))
			fprintf(f, " (95%% CI %.3f-%.3f)", m.ci_lo, m.ci_hi);
		fprintf(f, " over %zu passing timed candidates (timing: %s)\n", m.nsp,
			timing_method(r));
		for (int s = 0; catalog_sources[s]; s++)
			if (by[s].total)
				fprintf(f, "baseline of %s: %s\n", catalog_sources[s],
					catalog_source_baseline(catalog_sources[s]));
		fprintf(f, "fast_p:");
		for (int k = 0; k < REPORT_FAST_P_N; k++)
			fprintf(f, " fast_%.1f %.1f%%", report_fast_p[k], 100 * m.fast_p[k]);
		fprintf(f, " of %zu candidates with timed cases\n", m.ntimed);
		if (m.nsol)
			fprintf(f, "speed-of-light: median %.2f of the device's ceilings over %zu "
				   "passing timed candidates\n",
				m.sol_median, m.nsol);
	}
	fprintf(f, "platform %s, run %lld, store %s: %zu evaluated, %zu reused from the store",
		r->platform, r->run_id, r->store_path, r->nr - nreused, nreused);
	if (r->skipped)
		fprintf(f, ", %zu tasks without a candidate", r->skipped);
	fputc('\n', f);
	if (cases_skipped)
		fprintf(f, "%lld cases not run: the platform cannot judge them (\"+N\" in CASES; "
			   "the candidate's detail says why), not failures\n",
			cases_skipped);
}

static json_t *real_or_null(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

/* The fields metrics add to a summary object (kgb.summary.v1 and each of its by_source). */
static void metrics_json(json_t *o, const struct report_metrics *m)
{
	json_t *fast = json_object(), *pk = json_object();
	char key[16];

	for (int k = 0; k < REPORT_FAST_P_N; k++) {
		snprintf(key, sizeof(key), "%.1f", report_fast_p[k]);
		json_object_set_new(fast, key, real_or_null(m->fast_p[k]));
	}
	for (int k = 0; k < 3; k++)
		if (m->pass_at_tasks[k]) {
			snprintf(key, sizeof(key), "%zu", pass_at_ks[k]);
			json_object_set_new(pk, key,
					    json_pack("{s:o, s:I}", "value",
						      real_or_null(m->pass_at[k]), "tasks",
						      (json_int_t)m->pass_at_tasks[k]));
		}
	json_object_set_new(o, "geomean_speedup", real_or_null(m->geomean));
	json_object_set_new(o, "geomean_speedup_ci95",
			    isnan(m->ci_lo) ? json_null()
					    : json_pack("[f, f]", m->ci_lo, m->ci_hi));
	json_object_set_new(o, "speedup_candidates", json_integer((json_int_t)m->nsp));
	json_object_set_new(o, "fast_p", fast);
	json_object_set_new(o, "fast_p_candidates", json_integer((json_int_t)m->ntimed));
	json_object_set_new(o, "sol_fraction_median", real_or_null(m->sol_median));
	json_object_set_new(o, "pass_at_k", pk);
}

void report_eval_json(FILE *f, const struct report_run *r)
{
	struct source_count by[4] = {0};
	size_t pass, nreused = 0;
	struct report_metrics m;
	json_t *sum, *bys = json_object();
	long long cases_skipped = 0;
	char *s;

	for (size_t i = 0; i < r->nr; i++) {
		const struct store_eval *e = &r->evals[i];
		json_t *ff = e->first_failure ? json_loads(e->first_failure, 0, NULL) : NULL;
		/* A candidate's file name, path and messages: no raw control characters (escape.h). */
		char *sample = escape_text_dup(e->sample), *detail = escape_text_dup(e->detail),
		     *cand = escape_text_dup(e->candidate_path);
		json_t *o;

		escape_json_strings(ff); /* its message is the worker's */
		o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:s, s:s, "
			      "s:s, s:b}",
			      "schema", "kgb.eval.v1", "task", e->task, "source", e->source, "sample",
			      sample, "verdict", e->verdict, "detail", detail, "cases_total",
			      (json_int_t)e->cases_total, "cases_passed", (json_int_t)e->cases_passed,
			      "timed_cases", (json_int_t)e->timed_cases, "speedup",
			      real_or_null(e->speedup), "max_tol_use", real_or_null(e->max_tol_use),
			      "first_failure", ff ? ff : json_null(), "platform", e->platform, "key",
			      e->key, "candidate", cand, "reused", r->reused[i]);

		nreused += r->reused[i];
		cases_skipped += e->cases_skipped;
		json_object_set_new(o, "cases_skipped", json_integer(e->cases_skipped));
		json_object_set_new(o, "sol_fraction", real_or_null(r->sol ? r->sol[i] : NAN));
		json_object_set_new(o, "wall_ms", real_or_null(e->wall_ms));
		json_object_set_new(o, "baseline", json_string(catalog_source_baseline(e->source)));
		json_object_set(o, "entries",
				r->entries && r->entries[i] ? r->entries[i] : json_null());
		s = json_dumps(o, JSON_COMPACT);
		fprintf(f, "%s\n", s);
		free(s);
		json_decref(o);
		free(sample);
		free(detail);
		free(cand);
	}
	count_sources(r, by, &pass);
	for (int k = 0; catalog_sources[k]; k++)
		if (by[k].total) {
			json_t *so = json_pack("{s:I, s:I, s:o}", "pass", (json_int_t)by[k].pass,
					       "total", (json_int_t)by[k].total, "pass_rate",
					       real_or_null(stats_rate(by[k].pass, by[k].total)));

			report_compute_metrics(r, catalog_sources[k], &m);
			metrics_json(so, &m);
			json_object_set_new(so, "baseline",
					    json_string(catalog_source_baseline(catalog_sources[k])));
			json_object_set_new(bys, catalog_sources[k], so);
		}
	sum = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:I}", "schema",
			"kgb.summary.v1", "platform", r->platform, "run_id", (json_int_t)r->run_id,
			"total", (json_int_t)r->nr, "pass", (json_int_t)pass, "evaluated",
			(json_int_t)(r->nr - nreused), "reused", (json_int_t)nreused, "pass_rate",
			real_or_null(stats_rate(pass, r->nr)), "by_source", bys,
			"geomean_speedup", json_null(), "skipped", (json_int_t)r->skipped);
	report_compute_metrics(r, NULL, &m);
	metrics_json(sum, &m);
	json_object_set_new(sum, "timing_method", json_string(timing_method(r)));
	json_object_set_new(sum, "cases_skipped", json_integer(cases_skipped));
	if (r->sandbox)
		json_object_set(sum, "sandbox", r->sandbox);
	s = json_dumps(sum, JSON_COMPACT);
	fprintf(f, "%s\n", s);
	free(s);
	json_decref(sum);
}

int report_from_store(FILE *f, struct store *s, long long run_id, const char *platform,
		      const char *store_path, size_t skipped, json_t *sandbox, bool json,
		      size_t *ret_failed, struct strbuf *err)
{
	struct store_eval *evals = NULL;
	bool *reused = NULL;
	json_t **entries = NULL;
	double *sol = NULL;
	size_t nr = 0, failed = 0;
	int r = store_run_evals(s, run_id, &evals, &nr, &reused, err);

	if (r < 0)
		return r;
	entries = xcalloc(nr + 1, sizeof(*entries));
	sol = xcalloc(nr + 1, sizeof(*sol));
	for (size_t i = 0; i < nr && r == 0; i++) {
		r = store_eval_entries(s, evals[i].key, &entries[i], err);
		if (r == 0)
			r = store_eval_sol(s, evals[i].key, &sol[i], err);
		failed += !verdict_is_pass(evals[i].verdict);
	}
	if (r == 0) {
		struct report_run rr = {.platform = platform, .run_id = run_id,
					.store_path = store_path, .evals = evals, .reused = reused,
					.nr = nr, .skipped = skipped, .entries = entries,
					.sandbox = sandbox, .sol = sol};

		if (json)
			report_eval_json(f, &rr);
		else
			report_eval_table(f, &rr);
		if (ret_failed)
			*ret_failed = failed;
	}
	for (size_t i = 0; i < nr; i++) {
		json_decref(entries[i]);
		store_eval_release(&evals[i]);
	}
	free(entries);
	free(sol);
	free(evals);
	free(reused);
	return r;
}

bool report_progress_live(int verbose)
{
	const char *ci = getenv("CI");

	return verbose >= 0 && isatty(STDERR_FILENO) && !(ci && *ci);
}

bool report_progress_color(void)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(STDERR_FILENO) && !(nc && *nc);
}

static void add_duration(struct strbuf *sb, double s)
{
	long t = s > 0 && isfinite(s) ? (long)(s + 0.5) : 0;

	if (t >= 3600)
		strbuf_addf(sb, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		strbuf_addf(sb, "%ldm%02lds", t / 60, t % 60);
	else
		strbuf_addf(sb, "%lds", t);
}

void report_progress_bar(struct strbuf *sb, size_t done, size_t total, double elapsed_s,
			 int width, bool color)
{
	double frac = total ? (double)(done > total ? total : done) / (double)total : 0;
	int full = (int)(frac * width + 1e-9);

	strbuf_addch(sb, '[');
	if (color)
		strbuf_addstr(sb, "\033[32m");
	for (int i = 0; i < width; i++)
		strbuf_addch(sb, i < full ? '=' : i == full && done < total ? '>' : ' ');
	if (color)
		strbuf_addstr(sb, "\033[0m");
	strbuf_addf(sb, "] %zu/%zu %3.0f%%  +", done, total, 100 * frac);
	add_duration(sb, elapsed_s);
	if (done && done < total) {
		strbuf_addstr(sb, "  ETA ");
		add_duration(sb, elapsed_s / (double)done * (double)(total - done));
	}
}

void report_progress_clear(int verbose)
{
	if (report_progress_live(verbose))
		fputs("\r\033[K", stderr);
}

void report_progress_draw(size_t done, size_t total, double elapsed_s, int verbose)
{
	struct strbuf sb = STRBUF_INIT;

	if (!report_progress_live(verbose) || done >= total)
		return;
	report_progress_bar(&sb, done, total, elapsed_s, 30, report_progress_color());
	fputs(sb.buf, stderr);
	fflush(stderr);
	strbuf_release(&sb);
}

static bool progress_lines(int verbose)
{
	return verbose > 0 || (verbose == 0 && isatty(STDERR_FILENO));
}

void report_eval_event(void *verbose_ptr, const struct eval_event *ev)
{
	int verbose = *(const int *)verbose_ptr;

	report_progress_clear(verbose);
	if (progress_lines(verbose) && ev->checked_only)
		fprintf(stderr, "[%zu/%zu +%.0fs] %s/%s %s: checked, %zu cases to time\n", ev->done,
			ev->total, ev->elapsed_s, ev->task->source, ev->task->op, ev->sample_shown,
			ev->cases_to_time);
	else if (progress_lines(verbose))
		fprintf(stderr, "[%s%zu/%zu +%.0fs] %s/%s %s: %s (%zu/%zu cases, %.1f s)\n",
			ev->timing_phase ? "timed " : "", ev->done, ev->total, ev->elapsed_s,
			ev->task->source, ev->task->op, ev->sample_shown, ev->verdict,
			ev->cases_passed, ev->cases_total, ev->wall_ms / 1e3);
	report_progress_draw(ev->done, ev->total, ev->elapsed_s, verbose);
	if (verbose > 1 && *ev->stderr_tail && !ev->checked_only) {
		/* Line by line, each escaped: the worker wrote it (escape.h). */
		struct strbuf tail = STRBUF_INIT, line = STRBUF_INIT;

		for (const char *l = ev->stderr_tail; *l;) {
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
}

void report_eval_reused(void *verbose_ptr, const struct task *t, const char *sample_shown,
			const char *verdict, long long passed, long long total)
{
	if (*(const int *)verbose_ptr > 0)
		fprintf(stderr, "[stored] %s/%s %s: %s (%lld/%lld cases)\n", t->source, t->op,
			sample_shown, verdict, passed, total);
}
