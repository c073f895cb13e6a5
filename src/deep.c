#include "deep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"
#include "platform.h"
#include "proto.h"
#include "sched.h"
#include "util/fs.h"
#include "util/xalloc.h"

struct deep_job {
	struct deep_result *res;
	const struct case_list *cases;
	int mutant;	 /* index into catalog_mutants, -1 for base, -2 for validity */
	char *line;
};

bool deep_killed(const char *verdict)
{
	return strcmp(verdict, "pass") != 0;
}

static int on_done(void *ctx, struct sched_job *job, struct sched_result *r)
{
	struct deep_job *dj = job->data;
	struct deep_result *res = dj->res;

	(void)ctx;
	if (dj->mutant == -1) {
		snprintf(res->base_verdict, sizeof(res->base_verdict), "%s", r->verdict);
		strbuf_addstr(&res->base_detail, r->detail.buf);
	} else if (dj->mutant == -2) {
		const struct task *t = res->task;
		size_t i, *good = xcalloc(t->nr_entries + 1, sizeof(*good));
		size_t *bad = xcalloc(t->nr_entries + 1, sizeof(*bad));
		json_t *c;

		json_array_foreach(r->cases, i, c) {
			const char *v = json_string_value(json_object_get(c, "verdict"));

			if (!v)
				continue;
			if (!strcmp(v, "pass")) {
				res->valid_pass++;
				good[dj->cases->v[i].entry_idx]++;
			} else if (!strcmp(v, "skipped")) {
				res->valid_skipped++;
			} else {
				res->valid_degenerate++;
				bad[dj->cases->v[i].entry_idx]++;
				if (!res->valid_detail.len) {
					json_t *m = json_object_get(c, "message");
					strbuf_addf(&res->valid_detail, "case %zu: %s: %s", i, v,
						    json_is_string(m) ? json_string_value(m) : "");
				}
			}
		}
		for (size_t e = 0; e < t->nr_entries; e++)
			if (bad[e] && !good[e])
				strbuf_addf(&res->valid_entries, "%s%s",
					    res->valid_entries.len ? ", " : "", t->entries[e].name);
		free(good);
		free(bad);
		/* A validity job that never ran its cases says so through its verdict. */
		if (strcmp(r->verdict, "pass") && strcmp(r->verdict, "degenerate") &&
		    strcmp(r->verdict, "skipped") && !res->valid_detail.len) {
			res->valid_degenerate++;
			strbuf_addf(&res->valid_detail, "validity check failed: %s: %s", r->verdict,
				    r->detail.buf);
		}
	} else {
		snprintf(res->mutant_verdict[dj->mutant], sizeof(res->mutant_verdict[0]), "%s",
			 r->verdict);
	}
	return 0;
}

int deep_check(const struct deep_opts *o, const struct task *const *tasks, size_t nr,
	       struct deep_result *results, struct strbuf *err)
{
	size_t nm = 0, per_task, njobs = 0;
	struct deep_job *djobs;
	struct sched_job *jobs;
	struct case_list *cases = xcalloc(nr + 1, sizeof(*cases));
	struct strbuf scratch = STRBUF_INIT;
	char **env, *wargv[] = {(char *)o->python, "-m", "runtime.worker", NULL};
	const char *tmp = getenv("TMPDIR");
	struct sched_opts so = {0};
	int r = 0;

	while (catalog_mutants[nm])
		nm++;
	per_task = nm + 2;
	djobs = xcalloc(nr * per_task + 1, sizeof(*djobs));
	jobs = xcalloc(nr * per_task + 1, sizeof(*jobs));
	for (size_t i = 0; i < nr; i++) {
		const struct task *t = tasks[i];
		char *sol = task_path(t, "solution.py");

		memset(&results[i], 0, sizeof(results[i]));
		results[i].task = t;
		strbuf_init(&results[i].base_detail, 0);
		strbuf_init(&results[i].valid_detail, 0);
		strbuf_init(&results[i].valid_entries, 0);
		snprintf(results[i].base_verdict, sizeof(results[i].base_verdict), "not run");
		for (size_t m = 0; m < nm; m++)
			snprintf(results[i].mutant_verdict[m], sizeof(results[i].mutant_verdict[0]),
				 "not run");
		r = cases_generate(t, 0, 0, &cases[i], err);
		if (r < 0) {
			free(sol);
			goto out;
		}
		for (int k = -2; k < (int)nm; k++) {
			struct proto_job_opts jo = {.stop_on_fail = k != -2,
						    .mode = k == -2 ? "validity" : NULL,
						    .mutant = k >= 0 ? catalog_mutants[k] : NULL};
			struct deep_job *dj = &djobs[njobs];

			dj->res = &results[i];
			dj->cases = &cases[i];
			dj->mutant = k;
			dj->line = proto_build_job(t, sol, o->platform, &cases[i], &jo);
			jobs[njobs].task = t;
			jobs[njobs].nr_cases = cases[i].nr;
			jobs[njobs].job_line = dj->line;
			jobs[njobs].data = dj;
			njobs++;
		}
		free(sol);
	}
	strbuf_addf(&scratch, "%s/kgb-lint-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
	env = platform_worker_env(o->root, o->platform, o->slots);
	so.slots = o->slots;
	so.timeout_s = o->timeout_s;
	so.argv = wargv;
	so.env = env;
	so.scratch_root = scratch.buf;
	r = sched_run(&so, jobs, njobs, on_done, NULL, err);
	rm_rf(scratch.buf);
	strv_free(env);
out:
	for (size_t i = 0; i < njobs; i++)
		free(djobs[i].line);
	for (size_t i = 0; i < nr; i++)
		case_list_release(&cases[i]);
	free(cases);
	free(djobs);
	free(jobs);
	strbuf_release(&scratch);
	return r;
}

void deep_result_release(struct deep_result *r)
{
	strbuf_release(&r->base_detail);
	strbuf_release(&r->valid_detail);
	strbuf_release(&r->valid_entries);
}

bool deep_validity_failed(const struct deep_result *r)
{
	long long judged = r->valid_pass + r->valid_degenerate;

	return r->valid_entries.len ||
	       (judged && r->valid_degenerate * 100 > judged * DEEP_MAX_DEGENERATE_PCT);
}
