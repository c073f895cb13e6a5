#include "sched.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "proto.h"
#include "proc.h"
#include "sandbox.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "verdict.h"

/*
 * A runner of the job (sched_opts.runner_argv, replay_argv): the candidate's process. Its
 * stdout and stderr go to its tail only; kgb reads nothing else of it.
 */
struct runner {
	bool up;
	struct sandbox_child child;
	char *scratch;
	struct strbuf tail;
	unsigned long long bytes;
};

/* The job's runners: the one that answers the calls, and the L2 replay's fresh one. */
enum { RUNNER_MAIN, RUNNER_REPLAY, NR_RUNNERS };
static const char *const runner_names[NR_RUNNERS] = {"runner", "replay runner"};

struct slot {
	bool busy;
	bool released;	/* its job line may be written: it holds its slot (standby: not yet) */
	unsigned index; /* the slot whose devices it has */
	unsigned long seq;
	struct sched_job *job;
	struct sandbox_child child;
	struct strbuf line;	/* partial stdout line */
	size_t in_off;
	size_t job_len;
	size_t lines;
	double start_s, deadline_s;
	bool got_hello, got_done, got_fatal, protocol_error, timed_out, out_eof, err_eof;
	bool output_limit; /* stopped for writing more than SCHED_MAX_STDERR_BYTES */
	unsigned long long stderr_bytes;
	char *scratch;
	struct sched_result res;
	struct runner runners[NR_RUNNERS];
};

static char **build_env(char *const *base, const char *devices, const char *triton_cache,
			const char *tmpdir, const char *gpu_lock)
{
	static const char *const replaced[] = {"CUDA_VISIBLE_DEVICES=", "TRITON_CACHE_DIR=",
					       "TMPDIR=", "KGB_GPU_LOCK=", NULL};
	size_t n = 0, k = 0;
	char **env;

	while (base && base[n])
		n++;
	env = xcalloc(n + 5, sizeof(*env));
	for (size_t i = 0; i < n; i++) {
		bool skip = false;

		for (const char *const *r = replaced; *r; r++)
			skip |= !strncmp(base[i], *r, strlen(*r)) &&
				(devices || strcmp(*r, "CUDA_VISIBLE_DEVICES="));
		if (!skip)
			env[k++] = xstrdup(base[i]);
	}
	if (devices) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "CUDA_VISIBLE_DEVICES=%s", devices);
		env[k++] = strbuf_detach(&sb, NULL);
	}
	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "TRITON_CACHE_DIR=%s", triton_cache);
		env[k++] = strbuf_detach(&sb, NULL);
		strbuf_addf(&sb, "TMPDIR=%s", tmpdir);
		env[k++] = strbuf_detach(&sb, NULL);
		if (gpu_lock) {
			strbuf_addf(&sb, "KGB_GPU_LOCK=%s", gpu_lock);
			env[k++] = strbuf_detach(&sb, NULL);
		}
	}
	env[k] = NULL;
	return env;
}

/* A worker's directories, environment and sandbox options, made before it starts. */
struct prep {
	char *dir;   /* owned: the scratch directory (its working directory) */
	char *cache; /* owned: the Triton cache */
	char **env;  /* owned */
	const char *writable[2];
	const char **visible; /* owned array of borrowed strings: o->visible, the job's own */
	struct sandbox_opts so;
};

static void prep_release(struct prep *p)
{
	free(p->dir);
	free(p->cache);
	strv_free(p->env);
	free(p->visible);
	memset(p, 0, sizeof(*p));
}

/*
 * Makes <scratch_root>/<name> and the Triton cache: <scratch_root>/triton-<cache_key>, shared
 * by the jobs of one key, else a private one inside the scratch directory. Everything but
 * argv and the fds is set in p->so.
 */
enum worker_role {
	ROLE_WORKER, /* judge and runner in one (no runner_argv) */
	ROLE_JUDGE,  /* no Triton cache of the candidate's, the GPU lock, the task visible */
	ROLE_RUNNER, /* the candidate's Triton cache, no lock, no task directory */
};

static int prep_worker(const struct sched_opts *o, const char *name, unsigned slot,
		       const char *cache_key, const struct sched_job *job, char *const *argv,
		       enum worker_role role, struct prep *p, struct strbuf *err)
{
	size_t nv = 0;
	struct strbuf sb = STRBUF_INIT;
	int r;

