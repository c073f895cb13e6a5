/*
 * fuzz-store.c - src/store.c's readers: what `kgb report`, `export`, `compare`, `merge` and
 * `eval --history` read back from a store file, which any tool or hand may have written.
 *
 * Input, in one of two forms:
 * - bytes that start with SQLite's magic ("SQLite format 3") are the store file itself; the
 *   seeds in tests/fuzz/corpus/store/ are small real stores (tests/fuzz/store-seeds.sh);
 * - anything else is a list of edits to a real store that the harness writes at start-up with
 *   store.c's own writers (an eval run, a generate run, runs of a merge, evaluations with
 *   cases, ceilings, a pending check). An edit is 2 bytes and its value's: the first picks a
 *   column of any table, the second a row (modulo the table's, or all) and the action: NULL, an
 *   integer, a real (NaN and inf included), text of any bytes (not UTF-8, with NUL) or a blob,
 *   another row's value (equal keys, duplicate entries), deleting the row, dropping the table,
 *   rebuilding it without constraints (so NULL reaches NOT NULL columns and keys repeat), or the
 *   rollback journal. libsqlite3 is not instrumented, so coverage guides byte-level mutations
 *   of a file poorly: the edits are what reaches the row readers.
 * The file is then opened as the readers open it: store_open_readonly() (eval --history, the
 * export of cases), store_progress(), and store_open() (report, export, compare: read-write,
 * it migrates a schema-1 store). Every reader is called on the read-only store, and again on
 * the read-write one where that is another store (the read-only open refused the file, or
 * store_open() migrated it or added tables), with the run ids, evaluation keys, labels and
 * ceilings the file holds (a few of each) and missing ones.
 * Checks, besides the sanitizers (leaks included):
 * - an open returns 0 with no message or a negative errno with a message naming the file;
 *   store_open_readonly(), the readers on it and store_progress() leave the file's bytes as
 *   they were, and so does a store_open() that fails; after one that succeeds the file opens
 *   read-only;
 * - a reader returns 0 with no message, -ENOENT where its header says so, or a negative errno
 *   with a message;
 * - every string handed out is valid UTF-8 (store.c validates text as it enters kgb), and
 *   non-NULL unless its header allows NULL; an evaluation looked up by key has that key;
 * - what the store counts is consistent: per-entry counts are 0 <= passed <= total and add up
 *   to the evaluation's cases as store_eval_cases() lists them, each case object has every
 *   column with a JSON null, integer, finite real or string; a generation run's solved tasks
 *   are at most its tasks, its tokens -1 exactly when it has no requests; progress counts are
 *   non-negative. Numbers the store only copies (cases_total, token counts) are not checked.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <unistd.h>

#include "escape.h"
#include "store.h"
#include "util/fs.h"

#define MAX_INPUT (256 * 1024) /* a store file of the raw form */
#define MAX_EDITS 16
#define MAX_ARGS 4	       /* run ids, keys, labels, ... read from the file, each */
#define MAX_COLS 128

static char *dir;	/* private directory under $TMPDIR */
static char *db_path;	/* dir/s.db: the store under test */
static struct strbuf base = STRBUF_INIT; /* the store the edits apply to */
static char *col_table[MAX_COLS], *col_name[MAX_COLS];
static size_t nr_cols;

static void remove_dir(void)
{
	if (dir)
		(void)rm_rf(dir);
}

static void write_file(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	FUZZ_CHECK(fd >= 0, "cannot create '%s'", path);
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "cannot write '%s'", path);
	close(fd);
}

/* The store file and what SQLite keeps next to it. */
static void remove_store(void)
{
	static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};

	for (size_t i = 0; i < ARRAY_SIZE(suffix); i++) {
		struct strbuf p = STRBUF_INIT;

		strbuf_addf(&p, "%s%s", db_path, suffix[i]);
		FUZZ_CHECK(unlink(p.buf) == 0 || errno == ENOENT, "cannot remove '%s'", p.buf);
		strbuf_release(&p);
	}
}

static void read_store(struct strbuf *sb)
{
	FUZZ_CHECK(strbuf_read_file(sb, db_path, 0) == 0, "cannot read '%s'", db_path);
}

static void must_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	FUZZ_CHECK(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql, msg);
}

static void must(int r, const char *what, const struct strbuf *err)
{
	FUZZ_CHECK(r == 0, "%s = %d: %s", what, r, err->buf);
}

