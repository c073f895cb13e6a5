/*
 * deep.h - `kgb lint --deep`: proof that a task can tell right from wrong.
 *
 * For each task, on one platform, three kinds of job run through the scheduler like any
 * evaluation (stop at the first failing case, so a killed mutant costs one case):
 *   1. the shipped solution, which must pass;
 *   2. the validity check: a case's reference output must be neither constant nor independent
 *      of the input values (a degenerate reference lets a no-op kernel pass). Edge cases are
 *      degenerate by design (K = 0 products, reductions over empty dims), so the finding is
 *      for a task whose judged cases are more than DEEP_MAX_DEGENERATE_PCT % degenerate, or
 *      with an entry that has degenerate cases and no informative one;
 *   3. each mutant of runtime/mutants.py applied to the shipped solution's outputs, which the
 *      checker must reject ("killed").
 * A task may exempt a check with a reason (task.json "exempt"); exemptions are reported, not
 * counted as findings.
 */
#ifndef KGB_DEEP_H
#define KGB_DEEP_H

#include <stdbool.h>

#include "catalog.h"
#include "util/compiler.h"
#include "util/strbuf.h"

#define DEEP_MAX_MUTANTS 8
#define DEEP_MAX_DEGENERATE_PCT 25

struct deep_result {
	const struct task *task;
	char base_verdict[32];
	struct strbuf base_detail;
	long long valid_pass, valid_degenerate, valid_skipped;
	struct strbuf valid_detail; /* the first degenerate case */
	struct strbuf valid_entries; /* entries with degenerate cases but no informative one */
	char mutant_verdict[DEEP_MAX_MUTANTS][32]; /* per catalog_mutants[] */
};

struct deep_opts {
	const char *root;
	const char *python;
	const char *platform;
	unsigned slots;
	double timeout_s;
};

/* Runs the checks of `tasks`; fills results[i] for tasks[i] (release with deep_result_release). */
int deep_check(const struct deep_opts *o, const struct task *const *tasks, size_t nr,
	       struct deep_result *results, struct strbuf *err) KGB_WUR;
void deep_result_release(struct deep_result *r);
/* Whether the validity counts of a result make a finding. */
bool deep_validity_failed(const struct deep_result *r);
/* Whether a mutant verdict means the checker rejected it. */
bool deep_killed(const char *verdict);

#endif
