/*
 * sandbox.h - starting and stopping untrusted worker processes, and the sandbox around them
 * (DESIGN §2 "Isolation"; docs/security.md says what each layer enforces and where it stops).
 *
 * Call sequence (git's run-command.h style):
 *   1. once per run: sandbox_new(mode) prepares what every worker shares (the seccomp programs,
 *      the pids and memory cgroups), and removes cgroups of kgb processes that died;
 *   2. per worker, fill struct sandbox_opts (argv, envp, cwd, the box, the directories to hide
 *      and keep writable, limits);
 *   3. sandbox_spawn(): fork + exec at once. The child gets its own session (setsid: no
 *      controlling terminal, so no /dev/tty and no TIOCSTI into kgb's terminal) and process
 *      group, a parent-death signal, stdin/stdout/stderr on pipes and no other inherited fd.
 *      Under a box it then enters, in this order, each step best-effort: a pids cgroup and a
 *      memory cgroup; an environment reduced to an allow-list; new user, network
 *      and mount namespaces (uid and gid mapped to themselves; no network; every mount read-only
 *      except a fresh size-capped tmpfs at cwd and the `writable` directories; the contents of
 *      `hide` replaced by an empty tmpfs; the `hidden` paths covered but for the `visible`
 *      ones; a /dev of its own with the few device nodes named, and a fresh /dev/shm); a pid
 *      namespace with a fresh, writable /proc of its own
 *      (/proc/sys, sysrq-trigger, irq, bus, fs and acpi read-only), in which the worker is
 *      pid 2 under a pid 1 that only reaps, while the process kgb knows (child->pid) stays
 *      outside and ends exactly as the worker ends (same exit status or same signal: see
 *      child_pidns()); resource limits (CPU time, open files, file size, processes,
 *      address space, no core dumps); an empty capability bounding set (no capability after
 *      exec, even as root); PR_SET_NO_NEW_PRIVS; a seccomp filter that fails with
 *      EPERM the calls no worker needs (sockets other than AF_UNIX, ptrace, mount, namespaces,
 *      bpf, modules, keyrings...), and a second one for connect, bind and datagram sockets
 *      (no Unix socket peer outside). Before exec, the child reports what it applied over a pipe;
 *      sandbox_spawn() returns that in child->report. A step that fails is recorded there, not
 *      fatal, except in SANDBOX_STRICT mode, where the child stops before exec and
 *      sandbox_spawn() fails with -EPERM naming the facility;
 *   4. talk over child.in_fd / out_fd / err_fd (all O_CLOEXEC, non-blocking in the parent);
 *   5. sandbox_reap() when it may have exited (pidfd readable, or periodically: it also checks
 *      the cache cap every 200 ms, and kills the group over it);
 *   6. sandbox_kill_group() on timeout, and always once after exit (stray grandchildren; with a
 *      pids cgroup, also those that left the process group);
 *   7. sandbox_quota_exceeded() once it ended, for the verdict; sandbox_destroy() kills, reaps,
 *      closes fds and removes the worker's cgroups;
 *   8. sandbox_free() at the end of the run.
 *
 * Without a box (opts.box NULL, or a box in SANDBOX_OFF mode) the child gets only the session
 * and process group, the parent-death signal, the fd hygiene and the plain rlimits (CPU, files,
 * file size, no core); that is how kgb runs its own trusted probe.
 */
#ifndef KGB_SANDBOX_H
#define KGB_SANDBOX_H

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "util/compiler.h"
#include "util/strbuf.h"

enum sandbox_mode {
	SANDBOX_OFF,	/* process group, timeout and plain rlimits only */
	SANDBOX_AUTO,	/* every facility that works here; the rest recorded as unavailable */
	SANDBOX_STRICT, /* every facility, or the worker does not start */
	_SANDBOX_MODE_MAX,
	_SANDBOX_MODE_INVALID = -EINVAL,
};

enum sandbox_facility {
	SANDBOX_USERNS,		 /* user namespace; uid and gid mapped to themselves */
	SANDBOX_NETNS,		 /* network namespace: only a loopback that is down */
	SANDBOX_MNTNS,		 /* mount namespace: nothing mounted inside is seen outside */
	SANDBOX_READONLY_FS,	 /* every mount but /dev read-only */
	SANDBOX_PRIVATE_SCRATCH, /* tmpfs scratch at cwd, scratch root hidden, fresh /dev/shm */
	SANDBOX_NPROC,		 /* processes and threads: a pids cgroup, or RLIMIT_NPROC in
				    the user namespace */
	SANDBOX_MEMORY,		 /* address space (RLIMIT_AS), or data (RLIMIT_DATA) on cuda */
	SANDBOX_RLIMITS,	 /* CPU time, open files, file size, no core dumps */
	SANDBOX_CAPS,		 /* no capability after exec, even for root */
	SANDBOX_NO_NEW_PRIVS,	 /* PR_SET_NO_NEW_PRIVS */
	SANDBOX_SECCOMP,	 /* the system call filter */
	SANDBOX_PIDNS,		 /* pid namespace with a fresh /proc (its dangerous parts
				    read-only) */
	SANDBOX_MIN_DEV,	 /* a /dev of its own: sandbox_dev_base and opts.dev_nodes only */
	SANDBOX_MEMCG,		 /* a memory cgroup: resident memory, tmpfs and memfd pages, no
				    swap (v2 memory.max, or v1 memory.limit_in_bytes) */
	SANDBOX_UNIX_SOCKETS,	 /* no connect() or bind(), no datagram socket: no AF_UNIX peer
				    outside the worker (a second seccomp filter) */
	SANDBOX_HIDDEN_PATHS,	 /* opts.hidden covered, opts.visible below them bound back */
	SANDBOX_CLEAN_ENV,	 /* the environment reduced to an allow-list; HOME = cwd */
	SANDBOX_CACHE_CAP,	 /* opts.quota_dir's size checked by kgb; over the cap: killed */
	_SANDBOX_FACILITY_MAX,
};

