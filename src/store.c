#include "store.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "stats.h"
#include "util/fs.h"
#include "util/parse.h"
#include "util/xalloc.h"

struct store {
	sqlite3 *db;
};

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS runs("
	"  id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT,"
	"  platform TEXT NOT NULL, harness TEXT NOT NULL, command TEXT, env TEXT);"
	"CREATE TABLE IF NOT EXISTS evaluations("
	"  key TEXT PRIMARY KEY, task TEXT NOT NULL, source TEXT NOT NULL,"
	"  task_version TEXT NOT NULL, candidate_hash TEXT NOT NULL, candidate_path TEXT,"
	"  sample TEXT, platform TEXT NOT NULL, harness TEXT NOT NULL,"
	"  verdict TEXT NOT NULL, detail TEXT, cases_total INTEGER, cases_passed INTEGER,"
	"  timed_cases INTEGER, first_failure TEXT, speedup REAL, max_tol_use REAL,"
	"  import_ms REAL, wall_ms REAL, created_at TEXT NOT NULL, run_id INTEGER,"
	"  cases_skipped INTEGER);"
	"CREATE TABLE IF NOT EXISTS cases("
	"  eval_key TEXT NOT NULL REFERENCES evaluations(key), case_id INTEGER NOT NULL,"
	"  entry TEXT, axes TEXT, timed INTEGER, verdict TEXT, max_abs_err REAL,"
	"  tol_use REAL, base_tol_use REAL, atol REAL, rtol REAL, time_base_ms REAL,"
	"  time_cand_ms REAL, speedup REAL, detail TEXT, PRIMARY KEY(eval_key, case_id));"
	/* One row per candidate of a run: two samples with the same bytes share an evaluation
	 * but stay two samples (pass@k counts them both). */
	"CREATE TABLE IF NOT EXISTS run_evals("
	"  run_id INTEGER NOT NULL, task TEXT NOT NULL, sample TEXT NOT NULL,"
	"  candidate_path TEXT, eval_key TEXT NOT NULL REFERENCES evaluations(key),"
	"  reused INTEGER NOT NULL, PRIMARY KEY(run_id, task, sample));"
	/* The device's measured speed-of-light (ceilings.h), once per device and software stack;
	 * added after schema 1 shipped, created on open like the rest. */
	"CREATE TABLE IF NOT EXISTS ceilings("
	"  device TEXT NOT NULL, stack TEXT NOT NULL, value TEXT NOT NULL,"
	"  measured_at TEXT NOT NULL, PRIMARY KEY(device, stack));"
	/* Checked candidates awaiting their timing job (store_check_put); added after schema 1. */
	"CREATE TABLE IF NOT EXISTS checks("
	"  key TEXT PRIMARY KEY, result TEXT NOT NULL, created_at TEXT NOT NULL);"
	/* One row per model request of `kgb generate` (generate.h); added after schema 1. */
	"CREATE TABLE IF NOT EXISTS generations("
	"  run_id INTEGER NOT NULL REFERENCES runs(id), task TEXT NOT NULL, source TEXT NOT NULL,"
	"  sample INTEGER NOT NULL, round INTEGER NOT NULL, stage TEXT NOT NULL,"
	"  track TEXT NOT NULL, model TEXT, outcome TEXT NOT NULL, finish TEXT, error TEXT,"
	"  prompt_tokens INTEGER, completion_tokens INTEGER, cached_tokens INTEGER,"
	"  latency_ms REAL, eval_ms REAL, cost_usd REAL, http_attempts INTEGER,"
	"  candidate TEXT, eval_key TEXT, speedup REAL, feedback TEXT, created_at TEXT NOT NULL,"
	"  PRIMARY KEY(run_id, task, sample, round, stage));";

static int db_err(struct store *s, struct strbuf *err, const char *what)
{
	int code = sqlite3_errcode(s->db);

	strbuf_addf(err, "%s: %s", what, sqlite3_errmsg(s->db));
	return code == SQLITE_BUSY || code == SQLITE_LOCKED ? -EBUSY : -EIO;
}

static void now_iso(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void store_eval_key(const char *candidate_hash, const char *task_version, const char *platform,
		    const char *harness, unsigned long long seed, char out[HASH_HEX_LEN + 1])
{
	struct hash h;
	char s[32];

	snprintf(s, sizeof(s), "%llu", seed);
	hash_init(&h);
	hash_update_str(&h, "kgb-eval-v1");
	hash_update_str(&h, candidate_hash);
	hash_update_str(&h, task_version);
	hash_update_str(&h, platform);
	hash_update_str(&h, harness);
	hash_update_str(&h, s);
	hash_hex(&h, out);
}

static int exec_sql(struct store *s, const char *sql, struct strbuf *err)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int code = sqlite3_errcode(s->db);

		strbuf_addf(err, "'%.40s...': %s", sql, msg ? msg : "unknown error");
		sqlite3_free(msg);
		return code == SQLITE_BUSY || code == SQLITE_LOCKED ? -EBUSY : -EIO;
	}
	return 0;
}

/* The meta table's schema value v (NULL when unreadable) against this kgb's: 0 or -EPROTO. */
static int check_schema(const char *path, const char *v, struct strbuf *err)
{
	long ver = -1;

	if (v && parse_long(v, &ver) == 0 && ver == STORE_SCHEMA_VERSION)
		return 0;
	strbuf_addf(err, "store '%s' has schema %s, this kgb reads %d", path, v ? v : "?",
		    STORE_SCHEMA_VERSION);
	return -EPROTO;
}

/*
 * Whether the database s opened is kgb's to write: 0 when it is empty (a new store) or holds
 * kgb's meta table with a schema row; -EPROTO, with err set, when it holds another
 * application's tables: kgb must leave such a file as it found it (no journal-mode change, no
 * tables). A file that is not SQLite at all fails here too (-EIO).
 */
static int check_owned(struct store *s, const char *path, struct strbuf *err)
{
	sqlite3_stmt *st;
	int tables = 0, r = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_err(s, err, "reading the store");
	if (sqlite3_step(st) == SQLITE_ROW)
		tables = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (!tables)
		return 0;
	if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key='schema'", -1, &st, NULL) !=
		    SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		strbuf_addf(err, "'%s' is not a kgb store (an SQLite database without kgb's meta "
			    "table); left untouched", path);
		r = -EPROTO;
	}
	sqlite3_finalize(st);
	return r;
}

