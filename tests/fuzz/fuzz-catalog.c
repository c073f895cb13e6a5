/*
 * fuzz-catalog.c - src/catalog.c (task.json parsing and validation) and what `kgb lint` and
 * `kgb eval` do next with a spec that validates: case generation (src/cases.c, which evaluates
 * the spec's expressions) and the job line sent to a worker (proto_build_job).
 *
 * Input: the bytes of one task.json. catalog_load() only reads a tasks directory, so the harness
 * keeps a private one under $TMPDIR holding exactly one task, <source>/<op>/ with the input as
 * task.json next to small reference.py, prompt.md and solution.py; <source> and <op> are taken
 * from the input when they are plausible names (so real specs validate), else aten/fz.
 * Checks, besides the sanitizers (leaks included):
 * - catalog_load returns 0 with no message, or -EINVAL with newline-terminated messages that
 *   start with the spec's path, and no task kept;
 * - a task that loads generates its cases (with perf and held-out ones) or fails with a message;
 *   every case has as many arguments as its entry's template, a known output dtype, a finite
 *   non-negative tolerance, and tensor shapes of non-negative integers;
 * - the job line for those cases is one JSON object carrying every case.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "cases.h"
#include "catalog.h"
#include "proto.h"
#include "util/fs.h"

static char *root;	   /* the private tasks directory */
static char *task_dir;	   /* root/<source>/<op> of the previous input, or NULL */

static void remove_root(void)
{
	if (root)
		(void)rm_rf(root);
}

static void write_file(const char *dir, const char *name, const void *data, size_t size)
{
	char *path = path_join(dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	FUZZ_CHECK(fd >= 0, "cannot create '%s'", path);
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "cannot write '%s'", path);
	close(fd);
	free(path);
}

