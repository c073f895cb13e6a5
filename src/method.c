/*
 * method.c - methods' adapter tables, their libraries' installs and their candidates (method.h).
 */
#include "method.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* A table is data of this repository, small: anything larger is not one. */
#define METHOD_MAX_TABLE_BYTES (4u << 20)

int method_names(const char *root, char ***ret)
{
	char *dir = path_join(root, METHOD_TABLES_DIR), **names = NULL, **out;
	size_t n = 0;
	int r = list_dir_sorted(dir, &names);

	free(dir);
	if (r < 0)
		return r;
	for (char **p = names; *p; p++)
		n++;
	out = xcalloc(n + 1, sizeof(*out));
	n = 0;
	for (char **p = names; *p; p++) {
		size_t len = strlen(*p);

		if (len > 5 && !strcmp(*p + len - 5, ".json"))
			out[n++] = xstrndup(*p, len - 5);
	}
	strv_free(names);
	*ret = out;
	return 0;
}

/* A dotted Python name: identifiers joined by '.', nothing else (it is written into code). */
static bool is_dotted(const char *s)
{
	bool start = true;

	for (; *s; s++) {
		if (*s == '.' && !start) {
			start = true;
			continue;
		}
		unsigned char c = (unsigned char)*s;

		if (!(isalpha(c) || c == '_' || (!start && isdigit(c))))
			return false;
		start = false;
	}
	return !start;
}

/* One line of code: no line break, no NUL (jansson strings may hold one). */
static bool is_line(const json_t *v)
{
	const char *s = json_string_value(v);

	return s && strlen(s) == json_string_length(v) && !strpbrk(s, "\r\n");
}

static int invalid(struct strbuf *err, const char *name, const char *fmt, const char *what)
{
	strbuf_addf(err, "%s/%s.json: ", METHOD_TABLES_DIR, name);
	strbuf_addf(err, fmt, what);
	return -EINVAL;
}

/* An entry's code: {"call": "dotted.name"} or {"body": [one line, ...]}. */
static bool valid_code(const json_t *code)
{
	const json_t *call = json_object_get(code, "call"), *body = json_object_get(code, "body");
	size_t i;
	json_t *v;

	if (!json_is_object(code) || json_object_size(code) != 1)
		return false;
	if (call)
		return json_is_string(call) && is_dotted(json_string_value(call));
	if (!json_is_array(body) || !json_array_size(body))
		return false;
	json_array_foreach(body, i, v)
		if (!is_line(v))
			return false;
	return true;
}

/* A task's row: {"entries": {...}} or {"uncovered": "why"}, with optional about and notes. */
static int check_task(const char *name, const char *key, const json_t *row, struct strbuf *err)
{
	const json_t *entries = json_object_get(row, "entries"), *code;
	const json_t *notes = json_object_get(row, "notes"), *v;
	const char *k;

	if (!strchr(key, '/'))
		return invalid(err, name, "tasks: '%s' is not source/op", key);
	if (!json_is_object(row) || !entries == !json_object_get(row, "uncovered"))
		return invalid(err, name, "tasks.%s: expected exactly one of entries and uncovered",
			       key);
	if (json_object_get(row, "uncovered") && !json_is_string(json_object_get(row, "uncovered")))
		return invalid(err, name, "tasks.%s.uncovered: expected a string", key);
	if (entries && (!json_is_object(entries) || !json_object_size(entries)))
		return invalid(err, name, "tasks.%s.entries: expected an object of entries", key);
	json_object_foreach((json_t *)entries, k, code)
		if (!valid_code(code))
			return invalid(err, name, "tasks.%s: an entry's code must be {\"call\": a "
				       "dotted name} or {\"body\": [lines]}", key);
	if (notes && !json_is_object(notes))
		return invalid(err, name, "tasks.%s.notes: expected an object", key);
	json_object_foreach((json_t *)notes, k, v)
		if (!json_is_string(v))
			return invalid(err, name, "tasks.*.notes.%s: expected a string", k);
	return 0;
}