	memset(p, 0, sizeof(*p));
	strbuf_addf(&sb, "%s/%s", o->scratch_root, name);
	p->dir = strbuf_detach(&sb, NULL);
	r = mkdir_p(p->dir, 0700);
	if (r < 0) {
		strbuf_addf(err, "cannot create scratch directory '%s': %s", p->dir, strerror(-r));
		prep_release(p);
		return r;
	}
	/*
	 * A Triton cache of the job's own: compiled kernels are files a candidate could rewrite
	 * for the next candidate that compiles the same source. Jobs of one candidate (its check
	 * and timing passes) share it, so timing does not compile again.
	 */
	if (cache_key) {
		strbuf_addf(&sb, "%s/triton-%s", o->cache_root ? o->cache_root : o->scratch_root,
			    cache_key);
		p->cache = strbuf_detach(&sb, NULL);
		r = mkdir_p(p->cache, 0700);
		if (r < 0) {
			strbuf_addf(err, "cannot create the Triton cache '%s': %s", p->cache,
				    strerror(-r));
			rm_rf(p->dir);
			prep_release(p);
			return r;
		}
		p->writable[0] = p->cache;
	} else {
		p->cache = path_join(p->dir, "triton-cache");
	}
	if (o->gpu_lock_fd > 0 && role != ROLE_RUNNER) {
		unsigned gpu = slot;

		/* The lock's index is the GPU's: the first slot on the same device. */
		for (unsigned j = 0; o->slot_devices && j < slot; j++) {
			if (!strcmp(o->slot_devices[j], o->slot_devices[slot])) {
				gpu = j;
				break;
			}
		}
		strbuf_addf(&sb, "%d:%u", SANDBOX_PASS_FD, gpu);
		p->so.pass_fd = o->gpu_lock_fd;
	}
	p->env = build_env(o->env, o->slot_devices ? o->slot_devices[slot] : NULL, p->cache,
			   p->dir, sb.len ? sb.buf : NULL);
	strbuf_release(&sb);
	p->so.argv = argv;
	p->so.envp = p->env;
	p->so.cwd = p->dir;
	p->so.box = o->box;
	p->so.hide = o->cache_root ? o->cache_root : o->scratch_root;
	p->so.writable = p->writable;
	p->so.limits = o->limits;
	/*
	 * The filesystem view, devices and variables (sandbox.h); the cache's size is capped. The
	 * job's task directory and candidate stay visible where o->hidden covers them.
	 */
	while (o->visible && o->visible[nv])
		nv++;
	p->visible = xcalloc(nv + 3, sizeof(*p->visible));
	memcpy(p->visible, o->visible ? o->visible : p->visible, nv * sizeof(*p->visible));
	if (job && job->task && role != ROLE_RUNNER)
		p->visible[nv++] = job->task->dir;
	if (job)
		p->visible[nv++] = job->candidate;
	p->so.visible = p->visible;
	p->so.hidden = role == ROLE_RUNNER && o->runner_hidden ? o->runner_hidden : o->hidden;
	p->so.dev_nodes = o->dev_nodes;
	p->so.env_allow = o->env_allow;
	p->so.quota_dir = p->cache;
	return 0;
}

/* A descriptor moved above the ones the sandbox passes on (SANDBOX_REPLAY_FD and below). */
static int above_peer_fd(int fd)
{
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, SANDBOX_REPLAY_FD + 1);

	close(fd);
	return moved;
}

static void stop_runner(struct runner *rn)
{
	if (!rn->up)
		return;
	sandbox_destroy(&rn->child);
	if (rn->scratch)
		rm_rf(rn->scratch);
	free(rn->scratch);
	rn->scratch = NULL;
	strbuf_release(&rn->tail);
	rn->up = false;
}

/* Stops the slot's runners and closes the judge's ends of their sockets (-1: none). */
static void stop_runners(struct slot *s, int judge_ends[NR_RUNNERS])
{
	for (int i = 0; i < NR_RUNNERS; i++) {
		if (judge_ends && judge_ends[i] >= 0)
			close(judge_ends[i]);
		stop_runner(&s->runners[i]);
	}
}

static void kill_runners(struct slot *s)
{
	for (int i = 0; i < NR_RUNNERS; i++)
		if (s->runners[i].up)
			sandbox_kill_group(&s->runners[i].child);
}

/*
 * Starts runner `which` of the job (argv) with one end of a new socket; *ret_judge_end is the
 * other, for the judge. The runner's stdin is closed at once: it reads only from its judge.
 */
static int start_runner(const struct sched_opts *o, struct slot *s, struct sched_job *job,
			const char *name, int which, char *const *argv, int *ret_judge_end,
			struct strbuf *err)
{
	struct runner *rn = &s->runners[which];
	struct strbuf rname = STRBUF_INIT;
	unsigned tag;
	struct prep p;
	int sv[2], r;

	*ret_judge_end = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		strbuf_addf(err, "socketpair: %s", strerror(errno));
		return -errno;
	}
	sv[0] = above_peer_fd(sv[0]);
	sv[1] = above_peer_fd(sv[1]);
	if (sv[0] < 0 || sv[1] < 0) {
		strbuf_addf(err, "cannot move the runner's socket: %s", strerror(errno));
		if (sv[0] >= 0)
			close(sv[0]);
		if (sv[1] >= 0)
			close(sv[1]);
		return -EMFILE;
	}
	/*
	 * A name that does not say which runner it is: the candidate sees its directory, and the
	 * replay runner must not be told apart by it (docs/anti-hack.md says what still can).
	 */
	if (getrandom(&tag, sizeof(tag), 0) != (ssize_t)sizeof(tag))
		tag = (unsigned)(getpid() ^ (pid_t)(monotonic_s() * 1e6)) ^ (unsigned)which;
	strbuf_addf(&rname, "%s-r%08x", name, tag);
	r = prep_worker(o, rname.buf, s->index, job->cache_key, job, argv, ROLE_RUNNER, &p, err);
	strbuf_release(&rname);
	if (r < 0) {
		close(sv[0]);
		close(sv[1]);
		return r;
	}
	p.so.peer_fd = sv[1];
	r = sandbox_spawn(&p.so, &rn->child, err);
	close(sv[1]);
	if (r < 0) {
		close(sv[0]);
		rm_rf(p.dir);
		prep_release(&p);
		return r;
	}
	sandbox_close_fd(&rn->child.in_fd);
	rn->up = true;
	rn->scratch = p.dir;
	p.dir = NULL;
	prep_release(&p);
	strbuf_init(&rn->tail, 0);
	rn->bytes = 0;
	*ret_judge_end = sv[0];
	return 0;
}

