/*
 * unit.h - shared setup of the C unit tests (tests/unit/t-<module>.c, STYLE §8).
 *
 * Each test file defines a table of cmocka tests and ends with UNIT_MAIN(tests). The runner
 * executes every test in its own forked process under a UNIT_TIMEOUT_S alarm, so a crash, a
 * sanitizer report or a leak (LeakSanitizer runs when the child exits) fails that test alone;
 * the child's output is shown only when it fails. Each child gets its own TMPDIR, removed when it
 * ends. `t-foo NAME` runs one test; UNIT_NO_FORK=1 runs them in-process, for a debugger.
 *
 * Specs in tests are written with single quotes for readability: unit_sq() turns every ' into ".
 * Tests touching the file system use the fixture struct unit_fx (cmocka setup/teardown): a
 * mkdtemp() directory that teardown removes, with the catalog and error buffer it frees, so
 * nothing is left behind even when an assertion fails.
 */
#ifndef KGB_TESTS_UNIT_H
#define KGB_TESTS_UNIT_H

/* cmocka needs these before its header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "util/compiler.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define UNIT_TIMEOUT_S 60

/* A copy of `s` with every single quote replaced by a double quote; owned. */
static inline char *unit_sq(const char *s)
{
	char *c = xstrdup(s);

	for (char *p = c; *p; p++)
		if (*p == '\'')
			*p = '"';
	return c;
}

/* Parses single-quoted JSON text (any value); a new reference. */
static inline json_t *unit_json(const char *sq)
{
	char *text = unit_sq(sq);
	json_error_t jerr;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);

	if (!j)
		fail_msg("bad test JSON '%s': %s", text, jerr.text);
	free(text);
	return j;
}

/* Fails with both values dumped unless the two JSON values are equal (integer 2 != real 2.0). */
#define assert_json_equal(a, b) unit_assert_json_equal((a), (b), __FILE__, __LINE__)
static inline void unit_assert_json_equal(json_t *a, json_t *b, const char *file, int line)
{
	char *x, *y;

	if (a && b && json_equal(a, b))
		return;
	x = a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	y = b ? json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	print_error("%s:%d: JSON differs: %s != %s\n", file, line, x ? x : "(null)",
		    y ? y : "(null)");
	free(x);
	free(y);
	_fail(file, line);
}

/* Fails unless |a - b| <= rel * max(|a|, |b|); prints both values. */
#define assert_close(a, b, rel)                                                                 \
	do {                                                                                    \
		double a_ = (a), b_ = (b);                                                      \
		if (!(fabs(a_ - b_) <= (rel) * fmax(fabs(a_), fabs(b_))))                       \
			fail_msg("%s = %.17g, %s = %.17g: not within %g", #a, a_, #b, b_,       \
				 (double)(rel));                                                \
	} while (0)

/* Fails unless `text` contains `needle`; prints both. */
#define assert_contains(text, needle)                                                           \
	do {                                                                                    \
		const char *t_ = (text), *n_ = (needle);                                        \
		if (!strstr(t_, n_))                                                            \
			fail_msg("'%s' does not contain '%s'", t_, n_);                           \
	} while (0)

/* Fails unless one line of `text` contains both `a` and `b`. */
#define assert_line_has(text, a, b) unit_assert_line_has((text), (a), (b), __FILE__, __LINE__)
static inline void unit_assert_line_has(const char *text, const char *a, const char *b,
					const char *file, int line)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *l = xstrndup(p, n);
		bool hit = strstr(l, a) && strstr(l, b);

		free(l);
		if (hit)
			return;
		p += n + (nl ? 1 : 0);
	}
	print_error("%s:%d: no line has both '%s' and '%s' in:\n%s\n", file, line, a, b, text);
	_fail(file, line);
}

/* Writes `text` to dir/rel, creating parent directories. */
static inline void unit_write_file(const char *dir, const char *rel, const char *text)
{
	char *path = path_join(dir, rel), *slash;
	size_t len = strlen(text);
	int fd;

	slash = strrchr(path, '/');
	*slash = '\0';
	assert_int_equal(mkdir_p(path, 0755), 0);
	*slash = '/';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fail_msg("cannot create '%s': %s", path, strerror(errno));
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	free(path);
}

/*
 * Writes tasks_dir/<source>/<op>/ with task.json (single-quoted `spec_sq`, verbatim otherwise),
 * reference.py, prompt.md and solution.py.
 */
static inline void unit_write_task(const char *tasks_dir, const char *source, const char *op,
				   const char *spec_sq)
{
	struct strbuf dir = STRBUF_INIT;
	char *spec = unit_sq(spec_sq);

	strbuf_addf(&dir, "%s/%s/%s", tasks_dir, source, op);
	unit_write_file(dir.buf, "task.json", spec);
	unit_write_file(dir.buf, "reference.py", "import torch\n\ndef f(x):\n    return x\n");
	unit_write_file(dir.buf, "prompt.md", "Returns its input.\n");
	unit_write_file(dir.buf, "solution.py", "def f(x):\n    return x.clone()\n");
	strbuf_release(&dir);
	free(spec);
}

/* Fixture: a temp tasks directory, the catalog loaded from it and the loader's errors. */
struct unit_fx {
	char *root;
	struct catalog *cat;
	struct strbuf errs;
};

