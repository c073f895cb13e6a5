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
 * What came of the requests a run's tasks sent a model (the sample and agent tracks), counted
 * from their attempts: each request once, after its retries.
 */
struct gen_requests {
	size_t sent;	  /* asked of the server */
	size_t replied;	  /* a reply came: with_code of them held a module */
	size_t with_code;
	size_t failed;	  /* none came: an HTTP error, no connection, an unusable reply */
	size_t not_sent;  /* the budget was spent first */
	const char *first_error; /* borrowed from res: the first failed request's reason, or NULL */
};
void gen_requests_count(const struct gen_run_opts *o, const struct gen_task_result *res, size_t n,
			struct gen_requests *ret);

/*
 * Writes the scores of res[0..n) (one per task, as o asked: its --track and --k) to f: a
 * table, the reasons of the requests that failed, and the run's totals (requests by outcome
 * among them), or with json one kgb.generate.v1 line per task and then
 * kgb.generate.summary.v1. wall_s is the run's wall time, NAN when not known.
 */
void gen_report_print(FILE *f, const struct gen_run_opts *o, bool json,
		      const struct gen_task_result *res, size_t n, double wall_s);

/*
 * The exit status of a run whose tasks ran (res[0..n)), its reason printed to f: KGB_EXIT_ENV
 * when requests were sent and none got a reply (the server, the URL, the key or the request
 * is wrong: the first reason is printed), KGB_EXIT_NO when o->fail_on_error and a request
 * failed, else KGB_EXIT_OK.
 */
int gen_report_exit(FILE *f, const struct gen_run_opts *o, const struct gen_task_result *res,
		    size_t n);

/*
 * The generate runs store_merge() made in st for `label`, each as a line "run <id>
 * (<platform>) in <store_path>" (not with json) and its scores, printed to f: each task of cat
 * it holds requests of, counted with o's track, samples and rounds, no wall time. 0, or a
 * negative errno with err set when the store cannot be read.
 */
int gen_report_merged(FILE *f, struct store *st, const char *store_path, const char *label,
		      const struct catalog *cat, const struct gen_run_opts *o, bool json,
		      struct strbuf *err) KGB_WUR;

/*
 * Stored run run_id of st, a `kgb generate` run, printed to f as gen_report_print() does
 * (no wall time): its tasks of cat (those not in cat left out, said on stderr), counted with
 * the track, samples and rounds its env_text (the run's recorded env) names, Pass@1 and
 * Pass@samples. 0, or a negative errno with err set: -EPROTO when env_text does not name them.
 */
int gen_report_stored(FILE *f, struct store *st, long long run_id, const char *env_text,
		      const struct catalog *cat, bool json, struct strbuf *err) KGB_WUR;

#endif
