/*
 * slurm_run.h - `--backend slurm` of the commands that run over the catalog, `kgb eval` and
 * `kgb generate` (docs/cluster.md): their shared Slurm options, the shard's own call, and the
 * driver that plans, submits, resubmits and merges. slurm.h has the pieces (plan, sbatch,
 * squeue/sacct, the shards' states); this is the one sequence both commands run with them.
 *
 * Contract, for a command CMD ("eval" or "generate"):
 *
 *   options   CMD's getopt_long table includes SLURM_RUN_LONG_OPTIONS, and its switch hands
 *             every code it does not know to slurm_run_parse_opt() before calling it unknown;
 *             after the loop, slurm_run_check_opts(). The strings stay argv's (borrowed);
 *             slurm_run_opts_release() frees the arrays.
 *   submit    with o->slurm, CMD never runs anything itself: it calls slurm_run_submit()
 *             with the options every shard's CMD gets (paths absolute) and two callbacks.
 *             That loads the catalog and the profiles, plans (the platforms of
 *             slurm_run_platforms(); per platform, d->plan_platform deals its selected tasks
 *             into shards with slurm_run_deal()), writes or checks DIR/plan.json, submits the
 *             shards that are not done, pending or running as one `sbatch --array` per
 *             platform, and once every shard is done merges the shard stores into
 *             d->store_path (store_merge()) and calls d->report. Messages are "kgb CMD: ..."
 *             on stderr; the return value is a KGB_EXIT_* code.
 *   shard     with o->shard >= 0 (the batch script's `kgb CMD --run-dir DIR --shard K`),
 *             slurm_run_shard_argv() loads the plan and gives back the argv CMD parses again
 *             as if typed: "CMD", the plan's options, --platform, --store=DIR/shard-K.db and a
 *             --task per task of the shard. CMD may append its own (generate: --out).
 */
#ifndef KGB_SLURM_RUN_H
#define KGB_SLURM_RUN_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "slurm.h"
#include "store.h"
#include "util/compiler.h"
#include "util/strbuf.h"

/* The getopt codes of the Slurm options: above any command's own. */
enum {
	SLURM_RUN_OPT_BACKEND = 0x400,
	SLURM_RUN_OPT_RUN_DIR,
	SLURM_RUN_OPT_SHARDS,
	SLURM_RUN_OPT_SHARD,
	SLURM_RUN_OPT_PARTITION,
	SLURM_RUN_OPT_GRES,
	SLURM_RUN_OPT_CONSTRAINT,
	SLURM_RUN_OPT_TIME,
	SLURM_RUN_OPT_MEM,
	SLURM_RUN_OPT_ACCOUNT,
	SLURM_RUN_OPT_QOS,
	SLURM_RUN_OPT_CPUS_PER_TASK,
	SLURM_RUN_OPT_SBATCH_ARG,
};

/* The entries of a getopt_long table (no trailing comma). */
/* clang-format off */
#define SLURM_RUN_OPT_(name, code) {name, required_argument, NULL, SLURM_RUN_OPT_##code}
#define SLURM_RUN_LONG_OPTIONS                                                                 \
	SLURM_RUN_OPT_("backend", BACKEND), SLURM_RUN_OPT_("run-dir", RUN_DIR),                \
	SLURM_RUN_OPT_("shards", SHARDS), SLURM_RUN_OPT_("shard", SHARD),                      \
	SLURM_RUN_OPT_("partition", PARTITION), SLURM_RUN_OPT_("gres", GRES),                  \
	SLURM_RUN_OPT_("constraint", CONSTRAINT), SLURM_RUN_OPT_("time", TIME),                \
	SLURM_RUN_OPT_("mem", MEM), SLURM_RUN_OPT_("account", ACCOUNT),                        \
	SLURM_RUN_OPT_("qos", QOS), SLURM_RUN_OPT_("cpus-per-task", CPUS_PER_TASK),            \
	SLURM_RUN_OPT_("sbatch-arg", SBATCH_ARG)
/* clang-format on */

/* The help lines of these options, for the commands' usage(). */
extern const char slurm_run_usage[];

