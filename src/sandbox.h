/*
 * sandbox.h - starting and stopping untrusted worker processes.
 *
 * Call sequence (git's run-command.h style):
 *   1. fill struct sandbox_opts (argv, envp, cwd, limits);
 *   2. sandbox_spawn(): fork + exec at once; the child gets its own process group, a parent-death
 *      signal, resource limits, stdin/stdout/stderr on pipes, and no other inherited fds;
 *   3. talk over child.in_fd / out_fd / err_fd (all O_CLOEXEC, non-blocking in the parent);
 *   4. sandbox_reap() when it may have exited (pidfd readable, or periodically);
 *   5. sandbox_kill_group() on timeout, and always once after exit (stray grandchildren);
 *   6. sandbox_close() closes whatever fds remain.
 *
 * This is the basic isolation of the walking skeleton (process group, limits, timeout). The
 * namespaces and seccomp filter of DESIGN §2 "Isolation" belong here too (issue 6).
 */
#ifndef KGB_SANDBOX_H
#define KGB_SANDBOX_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/compiler.h"
#include "util/strbuf.h"

struct sandbox_opts {
	char *const *argv;   /* argv[0] is looked up in PATH */
	char *const *envp;   /* full environment of the child */
	const char *cwd;     /* working directory (the private scratch dir) */
	unsigned long long max_file_bytes; /* RLIMIT_FSIZE, 0 = unlimited */
	unsigned long max_open_files;	   /* RLIMIT_NOFILE, 0 = inherit */
	unsigned long long max_cpu_s;	   /* RLIMIT_CPU, 0 = unlimited */
};

struct sandbox_child {
	pid_t pid;	/* also the process group id */
	int pidfd;	/* -1 where pidfd_open is unavailable */
	int in_fd, out_fd, err_fd;
	bool reaped;
	int status;	/* wait status once reaped */
};

int sandbox_spawn(const struct sandbox_opts *o, struct sandbox_child *ret, struct strbuf *err)
	KGB_WUR;
/* Non-blocking reap; returns true once the child has been waited for. */
bool sandbox_reap(struct sandbox_child *c);
/* SIGKILL to the whole process group (no-op if it is gone). */
void sandbox_kill_group(struct sandbox_child *c);
/* Blocking: kill the group, reap, close fds. */
void sandbox_destroy(struct sandbox_child *c);
void sandbox_close_fd(int *fd);

#endif
