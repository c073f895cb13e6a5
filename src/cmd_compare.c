/*
 * cmd_compare.c - `kgb compare STORE[:RUN]...`: the task x platform portability matrix.
 *
 * Each argument is a stored run (the latest of the store when no run is named), typically the
 * same candidates evaluated on different platforms. The first run is the reference: each
 * other column says how many of the tasks that pass there also pass on its platform (the
 * paper's portability drop), and the geometric mean of the speedups both runs timed. Then, per
 * other run, what got better or worse per task against the first, with significance
 * (report_runs.h, docs/cli.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kgb.h"
#include "report_runs.h"
#include "stats.h"
#include "store.h"
#include "util/parse.h"
#include "util/xalloc.h"
#include "verdict.h"

#define COMPARE_MAX_RUNS 16

struct column {
	char *label; /* the platform profile's name, else the run's platform */
	struct store_eval *evals;
	bool *reused;
	size_t nr;
	long long run_id;
};

static void usage(void)
{
	printf("usage: kgb compare [--json] STORE[:RUN] STORE[:RUN]...\n"
	       "\n"
	       "The portability matrix of stored runs: one row per task, one column per run\n"
	       "(verdict and speedup), then per column the tasks passing on the first run that\n"
	       "also pass on it, then per task what got better or worse than on the first run\n"
	       "and whether the change is significant. RUN defaults to the store's latest.\n"
	       "\n"
	       "  --json   kgb.compare.v1 per task, then kgb.compare.summary.v1 per column\n");
}

/* The column's evaluation of source/task, or NULL. */
static const struct store_eval *find(const struct column *c, const char *source, const char *task)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->evals[i].task, task) && !strcmp(c->evals[i].source, source))
			return &c->evals[i];
	return NULL;
}

/*
 * -EINVAL, with err set, when run `run` of st (at path) is a `kgb generate` run: it links no
 * evaluation of its own (its rounds' evaluations are runs of their own), so its column would be
 * empty, not its candidates.
 */
static int refuse_generated(struct store *st, const char *path, long long run,
			    struct strbuf *err)
{
	char *started = NULL, *command = NULL, *harness = NULL;
	int r = store_run_row(st, run, &started, &command, &harness, err);

	if (r == 0 && harness && !strcmp(harness, "generate")) {
		strbuf_addf(err, "run %lld of '%s' is a kgb generate run: compare compares "
			    "evaluation runs (kgb report --run %lld prints it; kgb report -o sets "
			    "generate runs beside others)", run, path, run);
		r = -EINVAL;
	}
	free(started);
	free(command);
	free(harness);
	return r;
}

static int load_column(const char *arg, struct column *col, struct strbuf *err)
{
	char *path = xstrdup(arg), *colon = strrchr(path, ':');
	long long run = 0;
	char *platform = NULL, *env = NULL;
	struct store *st = NULL;
	json_t *envj;
	int r;

	if (colon) {
		long v;

		*colon = '\0';
		if (parse_long(colon + 1, &v) < 0 || v <= 0) {
			strbuf_addf(err, "'%s': expected STORE or STORE:RUN with a run number", arg);
			free(path);
			return -EINVAL;
		}
		run = v;
	}
	/* Opening creates a store; comparing a file that is not there is a mistake. */
	if (access(path, R_OK) < 0) {
		strbuf_addf(err, "cannot read store '%s': %s", path, strerror(errno));
		free(path);
		return -ENOENT;
	}
	if ((r = store_open(path, &st, err)) < 0 ||
	    (r = store_run_info(st, &run, &platform, &env, err)) < 0 ||
	    (r = refuse_generated(st, path, run, err)) < 0 ||
	    (r = store_run_evals(st, run, &col->evals, &col->nr, &col->reused, err)) < 0) {
		store_free(st);
		free(path);
		free(platform);
		free(env);
		return r;
	}
	envj = env ? json_loads(env, 0, NULL) : NULL;
	{
		const char *prof = json_string_value(json_object_get(json_object_get(envj, "profile"),
								       "name"));

		col->label = xstrdup(prof ? prof : platform ? platform : "?");
	}
	col->run_id = run;
	json_decref(envj);
	store_free(st);
	free(path);
	free(platform);
	free(env);
	return 0;
}

