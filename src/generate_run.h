/*
 * generate_run.h - a `kgb generate` run from its options: which tasks, a Slurm run's shards
 * and their options, and the run on this machine around gen_run() (generate.h).
 *
 * cmd_generate.c parses the command line into a gen_run_opts. gen_select_tasks() picks the
 * tasks, for the Slurm plan (gen_plan_platform()) and the local run alike; gen_shard_args()
 * gives the options every shard's `kgb generate` is started with; gen_execute() does what
 * `kgb generate` does without --backend slurm: it resolves the key, the prices, the platform
 * and the tasks, records a run in the store, lets gen_run() run the track and store each
 * request, and ends the run. Scoring and printing the results are gen_report.h's.
 */
#ifndef KGB_GENERATE_RUN_H
#define KGB_GENERATE_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "generate.h"
#include "kgb.h"
#include "util/compiler.h"
#include "util/strbuf.h"

/* The most Pass@k values a run reports (--k). */
#define GEN_MAX_K 8

struct profile;

/*
 * A `kgb generate` run as asked. The strings are borrowed (argv's, or a Slurm plan's); the
 * arrays are the caller's to free.
 */
struct gen_run_opts {
	struct gen_opts g;	     /* the tracks' options; gen_execute() resolves the rest */
	const char *track, *api;     /* --track and --api as typed: the run records them */
	const char *key_env;	     /* the API key's variable; NULL: the API's default */
	const char *prices, *source; /* --prices FILE, --source S, or NULL */
	const char **tasks;	     /* --task, nr_tasks of them; none: every task */
	size_t nr_tasks;
	const char **agent_writable; /* NULL-terminated (g.agent_writable points here) */
	size_t nr_agent_writable;
	unsigned ks[GEN_MAX_K]; /* the Pass@k to report */
	size_t nr_ks;
	const char **params; /* --param KEY=VALUE as typed, nr_params (g.llm.params: parsed) */
	size_t nr_params;
	bool fail_on_error; /* --fail-on-error */
	bool shard; /* a Slurm shard's run: its store ends in the rollback journal */
};

/* --k LIST ("1,5") into o->ks: 0, or -EINVAL when not 1..GEN_MAX_K positive integers. */
int gen_parse_ks(const char *list, struct gen_run_opts *o) KGB_WUR;

/*
 * o->track and o->api (as typed) into o->g.track and o->g.llm.api: 0, 1 when the track is
 * none of sample, agent and external, 2 when the API is neither openai nor anthropic.
 */
int gen_resolve_names(struct gen_run_opts *o) KGB_WUR;

/*
 * The options of o taken together, once resolved (gen_resolve_names()): 0, or -EINVAL with
 * why set (an agent command or a model missing, a base URL that is not http(s), an --out
 * that is not a directory, --samples beside an agent track, --budget-usd without prices).
 */
int gen_check_opts(const struct gen_run_opts *o, struct strbuf *why) KGB_WUR;

/*
 * --param KEY=VALUE added to *params (an object made on first use, the caller's to decref):
 * VALUE as JSON where it parses as JSON ("0.95", "true", "{...}"), else as a string ("high").
 * 0, or -EINVAL with err set: no '=', an empty key, or a field kgb owns (llm_param_allowed()).
 */
int gen_param_add(struct json_t **params, const char *arg, struct strbuf *err) KGB_WUR;

/*
 * The tasks of cat that o selects on prof (its runtime and sources, then --source and the
 * --task names), in catalog order: *ret (owned array of borrowed tasks), *ret_nr of them,
 * maybe none. -ENOENT with err set, and *ret untouched, when a --task names no task of cat.
 */
int gen_select_tasks(const struct gen_run_opts *o, const struct catalog *cat,
		     const struct profile *prof, const struct task ***ret, size_t *ret_nr,
		     struct strbuf *err) KGB_WUR;

/*
 * A platform's shards of a Slurm run (slurm_run_driver.plan_platform): the tasks o selects on
 * prof, dealt by slurm_run_deal() into plan (none: said on stderr). KGB_EXIT_OK, or
 * KGB_EXIT_DATA when a --task names no task (printed).
 */
struct slurm_plan;
struct slurm_run_opts;
int gen_plan_platform(const struct gen_run_opts *o, const struct slurm_run_opts *sr,
		      const struct catalog *cat, const struct profile *prof, const char *platform,
		      struct slurm_plan *plan);

/*
 * The options every Slurm shard's `kgb generate` gets (the plan's eval_args; an owned
 * NULL-terminated vector, strv_free() it): what is asked of whom and how, with paths made
 * absolute (the shards run elsewhere), never the key (each shard reads it from its
 * environment). The platform, the store, the tasks and --out are each shard's own.
 */
char **gen_shard_args(const struct gen_run_opts *o);

/* What gen_execute() leaves for the caller's report. */
struct gen_outcome {
	struct catalog *cat;	     /* owned: the catalog the results' tasks belong to */
	struct gen_task_result *res; /* owned: one per selected task; NULL unless they ran */
	size_t nr_res;
};

/*
 * Runs o on this machine: the API key from the environment, the prices (--prices), the
 * platform (--platform, or the profile that matches this machine; it must be runnable), the
 * selected tasks, a new run of the store (its env records what was asked of whom, never the
 * key) under which gen_run() stores every request, and the run ended (a shard's store then in
 * the rollback journal). Errors are printed as "kgb generate: ..."; returns a KGB_EXIT_* code.
 * *out is the caller's to release whatever the result: out->res is set once the tasks ran,
 * even when the run could not be ended afterwards.
 */
int gen_execute(const struct gen_run_opts *o, struct kgb_ctx *ctx, struct gen_outcome *out);
void gen_outcome_release(struct gen_outcome *out);

#endif
