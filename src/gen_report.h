/*
 * gen_report.h - the scores of a generate run (docs/generation.md "Metrics", docs/metrics.md):
 * per task Pass@k over the first round, solved within r rounds, tokens, cost, time, the best
 * speedup and the held-out verdict; over the run their sums and means, and the tokens, cost
 * and time per solved task.
 *
 * gen_report_print() prints them as `kgb generate` does; gen_report_merged() prints the generate
 * runs a Slurm merge made the same way, counting each one's results again from its requests
 * (the generations table) as gen_run() counted them as it went.
 */
#ifndef KGB_GEN_REPORT_H
#define KGB_GEN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "catalog.h"
#include "generate.h"
#include "generate_run.h"
#include "store.h"
#include "util/compiler.h"
#include "util/strbuf.h"

/*
 * Writes the scores of res[0..n) (one per task, as o asked: its --track and --k) to f: a
 * table and the run's totals, or with json one kgb.generate.v1 line per task and then
 * kgb.generate.summary.v1. wall_s is the run's wall time, NAN when not known.
 */
void gen_report_print(FILE *f, const struct gen_run_opts *o, bool json,
		      const struct gen_task_result *res, size_t n, double wall_s);

/*
 * The generate runs store_merge() made in st for `label`, each as a line "run <id>
 * (<platform>) in <store_path>" (not with json) and its scores, printed to f: each task of cat
 * it holds requests of, counted with o's track, samples and rounds, no wall time. 0, or a
 * negative errno with err set when the store cannot be read.
 */
int gen_report_merged(FILE *f, struct store *st, const char *store_path, const char *label,
		      const struct catalog *cat, const struct gen_run_opts *o, bool json,
		      struct strbuf *err) KGB_WUR;

#endif
