/*
 * cmd_lint.c - `kgb lint`: validate every task spec, then expand every case grid (perf cases
 * included) so that a value that only goes wrong after substitution is found too.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "catalog.h"
#include "kgb.h"

static void usage(void)
{
	printf("usage: kgb lint [--json] [TASK...]\n"
	       "\n"
	       "Checks every task.json against docs/task-format.md and expands its case grid.\n"
	       "Prints one line per problem: file: field: what was expected.\n"
	       "Exit status 0 when clean, 1 when there are findings.\n"
	       "\n"
	       "  --json   one {\"schema\": \"kgb.lint.v1\", \"finding\": ...} object per problem\n");
}

static void emit(bool json, const char *line)
{
	if (json) {
		json_t *o = json_pack("{s:s, s:s}", "schema", "kgb.lint.v1", "finding", line);
		char *s = json_dumps(o, JSON_COMPACT);
		printf("%s\n", s);
		free(s);
		json_decref(o);
	} else {
		printf("%s\n", line);
	}
}

int cmd_lint(int argc, char **argv, struct kgb_ctx *ctx)
{
	enum { OPT_JSON = 0x100 };
	static const struct option opts[] = {
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct strbuf errs = STRBUF_INIT;
	struct catalog *cat = NULL;
	bool json = false;
	size_t findings = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			usage();
			return KGB_EXIT_OK;
		default:
			return kgb_usage_error("lint", "unknown option");
		}
	}
	r = catalog_load(ctx->tasks_dir, &cat, &errs);
	if (r == -ENOENT) {
		fprintf(stderr, "kgb lint: %s", errs.buf);
		catalog_free(cat);
		strbuf_release(&errs);
		return KGB_EXIT_DATA;
	}
	for (size_t i = 0; i < cat->nr_tasks; i++) {
		const struct task *t = &cat->tasks[i];
		struct case_list cases;
		struct strbuf err = STRBUF_INIT;
		bool wanted = optind >= argc;

		for (int a = optind; a < argc; a++)
			wanted |= catalog_find(cat, argv[a]) == t;
		if (!wanted)
			continue;
		if (cases_generate(t, true, 0, &cases, &err) < 0)
			strbuf_addf(&errs, "%s/task.json: %s\n", t->dir, err.buf);
		else
			case_list_release(&cases);
		strbuf_release(&err);
	}
	for (int a = optind; a < argc; a++)
		if (!catalog_find(cat, argv[a]))
			strbuf_addf(&errs, "%s: no task '%s'\n", ctx->tasks_dir, argv[a]);
	for (char *line = errs.buf, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		*nl = '\0';
		emit(json, line);
		findings++;
	}
	if (!json && ctx->verbose >= 0)
		fprintf(stderr, "%zu tasks checked, %zu findings\n", cat->nr_tasks, findings);
	catalog_free(cat);
	strbuf_release(&errs);
	return findings ? KGB_EXIT_NO : KGB_EXIT_OK;
}