static void cell(const struct store_eval *e, char *out, size_t n)
{
	if (!e)
		snprintf(out, n, "-");
	else if (verdict_is_pass(e->verdict) && isfinite(e->speedup))
		snprintf(out, n, "pass %.2fx", e->speedup);
	else
		snprintf(out, n, "%s", e->verdict);
}

/* The change of source/task on method k against method 0, with both sides. */
static int delta_of(struct report_method *m, size_t k, const char *source, const char *task,
		    struct report_side *a, struct report_side *b, struct report_delta *d,
		    struct strbuf *err)
{
	int r;

	if ((r = report_runs_side(&m[0], source, task, a, err)) < 0 ||
	    (r = report_runs_side(&m[k], source, task, b, err)) < 0)
		return r;
	report_runs_delta(a, b, d);
	return 0;
}

static json_t *ci_json(double lo, double hi)
{
	return isfinite(lo) ? json_pack("[f, f]", lo, hi) : json_null();
}

/* The fields a change adds to a by_platform element of kgb.compare.v1. */
static void change_json(json_t *o, const struct report_delta *d)
{
	json_object_set_new(o, "change", json_string(report_runs_change_name(d->change)));
	json_object_set_new(o, "change_significant", json_boolean(d->significant));
	json_object_set_new(o, "change_of", json_string(d->what));
}

/* The fields count_changes() adds to kgb.compare.summary.v1. */
static void counts_json(json_t *o, const size_t cnt[4])
{
	json_object_set_new(o, "better", json_integer((json_int_t)(cnt[0] + cnt[1])));
	json_object_set_new(o, "better_significant", json_integer((json_int_t)cnt[1]));
	json_object_set_new(o, "worse", json_integer((json_int_t)(cnt[2] + cnt[3])));
	json_object_set_new(o, "worse_significant", json_integer((json_int_t)cnt[3]));
}

/* Counts of the changes of method k against method 0 over method 0's tasks: [4]. */
static int count_changes(struct report_method *m, size_t k, size_t counts[4], bool print,
			 struct strbuf *err)
{
	memset(counts, 0, 4 * sizeof(*counts));
	for (size_t i = 0; i < m[0].nr; i++) {
		const struct store_eval *e = &m[0].evals[i];
		struct report_side a, b;
		struct report_delta d;
		char name[96], from[64], to[64];
		int r;

		if (i && !strcmp(e->task, m[0].evals[i - 1].task) &&
		    !strcmp(e->source, m[0].evals[i - 1].source))
			continue;
		if ((r = delta_of(m, k, e->source, e->task, &a, &b, &d, err)) < 0)
			return r;
		if (d.change != REPORT_BETTER && d.change != REPORT_WORSE)
			continue;
		counts[(d.change == REPORT_WORSE) * 2 + d.significant]++;
		if (!print)
			continue;
		snprintf(name, sizeof(name), "%s/%s", e->source, e->task);
		if (!strcmp(d.what, "speedup")) {
			snprintf(from, sizeof(from), "%.2fx", a.speedup);
			snprintf(to, sizeof(to), "%.2fx", b.speedup);
		} else {
			snprintf(from, sizeof(from), "%zu/%zu pass", a.pass, a.n);
			snprintf(to, sizeof(to), "%zu/%zu pass", b.pass, b.n);
		}
		printf("  %-36s %-6s %s: %s -> %s%s\n", name, report_runs_change_name(d.change), d.what,
		       from, to, d.significant ? " (significant)" : " (not significant)");
	}
	return 0;
}