static int slot_start(const struct sched_opts *o, struct slot *s, struct sched_job *job,
		      unsigned long seq, struct strbuf *err)
{
	struct strbuf name = STRBUF_INIT;
	struct prep p;
	int r = 0, sv[NR_RUNNERS] = {-1, -1};

	strbuf_addf(&name, "slot%u-%lu", s->index, seq);
	if (o->runner_argv)
		r = start_runner(o, s, job, name.buf, RUNNER_MAIN, o->runner_argv,
				 &sv[RUNNER_MAIN], err);
	if (r == 0 && o->runner_argv && o->replay_argv && job->replay)
		r = start_runner(o, s, job, name.buf, RUNNER_REPLAY, o->replay_argv,
				 &sv[RUNNER_REPLAY], err);
	if (r < 0) {
		stop_runners(s, sv);
		strbuf_release(&name);
		return r;
	}
	/* The judge compiles nothing of the candidate's: a private Triton cache. */
	r = prep_worker(o, name.buf, s->index, o->runner_argv ? NULL : job->cache_key, job,
			o->argv, o->runner_argv ? ROLE_JUDGE : ROLE_WORKER, &p, err);
	strbuf_release(&name);
	if (r < 0) {
		stop_runners(s, sv);
		return r;
	}
	p.so.peer_fd = sv[RUNNER_MAIN];
	p.so.replay_fd = sv[RUNNER_REPLAY];
	memset(&s->res, 0, sizeof(s->res));
	r = sandbox_spawn(&p.so, &s->child, err);
	for (int i = 0; i < NR_RUNNERS; i++)
		if (sv[i] >= 0)
			close(sv[i]);
	if (r < 0) {
		stop_runners(s, NULL);
		rm_rf(p.dir);
		prep_release(&p);
		return r;
	}
	s->busy = true;
	s->released = false;
	s->seq = seq;
	s->job = job;
	s->scratch = p.dir;
	p.dir = NULL;
	prep_release(&p);
	strbuf_init(&s->line, 0);
	s->in_off = 0;
	s->job_len = strlen(job->job_line);
	s->lines = 0;
	s->stderr_bytes = 0;
	s->got_hello = s->got_done = s->got_fatal = s->protocol_error = false;
	s->timed_out = s->out_eof = s->err_eof = s->output_limit = false;
	/* The clock starts at release (slot_release_job): a standby worker may wait long. */
	s->start_s = monotonic_s();
	s->deadline_s = HUGE_VAL;
	strbuf_init(&s->res.detail, 0);
	strbuf_init(&s->res.stderr_tail, 0);
	s->res.cases = json_array();
	for (size_t i = 0; i < job->nr_cases; i++)
		json_array_append_new(s->res.cases, json_null());
	s->res.import_ms = -1;
	return 0;
}

static void protocol_fail(struct slot *s, const char *fmt, const char *what)
{
	if (!s->protocol_error) {
		s->protocol_error = true;
		strbuf_reset(&s->res.detail);
		strbuf_addf(&s->res.detail, fmt, what);
	}
	sandbox_kill_group(&s->child);
}

static void handle_line(struct slot *s, const char *line, size_t len)
{
	struct strbuf perr = STRBUF_INIT;
	struct proto_msg m;
	int r;

	if (s->protocol_error)
		return;
	if (++s->lines > s->job->nr_cases + 16) {
		protocol_fail(s, "worker sent more lines than the job allows%s", "");
		return;
	}
	r = proto_parse_line(line, len, &m, &perr);
	if (r < 0) {
		protocol_fail(s, "malformed worker line: %s", perr.buf);
		strbuf_release(&perr);
		return;
	}
	strbuf_release(&perr);
	if (!s->got_hello && m.type != PROTO_HELLO) {
		protocol_fail(s, "worker did not start with hello%s", "");
		goto out;
	}
	switch (m.type) {
	case PROTO_HELLO:
		if (s->got_hello) {
			protocol_fail(s, "second hello%s", "");
			break;
		}
		s->got_hello = true;
		s->res.hello = json_incref(m.obj);
		break;
	case PROTO_LOADED:
		if (json_is_number(json_object_get(m.obj, "import_ms")))
			s->res.import_ms = json_number_value(json_object_get(m.obj, "import_ms"));
		break;
	case PROTO_CASE:
		if ((size_t)m.case_id != s->res.cases_done || m.case_id >= (long long)s->job->nr_cases) {
			protocol_fail(s, "case result out of order or unknown id%s", "");
			break;
		}
		json_array_set(s->res.cases, (size_t)m.case_id, m.obj);
		s->res.cases_done++;
		break;
	case PROTO_FATAL: {
		json_t *msg = json_object_get(m.obj, "message");

		s->got_fatal = true;
		/* m.verdict lives in m.obj: keep the static copy of the name instead. */
		s->res.verdict = verdict_static_name(m.verdict);
		if (!verdict_at(s->res.verdict, V_FATAL))
			s->res.verdict = verdict_name(VERDICT_PROTOCOL);
		strbuf_reset(&s->res.detail);
		strbuf_addstr(&s->res.detail, json_is_string(msg) ? json_string_value(msg) : "");
		break;
	}
	case PROTO_DONE:
		s->got_done = true;
		/* Nothing more is needed from the worker: do not wait for its interpreter's exit. */
		sandbox_kill_group(&s->child);
		break;
	case _PROTO_MSG_MAX:
		break;
	}
out:
	proto_msg_release(&m);
}

