/*
 * cmd_list.c - `kgb list`: the tasks of the catalog, filtered by source and platform.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "catalog.h"
#include "kgb.h"
#include "platform.h"
#include "profile.h"

static void usage(void)
{
	printf("usage: kgb list [--source S] [--platform P] [--json]\n"
	       "\n"
	       "  --source S     only tasks of source S (aten, vllm, cublas)\n"
	       "  --platform P   only tasks that run on platform P (a profile of 'kgb platforms',\n"
	       "                 or a runtime: cuda, interpreter)\n"
	       "  --json         one JSON object per task (schema kgb.task.v1)\n");
}

int cmd_list(int argc, char **argv, struct kgb_ctx *ctx)
{
	enum { OPT_SOURCE = 0x100, OPT_PLATFORM, OPT_JSON };
	static const struct option opts[] = {
		{"source", required_argument, NULL, OPT_SOURCE},
		{"platform", required_argument, NULL, OPT_PLATFORM},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *source = NULL, *platform = NULL;
	struct profile_set profiles = {0};
	const struct profile *prof = NULL;
	bool json = false;
	struct catalog *cat;
	int c, ret = KGB_EXIT_OK;
	size_t shown = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOURCE:
			source = optarg;
			break;
		case OPT_PLATFORM:
			platform = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			usage();
			return KGB_EXIT_OK;
		default:
			return kgb_usage_error("list", "unknown option");
		}
	}
	if (optind < argc)
		return kgb_usage_error("list", "unexpected argument '%s'", argv[optind]);
	if (source && !catalog_source_known(source))
		return kgb_usage_error("list", "unknown source '%s' (aten, vllm, cublas)", source);
	if (platform) {
		if ((ret = kgb_load_profiles(ctx, "list", &profiles)) != KGB_EXIT_OK)
			return ret;
		if (!(prof = kgb_platform_arg(&profiles, "list", platform, &ret))) {
			profile_set_release(&profiles);
			return ret;
		}
	}
	cat = kgb_load_catalog(ctx, &ret);
	if (!cat) {
		profile_set_release(&profiles);
		return ret;
	}
	if (!json)
		printf("%-32s %-8s %7s %7s  %s\n", "TASK", "KIND", "ENTRIES", "CASES", "ENTRY POINTS");
	for (size_t i = 0; i < cat->nr_tasks; i++) {
		const struct task *t = &cat->tasks[i];
		struct case_list cases;
		struct strbuf err = STRBUF_INIT, names = STRBUF_INIT;
		size_t nr_cases = 0;

		if (source && strcmp(t->source, source))
			continue;
		if (prof && (!task_supports_platform(t, prof->runtime) ||
			     !profile_supports_source(prof, t->source)))
			continue;
		if (cases_generate(t, 0, 0, &cases, &err) == 0) {
			nr_cases = cases.nr;
			case_list_release(&cases);
		}
		for (size_t k = 0; k < t->nr_entries; k++)
			strbuf_addf(&names, "%s%s", k ? " " : "", t->entries[k].name);
		if (json) {
			json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:O*}", "schema",
					      "kgb.task.v1", "task", t->op, "source", t->source,
					      "kind", t->kind, "entries", (json_int_t)t->nr_entries,
					      "cases", (json_int_t)nr_cases, "version", t->version,
					      "platforms", t->platforms);
			char *s = json_dumps(o, JSON_COMPACT);
			printf("%s\n", s);
			free(s);
			json_decref(o);
		} else {
			char name[128];
			snprintf(name, sizeof(name), "%s/%s", t->source, t->op);
			printf("%-32s %-8s %7zu %7zu  %s\n", name, t->kind, t->nr_entries, nr_cases,
			       names.buf);
		}
		shown++;
		strbuf_release(&err);
		strbuf_release(&names);
	}
	if (!json && ctx->verbose >= 0)
		fprintf(stderr, "%zu tasks\n", shown);
	catalog_free(cat);
	profile_set_release(&profiles);
	return KGB_EXIT_OK;
}
