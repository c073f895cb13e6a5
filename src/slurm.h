/*
 * slurm.h - running a kgb evaluation as shards of a Slurm array job (DESIGN §7, docs/cluster.md).
 *
 * kgb is no cluster manager: it writes a plan, submits the shards with `sbatch --array`, and
 * reads their progress back from their store files and from `squeue`/`sacct`. Everything lives
 * in one run directory on the filesystem the cluster shares:
 *
 *   DIR/plan.json     the plan (kgb.slurm.plan.v1): the command the shards run (eval, or
 *                     generate), the shards, each a platform and its tasks, and the options
 *                     every shard's command gets; written once, a rerun with other tasks or
 *                     options is refused
 *   DIR/shard.sh      the batch script (constant text: no user input is ever put in a shell
 *                     string; kgb's path and DIR are its arguments)
 *   DIR/jobs.tsv      one line per sbatch: "<job id>\t<array indices>", appended
 *   DIR/shard-K.db    shard K's own store (one writer: the shard's job), merged by `kgb merge`
 *   DIR/logs/         each array task's output
 *
 * Call sequence (slurm_run.c, for cmd_eval.c and cmd_generate.c): build a struct slurm_plan → slurm_plan_reconcile() (writes it, or
 * checks it against the one in DIR) → slurm_run_status() → slurm_submit() for the shards that
 * are neither done nor queued (one array job per platform) → once every shard is done, merge
 * (store_merge()). Each array task runs `kgb eval --run-dir DIR --shard K` (or `kgb generate`,
 * the plan's command), which reads the plan back (slurm_plan_load()).
 *
 * Clients run through fork/exec with an argv (slurm_exec()), never a shell. Errors: negative
 * errno with a message in err; -ENOENT when a client or a file is missing.
 */
#ifndef KGB_SLURM_H
#define KGB_SLURM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/compiler.h"
#include "util/strbuf.h"

/* Slurm's job states, folded into what kgb decides on. */
enum slurm_state {
	SLURM_STATE_PENDING,   /* PENDING, CONFIGURING, REQUEUED, RESIZING, SUSPENDED... */
	SLURM_STATE_RUNNING,   /* RUNNING, COMPLETING, STAGE_OUT */
	SLURM_STATE_COMPLETED, /* COMPLETED: exit 0 (the shard's store still decides "done") */
	SLURM_STATE_FAILED,    /* FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE */
	SLURM_STATE_CANCELLED, /* CANCELLED (scancel, or the admin) */
	SLURM_STATE_PREEMPTED,
	SLURM_STATE_UNKNOWN, /* no client knows the job any more (or a state kgb does not know) */
	_SLURM_STATE_MAX,
	_SLURM_STATE_INVALID = -22,
};

/* "CANCELLED by 0" → SLURM_STATE_CANCELLED; a name kgb does not know → SLURM_STATE_UNKNOWN. */
enum slurm_state slurm_state_from_string(const char *s);
const char *slurm_state_to_string(enum slurm_state s);

/* One job or array task as a Slurm client printed it. */
struct slurm_task_state {
	long long job_id;  /* the array job's id */
	long long task_id; /* the array index; -1 for a job that is no array */
	enum slurm_state state;
};

/*
 * Parses "JOBID|STATE" lines: `squeue -r -h -t all -o '%i|%T'` and `sacct -n -P -X -o
 * JobID,State` print them. JOBID is "123", "123_4", or a pending array's "123_[4-6,9%2]"
 * (expanded, the throttle dropped). Blank lines and job steps ("123.batch") are skipped.
 * Appends to *v (*nr entries, grown); -EBADMSG with the line in err on a malformed one.
 */
int slurm_parse_states(const char *text, struct slurm_task_state **v, size_t *nr,
		       struct strbuf *err) KGB_WUR;
/* `sbatch --parsable` output: "123" or "123;cluster" → 123. -EBADMSG otherwise. */
int slurm_parse_sbatch(const char *text, long long *ret_job_id, struct strbuf *err) KGB_WUR;
/*
 * An index list "0-3,5,7-8" (Slurm's --array syntax, a "%N" throttle ignored) into *v (a new
 * array of *ret_nr entries, ascending as written). -EBADMSG on anything else, or above max.
 */
int slurm_parse_ranges(const char *s, size_t max, size_t **ret, size_t *ret_nr) KGB_WUR;

/*
 * Runs a client (argv[0] looked up in PATH) with stdin from /dev/null, at most timeout_s: 0
 * with its stdout in *out (appended, capped at 16 MiB) when it exits 0. -ENOENT when it cannot
 * be started, -ETIMEDOUT (killed), -EIO when it exits non-zero: err gets "'<argv0>' exited N:
 * <its stderr, last line>".
 */
int slurm_exec(const char *const *argv, double timeout_s, struct strbuf *out,
	       struct strbuf *err) KGB_WUR;

/* A shard: a platform and its tasks ("source/op"), and how many candidates they hold. */
struct slurm_shard {
	char *platform;
	char **tasks; /* NULL-terminated */
	size_t nr_tasks;
	size_t candidates; /* a generation shard: its tasks */
};

struct slurm_plan {
	char *tasks_dir;  /* the catalog, absolute */
	char *command;	  /* "generate", or NULL: eval (the JSON has no "command" then) */
	char **eval_args; /* NULL-terminated: the command's options every shard gets */
	struct slurm_shard *shards;
	size_t nr_shards;
};

