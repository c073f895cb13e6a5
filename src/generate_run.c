/*
 * generate_run.c - a `kgb generate` run from its options (generate_run.h): the task selection,
 * a Slurm run's shards and their options, and the run on this machine around gen_run()
 * (generate.c).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "eval.h"
#include "generate_run.h"
#include "platform.h"
#include "profile.h"
#include "sandbox.h"
#include "slurm_run.h"
#include "store.h"
#include "util/fs.h"
#include "util/parse.h"
#include "util/xalloc.h"

int gen_parse_ks(const char *list, struct gen_run_opts *o)
{
	char *copy = xstrdup(list), *save = NULL;

	o->nr_ks = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long k;

		if (o->nr_ks == GEN_MAX_K || parse_int_range(tok, 1, 1000000, &k) < 0) {
			free(copy);
			return -EINVAL;
		}
		o->ks[o->nr_ks++] = (unsigned)k;
	}
	free(copy);
	return o->nr_ks ? 0 : -EINVAL;
}

int gen_resolve_names(struct gen_run_opts *o)
{
	static const char *const tracks[] = {"sample", "agent", "external"};
	static const enum gen_track track_of[] = {GEN_SAMPLE, GEN_AGENT, GEN_EXTERNAL};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tracks) && strcmp(o->track, tracks[i]); i++)
		;
	if (i == ARRAY_SIZE(tracks))
		return 1;
	o->g.track = track_of[i];
	if (!strcmp(o->api, "openai"))
		o->g.llm.api = LLM_API_OPENAI;
	else if (!strcmp(o->api, "anthropic"))
		o->g.llm.api = LLM_API_ANTHROPIC;
	else
		return 2;
	return 0;
}

int gen_check_opts(const struct gen_run_opts *o, struct strbuf *why)
{
	const struct gen_opts *g = &o->g;
	const char *url = g->llm.base_url;

	if (g->track == GEN_EXTERNAL && !g->agent_cmd)
		strbuf_addstr(why, "--track external needs --agent-cmd");
	else if (g->track != GEN_EXTERNAL && (!g->llm.model || !url))
		strbuf_addstr(why, "--model and --base-url are required");
	else if (g->track != GEN_EXTERNAL && strncmp(url, "http://", 7) &&
		 strncmp(url, "https://", 8))
		strbuf_addf(why, "--base-url: expected http://... or https://..., got '%s'", url);
	/* Found now, not once the run is in the store. */
	else if (g->out_dir && access(g->out_dir, F_OK) == 0 && !path_is_dir(g->out_dir))
		strbuf_addf(why, "--out: '%s' is not a directory", g->out_dir);
	else if (g->track != GEN_SAMPLE && g->samples > 1)
		strbuf_addstr(why, "--samples is for the sample track; the agent tracks run one "
				   "trajectory per task");
	else if (g->llm.budget_usd > 0 && !o->prices)
		strbuf_addstr(why, "--budget-usd needs --prices");
	return why->len ? -EINVAL : 0;
}

int gen_param_add(json_t **params, const char *arg, struct strbuf *err)
{
	const char *eq = strchr(arg, '='), *why;
	char *key;
	json_t *v;

	if (!eq || eq == arg) {
		strbuf_addstr(err, "expected KEY=VALUE");
		return -EINVAL;
	}
	key = xstrndup(arg, (size_t)(eq - arg));
	if (!llm_param_allowed(key, &why)) {
		strbuf_addf(err, "'%s' cannot be set: %s", key, why);
		free(key);
		return -EINVAL;
	}
	v = json_loads(eq + 1, JSON_DECODE_ANY, NULL);
	if (!v)
		v = json_string(eq + 1);
	if (!v) { /* not UTF-8 */
		strbuf_addstr(err, "the value is neither JSON nor a UTF-8 string");
		free(key);
		return -EINVAL;
	}
	if (!*params)
		*params = json_object();
	json_object_set_new(*params, key, v);
	free(key);
	return 0;
}

int gen_select_tasks(const struct gen_run_opts *o, const struct catalog *cat,
		     const struct profile *prof, const struct task ***ret, size_t *ret_nr,
		     struct strbuf *err)
{
	const struct task **sel;
	size_t n = 0;

	for (size_t i = 0; i < o->nr_tasks; i++) {
		if (!catalog_find(cat, o->tasks[i])) {
			strbuf_addf(err, "--task '%s': no such task (see 'kgb list')", o->tasks[i]);
			return -ENOENT;
		}
	}
	sel = xcalloc(cat->nr_tasks + 1, sizeof(*sel));
	for (size_t i = 0; i < cat->nr_tasks; i++)
		if (eval_task_selected(cat, &cat->tasks[i], o->source, o->tasks, o->nr_tasks,
				       prof->runtime, prof))
			sel[n++] = &cat->tasks[i];
	*ret = sel;
	*ret_nr = n;
	return 0;
}

