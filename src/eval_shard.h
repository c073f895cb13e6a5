/*
 * eval_shard.h - an evaluation as shards of a Slurm run (slurm_run.h): the options every
 * shard's `kgb eval` gets, and a platform's shards. `kgb eval --backend slurm` and the Slurm
 * backend of `kgb serve` (serve_slurm.c) plan with these, so that a shard evaluates what the
 * command asked, the same way, wherever it was asked from.
 */
#ifndef KGB_EVAL_SHARD_H
#define KGB_EVAL_SHARD_H

#include "catalog.h"
#include "eval.h"
#include "slurm_run.h"

struct profile;

/*
 * The options every shard's `kgb eval` gets (the plan's eval_args; an owned NULL-terminated
 * vector, strv_free() it): those of o that change what is evaluated or how, with paths made
 * absolute (the shards run elsewhere); `cpus`, the shards' --cpus-per-task (0: not given),
 * becomes --jobs where o sets no slots. The platform, the store and the tasks are each
 * shard's own.
 */
char **eval_shard_args(const struct eval_opts *o, unsigned cpus);

/*
 * A platform's shards (slurm_run_driver.plan_platform): the tasks of o that have candidates
 * on prof, dealt into plan by slurm_run_deal() (none: said on stderr). KGB_EXIT_OK, or a
 * usage or data error printed as "kgb <o->cmd>: ...". o->profile is left as it was.
 */
int eval_plan_platform(struct eval_opts *o, const struct slurm_run_opts *sr,
		       const struct catalog *cat, const struct profile *prof,
		       const char *platform, struct slurm_plan *plan);

#endif
