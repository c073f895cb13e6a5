/*
 * report.h - printing evaluation results: the human table and the JSON-lines records.
 *
 * The table is for people and may change; the JSON records ("schema": "kgb.eval.v1" and
 * "kgb.summary.v1") are a contract: fields are only ever added (docs/cli.md).
 */
#ifndef KGB_REPORT_H
#define KGB_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "store.h"

struct report_run {
	const char *platform;
	long long run_id;
	const char *store_path;
	const struct store_eval *evals;
	const bool *reused;
	size_t nr;
	size_t skipped;	   /* tasks with no candidate */
	json_t **entries;  /* per evaluation: store_eval_entries() object, or NULL */
	json_t *sandbox;   /* what the workers' sandbox applied (sandbox_report_json), or NULL */
	const double *sol; /* per evaluation: median sol_fraction of its timed cases, NAN if none;
			      or NULL */
};

/* The p of fast_p that every summary reports (docs/metrics.md). */
#define REPORT_FAST_P_N 3
extern const double report_fast_p[REPORT_FAST_P_N];

/*
 * The aggregate numbers of a run, or of one source of it (source NULL: all), as defined in
 * docs/metrics.md. Speedups are per candidate (the geomean of its timed cases, cases over the
 * speed-of-light limit left out); fast_p counts over the candidates whose task has timed cases,
 * a failed one never fast.
 */
struct report_metrics {
	size_t total, pass;
	size_t nsp;			  /* passing candidates with a speedup */
	double geomean, ci_lo, ci_hi;	  /* 95% bootstrap interval of the geomean */
	size_t ntimed;			  /* candidates whose task has timed cases */
	double fast_p[REPORT_FAST_P_N];	  /* NAN when ntimed == 0 */
	size_t nsol;			  /* passing candidates with a sol fraction */
	double sol_median;
	size_t ntasks, multi;		  /* tasks; tasks with more than one sample */
	double pass_at[3];		  /* pass@1, @5, @10 over tasks with >= k samples */
	size_t pass_at_tasks[3];
};

extern const size_t report_pass_at_ks[3]; /* the k of pass_at[] */
/* The aggregate numbers of run r, or of its source `source` (NULL: all), into *m. */
void report_compute_metrics(const struct report_run *r, const char *source,
			    struct report_metrics *m);

void report_eval_table(FILE *f, const struct report_run *r);
void report_eval_json(FILE *f, const struct report_run *r);
/*
 * Reads run `run_id` back from the store (its evaluations, per-entry counts, speed-of-light
 * fractions) and prints it as a table or JSON lines; *ret_failed (may be NULL) gets the number
 * of its candidates that did not pass. Errors (the store's) with err set.
 */
int report_from_store(FILE *f, struct store *s, long long run_id, const char *platform,
		      const char *store_path, size_t skipped, json_t *sandbox, bool json,
		      size_t *ret_failed, struct strbuf *err);

/*
 * Progress of a long `kgb eval` on stderr (eval.h's hooks): a live bar with counts, elapsed time and
 * ETA, only on a terminal, not under $CI, not with -q (verbose < 0); colour only where
 * report_progress_color() says so (a terminal, NO_COLOR unset or empty).
 */
bool report_progress_live(int verbose);
bool report_progress_color(void);
/* "[=====     ] 12/40  30%  +1m05s  ETA 2m32s" into sb (pure: the caller gives the time). */
void report_progress_bar(struct strbuf *sb, size_t done, size_t total, double elapsed_s,
			 int width, bool color);
/* Erases the bar (before a line is printed over it); then redraws it after that line. */
void report_progress_clear(int verbose);
void report_progress_draw(size_t done, size_t total, double elapsed_s, int verbose);
/*
 * The evaluation engine's hooks (eval.h) for a command's stderr, verbose_ptr an `int *` (the
 * -v count minus the -q count): a line per candidate as it ends (with -v, or on a terminal;
 * the worker's stderr tail too with -vv, escaped), the bar redrawn after it; and, with -v, a
 * line per candidate the store already held.
 */
struct eval_event;
struct task;
void report_eval_event(void *verbose_ptr, const struct eval_event *ev);
void report_eval_reused(void *verbose_ptr, const struct task *t, const char *sample_shown,
			const char *verdict, long long passed, long long total);

#endif