int gen_plan_platform(const struct gen_run_opts *o, const struct slurm_run_opts *sr,
		      const struct catalog *cat, const struct profile *prof, const char *platform,
		      struct slurm_plan *plan)
{
	struct strbuf err = STRBUF_INIT;
	const struct task **sel = NULL;
	size_t nsel = 0;

	if (gen_select_tasks(o, cat, prof, &sel, &nsel, &err) < 0) {
		fprintf(stderr, "kgb generate: %s\n", err.buf);
		strbuf_release(&err);
		return KGB_EXIT_DATA;
	}
	if (!nsel)
		fprintf(stderr, "kgb generate: platform '%s': no task selected, skipping\n",
			platform);
	slurm_run_deal(sr, plan, platform, sel, NULL, nsel);
	free(sel);
	strbuf_release(&err);
	return KGB_EXIT_OK;
}

char **gen_shard_args(const struct gen_run_opts *o)
{
	const struct gen_opts *g = &o->g;
	char **v = xcalloc(1, sizeof(*v));
	struct strbuf ks = STRBUF_INIT;
	size_t n = 0;

	slurm_run_strv_pushf(&v, &n, "--track=%s", o->track);
	if (g->track != GEN_EXTERNAL) {
		slurm_run_strv_pushf(&v, &n, "--api=%s", o->api);
		slurm_run_strv_pushf(&v, &n, "--base-url=%s", g->llm.base_url);
		slurm_run_strv_pushf(&v, &n, "--model=%s", g->llm.model);
	}
	if (o->key_env)
		slurm_run_strv_pushf(&v, &n, "--key-env=%s", o->key_env);
	slurm_run_strv_pushf(&v, &n, "--samples=%u", g->samples);
	slurm_run_strv_pushf(&v, &n, "--rounds=%u", g->rounds);
	for (size_t i = 0; i < o->nr_ks; i++)
		strbuf_addf(&ks, "%s%u", i ? "," : "", o->ks[i]);
	if (ks.len)
		slurm_run_strv_pushf(&v, &n, "--k=%s", ks.buf);
	if (isfinite(g->llm.temperature))
		slurm_run_strv_pushf(&v, &n, "--temperature=%.17g", g->llm.temperature);
	slurm_run_strv_pushf(&v, &n, "--max-tokens=%ld", g->llm.max_tokens);
	if (g->llm.max_tokens_field)
		slurm_run_strv_pushf(&v, &n, "--max-tokens-field=%s",
				     *g->llm.max_tokens_field ? g->llm.max_tokens_field : "none");
	for (size_t i = 0; i < o->nr_params; i++)
		slurm_run_strv_pushf(&v, &n, "--param=%s", o->params[i]);
	slurm_run_strv_pushf(&v, &n, "--concurrency=%u", g->llm.concurrency);
	slurm_run_strv_pushf(&v, &n, "--request-timeout=%.17g", g->llm.timeout_s);
	slurm_run_strv_pushf(&v, &n, "--retries=%u", g->llm.max_retries);
	slurm_run_strv_pushf(&v, &n, "--backoff=%.17g", g->llm.backoff_s);
	if (g->llm.stream)
		slurm_run_strv_push(&v, &n, "--stream");
	if (g->llm.budget_tokens > 0)
		slurm_run_strv_pushf(&v, &n, "--budget-tokens=%lld", g->llm.budget_tokens);
	if (g->llm.budget_usd > 0)
		slurm_run_strv_pushf(&v, &n, "--budget-usd=%.17g", g->llm.budget_usd);
	if (o->prices) {
		char *abs = path_abs(o->prices);

		slurm_run_strv_pushf(&v, &n, "--prices=%s", abs ? abs : o->prices);
		free(abs);
	}
	if (g->task_time_s > 0)
		slurm_run_strv_pushf(&v, &n, "--task-time=%.17g", g->task_time_s);
	if (g->agent_cmd) {
		slurm_run_strv_pushf(&v, &n, "--agent-cmd=%s", g->agent_cmd);
		slurm_run_strv_pushf(&v, &n, "--agent-timeout=%.17g", g->agent_timeout_s);
		slurm_run_strv_pushf(&v, &n, "--agent-sandbox=%s",
				     sandbox_mode_to_string(g->agent_sandbox));
	}
	for (size_t i = 0; i < o->nr_agent_writable; i++)
		slurm_run_strv_pushf(&v, &n, "--agent-writable=%s", o->agent_writable[i]);
	if (o->source)
		slurm_run_strv_pushf(&v, &n, "--source=%s", o->source);
	slurm_run_strv_pushf(&v, &n, "--seed=%llu", g->seed);
	strbuf_release(&ks);
	return v;
}