/* One evaluation with three cases (two entries, one timed with a speed-of-light fraction). */
static void put_eval(struct store *s, long long run, const char *cand, const char *verdict,
		     struct strbuf *err)
{
	struct store_eval e = {.task = "add", .source = "aten", .task_version = "v1",
			       .candidate_hash = (char *)cand, .candidate_path = "/c/add.py",
			       .sample = "s0", .platform = "interpreter", .harness = "h1",
			       .verdict = (char *)verdict, .detail = "case 1: mismatch",
			       .cases_total = 3, .cases_passed = 2, .timed_cases = 1,
			       .first_failure = "{\"case\": 1, \"message\": \"off\"}",
			       .speedup = 1.5, .import_ms = 12, .wall_ms = 340,
			       .max_tol_use = 0.25};
	json_t *cases = json_pack(
		"[{s:s, s:{s:i}, s:b, s:f, s:f, s:{s:s, s:f, s:f, s:f, s:f, s:f}},"
		" {s:s, s:{s:i}, s:{s:s, s:s}}, {s:s, s:{s:i}, s:n}]",
		"entry", "add.Tensor", "axes", "n", 4, "timed", 1, "atol", 1e-5, "rtol", 1e-3,
		"result", "verdict", "pass", "max_abs_err", 0.0, "tol_use", 0.25, "time_base_ms",
		2.0, "time_cand_ms", 1.0, "sol_fraction", 0.5, "entry", "add.Scalar", "axes", "n",
		8, "result", "verdict", "mismatch", "message", "off by one", "entry", "add.Tensor",
		"axes", "n", 16, "result");

	FUZZ_CHECK(cases, "json_pack");
	store_eval_key(cand, e.task_version, e.platform, e.harness, 42, e.key);
	must(store_eval_put(s, run, &e, cases, err), "store_eval_put", err);
	json_decref(cases);
}

static void put_generation(struct store *s, long long run, const char *task, int sample,
			   int round, const char *outcome, const char *eval_key, struct strbuf *err)
{
	json_t *row = json_pack("{s:s, s:s, s:i, s:i, s:s, s:s, s:s, s:s, s:i, s:i, s:f, s:f,"
				" s:f, s:s?}",
				"task", task, "source", "aten", "sample", sample, "round", round,
				"stage", "generate", "track", "sample", "model", "m1", "outcome",
				outcome, "prompt_tokens", 100, "completion_tokens", 20,
				"latency_ms", 50.0, "eval_ms", 10.0, "cost_usd", 0.01, "eval_key",
				eval_key);

	FUZZ_CHECK(row, "json_pack");
	must(store_generation_put(s, run, row, err), "store_generation_put", err);
	json_decref(row);
}

/* The store the edits start from, written by store.c as kgb writes one, then compacted. */
static void build_base(void)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	struct store_eval e = {0};
	char key2[HASH_HEX_LEN + 1];
	long long run, merged, gen;
	sqlite3 *db;

	must(store_open(db_path, &s, &err), "store_open", &err);
	must(store_run_begin(s, "interpreter", "h1", "kgb eval --platform interpreter",
			     "{\"profile\": {\"name\": \"interpreter\"}, \"sandbox\": {}}", &run,
			     &err),
	     "store_run_begin", &err);
	put_eval(s, run, "c1", "pass", &err);
	put_eval(s, run, "c2", "mismatch", &err);
	must(store_run_end(s, run, &err), "store_run_end", &err);
	must(store_run_begin(s, "cuda", "h1", "kgb merge --label fz", "{}", &merged, &err),
	     "store_run_begin", &err);
	store_eval_key("c1", "v1", "interpreter", "h1", 42, key2);
	must(store_eval_get(s, key2, &e, &err), "store_eval_get", &err);
	must(store_run_link(s, merged, &e, true, &err), "store_run_link", &err);
	store_eval_release(&e);
	must(store_run_end(s, merged, &err), "store_run_end", &err);
	must(store_run_begin(s, "interpreter", "generate", "kgb generate",
			     "{\"model\": \"m1\", \"track\": \"sample\"}", &gen, &err),
	     "store_run_begin", &err);
	put_generation(s, gen, "add", 0, 0, "pass", key2, &err);
	put_generation(s, gen, "add", 1, 0, "no_code", NULL, &err);
	put_generation(s, gen, "add", 1, 1, "mismatch", key2, &err);
	put_generation(s, gen, "mul", 0, 0, "http_error", NULL, &err);
	must(store_run_end(s, gen, &err), "store_run_end", &err);
	must(store_run_begin(s, "interpreter", "generate", "kgb merge --label fz (generate)", "{}",
			     &gen, &err),
	     "store_run_begin", &err);
	put_generation(s, gen, "mul", 2, 0, "pass", NULL, &err);
	must(store_ceilings_put(s, "H200", "torch 2, triton 3, cuda 13", "{\"bw_gbs\": 4000}",
				&err),
	     "store_ceilings_put", &err);
	must(store_check_put(s, "k3", "{\"verdict\": \"pass\"}", &err), "store_check_put", &err);
	store_free(s);
	strbuf_release(&err);
	/* Smallest pages: the file is copied for every input. Then WAL again, as kgb leaves it. */
	FUZZ_CHECK(sqlite3_open(db_path, &db) == SQLITE_OK, "sqlite3_open");
	must_sql(db, "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;"
		     " PRAGMA journal_mode=WAL;");
	FUZZ_CHECK(sqlite3_close(db) == SQLITE_OK, "sqlite3_close");
	read_store(&base);
}