static void read_stdout(struct slot *s)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(s->child.out_fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				s->out_eof = true;
			break;
		}
		if (n == 0) {
			s->out_eof = true;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				handle_line(s, s->line.buf, s->line.len);
				strbuf_reset(&s->line);
			} else if (s->line.len < PROTO_MAX_LINE + 1) {
				strbuf_addch(&s->line, buf[i]);
			} else {
				protocol_fail(s, "worker line longer than %s", "1 MiB");
			}
		}
	}
	if (s->out_eof) {
		if (s->line.len)
			handle_line(s, s->line.buf, s->line.len);
		strbuf_reset(&s->line);
		sandbox_close_fd(&s->child.out_fd);
	}
}

/*
 * Reads what is there of *fd into `tail` (keeping its last SCHED_STDERR_TAIL bytes), adding to
 * *bytes; over SCHED_MAX_STDERR_BYTES the slot stops (both processes: output_limit). Closes
 * *fd at its end and returns true then.
 */
static bool drain_tail(struct slot *s, int *fd, struct strbuf *tail, unsigned long long *bytes)
{
	char buf[8192];
	ssize_t n;

	for (;;) {
		n = read(*fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return false;
		if (n <= 0)
			break;
		*bytes += (unsigned long long)n;
		if (*bytes > SCHED_MAX_STDERR_BYTES && !s->output_limit) {
			s->output_limit = true;
			sandbox_kill_group(&s->child);
			kill_runners(s);
		}
		strbuf_add(tail, buf, (size_t)n);
		if (tail->len > SCHED_STDERR_TAIL) {
			size_t drop = tail->len - SCHED_STDERR_TAIL;
			memmove(tail->buf, tail->buf + drop, SCHED_STDERR_TAIL);
			strbuf_setlen(tail, SCHED_STDERR_TAIL);
		}
	}
	sandbox_close_fd(fd);
	return true;
}

static void read_stderr(struct slot *s)
{
	if (drain_tail(s, &s->child.err_fd, &s->res.stderr_tail, &s->stderr_bytes))
		s->err_eof = true;
}

/* A runner's stdout and stderr, both kept as one tail. */
static void read_runner(struct slot *s, struct runner *rn, int *fd)
{
	drain_tail(s, fd, &rn->tail, &rn->bytes);
}

static void write_stdin(struct slot *s)
{
	while (s->in_off < s->job_len) {
		ssize_t n = write(s->child.in_fd, s->job->job_line + s->in_off, s->job_len - s->in_off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				s->in_off = s->job_len; /* worker closed stdin: it will tell why */
			break;
		}
		s->in_off += (size_t)n;
	}
	if (s->in_off >= s->job_len)
		sandbox_close_fd(&s->child.in_fd);
}

/* The last non-empty line of the worker's stderr, for crash details. */
static void last_stderr_line(struct strbuf *tail, struct strbuf *out)
{
	size_t end = tail->len, start;

	while (end && (tail->buf[end - 1] == '\n' || tail->buf[end - 1] == ' '))
		end--;
	start = end;
	while (start && tail->buf[start - 1] != '\n')
		start--;
	if (end > start) {
		/* The worker wrote it: no raw control characters, valid UTF-8 (escape.h). */
		struct strbuf line = STRBUF_INIT;

		strbuf_add(&line, tail->buf + start, end - start > 300 ? 300 : end - start);
		strbuf_addstr(out, ": ");
		escape_text(out, line.buf);
		strbuf_release(&line);
	}
}

/*
 * Whether text reports that host memory ran out: Python's MemoryError, torch's CPU allocator,
 * C++'s bad_alloc, errno ENOMEM. CUDA's "out of memory" is device memory, which no rlimit
 * governs: that stays the error it is.
 */
static bool host_memory_error(const char *text)
{
	static const char *const marks[] = {"MemoryError", "can't allocate memory",
					    "Cannot allocate memory", "std::bad_alloc",
					    "not enough memory", NULL};

	if (!text || strstr(text, "CUDA out of memory"))
		return false;
	for (const char *const *m = marks; *m; m++)
		if (strstr(text, *m))
			return true;
	return false;
}

static void memory_prefix(const struct sandbox_limits *l, bool boxed, struct strbuf *out)
{
	if (boxed && l->memory_bytes)
		strbuf_addf(out, "memory limit exceeded (%llu MiB of %s): ", l->memory_bytes >> 20,
			    l->memory_data ? "private writable memory" : "address space");
	else
		strbuf_addstr(out, "out of memory: ");
}

/*
 * The runner whose loss the judge reported by its exit status (SCHED_EXIT_RUNNER_LOST,
 * SCHED_EXIT_REPLAY_LOST), or NULL.
 */
static struct runner *lost_runner(struct slot *s)
{
	int st = s->child.status, which;

	if (!s->child.reaped || !WIFEXITED(st))
		return NULL;
	if (WEXITSTATUS(st) == SCHED_EXIT_RUNNER_LOST)
		which = RUNNER_MAIN;
	else if (WEXITSTATUS(st) == SCHED_EXIT_REPLAY_LOST)
		which = RUNNER_REPLAY;
	else
		return NULL;
	return s->runners[which].up ? &s->runners[which] : NULL;
}

static void decide_verdict(const struct sched_opts *o, struct slot *s)
{
	struct sched_result *r = &s->res;
	int st = s->child.status;
	bool boxed = sandbox_mode(o->box) != SANDBOX_OFF;
	struct runner *lost = lost_runner(s);
	bool over_cap = s->child.quota_dir && sandbox_quota_exceeded(&s->child, NULL);

	for (int i = 0; i < NR_RUNNERS; i++)
		if (s->runners[i].up && s->runners[i].child.quota_dir &&
		    sandbox_quota_exceeded(&s->runners[i].child, NULL))
			over_cap = true;
	/* A Triton cache over its cap is the verdict, whatever else the worker did. */
	if (over_cap) {
		r->verdict = verdict_name(VERDICT_CRASH);
		strbuf_reset(&r->detail);
		strbuf_addf(&r->detail, "Triton cache over its cap of %llu MiB after %zu of %zu "
					"cases (the cache is removed)",
			    o->limits.cache_bytes >> 20, r->cases_done, s->job->nr_cases);
		return;
	}
	if (s->protocol_error) {
		r->verdict = verdict_name(VERDICT_PROTOCOL);
		return;
	}
	if (s->got_fatal)
		return; /* verdict and detail set from the fatal message */
	strbuf_reset(&r->detail);
	/* Once done arrived with every case, the result is complete however the process ended. */
	if (s->got_done && r->cases_done == s->job->nr_cases)
		goto judge_cases;
	if (s->output_limit) {
		r->verdict = verdict_name(VERDICT_CRASH);
		strbuf_addf(&r->detail, "output limit: more than %llu MiB on stderr after %zu of "
					"%zu cases", SCHED_MAX_STDERR_BYTES >> 20, r->cases_done,
			    s->job->nr_cases);
		return;
	}
	if (s->timed_out) {
		r->verdict = verdict_name(VERDICT_TIMEOUT);
		strbuf_addf(&r->detail, "no result within %.0f s (%zu of %zu cases done)",
			    s->deadline_s - s->start_s, r->cases_done, s->job->nr_cases);
		return;
	}
	if (lost) {
		/* The candidate's process died or stopped answering: described as a worker's. */
		r->verdict = verdict_name(VERDICT_CRASH);
		if (host_memory_error(lost->tail.buf))
			memory_prefix(&o->limits, boxed, &r->detail);
		strbuf_addstr(&r->detail, lost == &s->runners[RUNNER_MAIN] ? "worker "
									     : "worker (L2 replay) ");
		if (lost->child.reaped)
			sandbox_describe_exit(&lost->child, &o->limits, &r->detail);
		else
			strbuf_addstr(&r->detail, "stopped answering its judge");
		strbuf_addf(&r->detail, " after %zu of %zu cases", r->cases_done,
			    s->job->nr_cases);
		last_stderr_line(&lost->tail, &r->detail);
		return;
	}
	if (WIFSIGNALED(st) || !s->got_done || r->cases_done < s->job->nr_cases ||
	    WEXITSTATUS(st) != 0) {
		r->verdict = verdict_name(VERDICT_CRASH);
		if (host_memory_error(r->stderr_tail.buf))
			memory_prefix(&o->limits, boxed, &r->detail);
		strbuf_addstr(&r->detail, s->runners[RUNNER_MAIN].up ? "judge " : "worker ");
		sandbox_describe_exit(&s->child, &o->limits, &r->detail);
		strbuf_addf(&r->detail, " after %zu of %zu cases", r->cases_done,
			    s->job->nr_cases);
		last_stderr_line(&r->stderr_tail, &r->detail);
		return;
	}
judge_cases:
	sched_judge_cases(o, r->cases, s->job->nr_cases, r);
}

/*
 * Appends "; 7 of 20 cases failed: 3, 4, 9, 12, 15, ..." to a detail that names the first
 * failing case only, so that one bad shape is told apart from a kernel wrong everywhere.
 * Skipped cases (platform or stop_on_fail) are not failures.
 */
static void add_failure_count(json_t *cases, size_t nr, struct strbuf *detail)
{
	enum { SHOWN = 5 };
	size_t failed = 0, shown = 0;
	struct strbuf ids = STRBUF_INIT;

	for (size_t i = 0; i < nr; i++) {
		const char *v = json_string_value(json_object_get(json_array_get(cases, i),
								  "verdict"));

		if (v && (verdict_is_pass(v) || verdict_is(v, VERDICT_SKIPPED)))
			continue;
		failed++;
		if (shown < SHOWN)
			strbuf_addf(&ids, "%s%zu", shown++ ? ", " : "", i);
	}
	if (failed > 1)
		strbuf_addf(detail, "; %zu of %zu cases failed: %s%s", failed, nr, ids.buf,
			    failed > shown ? ", ..." : "");
	strbuf_release(&ids);
}

void sched_judge_cases(const struct sched_opts *o, json_t *cases, size_t nr,
		       struct sched_result *r)
{
	bool boxed = sandbox_mode(o->box) != SANDBOX_OFF;

	strbuf_reset(&r->detail);
	r->verdict = verdict_name(VERDICT_PASS);
	/* A case flagged as a hack (L2) makes the candidate a hack, whatever else failed first. */
	for (size_t i = 0; i < nr; i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = json_string_value(json_object_get(c, "verdict"));
		json_t *msg = json_object_get(c, "message");

		if (!v || !verdict_is(v, VERDICT_HACK))
			continue;
		r->verdict = verdict_name(VERDICT_HACK);
		strbuf_addf(&r->detail, "case %zu: %s", i,
			    json_is_string(msg) ? json_string_value(msg) : "hack");
		return;
	}
	for (size_t i = 0; i < nr; i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = json_string_value(json_object_get(c, "verdict"));
		json_t *msg = json_object_get(c, "message");

		if (v && verdict_is_pass(v))
			continue;
		/* The case's own verdict, if one a candidate can have (the protocol checked it). */
		if (v && verdict_at(v, V_CANDIDATE))
			r->verdict = verdict_static_name(v);
		/* Running out of memory is a resource limit, like the worker's death by one. */
		if (verdict_is(r->verdict, VERDICT_ERROR) && host_memory_error(json_string_value(msg))) {
			r->verdict = verdict_name(VERDICT_CRASH);
			memory_prefix(&o->limits, boxed, &r->detail);
		}
		strbuf_addf(&r->detail, "case %zu: %s", i,
			    json_is_string(msg) ? json_string_value(msg) : r->verdict);
		add_failure_count(cases, nr, &r->detail);
		break;
	}
}

static void slot_release(struct slot *s)
{
	stop_runners(s, NULL);
	sandbox_destroy(&s->child);
	if (s->scratch)
		rm_rf(s->scratch);
	free(s->scratch);
	s->scratch = NULL;
	strbuf_release(&s->line);
	strbuf_release(&s->res.detail);
	strbuf_release(&s->res.stderr_tail);
	json_decref(s->res.cases);
	json_decref(s->res.hello);
	memset(&s->res, 0, sizeof(s->res));
	s->busy = false;
	s->job = NULL;
}

static int slot_finish(const struct sched_opts *o, struct slot *s, sched_done_fn done,
		       void *ctx)
{
	int r;

	/* Grandchildren the candidate left behind die with the group. */
	sandbox_kill_group(&s->child);
	kill_runners(s);
	/* What the runners printed, after the judge's, for `kgb -vv eval`. */
	for (int i = 0; i < NR_RUNNERS; i++) {
		struct runner *rn = &s->runners[i];

		if (rn->up && rn->tail.len) {
			strbuf_addf(&s->res.stderr_tail, "\n--- %s ---\n", runner_names[i]);
			strbuf_add(&s->res.stderr_tail, rn->tail.buf, rn->tail.len);
		}
	}
	decide_verdict(o, s);
	s->res.wall_ms = (monotonic_s() - s->start_s) * 1e3;
	r = done(ctx, s->job, &s->res);
	slot_release(s);
	return r;
}

/*
 * Gives each slot without a released worker its oldest standby one: the job line goes in from
 * now on, and the wall clock (timeout, wall_ms) starts now.
 */
static void release_standby(const struct sched_opts *o, struct slot *workers, size_t nworkers,
			    unsigned nslots)
{
	for (unsigned d = 0; d < nslots; d++) {
		struct slot *next = NULL;

		for (size_t i = 0; i < nworkers; i++) {
			struct slot *w = &workers[i];

			if (!w->busy || w->index != d)
				continue;
			if (w->released)
				goto held;
			if (!next || w->seq < next->seq)
				next = w;
		}
		if (next) {
			next->released = true;
			next->start_s = monotonic_s();
			next->deadline_s = next->start_s + o->timeout_s;
		}
held:;
	}
}

int sched_run(const struct sched_opts *o, struct sched_job *jobs, size_t nr, sched_done_fn done,
	      void *ctx, struct strbuf *err)
{
	unsigned nslots = o->slots ? o->slots : 1;
	/* Each slot has its running worker and up to o->standby started ahead. */
	unsigned nworkers = nslots * (1 + o->standby);
	struct slot *slots = xcalloc(nworkers, sizeof(*slots));
	/* A worker's three pipes and pidfd, and each runner's two pipes and pidfd. */
	struct pollfd *pfds = xcalloc(nworkers * (4 + 3 * NR_RUNNERS), sizeof(*pfds));
	size_t next = 0;
	unsigned long seq = 0;
	int ret = 0;

	signal(SIGPIPE, SIG_IGN);
	for (unsigned i = 0; i < nworkers; i++)
		slots[i].index = i % nslots;
	for (;;) {
		size_t np = 0;
		unsigned busy = 0;
		double now, wait_s = 0.25;

		for (unsigned i = 0; i < nworkers && ret == 0; i++) {
			if (slots[i].busy || next >= nr)
				continue;
			ret = slot_start(o, &slots[i], &jobs[next], seq++, err);
			if (ret == 0)
				next++;
		}
		release_standby(o, slots, nworkers, nslots);
		for (unsigned i = 0; i < nworkers; i++) {
			struct slot *s = &slots[i];

			if (!s->busy)
				continue;
			busy++;
			if (s->released && s->child.in_fd >= 0)
				pfds[np++] = (struct pollfd){.fd = s->child.in_fd, .events = POLLOUT};
			if (s->child.out_fd >= 0)
				pfds[np++] = (struct pollfd){.fd = s->child.out_fd, .events = POLLIN};
			if (s->child.err_fd >= 0)
				pfds[np++] = (struct pollfd){.fd = s->child.err_fd, .events = POLLIN};
			/* Without a pidfd, exits are noticed at the 250 ms wake-ups below. */
			if (s->child.pidfd >= 0 && !s->child.reaped)
				pfds[np++] = (struct pollfd){.fd = s->child.pidfd, .events = POLLIN};
			for (int k = 0; k < NR_RUNNERS; k++) {
				const struct sandbox_child *rc = &s->runners[k].child;

				if (!s->runners[k].up)
					continue;
				if (rc->out_fd >= 0)
					pfds[np++] = (struct pollfd){.fd = rc->out_fd,
								     .events = POLLIN};
				if (rc->err_fd >= 0)
					pfds[np++] = (struct pollfd){.fd = rc->err_fd,
								     .events = POLLIN};
				if (rc->pidfd >= 0 && !rc->reaped)
					pfds[np++] = (struct pollfd){.fd = rc->pidfd,
								     .events = POLLIN};
			}
		}
		if (!busy)
			break;
		now = monotonic_s();
		for (unsigned i = 0; i < nworkers; i++)
			if (slots[i].busy && !slots[i].timed_out && slots[i].deadline_s - now < wait_s)
				wait_s = slots[i].deadline_s - now;
		if (wait_s < 0)
			wait_s = 0;
		if (poll(pfds, np, (int)(wait_s * 1000) + 1) < 0 && errno != EINTR) {
			strbuf_addf(err, "poll failed: %s", strerror(errno));
			ret = -errno;
		}
		now = monotonic_s();
		for (unsigned i = 0; i < nworkers; i++) {
			struct slot *s = &slots[i];

			if (!s->busy)
				continue;
			if (s->released && s->child.in_fd >= 0)
				write_stdin(s);
			if (s->child.out_fd >= 0)
				read_stdout(s);
			if (s->child.err_fd >= 0)
				read_stderr(s);
			for (int k = 0; k < NR_RUNNERS; k++) {
				struct runner *rn = &s->runners[k];

				if (!rn->up)
					continue;
				if (rn->child.out_fd >= 0)
					read_runner(s, rn, &rn->child.out_fd);
				if (rn->child.err_fd >= 0)
					read_runner(s, rn, &rn->child.err_fd);
				if (sandbox_reap(&rn->child))
					sandbox_kill_group(&rn->child);
			}
			if (!s->timed_out && now >= s->deadline_s) {
				s->timed_out = true;
				sandbox_kill_group(&s->child);
				kill_runners(s);
			}
			if (sandbox_reap(&s->child)) {
				/* The worker is gone; whoever still holds its pipes goes too. */
				sandbox_kill_group(&s->child);
				/*
				 * A judge whose runner stopped answering waits for the runner's end
				 * (or the timeout), to tell how it ended: a runner that closed its
				 * socket may still be running the candidate.
				 */
				if (lost_runner(s) && !lost_runner(s)->child.reaped)
					continue;
				if (s->out_eof && s->err_eof) {
					int r = slot_finish(o, s, done, ctx);
					if (r < 0 && ret == 0) {
						ret = r;
						strbuf_addstr(err, "storing a result failed");
					}
				}
			}
		}
		if (ret < 0) {
			for (unsigned i = 0; i < nworkers; i++)
				if (slots[i].busy)
					slot_release(&slots[i]);
			break;
		}
	}
	free(pfds);
	free(slots);
	return ret;
}

char **sched_slot_devices(const char *visible, unsigned ngpu, unsigned slots, struct strbuf *err)
{
	char **dev = xcalloc((size_t)slots + 1, sizeof(*dev));
	char **list = NULL; /* the entries of `visible`, when set */
	size_t nlist = 0;

	if (!ngpu)
		ngpu = 1;
	if (visible && *visible) {
		const char *p = visible;

		for (;;) {
			size_t len = strcspn(p, ",");

			list = xrealloc(list, (nlist + 1) * sizeof(*list));
			list[nlist++] = xstrndup(p, len);
			if (!p[len])
				break;
			p += len + 1;
		}
		if (nlist < ngpu) {
			strbuf_addf(err, "CUDA_VISIBLE_DEVICES='%s' lists %zu devices, but %u are "
				    "visible", visible, nlist, ngpu);
			for (size_t i = 0; i < nlist; i++)
				free(list[i]);
			free(list);
			free(dev);
			return NULL;
		}
	}
	for (unsigned i = 0; i < slots; i++) {
		struct strbuf d = STRBUF_INIT;

		if (list)
			strbuf_addstr(&d, list[i % ngpu]);
		else
			strbuf_addf(&d, "%u", i % ngpu);
		dev[i] = strbuf_detach(&d, NULL);
	}
	for (size_t i = 0; i < nlist; i++)
		free(list[i]);
	free(list);
	return dev;
}

void sched_slot_devices_free(char **devices)
{
	if (!devices)
		return;
	for (char **d = devices; *d; d++)
		free(*d);
	free(devices);
}

void sched_default_limits(struct sandbox_limits *ret, const char *platform, double timeout_s,
			  unsigned slots)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES),
	     page = sysconf(_SC_PAGESIZE);
	unsigned long long share = 1, ram = 0;

	if (pages > 0 && page > 0)
		ram = (unsigned long long)pages * (unsigned long long)page;
	if (!slots)
		slots = 1;
	if (ncpu > (long)slots)
		share = (unsigned long long)ncpu / slots;
	memset(ret, 0, sizeof(*ret));
	/*
	 * CPU time: the wall-clock timeout stops a busy worker first; this catches one that
	 * burns more cores than its share (threads), with room for a legitimate burst.
	 */
	ret->cpu_s = (unsigned long long)(2 * timeout_s + 0.999) * share;
	ret->file_bytes = 1ULL << 30;
	ret->cache_bytes = 512ULL << 20;
	ret->open_files = 4096;
	ret->procs = 1024;
	ret->scratch_bytes = 1ULL << 30;
	/* Each worker's share of the RAM, so that together they cannot exhaust it. */
	ret->memory_bytes = ram / slots;
	if (ret->memory_bytes < (4ULL << 30))
		ret->memory_bytes = 4ULL << 30;
	/*
	 * CUDA reserves terabytes of virtual address space at init, which RLIMIT_AS would refuse.
	 * RLIMIT_DATA counts only private writable mappings (the heap, anonymous memory: where a
	 * host allocation lands), not those PROT_NONE reservations nor the driver's shared
	 * mappings of the device. If CUDA still does not start under it, the sandbox probe leaves
	 * memory out and records why (kgb_sandbox_probe).
	 */
	ret->memory_data = platform && !strcmp(platform, "cuda");
}