int store_open(const char *path, struct store **ret, struct strbuf *err)
{
	struct store *s = xcalloc(1, sizeof(*s));
	sqlite3_stmt *st = NULL;
	int r;

	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		strbuf_addf(err, "cannot open store '%s': %s", path,
			    s->db ? sqlite3_errmsg(s->db) : "out of memory");
		sqlite3_close(s->db);
		free(s);
		return -EIO;
	}
	/* Two kgb processes may share a store; writers wait for each other this long. */
	sqlite3_busy_timeout(s->db, 30000);
	r = check_owned(s, path, err);
	if (r == 0)
		r = exec_sql(s, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", err);
	if (r == 0)
		r = exec_sql(s, "BEGIN IMMEDIATE;", err);
	if (r == 0)
		r = exec_sql(s, schema_sql, err);
	if (r == 0 && sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key='schema'", -1,
					 &st, NULL) != SQLITE_OK)
		r = db_err(s, err, "reading schema version");
	if (r == 0) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(st, 0);

			if (v && !strcmp(v, "1")) {
				/* Schema 1 lacks only evaluations.cases_skipped (none skipped then). */
				sqlite3_finalize(st);
				st = NULL;
				r = exec_sql(s, "ALTER TABLE evaluations ADD COLUMN cases_skipped INTEGER;"
						"UPDATE meta SET value = '2' WHERE key = 'schema';", err);
			} else {
				r = check_schema(path, v, err);
			}
		} else {
			char sql[128];
			snprintf(sql, sizeof(sql),
				 "INSERT INTO meta(key, value) VALUES('schema', '%d');",
				 STORE_SCHEMA_VERSION);
			r = exec_sql(s, sql, err);
		}
	}
	sqlite3_finalize(st);
	if (r == 0)
		r = exec_sql(s, "COMMIT;", err);
	/* WAL once the file is a store of this schema: one refused above (a store of another
	 * schema) is rolled back and left as it was, journal mode included. */
	if (r == 0)
		r = exec_sql(s, "PRAGMA journal_mode=WAL;", err);
	if (r < 0) {
		if (!strstr(err->buf, path)) {
			struct strbuf tmp = STRBUF_INIT;
			strbuf_addf(&tmp, "store '%s': %s", path, err->buf);
			strbuf_reset(err);
			strbuf_add(err, tmp.buf, tmp.len);
			strbuf_release(&tmp);
		}
		sqlite3_close(s->db);
		free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int store_open_readonly(const char *path, struct store **ret, struct strbuf *err)
{
	struct store *s;
	sqlite3_stmt *st = NULL;
	int r = 0;

	if (access(path, F_OK) < 0) {
		strbuf_addf(err, "cannot open store '%s': %s", path, strerror(errno));
		return errno == ENOENT ? -ENOENT : -EIO;
	}
	s = xcalloc(1, sizeof(*s));
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		strbuf_addf(err, "cannot open store '%s': %s", path,
			    s->db ? sqlite3_errmsg(s->db) : "out of memory");
		store_free(s);
		return -EIO;
	}
	sqlite3_busy_timeout(s->db, 30000);
	if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key='schema'", -1, &st,
			       NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		strbuf_addf(err, "'%s' is not a kgb store: %s", path, sqlite3_errmsg(s->db));
		r = -EPROTO;
	} else {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		/* What a read-only store is read for (past wall times) is the same in schema 1. */
		r = v && !strcmp(v, "1") ? 0 : check_schema(path, v, err);
	}
	sqlite3_finalize(st);
	if (r < 0) {
		store_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

void store_free(struct store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* Steps a lookup: 0 on a row (read it, then finalize), -ENOENT on none, else the error. */
static int step_row(struct store *s, sqlite3_stmt *st, const char *what, struct strbuf *err)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? -ENOENT : db_err(s, err, what);
}

/* Runs one statement whose ? parameters are the n texts, in order; what names it in errors. */
static int exec_texts(struct store *s, const char *sql, const char *what,
		      const char *const *texts, size_t n, struct strbuf *err)
{
	sqlite3_stmt *st;
	int r = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, what);
	for (size_t i = 0; i < n; i++)
		bind_text(st, (int)i + 1, texts[i]);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_err(s, err, what);
	sqlite3_finalize(st);
	return r;
}

int store_run_begin(struct store *s, const char *platform, const char *harness,
		    const char *command, const char *env_json, long long *ret_run_id,
		    struct strbuf *err)
{
	char ts[32];
	const char *v[] = {ts, platform, harness, command, env_json};
	int r;

	now_iso(ts);
	r = exec_texts(s,
		       "INSERT INTO runs(started_at, platform, harness, command, env)"
		       " VALUES(?, ?, ?, ?, ?)",
		       "recording the run", v, ARRAY_SIZE(v), err);
	if (r == 0)
		*ret_run_id = sqlite3_last_insert_rowid(s->db);
	return r;
}

static char *col_text(sqlite3_stmt *st, int i);
static char *col_required(sqlite3_stmt *st, int i);

int store_run_info(struct store *s, long long *io_run_id, char **ret_platform, char **ret_env,
		   struct strbuf *err)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(s->db,
			       *io_run_id > 0
				       ? "SELECT id, platform, env FROM runs WHERE id = ?"
				       : "SELECT id, platform, env FROM runs WHERE NOT (IFNULL(command,"
					 " '') = '" STORE_GENERATE_COMMAND "' AND IFNULL(harness, '')"
					 " != 'generate') ORDER BY id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "reading the run");
	if (*io_run_id > 0)
		sqlite3_bind_int64(st, 1, *io_run_id);
	r = step_row(s, st, "reading the run", err);
	if (r == 0) {
		*io_run_id = sqlite3_column_int64(st, 0);
		*ret_platform = col_text(st, 1);
		*ret_env = col_text(st, 2);
	}
	sqlite3_finalize(st);
	return r;
}

