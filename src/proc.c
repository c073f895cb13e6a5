#include "proc.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "util/fs.h"

/* Reads what fd has into sb, keeping at most max bytes of it: 1 open, 0 at EOF, -E2BIG over. */
static int drain(int fd, struct strbuf *sb, size_t max, bool over_is_error)
{
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	if (sb->len + (size_t)n > max) {
		if (over_is_error)
			return -E2BIG;
		if (sb->len < max)
			strbuf_add(sb, buf, max - sb->len);
		return 1;
	}
	strbuf_add(sb, buf, (size_t)n);
	return 1;
}

int proc_run(const struct sandbox_opts *so, const struct proc_opts *o, struct proc *p,
	     struct strbuf *err)
{
	double deadline = o->timeout_s > 0 ? monotonic_s() + o->timeout_s : 0;
	bool killed_rest = false;
	int r;

	memset(p, 0, sizeof(*p));
	strbuf_init(&p->out, 0);
	strbuf_init(&p->errout, 0);
	strbuf_init(&p->quota_why, 0);
	r = sandbox_spawn(so, &p->child, err);
	if (r < 0)
		return r;
	if (o->started)
		o->started(&p->child, o->data);
	sandbox_close_fd(&p->child.in_fd); /* its stdin reads end of file */
	while (!sandbox_reap(&p->child) || p->child.out_fd >= 0 || p->child.err_fd >= 0) {
		struct pollfd pfd[3] = {{.fd = p->child.out_fd, .events = POLLIN},
					{.fd = p->child.err_fd, .events = POLLIN},
					{.fd = p->child.reaped ? -1 : p->child.pidfd, .events = POLLIN}};
		double left = deadline ? deadline - monotonic_s() : 1e6;
		int n;

		if (left <= 0) {
			p->timed_out = true;
			break;
		}
		left = left < 1e6 ? left : 1e6; /* poll() takes an int of milliseconds */
		/* Without a pidfd, look again every 50 ms; the cache's size every 200 ms. */
		if (!p->child.reaped && p->child.pidfd < 0)
			left = left < 0.05 ? left : 0.05;
		else if (p->child.quota_dir)
			left = left < 0.2 ? left : 0.2;
		n = poll(pfd, 3, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR)
			break;
		/* Once it has ended, what it left behind holding its pipes goes too. */
		if (p->child.reaped && !killed_rest) {
			sandbox_kill_group(&p->child);
			killed_rest = true;
		}
		if (n <= 0)
			continue;
		if (pfd[0].revents) {
			int d = drain(p->child.out_fd, &p->out, o->out_max, true);

			if (d < 0) {
				r = d;
				break;
			}
			if (!d)
				sandbox_close_fd(&p->child.out_fd);
		}
		if (pfd[1].revents && !drain(p->child.err_fd, &p->errout, o->err_max, false))
			sandbox_close_fd(&p->child.err_fd);
	}
	/* sandbox_reap() measured the cache as it went; the last word is now. */
	p->over_quota = sandbox_quota_exceeded(&p->child, &p->quota_why);
	/* Its group goes with it: the deadline's kill, and grandchildren it left behind. */
	sandbox_destroy(&p->child);
	return r;
}

void proc_release(struct proc *p)
{
	strbuf_release(&p->out);
	strbuf_release(&p->errout);
	strbuf_release(&p->quota_why);
}
