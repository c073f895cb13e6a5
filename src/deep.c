#include "deep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"
#include "kgb.h"
#include "platform.h"
#include "proto.h"
#include "sched.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "verdict.h"

struct deep_job {
	struct deep_result *res;
	const struct case_list *cases;
	int mutant;	 /* index into catalog_mutants, -1 for base, -2 for validity */
	char *line;
};

bool deep_killed(const char *verdict)
{
	return !verdict_is_pass(verdict);
}

/* Whether the entry itself exempts `check` (the task's exemptions are looked at apart). */
static bool entry_exempt(const struct task *t, size_t e, const char *check)
{
	return t->entries[e].exempt && json_object_get(t->entries[e].exempt, check);
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
			if (i < dj->cases->nr && entry_exempt(t, dj->cases->v[i].entry_idx, "validity")) {
				res->valid_skipped++; /* an entry that says why it cannot be judged */
			} else if (verdict_is_pass(v)) {
				res->valid_pass++;
				good[dj->cases->v[i].entry_idx]++;
			} else if (verdict_is(v, VERDICT_SKIPPED)) {
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
			if (bad[e] && !good[e] && !entry_exempt(t, e, "validity"))
				strbuf_addf(&res->valid_entries, "%s%s",
					    res->valid_entries.len ? ", " : "", t->entries[e].name);
		free(good);
		free(bad);
		/* A validity job that never ran its cases says so through its verdict. */
		if (!verdict_is_pass(r->verdict) && !verdict_is(r->verdict, VERDICT_DEGENERATE) &&
		    !verdict_is(r->verdict, VERDICT_SKIPPED) && !res->valid_detail.len) {
			res->valid_degenerate++;
			strbuf_addf(&res->valid_detail, "validity check failed: %s: %s", r->verdict,
				    r->detail.buf);
		}
	} else {
		const struct task *t = res->task;
		bool *killed = res->killed[dj->mutant], failed = deep_killed(r->verdict);
		size_t i;
		json_t *c;

		snprintf(res->mutant_verdict[dj->mutant], sizeof(res->mutant_verdict[0]), "%s",
			 r->verdict);
		/*
		 * An entry is killed by a case of it that fails; when the job itself failed (a
		 * crash, a timeout), also by a case of it that never reported.
		 */
		for (i = 0; i < dj->cases->nr; i++) {
			const char *v;

			c = json_array_get(r->cases, i);
			v = json_string_value(json_object_get(c, "verdict"));
			if (v ? !verdict_is_pass(v) && !verdict_is(v, VERDICT_SKIPPED) : failed)
				killed[dj->cases->v[i].entry_idx] = true;
		}
		/* A job that failed before any case (a fatal load error) kills every entry. */
		for (size_t e = 0; e < t->nr_entries && failed && !dj->cases->nr; e++)
			killed[e] = true;
	}
	return 0;
}

/*
 * Whether mutant `m` can act on the entry at all: mutate_input modifies a tensor argument the
 * entry does not write, and an in-place op whose only tensor is the one it writes has none.
 */
static bool mutant_applies(const struct task *t, size_t e, size_t m)
{
	const struct task_entry *te = &t->entries[e];
	size_t i, j;
	json_t *a, *w;

	if (strcmp(catalog_mutants[m], "mutate_input"))
		return true;
	json_array_foreach(te->args, i, a) {
		const char *name = json_string_value(json_object_get(a, "name"));
		bool written = false;

		if (!json_object_get(a, "tensor") || !name)
			continue;
		json_array_foreach(te->mutates, j, w) written |= !strcmp(json_string_value(w), name);
		if (!written)
			return true;
	}
	return false;
}

enum deep_outcome deep_mutant_outcome(const struct deep_result *r, size_t m,
				      struct strbuf *survivors)
{
	const struct task *t = r->task;
	bool survived = false, killed = false;

	for (size_t e = 0; e < t->nr_entries; e++) {
		if (r->killed[m] && r->killed[m][e]) {
			killed = true;
			continue;
		}
		if (task_entry_exemption(t, e, catalog_mutants[m]) || !mutant_applies(t, e, m))
			continue;
		if (survivors)
			strbuf_addf(survivors, "%s%s", survived ? ", " : "", t->entries[e].name);
		survived = true;
	}
	/* Killed wherever it had to be; exempt when it was let through everywhere. */
	return survived ? DEEP_SURVIVED : killed ? DEEP_KILLED : DEEP_EXEMPT;
}

int deep_check(const struct deep_opts *o, const struct task *const *tasks, size_t nr,
	       struct deep_result *results, struct strbuf *err)
{
	size_t nm = 0, per_task, njobs = 0;
	struct deep_job *djobs;
	struct sched_job *jobs;
	struct case_list *cases = xcalloc(nr + 1, sizeof(*cases));
	char **sols = xcalloc(nr + 1, sizeof(*sols)); /* owned: each task's solution.py */
	struct strbuf scratch = STRBUF_INIT;
	char **env, *pycache = NULL;
	struct platform_worker_argv argv;
	struct kgb_sandbox_view view;
	const char *tmp = getenv("TMPDIR"), *platform = o->profile->runtime;
	struct sched_opts so = {0};
	char **slot_dev = NULL;
	json_t *probe = NULL;
	unsigned slots, ngpu;
	int r = 0;

