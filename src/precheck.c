/*
 * precheck.c - the resident precheck process of `kgb serve` (precheck.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precheck.h"
#include "sandbox.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* An answer longer than this is malformed (twenty findings of 1 KiB each fit). */
#define PRECHECK_ANSWER_MAX (1u << 18)
/* Parsing a candidate of at most 1 MiB needs far less; a bound against a parser gone wrong. */
#define PRECHECK_MEMORY_BYTES (2ull << 30)

extern char **environ;

/*
 * The process is spawned by a thread of its own (the spawner), never by the thread that asks:
 * a child's parent-death signal fires when the thread that forked it ends, and the HTTP
 * library's connection threads end with their connection (seen: the precheck killed by
 * SIGKILL after its first answer).
 */
struct precheck {
	pthread_mutex_t lock; /* one request at a time; held while asking */
	char *python, *root;
	struct sandbox_child child;
	bool running;
	struct strbuf pending; /* bytes read past the last answer's newline: none, normally */
	/* The spawner: asked under spawn_lock with want_start, answers in start_r, start_err. */
	pthread_t spawner;
	bool spawner_started;
	pthread_mutex_t spawn_lock;
	pthread_cond_t spawn_cond;
	bool want_start, quit;
	int start_r;
	struct strbuf start_err;
};

static int start(struct precheck *pc, struct strbuf *err);

static void *spawner_main(void *data)
{
	struct precheck *pc = data;

	pthread_mutex_lock(&pc->spawn_lock);
	for (;;) {
		while (!pc->want_start && !pc->quit)
			pthread_cond_wait(&pc->spawn_cond, &pc->spawn_lock);
		if (pc->quit)
			break;
		strbuf_reset(&pc->start_err);
		pc->start_r = start(pc, &pc->start_err);
		pc->want_start = false;
		pthread_cond_broadcast(&pc->spawn_cond);
	}
	pthread_mutex_unlock(&pc->spawn_lock);
	return NULL;
}

struct precheck *precheck_new(const char *python, const char *root)
{
	struct precheck *pc = xcalloc(1, sizeof(*pc));

	pthread_mutex_init(&pc->lock, NULL);
	pthread_mutex_init(&pc->spawn_lock, NULL);
	pthread_cond_init(&pc->spawn_cond, NULL);
	/*
	 * A process that died is a write error (EPIPE, ask_once() says "exited"), not a SIGPIPE
	 * that ends kgb: eval asks before sched_run(), which ignores SIGPIPE too, has started.
	 */
	signal(SIGPIPE, SIG_IGN);
	pc->python = xstrdup(python);
	pc->root = xstrdup(root);
	strbuf_init(&pc->pending, 0);
	strbuf_init(&pc->start_err, 0);
	pc->spawner_started = pthread_create(&pc->spawner, NULL, spawner_main, pc) == 0;
	return pc;
}

/* The process, started by the spawner if it is not running: 0, or -errno with err set. */
static int ensure_started(struct precheck *pc, struct strbuf *err)
{
	int r;

	if (pc->running)
		return 0;
	if (!pc->spawner_started) {
		strbuf_addstr(err, "the precheck's spawner thread could not be created");
		return -EAGAIN;
	}
	pthread_mutex_lock(&pc->spawn_lock);
	pc->want_start = true;
	pthread_cond_broadcast(&pc->spawn_cond);
	while (pc->want_start)
		pthread_cond_wait(&pc->spawn_cond, &pc->spawn_lock);
	r = pc->start_r;
	if (r < 0)
		strbuf_addstr(err, pc->start_err.buf);
	pthread_mutex_unlock(&pc->spawn_lock);
	return r;
}

static void stop(struct precheck *pc)
{
	if (!pc->running)
		return;
	sandbox_kill_group(&pc->child);
	sandbox_destroy(&pc->child);
	pc->running = false;
	strbuf_reset(&pc->pending);
}

static int start(struct precheck *pc, struct strbuf *err)
{
	char *argv[] = {pc->python, "-m", "runtime.precheck", "--serve", NULL};
	struct sandbox_opts so = {.argv = argv, .cwd = pc->root};
	struct strbuf pp = STRBUF_INIT;
	size_t n = 0, k = 0;
	char **env;
	int r;

	while (environ[n])
		n++;
	env = xcalloc(n + 2, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "PYTHONPATH=", 11))
			env[k++] = environ[i];
	strbuf_addf(&pp, "PYTHONPATH=%s", pc->root);
	env[k++] = pp.buf;
	so.envp = env;
	so.limits.memory_bytes = PRECHECK_MEMORY_BYTES;
	so.limits.file_bytes = 1u << 20;
	r = sandbox_spawn(&so, &pc->child, err);
	free(env);
	strbuf_release(&pp);
	if (r < 0)
		return r;
	pc->running = true;
	return 0;
}