/* One row per task: the reference's tasks, then those only the others have. */
static int print_rows(const struct column *cols, size_t ncol, struct report_method *m,
		      bool json, struct strbuf *err)
{
	for (size_t c = 0; c < ncol; c++) {
		for (size_t i = 0; i < cols[c].nr; i++) {
			const struct store_eval *e = &cols[c].evals[i];
			bool seen = false;

			for (size_t p = 0; p < c && !seen; p++)
				seen = find(&cols[p], e->source, e->task) != NULL;
			if (seen)
				continue;
			if (json) {
				json_t *o = json_pack("{s:s, s:s, s:s}", "schema", "kgb.compare.v1",
						      "task", e->task, "source", e->source);
				json_t *by = json_array();
				char *s;

				for (size_t k = 0; k < ncol; k++) {
					const struct store_eval *x = find(&cols[k], e->source, e->task);

					struct report_side sa, sb;
					struct report_delta d;
					json_t *bo = json_pack(
						"{s:s, s:I, s:s?, s:o}", "platform", cols[k].label,
						"run", (json_int_t)cols[k].run_id, "verdict",
						x ? x->verdict : NULL, "speedup",
						x && isfinite(x->speedup) ? json_real(x->speedup)
									  : json_null());

					if (delta_of(m, k, e->source, e->task, &sa, &sb, &d,
						     err) < 0) {
						json_decref(bo);
						json_decref(by);
						json_decref(o);
						return -EINVAL;
					}
					json_object_set_new(bo, "speedup_ci95",
							    ci_json(sb.ci_lo, sb.ci_hi));
					if (k)
						change_json(bo, &d);
					json_array_append_new(by, bo);
				}
				json_object_set_new(o, "by_platform", by);
				s = json_dumps(o, JSON_COMPACT);
				printf("%s\n", s);
				free(s);
				json_decref(o);
			} else {
				char name[64];

				snprintf(name, sizeof(name), "%s/%s", e->source, e->task);
				printf("%-36s", name);
				for (size_t k = 0; k < ncol; k++) {
					char cs[40];

					cell(find(&cols[k], e->source, e->task), cs, sizeof(cs));
					printf(" %-22s", cs);
				}
				printf("\n");
			}
		}
	}
	return 0;
}

/* Per column: of the reference's passing tasks, how many pass here; speedup ratios. */
static int print_summaries(const struct column *cols, size_t ncol, struct report_method *m,
			   bool json, struct strbuf *err)
{
	if (!json)
		printf("\n");
	for (size_t k = 0; k < ncol; k++) {
		size_t ref_pass = 0, both = 0, pass = 0, nsp = 0;
		double *sp = xcalloc(cols[0].nr + 1, sizeof(double));

		for (size_t i = 0; i < cols[k].nr; i++)
			pass += verdict_is_pass(cols[k].evals[i].verdict);
		for (size_t i = 0; i < cols[0].nr; i++) {
			const struct store_eval *r0 = &cols[0].evals[i];
			const struct store_eval *x = find(&cols[k], r0->source, r0->task);

			if (!x || !verdict_is_pass(r0->verdict))
				continue;
			ref_pass++;
			if (verdict_is_pass(x->verdict)) {
				both++;
				if (isfinite(x->speedup) && isfinite(r0->speedup) && r0->speedup > 0)
					sp[nsp++] = x->speedup / r0->speedup;
			}
		}
		if (json) {
			json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "schema",
					      "kgb.compare.summary.v1", "platform", cols[k].label,
					      "run", (json_int_t)cols[k].run_id, "tasks",
					      (json_int_t)cols[k].nr, "pass", (json_int_t)pass,
					      "reference_pass_present", (json_int_t)ref_pass,
					      "still_pass", (json_int_t)both);
			double g = stats_geomean(sp, nsp);
			char *s;

			json_object_set_new(o, "retained",
					    ref_pass ? json_real((double)both / ref_pass) : json_null());
			json_object_set_new(o, "speedup_ratio_geomean",
					    isfinite(g) ? json_real(g) : json_null());
			if (k) {
				size_t cnt[4];

				if (count_changes(m, k, cnt, false, err) < 0) {
					json_decref(o);
					free(sp);
					return -EINVAL;
				}
				counts_json(o, cnt);
			}
			s = json_dumps(o, JSON_COMPACT);
			printf("%s\n", s);
			free(s);
			json_decref(o);
		} else {
			double g = stats_geomean(sp, nsp);

			printf("%-18s run %-4lld pass %zu/%zu", cols[k].label, cols[k].run_id, pass,
			       cols[k].nr);
			if (k && ref_pass)
				printf("; of the %zu tasks passing on %s and run here, %zu pass (%.1f%% "
				       "retained)", ref_pass, cols[0].label, both,
				       100.0 * (double)both / (double)ref_pass);
			if (k && isfinite(g))
				printf("; speedup relative to %s: geomean %.3fx over %zu tasks",
				       cols[0].label, g, nsp);
			printf("\n");
		}
		free(sp);
	}
	return 0;
}

