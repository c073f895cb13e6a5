/*
 * store_queue.c - the submissions table of `kgb serve` (store_queue.h).
 */
#include "store_queue.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/xalloc.h"

struct store_queue {
	sqlite3 *db;
	pthread_mutex_t lock;
};

static const char queue_sql[] =
	"CREATE TABLE IF NOT EXISTS submissions("
	"  seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, token TEXT NOT NULL,"
	"  client_request_id TEXT, task TEXT NOT NULL, code_hash TEXT NOT NULL,"
	"  code TEXT NOT NULL, options TEXT NOT NULL, platform TEXT NOT NULL,"
	"  state TEXT NOT NULL, result TEXT, created_at REAL NOT NULL, started_at REAL,"
	"  finished_at REAL, attempts INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX IF NOT EXISTS submissions_state ON submissions(state, seq);"
	"CREATE INDEX IF NOT EXISTS submissions_same ON submissions(task, code_hash);"
	"CREATE UNIQUE INDEX IF NOT EXISTS submissions_client ON submissions(token, "
	"  client_request_id) WHERE client_request_id IS NOT NULL;";

#define COLS                                                                                    \
	"seq, id, token, client_request_id, task, code_hash, code, options, platform, state, "  \
	"result, created_at, started_at, finished_at, attempts"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int db_err(struct store_queue *q, struct strbuf *err, const char *what)
{
	int code = sqlite3_errcode(q->db);

	strbuf_addf(err, "%s: %s", what, sqlite3_errmsg(q->db));
	return code == SQLITE_BUSY || code == SQLITE_LOCKED ? -EBUSY : -EIO;
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? xstrdup((const char *)t) : NULL;
}

static void read_row(sqlite3_stmt *st, struct store_sub *s)
{
	const unsigned char *id = sqlite3_column_text(st, 1);

	memset(s, 0, sizeof(*s));
	s->seq = sqlite3_column_int64(st, 0);
	snprintf(s->id, sizeof(s->id), "%s", id ? (const char *)id : "");
	s->token = col_dup(st, 2);
	s->client_request_id = col_dup(st, 3);
	s->task = col_dup(st, 4);
	s->code_hash = col_dup(st, 5);
	s->code = col_dup(st, 6);
	s->options = col_dup(st, 7);
	s->platform = col_dup(st, 8);
	s->state = col_dup(st, 9);
	s->result = col_dup(st, 10);
	s->created_at = sqlite3_column_double(st, 11);
	s->started_at = sqlite3_column_double(st, 12);
	s->finished_at = sqlite3_column_double(st, 13);
	s->attempts = sqlite3_column_int64(st, 14);
}

void store_sub_release(struct store_sub *s)
{
	free(s->token);
	free(s->client_request_id);
	free(s->task);
	free(s->code_hash);
	free(s->code);
	free(s->options);
	free(s->platform);
	free(s->state);
	free(s->result);
	memset(s, 0, sizeof(*s));
}

void store_subs_free(struct store_sub *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_sub_release(&v[i]);
	free(v);
}

int store_queue_open(const char *path, struct store_queue **ret, struct strbuf *err)
{
	struct store_queue *q = xcalloc(1, sizeof(*q));
	char *msg = NULL;

	if (sqlite3_open_v2(path, &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) !=
	    SQLITE_OK) {
		strbuf_addf(err, "cannot open store '%s': %s", path,
			    q->db ? sqlite3_errmsg(q->db) : "out of memory");
		sqlite3_close(q->db);
		free(q);
		return -EIO;
	}
	sqlite3_busy_timeout(q->db, 30000);
	/* FULL: an id the client heard of is on disk (WAL, fsync at commit). */
	if (sqlite3_exec(q->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", NULL, NULL,
			 &msg) != SQLITE_OK ||
	    sqlite3_exec(q->db, queue_sql, NULL, NULL, &msg) != SQLITE_OK) {
		strbuf_addf(err, "store '%s': submissions table: %s", path,
			    msg ? msg : "unknown error");
		sqlite3_free(msg);
		sqlite3_close(q->db);
		free(q);
		return -EIO;
	}
	pthread_mutex_init(&q->lock, NULL);
	*ret = q;
	return 0;
}

