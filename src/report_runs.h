/*
 * report_runs.h - stored runs loaded as "methods" for the HTML report, compare and export.
 *
 * A method is one run of one store, named on the command line as STORE[:RUN] (the latest run
 * when RUN is left out), as `kgb compare` names them. Its candidates are:
 *   - for an evaluation run (`kgb eval`): the run's evaluations (run_evals), in task order;
 *   - for a generation run (`kgb generate`, harness "generate"): per task and sample, the
 *     first-round attempt (round 0 of stage "generate", the one Pass@k is over, as kgb generate
 *     scores it); an attempt without code is a failed candidate with its outcome as verdict.
 * The label is "shipped" for a run of the shipped solutions, "<model> (<track>)" for a
 * generation run, "<method> (<package> <version>)" for a library's run (kgb eval --method,
 * docs/methods.md), else "solutions". Tokens, cost and time come from the generations table.
 *
 * Call sequence: report_method_load() → use m->rr (a struct report_run) and the fields →
 * report_method_release(). All strings and arrays in a method are owned by it.
 * Errors: negative errno with err set (-ENOENT: no such store file or run).
 */
#ifndef KGB_REPORT_RUNS_H
#define KGB_REPORT_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "store.h"
#include "util/compiler.h"
#include "util/strbuf.h"

struct report_method {
	char *label;	  /* "shipped", "<model> (<track>)", "<method> (<lib> <v>)", "solutions" */
	char *store_path; /* as given */
	long long run_id;
	char *platform;	  /* the profile's name, else the run's platform */
	char *started_at, *command, *harness; /* of the run row; may be NULL */
	char *model, *track;		       /* generation runs; else NULL */
	bool generated;			       /* a `kgb generate` run */
	struct store_eval *evals;	       /* nr candidates in task order */
	bool *reused;
	double *sol; /* per candidate: median sol_fraction of its timed cases, NAN if none */
	size_t nr;
	struct report_run rr; /* views of the arrays above, for report_compute_metrics() */
	/* Cost: generation runs sum the generations table; evaluation runs sum wall_ms. */
	long long tokens;	/* prompt + completion; -1 when unknown (no generations) */
	double cost_usd;	/* NAN when unknown */
	double time_ms;		/* model latency + evaluation, or the evaluations' wall time */
	size_t tasks, solved;	/* tasks; tasks with at least one passing attempt (any round) */
};

/* Loads `arg` (STORE or STORE:RUN) into *m (zeroed first). */
int report_method_load(const char *arg, struct report_method *m, struct strbuf *err) KGB_WUR;
/* Loads run `run_id` (<= 0: the latest) of the store at `path`. */
int report_method_load_run(const char *path, long long run_id, struct report_method *m,
			   struct strbuf *err) KGB_WUR;
void report_method_release(struct report_method *m);
/*
 * Makes the labels of m[0..n) distinct where two are equal: each such label gets the store's
 * file name and the run, "shipped (cuda.db:50)".
 */
void report_methods_disambiguate(struct report_method *m, size_t n);

/* Index of the candidates of source/task in m: the first one and their count (0: none). */
size_t report_method_find(const struct report_method *m, const char *source, const char *task,
			  size_t *ret_first);

/*
 * The case rows of evaluation `eval_key` in the store at `path`, in case order: a new JSON array
 * of objects {case_id, entry, axes (JSON text), timed, verdict, max_abs_err, tol_use, atol, rtol,
 * time_base_ms, time_cand_ms, speedup, detail}, SQL NULL as JSON null, in *ret.
 */
int report_runs_cases(const char *path, const char *eval_key, json_t **ret, struct strbuf *err)
	KGB_WUR;

/*
 * What changed for one task from run A to run B (`kgb compare`, docs/cli.md for the rule).
 * Correctness first: the pass fraction of the task's candidates; with one candidate on each
 * side a changed verdict is a certain change (the same cases, checked the same way), with more
 * it is significant when the 95% Wilson score intervals of the two fractions do not overlap.
 * Then, when both pass and both have per-case speedups, the best passing candidate's speedup:
 * significant when the 95% bootstrap intervals (stats_geomean_ci over its timed cases'
 * speedups, fixed seed) do not overlap; with fewer than two timed cases, never significant.
 */
enum report_change { REPORT_SAME, REPORT_BETTER, REPORT_WORSE, REPORT_ABSENT };

struct report_side {
	size_t n, pass;	       /* candidates of the task; passing ones */
	double speedup;	       /* the best passing candidate's, NAN if none */
	double ci_lo, ci_hi;   /* its bootstrap interval over its timed cases, NAN if < 2 */
};

struct report_delta {
	enum report_change change;
	bool significant;
	const char *what; /* "verdict", "pass rate", "speedup" or "" (static) */
};

/* Fills *ret_side for source/task of m (the case speedups are read from m's store). */
int report_runs_side(const struct report_method *m, const char *source, const char *task,
		     struct report_side *ret_side, struct strbuf *err) KGB_WUR;
/* The change from a to b (pure). */
void report_runs_delta(const struct report_side *a, const struct report_side *b,
		       struct report_delta *ret);
const char *report_runs_change_name(enum report_change c);
/* The 95% Wilson score interval of pass/n (pure); [0, 1] for n == 0. */
void report_runs_wilson(size_t pass, size_t n, double *lo, double *hi);

#endif