/* Every column of every table of the base store, in name order: what an edit picks from. */
static void list_columns(void)
{
	sqlite3_stmt *t, *c;
	sqlite3 *db;

	FUZZ_CHECK(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK,
		   "sqlite3_open");
	FUZZ_CHECK(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'"
					  " ORDER BY name", -1, &t, NULL) == SQLITE_OK, "tables");
	while (sqlite3_step(t) == SQLITE_ROW) {
		const char *table = (const char *)sqlite3_column_text(t, 0);

		FUZZ_CHECK(sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?)", -1, &c,
					      NULL) == SQLITE_OK, "columns");
		sqlite3_bind_text(c, 1, table, -1, SQLITE_TRANSIENT);
		while (sqlite3_step(c) == SQLITE_ROW && nr_cols < MAX_COLS) {
			col_table[nr_cols] = xstrdup(table);
			col_name[nr_cols++] = xstrdup((const char *)sqlite3_column_text(c, 0));
		}
		sqlite3_finalize(c);
	}
	sqlite3_finalize(t);
	sqlite3_close(db);
	FUZZ_CHECK(nr_cols > 50, "%zu columns", nr_cols);
}

/* Takes n bytes of the input, or none when fewer are left. */
static const uint8_t *take(const uint8_t **p, const uint8_t *end, size_t n)
{
	const uint8_t *at = *p;

	if ((size_t)(end - at) < n)
		return NULL;
	*p += n;
	return at;
}

static void run_edit(sqlite3 *db, const char *sql, const uint8_t *val, size_t n, int kind)
{
	sqlite3_stmt *st;
	long long i = 0;
	double d;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return; /* a table an earlier edit dropped */
	switch (kind) {
	case 'i':
		memcpy(&i, val, n);
		if (n == 1)
			i = (int8_t)val[0];
		sqlite3_bind_int64(st, 1, i);
		break;
	case 'r':
		memcpy(&d, val, sizeof(d));
		sqlite3_bind_double(st, 1, d);
		break;
	case 't':
		sqlite3_bind_text(st, 1, (const char *)val, (int)n, SQLITE_TRANSIENT);
		break;
	case 'b':
		sqlite3_bind_blob(st, 1, val, (int)n, SQLITE_TRANSIENT);
		break;
	}
	rc = sqlite3_step(st); /* a constraint may refuse it: then the edit does nothing */
	if (getenv("KGB_FUZZ_VERBOSE")) /* to see what an input does */
		fprintf(stderr, "edit: %s [%c %zu bytes]: %s\n", sql, kind, n,
			rc == SQLITE_DONE ? "done" : sqlite3_errmsg(db));
	sqlite3_finalize(st);
}

/*
 * Applies the input's edits to the store file: [column][action << 5 | row] then the value.
 * Row 31 is every row, else the row-th by rowid, modulo the table's rows.
 */