/* The top level's fields into *m, checked. */
static int check_table(struct method *m, struct strbuf *err)
{
	json_t *s = m->spec, *v;
	const char *k, *fields[] = {"title", "about", "package", "version", "module", "uncovered"};
	const char **dst[] = {&m->title, &m->about, &m->package, &m->version, &m->module,
			      &m->uncovered};
	size_t i;
	int r;

	if (json_integer_value(json_object_get(s, "schema")) != 1)
		return invalid(err, m->name, "schema: expected %s", "1");
	if (!json_is_string(json_object_get(s, "name")) ||
	    strcmp(json_string_value(json_object_get(s, "name")), m->name))
		return invalid(err, m->name, "name: expected the file's name, '%s'", m->name);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!(*dst[i] = json_string_value(json_object_get(s, fields[i]))))
			return invalid(err, m->name, "%s: expected a string", fields[i]);
	if (!is_dotted(m->module) || strchr(m->module, '.'))
		return invalid(err, m->name, "module: '%s' is not a top-level module name",
			       m->module);
	m->env = json_object_get(s, "env");
	m->imports = json_object_get(s, "imports");
	m->tasks = json_object_get(s, "tasks");
	m->notes = json_object_get(s, "notes");
	if (!json_is_object(m->env) || !json_is_array(m->imports) || !json_is_object(m->tasks) ||
	    !json_is_object(m->notes))
		return invalid(err, m->name, "%s: env, notes and tasks must be objects, imports a "
			       "list", "top level");
	json_object_foreach(m->env, k, v)
		if (!is_line(v) || !is_dotted(k))
			return invalid(err, m->name, "env.%s: expected a variable and a string", k);
	json_array_foreach(m->imports, i, v)
		if (!is_line(v) || (strncmp(json_string_value(v), "import ", 7) &&
				    strncmp(json_string_value(v), "from ", 5)))
			return invalid(err, m->name, "imports: '%s' is not an import statement",
				       json_string_value(v) ? json_string_value(v) : "?");
	json_object_foreach(m->notes, k, v)
		if (!json_is_string(v))
			return invalid(err, m->name, "notes.%s: expected a string", k);
	json_object_foreach(m->tasks, k, v)
		if ((r = check_task(m->name, k, v, err)) < 0)
			return r;
	return 0;
}

/* "Flag-Gems", "flag_gems" and "flag.gems" are one distribution name (PEP 503, wheels' '_'). */
static bool same_dist(const char *a, size_t alen, const char *b)
{
	size_t i = 0;

	for (; i < alen && *b; i++, b++) {
		int ca = strchr("-_.", a[i]) ? '_' : tolower((unsigned char)a[i]);
		int cb = strchr("-_.", *b) ? '_' : tolower((unsigned char)*b);

		if (ca != cb)
			return false;
	}
	return i == alen && !*b;
}

/* The version of `package` installed in m->lib: its <name>-<version>.dist-info. */
static void find_installed(struct method *m)
{
	char **names = NULL;

	if (list_dir_sorted(m->lib, &names) < 0)
		return;
	for (char **p = names; *p && !m->installed; p++) {
		size_t len = strlen(*p);
		const char *dash;

		if (len < 11 || strcmp(*p + len - 10, ".dist-info"))
			continue;
		dash = memrchr(*p, '-', len - 10);
		if (dash && same_dist(*p, (size_t)(dash - *p), m->package))
			m->installed = xstrndup(dash + 1, (size_t)(*p + len - 10 - dash - 1));
	}
	strv_free(names);
}

int method_load(const char *root, const char *name, struct method *m, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	json_error_t jerr;
	int r;

	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	if (!is_dotted(name) || strchr(name, '.')) {
		strbuf_addf(err, "'%s' is not a method name", name);
		return -ENOENT;
	}
	strbuf_addf(&path, "%s/%s/%s.json", root, METHOD_TABLES_DIR, name);
	r = strbuf_read_file(&text, path.buf, METHOD_MAX_TABLE_BYTES);
	if (r < 0) {
		strbuf_addf(err, "no method '%s' (%s: %s)", name, path.buf, strerror(-r));
		r = r == -ENOENT ? -ENOENT : -EINVAL;
		goto out;
	}
	m->spec = json_loadb(text.buf, text.len, JSON_REJECT_DUPLICATES, &jerr);
	if (!m->spec) {
		strbuf_addf(err, "%s:%d: %s", path.buf, jerr.line, jerr.text);
		r = -EINVAL;
		goto out;
	}
	if ((r = check_table(m, err)) < 0)
		goto out;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/%s/%s", root, METHOD_BUILD_DIR, name);
	m->dir = xstrdup(path.buf);
	m->lib = path_join(m->dir, "lib");
	find_installed(m);
out:
	strbuf_release(&path);
	strbuf_release(&text);
	return r;
}

void method_release(struct method *m)
{
	free(m->name);
	json_decref(m->spec);
	free(m->dir);
	free(m->lib);
	free(m->installed);
	memset(m, 0, sizeof(*m));
}

static const json_t *task_row(const struct method *m, const struct task *t)
{
	struct strbuf key = STRBUF_INIT;
	const json_t *row;

	strbuf_addf(&key, "%s/%s", t->source, t->op);
	row = json_object_get(m->tasks, key.buf);
	strbuf_release(&key);
	return row;
}

