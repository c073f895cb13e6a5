#include "report_runs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"
#include "util/parse.h"
#include "util/xalloc.h"
#include "verdict.h"

/* A failed candidate for an attempt that produced no code: owned strings, like the store's. */
static void no_code_eval(struct store_eval *e, const char *task, const char *source,
			 const char *sample, const char *outcome, const char *error,
			 const char *platform)
{
	memset(e, 0, sizeof(*e));
	e->task = xstrdup(task);
	e->source = xstrdup(source);
	e->sample = xstrdup(sample);
	e->verdict = xstrdup(outcome);
	e->detail = xstrdup(error ? error : "");
	e->platform = xstrdup(platform);
	/* no candidate: no hash, task version or harness (NULL) */
	e->speedup = NAN;
	e->import_ms = e->wall_ms = e->max_tol_use = NAN;
}

/* The first-round attempts of a generation run, and its totals. */
static int load_generated(struct store *s, struct report_method *m, struct strbuf *err)
{
	struct store_attempt *a = NULL;
	struct store_gen_totals tot;
	size_t n = 0;
	int r;

	if ((r = store_first_attempts(s, m->run_id, &a, &n, err)) < 0)
		return r;
	m->evals = xcalloc(n + 1, sizeof(*m->evals));
	for (size_t i = 0; i < n; i++) {
		struct store_eval *e = &m->evals[m->nr++];
		char sample[32];

		snprintf(sample, sizeof(sample), "s%lld", a[i].sample);
		if (a[i].eval_key && store_eval_get(s, a[i].eval_key, e, err) == 0) {
			free(e->sample);
			e->sample = xstrdup(sample);
		} else {
			strbuf_reset(err);
			no_code_eval(e, a[i].task ? a[i].task : "?", a[i].source ? a[i].source : "?",
				     sample, a[i].outcome, a[i].error, m->platform);
		}
	}
	store_attempts_free(a, n);
	if ((r = store_generation_totals(s, m->run_id, &tot, err)) < 0)
		return r;
	m->tokens = tot.tokens;
	m->cost_usd = tot.cost_usd;
	m->time_ms = tot.time_ms;
	m->tasks = tot.tasks;
	m->solved = tot.solved;
	if (!m->model)
		m->model = tot.model;
	else
		free(tot.model);
	if (!m->track)
		m->track = tot.track;
	else
		free(tot.track);
	return 0;
}

/* A method run's label (kgb eval --method, docs/methods.md): "<method> (<package> <version>)". */
static char *method_label(json_t *envj)
{
	json_t *mj = json_object_get(envj, "method");
	const char *name = json_string_value(json_object_get(mj, "name"));
	struct strbuf l = STRBUF_INIT;

	if (!name)
		return NULL;
	strbuf_addf(&l, "%s (%s %s)", name,
		    json_string_value(json_object_get(mj, "package")) ?: "?",
		    json_string_value(json_object_get(mj, "version")) ?: "?");
	return strbuf_detach(&l, NULL);
}

int report_method_load_run(const char *path, long long run_id, struct report_method *m,
			   struct strbuf *err)
{
	struct store *s = NULL;
	char *platform = NULL, *env = NULL;
	json_t *envj = NULL;
	int r;

