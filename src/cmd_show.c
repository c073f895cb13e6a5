/*
 * cmd_show.c - `kgb show TASK`: the exact prompt a model gets for a task on a platform.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "kgb.h"
#include "platform.h"
#include "profile.h"
#include "prompt.h"
#include "util/strbuf.h"

static void usage(void)
{
	printf("usage: kgb show [--platform P] [--json] TASK\n"
	       "\n"
	       "  TASK           op name (e.g. softmax) or source/op\n"
	       "  --platform P   platform profile whose constraints go in the prompt (a name of\n"
	       "                 'kgb platforms', or a runtime: cuda, interpreter; default cuda)\n"
	       "  --json         {\"schema\": \"kgb.prompt.v1\", \"task\", \"platform\", \"prompt\"}\n");
}

int cmd_show(int argc, char **argv, struct kgb_ctx *ctx)
{
	enum { OPT_PLATFORM = 0x100, OPT_JSON };
	static const struct option opts[] = {
		{"platform", required_argument, NULL, OPT_PLATFORM},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *platform = "cuda";
	const struct profile *prof;
	struct profile_set profiles = {0};
	bool json = false;
	struct catalog *cat;
	const struct task *t;
	struct strbuf prompt = STRBUF_INIT, err = STRBUF_INIT;
	int c, ret = KGB_EXIT_OK;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
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
			return kgb_usage_error("show", "unknown option");
		}
	}
	if (optind != argc - 1)
		return kgb_usage_error("show", "expected exactly one TASK");
	if ((ret = kgb_load_profiles(ctx, "show", &profiles)) != KGB_EXIT_OK)
		return ret;
	prof = kgb_platform_arg(&profiles, "show", platform, &ret);
	cat = prof ? kgb_load_catalog(ctx, &ret) : NULL;
	if (!cat) {
		profile_set_release(&profiles);
		return ret;
	}
	t = catalog_find(cat, argv[optind]);
	if (!t) {
		fprintf(stderr, "kgb show: no task '%s' (see 'kgb list')\n", argv[optind]);
		catalog_free(cat);
		profile_set_release(&profiles);
		return KGB_EXIT_DATA;
	}
	if (prompt_build(t, prof->name, prof->prompt, &prompt, &err) < 0) {
		fprintf(stderr, "kgb show: %s\n", err.buf);
		strbuf_release(&err);
		catalog_free(cat);
		profile_set_release(&profiles);
		return KGB_EXIT_DATA;
	}
	if (json) {
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "schema", "kgb.prompt.v1", "task",
				      t->op, "source", t->source, "platform", platform, "prompt",
				      prompt.buf);
		char *s = json_dumps(o, JSON_COMPACT);
		printf("%s\n", s);
		free(s);
		json_decref(o);
	} else {
		fputs(prompt.buf, stdout);
	}
	strbuf_release(&prompt);
	catalog_free(cat);
	profile_set_release(&profiles);
	return KGB_EXIT_OK;
}
