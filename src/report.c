#include "report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "catalog.h"
#include "platform.h"
#include "stats.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

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
		bool ok = !strcmp(e->verdict, "pass");

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

static double geomean_passing(const struct report_run *r)
{
	double *v = xcalloc(r->nr + 1, sizeof(*v)), g;
	size_t n = 0;

	for (size_t i = 0; i < r->nr; i++)
		if (!strcmp(r->evals[i].verdict, "pass") && !isnan(r->evals[i].speedup))
			v[n++] = r->evals[i].speedup;
	g = stats_geomean(v, n);
	free(v);
	return g;
}

void report_eval_table(FILE *f, const struct report_run *r)
{
	struct source_count by[4] = {0};
	size_t pass, nreused = 0;
	bool timed = platform_times(r->platform);
	double g;

	fprintf(f, "%-28s %-12s %-14s %-11s %-8s %s\n", "TASK", "SAMPLE", "VERDICT", "CASES",
		"SPEEDUP", "NOTE");
	for (size_t i = 0; i < r->nr; i++) {
		const struct store_eval *e = &r->evals[i];
		struct strbuf name = STRBUF_INIT, cases = STRBUF_INIT, note = STRBUF_INIT;
		char sp[32];

		strbuf_addf(&name, "%s/%s", e->source, e->task);
		strbuf_addf(&cases, "%lld/%lld", e->cases_passed, e->cases_total);
		if (!timed)
			snprintf(sp, sizeof(sp), "n/a");
		else if (isnan(e->speedup) || strcmp(e->verdict, "pass"))
			snprintf(sp, sizeof(sp), "-");
		else
			snprintf(sp, sizeof(sp), "%.2fx", e->speedup);
		if (strcmp(e->verdict, "pass"))
			failure_note(e, &note);
		if (strcmp(e->verdict, "pass") && r->entries && r->entries[i] &&
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
		fprintf(f, "%-28s %-12s %-14s %-11s %-8s %s\n", name.buf, e->sample ? e->sample : "-",
			e->verdict, cases.buf, sp, note.buf);
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
	g = geomean_passing(r);
	if (!timed)
		fprintf(f, "speedup: n/a on platform '%s' (correctness only)\n", r->platform);
	else if (isnan(g))
		fprintf(f, "speedup: no timed passing candidates\n");
	else
		fprintf(f, "speedup: geometric mean %.3fx over passing timed candidates\n", g);
	fprintf(f, "platform %s, run %lld, store %s: %zu evaluated, %zu reused from the store",
		r->platform, r->run_id, r->store_path, r->nr - nreused, nreused);
	if (r->skipped)
		fprintf(f, ", %zu tasks without a candidate", r->skipped);
	fputc('\n', f);
}

static json_t *real_or_null(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

void report_eval_json(FILE *f, const struct report_run *r)
{
	struct source_count by[4] = {0};
	size_t pass, nreused = 0;
	json_t *sum, *bys = json_object();
	char *s;

	for (size_t i = 0; i < r->nr; i++) {
		const struct store_eval *e = &r->evals[i];
		json_t *ff = e->first_failure ? json_loads(e->first_failure, 0, NULL) : NULL;
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, "
				      "s:s, s:s, s:s, s:b}",
				      "schema", "kgb.eval.v1", "task", e->task, "source", e->source,
				      "sample", e->sample ? e->sample : "", "verdict", e->verdict,
				      "detail", e->detail ? e->detail : "", "cases_total",
				      (json_int_t)e->cases_total, "cases_passed",
				      (json_int_t)e->cases_passed, "timed_cases",
				      (json_int_t)e->timed_cases, "speedup",
				      real_or_null(e->speedup), "max_tol_use",
				      real_or_null(e->max_tol_use), "first_failure",
				      ff ? ff : json_null(), "platform", e->platform, "key", e->key,
				      "candidate", e->candidate_path ? e->candidate_path : "",
				      "reused", r->reused[i]);

		nreused += r->reused[i];
		json_object_set(o, "entries",
				r->entries && r->entries[i] ? r->entries[i] : json_null());
		s = json_dumps(o, JSON_COMPACT);
		fprintf(f, "%s\n", s);
		free(s);
		json_decref(o);
	}
	count_sources(r, by, &pass);
	for (int k = 0; catalog_sources[k]; k++)
		if (by[k].total)
			json_object_set_new(bys, catalog_sources[k],
					    json_pack("{s:I, s:I, s:o}", "pass", (json_int_t)by[k].pass,
						      "total", (json_int_t)by[k].total, "pass_rate",
						      real_or_null(stats_rate(by[k].pass, by[k].total))));
	sum = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:I}", "schema",
			"kgb.summary.v1", "platform", r->platform, "run_id", (json_int_t)r->run_id,
			"total", (json_int_t)r->nr, "pass", (json_int_t)pass, "evaluated",
			(json_int_t)(r->nr - nreused), "reused", (json_int_t)nreused, "pass_rate",
			real_or_null(stats_rate(pass, r->nr)), "by_source", bys,
			"geomean_speedup", real_or_null(geomean_passing(r)), "skipped",
			(json_int_t)r->skipped);
	if (r->sandbox)
		json_object_set(sum, "sandbox", r->sandbox);
	s = json_dumps(sum, JSON_COMPACT);
	fprintf(f, "%s\n", s);
	free(s);
	json_decref(sum);
}