	memset(m, 0, sizeof(*m));
	m->store_path = xstrdup(path);
	m->tokens = -1;
	m->cost_usd = NAN;
	m->time_ms = NAN;
	if (access(path, R_OK) < 0) {
		strbuf_addf(err, "cannot read store '%s': %s", path, strerror(errno));
		return -ENOENT;
	}
	if ((r = store_open(path, &s, err)) < 0)
		return r;
	m->run_id = run_id;
	r = store_run_info(s, &m->run_id, &platform, &env, err);
	if (r == -ENOENT) {
		if (run_id > 0)
			strbuf_addf(err, "store '%s' has no run %lld", path, run_id);
		else
			strbuf_addf(err, "store '%s' has no run", path);
		goto out;
	}
	if (r < 0)
		goto out;
	envj = env ? json_loads(env, 0, NULL) : NULL;
	{
		const char *prof = json_string_value(
			json_object_get(json_object_get(envj, "profile"), "name"));
		const char *model = json_string_value(json_object_get(envj, "model"));
		const char *track = json_string_value(json_object_get(envj, "track"));

		m->platform = xstrdup(prof ? prof : platform ? platform : "?");
		m->model = model ? xstrdup(model) : NULL;
		m->track = track ? xstrdup(track) : NULL;
	}
	r = store_run_row(s, m->run_id, &m->started_at, &m->command, &m->harness, err);
	if (r < 0)
		goto out;
	m->generated = m->harness && !strcmp(m->harness, "generate");
	if (m->generated) {
		r = load_generated(s, m, err);
		if (r < 0)
			goto out;
		m->reused = xcalloc(m->nr + 1, sizeof(*m->reused));
	} else {
		bool shipped = true;

		r = store_run_evals(s, m->run_id, &m->evals, &m->nr, &m->reused, err);
		if (r < 0)
			goto out;
		m->time_ms = 0;
		for (size_t i = 0; i < m->nr; i++) {
			shipped = shipped && m->evals[i].sample &&
				  !strcmp(m->evals[i].sample, "shipped");
			if (isfinite(m->evals[i].wall_ms))
				m->time_ms += m->evals[i].wall_ms;
			if ((!i || strcmp(m->evals[i].task, m->evals[i - 1].task) ||
			     strcmp(m->evals[i].source, m->evals[i - 1].source))) {
				size_t first, n = report_method_find(m, m->evals[i].source,
								     m->evals[i].task, &first);

				m->tasks++;
				for (size_t k = first; k < first + n; k++)
					if (verdict_is_pass(m->evals[k].verdict)) {
						m->solved++;
						break;
					}
			}
		}
		m->label = method_label(envj);
		if (!m->label)
			m->label = xstrdup(m->nr && shipped ? "shipped" : "solutions");
	}
	if (m->generated) {
		struct strbuf l = STRBUF_INIT;

		strbuf_addf(&l, "%s (%s)", m->model ? m->model : "?", m->track ? m->track : "?");
		m->label = strbuf_detach(&l, NULL);
	}
	m->sol = xcalloc(m->nr + 1, sizeof(*m->sol));
	for (size_t i = 0; i < m->nr; i++) {
		m->sol[i] = NAN;
		if (!m->evals[i].key[0])
			continue;
		if ((r = store_eval_sol(s, m->evals[i].key, &m->sol[i], err)) < 0)
			goto out;
	}
	r = 0;
	m->rr = (struct report_run){.platform = m->platform, .run_id = m->run_id,
				    .store_path = m->store_path, .evals = m->evals,
				    .reused = m->reused, .nr = m->nr, .sol = m->sol};
out:
	json_decref(envj);
	free(platform);
	free(env);
	store_free(s);
	return r;
}

int report_method_load(const char *arg, struct report_method *m, struct strbuf *err)
{
	char *path = xstrdup(arg), *colon = strrchr(path, ':');
	long long run = 0;
	int r;

	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
		long v;

		if (parse_long(colon + 1, &v) < 0 || v <= 0) {
			strbuf_addf(err, "'%s': expected STORE or STORE:RUN with a run number",
				    arg);
			free(path);
			memset(m, 0, sizeof(*m));
			return -EINVAL;
		}
		*colon = '\0';
		run = v;
	}
	r = report_method_load_run(path, run, m, err);
	free(path);
	return r;
}

void report_method_release(struct report_method *m)
{
	for (size_t i = 0; i < m->nr; i++)
		store_eval_release(&m->evals[i]);
	free(m->evals);
	free(m->reused);
	free(m->sol);
	free(m->label);
	free(m->store_path);
	free(m->platform);
	free(m->started_at);
	free(m->command);
	free(m->harness);
	free(m->model);
	free(m->track);
	memset(m, 0, sizeof(*m));
}

void report_methods_disambiguate(struct report_method *m, size_t n)
{
	bool *dup = xcalloc(n + 1, sizeof(*dup));

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (!strcmp(m[i].label, m[j].label))
				dup[i] = dup[j] = true;
	for (size_t i = 0; i < n; i++) {
		struct strbuf l = STRBUF_INIT;
		const char *base = strrchr(m[i].store_path, '/');

		if (!dup[i])
			continue;
		strbuf_addf(&l, "%s (%s:%lld)", m[i].label, base ? base + 1 : m[i].store_path,
			    m[i].run_id);
		free(m[i].label);
		m[i].label = strbuf_detach(&l, NULL);
	}
	free(dup);
}