/* ---- the run on this machine ---- */

/* An absolute form of a path that may not exist yet (the store). */
static char *abs_path(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return xstrdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	return path_join(cwd, path);
}

static char *self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/*
 * The model's prices from --prices into g->llm.price: KGB_EXIT_OK, also when the file has no
 * entry for the model and no --budget-usd needs one (its costs stay unknown), else
 * KGB_EXIT_DATA with err set.
 */
static int load_prices(const struct gen_run_opts *o, struct gen_opts *g, struct strbuf *err)
{
	int r = llm_price_load(o->prices, g->llm.model ? g->llm.model : "", &g->llm.price, err);

	if (r < 0 && (r != -ENOENT || g->llm.budget_usd > 0))
		return KGB_EXIT_DATA;
	strbuf_reset(err);
	return KGB_EXIT_OK;
}

/* The profile that matches this machine, probed; NULL, with the error printed, if none. */
static const struct profile *detect_profile(const struct profile_set *profiles,
					    struct strbuf *err)
{
	char *root = platform_root(), *python = platform_python(root);
	const struct profile *prof;
	json_t *probe = NULL;
	int r = platform_probe(root, python, &probe, err);

	free(root);
	free(python);
	if (r < 0) {
		fprintf(stderr, "kgb generate: %s\n", err->buf);
		return NULL;
	}
	prof = profile_detect(profiles, probe);
	json_decref(probe);
	if (!prof)
		fprintf(stderr, "kgb generate: no platform profile matches this machine (kgb "
			"platforms --detect); name one with --platform\n");
	return prof;
}

/* The run's env in the store: what was asked of whom, never the key (an owned string). */
static char *run_env(const struct gen_run_opts *o, const struct gen_opts *g)
{
	json_t *e = json_pack("{s:s, s:s?, s:s?, s:s?, s:I, s:I, s:I}", "track", o->track, "api",
			      g->track == GEN_EXTERNAL ? NULL : o->api, "model", g->llm.model,
			      "agent_cmd", g->agent_cmd, "samples", (json_int_t)g->samples,
			      "rounds", (json_int_t)g->rounds, "max_tokens",
			      (json_int_t)g->llm.max_tokens);
	char *s;

	json_object_set_new(e, "temperature", num_or_null(g->llm.temperature));
	if (g->track != GEN_EXTERNAL) {
		const char *field = g->llm.max_tokens_field ? g->llm.max_tokens_field
							    : llm_max_tokens_field(g->llm.api);

		json_object_set_new(e, "max_tokens_field", json_string(field));
		json_object_set_new(e, "params", g->llm.params ? json_deep_copy(g->llm.params)
							       : json_object());
	}
	json_object_set_new(e, "base_url",
			    g->llm.base_url ? json_string(g->llm.base_url) : json_null());
	s = json_dumps(e, JSON_COMPACT);
	json_decref(e);
	return s;
}

/*
 * The tasks run as a new run of the store at g->store_path (absolute), their candidates under
 * g->out_dir (default kgb-gen/run-<id>): out->res once gen_run() has run them. A KGB_EXIT_*
 * code, the error printed.
 */
static int run_stored(const struct gen_run_opts *o, struct gen_opts *g,
		      const struct task *const *sel, size_t nsel, struct gen_outcome *out,
		      struct strbuf *err)
{
	struct strbuf out_dir = STRBUF_INIT;
	struct store *st = NULL;
	char *env = run_env(o, g);
	long long run_id = 0;
	int ret = KGB_EXIT_OK, r;

	if (store_open(g->store_path, &st, err) < 0 ||
	    store_run_begin(st, g->platform, "generate", STORE_GENERATE_COMMAND, env, &run_id,
			    err) < 0) {
		fprintf(stderr, "kgb generate: %s\n", err->buf);
		ret = err->len && strstr(err->buf, "locked") ? KGB_EXIT_ENV : KGB_EXIT_DATA;
		goto out;
	}
	if (!g->out_dir) {
		strbuf_addf(&out_dir, "kgb-gen/run-%lld", run_id);
		g->out_dir = out_dir.buf;
	}
	r = gen_run(g, sel, nsel, run_id, &out->res, err);
	if (r < 0) {
		fprintf(stderr, "kgb generate: %s\n", err->buf);
		ret = r == -EBADMSG ? KGB_EXIT_DATA : KGB_EXIT_ENV; /* a task's prompt.md */
		goto out;
	}
	out->nr_res = nsel;
	if (store_run_end(st, run_id, err) < 0) {
		fprintf(stderr, "kgb generate: %s\n", err->buf);
		ret = KGB_EXIT_DATA;
	}
	/*
	 * A shard's store is read from other hosts (kgb status, the merge): once its children are
	 * done, from WAL to the rollback journal (docs/cluster.md).
	 */
	if (ret == KGB_EXIT_OK && o->shard && store_use_rollback_journal(st, err) < 0) {
		fprintf(stderr, "kgb generate: %s\n", err->buf);
		ret = KGB_EXIT_ENV;
	}
out:
	store_free(st);
	strbuf_release(&out_dir);
	free(env);
	return ret;
}

