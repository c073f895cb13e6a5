/*
 * cli.c - helpers every cmd_<verb>.c shares (declared in kgb.h): usage errors in one format,
 * and loading the catalog with every problem printed.
 */
#include <stdarg.h>
#include <stdio.h>

#include "catalog.h"
#include "kgb.h"
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

