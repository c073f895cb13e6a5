/*
 * store.h - the results store: one SQLite file (WAL) holding runs, evaluations and cases.
 *
 * An evaluation is keyed by its content address (store_eval_key(): candidate hash, task version,
 * platform, harness version, seed), so a result computed once is reused by every later run with
 * the same inputs, and a killed run resumes where it stopped. Each evaluation and its cases are
 * written in one transaction: a reader sees all of it or none.
 *
 * Call sequence: store_open() → store_run_begin() → per candidate store_eval_get() (reuse) or
 * store_eval_put() (fresh), then store_run_link() → store_run_end() → store_free().
 * Errors: negative errno with the SQLite message in err; -EBUSY when another writer holds the
 * store past the busy timeout.
 */
#ifndef KGB_STORE_H
#define KGB_STORE_H

#include <jansson.h>
#include <stdbool.h>

#include "util/compiler.h"
#include "util/hash.h"
#include "util/strbuf.h"

/*
 * 2 added evaluations.cases_skipped (cases the platform cannot judge, not run); store_open()
 * migrates a schema-1 store in place, read-only opens refuse one.
 */
#define STORE_SCHEMA_VERSION 2

struct store;

struct store_eval {
	char key[HASH_HEX_LEN + 1];
	char *task, *source, *task_version, *candidate_hash, *candidate_path, *sample;
	char *platform, *harness;
	char *verdict, *detail;
	long long cases_total, cases_passed, timed_cases;
	long long cases_skipped; /* not run: the platform cannot judge them (profile.h) */
	char *first_failure; /* JSON text or NULL */
	double speedup;	     /* geometric mean over timed cases; NAN when untimed */
	double import_ms, wall_ms;
	double max_tol_use; /* largest tol_use over the cases; NAN if none */
};

/* Strings in a store_eval filled by the store are owned by it; release with this. */
void store_eval_release(struct store_eval *e);

void store_eval_key(const char *candidate_hash, const char *task_version, const char *platform,
		    const char *harness, unsigned long long seed, char out[HASH_HEX_LEN + 1]);

/*
 * Opens the store at path read-write, creating it, adding tables a store of an older kgb lacks
 * and migrating schema 1; in WAL mode. A file it refuses (another application's database, a
 * store of another schema: -EPROTO) is left as it was.
 */
int store_open(const char *path, struct store **ret, struct strbuf *err) KGB_WUR;
/*
 * An existing store, read-only: nothing is created, migrated or locked for writing (eval
 * --history reads its past wall times, which schema 1 has alike). -ENOENT when the file is
 * missing; -EPROTO when it is not a store of this schema or of schema 1.
 */
int store_open_readonly(const char *path, struct store **ret, struct strbuf *err) KGB_WUR;
void store_free(struct store *s);
int store_run_begin(struct store *s, const char *platform, const char *harness,
		    const char *command, const char *env_json, long long *ret_run_id,
		    struct strbuf *err) KGB_WUR;
int store_run_end(struct store *s, long long run_id, struct strbuf *err) KGB_WUR;
/*
 * The command line a `kgb generate` run records, and so do the evaluations it makes of its
 * candidates (with their engine's harness, not "generate"): store_run_info() tells them apart.
 */
#define STORE_GENERATE_COMMAND "kgb generate"

/*
 * A run's platform and env JSON (either may be NULL; both owned by the caller): the run
 * *io_run_id, or the latest when it is <= 0 (then set to its id): the latest a command
 * started, not an evaluation a `kgb generate` run made of its candidates (part of that run).
 * -ENOENT when there is none.
 */
int store_run_info(struct store *s, long long *io_run_id, char **ret_platform, char **ret_env,
		   struct strbuf *err) KGB_WUR;
/*
 * The measured ceilings of a device under a software stack (ceilings.h): 0 and *ret_json (owned
 * by the caller) when present, -ENOENT when absent. put replaces an older measurement.
 */
int store_ceilings_get(struct store *s, const char *device, const char *stack, char **ret_json,
		       struct strbuf *err) KGB_WUR;
