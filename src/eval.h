/*
 * eval.h - the evaluation engine: the candidates of a catalog, judged on a platform, stored.
 *
 * eval_run() resolves the platform (the profile named or detected), plans (candidates, their
 * content addresses, what the store already holds, cases, checking jobs), runs the checking
 * phase and, on a timing platform, the timing phase (DESIGN §5, docs/architecture.md), and
 * commits each candidate to the store as it ends. It prints errors as "kgb <cmd>: ...", never
 * a table: the caller reads the run back from the store (report.h) with what eval_outcome
 * names. Commands that evaluate (eval and its Slurm shards, generate) fill an eval_opts and
 * call it; what they print per candidate comes through eval_hooks.
 */
#ifndef KGB_EVAL_H
#define KGB_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "kgb.h"
#include "sandbox.h"

/* A candidate file larger than this is refused before it reaches a worker. */
#define EVAL_MAX_CANDIDATE_BYTES (1u << 20)

struct catalog;
struct profile;
struct store;
struct strbuf;
struct task;

/* What to evaluate and how: every field the caller's to set; zero is the default unless said. */
struct eval_opts {
	const char *cmd;       /* the command, in error messages ("eval") */
	const char *solutions; /* candidates: DIR/<task>.py or DIR/<task>/<sample>.py; NULL: shipped */
	const char *method;    /* or a method's (method.h): kgb writes them; NULL: none */
	const char **tasks;    /* only these (op or source/op), nr_tasks of them; none: all */
	size_t nr_tasks;
	const char *source;   /* only tasks of this source, or NULL */
	const char *platform; /* a profile or runtime name; NULL: detected */
	const char *store_path;
	const char *python; /* workers' Python; NULL: platform_python() */
	unsigned slots;	    /* checking slots; 0: one per core, at most 8 per GPU */
	double timeout_s;   /* per candidate; must be > 0 */
	unsigned long long seed;
	unsigned long long memory_mib; /* 0: the default (sched_default_limits) */
	unsigned long long cache_mib;  /* 0: the default (sched_default_limits) */
	enum sandbox_mode sandbox;
	int standby;		/* -1: the default of each phase */
	const char *timing;	/* "events" (NULL) or "cuda_graph" (runtime/timing.py) */
	const char *cache_root; /* --cache-root, or NULL */
	const char *history;	/* a store of past runs, read for their wall times, or NULL */
	unsigned split;		/* checking jobs per candidate; 0: decided per candidate */
	unsigned timing_jobs;	/* timing workers per GPU; 0: the default */
	bool force;		/* re-evaluate what the store holds */
	bool heldout;		/* add the tasks' held-out cases */
	bool shard;		/* a Slurm shard's store: no WAL (docs/cluster.md) */
	/*
	 * The caller has put every candidate to the precheck already (kgb serve, at submission):
	 * no precheck process is started for the run (src/eval.c precheck_jobs).
	 */
	bool prechecked;
	const char *cmdline;	/* recorded with the run */
	/* Set by eval_run from `platform`, or by the caller for eval_collect_tasks(). */
	const struct profile *profile;
};

/* One candidate as it ends (stored, or not evaluated for the machine's fault). */
struct eval_event {
	bool timing_phase; /* the timing phase's result */
	bool checked_only; /* checked and held for the timing phase: nothing stored yet */
	size_t done, total; /* progress within the phase */
	double elapsed_s;   /* since the phase's jobs started */
	const struct task *task;
	const char *sample_shown; /* escaped: it is a file name */
	const char *verdict, *detail;
	size_t cases_passed, cases_total, cases_to_time;
	double wall_ms;
	const char *stderr_tail; /* the worker's, unescaped; "" when none */
};

struct eval_hooks {
	void (*candidate)(void *data, const struct eval_event *ev);
	void (*reused)(void *data, const struct task *t, const char *sample_shown,
		       const char *verdict, long long passed, long long total);
	void *data;
};

/* What a finished eval_run leaves for the caller's report. */
struct eval_outcome {
	struct store *store; /* owned: eval_outcome_release() closes it */
	long long run_id;
	const char *platform;	 /* the profile's runtime; owned by the outcome's profiles */
	size_t tasks_skipped;	 /* selected tasks without a candidate */
	size_t env_failures;	 /* candidates not evaluated: the platform did not start */
	json_t *sandbox;	 /* owned: what the workers' sandbox applied */
	struct profile_set *profiles;
};

/*
 * Evaluates o (o->profile is set on return) and fills *ret, which the caller releases even
 * on failure. Returns a KGB_EXIT_* code; the errors are printed.
 */
int eval_run(struct eval_opts *o, struct kgb_ctx *kctx, const struct eval_hooks *hooks,
	     struct eval_outcome *ret);
void eval_outcome_release(struct eval_outcome *o);

/*
 * The selected tasks of cat that have a candidate on `platform` (o->profile, when set,
 * filters by source), in catalog order: *ret_tasks (owned array of borrowed tasks) and
 * *ret_counts (owned: candidates per task), *ret_nr of them. 0, or -ENOENT (no such task or
 * --solutions directory) or another negative errno, with *err set.
 */
int eval_collect_tasks(const struct eval_opts *o, const struct catalog *cat,
		       const char *platform, const struct task ***ret_tasks, size_t **ret_counts,
		       size_t *ret_nr, struct strbuf *err);

/*
 * Whether task t is one a run selects: of `source` (NULL: any), runnable on `runtime` and, with
 * a profile, of a source it supports, and one of the nr_tasks names (none: every task). eval
 * and generate select their tasks with it.
 */
struct catalog;
struct profile;
bool eval_task_selected(const struct catalog *cat, const struct task *t, const char *source,
			const char *const *tasks, size_t nr_tasks, const char *runtime,
			const struct profile *prof);

#endif
