/*
 * cmd_methods.c - `kgb methods`: the methods (method.h, docs/methods.md), their libraries'
 * installed versions, and which tasks each covers; with a name, every task: covered (what its
 * candidate calls) or why not, and what the table notes of it per platform.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "kgb.h"
#include "method.h"
#include "util/fs.h"

static void usage(void)
{
	printf("usage: kgb methods [NAME] [--source S] [--json]\n"
	       "\n"
	       "Methods are libraries of Triton kernels that kgb judges as candidates, like a\n"
	       "model's (docs/methods.md): 'kgb eval --method NAME' writes one candidate per task\n"
	       "the method's adapter table (methods/NAME.json) covers, and evaluates it.\n"
	       "\n"
	       "Without NAME, one line per method: its library, the version installed in\n"
	       "build/methods/NAME/lib (scripts/methods.sh installs it) and the tasks it covers of\n"
	       "each source. With NAME, one line per task: what its candidate calls, or why the\n"
	       "method does not cover it; then what the table notes per platform.\n"
	       "\n"
	       "  --source S   only tasks of source S (aten, vllm, cublas)\n"
	       "  --json       kgb.method.v1 per method; with NAME, kgb.method.task.v1 per task\n");
}

static void print_json(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);

	printf("%s\n", s);
	free(s);
	json_decref(o);
}

/* An entry's code in one line: "entry -> call" or "entry: line; line". */
static void code_line(struct strbuf *sb, const char *entry, const json_t *code)
{
	const char *call = json_string_value(json_object_get(code, "call"));
	size_t i;
	json_t *v;

	strbuf_addf(sb, "%s%s", sb->len ? ", " : "", entry);
	if (call) {
		strbuf_addf(sb, " -> %s", call);
		return;
	}
	strbuf_addch(sb, ':');
	json_array_foreach(json_object_get(code, "body"), i, v)
		strbuf_addf(sb, "%s %s", i ? ";" : "", json_string_value(v));
}

/* One method's summary: tasks covered per source, of the catalog's. */
static void summary(const struct method *m, const struct catalog *cat, const char *source,
		    bool json)
{
	size_t cov[8] = {0}, all[8] = {0}, ns = 0;
	struct strbuf line = STRBUF_INIT, why = STRBUF_INIT;
	json_t *jc = json_object(), *jt = json_object();
	const json_t *entries;

	while (catalog_sources[ns] && ns < 8)
		ns++;
	for (size_t i = 0; i < cat->nr_tasks; i++) {
		const struct task *t = &cat->tasks[i];

		for (size_t s = 0; s < ns; s++) {
			if (strcmp(t->source, catalog_sources[s]))
				continue;
			all[s]++;
			cov[s] += method_task(m, t, &entries, &why);
		}
	}
	for (size_t s = 0; s < ns; s++) {
		if (source && strcmp(source, catalog_sources[s]))
			continue;
		strbuf_addf(&line, " %5zu/%-6zu", cov[s], all[s]);
		json_object_set_new(jc, catalog_sources[s], json_integer((json_int_t)cov[s]));
		json_object_set_new(jt, catalog_sources[s], json_integer((json_int_t)all[s]));
	}
	if (json) {
		print_json(json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s?, s:o, s:o, s:O}", "schema",
				     "kgb.method.v1", "method", m->name, "title", m->title, "about",
				     m->about, "package", m->package, "version", m->version,
				     "installed", m->installed, "covered", jc, "tasks", jt, "notes",
				     m->notes));
	} else {
		char lib[64];
		const char *k;
		json_t *v;

		snprintf(lib, sizeof(lib), "%s %s", m->package, m->version);
		printf("%-10s %-22s %-14s%s", m->name, lib,
		       m->installed ? m->installed : "not installed", line.buf);
		/* Where the whole method is known not to run: 'kgb methods NAME' says why. */
		json_object_foreach(m->notes, k, v)
			printf(" %s", k);
		printf("\n");
		json_decref(jc);
		json_decref(jt);
	}
	strbuf_release(&line);
	strbuf_release(&why);
}

/* The table's notes of task `name` (its own, not the method's) as "  <task>, <platform>: ...". */
static void task_notes(struct strbuf *sb, const struct method *m, const char *name)
{
	const char *k;
	json_t *v, *row = json_object_get(m->tasks, name);

	json_object_foreach(json_object_get(row, "notes"), k, v)
		strbuf_addf(sb, "  %s, %s: %s\n", name, k, json_string_value(v));
}