/* A new directory under $TMPDIR (or /tmp); owned; NULL on failure. */
static inline char *unit_mkdtemp(void)
{
	const char *tmp = getenv("TMPDIR");
	struct strbuf tmpl = STRBUF_INIT;

	strbuf_addf(&tmpl, "%s/kgb-unit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl.buf)) {
		strbuf_release(&tmpl);
		return NULL;
	}
	return strbuf_detach(&tmpl, NULL);
}

static inline int unit_fx_setup(void **state)
{
	struct unit_fx *fx = xcalloc(1, sizeof(*fx));

	fx->root = unit_mkdtemp();
	if (!fx->root) {
		free(fx);
		return -1;
	}
	strbuf_init(&fx->errs, 0);
	*state = fx;
	return 0;
}

static inline int unit_fx_teardown(void **state)
{
	struct unit_fx *fx = *state;
	int r = rm_rf(fx->root);

	catalog_free(fx->cat);
	strbuf_release(&fx->errs);
	free(fx->root);
	free(fx);
	return r < 0 ? -1 : 0;
}

/* (Re)loads the catalog of fx->root into fx->cat and fx->errs; returns catalog_load's code. */
static inline int unit_fx_reload(struct unit_fx *fx)
{
	catalog_free(fx->cat);
	fx->cat = NULL;
	strbuf_reset(&fx->errs);
	return catalog_load(fx->root, &fx->cat, &fx->errs);
}

/*
 * Writes `spec_sq` as <source>/foo, loads it and asserts it is valid; the task is borrowed.
 * The spec's own "source" must be `source`.
 */
static inline const struct task *unit_fx_load_in(struct unit_fx *fx, const char *source,
						 const char *spec_sq)
{
	const struct task *t;

	unit_write_task(fx->root, source, "foo", spec_sq);
	if (unit_fx_reload(fx) != 0)
		fail_msg("task does not load:\n%s", fx->errs.buf);
	t = catalog_find(fx->cat, "foo");
	assert_non_null(t);
	return t;
}

/* unit_fx_load_in() of an ATen task. */
static inline const struct task *unit_fx_load(struct unit_fx *fx, const char *spec_sq)
{
	return unit_fx_load_in(fx, "aten", spec_sq);
}

#define unit_test_fx(f) cmocka_unit_test_setup_teardown(f, unit_fx_setup, unit_fx_teardown)

/*
 * Runs one test in a child process; returns whether it passed, printing its output if not.
 * The child's TMPDIR is a directory removed afterwards, so even a test that crashes before its
 * teardown leaves nothing behind.
 */
static inline bool unit_run_forked(const char *group, const struct CMUnitTest *test)
{
	struct strbuf out = STRBUF_INIT;
	char chunk[4096], *tmp = unit_mkdtemp();
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (!tmp || pipe2(fds, O_CLOEXEC) < 0) {
		printf("FAILED   %s (cannot set up: %s)\n", test->name, strerror(errno));
		free(tmp);
		return false;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		printf("FAILED   %s (cannot fork: %s)\n", test->name, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		free(tmp);
		return false;
	}
	if (pid == 0) {
		setenv("TMPDIR", tmp, 1);
		/* dup2() clears O_CLOEXEC on the copies; the originals are closed at once. */
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		alarm(UNIT_TIMEOUT_S);
		/* exit(), not _exit(): LeakSanitizer checks at exit. */
		exit(_cmocka_run_group_tests(group, test, 1, NULL, NULL) ? 1 : 0);
	}
	close(fds[1]);
	while ((n = read(fds[0], chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		strbuf_add(&out, chunk, (size_t)n);
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	(void)rm_rf(tmp);
	free(tmp);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ok       %s\n", test->name);
	} else {
		fwrite(out.buf, 1, out.len, stdout);
		if (WIFSIGNALED(status))
			printf("FAILED   %s (killed by signal %d%s)\n", test->name,
			       WTERMSIG(status), WTERMSIG(status) == SIGALRM ? ": timed out" : "");
		else
			printf("FAILED   %s (exit status %d)\n", test->name, WEXITSTATUS(status));
	}
	strbuf_release(&out);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static inline int unit_run(const char *group, const struct CMUnitTest *tests, size_t n, int argc,
			   char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	bool fork_each = !getenv("UNIT_NO_FORK");
	size_t ran = 0, failed = 0;

	for (size_t i = 0; i < n; i++) {
		if (only && strcmp(only, tests[i].name))
			continue;
		ran++;
		if (fork_each ? !unit_run_forked(group, &tests[i])
			      : _cmocka_run_group_tests(group, &tests[i], 1, NULL, NULL) != 0)
			failed++;
	}
	if (only && !ran) {
		fprintf(stderr, "%s: no test named '%s'\n", group, only);
		return 2;
	}
	printf("%s: %zu of %zu tests passed\n", group, ran - failed, ran);
	return failed ? 1 : 0;
}

#define UNIT_MAIN(tests)                                                                        \
	int main(int argc, char **argv)                                                         \
	{                                                                                       \
		return unit_run(__FILE__, (tests), ARRAY_SIZE(tests), argc, argv);              \
	}

#endif