int store_run_end(struct store *s, long long run_id, struct strbuf *err)
{
	sqlite3_stmt *st;
	char ts[32];
	int r = 0;

	now_iso(ts);
	if (sqlite3_prepare_v2(s->db, "UPDATE runs SET finished_at = ? WHERE id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return db_err(s, err, "finishing the run");
	bind_text(st, 1, ts);
	sqlite3_bind_int64(st, 2, run_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_err(s, err, "finishing the run");
	sqlite3_finalize(st);
	return r;
}

/*
 * Text as it enters kgb from a store, which anyone may have written (another tool, a hand
 * edit, a file name a candidate chose): bytes that are not UTF-8 are written out
 * (escape_text()), so no reader further in meets invalid text. NULL stays NULL.
 */
static char *col_text(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	if (!t)
		return NULL;
	return escape_utf8_valid(t) ? xstrdup(t) : escape_text_dup(t);
}

/* col_text() for a column kgb always writes: "?" where the store has NULL. */
static char *col_required(sqlite3_stmt *st, int i)
{
	char *t = col_text(st, i);

	return t ? t : xstrdup("?");
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

#define EVAL_COLUMNS                                                                          \
	"key, task, source, task_version, candidate_hash, candidate_path, sample, platform,"  \
	" harness, verdict, detail, cases_total, cases_passed, timed_cases, first_failure,"  \
	" speedup, max_tol_use, import_ms, wall_ms, cases_skipped"

#define EVAL_COLUMNS_E                                                                        \
	"e.key, e.task, e.source, e.task_version, e.candidate_hash, e.candidate_path,"       \
	" e.sample, e.platform, e.harness, e.verdict, e.detail, e.cases_total,"              \
	" e.cases_passed, e.timed_cases, e.first_failure, e.speedup, e.max_tol_use,"         \
	" e.import_ms, e.wall_ms, e.cases_skipped"

static void read_eval(sqlite3_stmt *st, int off, struct store_eval *e)
{
	/* Text like the rest (a key that is not UTF-8 made `report --json` print "(null)"), cut
	 * to the HASH_HEX_LEN bytes kgb writes, at a character's start. */
	char *key = col_text(st, off);
	size_t n = key ? strlen(key) : 0;

	memset(e, 0, sizeof(*e));
	if (n > HASH_HEX_LEN)
		for (n = HASH_HEX_LEN; n && ((unsigned char)key[n] & 0xc0) == 0x80; n--)
			;
	memcpy(e->key, key ? key : "", n);
	e->key[n] = '\0';
	free(key);
	e->task = col_required(st, off + 1);
	e->source = col_required(st, off + 2);
	e->task_version = col_required(st, off + 3);
	e->candidate_hash = col_required(st, off + 4);
	e->candidate_path = col_text(st, off + 5);
	e->sample = col_required(st, off + 6);
	e->platform = col_required(st, off + 7);
	e->harness = col_required(st, off + 8);
	e->verdict = col_required(st, off + 9);
	e->detail = col_text(st, off + 10);
	e->cases_total = sqlite3_column_int64(st, off + 11);
	e->cases_passed = sqlite3_column_int64(st, off + 12);
	e->timed_cases = sqlite3_column_int64(st, off + 13);
	e->first_failure = col_text(st, off + 14);
	e->speedup = col_real(st, off + 15);
	e->max_tol_use = col_real(st, off + 16);
	e->import_ms = col_real(st, off + 17);
	e->wall_ms = col_real(st, off + 18);
	e->cases_skipped = sqlite3_column_int64(st, off + 19);
}

void store_eval_release(struct store_eval *e)
{
	free(e->task);
	free(e->source);
	free(e->task_version);
	free(e->candidate_hash);
	free(e->candidate_path);
	free(e->sample);
	free(e->platform);
	free(e->harness);
	free(e->verdict);
	free(e->detail);
	free(e->first_failure);
	memset(e, 0, sizeof(*e));
}

int store_ceilings_get(struct store *s, const char *device, const char *stack, char **ret_json,
		       struct strbuf *err)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(s->db, "SELECT value FROM ceilings WHERE device = ? AND stack = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "looking up the device's ceilings");
	bind_text(st, 1, device);
	bind_text(st, 2, stack);
	r = step_row(s, st, "looking up the device's ceilings", err);
	/* A NULL value (the table rebuilt by another tool without NOT NULL) is none. */
	if (r == 0 && !(*ret_json = col_text(st, 0)))
		r = -ENOENT;
	sqlite3_finalize(st);
	return r;
}

int store_check_get(struct store *s, const char *key, char **ret_json, struct strbuf *err)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(s->db, "SELECT result FROM checks WHERE key = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_err(s, err, "looking up a checked candidate");
	bind_text(st, 1, key);
	r = step_row(s, st, "looking up a checked candidate", err);
	if (r == 0 && !(*ret_json = col_text(st, 0))) /* NULL: none, as for ceilings */
		r = -ENOENT;
	sqlite3_finalize(st);
	return r;
}

int store_check_put(struct store *s, const char *key, const char *json, struct strbuf *err)
{
	char ts[32];
	const char *v[] = {key, json, ts};

	now_iso(ts);
	return exec_texts(s, "INSERT OR REPLACE INTO checks(key, result, created_at) VALUES(?, ?, ?)",
			  "storing a checked candidate", v, ARRAY_SIZE(v), err);
}

/* The columns of a generation (store_generation_put()), but its run and time. */
/*
 * Column i as JSON (a new reference, never NULL): integers, reals (null where not finite:
 * JSON has no NaN), text (null where not UTF-8), null.
 */
static json_t *col_json(sqlite3_stmt *st, int i)
{
	json_t *v = NULL;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		v = json_integer(sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		if (isfinite(sqlite3_column_double(st, i)))
			v = json_real(sqlite3_column_double(st, i));
		break;
	case SQLITE_TEXT:
		v = json_string((const char *)sqlite3_column_text(st, i));
		break;
	}
	return v ? v : json_null();
}

static const char *const gen_cols[] = {
	"task", "source", "sample", "round", "stage", "track", "model", "outcome", "finish",
	"error", "prompt_tokens", "completion_tokens", "cached_tokens", "latency_ms",
	"eval_ms", "cost_usd", "http_attempts", "candidate", "eval_key", "speedup", "feedback",
};

int store_generation_put(struct store *s, long long run_id, json_t *row, struct strbuf *err)
{
	const char *const *cols = gen_cols;
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st;
	char ts[32];
	int r = 0;

	strbuf_addstr(&sql, "INSERT OR REPLACE INTO generations(run_id, created_at");
	for (size_t i = 0; i < ARRAY_SIZE(gen_cols); i++)
		strbuf_addf(&sql, ", %s", cols[i]);
	strbuf_addstr(&sql, ") VALUES(?, ?");
	for (size_t i = 0; i < ARRAY_SIZE(gen_cols); i++)
		strbuf_addstr(&sql, ", ?");
	strbuf_addch(&sql, ')');
	if (sqlite3_prepare_v2(s->db, sql.buf, -1, &st, NULL) != SQLITE_OK) {
		strbuf_release(&sql);
		return db_err(s, err, "storing a generation");
	}
	strbuf_release(&sql);
	now_iso(ts);
	sqlite3_bind_int64(st, 1, run_id);
	bind_text(st, 2, ts);
	for (size_t i = 0; i < ARRAY_SIZE(gen_cols); i++) {
		json_t *v = json_object_get(row, cols[i]);
		int at = (int)i + 3;

		if (json_is_integer(v))
			sqlite3_bind_int64(st, at, json_integer_value(v));
		else if (json_is_real(v) && isfinite(json_real_value(v)))
			sqlite3_bind_double(st, at, json_real_value(v));
		else if (json_is_string(v))
			bind_text(st, at, json_string_value(v));
		else
			sqlite3_bind_null(st, at);
	}
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_err(s, err, "storing a generation");
	sqlite3_finalize(st);
	return r;
}

int store_generations_get(struct store *s, long long run_id, json_t **ret, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st;
	json_t *rows = json_array();
	int rc;

	strbuf_addstr(&sql, "SELECT run_id");
	for (size_t i = 0; i < ARRAY_SIZE(gen_cols); i++)
		strbuf_addf(&sql, ", %s", gen_cols[i]);
	strbuf_addstr(&sql, " FROM generations WHERE run_id = ? ORDER BY source, task, sample,"
			    " round, stage");
	rc = sqlite3_prepare_v2(s->db, sql.buf, -1, &st, NULL);
	strbuf_release(&sql);
	if (rc != SQLITE_OK) {
		json_decref(rows);
		return db_err(s, err, "reading the generations");
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *row = json_object();

		for (size_t i = 0; i < ARRAY_SIZE(gen_cols); i++) {
			json_object_set_new(row, gen_cols[i], col_json(st, (int)i + 1));
		}
		json_array_append_new(rows, row);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(rows);
		return db_err(s, err, "reading the generations");
	}
	*ret = rows;
	return 0;
}

int store_run_row(struct store *s, long long run_id, char **ret_started_at, char **ret_command,
		  char **ret_harness, struct strbuf *err)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(s->db, "SELECT started_at, command, harness FROM runs WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "reading the run");
	sqlite3_bind_int64(st, 1, run_id);
	r = step_row(s, st, "reading the run", err);
	if (r == 0) {
		*ret_started_at = col_text(st, 0);
		*ret_command = col_text(st, 1);
		*ret_harness = col_text(st, 2);
	}
	sqlite3_finalize(st);
	return r;
}

void store_attempts_free(struct store_attempt *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].task);
		free(v[i].source);
		free(v[i].outcome);
		free(v[i].error);
		free(v[i].eval_key);
	}
	free(v);
}

int store_first_attempts(struct store *s, long long run_id, struct store_attempt **ret,
			 size_t *ret_nr, struct strbuf *err)
{
	struct store_attempt *v = NULL;
	size_t n = 0, alloc = 0;
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT task, source, sample, outcome, error, eval_key"
			       " FROM generations"
			       " WHERE run_id = ? AND round = 0 AND stage = 'generate'"
			       " ORDER BY source, task, sample",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "reading the generations");
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(v, n + 1, alloc);
		v[n] = (struct store_attempt){.task = col_required(st, 0), .source = col_required(st, 1),
					      .sample = sqlite3_column_int64(st, 2),
					      .outcome = col_required(st, 3), .error = col_text(st, 4),
					      .eval_key = col_text(st, 5)};
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_attempts_free(v, n);
		return db_err(s, err, "reading the generations");
	}
	*ret = v;
	*ret_nr = n;
	return 0;
}

