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

#endif