/* Wait for `events` on fd until `deadline` (monotonic_s): 0, or -ETIMEDOUT / -errno. */
static int wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = events};
		double left = deadline - monotonic_s();
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)(left * 1000) + 1);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_line(struct precheck *pc, const char *line, size_t len, double deadline)
{
	size_t done = 0;

	while (done < len) {
		ssize_t w = write(pc->child.in_fd, line + done, len - done);
		int r;

		if (w > 0) {
			done += (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		r = wait_fd(pc->child.in_fd, POLLOUT, deadline);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One answer line into *ret (without its newline): 0, or -errno (-EPIPE: it exited). */
static int read_line(struct precheck *pc, struct strbuf *ret, double deadline)
{
	for (;;) {
		char buf[4096], *nl = memchr(pc->pending.buf, '\n', pc->pending.len);
		ssize_t got;
		int r;

		if (nl) {
			size_t len = (size_t)(nl - pc->pending.buf);

			strbuf_add(ret, pc->pending.buf, len);
			memmove(pc->pending.buf, nl + 1, pc->pending.len - len - 1);
			strbuf_setlen(&pc->pending, pc->pending.len - len - 1);
			return 0;
		}
		if (pc->pending.len > PRECHECK_ANSWER_MAX)
			return -E2BIG;
		got = read(pc->child.out_fd, buf, sizeof(buf));
		if (got > 0) {
			strbuf_add(&pc->pending, buf, (size_t)got);
			continue;
		}
		if (got == 0)
			return -EPIPE;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		r = wait_fd(pc->child.out_fd, POLLIN, deadline);
		if (r < 0)
			return r;
	}
}

/* What the process said on stderr, for an error message (non-blocking: what is there). */
static void stderr_tail(struct precheck *pc, struct strbuf *err)
{
	char buf[1024];
	ssize_t got = pc->running ? read(pc->child.err_fd, buf, sizeof(buf) - 1) : -1;

	if (got > 0) {
		while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
			got--;
		buf[got] = '\0';
		strbuf_addf(err, ": %s", buf);
	}
}

static int ask_once(struct precheck *pc, const char *req, double deadline, json_t **ret,
		    struct strbuf *err)
{
	struct strbuf answer = STRBUF_INIT;
	int r;

	if ((r = ensure_started(pc, err)) < 0)
		return r;
	r = send_line(pc, req, strlen(req), deadline);
	if (r == 0)
		r = read_line(pc, &answer, deadline);
	if (r == 0 && !(*ret = json_loads(answer.buf, 0, NULL)))
		r = -EPROTO;
	if (r == 0 && !json_is_object(*ret)) {
		json_decref(*ret);
		*ret = NULL;
		r = -EPROTO;
	}
	if (r < 0) {
		strbuf_addf(err, "the precheck process (python -m runtime.precheck --serve) %s",
			    r == -ETIMEDOUT ? "gave no answer in time"
			    : r == -EPIPE   ? "exited"
			    : r == -EPROTO || r == -E2BIG ? "gave a malformed answer"
							  : strerror(-r));
		stderr_tail(pc, err);
		stop(pc);
	}
	strbuf_release(&answer);
	return r;
}

int precheck_ask(struct precheck *pc, const char *path, json_t *allow, double timeout_s,
		 json_t **ret, struct strbuf *err)
{
	json_t *req = json_pack("{s:s, s:O}", "file", path, "allow", allow);
	char *line = req ? json_dumps(req, JSON_COMPACT) : NULL;
	struct strbuf req_line = STRBUF_INIT;
	double deadline = monotonic_s() + timeout_s;
	int r;

	json_decref(req);
	*ret = NULL;
	if (!line) {
		strbuf_addstr(err, "cannot encode the precheck's request");
		return -1;
	}
	strbuf_addf(&req_line, "%s\n", line);
	free(line);
	pthread_mutex_lock(&pc->lock);
	/*
	 * A process that was started earlier may have died since (killed, out of memory): a
	 * write or read error on it is retried once on a fresh one. A timeout is not: the
	 * request itself may be what takes so long.
	 */
	r = ask_once(pc, req_line.buf, deadline, ret, err);
	if (r < 0 && r != -ETIMEDOUT) {
		strbuf_reset(err);
		r = ask_once(pc, req_line.buf, deadline, ret, err);
	}
	pthread_mutex_unlock(&pc->lock);
	strbuf_release(&req_line);
	if (r == 0 && json_is_string(json_object_get(*ret, "error"))) {
		/* The request's fault (kgb's): an unreadable file. */
		strbuf_addf(err, "the precheck: %s", json_string_value(json_object_get(*ret, "error")));
		json_decref(*ret);
		*ret = NULL;
		r = -1;
	}
	return r < 0 ? -1 : 0;
}

void precheck_free(struct precheck *pc)
{
	if (!pc)
		return;
	if (pc->spawner_started) {
		pthread_mutex_lock(&pc->spawn_lock);
		pc->quit = true;
		pthread_cond_broadcast(&pc->spawn_cond);
		pthread_mutex_unlock(&pc->spawn_lock);
		pthread_join(pc->spawner, NULL);
	}
	stop(pc);
	pthread_mutex_destroy(&pc->lock);
	pthread_mutex_destroy(&pc->spawn_lock);
	pthread_cond_destroy(&pc->spawn_cond);
	strbuf_release(&pc->start_err);
	free(pc->python);
	free(pc->root);
	strbuf_release(&pc->pending);
	free(pc);
}