static void apply_edits(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size, *h, *v;
	sqlite3 *db;
	int rc;

	FUZZ_CHECK(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK,
		   "sqlite3_open");
	for (int k = 0; k < MAX_EDITS && (h = take(&p, end, 2)); k++) {
		const char *table = col_table[h[0] % nr_cols], *col = col_name[h[0] % nr_cols];
		unsigned row = h[1] & 31, action = h[1] >> 5;
		struct strbuf sql = STRBUF_INIT, where = STRBUF_INIT;

		if (row == 31)
			strbuf_addstr(&where, "");
		else
			strbuf_addf(&where, " WHERE rowid = (SELECT rowid FROM \"%s\""
				    " ORDER BY rowid LIMIT 1 OFFSET (%u %% max(1,"
				    " (SELECT count(*) FROM \"%s\"))))", table, row, table);
		if (action <= 5)
			strbuf_addf(&sql, "UPDATE \"%s\" SET \"%s\" = ?%s", table, col, where.buf);
		switch (action) {
		case 0: /* NULL */
			run_edit(db, sql.buf, NULL, 0, 'n');
			break;
		case 1: /* a small integer, or 8 bytes */
			if ((v = take(&p, end, 1)) && v[0] == 0x80 && (v = take(&p, end, 8)))
				run_edit(db, sql.buf, v, 8, 'i');
			else if (v)
				run_edit(db, sql.buf, v, 1, 'i');
			break;
		case 2: /* a real: 8 bytes */
			if ((v = take(&p, end, 8)))
				run_edit(db, sql.buf, v, 8, 'r');
			break;
		case 3: /* text: a length byte, then that many bytes (fewer at the end) */
		case 4: /* a blob, likewise */
			if ((v = take(&p, end, 1))) {
				size_t n = v[0] < (size_t)(end - p) ? v[0] : (size_t)(end - p);

				run_edit(db, sql.buf, take(&p, end, n), n, action == 3 ? 't' : 'b');
			}
			break;
		case 5: /* the value of another row */
			if ((v = take(&p, end, 1))) {
				strbuf_reset(&sql);
				strbuf_addf(&sql, "UPDATE \"%s\" SET \"%s\" = (SELECT \"%s\""
					    " FROM \"%s\" ORDER BY rowid LIMIT 1 OFFSET (%u %%"
					    " max(1, (SELECT count(*) FROM \"%s\"))))%s", table,
					    col, col, table, v[0] & 31, table, where.buf);
				run_edit(db, sql.buf, NULL, 0, 'n');
			}
			break;
		case 6: /* delete the row */
			strbuf_addf(&sql, "DELETE FROM \"%s\"%s", table, where.buf);
			run_edit(db, sql.buf, NULL, 0, 'n');
			break;
		case 7: /* the table or the file: by the row bits */
			if (row % 4 == 0)
				strbuf_addf(&sql, "DROP TABLE \"%s\"", table);
			else if (row % 4 == 1) /* as t0170 does: no NOT NULL, no key, no default */
				strbuf_addf(&sql, "CREATE TABLE fz AS SELECT * FROM \"%s\";"
					    " DROP TABLE \"%s\"; ALTER TABLE fz RENAME TO \"%s\"",
					    table, table, table);
			else if (row % 4 == 2)
				strbuf_addf(&sql, "INSERT INTO \"%s\" SELECT * FROM \"%s\""
					    " ORDER BY rowid LIMIT 1", table, table);
			else
				strbuf_addstr(&sql, "PRAGMA journal_mode=DELETE");
			rc = sqlite3_exec(db, sql.buf, NULL, NULL, NULL);
			if (getenv("KGB_FUZZ_VERBOSE"))
				fprintf(stderr, "edit: %s: %s\n", sql.buf,
					rc == SQLITE_OK ? "done" : sqlite3_errmsg(db));
			break;
		}
		strbuf_release(&sql);
		strbuf_release(&where);
	}
	FUZZ_CHECK(sqlite3_close(db) == SQLITE_OK, "sqlite3_close: %s", sqlite3_errmsg(db));
}

/* What the readers are asked about: read from the file, a few of each, and missing ones. */
struct args {
	long long runs[MAX_ARGS + 2];	/* the first is a missing one */
	char *keys[MAX_ARGS * 2 + 1], *checks[MAX_ARGS], *labels[MAX_ARGS];
	char *ceil[MAX_ARGS][2], *wall[MAX_ARGS][3];
	size_t nr_runs, nr_keys, nr_checks, nr_labels, nr_ceil, nr_wall;
};