int store_generation_totals(struct store *s, long long run_id, struct store_gen_totals *ret,
			    struct strbuf *err)
{
	sqlite3_stmt *st;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->tokens = -1;
	ret->cost_usd = ret->time_ms = NAN;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT SUM(COALESCE(prompt_tokens, 0)"
			       " + COALESCE(completion_tokens, 0)),"
			       " SUM(CASE WHEN stage <> 'final' THEN cost_usd END),"
			       " COUNT(CASE WHEN stage <> 'final' THEN cost_usd END),"
			       " COUNT(CASE WHEN stage <> 'final' THEN 1 END),"
			       " SUM(COALESCE(latency_ms, 0) + COALESCE(eval_ms, 0)),"
			       " COUNT(DISTINCT source || '/' || task),"
			       " COUNT(DISTINCT CASE WHEN outcome = 'pass'"
			       "  THEN source || '/' || task END),"
			       " MAX(model), MAX(track),"
			       " COUNT(CASE WHEN prompt_tokens < 0 OR completion_tokens < 0 THEN 1 END)"
			       " FROM generations WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "reading the generations");
	sqlite3_bind_int64(st, 1, run_id);
	r = step_row(s, st, "reading the generations", err);
	if (r == 0) {
		/*
		 * An aggregate over no rows is still a row: a run without requests stays -1, and
		 * so does one where an agent reported no tokens (stored as -1).
		 */
		if (sqlite3_column_int64(st, 3) > 0 && sqlite3_column_int64(st, 9) == 0)
			ret->tokens = sqlite3_column_int64(st, 0);
		/*
		 * A cost is known only when every request has one; a final evaluation sends no
		 * request (its row's cost is NULL, and not a request's).
		 */
		if (sqlite3_column_int64(st, 2) == sqlite3_column_int64(st, 3) &&
		    sqlite3_column_int64(st, 3) > 0)
			ret->cost_usd = sqlite3_column_double(st, 1);
		ret->time_ms = col_real(st, 4);
		ret->tasks = (size_t)sqlite3_column_int64(st, 5);
		ret->solved = (size_t)sqlite3_column_int64(st, 6);
		ret->model = col_text(st, 7);
		ret->track = col_text(st, 8);
	}
	sqlite3_finalize(st);
	return r == -ENOENT ? 0 : r;
}

int store_eval_cases(struct store *s, const char *key, json_t **ret, struct strbuf *err)
{
	static const char *const cols[] = {"case_id", "entry", "axes", "timed", "verdict",
					   "max_abs_err", "tol_use", "atol", "rtol",
					   "time_base_ms", "time_cand_ms", "speedup", "detail"};
	sqlite3_stmt *st;
	json_t *a;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT case_id, entry, axes, timed, verdict, max_abs_err, tol_use,"
			       " atol, rtol, time_base_ms, time_cand_ms, speedup, detail FROM cases"
			       " WHERE eval_key = ? ORDER BY case_id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "reading the cases");
	bind_text(st, 1, key);
	a = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object();

		for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
			json_object_set_new(o, cols[i], col_json(st, (int)i));
		json_array_append_new(a, o);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(a);
		return db_err(s, err, "reading the cases");
	}
	*ret = a;
	return 0;
}

int store_ceilings_put(struct store *s, const char *device, const char *stack, const char *json,
		       struct strbuf *err)
{
	char ts[32];
	const char *v[] = {device, stack, json, ts};

	now_iso(ts);
	return exec_texts(s,
			  "INSERT OR REPLACE INTO ceilings(device, stack, value, measured_at) "
			  "VALUES(?, ?, ?, ?)",
			  "storing the device's ceilings", v, ARRAY_SIZE(v), err);
}

