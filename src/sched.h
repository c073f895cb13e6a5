/*
 * sched.h - runs evaluation jobs on worker slots (DESIGN §2: one slot per GPU, or CPU slots).
 *
 * The caller prepares jobs (task, candidate, rendered job line); sched_run() starts up to
 * `slots` workers at once, each in its own sandboxed process with a private scratch directory,
 * streams the job in and the result lines out through one poll() loop, enforces the wall-clock
 * timeout, and turns whatever happened (results, fatal load error, crash, hang, garbage on the
 * wire) into a sched_result with one candidate verdict. Each finished job is handed to the
 * `done` callback at once, so the caller can commit it before the next one ends.
 *
 * A misbehaving candidate is data, not an error: sched_run() returns negative only when kgb
 * itself cannot go on (cannot fork, the callback failed), after killing every running worker.
 */
#ifndef KGB_SCHED_H
#define KGB_SCHED_H

#include <jansson.h>
#include <stdbool.h>

#include "catalog.h"
#include "util/compiler.h"
#include "util/strbuf.h"

/* Keep at most this much of a worker's stderr (its end) for the verdict detail. */
#define SCHED_STDERR_TAIL 4096

struct sched_job {
	const struct task *task; /* borrowed */
	size_t nr_cases;
	const char *job_line;	 /* borrowed; one line ending in '\n' */
	const char *cache_key;	 /* borrowed or NULL: jobs with one key share a Triton cache */
	void *data;		 /* the caller's */
};

struct sched_result {
	const char *verdict;	  /* static string: pass, mismatch, ..., crash, timeout, protocol */
	struct strbuf detail;	  /* one line explaining a non-pass verdict */
	json_t *cases;		  /* owned: case messages by id, null where never reported */
	json_t *hello;		  /* owned or NULL */
	size_t cases_done;
	double import_ms;	  /* < 0 if unknown */
	double wall_ms;
	struct strbuf stderr_tail;
};

struct sched_opts {
	unsigned slots;
	double timeout_s;
	char *const *argv;	   /* worker command */
	char *const *env;	   /* base environment of every worker */
	const char *scratch_root;  /* scratch directories are made below it */
	const char *const *slot_devices; /* CUDA_VISIBLE_DEVICES per slot, or NULL */
};

typedef int (*sched_done_fn)(void *ctx, struct sched_job *job, struct sched_result *res);

int sched_run(const struct sched_opts *o, struct sched_job *jobs, size_t nr, sched_done_fn done,
	      void *ctx, struct strbuf *err) KGB_WUR;

#endif