/* Frees the contents; the plan is zeroed. */
void slurm_plan_release(struct slurm_plan *p);
/* Appends a shard (takes nothing: strings are copied); returns it, for its tasks. */
struct slurm_shard *slurm_plan_add_shard(struct slurm_plan *p, const char *platform);
void slurm_shard_add_task(struct slurm_shard *s, const char *task);
json_t *slurm_plan_to_json(const struct slurm_plan *p);
int slurm_plan_from_json(json_t *j, struct slurm_plan *ret, struct strbuf *err) KGB_WUR;
/* Reads DIR/plan.json into *ret: -ENOENT when there is none, -EBADMSG when it is malformed. */
int slurm_plan_load(const char *run_dir, struct slurm_plan *ret, struct strbuf *err) KGB_WUR;
/*
 * Creates DIR (and DIR/logs), writes the plan and the batch script when DIR has no plan yet,
 * else checks that DIR's plan is this one: -EEXIST (err says what differs) when it is not.
 * *ret_new is set to whether the plan was written now.
 */
int slurm_plan_reconcile(const struct slurm_plan *p, const char *run_dir, bool *ret_new,
			 struct strbuf *err) KGB_WUR;
/* Whether the plan's shards run `kgb generate` (else `kgb eval`). */
bool slurm_plan_generates(const struct slurm_plan *p);
/* DIR/shard-K.db; owned. */
char *slurm_shard_store(const char *run_dir, size_t k);

/* Where a platform's shards go: a partition (or none: the cluster's default) and GRES. */
struct slurm_part {
	const char *platform; /* NULL: every platform without its own entry */
	const char *value;
};

/* sbatch settings of one submission (the command line's; not part of the plan). */
struct slurm_submit_opts {
	const struct slurm_part *partitions, *gres, *constraints;
	size_t nr_partitions, nr_gres, nr_constraints;
	const char *time, *mem, *account, *qos; /* NULL: Slurm's default */
	unsigned cpus_per_task;			/* 0: Slurm's default */
	const char *const *extra;		/* NULL-terminated extra sbatch options, or NULL */
	const char *kgb;			/* the kgb binary the shards run, absolute */
	const char *job_name;
	const char *command; /* the plan's command, the script's $3; NULL (or "eval"): none */
};

/* The value of a platform's entry in v (its own, else the default entry), or NULL. */
const char *slurm_part_lookup(const struct slurm_part *v, size_t n, const char *platform);
/*
 * The sbatch argv (NULL-terminated, owned: strv_free) that submits shards idx[0..n) of
 * `platform` as one array job.
 */
char **slurm_sbatch_argv(const struct slurm_submit_opts *so, const char *run_dir,
			 const char *platform, const size_t *idx, size_t n);
/*
 * Submits shards idx[0..n) (all of `platform`) as one array job and records it in DIR/jobs.tsv.
 */
int slurm_submit(const struct slurm_submit_opts *so, const char *run_dir, const char *platform,
		 const size_t *idx, size_t n, long long *ret_job_id, struct strbuf *err) KGB_WUR;

/* What kgb makes of a shard. */
enum slurm_shard_state {
	SLURM_SHARD_DONE,	/* its store holds a finished run of all its candidates (of a
				 * generation shard: a finished generate run of all its tasks) */
	SLURM_SHARD_PENDING,
	SLURM_SHARD_RUNNING,
	SLURM_SHARD_FAILED,	/* failed, timed out, or ended without finishing its store */
	SLURM_SHARD_CANCELLED,
	SLURM_SHARD_PREEMPTED,
	SLURM_SHARD_LOST,	/* submitted, but no client knows the job and the store is not done */
	SLURM_SHARD_NEW,	/* never submitted */
	_SLURM_SHARD_MAX,
};

const char *slurm_shard_state_to_string(enum slurm_shard_state s);
/* Whether a rerun submits a shard in this state again: all but done, pending and running. */
bool slurm_shard_needs_submit(enum slurm_shard_state s);

struct slurm_shard_status {
	enum slurm_shard_state state;
	enum slurm_state slurm; /* what Slurm said; SLURM_STATE_UNKNOWN without a job */
	long long job_id, task_id; /* the latest submission; 0, -1 without one */
	long long done;		   /* candidates with a stored result in the shard's store
				    * (generation: tasks with a stored generation) */
	size_t total;		   /* the shard's candidates (plan; generation: tasks) */
};

/*
 * The state of every shard of the plan in DIR into ret[0..p->nr_shards): its submissions
 * (DIR/jobs.tsv), what squeue (then sacct, for jobs squeue no longer shows) says of them, and
 * its store. A malformed jobs.tsv or store: negative errno. When squeue itself fails (the
 * controller unreachable), every shard is still filled in, with Slurm's state unknown, and
 * -EAGAIN is returned with squeue's message: nothing may be resubmitted on that view, since a
 * shard still running would get a second writer.
 */
int slurm_run_status(const struct slurm_plan *p, const char *run_dir,
		     struct slurm_shard_status *ret, struct strbuf *err) KGB_WUR;

/*
 * The shard's view of a state of the pure parts: given what Slurm says and what the store
 * holds, the shard's state. `submitted`: a job was ever recorded for it.
 */
enum slurm_shard_state slurm_shard_decide(bool submitted, enum slurm_state slurm, bool complete);

/*
 * Prints the shards' states: a table (shard, platform, job, state, candidates done of total,
 * tasks) and a closing line, or with json one kgb.slurm.shard.v1 record per shard and a
 * kgb.slurm.status.v1 summary (docs/cli.md).
 */
void slurm_status_write(FILE *f, const struct slurm_plan *p, const struct slurm_shard_status *st,
			bool json);

#endif