struct slurm_run_opts {
	bool slurm;      /* --backend slurm */
	bool slurm_only; /* an option only --backend slurm takes was given */
	const char *run_dir;
	long shard;    /* --shard K (the batch script's call), or -1: set it before parsing */
	size_t shards; /* --shards N; 0: one per task */
	struct slurm_part *partitions, *gres, *constraints;
	size_t nr_partitions, nr_gres, nr_constraints;
	const char *time, *mem, *account, *qos;
	unsigned cpus_per_task;
	const char **sbatch_args; /* NULL-terminated, or NULL */
	size_t nr_sbatch_args;
};

/*
 * Handles getopt code c with its argument (argv's storage, which --partition and the like
 * split in place): 0 when it is one of SLURM_RUN_LONG_OPTIONS, -ENOENT when it is not, or
 * KGB_EXIT_USAGE with the error printed.
 */
int slurm_run_parse_opt(struct slurm_run_opts *o, const char *cmd, int c, char *arg);
/* The checks once all options are parsed; `force`: the command's --force. 0 or KGB_EXIT_USAGE. */
int slurm_run_check_opts(const struct slurm_run_opts *o, const char *cmd, bool force);
void slurm_run_opts_release(struct slurm_run_opts *o);

/*
 * The platforms a Slurm run covers: `platform` (--platform, or NULL), then those the
 * --partition/--gres/--constraint entries name; each once. NULL-terminated, borrowed strings.
 */
const char **slurm_run_platforms(const struct slurm_run_opts *o, const char *platform,
                                 size_t *ret_nr);
/*
 * Adds shard_count(ntasks, o->shards) shards of `platform` to the plan and deals the tasks
 * into them (shard_of); task i holds counts[i] candidates (NULL: one each).
 */
void slurm_run_deal(const struct slurm_run_opts *o, struct slurm_plan *plan, const char *platform,
                    const struct task *const *tasks, const size_t *counts, size_t ntasks);

/* Appends a copy of a string to a NULL-terminated vector of *n strings. */
void slurm_run_strv_push(char ***v, size_t *n, const char *s);
void slurm_run_strv_pushf(char ***v, size_t *n, const char *fmt, ...) KGB_PRINTF(3, 4);

/*
 * The shard's call (see above): *ret_plan (released by the caller) and *ret_argv (owned,
 * strv_free; *ret_n strings) hold the strings the re-parsed options point into. A KGB_EXIT_*
 * code, the error printed.
 */
int slurm_run_shard_argv(const struct slurm_run_opts *o, const char *cmd,
                         struct slurm_plan *ret_plan, char ***ret_argv, size_t *ret_n);

struct kgb_ctx;
struct profile;

struct slurm_run_driver {
	const char *cmd;        /* "eval" or "generate" */
	const char *platform;   /* --platform, or NULL */
	const char *store_path; /* where the finished run is merged (--store; NULL: default) */
	bool json;              /* the shards' table as JSON when the run is not finished */
	bool quiet;             /* no table and no progress line while it is not (kgb serve) */
	int verbose;
	/*
	 * Adds the shards of one platform to the plan: its selected tasks, dealt with
	 * slurm_run_deal(); `prof` is the platform's profile, resolved and runnable. A KGB_EXIT_*
	 * code, the error printed.
	 */
	int (*plan_platform)(void *data, const struct catalog *cat, const struct profile *prof,
	                     const char *platform, struct slurm_plan *plan);
	/*
	 * Prints the merged run from `store` (at store_path), into which every shard store was
	 * merged under `label` (store_merge_runs(), store_merge_gen_runs()). A KGB_EXIT_* code;
	 * on a store error, a negative errno with err set.
	 */
	int (*report)(void *data, const struct catalog *cat, struct store *store,
	              const char *store_path, const char *label, struct strbuf *err);
	void *data;
};

/*
 * The submit sequence (see above): the catalog, the profiles and the plan (args, owned now:
 * the options every shard gets), then DIR's plan, the submissions, and the merge once every
 * shard is done. A KGB_EXIT_* code.
 */
int slurm_run_submit(const struct slurm_run_opts *o, const struct slurm_run_driver *d,
                     struct kgb_ctx *kctx, char **args);

#endif