/* What got better or worse against the first run, per task (report_runs.h). */
static int print_changes(size_t ncol, struct report_method *m, struct strbuf *err)
{
	for (size_t k = 1; k < ncol; k++) {
		size_t cnt[4];

		printf("\nchanges of %s on %s (%s:%lld) against %s on %s (%s:%lld):\n", m[k].label,
		       m[k].platform, m[k].store_path, m[k].run_id, m[0].label, m[0].platform,
		       m[0].store_path, m[0].run_id);
		if (count_changes(m, k, cnt, true, err) < 0)
			return -EINVAL;
		printf("  %zu better (%zu significant), %zu worse (%zu significant)\n",
		       cnt[0] + cnt[1], cnt[1], cnt[2] + cnt[3], cnt[3]);
	}
	return 0;
}

int cmd_compare(int argc, char **argv, struct kgb_ctx *ctx)
{
	struct column cols[COMPARE_MAX_RUNS] = {0};
	struct strbuf err = STRBUF_INIT;
	size_t ncol = 0, nm = 0;
	struct report_method *m = NULL; /* the same runs, for the per-task changes */
	bool json = false;
	int ret = KGB_EXIT_OK;

	(void)ctx;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage();
			return KGB_EXIT_OK;
		}
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (argv[i][0] == '-') {
			return kgb_usage_error("compare", "unknown option '%s'", argv[i]);
		}
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			continue;
		if (ncol == COMPARE_MAX_RUNS)
			return kgb_usage_error("compare", "at most %d runs", COMPARE_MAX_RUNS);
		if (load_column(argv[i], &cols[ncol], &err) < 0) {
			fprintf(stderr, "kgb compare: %s\n", err.buf);
			ret = KGB_EXIT_DATA;
			goto out;
		}
		ncol++;
	}
	if (ncol < 2) {
		ret = kgb_usage_error("compare", "expected at least two runs");
		goto out;
	}
	m = xcalloc(ncol + 1, sizeof(*m));
	for (int i = 1; i < argc && nm < ncol; i++) {
		if (!strcmp(argv[i], "--json"))
			continue;
		if (report_method_load(argv[i], &m[nm], &err) < 0) {
			report_method_release(&m[nm]);
			goto fail;
		}
		nm++;
	}
	if (!json) {
		printf("%-36s", "TASK");
		for (size_t c = 0; c < ncol; c++) {
			char h[40];

			snprintf(h, sizeof(h), "%s (run %lld)", cols[c].label, cols[c].run_id);
			printf(" %-22s", h);
		}
		printf("\n");
	}
	if (print_rows(cols, ncol, m, json, &err) < 0 ||
	    print_summaries(cols, ncol, m, json, &err) < 0 ||
	    (!json && print_changes(ncol, m, &err) < 0))
		goto fail;
	goto out;
fail:
	fprintf(stderr, "kgb compare: %s\n", err.buf);
	ret = KGB_EXIT_DATA;
out:
	for (size_t c = 0; c < ncol; c++) {
		for (size_t i = 0; i < cols[c].nr; i++)
			store_eval_release(&cols[c].evals[i]);
		free(cols[c].evals);
		free(cols[c].reused);
		free(cols[c].label);
	}
	for (size_t i = 0; i < nm; i++)
		report_method_release(&m[i]);
	free(m);
	strbuf_release(&err);
	return ret;
}