/* Rows of sql's text columns (NULL as NULL) into out[i][0..ncol), at most max of them. */
static size_t read_texts(sqlite3 *db, const char *sql, char **out, size_t ncol, size_t max)
{
	sqlite3_stmt *st;
	size_t n = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (n < max && sqlite3_step(st) == SQLITE_ROW) {
		for (size_t c = 0; c < ncol; c++) {
			const char *t = (const char *)sqlite3_column_text(st, (int)c);

			out[n * ncol + c] = t ? xstrdup(t) : NULL;
		}
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

static void add_run(struct args *a, long long id)
{
	for (size_t i = 0; i < a->nr_runs; i++)
		if (a->runs[i] == id)
			return;
	if (a->nr_runs < ARRAY_SIZE(a->runs))
		a->runs[a->nr_runs++] = id;
}

static void add_key(struct args *a, const char *key)
{
	for (size_t i = 0; key && i < a->nr_keys; i++)
		if (!strcmp(a->keys[i], key))
			return;
	if (key && a->nr_keys < ARRAY_SIZE(a->keys))
		a->keys[a->nr_keys++] = xstrdup(key);
}

static void collect_args(struct args *a)
{
	static const char *const run_sql[] = {
		"SELECT id FROM runs ORDER BY id DESC LIMIT 4",
		"SELECT DISTINCT run_id FROM run_evals LIMIT 4",
		"SELECT DISTINCT run_id FROM generations LIMIT 4"};
	sqlite3 *db = NULL;
	sqlite3_stmt *st;

	memset(a, 0, sizeof(*a));
	add_run(a, 1LL << 40); /* none */
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		for (size_t i = 0; i < ARRAY_SIZE(run_sql); i++) {
			if (sqlite3_prepare_v2(db, run_sql[i], -1, &st, NULL) != SQLITE_OK)
				continue;
			while (sqlite3_step(st) == SQLITE_ROW)
				add_run(a, sqlite3_column_int64(st, 0));
			sqlite3_finalize(st);
		}
		if (sqlite3_prepare_v2(db, "SELECT DISTINCT key FROM evaluations LIMIT 4", -1, &st,
				       NULL) == SQLITE_OK) {
			while (sqlite3_step(st) == SQLITE_ROW)
				add_key(a, (const char *)sqlite3_column_text(st, 0));
			sqlite3_finalize(st);
		}
		a->nr_checks = read_texts(db, "SELECT key FROM checks", a->checks, 1, MAX_ARGS);
		a->nr_labels = read_texts(db, "SELECT DISTINCT substr(command, 19) FROM runs"
					      " WHERE command LIKE 'kgb merge --label %'",
					  a->labels, 1, MAX_ARGS);
		a->nr_ceil = read_texts(db, "SELECT device, stack FROM ceilings", a->ceil[0], 2,
					MAX_ARGS);
		a->nr_wall = read_texts(db, "SELECT source, task, platform FROM evaluations",
					a->wall[0], 3, MAX_ARGS);
	}
	sqlite3_close(db);
	add_key(a, "nosuchkey");
	/* A label the generate runs of a merge end with " (generate)": store_merge_gen_runs(). */
	for (size_t i = 0; i < a->nr_labels; i++) {
		char *l = a->labels[i], *g = l ? strstr(l, " (generate)") : NULL;

		if (g && !g[11])
			*g = '\0';
	}
}

static void args_release(struct args *a)
{
	for (size_t i = 0; i < a->nr_keys; i++)
		free(a->keys[i]);
	for (size_t i = 0; i < a->nr_checks; i++)
		free(a->checks[i]);
	for (size_t i = 0; i < a->nr_labels; i++)
		free(a->labels[i]);
	for (size_t i = 0; i < a->nr_ceil; i++)
		for (size_t c = 0; c < 2; c++)
			free(a->ceil[i][c]);
	for (size_t i = 0; i < a->nr_wall; i++)
		for (size_t c = 0; c < 3; c++)
			free(a->wall[i][c]);
}

static void check_text(const char *what, const char *s, bool may_be_null)
{
	if (!s) {
		FUZZ_CHECK(may_be_null, "%s: NULL", what);
		return;
	}
	FUZZ_CHECK(escape_utf8_valid(s), "%s: not UTF-8", what);
}

/* A reader's answer: 0 with no message, -ENOENT where absent_ok, or an error with a message. */
static void check_ret(const char *fn, int r, struct strbuf *err, bool absent_ok)
{
	if (r == 0) {
		FUZZ_CHECK(err->len == 0, "%s: 0 with a message: %s", fn, err->buf);
	} else if (r != -ENOENT || !absent_ok) {
		FUZZ_CHECK(r == -EIO || r == -EBUSY, "%s = %d (%s)", fn, r, err->buf);
		FUZZ_CHECK(err->len, "%s = %d without a message", fn, r);
	}
	strbuf_reset(err);
}

static void check_eval(const struct store_eval *e)
{
	FUZZ_CHECK(strlen(e->key) <= HASH_HEX_LEN, "key of %zu bytes", strlen(e->key));
	check_text("eval key", e->key, false);
	check_text("eval task", e->task, false);
	check_text("eval source", e->source, false);
	check_text("eval task_version", e->task_version, false);
	check_text("eval candidate_hash", e->candidate_hash, false);
	check_text("eval candidate_path", e->candidate_path, true);
	check_text("eval sample", e->sample, false);
	check_text("eval platform", e->platform, false);
	check_text("eval harness", e->harness, false);
	check_text("eval verdict", e->verdict, false);
	check_text("eval detail", e->detail, true);
	check_text("eval first_failure", e->first_failure, true);
}

/* A JSON value of a row: null, an integer, a finite real or a (UTF-8: jansson's) string. */
static void check_cell(const char *what, const char *col, json_t *v)
{
	FUZZ_CHECK(v, "%s: no '%s'", what, col);
	FUZZ_CHECK(json_is_null(v) || json_is_integer(v) || json_is_string(v) ||
			   (json_is_real(v) && isfinite(json_real_value(v))),
		   "%s: '%s' of JSON type %d", what, col, json_typeof(v));
}

static void check_row_object(const char *what, json_t *o, const char *const *cols, size_t n)
{
	FUZZ_CHECK(json_is_object(o) && json_object_size(o) == n, "%s: not an object of %zu",
		   what, n);
	for (size_t i = 0; i < n; i++)
		check_cell(what, cols[i], json_object_get(o, cols[i]));
}

static void read_key(struct store *s, const char *key, struct strbuf *err)
{
	static const char *const case_cols[] = {
		"case_id", "entry", "axes", "timed", "verdict", "max_abs_err", "tol_use", "atol",
		"rtol", "time_base_ms", "time_cand_ms", "speedup", "detail"};
	struct store_eval e;
	json_t *entries = NULL, *cases = NULL, *v, *c;
	long long total = 0;
	const char *name;
	char *json = NULL;
	double sol = 0;
	size_t i;
	int r;

	r = store_eval_get(s, key, &e, err);
	check_ret("store_eval_get", r, err, true);
	if (r == 0) {
		check_eval(&e);
		/* The row found by its key holds that key (when kgb can hold it: 64 bytes). */
		FUZZ_CHECK(strlen(key) > HASH_HEX_LEN || !escape_utf8_valid(key) ||
				   !strcmp(e.key, key),
			   "store_eval_get('%s') gave key '%s'", key, e.key);
		store_eval_release(&e);
	}
	r = store_eval_entries(s, key, &entries, err);
	check_ret("store_eval_entries", r, err, false);
	json_object_foreach(entries, name, v) {
		json_int_t passed = json_integer_value(json_object_get(v, "passed")),
			   n = json_integer_value(json_object_get(v, "total"));

		FUZZ_CHECK(0 <= passed && passed <= n, "entry '%s': %lld of %lld passed", name,
			   (long long)passed, (long long)n);
		total += n;
	}
	r = store_eval_cases(s, key, &cases, err);
	check_ret("store_eval_cases", r, err, false);
	if (r == 0) {
		FUZZ_CHECK(json_is_array(cases), "store_eval_cases: not an array");
		json_array_foreach(cases, i, c)
			check_row_object("case", c, case_cols, ARRAY_SIZE(case_cols));
		FUZZ_CHECK(!entries || (size_t)total == json_array_size(cases),
			   "entries count %lld cases, store_eval_cases %zu", total,
			   json_array_size(cases));
	}
	json_decref(entries);
	json_decref(cases);
	r = store_eval_sol(s, key, &sol, err);
	check_ret("store_eval_sol", r, err, false);
	r = store_check_get(s, key, &json, err);
	check_ret("store_check_get", r, err, true);
	if (r == 0)
		check_text("check", json, false);
	free(json);
}

static void read_run(struct store *s, long long run, struct args *a, struct strbuf *err)
{
	static const char *const gen_cols[] = {
		"task", "source", "sample", "round", "stage", "track", "model", "outcome",
		"finish", "error", "prompt_tokens", "completion_tokens", "cached_tokens",
		"latency_ms", "eval_ms", "cost_usd", "http_attempts", "candidate", "eval_key",
		"speedup", "feedback"};
	char *plat = NULL, *env = NULL, *started = NULL, *command = NULL, *harness = NULL;
	struct store_eval *evals = NULL;
	struct store_attempt *att = NULL;
	struct store_gen_totals tot;
	json_t *gens = NULL, *g;
	long long id = run;
	bool *reused = NULL;
	size_t n = 0, i;
	int r;

	r = store_run_info(s, &id, &plat, &env, err);
	check_ret("store_run_info", r, err, true);
	if (r == 0) {
		FUZZ_CHECK(run <= 0 || id == run, "store_run_info(%lld) gave run %lld", run, id);
		check_text("run platform", plat, true);
		check_text("run env", env, true);
	}
	free(plat);
	free(env);
	r = store_run_row(s, run, &started, &command, &harness, err);
	check_ret("store_run_row", r, err, true);
	if (r == 0) {
		check_text("run started_at", started, true);
		check_text("run command", command, true);
		check_text("run harness", harness, true);
	}
	free(started);
	free(command);
	free(harness);
	r = store_run_evals(s, run, &evals, &n, &reused, err);
	check_ret("store_run_evals", r, err, false);
	for (i = 0; r == 0 && i < n; i++) {
		check_eval(&evals[i]);
		store_eval_release(&evals[i]);
	}
	free(evals);
	free(reused);
	n = 0;
	r = store_first_attempts(s, run, &att, &n, err);
	check_ret("store_first_attempts", r, err, false);
	for (i = 0; r == 0 && i < n; i++) {
		check_text("attempt task", att[i].task, false);
		check_text("attempt source", att[i].source, false);
		check_text("attempt outcome", att[i].outcome, false);
		check_text("attempt error", att[i].error, true);
		check_text("attempt eval_key", att[i].eval_key, true);
		if (i < 2)
			add_key(a, att[i].eval_key);
	}
	if (r == 0)
		store_attempts_free(att, n);
	r = store_generations_get(s, run, &gens, err);
	check_ret("store_generations_get", r, err, false);
	if (r == 0) {
		FUZZ_CHECK(json_is_array(gens), "store_generations_get: not an array");
		json_array_foreach(gens, i, g)
			check_row_object("generation", g, gen_cols, ARRAY_SIZE(gen_cols));
	}
	r = store_generation_totals(s, run, &tot, err);
	check_ret("store_generation_totals", r, err, false);
	if (r == 0) {
		FUZZ_CHECK(tot.solved <= tot.tasks, "%zu of %zu tasks solved", tot.solved,
			   tot.tasks);
		/*
		 * No generations: tokens unknown (-1). The converse does not hold: a run whose
		 * agent reported no tokens (stored as -1), or whose rows are all final evaluations,
		 * has rows and unknown tokens too (store_generation_totals).
		 */
		FUZZ_CHECK(!gens || json_array_size(gens) > 0 || tot.tokens == -1,
			   "tokens %lld for no requests", tot.tokens);
		check_text("totals model", tot.model, true);
		check_text("totals track", tot.track, true);
		free(tot.model);
		free(tot.track);
	}
	json_decref(gens);
}

static void read_labelled_runs(struct store *s, const char *label, bool gen, struct strbuf *err)
{
	long long *ids = NULL;
	char **plats = NULL;
	size_t n = 0;
	int r;

	r = gen ? store_merge_gen_runs(s, label, &ids, &plats, &n, err)
		: store_merge_runs(s, label, &ids, &plats, &n, err);
	check_ret(gen ? "store_merge_gen_runs" : "store_merge_runs", r, err, false);
	if (r < 0)
		return;
	for (size_t i = 0; i < n; i++)
		check_text("merged run platform", plats[i], false);
	FUZZ_CHECK(!plats[n], "platforms not NULL-terminated");
	free(ids);
	strv_free(plats);
}

/* Every reader, on one open store. */
static void read_all(struct store *s, struct args *a)
{
	struct strbuf err = STRBUF_INIT;
	char *json = NULL, *plat = NULL, *env = NULL;
	long long latest = 0;
	double ms;
	int r;

	r = store_run_info(s, &latest, &plat, &env, &err);
	check_ret("store_run_info", r, &err, true);
	if (r == 0) {
		check_text("run platform", plat, true);
		check_text("run env", env, true);
	}
	free(plat);
	free(env);
	for (size_t i = 0; i < a->nr_runs; i++)
		read_run(s, a->runs[i], a, &err);
	for (size_t i = 0; i < a->nr_keys; i++)
		read_key(s, a->keys[i], &err);
	for (size_t i = 0; i < a->nr_checks; i++) {
		r = store_check_get(s, a->checks[i], &json, &err);
		check_ret("store_check_get", r, &err, true);
		if (r == 0)
			check_text("check", json, false);
		free(json);
		json = NULL;
	}
	for (size_t i = 0; i < a->nr_ceil; i++) {
		r = store_ceilings_get(s, a->ceil[i][0], a->ceil[i][1], &json, &err);
		check_ret("store_ceilings_get", r, &err, true);
		if (r == 0)
			check_text("ceilings", json, false);
		free(json);
		json = NULL;
	}
	for (size_t i = 0; i < a->nr_wall; i++) {
		r = store_task_wall_ms(s, a->wall[i][0], a->wall[i][1], a->wall[i][2], &ms, &err);
		check_ret("store_task_wall_ms", r, &err, false);
	}
	for (size_t i = 0; i < a->nr_labels; i++) {
		read_labelled_runs(s, a->labels[i], false, &err);
		read_labelled_runs(s, a->labels[i], true, &err);
	}
	strbuf_release(&err);
}

/* An open's answer: 0 with no message, or an error with a message naming the file. */
static void check_open(const char *fn, int r, const struct strbuf *err)
{
	if (r == 0) {
		FUZZ_CHECK(err->len == 0, "%s: 0 with a message: %s", fn, err->buf);
		return;
	}
	FUZZ_CHECK(r == -EIO || r == -EBUSY || r == -EPROTO, "%s = %d (%s)", fn, r, err->buf);
	FUZZ_CHECK(err->len && strstr(err->buf, db_path), "%s = %d: message '%s'", fn, r,
		   err->buf);
}

static void check_unchanged(const char *after, const struct strbuf *before)
{
	struct strbuf now = STRBUF_INIT;

	read_store(&now);
	FUZZ_CHECK(now.len == before->len && !memcmp(now.buf, before->buf, now.len),
		   "the file changed (%zu bytes, was %zu) after %s", now.len, before->len, after);
	strbuf_release(&now);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR"), *seed = getenv("KGB_FUZZ_STORE_SEED");
	struct strbuf tmpl = STRBUF_INIT;

	(void)argc;
	(void)argv;
	strbuf_addf(&tmpl, "%s/kgb-fuzz-store.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	FUZZ_CHECK(mkdtemp(tmpl.buf), "mkdtemp '%s'", tmpl.buf);
	dir = strbuf_detach(&tmpl, NULL);
	atexit(remove_dir);
	db_path = path_join(dir, "s.db");
	build_base();
	list_columns();
	remove_store();
	if (seed && *seed) /* tests/fuzz/store-seeds.sh: the base store as a file */
		write_file(seed, base.buf, base.len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char magic[] = "SQLite format 3";
	struct strbuf before = STRBUF_INIT, err = STRBUF_INIT;
	struct store_progress prog;
	struct store *s = NULL;
	struct args a;
	int r, ro;

	if (size > MAX_INPUT)
		return 0;
	remove_store();
	if (size >= sizeof(magic) && !memcmp(data, magic, sizeof(magic))) {
		write_file(db_path, data, size);
	} else {
		write_file(db_path, base.buf, base.len);
		if (size >= 2)
			apply_edits(data, size);
	}
	read_store(&before);
	collect_args(&a);

	r = store_open_readonly(db_path, &s, &err);
	check_open("store_open_readonly", r, &err);
	if (r == 0) {
		read_all(s, &a);
		store_free(s);
	}
	check_unchanged("store_open_readonly and its readers", &before);
	strbuf_reset(&err);

	r = store_progress(db_path, &prog, &err);
	check_ret("store_progress", r, &err, false);
	FUZZ_CHECK(prog.candidates >= 0 && prog.finished_runs >= 0 && prog.finished_links >= 0 &&
			   prog.finished_generated_tasks >= 0 &&
			   prog.finished_generated_tasks <= prog.generated_tasks,
		   "progress %lld %lld %lld %lld %lld", prog.candidates, prog.finished_runs,
		   prog.finished_links, prog.generated_tasks, prog.finished_generated_tasks);
	check_unchanged("store_progress", &before);

	s = NULL;
	ro = r;
	r = store_open(db_path, &s, &err);
	check_open("store_open", r, &err);
	strbuf_reset(&err);
	if (r == 0) {
		struct strbuf now = STRBUF_INIT;

		/* The same readers: again only where store_open() made another store of it. */
		read_store(&now);
		if (ro < 0 || now.len != before.len || memcmp(now.buf, before.buf, now.len))
			read_all(s, &a);
		strbuf_release(&now);
		store_free(s);
		s = NULL;
		r = store_open_readonly(db_path, &s, &err);
		FUZZ_CHECK(r == 0, "store_open succeeded, then store_open_readonly = %d: %s", r,
			   err.buf);
		store_free(s);
	} else {
		check_unchanged("a store_open that failed", &before);
	}
	args_release(&a);
	strbuf_release(&before);
	strbuf_release(&err);
	return 0;
}
