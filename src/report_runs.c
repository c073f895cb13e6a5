#include "report_runs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"
#include "util/parse.h"
#include "util/xalloc.h"

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? xstrdup((const char *)t) : NULL;
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int db_fail(sqlite3 *db, const char *what, struct strbuf *err)
{
	strbuf_addf(err, "%s: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

/* The run row's metadata, read-only (the store module has no query for it). */
static int load_run_row(sqlite3 *db, struct report_method *m, struct strbuf *err)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(db, "SELECT started_at, command, harness FROM runs WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "reading the run", err);
	sqlite3_bind_int64(st, 1, m->run_id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		m->started_at = col_dup(st, 0);
		m->command = col_dup(st, 1);
		m->harness = col_dup(st, 2);
	}
	sqlite3_finalize(st);
	return r == SQLITE_ROW || r == SQLITE_DONE ? 0 : db_fail(db, "reading the run", err);
}

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
static int load_generated(sqlite3 *db, struct store *s, struct report_method *m,
			  struct strbuf *err)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int r;

	if (sqlite3_prepare_v2(db,
			       "SELECT task, source, sample, outcome, error, eval_key"
			       " FROM generations"
			       " WHERE run_id = ? AND round = 0 AND stage = 'generate'"
			       " ORDER BY source, task, sample",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "reading the generations", err);
	sqlite3_bind_int64(st, 1, m->run_id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *task = (const char *)sqlite3_column_text(st, 0);
		const char *source = (const char *)sqlite3_column_text(st, 1);
		const char *key = (const char *)sqlite3_column_text(st, 5);
		char sample[32];
		struct store_eval *e;

		if (m->nr == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			m->evals = xrealloc(m->evals, alloc * sizeof(*m->evals));
		}
		e = &m->evals[m->nr];
		snprintf(sample, sizeof(sample), "s%lld", (long long)sqlite3_column_int64(st, 2));
		if (key && store_eval_get(s, key, e, err) == 0) {
			free(e->sample);
			e->sample = xstrdup(sample);
		} else {
			strbuf_reset(err);
			no_code_eval(e, task ? task : "?", source ? source : "?", sample,
				     (const char *)sqlite3_column_text(st, 3),
				     (const char *)sqlite3_column_text(st, 4), m->platform);
		}
		m->nr++;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return db_fail(db, "reading the generations", err);
	if (sqlite3_prepare_v2(db,
			       "SELECT SUM(COALESCE(prompt_tokens, 0)"
			       " + COALESCE(completion_tokens, 0)),"
			       " SUM(cost_usd), COUNT(cost_usd), COUNT(*),"
			       " SUM(COALESCE(latency_ms, 0) + COALESCE(eval_ms, 0)),"
			       " COUNT(DISTINCT source || '/' || task),"
			       " COUNT(DISTINCT CASE WHEN outcome = 'pass'"
			       "  THEN source || '/' || task END),"
			       " MAX(model), MAX(track)"
			       " FROM generations WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "reading the generations", err);
	sqlite3_bind_int64(st, 1, m->run_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		m->tokens = sqlite3_column_int64(st, 0);
		/* A cost is known only when every request has one. */
		m->cost_usd = sqlite3_column_int64(st, 2) == sqlite3_column_int64(st, 3) &&
				      sqlite3_column_int64(st, 3) > 0
			              ? sqlite3_column_double(st, 1)
			              : NAN;
		m->time_ms = col_real(st, 4);
		m->tasks = (size_t)sqlite3_column_int64(st, 5);
		m->solved = (size_t)sqlite3_column_int64(st, 6);
		if (!m->model)
			m->model = col_dup(st, 7);
		if (!m->track)
			m->track = col_dup(st, 8);
	}
	sqlite3_finalize(st);
	return 0;
}

int report_method_load_run(const char *path, long long run_id, struct report_method *m,
			   struct strbuf *err)
{
	struct store *s = NULL;
	sqlite3 *db = NULL;
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
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		r = db_fail(db, "opening the store read-only", err);
		goto out;
	}
	if ((r = load_run_row(db, m, err)) < 0)
		goto out;
	m->generated = m->harness && !strcmp(m->harness, "generate");
	if (m->generated) {
		r = load_generated(db, s, m, err);
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
					if (!strcmp(m->evals[k].verdict, "pass")) {
						m->solved++;
						break;
					}
			}
		}
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
	if (db)
		sqlite3_close(db);
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
	static const char *const cols[] = {"case_id", "entry", "axes", "timed", "verdict",
					   "max_abs_err", "tol_use", "atol", "rtol",
					   "time_base_ms", "time_cand_ms", "speedup", "detail"};
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	json_t *a;
	int r;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		r = db_fail(db, "opening the store read-only", err);
		sqlite3_close(db);
		return r;
	}
	if (sqlite3_prepare_v2(db,
			       "SELECT case_id, entry, axes, timed, verdict, max_abs_err, tol_use,"
			       " atol, rtol, time_base_ms, time_cand_ms, speedup, detail FROM cases"
			       " WHERE eval_key = ? ORDER BY case_id",
			       -1, &st, NULL) != SQLITE_OK) {
		r = db_fail(db, "reading the cases", err);
		sqlite3_close(db);
		return r;
	}
	sqlite3_bind_text(st, 1, eval_key, -1, SQLITE_STATIC);
	a = json_array();
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object();

		for (int i = 0; i < (int)(sizeof(cols) / sizeof(cols[0])); i++) {
			json_t *v;

			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				v = json_integer(sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT: {
				double d = sqlite3_column_double(st, i);

				v = isfinite(d) ? json_real(d) : json_null();
				break;
			}
			case SQLITE_NULL:
				v = json_null();
				break;
			default:
				v = json_string((const char *)sqlite3_column_text(st, i));
				if (!v) /* not UTF-8 */
					v = json_null();
			}
			json_object_set_new(o, cols[i], v);
		}
		json_array_append_new(a, o);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE) {
		r = db_fail(db, "reading the cases", err);
		json_decref(a);
		sqlite3_close(db);
		return r;
	}
	sqlite3_close(db);
	*ret = a;
	return 0;
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

		if (strcmp(e->verdict, "pass"))
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