/* The selected tasks of prof into *ret_sel: KGB_EXIT_OK, or KGB_EXIT_DATA (printed). */
static int select_local(const struct gen_run_opts *o, const struct catalog *cat,
			const struct profile *prof, const struct task ***ret_sel, size_t *ret_nr)
{
	struct strbuf why = STRBUF_INIT;
	int r = gen_select_tasks(o, cat, prof, ret_sel, ret_nr, &why);

	if (r < 0)
		fprintf(stderr, "kgb generate: %s\n", why.buf);
	else if (!*ret_nr)
		fprintf(stderr, "kgb generate: no task selected on platform '%s'\n", prof->name);
	strbuf_release(&why);
	return r < 0 || !*ret_nr ? KGB_EXIT_DATA : KGB_EXIT_OK;
}

int gen_execute(const struct gen_run_opts *o, struct kgb_ctx *ctx, struct gen_outcome *out)
{
	struct gen_opts g = o->g;
	struct strbuf err = STRBUF_INIT;
	const struct task **sel = NULL;
	struct profile_set profiles = {0};
	const struct profile *prof = NULL;
	char *exe = NULL, *tasks_abs = NULL, *store_abs = NULL;
	const char *key_env;
	size_t nsel = 0;
	int ret = KGB_EXIT_OK;

	memset(out, 0, sizeof(*out));
	key_env = o->key_env ? o->key_env
			     : g.llm.api == LLM_API_OPENAI ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
	g.llm.key = getenv(key_env);
	if (o->prices && (ret = load_prices(o, &g, &err)) != KGB_EXIT_OK) {
		fprintf(stderr, "kgb generate: %s\n", err.buf);
		goto out;
	}
	if ((ret = kgb_load_profiles(ctx, "generate", &profiles)) != KGB_EXIT_OK)
		goto out;
	if (g.platform && !(prof = kgb_platform_arg(&profiles, "generate", g.platform, &ret)))
		goto out;
	out->cat = kgb_load_catalog(ctx, &ret);
	if (!out->cat)
		goto out;
	if (!prof && !(prof = detect_profile(&profiles, &err))) {
		ret = KGB_EXIT_ENV;
		goto out;
	}
	if (!profile_runnable(prof)) {
		fprintf(stderr, "kgb generate: platform '%s' has no worker runtime in kgb yet "
			"(runtime '%s'; docs/platforms.md)\n", prof->name, prof->runtime);
		ret = KGB_EXIT_ENV;
		goto out;
	}
	g.platform = prof->name;
	g.platform_prompt = prof->prompt;
	if ((ret = select_local(o, out->cat, prof, &sel, &nsel)) != KGB_EXIT_OK)
		goto out;
	exe = self_exe();
	tasks_abs = path_abs(ctx->tasks_dir);
	if (!g.store_path)
		g.store_path = getenv("KGB_STORE") ? getenv("KGB_STORE") : "kgb-results.db";
	store_abs = abs_path(g.store_path);
	if (!exe || !tasks_abs || !store_abs) {
		fprintf(stderr, "kgb generate: cannot resolve this binary, the catalog or the store\n");
		ret = KGB_EXIT_ENV;
		goto out;
	}
	g.kgb_exe = exe;
	g.tasks_dir = tasks_abs;
	g.kgb_root = ctx->root;
	g.store_path = store_abs;
	g.verbose = ctx->verbose;
	ret = run_stored(o, &g, sel, nsel, out, &err);
out:
	profile_set_release(&profiles);
	free(sel);
	free(exe);
	free(tasks_abs);
	free(store_abs);
	strbuf_release(&err);
	return ret;
}

void gen_outcome_release(struct gen_outcome *out)
{
	for (size_t i = 0; out->res && i < out->nr_res; i++)
		gen_task_result_release(&out->res[i]);
	free(out->res);
	catalog_free(out->cat);
	memset(out, 0, sizeof(*out));
}