int store_ceilings_put(struct store *s, const char *device, const char *stack, const char *json,
		       struct strbuf *err) KGB_WUR;
/* 0 and *ret filled when present; -ENOENT when absent. */
int store_eval_get(struct store *s, const char *key, struct store_eval *ret, struct strbuf *err)
	KGB_WUR;
/*
 * Inserts the evaluation with its case rows (array of objects, see store.c) and links it to the
 * run, atomically.
 */
int store_eval_put(struct store *s, long long run_id, const struct store_eval *e, json_t *cases,
		   struct strbuf *err) KGB_WUR;
/* Records that this run's candidate (e->task, e->sample, e->candidate_path) has result e->key. */
int store_run_link(struct store *s, long long run_id, const struct store_eval *e, bool reused,
		   struct strbuf *err) KGB_WUR;
/*
 * Per-entry (per-overload) case counts of an evaluation: a new JSON object
 * {"<entry>": {"passed": n, "total": m}, ...} in *ret.
 */
int store_eval_entries(struct store *s, const char *key, json_t **ret, struct strbuf *err)
	KGB_WUR;
/*
 * A candidate's checking result kept until its timing job ends (DESIGN §2: a killed run loses
 * no finished work): a resumed run times it without checking it again. The key is the
 * evaluation's; store_eval_put() deletes the row once the evaluation is stored. get: a new
 * string in *ret_json, -ENOENT when there is none.
 */
int store_check_put(struct store *s, const char *key, const char *json, struct strbuf *err) KGB_WUR;
int store_check_get(struct store *s, const char *key, char **ret_json, struct strbuf *err) KGB_WUR;

/*
 * One request of `kgb generate` (generate.h) as a row of the generations table: `row` maps its
 * column names to values (integers, reals, strings; absent, null or non-finite: NULL). A row of
 * the same run, task, sample, round and stage is replaced.
 */
int store_generation_put(struct store *s, long long run_id, json_t *row, struct strbuf *err)
	KGB_WUR;
/*
 * The requests of run run_id as a new JSON array of such objects (every column, null where
 * NULL), ordered by source, task, sample, round and stage.
 */
int store_generations_get(struct store *s, long long run_id, json_t **ret, struct strbuf *err)
	KGB_WUR;

/*
 * The longest wall time (ms) any stored evaluation of source/task on platform took, whatever
 * the candidate or harness: NAN when there is none. Orders checking jobs (eval.c).
 */
int store_task_wall_ms(struct store *s, const char *source, const char *task,
		       const char *platform, double *ret_ms, struct strbuf *err) KGB_WUR;
/* The median sol_fraction of an evaluation's timed cases (ceilings.h); NAN when none has one. */
int store_eval_sol(struct store *s, const char *key, double *ret_median, struct strbuf *err)
	KGB_WUR;
/* The evaluations of a run in task order; *ret is an owned array of *ret_nr elements. */
int store_run_evals(struct store *s, long long run_id, struct store_eval **ret, size_t *ret_nr,
		    bool **ret_reused, struct strbuf *err) KGB_WUR;

/*
 * Shard stores and merging (DESIGN §7, docs/cluster.md). A shard of a Slurm run writes its own
 * store file; store_merge() folds one into another, idempotently: an evaluation (and its cases)
 * is copied only when its key is new (same key = same result; a key present with another
 * verdict is counted in `conflicts` and kept as it was); each candidate the source's runs
 * linked is linked to one run of the destination per platform, the run whose command is
 * "kgb merge --label <label>" (created on first use), the source's latest run winning for a
 * candidate linked twice. The requests (generations) of the source's latest finished generate
 * run of each platform go likewise to one generate run of the destination per platform, the
 * run whose command is "kgb merge --label <label> (generate)"; a request already there (same
 * task, sample, round and stage) is kept. One transaction per source file: a merge stopped
 * half-way leaves the destination as it was before that file. Merging the same file again adds
 * nothing.
 */
struct store_merge_stats {
	long long evaluations_added; /* new keys */
	long long evaluations_known; /* keys the destination had */
	long long conflicts;	     /* of those, stored with another verdict */
	long long cases_added;
	long long links_added; /* candidates linked to a merged run, or linked anew */
	long long ceilings_added;
	long long generations_added; /* rows of the generations table */
};