void store_queue_free(struct store_queue *q)
{
	if (!q)
		return;
	sqlite3_close(q->db);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/* Runs sql (its parameters bound as text, NULL allowed, in order) with no result rows. */
static int exec_bind(struct store_queue *q, const char *sql, const char *const *args, size_t n,
		     long long *ret_changes, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(q, err, "preparing a queue statement");
	for (size_t i = 0; i < n; i++)
		sqlite3_bind_text(st, (int)i + 1, args[i], -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_err(q, err, "writing the queue");
	if (ret_changes)
		*ret_changes = sqlite3_changes(q->db);
	return 0;
}

int store_queue_recover(struct store_queue *q, long long *ret_n, struct strbuf *err)
{
	int r;

	pthread_mutex_lock(&q->lock);
	r = exec_bind(q, "UPDATE submissions SET state='queued' WHERE state='running'", NULL, 0,
		      ret_n, err);
	pthread_mutex_unlock(&q->lock);
	return r;
}

int store_queue_insert(struct store_queue *q, struct store_sub *s, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc, r = 0;

	pthread_mutex_lock(&q->lock);
	if (sqlite3_prepare_v2(q->db,
			       "INSERT INTO submissions(id, token, client_request_id, task, "
			       "code_hash, code, options, platform, state, result, created_at, "
			       "finished_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		r = db_err(q, err, "preparing the insert");
		goto out;
	}
	sqlite3_bind_text(st, 1, s->id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, s->token, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, s->client_request_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, s->task, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, s->code_hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, s->code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, s->options, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 8, s->platform, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, s->state, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 10, s->result, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 11, s->created_at);
	if (s->finished_at > 0)
		sqlite3_bind_double(st, 12, s->finished_at);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT) {
		strbuf_addstr(err, "a submission with this client_request_id exists");
		r = -EEXIST;
	} else if (rc != SQLITE_DONE) {
		r = db_err(q, err, "inserting a submission");
	} else {
		s->seq = sqlite3_last_insert_rowid(q->db);
	}
out:
	pthread_mutex_unlock(&q->lock);
	return r;
}

/* sql prepared into *ret_st with its n parameters bound as text; under q->lock. */
static int prepare_bound(struct store_queue *q, const char *sql, const char *const *args,
			 size_t n, sqlite3_stmt **ret_st, struct strbuf *err)
{
	if (sqlite3_prepare_v2(q->db, sql, -1, ret_st, NULL) != SQLITE_OK)
		return db_err(q, err, "preparing a queue query");
	for (size_t i = 0; i < n; i++)
		sqlite3_bind_text(*ret_st, (int)i + 1, args[i], -1, SQLITE_TRANSIENT);
	return 0;
}

/* The first row of sql (parameters bound as text) into *ret: 0 or -ENOENT. */
static int get_one(struct store_queue *q, const char *sql, const char *const *args, size_t n,
		   struct store_sub *ret, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc, r;

	pthread_mutex_lock(&q->lock);
	if ((r = prepare_bound(q, sql, args, n, &st, err)) < 0)
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_row(st, ret);
		r = 0;
	} else if (rc == SQLITE_DONE) {
		r = -ENOENT;
	} else {
		r = db_err(q, err, "reading the queue");
	}
	sqlite3_finalize(st);
out:
	pthread_mutex_unlock(&q->lock);
	return r;
}

int store_queue_get(struct store_queue *q, const char *id, struct store_sub *ret,
		    struct strbuf *err)
{
	const char *args[] = {id};

	return get_one(q, "SELECT " COLS " FROM submissions WHERE id=?", args, 1, ret, err);
}

int store_queue_find_client(struct store_queue *q, const char *token, const char *crid,
			    struct store_sub *ret, struct strbuf *err)
{
	const char *args[] = {token, crid};

	return get_one(q, "SELECT " COLS " FROM submissions WHERE token=? AND client_request_id=?",
		       args, 2, ret, err);
}

int store_queue_find_same(struct store_queue *q, const char *task, const char *code_hash,
			  const char *options, const char *platform, struct store_sub *ret,
			  struct strbuf *err)
{
	const char *args[] = {task, code_hash, options, platform};

	/*
	 * A done row first, then the oldest: 'done' sorts first. A row done without a verdict
	 * (the machine failed it, serve.c) is no answer to reuse.
	 */
	return get_one(q,
		       "SELECT " COLS " FROM submissions WHERE task=? AND code_hash=? AND "
		       "options=? AND platform=? AND (state!='done' OR result NOT LIKE "
		       "'%\"not_evaluated\":true%') ORDER BY state='done' DESC, seq LIMIT 1",
		       args, 4, ret, err);
}

static int count(struct store_queue *q, const char *sql, const char *const *args, size_t n,
		 long long *ret_n, struct strbuf *err)
{
	sqlite3_stmt *st;
	int r = 0;

	pthread_mutex_lock(&q->lock);
	if ((r = prepare_bound(q, sql, args, n, &st, err)) < 0)
		goto out;
	if (sqlite3_step(st) == SQLITE_ROW)
		*ret_n = sqlite3_column_int64(st, 0);
	else
		r = db_err(q, err, "counting the queue");
	sqlite3_finalize(st);
out:
	pthread_mutex_unlock(&q->lock);
	return r;
}

int store_queue_count(struct store_queue *q, const char *token, const char *state,
		      long long *ret_n, struct strbuf *err)
{
	const char *args[] = {state, token};

	if (token)
		return count(q, "SELECT count(*) FROM submissions WHERE state=? AND token=?", args,
			     2, ret_n, err);
	return count(q, "SELECT count(*) FROM submissions WHERE state=?", args, 1, ret_n, err);
}

int store_queue_position(struct store_queue *q, long long seq, long long *ret_n,
			 struct strbuf *err)
{
	char s[32];
	const char *args[] = {s};

	snprintf(s, sizeof(s), "%lld", seq);
	return count(q, "SELECT count(*) FROM submissions WHERE state='queued' AND seq<CAST(? AS "
			"INTEGER)", args, 1, ret_n, err);
}

static const char *op_of(const char *task)
{
	const char *slash = strchr(task, '/');

	return slash ? slash + 1 : task;
}

/* Whether task's op is another source's task's op in v[0..n). */
static bool op_collides(const struct store_sub *v, size_t n, const char *task)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].task, task) && !strcmp(op_of(v[i].task), op_of(task)))
			return true;
	return false;
}

