/*
 * cmd_report.c - `kgb report`: prints a stored run again, without evaluating anything: the
 * table or JSON lines `kgb eval` (or `kgb generate`) printed at its end, with the metrics
 * recomputed from the store.
 * For reading results on another machine than the one that made them (a GPU host's store
 * copied back), and for published numbers that come from a file, not a terminal.
 * With -o, the self-contained HTML report of one or more runs instead (report_html.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "gen_report.h"
#include "kgb.h"
#include "report.h"
#include "report_html.h"
#include "report_runs.h"
#include "store.h"
#include "util/parse.h"
#include "util/xalloc.h"

static void usage(void)
{
	printf("usage: kgb report [--store PATH] [--run N] [--json]\n"
	       "       kgb report -o FILE.html [--store PATH] [--run N] [RUN | STORE[:RUN]]...\n"
	       "\n"
	       "Prints a run of the store as `kgb eval` (or `kgb generate`) did at its end;\n"
	       "evaluates nothing.\n"
	       "\n"
	       "  --store PATH   results store (default $KGB_STORE or ./kgb-results.db)\n"
	       "  --run N        that run (default: the latest a command started)\n"
	       "  --json         JSON lines: kgb.eval.v1 per candidate, then kgb.summary.v1\n"
	       "                 (a generate run: kgb.generate.v1, kgb.generate.summary.v1)\n"
	       "  -o FILE        write a self-contained HTML report of the runs named (a run\n"
	       "                 number of --store, or STORE[:RUN]; default: --run or the\n"
	       "                 latest), one method per run (docs/cli.md, docs/metrics.md)\n");
}

/* A run argument of -o: a bare number is a run of `store`, anything else STORE[:RUN]. */
static int load_arg(const char *arg, const char *store, struct report_method *m,
		    struct strbuf *err)
{
	unsigned long long run;

	if (parse_ull(arg, &run) == 0 && run > 0 && run < (1ULL << 62))
		return report_method_load_run(store, (long long)run, m, err);
	return report_method_load(arg, m, err);
}

static int write_html(const char *out, const char *store, long long run, char **args,
		      size_t nargs)
{
	struct report_method *m = xcalloc(nargs + 1, sizeof(*m));
	struct strbuf err = STRBUF_INIT, page = STRBUF_INIT;
	size_t n = 0;
	int ret = KGB_EXIT_OK;
	FILE *f;

	if (!nargs) {
		if (report_method_load_run(store, run, &m[0], &err) < 0) {
			report_method_release(&m[0]);
			goto fail;
		}
		n = 1;
	}
	for (; n < nargs; n++)
		if (load_arg(args[n], store, &m[n], &err) < 0) {
			report_method_release(&m[n]);
			goto fail;
		}
	report_methods_disambiguate(m, n);
	report_html_render(&page, m, n);
	f = fopen(out, "w");
	if (f) {
		bool ok = fwrite(page.buf, 1, page.len, f) == page.len;

		if (fclose(f) != 0 || !ok)
			f = NULL;
	}
	if (!f) {
		fprintf(stderr, "kgb report: cannot write '%s': %s\n", out, strerror(errno));
		ret = KGB_EXIT_ENV;
	}
	goto out;
fail:
	fprintf(stderr, "kgb report: %s\n", err.buf);
	ret = KGB_EXIT_DATA;
out:
	for (size_t i = 0; i < n; i++)
		report_method_release(&m[i]);
	free(m);
	strbuf_release(&page);
	strbuf_release(&err);
	return ret;
}

/*
 * A `kgb generate` run: its scores as `kgb generate` printed them (gen_report.h), counted
 * again from its requests, under a line naming the run (not with json). A KGB_EXIT_* code.
 */
static int report_generated(struct store *store, long long run_id, const char *platform,
                            const char *path, const char *env_text, bool json,
                            struct kgb_ctx *ctx)
{
	struct strbuf err = STRBUF_INIT;
	int ret = KGB_EXIT_OK;
	struct catalog *cat = kgb_load_catalog(ctx, &ret);