size_t report_method_find(const struct report_method *m, const char *source, const char *task,
			  size_t *ret_first)
{
	for (size_t i = 0; i < m->nr; i++) {
		size_t n = 0;

		if (strcmp(m->evals[i].task, task) || strcmp(m->evals[i].source, source))
			continue;
		while (i + n < m->nr && !strcmp(m->evals[i + n].task, task) &&
		       !strcmp(m->evals[i + n].source, source))
			n++;
		*ret_first = i;
		return n;
	}
	*ret_first = 0;
	return 0;
}

int report_runs_cases(const char *path, const char *eval_key, json_t **ret, struct strbuf *err)
{
	struct store *s = NULL;
	int r;

	if ((r = store_open_readonly(path, &s, err)) < 0)
		return r;
	r = store_eval_cases(s, eval_key, ret, err);
	store_free(s);
	return r;
}

const char *report_runs_change_name(enum report_change c)
{
	switch (c) {
	case REPORT_BETTER:
		return "better";
	case REPORT_WORSE:
		return "worse";
	case REPORT_ABSENT:
		return "absent";
	default:
		return "same";
	}
}

void report_runs_wilson(size_t pass, size_t n, double *lo, double *hi)
{
	const double z = 1.959963984540054;
	double p, d, c, h;

	if (!n) {
		*lo = 0, *hi = 1;
		return;
	}
	p = (double)pass / (double)n;
	d = 1 + z * z / (double)n;
	c = (p + z * z / (2.0 * (double)n)) / d;
	h = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;
	*lo = fmax(0, c - h);
	*hi = fmin(1, c + h);
}

int report_runs_side(const struct report_method *m, const char *source, const char *task,
		     struct report_side *ret_side, struct strbuf *err)
{
	size_t first, n = report_method_find(m, source, task, &first);
	struct report_side side = {.n = n, .speedup = NAN, .ci_lo = NAN, .ci_hi = NAN};
	const struct store_eval *best = NULL;

	for (size_t k = first; k < first + n; k++) {
		const struct store_eval *e = &m->evals[k];

		if (!verdict_is_pass(e->verdict))
			continue;
		side.pass++;
		if (isfinite(e->speedup) && (!best || e->speedup > best->speedup))
			best = e;
	}
	if (best) {
		json_t *rows, *row;
		double *sp;
		size_t i, nsp = 0;

		side.speedup = best->speedup;
		if (report_runs_cases(m->store_path, best->key, &rows, err) < 0)
			return -EIO;
		sp = xcalloc(json_array_size(rows) + 1, sizeof(*sp));
		json_array_foreach(rows, i, row) {
			json_t *v = json_object_get(row, "speedup");

			if (json_integer_value(json_object_get(row, "timed")) && json_is_number(v))
				sp[nsp++] = json_number_value(v);
		}
		stats_geomean_ci(sp, nsp, 0.95, &side.ci_lo, &side.ci_hi);
		free(sp);
		json_decref(rows);
	}
	*ret_side = side;
	return 0;
}

void report_runs_delta(const struct report_side *a, const struct report_side *b,
		       struct report_delta *ret)
{
	double fa, fb;

	*ret = (struct report_delta){.change = REPORT_SAME, .significant = false, .what = ""};
	if (!a->n || !b->n) {
		ret->change = REPORT_ABSENT;
		return;
	}
	fa = (double)a->pass / (double)a->n;
	fb = (double)b->pass / (double)b->n;
	if (fa != fb) {
		ret->change = fb > fa ? REPORT_BETTER : REPORT_WORSE;
		if (a->n == 1 && b->n == 1) {
			ret->what = "verdict";
			ret->significant = true;
		} else {
			double alo, ahi, blo, bhi;

			ret->what = "pass rate";
			report_runs_wilson(a->pass, a->n, &alo, &ahi);
			report_runs_wilson(b->pass, b->n, &blo, &bhi);
			ret->significant = alo > bhi || blo > ahi;
		}
		return;
	}
	if (isfinite(a->speedup) && isfinite(b->speedup) && a->speedup != b->speedup) {
		ret->what = "speedup";
		ret->change = b->speedup > a->speedup ? REPORT_BETTER : REPORT_WORSE;
		ret->significant = isfinite(a->ci_lo) && isfinite(b->ci_lo) &&
				   (a->ci_lo > b->ci_hi || b->ci_lo > a->ci_hi);
	}
}
