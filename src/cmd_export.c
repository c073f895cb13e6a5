/*
 * cmd_export.c - `kgb export`: a stored run as CSV (RFC 4180) or JSON lines, one row per
 * evaluation (candidate) of the run, or one per case with --cases. The columns and their order
 * are a contract (docs/cli.md): columns are only ever added at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "kgb.h"
#include "report_runs.h"
#include "util/parse.h"

/* The columns of an evaluation row, in order. */
static const char *const eval_cols[] = {
	"run_id",      "store",	      "method",	      "platform",     "source",
	"task",	       "sample",      "verdict",      "cases_total",  "cases_passed",
	"timed_cases", "speedup",     "sol_fraction", "max_tol_use",  "wall_ms",
	"import_ms",   "eval_key",    "candidate_hash", "task_version", "harness",
	"candidate_path", "detail",
};

/* A case row: these, then the case columns of report_runs_cases(). */
static const char *const case_prefix[] = {"run_id", "method", "source", "task", "sample",
					  "eval_key"};
static const char *const case_cols[] = {"case_id", "entry", "axes", "timed", "verdict",
					"max_abs_err", "tol_use", "atol", "rtol",
					"time_base_ms", "time_cand_ms", "speedup", "detail"};

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

static void usage(void)
{
	printf("usage: kgb export --format csv|jsonl [--store PATH] [--run N] [--cases]\n"
	       "\n"
	       "Writes a stored run to stdout, one row per evaluation (candidate); the columns\n"
	       "are listed in docs/cli.md and only ever added at the end.\n"
	       "\n"
	       "  --format F     csv (RFC 4180, header line) or jsonl (kgb.export.eval.v1 lines)\n"
	       "  --store PATH   results store (default $KGB_STORE or ./kgb-results.db)\n"
	       "  --run N        that run (default: the latest)\n"
	       "  --cases        one row per case instead (kgb.export.case.v1)\n");
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *eval_row(const struct report_method *m, size_t i)
{
	const struct store_eval *e = &m->evals[i];
	json_t *o = json_object();

	json_object_set_new(o, "schema", json_string("kgb.export.eval.v1"));
	json_object_set_new(o, "run_id", json_integer(m->run_id));
	json_object_set_new(o, "store", json_string(m->store_path));
	json_object_set_new(o, "method", json_string(m->label));
	json_object_set_new(o, "platform", json_string(m->platform));
	json_object_set_new(o, "source", str_or_null(e->source));
	json_object_set_new(o, "task", str_or_null(e->task));
	json_object_set_new(o, "sample", str_or_null(e->sample));
	json_object_set_new(o, "verdict", str_or_null(e->verdict));
	json_object_set_new(o, "cases_total", json_integer(e->cases_total));
	json_object_set_new(o, "cases_passed", json_integer(e->cases_passed));
	json_object_set_new(o, "timed_cases", json_integer(e->timed_cases));
	json_object_set_new(o, "speedup", real_or_null(e->speedup));
	json_object_set_new(o, "sol_fraction", real_or_null(m->sol[i]));
	json_object_set_new(o, "max_tol_use", real_or_null(e->max_tol_use));
	json_object_set_new(o, "wall_ms", real_or_null(e->wall_ms));
	json_object_set_new(o, "import_ms", real_or_null(e->import_ms));
	json_object_set_new(o, "eval_key", e->key[0] ? json_string(e->key) : json_null());
	json_object_set_new(o, "candidate_hash", str_or_null(e->candidate_hash));
	json_object_set_new(o, "task_version", str_or_null(e->task_version));
	json_object_set_new(o, "harness", str_or_null(e->harness));
	json_object_set_new(o, "candidate_path", str_or_null(e->candidate_path));
	json_object_set_new(o, "detail", str_or_null(e->detail));
	return o;
}

static void csv_value(struct strbuf *sb, json_t *v)
{
	char num[64];

	if (json_is_string(v))
		escape_csv(sb, json_string_value(v));
	else if (json_is_integer(v))
		strbuf_addf(sb, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v)) {
		snprintf(num, sizeof(num), "%.17g", json_real_value(v));
		strbuf_addstr(sb, num);
	} else if (json_is_true(v) || json_is_false(v))
		strbuf_addch(sb, json_is_true(v) ? '1' : '0');
	/* null or absent: an empty field */
}

