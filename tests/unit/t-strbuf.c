/*
 * t-strbuf.c - struct strbuf: invariants, formatting, the cap, reading files (also in a directory
 * someone else writes, without following links), detaching, quoting for sh.
 */
#include "unit.h"

#include <sys/stat.h>

static void test_init_is_empty(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	/* Releasing a never-used buffer is safe and leaves it usable. */
	strbuf_release(&sb);
	assert_string_equal(sb.buf, "");
	strbuf_init(&sb, 100);
	assert_true(sb.alloc >= 101);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
}

static void test_add(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addstr(&sb, "abc");
	strbuf_addch(&sb, '-');
	strbuf_add(&sb, "x\0y", 3);
	assert_int_equal(sb.len, 7);
	assert_memory_equal(sb.buf, "abc-x\0y", 8); /* includes the terminating NUL */
	strbuf_setlen(&sb, 3);
	assert_string_equal(sb.buf, "abc");
	strbuf_reset(&sb);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
}

static void test_addf(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addf(&sb, "%d-%s", 42, "x");
	strbuf_addf(&sb, "|%.3f|", 0.5);
	assert_string_equal(sb.buf, "42-x|0.500|");
	/* Longer than any first allocation: the buffer grows to fit the formatted text. */
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%*s%s", 10000, "", "end");
	assert_int_equal(sb.len, 10003);
	assert_string_equal(sb.buf + 10000, "end");
	strbuf_addf(&sb, "%s", "");
	assert_int_equal(sb.len, 10003);
	strbuf_release(&sb);
}

static void test_trim_trailing(void **state)
{
	static const struct {
		const char *in, *out;
	} rows[] = {
		{"abc", "abc"}, {"abc \t\r\n\n", "abc"}, {" a b \n", " a b"},
		{"\n\n", ""},	{"", ""},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, rows[i].in);
		strbuf_trim_trailing(&sb);
		assert_string_equal(sb.buf, rows[i].out);
		assert_int_equal(sb.len, strlen(rows[i].out));
		strbuf_release(&sb);
	}
}

static void test_add_capped(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	sb.cap = 8;
	assert_int_equal(strbuf_add_capped(&sb, "hello", 5), 0);
	assert_int_equal(strbuf_add_capped(&sb, "world", 5), -E2BIG);
	assert_string_equal(sb.buf, "hello");
	assert_int_equal(sb.len, 5);
	/* Up to the cap exactly is allowed; one byte more is not. */
	assert_int_equal(strbuf_add_capped(&sb, "abc", 3), 0);
	assert_string_equal(sb.buf, "helloabc");
	assert_int_equal(strbuf_add_capped(&sb, "", 0), 0);
	assert_int_equal(strbuf_add_capped(&sb, "!", 1), -E2BIG);
	assert_string_equal(sb.buf, "helloabc");
	assert_int_equal(sb.len, 8);
	strbuf_release(&sb);

	/* cap 0 means no cap. */
	strbuf_init(&sb, 0);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(strbuf_add_capped(&sb, "0123456789", 10), 0);
	assert_int_equal(sb.len, 10000);
	strbuf_release(&sb);
}

static void test_read_file(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf sb = STRBUF_INIT, big = STRBUF_INIT;
	char *path = path_join(fx->root, "big.txt"), *missing = path_join(fx->root, "missing");

	/* Bigger than the 8 KiB read chunk, so several reads are appended. */
	for (int i = 0; i < 3000; i++)
		strbuf_addf(&big, "line %d\n", i);
	unit_write_file(fx->root, "big.txt", big.buf);

	strbuf_addstr(&sb, "old contents are replaced");
	assert_int_equal(strbuf_read_file(&sb, path, 0), 0);
	assert_int_equal(sb.len, big.len);
	assert_string_equal(sb.buf, big.buf);

	assert_int_equal(strbuf_read_file(&sb, path, big.len), 0);
	assert_int_equal(sb.len, big.len);
	assert_int_equal(strbuf_read_file(&sb, path, big.len - 1), -E2BIG);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");

	strbuf_addstr(&sb, "stale");
	assert_int_equal(strbuf_read_file(&sb, missing, 0), -ENOENT);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");

	assert_int_equal(strbuf_read_file(&sb, fx->root, 0), -EISDIR);
	strbuf_release(&sb);
	strbuf_release(&big);
	free(path);
	free(missing);
}