int store_eval_get(struct store *s, const char *key, struct store_eval *ret, struct strbuf *err)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(s->db, "SELECT " EVAL_COLUMNS " FROM evaluations WHERE key = ?", -1,
			       &st, NULL) != SQLITE_OK)
		return db_err(s, err, "looking up a result");
	bind_text(st, 1, key);
	r = step_row(s, st, "looking up a result", err);
	if (r == 0)
		read_eval(st, 0, ret);
	sqlite3_finalize(st);
	return r;
}

static double obj_real(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

int store_eval_put(struct store *s, long long run_id, const struct store_eval *e, json_t *cases,
		   struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	char ts[32];
	size_t i;
	json_t *c;
	int r;

	now_iso(ts);
	r = exec_sql(s, "BEGIN IMMEDIATE;", err);
	if (r < 0)
		return r;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT OR REPLACE INTO evaluations(" EVAL_COLUMNS
			       ", created_at, run_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		r = db_err(s, err, "storing a result");
		goto rollback;
	}
	bind_text(st, 1, e->key);
	bind_text(st, 2, e->task);
	bind_text(st, 3, e->source);
	bind_text(st, 4, e->task_version);
	bind_text(st, 5, e->candidate_hash);
	bind_text(st, 6, e->candidate_path);
	bind_text(st, 7, e->sample);
	bind_text(st, 8, e->platform);
	bind_text(st, 9, e->harness);
	bind_text(st, 10, e->verdict);
	bind_text(st, 11, e->detail);
	sqlite3_bind_int64(st, 12, e->cases_total);
	sqlite3_bind_int64(st, 13, e->cases_passed);
	sqlite3_bind_int64(st, 14, e->timed_cases);
	bind_text(st, 15, e->first_failure);
	bind_real(st, 16, e->speedup);
	bind_real(st, 17, e->max_tol_use);
	bind_real(st, 18, e->import_ms);
	bind_real(st, 19, e->wall_ms);
	sqlite3_bind_int64(st, 20, e->cases_skipped);
	bind_text(st, 21, ts);
	sqlite3_bind_int64(st, 22, run_id);
	if (sqlite3_step(st) != SQLITE_DONE) {
		r = db_err(s, err, "storing a result");
		goto rollback;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(s->db, "DELETE FROM cases WHERE eval_key = ?", -1, &st, NULL) !=
	    SQLITE_OK) {
		r = db_err(s, err, "storing cases");
		goto rollback;
	}
	bind_text(st, 1, e->key);
	if (sqlite3_step(st) != SQLITE_DONE) {
		r = db_err(s, err, "storing cases");
		goto rollback;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO cases(eval_key, case_id, entry, axes, timed, verdict,"
			       " max_abs_err, tol_use, base_tol_use, atol, rtol, time_base_ms,"
			       " time_cand_ms, speedup, detail) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		r = db_err(s, err, "storing cases");
		goto rollback;
	}
	json_array_foreach(cases, i, c) {
		char *axes = json_dumps(json_object_get(c, "axes"), JSON_COMPACT | JSON_ENCODE_ANY);
		char *detail = json_dumps(json_object_get(c, "result"), JSON_COMPACT | JSON_ENCODE_ANY);
		json_t *res = json_object_get(c, "result");

		sqlite3_reset(st);
		bind_text(st, 1, e->key);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		bind_text(st, 3, json_string_value(json_object_get(c, "entry")));
		bind_text(st, 4, axes);
		sqlite3_bind_int(st, 5, json_is_true(json_object_get(c, "timed")));
		bind_text(st, 6, json_string_value(json_object_get(res, "verdict")));
		bind_real(st, 7, obj_real(res, "max_abs_err"));
		bind_real(st, 8, obj_real(res, "tol_use"));
		bind_real(st, 9, obj_real(res, "base_tol_use"));
		bind_real(st, 10, obj_real(c, "atol"));
		bind_real(st, 11, obj_real(c, "rtol"));
		bind_real(st, 12, obj_real(res, "time_base_ms"));
		bind_real(st, 13, obj_real(res, "time_cand_ms"));
		bind_real(st, 14, obj_real(res, "speedup"));
		bind_text(st, 15, json_is_null(res) || !res ? NULL : detail);
		free(axes);
		free(detail);
		if (sqlite3_step(st) != SQLITE_DONE) {
			r = db_err(s, err, "storing cases");
			goto rollback;
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	r = store_run_link(s, run_id, e, false, err);
	if (r < 0)
		goto rollback;
	{
		const char *v[] = {e->key};

		/* The check it waited with is part of the evaluation now. */
		r = exec_texts(s, "DELETE FROM checks WHERE key = ?", "storing a result", v, 1, err);
		if (r < 0)
			goto rollback;
	}
	return exec_sql(s, "COMMIT;", err);
rollback:
	sqlite3_finalize(st);
	{
		struct strbuf ignore = STRBUF_INIT;
		(void)exec_sql(s, "ROLLBACK;", &ignore);
		strbuf_release(&ignore);
	}
	return r;
}

int store_run_link(struct store *s, long long run_id, const struct store_eval *e, bool reused,
		   struct strbuf *err)
{
	sqlite3_stmt *st;
	int r = 0;

	if (sqlite3_prepare_v2(s->db,
			       "INSERT OR REPLACE INTO run_evals(run_id, task, sample, candidate_path,"
			       " eval_key, reused) VALUES(?, ?, ?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "linking a result to the run");
	sqlite3_bind_int64(st, 1, run_id);
	bind_text(st, 2, e->task);
	bind_text(st, 3, e->sample ? e->sample : "-");
	bind_text(st, 4, e->candidate_path);
	bind_text(st, 5, e->key);
	sqlite3_bind_int(st, 6, reused);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_err(s, err, "linking a result to the run");
	sqlite3_finalize(st);
	return r;
}

int store_run_evals(struct store *s, long long run_id, struct store_eval **ret, size_t *ret_nr,
		    bool **ret_reused, struct strbuf *err)
{
	sqlite3_stmt *st;
	struct store_eval *v = NULL;
	bool *reused = NULL;
	size_t n = 0, alloc = 0, ralloc = 0;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT r.reused, r.sample, r.candidate_path, " EVAL_COLUMNS_E
			       " FROM run_evals r JOIN evaluations e"
			       " ON e.key = r.eval_key WHERE r.run_id = ?"
			       " ORDER BY CASE e.source WHEN 'aten' THEN 0 WHEN 'vllm' THEN 1"
			       " ELSE 2 END, r.task, r.sample",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "reading the run's results");
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(v, n + 1, alloc);
		XGROW(reused, n + 1, ralloc);
		reused[n] = sqlite3_column_int(st, 0) != 0;
		read_eval(st, 3, &v[n]);
		/* This run's name and path for the candidate, not the first evaluator's. */
		free(v[n].sample);
		free(v[n].candidate_path);
		v[n].sample = col_required(st, 1);
		v[n].candidate_path = col_text(st, 2);
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		for (size_t i = 0; i < n; i++)
			store_eval_release(&v[i]);
		free(v);
		free(reused);
		return db_err(s, err, "reading the run's results");
	}
	*ret = v;
	*ret_nr = n;
	*ret_reused = reused;
	return 0;
}

int store_eval_sol(struct store *s, const char *key, double *ret_median, struct strbuf *err)
{
	sqlite3_stmt *st;
	double *v = NULL;
	size_t n = 0, alloc = 0;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT json_extract(detail, '$.sol_fraction') FROM cases"
			       " WHERE eval_key = ? AND timed = 1 AND json_valid(detail)"
			       " AND json_extract(detail, '$.sol_fraction') IS NOT NULL",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "reading speed-of-light fractions");
	bind_text(st, 1, key);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(v, n + 1, alloc);
		v[n++] = sqlite3_column_double(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return db_err(s, err, "reading speed-of-light fractions");
	}
	*ret_median = stats_median(v, n);
	free(v);
	return 0;
}

int store_task_wall_ms(struct store *s, const char *source, const char *task,
		       const char *platform, double *ret_ms, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc;

	*ret_ms = NAN;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT MAX(wall_ms) FROM evaluations WHERE source = ? AND task = ?"
			       " AND platform = ? AND wall_ms > 0",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "reading past wall times");
	bind_text(st, 1, source);
	bind_text(st, 2, task);
	bind_text(st, 3, platform);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*ret_ms = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(s, err, "reading past wall times");
	return 0;
}

int store_eval_entries(struct store *s, const char *key, json_t **ret, struct strbuf *err)
{
	sqlite3_stmt *st;
	json_t *o;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT entry, SUM(verdict = 'pass'), COUNT(*) FROM cases"
			       " WHERE eval_key = ? GROUP BY entry ORDER BY MIN(case_id)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "reading per-entry results");
	bind_text(st, 1, key);
	o = json_object();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* Escaped like all text read (JSON refuses a key that is not UTF-8, which dropped
		 * the entry's cases), and added up where two names meet ("?" for NULL). */
		char *entry = col_required(st, 0);
		json_t *prev = json_object_get(o, entry);
		json_int_t passed = sqlite3_column_int64(st, 1);
		json_int_t total = sqlite3_column_int64(st, 2);

		passed += json_integer_value(json_object_get(prev, "passed"));
		total += json_integer_value(json_object_get(prev, "total"));
		json_object_set_new(o, entry,
				    json_pack("{s:I, s:I}", "passed", passed, "total", total));
		free(entry);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(o);
		return db_err(s, err, "reading per-entry results");
	}
	*ret = o;
	return 0;
}

int store_use_rollback_journal(struct store *s, struct strbuf *err)
{
	return exec_sql(s, "PRAGMA journal_mode=DELETE;", err);
}

/* One integer from a query with the texts bound in order; 0 when it yields no row. */
static int query_ll(sqlite3 *db, const char *sql, const char *const *texts, size_t n,
		    long long *ret)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < n; i++)
		sqlite3_bind_text(st, (int)i + 1, texts[i], -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	*ret = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int store_progress(const char *path, struct store_progress *ret, struct strbuf *err)
{
	sqlite3 *db = NULL;
	long long tables = 0;
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	if (!path_is_file(path))
		return -ENOENT;
	/* Read-write without create: a journal left by a killed shard can then be rolled back. */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		strbuf_addf(err, "cannot open store '%s': %s", path,
			    db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -EIO;
	}
	sqlite3_busy_timeout(db, 30000);
	if (query_ll(db,
		     "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
		     " AND name IN ('runs', 'run_evals', 'evaluations')",
		     NULL, 0, &tables) < 0)
		goto fail;
	if (tables < 3) /* created, schema not yet written: nothing done */
		goto out;
	if (query_ll(db,
		     "SELECT count(*) FROM (SELECT DISTINCT l.task, l.sample FROM run_evals l"
		     " JOIN evaluations e ON e.key = l.eval_key)",
		     NULL, 0, &ret->candidates) < 0 ||
	    query_ll(db, "SELECT count(*) FROM runs WHERE finished_at IS NOT NULL", NULL, 0,
		     &ret->finished_runs) < 0 ||
	    query_ll(db,
		     "SELECT coalesce(max(n), 0) FROM (SELECT (SELECT count(*) FROM run_evals l"
		     " WHERE l.run_id = r.id) AS n FROM runs r WHERE r.finished_at IS NOT NULL)",
		     NULL, 0, &ret->finished_links) < 0 ||
	    query_ll(db,
		     "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
		     " AND name = 'generations'",
		     NULL, 0, &tables) < 0)
		goto fail;
	if (tables &&
	    (query_ll(db,
		      "SELECT count(DISTINCT source || '/' || task) FROM generations", NULL, 0,
		      &ret->generated_tasks) < 0 ||
	     query_ll(db,
		      "SELECT coalesce(max(n), 0) FROM (SELECT (SELECT count(DISTINCT g.source ||"
		      " '/' || g.task) FROM generations g WHERE g.run_id = r.id) AS n FROM runs r"
		      " WHERE r.finished_at IS NOT NULL AND r.harness = 'generate')",
		      NULL, 0, &ret->finished_generated_tasks) < 0))
		goto fail;
out:
	sqlite3_close(db);
	return r;
fail:
	strbuf_addf(err, "reading the progress of store '%s': %s", path, sqlite3_errmsg(db));
	r = sqlite3_errcode(db) == SQLITE_BUSY ? -EBUSY : -EIO;
	memset(ret, 0, sizeof(*ret));
	goto out;
}

/* The columns of a merged evaluation and case, in the schema's names. */
#define MERGE_CASE_COLUMNS                                                                    \
	"eval_key, case_id, entry, axes, timed, verdict, max_abs_err, tol_use, base_tol_use,"  \
	" atol, rtol, time_base_ms, time_cand_ms, speedup, detail"

/* The columns of a merged generation, but its run. */
#define MERGE_GEN_COLUMNS                                                                     \
	"task, source, sample, round, stage, track, model, outcome, finish, error,"            \
	" prompt_tokens, completion_tokens, cached_tokens, latency_ms, eval_ms, cost_usd,"     \
	" http_attempts, candidate, eval_key, speedup, feedback, created_at"

/* The latest finished generate run of a platform of the source store, for r.platform. */
#define MERGE_GEN_LATEST                                                                      \
	"(SELECT max(r2.id) FROM src.runs r2 WHERE r2.harness = 'generate'"                    \
	" AND r2.finished_at IS NOT NULL AND r2.platform = r.platform)"

/* Runs sql with the texts bound; adds sqlite3_changes() to *changes (may be NULL). */
static int merge_exec(struct store *s, const char *sql, const char *const *texts, size_t n,
		      long long *changes, struct strbuf *err)
{
	int r = exec_texts(s, sql, "merging", texts, n, err);

	if (r == 0 && changes)
		*changes += sqlite3_changes(s->db);
	return r;
}

/* Whether the attached source store has the table (added after schema 1: older ones lack it). */
static bool src_has_table(struct store *s, const char *name)
{
	const char *v[] = {name};
	long long n = 0;

	return query_ll(s->db,
			"SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name = ?",
			v, 1, &n) == 0 &&
	       n;
}

/* Whether the attached source (src) is a kgb store of this schema: 0 or -EPROTO. */
static int merge_check_source(struct store *s, const char *src_path, struct strbuf *err)
{
	long long n = 0;
	const char *none[1] = {NULL};
	long long tables = 0;

	if (query_ll(s->db,
		     "SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name IN"
		     " ('meta', 'runs', 'evaluations', 'cases', 'run_evals')",
		     none, 0, &tables) < 0 ||
	    tables != 5 ||
	    query_ll(s->db, "SELECT value FROM src.meta WHERE key = 'schema'", none, 0, &n) <
		    0 ||
	    n != STORE_SCHEMA_VERSION) {
		strbuf_addf(err, "'%s' is not a kgb store of schema %d", src_path,
			    STORE_SCHEMA_VERSION);
		return -EPROTO;
	}
	return 0;
}

/*
 * The evaluations, their cases and links, and the ceilings of the attached source, into one
 * merged run per platform (its command `cmd`, started at ts); counts added to *add.
 */
static int merge_evaluations(struct store *s, const char *cmd, const char *ts,
			     struct store_merge_stats *add, struct strbuf *err)
{
	int r;

	if ((r = query_ll(s->db,
			  "SELECT count(*) FROM src.evaluations x JOIN main.evaluations d"
			  " ON d.key = x.key",
			  NULL, 0, &add->evaluations_known)) < 0 ||
	    (r = query_ll(s->db,
			  "SELECT count(*) FROM src.evaluations x JOIN main.evaluations d"
			  " ON d.key = x.key WHERE d.verdict IS NOT x.verdict",
			  NULL, 0, &add->conflicts)) < 0) {
		return db_err(s, err, "merging");
	}
	/* One merged run per platform of the linked evaluations, made on first use. */
	{
		const char *rv[] = {ts, cmd, cmd};

		r = merge_exec(s,
			       "INSERT INTO main.runs(started_at, platform, harness, command, env)"
			       " SELECT ?1, r.platform, r.harness, ?2, r.env FROM src.runs r"
			       " WHERE r.id = (SELECT max(r2.id) FROM src.runs r2"
			       "  WHERE r2.platform = r.platform AND r2.harness != 'generate')"
			       " AND EXISTS (SELECT 1 FROM src.run_evals l JOIN src.evaluations e"
			       "  ON e.key = l.eval_key WHERE e.platform = r.platform)"
			       " AND NOT EXISTS (SELECT 1 FROM main.runs m WHERE m.command = ?3"
			       "  AND m.platform = r.platform)",
			       rv, ARRAY_SIZE(rv), NULL, err);
		if (r < 0)
			return r;
	}
	if ((r = exec_sql(s,
			  "CREATE TEMP TABLE IF NOT EXISTS merge_new(key TEXT PRIMARY KEY);"
			  "DELETE FROM merge_new;"
			  "INSERT INTO merge_new SELECT key FROM src.evaluations x WHERE NOT EXISTS"
			  " (SELECT 1 FROM main.evaluations d WHERE d.key = x.key);",
			  err)) < 0)
		return r;
	{
		const char *ev[] = {cmd};

		r = merge_exec(s,
			       "INSERT INTO main.evaluations(" EVAL_COLUMNS ", created_at, run_id)"
			       " SELECT " EVAL_COLUMNS ", created_at, (SELECT m.id FROM main.runs m"
			       "  WHERE m.command = ?1 AND m.platform = x.platform)"
			       " FROM src.evaluations x WHERE x.key IN (SELECT key FROM merge_new)",
			       ev, ARRAY_SIZE(ev), &add->evaluations_added, err);
		if (r < 0)
			return r;
	}
	r = merge_exec(s,
		       "INSERT OR IGNORE INTO main.cases(" MERGE_CASE_COLUMNS ") SELECT "
		       MERGE_CASE_COLUMNS " FROM src.cases WHERE eval_key IN"
		       " (SELECT key FROM merge_new)",
		       NULL, 0, &add->cases_added, err);
	if (r < 0)
		return r;
	{
		const char *lv[] = {cmd};

		/* Every candidate was evaluated by a shard of this run: none is "reused" here. */
		r = merge_exec(s,
			       "INSERT INTO main.run_evals(run_id, task, sample, candidate_path,"
			       " eval_key, reused)"
			       " SELECT m.id, l.task, l.sample, l.candidate_path, l.eval_key, 0"
			       " FROM src.run_evals l JOIN src.evaluations e ON e.key = l.eval_key"
			       " JOIN main.runs m ON m.command = ?1 AND m.platform = e.platform"
			       /* the source's latest link of a candidate: merging again changes
				* nothing (a generate shard links one sample once per round) */
			       " WHERE l.run_id = (SELECT max(l2.run_id) FROM src.run_evals l2"
			       "  JOIN src.evaluations e2 ON e2.key = l2.eval_key"
			       "  WHERE l2.task = l.task AND l2.sample = l.sample"
			       "  AND e2.platform = e.platform)"
			       " ON CONFLICT(run_id, task, sample) DO UPDATE SET"
			       " candidate_path = excluded.candidate_path, eval_key = excluded.eval_key"
			       " WHERE eval_key IS NOT excluded.eval_key"
			       " OR candidate_path IS NOT excluded.candidate_path",
			       lv, ARRAY_SIZE(lv), &add->links_added, err);
		if (r < 0)
			return r;
	}
	if (src_has_table(s, "ceilings")) {
		r = merge_exec(s, "INSERT OR IGNORE INTO main.ceilings SELECT * FROM src.ceilings",
			       NULL, 0, &add->ceilings_added, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * `kgb generate` shards: the requests of the latest finished generate run of each platform go
 * to one generate run of the destination per platform, the run whose command is gen_cmd
 * ("kgb merge --label <label> (generate)"); a row already there is kept.
 */
static int merge_generations(struct store *s, const char *gen_cmd, const char *ts,
			     struct store_merge_stats *add, struct strbuf *err)
{
	const char *rv[] = {ts, gen_cmd, gen_cmd};
	const char *gv[] = {gen_cmd};
	int r;

	if (!src_has_table(s, "generations"))
		return 0;
	r = merge_exec(s,
		       "INSERT INTO main.runs(started_at, platform, harness, command, env)"
		       " SELECT ?1, r.platform, r.harness, ?2, r.env FROM src.runs r"
		       " WHERE r.id = " MERGE_GEN_LATEST
		       " AND NOT EXISTS (SELECT 1 FROM main.runs m WHERE m.command = ?3"
		       "  AND m.platform = r.platform)",
		       rv, ARRAY_SIZE(rv), NULL, err);
	if (r < 0)
		return r;
	return merge_exec(s,
			  "INSERT OR IGNORE INTO main.generations(run_id, " MERGE_GEN_COLUMNS
			  ") SELECT m.id, " MERGE_GEN_COLUMNS
			  " FROM src.generations g JOIN src.runs r ON r.id = g.run_id"
			  " JOIN main.runs m ON m.command = ?1 AND m.platform = r.platform"
			  " WHERE r.id = " MERGE_GEN_LATEST,
			  gv, ARRAY_SIZE(gv), &add->generations_added, err);
}

int store_merge(struct store *s, const char *src_path, const char *label,
		struct store_merge_stats *stats, struct strbuf *err)
{
	struct strbuf cmd = STRBUF_INIT, gen_cmd = STRBUF_INIT;
	struct store_merge_stats add = {0};
	const char *v[2];
	char ts[32];
	int r;

	if (!path_is_file(src_path)) {
		strbuf_addf(err, "shard store '%s': no such file", src_path);
		return -ENOENT;
	}
	strbuf_addf(&cmd, "kgb merge --label %s", label);
	strbuf_addf(&gen_cmd, "kgb merge --label %s (generate)", label);
	now_iso(ts);
	v[0] = src_path;
	/* ATTACH takes the file name as a bound value: no quoting of paths. */
	r = exec_texts(s, "ATTACH DATABASE ? AS src", "attaching the shard store", v, 1, err);
	if (r < 0)
		goto out_nodetach;
	if ((r = merge_check_source(s, src_path, err)) < 0)
		goto out;
	r = exec_sql(s, "BEGIN IMMEDIATE;", err);
	if (r < 0)
		goto out;
	if ((r = merge_evaluations(s, cmd.buf, ts, &add, err)) < 0 ||
	    (r = merge_generations(s, gen_cmd.buf, ts, &add, err)) < 0)
		goto rollback;
	{
		const char *fv[] = {ts, cmd.buf, gen_cmd.buf};

		r = merge_exec(s,
			       "UPDATE main.runs SET finished_at = ?1 WHERE command = ?2"
			       " OR command = ?3",
			       fv, ARRAY_SIZE(fv), NULL, err);
		if (r < 0)
			goto rollback;
	}
	r = exec_sql(s, "COMMIT;", err);
	if (r < 0)
		goto rollback;
	stats->evaluations_added += add.evaluations_added;
	stats->evaluations_known += add.evaluations_known;
	stats->conflicts += add.conflicts;
	stats->cases_added += add.cases_added;
	stats->links_added += add.links_added;
	stats->ceilings_added += add.ceilings_added;
	stats->generations_added += add.generations_added;
	goto out;
rollback:
	{
		struct strbuf ignore = STRBUF_INIT;

		(void)exec_sql(s, "ROLLBACK;", &ignore);
		strbuf_release(&ignore);
	}
out:
	{
		struct strbuf ignore = STRBUF_INIT;

		(void)exec_sql(s, "DETACH DATABASE src;", &ignore);
		strbuf_release(&ignore);
	}
out_nodetach:
	if (r < 0 && !strstr(err->buf, src_path)) {
		struct strbuf tmp = STRBUF_INIT;

		strbuf_addf(&tmp, "merging '%s': %s", src_path, err->buf);
		strbuf_reset(err);
		strbuf_addstr(err, tmp.buf);
		strbuf_release(&tmp);
	}
	strbuf_release(&cmd);
	strbuf_release(&gen_cmd);
	return r;
}

/* The runs whose command is "kgb merge --label <label><suffix>" (store_merge_runs()). */
static int merge_runs(struct store *s, const char *label, const char *suffix,
		      long long **ret_ids, char ***ret_platforms, size_t *ret_nr,
		      struct strbuf *err)
{
	struct strbuf cmd = STRBUF_INIT;
	sqlite3_stmt *st;
	long long *ids = NULL;
	char **plats = xcalloc(1, sizeof(*plats));
	size_t n = 0, alloc = 0;
	int rc;

	strbuf_addf(&cmd, "kgb merge --label %s%s", label, suffix);
	if (sqlite3_prepare_v2(s->db,
			       "SELECT id, platform FROM runs WHERE command = ? ORDER BY platform",
			       -1, &st, NULL) != SQLITE_OK) {
		strbuf_release(&cmd);
		free(plats);
		return db_err(s, err, "reading the merged runs");
	}
	bind_text(st, 1, cmd.buf);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(ids, n + 1, alloc);
		plats = xrealloc(plats, (n + 2) * sizeof(*plats));
		ids[n] = sqlite3_column_int64(st, 0);
		/* "?" for NULL: a NULL inside ended the list early (strv_free() leaked the rest) */
		plats[n++] = col_required(st, 1);
		plats[n] = NULL;
	}
	sqlite3_finalize(st);
	strbuf_release(&cmd);
	if (rc != SQLITE_DONE) {
		free(ids);
		strv_free(plats);
		return db_err(s, err, "reading the merged runs");
	}
	*ret_ids = ids;
	*ret_platforms = plats;
	*ret_nr = n;
	return 0;
}

int store_merge_runs(struct store *s, const char *label, long long **ret_ids,
		     char ***ret_platforms, size_t *ret_nr, struct strbuf *err)
{
	return merge_runs(s, label, "", ret_ids, ret_platforms, ret_nr, err);
}

int store_merge_gen_runs(struct store *s, const char *label, long long **ret_ids,
			 char ***ret_platforms, size_t *ret_nr, struct strbuf *err)
{
	return merge_runs(s, label, " (generate)", ret_ids, ret_platforms, ret_nr, err);
}