/* Every task of one method: covered (its entries' code) or why not, and the notes. */
static void per_task(const struct method *m, const struct catalog *cat, const char *source,
		     bool json)
{
	struct strbuf notes = STRBUF_INIT;

	if (!json)
		printf("%s (%s %s, installed: %s): %s\n\n%-38s %-7s %s\n", m->title, m->package,
		       m->version, m->installed ? m->installed : "no", m->about, "TASK", "COVERED",
		       "CANDIDATE CALLS / WHY NOT");
	for (size_t i = 0; i < cat->nr_tasks; i++) {
		const struct task *t = &cat->tasks[i];
		struct strbuf text = STRBUF_INIT, name = STRBUF_INIT;
		const json_t *entries = NULL, *code;
		bool covered;
		const char *k;

		if (source && strcmp(t->source, source))
			continue;
		covered = method_task(m, t, &entries, &text);
		if (covered)
			json_object_foreach((json_t *)entries, k, code)
				code_line(&text, k, code);
		strbuf_addf(&name, "%s/%s", t->source, t->op);
		if (json) {
			const char *ni = method_note(m, t, "interpreter"), *nc = method_note(m, t, "cuda");

			print_json(json_pack("{s:s, s:s, s:s, s:b, s:O*, s:s*, s:{s:s*, s:s*}}",
					     "schema", "kgb.method.task.v1", "method", m->name, "task",
					     name.buf, "covered", covered, "entries", entries, "why",
					     covered ? NULL : text.buf, "notes", "interpreter", ni,
					     "cuda", nc));
		} else {
			printf("%-38s %-7s %s\n", name.buf, covered ? "yes" : "no", text.buf);
			task_notes(&notes, m, name.buf);
		}
		strbuf_release(&text);
		strbuf_release(&name);
	}
	if (!json && (json_object_size(m->notes) || notes.len)) {
		const char *k;
		json_t *v;

		printf("\nnotes:\n");
		json_object_foreach(m->notes, k, v)
			printf("  every task, %s: %s\n", k, json_string_value(v));
		printf("%s", notes.buf);
	}
	strbuf_release(&notes);
}

/* The methods named (one, or every table), each loaded; an invalid table is exit 3. */
static int run(struct kgb_ctx *ctx, const char *name, const char *source, bool json)
{
	char **names = NULL, *one[] = {(char *)name, NULL};
	struct strbuf err = STRBUF_INIT;
	struct catalog *cat;
	int ret = KGB_EXIT_OK, r;

	if (!(cat = kgb_load_catalog(ctx, &ret)))
		return ret;
	if (!name && (r = method_names(ctx->root, &names)) < 0) {
		fprintf(stderr, "kgb methods: cannot read %s/%s: %s\n", ctx->root,
			METHOD_TABLES_DIR, strerror(-r));
		catalog_free(cat);
		return KGB_EXIT_DATA;
	}
	if (!name && !json)
		printf("%-10s %-22s %-14s", "METHOD", "LIBRARY", "INSTALLED");
	for (size_t s = 0; !name && !json && catalog_sources[s]; s++)
		if (!source || !strcmp(source, catalog_sources[s]))
			printf(" %-12s", catalog_sources[s]);
	if (!name && !json)
		printf(" NOTES\n");
	for (char **n = name ? one : names; *n && ret == KGB_EXIT_OK; n++) {
		struct method m;

		r = method_load(ctx->root, *n, &m, &err);
		if (r == -ENOENT)
			ret = kgb_usage_error("methods", "%s", err.buf);
		else if (r < 0)
			ret = KGB_EXIT_DATA;
		else if (name)
			per_task(&m, cat, source, json);
		else
			summary(&m, cat, source, json);
		if (r < 0 && r != -ENOENT)
			fprintf(stderr, "kgb methods: %s\n", err.buf);
		method_release(&m);
	}
	strv_free(names);
	strbuf_release(&err);
	catalog_free(cat);
	return ret;
}

int cmd_methods(int argc, char **argv, struct kgb_ctx *ctx)
{
	enum { OPT_SOURCE = 0x100, OPT_JSON };
	static const struct option opts[] = {
		{"source", required_argument, NULL, OPT_SOURCE},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *source = NULL;
	bool json = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOURCE:
			source = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			usage();
			return KGB_EXIT_OK;
		default:
			return kgb_usage_error("methods", "unknown option");
		}
	}
	if (source && !catalog_source_known(source))
		return kgb_usage_error("methods", "unknown source '%s' (aten, vllm, cublas)", source);
	if (argc - optind > 1)
		return kgb_usage_error("methods", "unexpected argument '%s'", argv[optind + 1]);
	return run(ctx, optind < argc ? argv[optind] : NULL, source, json);
}