	while (catalog_mutants[nm])
		nm++;
	per_task = nm + 2;
	djobs = xcalloc(nr * per_task + 1, sizeof(*djobs));
	jobs = xcalloc(nr * per_task + 1, sizeof(*jobs));
	for (size_t i = 0; i < nr; i++) {
		const struct task *t = tasks[i];
		char *sol = sols[i] = task_path(t, "solution.py");

		memset(&results[i], 0, sizeof(results[i]));
		results[i].task = t;
		strbuf_init(&results[i].base_detail, 0);
		strbuf_init(&results[i].valid_detail, 0);
		strbuf_init(&results[i].valid_entries, 0);
		snprintf(results[i].base_verdict, sizeof(results[i].base_verdict), "not run");
		for (size_t m = 0; m < nm; m++) {
			snprintf(results[i].mutant_verdict[m], sizeof(results[i].mutant_verdict[0]),
				 "not run");
			results[i].killed[m] = xcalloc(t->nr_entries + 1, sizeof(bool));
		}
		r = cases_generate(t, 0, 0, &cases[i], err);
		if (r < 0) {
			goto out;
		}
		/* The cases eval would run on this platform, with its tolerances. */
		strbuf_reset(&scratch);
		profile_apply(o->profile, &cases[i], &scratch);
		if (!cases[i].nr) {
			/* Nothing to check here: said, not a finding (eval skips it too). */
			snprintf(results[i].base_verdict, sizeof(results[i].base_verdict), "%s",
				 verdict_name(VERDICT_SKIPPED));
			strbuf_addstr(&results[i].base_detail, scratch.buf);
			continue;
		}
		for (int k = -2; k < (int)nm; k++) {
			/* A mutant must be rejected in every entry: each stops on its own. */
			struct proto_job_opts jo = {.stop_on_fail = k != -2,
						    .stop_per_entry = k >= 0,
						    .mode = k == -2 ? "validity" : NULL,
						    .mutant = k >= 0 ? catalog_mutants[k] : NULL};
			struct deep_job *dj = &djobs[njobs];

			dj->res = &results[i];
			dj->cases = &cases[i];
			dj->mutant = k;
			dj->line = proto_build_job(t, sol, platform, &cases[i], &jo);
			jobs[njobs].task = t;
			jobs[njobs].nr_cases = cases[i].nr;
			jobs[njobs].job_line = dj->line;
			jobs[njobs].candidate = sols[i];
			jobs[njobs].replay = proto_task_ghost(t);
			/* The jobs of a task run one solution: they share its Triton cache. */
			jobs[njobs].cache_key = t->version;
			jobs[njobs].data = dj;
			njobs++;
		}
	}
	/* eval's slots and, on cuda, its GPU per slot (the probe: how many, how much memory). */
	if (!strcmp(platform, "cuda")) {
		r = platform_probe(o->root, o->python, &probe, err);
		if (r == 0 && strcmp(platform_detect(probe), "cuda")) {
			strbuf_addstr(err, "platform cuda: the probe sees no CUDA device");
			r = -ENODEV;
		}
	}
	if (r == 0)
		r = platform_check_slots(platform, probe, o->slots, getenv("CUDA_VISIBLE_DEVICES"),
					 &slots, &ngpu, &slot_dev, err);
	json_decref(probe);
	if (r < 0)
		goto out;
	tmp = tmp && *tmp ? tmp : "/tmp";
	/* Scratch roots of kgb processes killed with -9 go first. */
	rm_stale_pid_dirs(tmp, "kgb-", NULL);
	rm_stale_pid_dirs(tmp, "kgb-lint-", NULL);
	/* eval's read-only bytecode cache, where the platform has one (cuda): the same imports. */
	pycache = platform_pycache_dir(o->root, platform);
	if (pycache && platform_pycache_fill(o->root, o->python, pycache, &scratch) < 0) {
		free(pycache); /* not fatal: the workers compile what they import */
		pycache = NULL;
	}
	strbuf_reset(&scratch);
	strbuf_addf(&scratch, "%s/kgb-lint-%ld", tmp, (long)getpid());
	env = platform_worker_env(o->root, platform, slots, pycache);
	so.slots = slots;
	so.slot_devices = (const char *const *)slot_dev;
	so.timeout_s = o->timeout_s;
	/* The workers eval starts, in the same view: the catalog hidden from the runner. */
	platform_worker_argv(&argv, o->python, platform);
	so.argv = argv.judge;
	so.runner_argv = argv.runner;
	so.replay_argv = argv.replay;
	kgb_sandbox_view_init(&view, o->root, o->python, platform, "lint");
	kgb_sandbox_view_hide_from_runner(&view, o->tasks_dir);
	kgb_sandbox_view_apply(&view, &so);
	so.env = env;
	so.scratch_root = scratch.buf;
	/*
	 * Only shipped solutions run here, but in the same workers as eval's: the same sandbox
	 * (auto: what this machine allows; lint does not print what it lacks).
	 */
	so.box = sandbox_new(SANDBOX_AUTO);
	sched_default_limits(&so.limits, platform, o->timeout_s, slots);
	r = sched_run(&so, jobs, njobs, on_done, NULL, err);
	sandbox_free(so.box);
	kgb_sandbox_view_release(&view);
	rm_rf(scratch.buf);
	strv_free(env);
	free(pycache);
out:
	sched_slot_devices_free(slot_dev);
	for (size_t i = 0; i < njobs; i++)
		free(djobs[i].line);
	for (size_t i = 0; i < nr; i++)
		case_list_release(&cases[i]);
	free(cases);
	strv_free(sols);
	free(djobs);
	free(jobs);
	strbuf_release(&scratch);
	return r;
}

void deep_result_release(struct deep_result *r)
{
	for (size_t m = 0; m < DEEP_MAX_MUTANTS; m++) {
		free(r->killed[m]);
		r->killed[m] = NULL;
	}
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
