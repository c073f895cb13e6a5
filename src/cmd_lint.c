/*
 * cmd_lint.c - `kgb lint`: validate every task spec, then expand every case grid (perf and
 * held-out cases included) so that a value that only goes wrong after substitution is found
 * too, and audit each grid's degenerate sizes and held-out cases (audit.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "audit.h"
#include "cases.h"
#include "catalog.h"
#include "deep.h"
#include "kgb.h"
#include "platform.h"
#include "util/parse.h"
#include "util/xalloc.h"
#include "verdict.h"

static void usage(void)
{
	printf("usage: kgb lint [--deep] [--json] [TASK...]\n"
	       "\n"
	       "Checks every task.json against docs/task-format.md and expands its case grid;\n"
	       "each grid must reach sizes 0, 1 and a non-power of two, and have held-out cases.\n"
	       "Prints one line per problem: file: field: what was expected.\n"
	       "Exit status 0 when clean, 1 when there are findings.\n"
	       "\n"
	       "  --deep         also run each task's shipped solution, the validity check of its\n"
	       "                 reference, and every mutant (docs/task-format.md, \"Validity\");\n"
	       "                 prints the mutant kill table\n"
	       "  --platform P   platform of --deep: a profile (kgb platforms) or a runtime, whose\n"
	       "                 default profile it means (default interpreter); its cases and\n"
	       "                 tolerances are eval's there, a task with none is not checked\n"
	       "  -j, --jobs N   worker slots for --deep (default: eval's, one per CPU core; on cuda\n"
	       "                 at most 8 per GPU and one per 10 GiB of its memory)\n"
	       "  --timeout SEC  per job of --deep (default 300)\n"
	       "  --json         one {\"schema\": \"kgb.lint.v1\", \"finding\": ...} object per problem,\n"
	       "                 and with --deep one kgb.lint.deep.v1 object per task\n");
}

/* Prints the kill table (or JSON) and adds one finding per problem to `errs`. */
static void report_deep(bool json, struct deep_result *res, size_t nr, struct strbuf *errs)
{
	size_t nm = 0;

	while (catalog_mutants[nm])
		nm++;
	if (!json) {
		printf("%-28s %-8s %-14s", "TASK", "BASE", "VALID p/d/s");
		for (size_t m = 0; m < nm; m++)
			printf(" %-4.4s", catalog_mutants[m]);
		printf("  KILLED\n");
	}
	for (size_t i = 0; i < nr; i++) {
		struct deep_result *r = &res[i];
		const struct task *t = r->task;
		json_t *mut = json_object();
		size_t killed = 0, applicable = 0;
		char name[96], valid[48];

		snprintf(name, sizeof(name), "%s/%s", t->source, t->op);
		/* No case of it runs on this platform (profile_apply): not checked, not a finding. */
		if (verdict_is(r->base_verdict, VERDICT_SKIPPED)) {
			if (json) {
				json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "schema",
						      "kgb.lint.deep.v1", "task", t->op, "source",
						      t->source, "base", r->base_verdict, "why",
						      r->base_detail.buf);
				char *line = json_dumps(o, JSON_COMPACT);

				printf("%s\n", line);
				free(line);
				json_decref(o);
			} else {
				printf("%-28s %-8s not checked on this platform: %s\n", name,
				       r->base_verdict, r->base_detail.buf);
			}
			json_decref(mut);
			continue;
		}
		snprintf(valid, sizeof(valid), "%lld/%lld/%lld", r->valid_pass, r->valid_degenerate,
			 r->valid_skipped);
		if (!json)
			printf("%-28s %-8s %-14s", name, r->base_verdict, valid);
		for (size_t m = 0; m < nm; m++) {
			struct strbuf where = STRBUF_INIT;
			enum deep_outcome o = deep_mutant_outcome(r, m, &where);
			bool k = o == DEEP_KILLED, s = o == DEEP_SURVIVED;

			applicable += o != DEEP_EXEMPT;
			killed += k;
			if (!json)
				printf(" %-4s", k ? "K" : s ? "S" : "E");
			json_object_set_new(mut, catalog_mutants[m],
					    json_string(k ? "killed" : s ? "survived" : "exempt"));
			if (s)
				strbuf_addf(errs, "%s: mutant '%s' survives in %s: the checker accepts it\n",
					    t->dir, catalog_mutants[m], where.buf);
			strbuf_release(&where);
		}
		if (!json)
			printf("  %zu/%zu\n", killed, applicable);
		if (!verdict_is_pass(r->base_verdict))
			strbuf_addf(errs, "%s: the shipped solution does not pass: %s: %s\n", t->dir,
				    r->base_verdict, r->base_detail.buf);
		if (deep_validity_failed(r) && !task_exemption(t, "validity"))
			strbuf_addf(errs, "%s: degenerate reference in %lld of %lld judged cases%s%s (%s)\n",
				    t->dir, r->valid_degenerate, r->valid_pass + r->valid_degenerate,
				    r->valid_entries.len ? "; no informative case in " : "",
				    r->valid_entries.buf, r->valid_detail.buf);
		if (json) {
			json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:{s:I, s:I, s:I}, s:o, s:I, s:I}",
					      "schema", "kgb.lint.deep.v1", "task", t->op, "source",
					      t->source, "base", r->base_verdict, "validity", "pass",
					      (json_int_t)r->valid_pass, "degenerate",
					      (json_int_t)r->valid_degenerate, "skipped",
					      (json_int_t)r->valid_skipped, "mutants", mut, "killed",
					      (json_int_t)killed, "applicable", (json_int_t)applicable);
			char *s = json_dumps(o, JSON_COMPACT);
			printf("%s\n", s);
			free(s);
			json_decref(o);
		} else {
			json_decref(mut);
		}
	}
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
	enum { OPT_JSON = 0x100, OPT_DEEP, OPT_PLATFORM, OPT_TIMEOUT };
	static const struct option opts[] = {
		{"json", no_argument, NULL, OPT_JSON},
		{"deep", no_argument, NULL, OPT_DEEP},
		{"platform", required_argument, NULL, OPT_PLATFORM},
		{"jobs", required_argument, NULL, 'j'},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct strbuf errs = STRBUF_INIT;
	struct catalog *cat = NULL;
	struct deep_opts dopts = {.timeout_s = 300};
	struct profile_set profiles = {0};
	const char *platform = "interpreter"; /* a profile or a runtime name */
	const struct task **selected = NULL;
	size_t nr_selected = 0;
	bool json = false, deep = false;
	size_t findings = 0;
	int c, r;
	long l;

	while ((c = getopt_long(argc, argv, "hj:", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case OPT_DEEP:
			deep = true;
			break;
		case OPT_PLATFORM:
			platform = optarg;
			break;
		case 'j':
			if (parse_int_range(optarg, 1, 1024, &l) < 0)
				return kgb_usage_error("lint", "--jobs: expected 1..1024, got '%s'", optarg);
			dopts.slots = (unsigned)l;
			break;
		case OPT_TIMEOUT:
			if (parse_double(optarg, &dopts.timeout_s) < 0 || !(dopts.timeout_s > 0))
				return kgb_usage_error("lint", "--timeout: expected seconds > 0");
			break;
		case 'h':
			usage();
			return KGB_EXIT_OK;
		default:
			return kgb_usage_error("lint", "unknown option");
		}
	}
	/* The platform's profile: what eval would drop and the tolerances it would use. */
	if ((r = kgb_load_profiles(ctx, "lint", &profiles)) != KGB_EXIT_OK) {
		profile_set_release(&profiles);
		return r;
	}
	if (!(dopts.profile = kgb_platform_arg(&profiles, "lint", platform, &r))) {
		profile_set_release(&profiles);
		return r;
	}
	r = catalog_load(ctx->tasks_dir, &cat, &errs);
	if (r == -ENOENT) {
		fprintf(stderr, "kgb lint: %s", errs.buf);
		catalog_free(cat);
		profile_set_release(&profiles);
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
		if (cases_generate(t, CASES_PERF | CASES_HELDOUT, 0, &cases, &err) < 0) {
			strbuf_addf(&errs, "%s/task.json: %s\n", t->dir, err.buf);
		} else {
			audit_task(t, &cases, &errs);
			case_list_release(&cases);
			if (task_supports_platform(t, dopts.profile->runtime)) {
				selected = xrealloc(selected, (nr_selected + 1) * sizeof(*selected));
				selected[nr_selected++] = t;
			}
		}
		strbuf_release(&err);
	}
	if (deep && nr_selected) {
		struct deep_result *res = xcalloc(nr_selected, sizeof(*res));
		struct strbuf err = STRBUF_INIT;
		char *python = platform_python(ctx->root);

		dopts.root = ctx->root;
		dopts.tasks_dir = ctx->tasks_dir;
		dopts.python = python;
		if (deep_check(&dopts, selected, nr_selected, res, &err) < 0) {
			fprintf(stderr, "kgb lint: %s\n", err.buf);
			for (size_t i = 0; i < nr_selected; i++)
				deep_result_release(&res[i]);
			free(python);
			free(res);
			free(selected);
			strbuf_release(&err);
			catalog_free(cat);
			profile_set_release(&profiles);
			strbuf_release(&errs);
			return KGB_EXIT_ENV;
		}
		report_deep(json, res, nr_selected, &errs);
		for (size_t i = 0; i < nr_selected; i++)
			deep_result_release(&res[i]);
		free(res);
		free(python);
		strbuf_release(&err);
	}
	free(selected);
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
	profile_set_release(&profiles);
	strbuf_release(&errs);
	return findings ? KGB_EXIT_NO : KGB_EXIT_OK;
}