int store_queue_claim(struct store_queue *q, size_t max, struct store_sub **ret, size_t *ret_nr,
		      struct strbuf *err)
{
	struct store_sub *v = xcalloc(max ? max : 1, sizeof(*v));
	sqlite3_stmt *st = NULL, *up = NULL;
	size_t n = 0;
	int r = 0, rc;
	char *msg = NULL;

	pthread_mutex_lock(&q->lock);
	if (sqlite3_exec(q->db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK) {
		strbuf_addf(err, "claiming a batch: %s", msg ? msg : "unknown error");
		sqlite3_free(msg);
		r = -EBUSY;
		goto out_unlocked_tx;
	}
	if (sqlite3_prepare_v2(q->db,
			       "SELECT " COLS " FROM submissions WHERE state='queued' AND "
			       "options=(SELECT options FROM submissions WHERE state='queued' "
			       "ORDER BY seq LIMIT 1) AND platform=(SELECT platform FROM "
			       "submissions WHERE state='queued' ORDER BY seq LIMIT 1) ORDER BY seq",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db,
			       "UPDATE submissions SET state='running', started_at=?, "
			       "attempts=attempts+1 WHERE id=?",
			       -1, &up, NULL) != SQLITE_OK) {
		r = db_err(q, err, "preparing the claim");
		goto out;
	}
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_sub s;

		read_row(st, &s);
		if (op_collides(v, n, s.task)) {
			store_sub_release(&s);
			continue;
		}
		v[n++] = s;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		v[i].started_at = now_s();
		sqlite3_reset(up);
		sqlite3_bind_double(up, 1, v[i].started_at);
		sqlite3_bind_text(up, 2, v[i].id, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(up) != SQLITE_DONE)
			r = db_err(q, err, "claiming a batch");
		free(v[i].state);
		v[i].state = xstrdup("running");
		v[i].attempts++;
	}
out:
	sqlite3_finalize(st);
	sqlite3_finalize(up);
	if (sqlite3_exec(q->db, r == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK &&
	    r == 0)
		r = db_err(q, err, "committing the claim");
out_unlocked_tx:
	pthread_mutex_unlock(&q->lock);
	if (r < 0) {
		store_subs_free(v, n);
		return r;
	}
	*ret = v;
	*ret_nr = n;
	return 0;
}

int store_queue_finish(struct store_queue *q, const char *id, const char *result,
		       struct strbuf *err)
{
	char t[64];
	const char *args[] = {result, t, id};
	int r;

	snprintf(t, sizeof(t), "%.6f", now_s());
	pthread_mutex_lock(&q->lock);
	r = exec_bind(q, "UPDATE submissions SET state='done', result=?, finished_at=CAST(? AS REAL) "
			 "WHERE id=?", args, 3, NULL, err);
	pthread_mutex_unlock(&q->lock);
	return r;
}

int store_queue_requeue(struct store_queue *q, const char *id, struct strbuf *err)
{
	const char *args[] = {id};
	int r;

	pthread_mutex_lock(&q->lock);
	r = exec_bind(q, "UPDATE submissions SET state='queued' WHERE id=?", args, 1, NULL, err);
	pthread_mutex_unlock(&q->lock);
	return r;
}
