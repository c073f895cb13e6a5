/*
 * cli.c - helpers every cmd_<verb>.c shares (declared in kgb.h): usage errors in one format,
 * and loading the catalog with every problem printed.
 */
#include <stdarg.h>
#include <stdio.h>

#include "catalog.h"
#include "kgb.h"
#include "profile.h"
#include "util/strbuf.h"

int kgb_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kgb%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'kgb%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
	return KGB_EXIT_USAGE;
}

char *kgb_command_line(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "kgb");
	for (int i = 0; i < argc; i++)
		strbuf_addf(&sb, " %s", argv[i]);
	return strbuf_detach(&sb, NULL);
}

struct catalog *kgb_load_catalog(struct kgb_ctx *ctx, int *ret_exit)
{
	struct strbuf errs = STRBUF_INIT;
	struct catalog *cat = NULL;
	int r = catalog_load(ctx->tasks_dir, &cat, &errs);

	if (r < 0) {
		fprintf(stderr, "%s", errs.buf);
		fprintf(stderr, "kgb: the task catalog '%s' has errors (run 'kgb lint')\n",
			ctx->tasks_dir);
		catalog_free(cat);
		strbuf_release(&errs);
		*ret_exit = KGB_EXIT_DATA;
		return NULL;
	}
	strbuf_release(&errs);
	return cat;
}


int kgb_load_profiles(struct kgb_ctx *ctx, const char *cmd, struct profile_set *ret)
{
	struct strbuf errs = STRBUF_INIT;
	int r = profile_load_all(ctx->root, ret, &errs);

	if (r < 0) {
		fprintf(stderr, "%skgb %s: the platform profiles are unusable (docs/platforms.md)\n",
			errs.buf, cmd);
		strbuf_release(&errs);
		return KGB_EXIT_DATA;
	}
	strbuf_release(&errs);
	return KGB_EXIT_OK;
}

const struct profile *kgb_platform_arg(const struct profile_set *set, const char *cmd,
				       const char *name, int *ret_exit)
{
	const struct profile *p = profile_resolve(set, name);
	struct strbuf known = STRBUF_INIT;

	if (p)
		return p;
	for (size_t i = 0; i < set->n; i++)
		strbuf_addf(&known, "%s%s", i ? ", " : "", set->v[i].name);
	*ret_exit = kgb_usage_error(cmd, "unknown platform '%s' (profiles: %s; or a runtime: cuda, "
				    "interpreter)", name, known.buf);
	strbuf_release(&known);
	return NULL;
}
