#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

void sandbox_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void set_limit(int resource, unsigned long long value)
{
	struct rlimit rl = {.rlim_cur = value, .rlim_max = value};

	(void)setrlimit(resource, &rl);
}

/* In the child between fork and exec: only async-signal-safe calls, then _exit. */
static void child_exec(const struct sandbox_opts *o, int in_r, int out_w, int err_w,
		       pid_t parent)
{
	setpgid(0, 0);
	/* If kgb dies (kill -9 included), the worker follows instead of running on. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if (dup2(in_r, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
		_exit(127);
	/* Nothing of kgb's (the store's SQLite file, sibling workers' pipes) leaks in. */
	syscall(SYS_close_range, 3U, ~0U, 0U);
	set_limit(RLIMIT_CORE, 0);
	if (o->max_file_bytes)
		set_limit(RLIMIT_FSIZE, o->max_file_bytes);
	if (o->max_open_files)
		set_limit(RLIMIT_NOFILE, o->max_open_files);
	if (o->max_cpu_s)
		set_limit(RLIMIT_CPU, o->max_cpu_s);
	signal(SIGPIPE, SIG_DFL);
	if (o->cwd && chdir(o->cwd) < 0)
		_exit(127);
	execvpe(o->argv[0], o->argv, o->envp);
	_exit(127);
}

int sandbox_spawn(const struct sandbox_opts *o, struct sandbox_child *ret, struct strbuf *err)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
	pid_t parent = getpid(), pid;

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0) {
		strbuf_addf(err, "cannot create pipes: %s", strerror(errno));
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		strbuf_addf(err, "cannot fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0)
		child_exec(o, in[0], out[1], er[1], parent);
	/* Also from the parent, so a kill of the group cannot race the child's setpgid. */
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	close(er[1]);
	memset(ret, 0, sizeof(*ret));
	ret->pid = pid;
	ret->in_fd = in[1];
	ret->out_fd = out[0];
	ret->err_fd = er[0];
	fcntl(ret->in_fd, F_SETFL, O_NONBLOCK);
	fcntl(ret->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(ret->err_fd, F_SETFL, O_NONBLOCK);
	ret->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (ret->pidfd < 0)
		ret->pidfd = -1;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		sandbox_close_fd(&in[i]);
		sandbox_close_fd(&out[i]);
		sandbox_close_fd(&er[i]);
	}
	return -EAGAIN;
}

bool sandbox_reap(struct sandbox_child *c)
{
	int status;
	pid_t r;

	if (c->reaped)
		return true;
	do
		r = waitpid(c->pid, &status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == c->pid) {
		c->reaped = true;
		c->status = status;
	}
	return c->reaped;
}

void sandbox_kill_group(struct sandbox_child *c)
{
	if (c->pid > 0)
		kill(-c->pid, SIGKILL);
}

void sandbox_destroy(struct sandbox_child *c)
{
	sandbox_kill_group(c);
	while (!c->reaped) {
		int status;
		pid_t r = waitpid(c->pid, &status, 0);

		if (r == c->pid) {
			c->reaped = true;
			c->status = status;
		} else if (r < 0 && errno != EINTR) {
			break;
		}
	}
	sandbox_close_fd(&c->in_fd);
	sandbox_close_fd(&c->out_fd);
	sandbox_close_fd(&c->err_fd);
	sandbox_close_fd(&c->pidfd);
}