enum sandbox_state {
	SANDBOX_STATE_OFF,	    /* not asked for (no box, or mode off) */
	SANDBOX_STATE_APPLIED,
	SANDBOX_STATE_UNAVAILABLE,  /* asked for and failed: reason says why */
	SANDBOX_STATE_NOT_ENFORCED, /* left out on purpose (memory on cuda): reason says why */
};

#define SANDBOX_REASON_MAX 160

/* What a child applied; plain bytes, so the child can write it to a pipe before exec. */
struct sandbox_report {
	unsigned char state[_SANDBOX_FACILITY_MAX]; /* enum sandbox_state */
	char reason[_SANDBOX_FACILITY_MAX][SANDBOX_REASON_MAX];
};

struct sandbox_limits {
	unsigned long long cpu_s;	  /* RLIMIT_CPU (SIGXCPU; SIGKILL 5 s later); 0 = none */
	unsigned long long file_bytes;	  /* RLIMIT_FSIZE (SIGXFSZ); 0 = none */
	unsigned long open_files;	  /* RLIMIT_NOFILE; 0 = inherited */
	unsigned long procs;		  /* processes + threads of the worker; 0 = none */
	unsigned long long memory_bytes;  /* RLIMIT_AS (or DATA); 0 = not enforced, see memory_why */
	const char *memory_why;		  /* why memory_bytes is 0 (reported: not enforced) */
	bool memory_data;		  /* RLIMIT_DATA instead of RLIMIT_AS (cuda, see sched.c) */
	unsigned long long scratch_bytes; /* size of the tmpfs mounted at cwd; 0 = 1 GiB */
	/*
	 * Disk space (blocks, at least 4 KiB per file or directory) of opts.quota_dir, checked by
	 * kgb while the child runs and once after (sandbox_quota_exceeded()); 0 = none.
	 */
	unsigned long long cache_bytes;
};

struct sandbox;

struct sandbox_opts {
	char *const *argv;	      /* argv[0] is looked up in PATH */
	char *const *envp;	      /* full environment of the child */
	const char *cwd;	      /* working directory (the private scratch dir) */
	const struct sandbox *box;    /* borrowed; NULL: no sandbox beyond the plain limits */
	const char *hide;	      /* absolute dir whose contents the child does not see, except
					 cwd and the writable dirs below it (the scratch root) */
	const char *const *writable;  /* NULL-terminated absolute dirs kept writable, or NULL */
	/*
	 * NULL-terminated absolute dirs, each covered by an empty read-only tmpfs, or NULL (the
	 * external agent of `kgb generate` must not read the catalog's shipped solutions or the
	 * repository's history). A writable dir must not lie below one.
	 */
	const char *const *hide_also;
	/*
	 * The filesystem view (hidden_paths): each of `hidden` (absolute; a directory gets an
	 * empty read-only tmpfs, a file reads as empty) is covered, and each of `visible` that
	 * lies below one is bound back in, read-only. Both NULL-terminated lists of data
	 * (sandbox_hidden_default, the caller's); nested in either direction: a hidden path below
	 * a visible one below a hidden one is hidden. The worker's own directories (cwd, hide,
	 * writable) may lie below a hidden path: they are made after it.
	 */
	const char *const *hidden;
	const char *const *visible;
	/* Device nodes (glob patterns below /dev: "nvidia[0-9]*") added to sandbox_dev_base. */
	const char *const *dev_nodes;
	/* Variables kept besides sandbox_env_default: NAME or PREFIX* (clean_env). */
	const char *const *env_allow;
	/* The directory whose size limits.cache_bytes caps (the Triton cache), or NULL. */
	const char *quota_dir;
	struct sandbox_limits limits;
	bool inherit_stdio;	      /* child uses kgb's own fds 0-2 (kgb sandbox-exec) */
	/*
	 * > 0: a descriptor of kgb's that the child gets as fd SANDBOX_PASS_FD (the GPU lock of
	 * concurrent timing workers, sched.h); it must be above SANDBOX_REPLAY_FD. 0: none.
	 */
	int pass_fd;
	/*
	 * > 0: a descriptor the child gets as fd SANDBOX_PEER_FD: one end of the socket between
	 * a job's judge and its runner (sched.h); above SANDBOX_REPLAY_FD. 0: none.
	 */
	int peer_fd;
	/* > 0: likewise as fd SANDBOX_REPLAY_FD, the judge's end to its replay runner. 0: none. */
	int replay_fd;
};