/* One row: CSV fields in the order of cols[0..n) (then cols2[0..n2)), or a JSON line. */
static void emit(struct strbuf *sb, bool csv, json_t *o, const char *const *cols, size_t n,
		 const char *const *cols2, size_t n2)
{
	if (!csv) {
		char *s;

		/* Samples, paths and details are a candidate's: no raw control characters. */
		escape_json_strings(o);
		s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

		strbuf_addstr(sb, s);
		strbuf_addch(sb, '\n');
		free(s);
		return;
	}
	for (size_t i = 0; i < n + n2; i++) {
		if (i)
			strbuf_addch(sb, ',');
		csv_value(sb, json_object_get(o, i < n ? cols[i] : cols2[i - n]));
	}
	strbuf_addstr(sb, "\r\n");
}

static void header(struct strbuf *sb, const char *const *cols, size_t n, const char *const *cols2,
		   size_t n2)
{
	for (size_t i = 0; i < n + n2; i++) {
		if (i)
			strbuf_addch(sb, ',');
		strbuf_addstr(sb, i < n ? cols[i] : cols2[i - n]);
	}
	strbuf_addstr(sb, "\r\n");
}

int cmd_export(int argc, char **argv, struct kgb_ctx *ctx)
{
	enum { OPT_STORE = 0x100, OPT_RUN, OPT_FORMAT, OPT_CASES };
	static const struct option opts[] = {
		{"store", required_argument, NULL, OPT_STORE},
		{"run", required_argument, NULL, OPT_RUN},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"cases", no_argument, NULL, OPT_CASES},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *path = NULL, *format = NULL;
	unsigned long long run = 0;
	bool cases = false, csv;
	struct report_method m;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	int c, r, ret = KGB_EXIT_OK;

	(void)ctx;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_STORE:
			path = optarg;
			break;
		case OPT_RUN:
			if (parse_ull(optarg, &run) < 0 || run == 0 || run > (1ULL << 62))
				return kgb_usage_error("export",
						       "--run: expected a run number > 0, got '%s'",
						       optarg);
			break;
		case OPT_FORMAT:
			format = optarg;
			break;
		case OPT_CASES:
			cases = true;
			break;
		case 'h':
			usage();
			return KGB_EXIT_OK;
		default:
			return kgb_usage_error("export", "unknown option");
		}
	}
	if (optind < argc)
		return kgb_usage_error("export", "unexpected argument '%s'", argv[optind]);
	if (!format || (strcmp(format, "csv") && strcmp(format, "jsonl")))
		return kgb_usage_error("export", "--format: expected csv or jsonl");
	csv = !strcmp(format, "csv");
	if (!path)
		path = getenv("KGB_STORE") && *getenv("KGB_STORE") ? getenv("KGB_STORE")
								   : "kgb-results.db";
	r = report_method_load_run(path, (long long)run, &m, &err);
	if (r < 0) {
		fprintf(stderr, "kgb export: %s\n", err.buf);
		ret = KGB_EXIT_DATA;
		goto out_m;
	}
	if (csv)
		header(&out, cases ? case_prefix : eval_cols,
		       cases ? NCOLS(case_prefix) : NCOLS(eval_cols), case_cols,
		       cases ? NCOLS(case_cols) : 0);
	for (size_t i = 0; i < m.nr; i++) {
		json_t *row = eval_row(&m, i), *rows = NULL;
		size_t k;
		json_t *cr;

		if (!cases) {
			emit(&out, csv, row, eval_cols, NCOLS(eval_cols), NULL, 0);
			json_decref(row);
			continue;
		}
		if (m.evals[i].key[0] && report_runs_cases(path, m.evals[i].key, &rows, &err) < 0) {
			fprintf(stderr, "kgb export: %s\n", err.buf);
			json_decref(row);
			ret = KGB_EXIT_DATA;
			goto out_m;
		}
		json_array_foreach(rows, k, cr) {
			json_t *o = json_object();

			json_object_set_new(o, "schema", json_string("kgb.export.case.v1"));
			for (size_t p = 0; p < NCOLS(case_prefix); p++)
				json_object_set(o, case_prefix[p],
						json_object_get(row, case_prefix[p]));
			json_object_update(o, cr);
			emit(&out, csv, o, case_prefix, NCOLS(case_prefix), case_cols,
			     NCOLS(case_cols));
			json_decref(o);
		}
		json_decref(rows);
		json_decref(row);
	}
	if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "kgb export: writing: %s\n", strerror(errno));
		ret = KGB_EXIT_ENV;
	}
out_m:
	report_method_release(&m);
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}
