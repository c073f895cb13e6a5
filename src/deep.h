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
 *      checker must reject ("killed") in every entry: a mutant job stops each entry at its
 *      first failing case, and an entry none of whose cases fails is a survivor.
 * A task may exempt a check with a reason (task.json "exempt"), and so may one entry (its own
 * "exempt"): exemptions are reported, not counted as findings. Validity cases of an exempt
 * entry count as skipped; a mutant need not be killed in an entry that exempts it, nor
 * mutate_input in an entry with no tensor argument it does not write (nothing to modify).
 */
#ifndef KGB_DEEP_H
#define KGB_DEEP_H

#include <stdbool.h>

#include "catalog.h"
#include "profile.h"
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
	bool *killed[DEEP_MAX_MUTANTS]; /* per mutant, per entry: rejected in some case; owned */
};

/*
 * What a mutant did to a task: killed in every entry that does not exempt it (and in one at
 * least), survived in one that does not, or exempt.
 */
enum deep_outcome {
	DEEP_KILLED,
	DEEP_SURVIVED,
	DEEP_EXEMPT, /* killed nowhere, and every entry exempts it (or it cannot act there) */
};

struct deep_opts {
	const char *root;
	const char *tasks_dir; /* the catalog: hidden from the candidate's runner */
	const char *python;
	const struct profile *profile; /* the platform: its runtime, what it drops, tolerances */
	unsigned slots; /* checking slots; 0: eval's default (platform_check_slots) */
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
/*
 * The outcome of mutant `m` (an index into catalog_mutants) on the result's task; the names of
 * the entries it survives in, comma-separated, are appended to `survivors` (may be NULL).
 */
enum deep_outcome deep_mutant_outcome(const struct deep_result *r, size_t m,
				      struct strbuf *survivors);

#endif