#define SANDBOX_PASS_FD 4
#define SANDBOX_PEER_FD 5
#define SANDBOX_REPLAY_FD 6

struct sandbox_child {
	pid_t pid; /* also the process group id; under a pid namespace the worker's keeper,
		      whose wait status and CPU time are the worker's */
	int pidfd; /* -1 where pidfd_open is unavailable */
	int in_fd, out_fd, err_fd; /* -1 with inherit_stdio */
	bool reaped;
	int status;	   /* wait status once reaped */
	double cpu_s;	   /* user + system CPU seconds of the worker itself, once reaped */
	int exec_errno;	   /* why exec failed (the child then exits 127), else 0 */
	struct sandbox_report report;
	char *cgroup;	   /* owned: the worker's pids cgroup, or NULL */
	char *memcg;	   /* owned: its memory cgroup (v2: the same directory), or NULL */
	bool memcg_v2;
	unsigned long long memcg_bytes;
	bool oom_killed;   /* the OOM killer acted in its memory cgroup (read when reaped) */
	/* the cache cap (limits.cache_bytes of opts.quota_dir), checked by sandbox_reap() */
	char *quota_dir;   /* owned, or NULL */
	unsigned long long quota_bytes, quota_used;
	double quota_next_s;
	bool quota_exceeded;
};

/* The device nodes of every minimal /dev (below /dev): null, zero, full, random, urandom. */
extern const char *const sandbox_dev_base[];
/* What a worker never needs to see: users' homes, password hashes, host keys, sockets... */
extern const char *const sandbox_hidden_default[];
/* The variables a worker keeps (NAME or PREFIX*): what Python, torch, Triton and CUDA read. */
extern const char *const sandbox_env_default[];

enum sandbox_mode sandbox_mode_from_string(const char *s);
const char *sandbox_mode_to_string(enum sandbox_mode m);
const char *sandbox_facility_name(enum sandbox_facility f);

/*
 * Prepares a run's box; never fails: what cannot be prepared (no seccomp, no writable pids
 * cgroup) is recorded and shows in each child's report. Also removes the pids cgroups that
 * kgb processes no longer alive left behind.
 */
struct sandbox *sandbox_new(enum sandbox_mode mode);
void sandbox_free(struct sandbox *box);
/*
 * Leaves out the facilities of a comma-separated list of sandbox_facility_name()s (for a
 * platform where one breaks the runtime); each child reports them "not enforced". -EINVAL
 * with err set on an unknown name.
 */
int sandbox_skip(struct sandbox *box, const char *list, struct strbuf *err) KGB_WUR;
/* Marks f left out because the platform fails with it: the children report it unavailable. */
void sandbox_set_broken(struct sandbox *box, enum sandbox_facility f, bool broken);
/* Whether f is left out, on request or as broken. */
bool sandbox_is_skipped(const struct sandbox *box, enum sandbox_facility f);
enum sandbox_mode sandbox_mode(const struct sandbox *box);

/*
 * Starts the child. -EAGAIN (no fork, no pipes), -EIO (the child died while entering the
 * sandbox), -EPERM (strict mode and a facility missing), each with err set. ret->report says
 * what was applied; ret->exec_errno whether exec failed.
 */
int sandbox_spawn(const struct sandbox_opts *o, struct sandbox_child *ret, struct strbuf *err)
	KGB_WUR;
/* Non-blocking reap; returns true once the child has been waited for. */
bool sandbox_reap(struct sandbox_child *c);
/* SIGKILL to the whole process group and to every task in its cgroup (no-op if gone). */
void sandbox_kill_group(struct sandbox_child *c);
/*
 * Whether the child's opts.quota_dir went over limits.cache_bytes (measured now unless it was
 * already found over, or the cap is off); if so, appends "Triton cache over its cap: ..." to
 * detail (may be NULL) and empties the directory, so that nothing of it is used again.
 */
bool sandbox_quota_exceeded(struct sandbox_child *c, struct strbuf *detail);
/* Blocking: kill the group, reap, close fds, remove the cgroup. */
void sandbox_destroy(struct sandbox_child *c);
void sandbox_close_fd(int *fd);

/* Whether a report has a facility asked for and missing; *ret_first names the first. */
bool sandbox_report_missing(const struct sandbox_report *r, enum sandbox_facility *ret_first);
/* {"mode": "auto", "userns": "applied", "memory": "not enforced: ...", ...}; a new reference. */
json_t *sandbox_report_json(const struct sandbox_report *r, enum sandbox_mode mode);
/*
 * Appends how a reaped child ended, in terms of the limits it ran under: "killed by signal 24
 * (SIGXCPU): CPU time limit 600 s", "killed by signal 25 (SIGXFSZ): file size limit 1024 MiB",
 * "killed by signal 11 (Segmentation fault)", "exited with status 3".
 */
void sandbox_describe_exit(const struct sandbox_child *c, const struct sandbox_limits *l,
			   struct strbuf *out);

#endif