int sched_probe_sandbox(const struct sched_opts *o, struct sandbox_report *ret,
			struct strbuf *err)
{
	char *argv[] = {"true", NULL};
	struct sandbox_child c;
	struct prep p;
	int r = prep_worker(o, "slot0-probe", 0, "probe", NULL, argv, ROLE_WORKER, &p, err);

	if (r < 0)
		return r;
	r = sandbox_spawn(&p.so, &c, err);
	if (r == 0) {
		*ret = c.report;
		sandbox_destroy(&c);
	}
	rm_rf(p.dir);
	rm_rf(p.cache);
	prep_release(&p);
	return r;
}

int sched_exec(const struct sched_opts *o, char *const *argv, struct sched_exec_result *ret,
	       struct strbuf *err)
{
	struct proc_opts po = {.timeout_s = o->timeout_s};
	struct proc c;
	struct prep p;
	int r = prep_worker(o, "slot0-exec", 0, "exec", NULL, argv, ROLE_WORKER, &p, err);

	strbuf_init(&ret->detail, 0);
	ret->timed_out = ret->over_quota = false;
	if (r < 0)
		return r;
	p.so.inherit_stdio = true;
	/* Its children go with it, as a worker's do. */
	r = proc_run(&p.so, &po, &c, err);
	if (r < 0)
		goto out;
	ret->report = c.child.report;
	ret->timed_out = c.timed_out;
	ret->over_quota = c.over_quota;
	ret->status = c.child.status;
	if (ret->over_quota)
		strbuf_addstr(&ret->detail, c.quota_why.buf);
	else if (ret->timed_out)
		strbuf_addf(&ret->detail, "timeout: no exit within %.0f s", o->timeout_s);
	else
		sandbox_describe_exit(&c.child, &o->limits, &ret->detail);
out:
	proc_release(&c);
	rm_rf(p.dir);
	rm_rf(p.cache);
	prep_release(&p);
	return r;
}