/*
 * Folds the store file src_path into s (see above), adding to *stats. -ENOENT when src_path
 * is not a file; -EPROTO when it is not a kgb store of this schema.
 */
int store_merge(struct store *s, const char *src_path, const char *label,
		struct store_merge_stats *stats, struct strbuf *err) KGB_WUR;
/*
 * The runs store_merge() made for `label`: new arrays of ids and platforms (strv_free) of
 * *ret_nr elements, in platform order; none is not an error.
 */
int store_merge_runs(struct store *s, const char *label, long long **ret_ids,
		     char ***ret_platforms, size_t *ret_nr, struct strbuf *err) KGB_WUR;

/*
 * Likewise the generate runs store_merge() made for `label` (command "kgb merge --label <label>
 * (generate)"): the requests of `kgb generate` shards, one run per platform profile.
 */
int store_merge_gen_runs(struct store *s, const char *label, long long **ret_ids,
			 char ***ret_platforms, size_t *ret_nr, struct strbuf *err) KGB_WUR;

/* A shard store's progress, read without writing to it (store_progress()). */
struct store_progress {
	long long candidates;	  /* distinct (task, sample) linked to a stored evaluation */
	long long finished_runs;  /* runs that ended (kgb eval reached its end) */
	long long finished_links; /* the most candidates any finished run linked */
	/* `kgb generate` shards: distinct tasks with a stored generation (any run), and the
	 * most distinct tasks any finished generate run (harness "generate") stored. */
	long long generated_tasks, finished_generated_tasks;
};

/*
 * Reads the progress of the store file at `path` read-only (a shard's job may be writing it):
 * -ENOENT when there is no such file.
 */
int store_progress(const char *path, struct store_progress *ret, struct strbuf *err) KGB_WUR;
/*
 * The row of run run_id: its start time, command line and harness label (owned; each may be
 * NULL). 0, -ENOENT when there is no such run, or a negative errno.
 */
int store_run_row(struct store *s, long long run_id, char **ret_started_at, char **ret_command,
		  char **ret_harness, struct strbuf *err) KGB_WUR;

/* A first-round request of a generation run (round 0 of stage "generate": what Pass@k is over). */
struct store_attempt {
	char *task, *source, *outcome, *error; /* owned; error may be NULL */
	char *eval_key; /* owned; NULL when the reply had no code */
	long long sample;
};
/* Those of run_id, by source, task and sample, into *ret (owned: store_attempts_free()). */
int store_first_attempts(struct store *s, long long run_id, struct store_attempt **ret,
			 size_t *ret_nr, struct strbuf *err) KGB_WUR;
void store_attempts_free(struct store_attempt *v, size_t n);

/* A generation run's totals over every request. */
struct store_gen_totals {
	long long tokens;     /* prompt + completion; -1 when the run has no requests */
	double cost_usd;      /* NAN unless every request (no final evaluation) has a cost */
	double time_ms;	      /* model latency + evaluation; NAN when none */
	size_t tasks, solved; /* tasks, and tasks with a passing request (any round) */
	char *model, *track;  /* owned; NULL when none */
};
int store_generation_totals(struct store *s, long long run_id, struct store_gen_totals *ret,
			    struct strbuf *err) KGB_WUR;

/*
 * Every stored case of evaluation `key` in case order, as objects named by the cases table's
 * columns (case_id, entry, axes, timed, verdict, max_abs_err, tol_use, atol, rtol,
 * time_base_ms, time_cand_ms, speedup, detail); a real that is not finite and text that is
 * not UTF-8 are null.
 */
int store_eval_cases(struct store *s, const char *key, json_t **ret, struct strbuf *err) KGB_WUR;

/*
 * Switches the store from WAL to SQLite's rollback journal, for a file on a network filesystem
 * that processes on other hosts read while this one writes (WAL's shared memory is per host).
 */
int store_use_rollback_journal(struct store *s, struct strbuf *err) KGB_WUR;

#endif