static bool plausible_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 64 || s[0] == '.')
		return false;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') ||
		      ('0' <= *s && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* Makes root/<source>/<op>/ the one task directory, with the input as its task.json. */
static char *place_task(const uint8_t *data, size_t size, const char **ret_op)
{
	json_t *j = json_loadb((const char *)data, size, 0, NULL);
	const char *src = json_string_value(json_object_get(j, "source"));
	const char *op = json_string_value(json_object_get(j, "op"));
	struct strbuf dir = STRBUF_INIT;
	static char op_name[65];

	if (!src || !strv_contains(catalog_sources, src))
		src = "aten";
	if (!op || !plausible_name(op))
		op = "fz";
	snprintf(op_name, sizeof(op_name), "%s", op);
	strbuf_addf(&dir, "%s/%s/%s", root, src, op);
	json_decref(j);
	if (!task_dir || strcmp(task_dir, dir.buf)) {
		if (task_dir)
			FUZZ_CHECK(rm_rf(task_dir) == 0, "cannot remove '%s'", task_dir);
		free(task_dir);
		task_dir = strbuf_detach(&dir, NULL);
		FUZZ_CHECK(mkdir_p(task_dir, 0755) == 0, "cannot create '%s'", task_dir);
		write_file(task_dir, "reference.py", "def f(x):\n    return x\n", 23);
		write_file(task_dir, "prompt.md", "Write f.\n", 9);
		write_file(task_dir, "solution.py", "def f(x):\n    return x\n", 23);
	}
	strbuf_release(&dir);
	write_file(task_dir, "task.json", data, size);
	*ret_op = op_name;
	return path_join(task_dir, "task.json");
}

static void check_errors(const char *file, const struct strbuf *errs)
{
	FUZZ_CHECK(errs->len && errs->buf[errs->len - 1] == '\n',
		   "messages not ending in a newline");
	FUZZ_CHECK(!strncmp(errs->buf, file, strlen(file)), "message not naming the file: %s",
		   errs->buf);
}

static void check_cases(const struct task *t, const struct case_list *cases)
{
	for (size_t i = 0; i < cases->nr; i++) {
		const struct case_desc *c = &cases->v[i];
		const struct task_entry *e = &t->entries[c->entry_idx];
		size_t k;
		json_t *a;
		char *summary;

		FUZZ_CHECK(c->entry_idx < t->nr_entries, "case %zu: entry %zu", i, c->entry_idx);
		FUZZ_CHECK(json_array_size(c->args) == json_array_size(e->args),
			   "case %zu: %zu arguments from a template of %zu", i,
			   json_array_size(c->args), json_array_size(e->args));
		FUZZ_CHECK(catalog_is_dtype(c->out_dtype), "case %zu: out_dtype '%s'", i,
			   c->out_dtype);
		FUZZ_CHECK(isfinite(c->tol.atol) && c->tol.atol >= 0 && isfinite(c->tol.rtol) &&
				   c->tol.rtol >= 0,
			   "case %zu: tolerance atol %g rtol %g", i, c->tol.atol, c->tol.rtol);
		json_array_foreach(c->args, k, a) {
			json_t *shape = json_object_get(json_object_get(a, "tensor"), "shape"), *d;
			size_t m;

			FUZZ_CHECK(json_is_object(a), "case %zu: argument %zu not an object", i, k);
			if (!json_object_get(a, "tensor"))
				continue;
			FUZZ_CHECK(json_is_array(shape), "case %zu: argument %zu: shape", i, k);
			json_array_foreach(shape, m, d)
				FUZZ_CHECK(json_is_integer(d) && json_integer_value(d) >= 0,
					   "case %zu: argument %zu: shape[%zu]", i, k, m);
		}
		summary = cases_axes_summary(c->axes);
		FUZZ_CHECK(summary, "case %zu: no summary", i);
		free(summary);
	}
}

static void check_job(const struct task *t, const struct case_list *cases)
{
	struct proto_job_opts opts = {.timed = true, .warmup = 1, .rounds = 2};
	char *line = proto_build_job(t, "/candidate.py", "cuda", cases, &opts);
	size_t n = line ? strlen(line) : 0;
	json_t *job;

	FUZZ_CHECK(n && line[n - 1] == '\n' && !memchr(line, '\n', n - 1), "job is not one line");
	job = json_loadb(line, n, 0, NULL);
	FUZZ_CHECK(json_is_object(job), "job line is not a JSON object");
	FUZZ_CHECK(json_array_size(json_object_get(job, "cases")) == cases->nr,
		   "job carries %zu of %zu cases", json_array_size(json_object_get(job, "cases")),
		   cases->nr);
	FUZZ_CHECK(json_array_size(json_object_get(json_object_get(job, "task"), "entries")) ==
			   t->nr_entries,
		   "job carries the wrong number of entries");
	json_decref(job);
	free(line);
}

static void check_task(const struct task *t)
{
	struct strbuf err = STRBUF_INIT;
	struct case_list cases = {0};
	int r;

	FUZZ_CHECK(t->nr_entries > 0 && t->nr_entries <= CATALOG_MAX_ENTRIES, "%zu entries",
		   t->nr_entries);
	FUZZ_CHECK(strlen(t->version) == HASH_HEX_LEN, "no version");
	(void)task_supports_platform(t, "cuda");
	(void)task_exemption(t, "ghost");
	r = cases_generate(t, CASES_PERF | CASES_HELDOUT, 42, &cases, &err);
	if (getenv("KGB_FUZZ_VERBOSE"))
		fprintf(stderr, "cases_generate: %d, %zu cases %s\n", r, cases.nr, err.buf);
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -E2BIG, "cases_generate = %d", r);
		FUZZ_CHECK(err.len, "cases_generate failed without a message");
		FUZZ_CHECK(cases.nr == 0 && !cases.v, "cases_generate failed but returned cases");
	} else {
		FUZZ_CHECK(err.len == 0, "cases_generate succeeded with '%s'", err.buf);
		check_cases(t, &cases);
		check_job(t, &cases);
		case_list_release(&cases);
	}
	strbuf_release(&err);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	struct strbuf tmpl = STRBUF_INIT;

	(void)argc;
	(void)argv;
	strbuf_addf(&tmpl, "%s/kgb-fuzz-catalog.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	FUZZ_CHECK(mkdtemp(tmpl.buf), "mkdtemp '%s'", tmpl.buf);
	root = strbuf_detach(&tmpl, NULL);
	atexit(remove_root);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf errs = STRBUF_INIT;
	struct catalog *cat = NULL;
	const char *op;
	char *file;
	int r;

	if (size > CATALOG_MAX_SPEC_BYTES)
		return 0;
	file = place_task(data, size, &op);
	r = catalog_load(root, &cat, &errs);
	if (getenv("KGB_FUZZ_VERBOSE")) /* to see why a seed does not load */
		fprintf(stderr, "catalog_load: %d\n%s", r, errs.buf);
	if (r == 0) {
		FUZZ_CHECK(errs.len == 0, "loaded with messages: %s", errs.buf);
		FUZZ_CHECK(cat->nr_tasks == 1, "%zu tasks", cat->nr_tasks);
		FUZZ_CHECK(catalog_find(cat, op) == &cat->tasks[0], "task '%s' not found", op);
		check_task(&cat->tasks[0]);
	} else {
		FUZZ_CHECK(r == -EINVAL, "catalog_load = %d", r);
		FUZZ_CHECK(cat && cat->nr_tasks == 0, "a task that failed was kept");
		check_errors(file, &errs);
	}
	catalog_free(cat);
	strbuf_release(&errs);
	free(file);
	return 0;
}