bool method_task(const struct method *m, const struct task *t, const json_t **ret_entries,
		 struct strbuf *why)
{
	const json_t *row = task_row(m, t), *entries = json_object_get(row, "entries");
	size_t n = 0;

	if (!row) {
		strbuf_addstr(why, m->uncovered);
		return false;
	}
	if (!entries) {
		strbuf_addstr(why, json_string_value(json_object_get(row, "uncovered")));
		return false;
	}
	/* The table is for the task's entries as they are: one added or renamed since is not
	 * the library's to answer. */
	for (size_t i = 0; i < t->nr_entries; i++)
		n += json_object_get(entries, t->entries[i].name) != NULL;
	if (n != t->nr_entries || n != json_object_size(entries)) {
		strbuf_addf(why, "the table's entries (%zu) are not the task's (%zu): "
			    "methods/%s.json is out of date", json_object_size(entries),
			    t->nr_entries, m->name);
		return false;
	}
	*ret_entries = entries;
	return true;
}

const char *method_note(const struct method *m, const struct task *t, const char *platform)
{
	const char *own = json_string_value(
		json_object_get(json_object_get(task_row(m, t), "notes"), platform));

	return own ? own : json_string_value(json_object_get(m->notes, platform));
}

/* def <entry>(<positional>, *, <keyword>): the entry's arguments as the harness passes them. */
static void render_entry(struct strbuf *sb, const struct task_entry *e, const json_t *code)
{
	const char *call = json_string_value(json_object_get(code, "call"));
	struct strbuf pos = STRBUF_INIT, kw = STRBUF_INIT, args = STRBUF_INIT;
	size_t i;
	json_t *a;

	json_array_foreach(e->args, i, a) {
		const char *n = json_string_value(json_object_get(a, "name"));
		bool k = json_is_true(json_object_get(a, "keyword"));

		strbuf_addf(k ? &kw : &pos, "%s%s", (k ? kw.len : pos.len) ? ", " : "", n);
		if (k)
			strbuf_addf(&args, "%s%s=%s", args.len ? ", " : "", n, n);
		else
			strbuf_addf(&args, "%s%s", args.len ? ", " : "", n);
	}
	strbuf_addf(sb, "\n\ndef %s(%s%s%s%s):\n", e->name, pos.buf, pos.len && kw.len ? ", " : "",
		    kw.len ? "*, " : "", kw.buf);
	if (call) {
		strbuf_addf(sb, "    return %s(%s)\n", call, args.buf);
	} else {
		json_array_foreach(json_object_get(code, "body"), i, a)
			strbuf_addf(sb, "    %s\n", json_string_value(a));
	}
	strbuf_release(&pos);
	strbuf_release(&kw);
	strbuf_release(&args);
}

char *method_render(const struct method *m, const struct task *t, const json_t *entries)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *v;

	strbuf_addf(&sb, "\"\"\"kgb method candidate: %s (%s %s) for %s/%s.\n\n", m->name,
		    m->package, m->version, t->source, t->op);
	strbuf_addf(&sb, "Written by kgb from %s/%s.json (docs/methods.md) and judged like any "
		    "candidate; the\nimport of %s is allowed to the candidates of kgb's method "
		    "runs only.\n\"\"\"\n\n", METHOD_TABLES_DIR, m->name, m->module);
	json_array_foreach(m->imports, i, v)
		strbuf_addf(&sb, "%s\n", json_string_value(v));
	for (i = 0; i < t->nr_entries; i++)
		render_entry(&sb, &t->entries[i], json_object_get(entries, t->entries[i].name));
	return strbuf_detach(&sb, NULL);
}

char *method_write(const struct method *m, const struct task *t, const json_t *entries,
		   struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, old = STRBUF_INIT;
	char *text = method_render(m, t, entries), *path = NULL;
	int r;

	strbuf_addf(&dir, "%s/candidates/%s/%s", m->dir, t->source, t->op);
	if ((r = mkdir_p(dir.buf, 0755)) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", dir.buf, strerror(-r));
		goto out;
	}
	strbuf_addf(&dir, "/%s.py", m->name);
	if (strbuf_read_file(&old, dir.buf, METHOD_MAX_TABLE_BYTES) == 0 && !strcmp(old.buf, text))
		path = strbuf_detach(&dir, NULL);
	else if (write_file_atomic(dir.buf, text, 0644, err) == 0)
		path = strbuf_detach(&dir, NULL);
out:
	free(text);
	strbuf_release(&dir);
	strbuf_release(&old);
	return path;
}

json_t *method_job(const struct method *m)
{
	return json_pack("{s:s, s:s, s:s, s:O}", "name", m->name, "module", m->module, "path",
			 m->lib, "env", m->env);
}
