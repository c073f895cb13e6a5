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
 * Every worker runs in the sandbox of o->box (sandbox.h) with o->limits: its working directory
 * <scratch_root>/slot<i>-<seq> is a fresh tmpfs, the job's Triton cache
 * <scratch_root>/triton-<key> stays writable (and persists, for the candidate's timing job) up
 * to limits.cache_bytes (over it: `crash`), everything else under scratch_root is hidden, so
 * are o->hidden but for o->visible, the job's task directory and its candidate, and the rest of
 * the filesystem is read-only. TMPDIR and HOME point at the scratch directory.
 *
 * A misbehaving candidate is data, not an error: sched_run() returns negative only when kgb
 * itself cannot go on (cannot fork, the callback failed, a strict sandbox is missing a
 * facility), after killing every running worker. A worker that exceeds a limit gets `crash`
 * with the limit named in the detail ("killed by signal 24 (SIGXCPU): CPU time limit 600 s",
 * "memory limit exceeded", "output limit: more than 64 MiB on stderr").
 */
#ifndef KGB_SCHED_H
#define KGB_SCHED_H

#include <jansson.h>
#include <stdbool.h>

#include "catalog.h"
#include "sandbox.h"
#include "util/compiler.h"
#include "util/strbuf.h"

/* The judge's exit status when its runner died or stopped answering (runtime/worker.py). */
#define SCHED_EXIT_RUNNER_LOST 6
/* The same of its replay runner (sched_opts.replay_argv). */
#define SCHED_EXIT_REPLAY_LOST 7

/* Keep at most this much of a worker's stderr (its end) for the verdict detail. */
#define SCHED_STDERR_TAIL 4096
/* A worker that writes more than this to stderr (a print loop) is stopped: `crash`. */
#define SCHED_MAX_STDERR_BYTES (64ULL << 20)

struct sched_job {
	const struct task *task; /* borrowed */
	size_t nr_cases;
	const char *job_line;	 /* borrowed; one line ending in '\n' */
	const char *cache_key;	 /* borrowed or NULL: jobs with one key share a Triton cache */
	/*
	 * Borrowed or NULL: the candidate's file, kept visible (read-only) to its worker where
	 * o->hidden covers it (`eval --solutions DIR` hides DIR: the other candidates), as is the
	 * task's directory (task->dir) where it covers the catalog.
	 */
	const char *candidate;
	bool replay;		 /* the job runs the L2 ghost replay: a replay runner (replay_argv) */
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
	/*
	 * Where the per-candidate Triton caches go (<cache_root>/triton-<key>), or NULL: under
	 * scratch_root, gone with the run. When set it contains scratch_root, and the whole of it
	 * is hidden from workers (each sees its own cache and scratch only).
	 */
	const char *cache_root;
	const char *const *slot_devices; /* CUDA_VISIBLE_DEVICES per slot, or NULL */
	/*
	 * Workers started ahead per slot (DESIGN §2 Throughput): each imports torch and triton
	 * while the slot's current job runs, and gets its job line (and its timeout clock) only
	 * once the slot is free. Worth it where a slot's jobs are short and the slot is a GPU
	 * that would otherwise idle through the import; the worker touches no GPU before its job.
	 */
	unsigned standby;
	/*
	 * > 0: the GPU lock of timing workers that share a GPU (runtime/gpulock.py), an open
	 * read-write file above SANDBOX_PASS_FD, borrowed. Each worker gets it as fd
	 * SANDBOX_PASS_FD and KGB_GPU_LOCK=<fd>:<k>, k numbering the slot's GPU (the first slot
	 * with the same slot_devices entry). 0: none (one worker per GPU needs no lock).
	 */
	int gpu_lock_fd;
	struct sandbox *box;	   /* borrowed; NULL: no sandbox (sandbox.h) */
	struct sandbox_limits limits;
	/*
	 * What every worker's sandbox hides and keeps visible, the device nodes of its /dev and
	 * the variables it keeps: NULL-terminated lists, borrowed, NULL for none (sandbox_opts).
	 */
	const char *const *hidden;
	const char *const *visible;
	/*
	 * The trust boundary (docs/security.md): with runner_argv set, each job is two processes
	 * in sandboxes of their own. The judge (argv) never imports the candidate: it holds the
	 * job, the protocol channel to kgb (its stdout), the task's reference, every comparison
	 * and verdict, and the GPU lock. The runner (runner_argv) imports and runs the candidate
	 * and talks only to its judge, over a socket each gets as fd SANDBOX_PEER_FD; kgb reads
	 * only its output's tail and its exit. The runner sees runner_hidden (or hidden) and
	 * neither the task's directory nor anything of the judge. A judge that says its runner
	 * stopped answering (exit status SCHED_EXIT_RUNNER_LOST) ends the job as the runner's
	 * death: `crash` with how it ended. NULL: one worker does both (`kgb sandbox-exec`).
	 */
	char *const *runner_argv;
	/*
	 * With runner_argv: the L2 ghost replay's runner of each job marked `replay`, a second
	 * candidate process started beside the first in a sandbox like it, given to the judge as
	 * fd SANDBOX_REPLAY_FD, so that the replay shares no state with the calls it checks. It
	 * waits for its judge before it imports anything. A judge that loses it exits with
	 * SCHED_EXIT_REPLAY_LOST. NULL: the replay runs in the runner.
	 */
	char *const *replay_argv;
	const char *const *runner_hidden;
	const char *const *dev_nodes;
	const char *const *env_allow;
};

/*
 * CUDA_VISIBLE_DEVICES for each of `slots` slots sharing `ngpu` GPUs round-robin (slot i gets
 * GPU i % ngpu, so slots 0..ngpu-1 are one per GPU): the i % ngpu-th entry of `visible`, the
 * parent's own CUDA_VISIBLE_DEVICES (a Slurm job's GRES, "2,3", or UUIDs), when it is set and
 * non-empty, else the index itself. A parent limited to GPUs 2 and 3 must not hand its workers
 * "0" and "1": those name other jobs' GPUs. Returns a NULL-terminated array of `slots` strings;
 * free with sched_slot_devices_free(). -EINVAL (NULL, message in err) when `visible` lists
 * fewer than ngpu devices.
 */
char **sched_slot_devices(const char *visible, unsigned ngpu, unsigned slots,
			  struct strbuf *err) KGB_WUR;
void sched_slot_devices_free(char **devices);

/*
 * The limits of a worker on `platform` with `slots` workers at once: CPU time twice the
 * timeout times the worker's share of the cores; address space the worker's share of the
 * RAM (at least 4 GiB) on the interpreter, none on cuda (CUDA reserves terabytes of virtual
 * address space); 1024 processes and threads; 4096 files; 1 GiB per file and of scratch;
 * 512 MiB of Triton cache.
 */
void sched_default_limits(struct sandbox_limits *ret, const char *platform, double timeout_s,
			  unsigned slots);

/*
 * Starts `true` exactly as a worker of slot 0 would start (scratch, cache, sandbox, limits)
 * and returns what its sandbox applied; negative when it cannot start (strict mode and a
 * facility missing: -EPERM).
 */
int sched_probe_sandbox(const struct sched_opts *o, struct sandbox_report *ret,
			struct strbuf *err) KGB_WUR;

/* What sched_exec() saw. */
struct sched_exec_result {
	int status;		  /* wait status */
	bool timed_out;
	bool over_quota;	  /* its Triton cache went over limits.cache_bytes (detail says) */
	struct sandbox_report report;
	struct strbuf detail;	  /* how it ended (sandbox_describe_exit) */
};

/*
 * Runs argv as a worker of slot 0 would run (the same scratch, Triton cache, environment,
 * sandbox and limits), with kgb's own stdin, stdout and stderr, under o->timeout_s; for
 * `kgb sandbox-exec`. The caller releases ret->detail.
 */
int sched_exec(const struct sched_opts *o, char *const *argv, struct sched_exec_result *ret,
	       struct strbuf *err) KGB_WUR;

/*
 * The verdict of a job whose worker reported every case: `hack` if any case is one, else the
 * verdict of the first case that did not pass (an `error` that is the host running out of
 * memory counts as `crash`), else `pass`; sets r->verdict and r->detail ("case N: message").
 * Exported for the evaluation engine (eval.c), which judges a candidate checked in several jobs on all its cases.
 */
void sched_judge_cases(const struct sched_opts *o, json_t *cases, size_t nr,
		       struct sched_result *r);

typedef int (*sched_done_fn)(void *ctx, struct sched_job *job, struct sched_result *res);

int sched_run(const struct sched_opts *o, struct sched_job *jobs, size_t nr, sched_done_fn done,
	      void *ctx, struct strbuf *err) KGB_WUR;

#endif