	if (!cat)
		return ret;
	if (!json)
		printf("generate run %lld (%s) in %s\n", run_id, platform ? platform : "?", path);
	if (gen_report_stored(stdout, store, run_id, env_text, cat, json, &err) < 0) {
		fprintf(stderr, "kgb report: %s\n", err.buf);
		ret = KGB_EXIT_DATA;
	}
	catalog_free(cat);
	strbuf_release(&err);
	return ret;
}

int cmd_report(int argc, char **argv, struct kgb_ctx *ctx)
{
	enum { OPT_STORE = 0x100, OPT_RUN, OPT_JSON, OPT_OUT = 'o' };
	static const struct option opts[] = {
	        {"store", required_argument, NULL, OPT_STORE},
	        {"run", required_argument, NULL, OPT_RUN},
	        {"json", no_argument, NULL, OPT_JSON},
	        {"help", no_argument, NULL, 'h'},
	        {"output", required_argument, NULL, OPT_OUT},
	        {0},
	};
	const char *path = NULL;
	unsigned long long run = 0;
	long long run_id;
	bool json = false;
	const char *html = NULL;
	struct store *store = NULL;
	struct strbuf err = STRBUF_INIT;
	char *platform = NULL, *env_text = NULL, *harness = NULL;
	char *started = NULL, *command = NULL;
	json_t *env = NULL;
	int c, r, ret = KGB_EXIT_OK;

	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case OPT_STORE:
			path = optarg;
			break;
		case OPT_RUN:
			if (parse_ull(optarg, &run) < 0 || run == 0 || run > (1ULL << 62))
				return kgb_usage_error("report",
				                       "--run: expected a run number > 0, "
				                       "got '%s'",
				                       optarg);
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_OUT:
			html = optarg;
			break;
		case 'h':
			usage();
			return KGB_EXIT_OK;
		default:
			return kgb_usage_error("report", "unknown option");
		}
	}
	if (optind < argc && !html)
		return kgb_usage_error("report", "unexpected argument '%s' (runs are named with -o)",
		                       argv[optind]);
	if (!path)
		path = getenv("KGB_STORE") && *getenv("KGB_STORE") ? getenv("KGB_STORE")
		                                                   : "kgb-results.db";
	if (html) {
		if (json)
			return kgb_usage_error("report", "-o and --json exclude each other");
		return write_html(html, path, (long long)run, argv + optind, (size_t)(argc - optind));
	}
	/* Opening creates a store; a report of a file that is not there is a mistake. */
	if (access(path, R_OK) < 0) {
		fprintf(stderr, "kgb report: cannot read store '%s': %s\n", path, strerror(errno));
		return KGB_EXIT_DATA;
	}
	r = store_open(path, &store, &err);
	if (r < 0) {
		fprintf(stderr, "kgb report: %s\n", err.buf);
		ret = r == -EBUSY ? KGB_EXIT_ENV : KGB_EXIT_DATA;
		goto out;
	}
	run_id = (long long)run;
	r = store_run_info(store, &run_id, &platform, &env_text, &err);
	if (r == -ENOENT) {
		if (run)
			fprintf(stderr, "kgb report: store '%s' has no run %llu\n", path, run);
		else
			fprintf(stderr, "kgb report: store '%s' has no run\n", path);
		ret = KGB_EXIT_DATA;
		goto out;
	}
	if (r == 0 && (r = store_run_row(store, run_id, &started, &command, &harness, &err)) == 0 &&
	    harness && !strcmp(harness, "generate")) {
		ret = report_generated(store, run_id, platform, path, env_text, json, ctx);
		goto out;
	}
	if (r == 0) {
		env = env_text ? json_loads(env_text, 0, NULL) : NULL;
		r = report_from_store(stdout, store, run_id, platform ? platform : "?", path, 0,
		                      json_object_get(env, "sandbox"), json, NULL, &err);
	}
	if (r < 0) {
		fprintf(stderr, "kgb report: %s\n", err.buf);
		ret = KGB_EXIT_DATA;
	}
out:
	json_decref(env);
	free(platform);
	free(env_text);
	free(harness);
	free(started);
	free(command);
	store_free(store);
	strbuf_release(&err);
	return ret;
}
