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
};

void report_eval_table(FILE *f, const struct report_run *r);
void report_eval_json(FILE *f, const struct report_run *r);

#endif