/* Each way an agent's workspace may hold something else than its file (issue 36). */
static void test_read_file_at(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf sb = STRBUF_INIT, big = STRBUF_INIT;
	char *fifo = path_join(fx->root, "fifo"), *dir = path_join(fx->root, "dir");
	char *link = path_join(fx->root, "link");
	struct stat st;
	int dfd = open(fx->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(dfd >= 0);
	for (int i = 0; i < 3000; i++)
		strbuf_addf(&big, "line %d\n", i);
	unit_write_file(fx->root, "ok.txt", big.buf);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(symlink("ok.txt", link), 0);

	assert_int_equal(strbuf_read_file_at(&sb, dfd, "ok.txt", big.len, &st), 0);
	assert_string_equal(sb.buf, big.buf);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(strbuf_read_file_at(&sb, dfd, "ok.txt", big.len - 1, NULL), -E2BIG);
	assert_int_equal(sb.len, 0);
	/* A link to a readable file is still refused, and says it was one. */
	assert_int_equal(strbuf_read_file_at(&sb, dfd, "link", 0, &st), -ELOOP);
	assert_true(S_ISLNK(st.st_mode));
	/* A FIFO without a writer: refused at once, never opened (so never waited on). */
	assert_int_equal(strbuf_read_file_at(&sb, dfd, "fifo", 0, &st), -EINVAL);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(strbuf_read_file_at(&sb, dfd, "dir", 0, &st), -EISDIR);
	assert_int_equal(strbuf_read_file_at(&sb, dfd, "missing", 0, NULL), -ENOENT);
	assert_int_equal(strbuf_read_file_at(&sb, dfd, "dir/../ok.txt", 0, NULL), -EINVAL);
	assert_int_equal(strbuf_read_file_at(&sb, dfd, "..", 0, NULL), -EINVAL);
	assert_int_equal(strbuf_read_file_at(&sb, dfd, "", 0, NULL), -EINVAL);
	close(dfd);
	strbuf_release(&sb);
	strbuf_release(&big);
	free(fifo);
	free(dir);
	free(link);
}

static void test_sh_quoted(void **state)
{
	static const struct {
		const char *in, *out;
	} rows[] = {
		{"", "''"},
		{"/a b/c", "'/a b/c'"},
		{"it's", "'it'\\''s'"},
		{"'", "''\\'''"},
		{"$(touch x) `y` \\\n", "'$(touch x) `y` \\\n'"},
	};
	static const char odd[] = "q'$(echo no) `echo no` a  b\n\\\"x\"''";
	struct strbuf cmd = STRBUF_INIT;
	char got[128] = "";
	size_t n;
	FILE *p;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, "x=");
		strbuf_add_sh_quoted(&sb, rows[i].in);
		assert_string_equal(sb.buf + 2, rows[i].out);
		strbuf_release(&sb);
	}
	/* What sh reads back is the string itself, nothing run. */
	strbuf_addstr(&cmd, "printf %s ");
	strbuf_add_sh_quoted(&cmd, odd);
	p = popen(cmd.buf, "r");
	assert_non_null(p);
	n = fread(got, 1, sizeof(got) - 1, p);
	got[n] = '\0';
	assert_int_equal(pclose(p), 0);
	assert_string_equal(got, odd);
	strbuf_release(&cmd);
}

static void test_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = 99;
	char *p, *buf;

	(void)state;
	strbuf_addstr(&sb, "owned");
	buf = sb.buf;
	p = strbuf_detach(&sb, &len);
	assert_ptr_equal(p, buf);
	assert_string_equal(p, "owned");
	assert_int_equal(len, 5);
	/* The strbuf no longer owns the bytes and is empty and reusable. */
	assert_int_equal(sb.len, 0);
	assert_int_equal(sb.alloc, 0);
	assert_ptr_equal(sb.buf, strbuf_slopbuf);
	strbuf_addstr(&sb, "again");
	assert_string_equal(sb.buf, "again");
	assert_string_equal(p, "owned");
	strbuf_release(&sb);
	free(p);

	/* Detaching an empty strbuf still hands out a buffer the caller frees. */
	p = strbuf_detach(&sb, NULL);
	assert_non_null(p);
	assert_ptr_not_equal(p, strbuf_slopbuf);
	assert_string_equal(p, "");
	free(p);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_init_is_empty), cmocka_unit_test(test_add),
	cmocka_unit_test(test_addf),	      cmocka_unit_test(test_trim_trailing),
	cmocka_unit_test(test_add_capped),    unit_test_fx(test_read_file),
	cmocka_unit_test(test_detach),	      unit_test_fx(test_read_file_at),
	cmocka_unit_test(test_sh_quoted),
};

UNIT_MAIN(tests)
