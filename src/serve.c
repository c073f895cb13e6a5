/*
 * serve.c - the verification service's state, submissions and queue worker (serve.h).
 */
#include "serve.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "cases.h"
#include "catalog.h"
#include "eval.h"
#include "platform.h"
#include "precheck.h"
#include "prompt.h"
#include "report.h"
#include "store.h"
#include "store_queue.h"
#include "verdict.h"
#include "util/fs.h"
#include "util/xalloc.h"

const double serve_lat_bounds[SERVE_LAT_BUCKETS] = {1, 2, 5, 10, 30, 60, 120, 300, 600, 1800};
const double serve_acc_bounds[SERVE_ACC_BUCKETS] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double serve_reward(const char *verdict, double speedup)
{
	double l;

	if (!verdict)
		return NAN;
	if (verdict_is_pass(verdict)) {
		/* Untimed (a correctness-only platform): correctness is the whole reward. */
		if (!isfinite(speedup) || speedup <= 0)
			return 1;
		l = log2(speedup);
		return 1 + 0.5 * (l < -1 ? -1 : l > 1 ? 1 : l);
	}
	if (verdict_is(verdict, VERDICT_HACK))
		return -1;
	/* The task's fault (ref_error), no judgement (skipped, degenerate), the machine's. */
	if (verdict_counts(verdict) != V_FAIL || verdict_of(verdict) == VERDICT_UNKNOWN)
		return NAN;
	return 0;
}

void serve_token_digest(const char *token, size_t len, char out[HASH_HEX_LEN + 1])
{
	struct hash h;

	hash_init(&h);
	hash_update(&h, "kgb-serve-token-v1", 18);
	hash_update(&h, token, len);
	hash_hex(&h, out);
}

int serve_load_tokens(struct serve *s, const char *path, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;
	int r = strbuf_read_file(&sb, path, 1 << 20);

	if (r < 0) {
		strbuf_addf(err, "--tokens '%s': %s", path, strerror(-r));
		strbuf_release(&sb);
		return r;
	}
	for (line = strtok_r(sb.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len;

		while (*line == ' ' || *line == '\t')
			line++;
		len = strlen(line);
		while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
			len--;
		if (!len || line[0] == '#')
			continue;
		s->tokens = xrealloc(s->tokens, (s->nr_tokens + 1) * sizeof(*s->tokens));
		serve_token_digest(line, len, s->tokens[s->nr_tokens++]);
	}
	/* The tokens themselves leave memory with the buffer. */
	OPENSSL_cleanse(sb.buf, sb.len);
	strbuf_release(&sb);
	if (!s->nr_tokens) {
		strbuf_addf(err, "--tokens '%s': no token in it (one per line)", path);
		return -EINVAL;
	}
	return 0;
}

bool serve_auth(const struct serve *s, const char *authorization, char out[HASH_HEX_LEN + 1])
{
	const char *tok;
	bool ok = false;

	if (!s->nr_tokens) {
		out[0] = '\0'; /* no --tokens: one anonymous client */
		return true;
	}
	if (!authorization || strncasecmp(authorization, "Bearer ", 7))
		return false;
	tok = authorization + 7;
	while (*tok == ' ')
		tok++;
	if (!*tok)
		return false;
	serve_token_digest(tok, strlen(tok), out);
	/* Compared in constant time, every digest: no timing tells which one came close. */
	for (size_t i = 0; i < s->nr_tokens; i++)
		ok |= CRYPTO_memcmp(out, s->tokens[i], HASH_HEX_LEN) == 0;
	return ok;
}

json_t *serve_error(int status, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	json_t *j;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	j = json_pack("{s:{s:i, s:s}}", "error", "status", status, "message", sb.buf);
	strbuf_release(&sb);
	return j;
}

void serve_count_refused(struct serve *s, int status)
{
	char k[16];
	json_t *v;

	snprintf(k, sizeof(k), "%d", status);
	pthread_mutex_lock(&s->lock);
	v = json_object_get(s->refused, k);
	json_object_set_new(s->refused, k, json_integer(v ? json_integer_value(v) + 1 : 1));
	pthread_mutex_unlock(&s->lock);
}

static void observe(long long *counts, const double *bounds, size_t nb, double *sum,
		    long long *n, double x)
{
	size_t i = 0;

	while (i < nb && x > bounds[i])
		i++;
	counts[i]++;
	*sum += x;
	(*n)++;
}

void serve_count_accept(struct serve *s, double seconds)
{
	pthread_mutex_lock(&s->lock);
	observe(s->acc_counts, serve_acc_bounds, SERVE_ACC_BUCKETS, &s->acc_sum, &s->acc_n,
		seconds);
	pthread_mutex_unlock(&s->lock);
}

/* A finished submission's verdict (NULL: not evaluated) and latency, for /metrics. */
static void count_done(struct serve *s, const char *verdict, double latency_s)
{
	const char *k = verdict ? verdict : "not_evaluated";
	json_t *v;

	pthread_mutex_lock(&s->lock);
	v = json_object_get(s->completed, k);
	json_object_set_new(s->completed, k, json_integer(v ? json_integer_value(v) + 1 : 1));
	if (latency_s >= 0)
		observe(s->lat_counts, serve_lat_bounds, SERVE_LAT_BUCKETS, &s->lat_sum, &s->lat_n,
			latency_s);
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
}

/* ---- startup ---- */

int serve_init(struct serve *s, const struct serve_opts *o, struct kgb_ctx *kctx)
{
	struct strbuf err = STRBUF_INIT;
	struct store *st = NULL;
	bool made_spool = false;
	long long n = 0;
	int ret;

	memset(s, 0, sizeof(*s));
	s->o = *o;
	s->kctx = *kctx;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->changed, NULL);
	pthread_cond_init(&s->work, NULL);
	s->completed = json_object();
	s->refused = json_object();
	s->python = o->python ? xstrdup(o->python) : platform_python(kctx->root);
	s->pre = precheck_new(s->python, kctx->root);
	if (o->tokens_path && serve_load_tokens(s, o->tokens_path, &err) < 0) {
		fprintf(stderr, "kgb serve: %s\n", err.buf);
		ret = KGB_EXIT_USAGE;
		goto out;
	}
	if ((ret = kgb_load_profiles(kctx, "serve", &s->profiles)) != KGB_EXIT_OK)
		goto out;
	if (o->platform) {
		if (!(s->prof = kgb_platform_arg(&s->profiles, "serve", o->platform, &ret)))
			goto out;
	} else {
		json_t *probe = NULL;

		if (platform_probe(kctx->root, s->python, &probe, &err) < 0) {
			fprintf(stderr, "kgb serve: %s\n", err.buf);
			ret = KGB_EXIT_ENV;
			goto out;
		}
		s->prof = profile_detect(&s->profiles, probe);
		json_decref(probe);
		if (!s->prof) {
			fprintf(stderr, "kgb serve: no platform profile matches this machine (kgb "
				"platforms --detect); name one with --platform\n");
			ret = KGB_EXIT_ENV;
			goto out;
		}
	}
	if (!(s->cat = kgb_load_catalog(kctx, &ret)))
		goto out;
	{
		struct strbuf sp = STRBUF_INIT;

		if (o->spool)
			strbuf_addstr(&sp, o->spool);
		else
			strbuf_addf(&sp, "%s.spool", o->store_path);
		made_spool = !path_is_dir(sp.buf);
		if (mkdir_p(sp.buf, 0700) < 0 || !(s->spool = path_abs(sp.buf))) {
			fprintf(stderr, "kgb serve: cannot make the spool directory '%s'\n", sp.buf);
			strbuf_release(&sp);
			ret = KGB_EXIT_ENV;
			goto out;
		}
		strbuf_release(&sp);
	}
	/* The store's own tables first (store_open makes and migrates them), then the queue's. */
	if (store_open(o->store_path, &st, &err) < 0 ||
	    store_queue_open(o->store_path, &s->q, &err) < 0 ||
	    store_queue_recover(s->q, &n, &err) < 0) {
		fprintf(stderr, "kgb serve: %s\n", err.buf);
		/* A server that did not start leaves no spool of its own (empty yet: rmdir). */
		if (made_spool)
			rmdir(s->spool);
		ret = KGB_EXIT_ENV;
		goto out;
	}
	if (n)
		fprintf(stderr, "kgb serve: %lld submission%s of a stopped server queued again\n", n,
			n == 1 ? "" : "s");
	/* The seed of `ranked` runs: the machine's randomness, kept in this process only. */
	if (getrandom(&s->secret_seed, sizeof(s->secret_seed), 0) != sizeof(s->secret_seed)) {
		fprintf(stderr, "kgb serve: getrandom: %s\n", strerror(errno));
		ret = KGB_EXIT_ENV;
		goto out;
	}
	ret = KGB_EXIT_OK;
out:
	store_free(st);
	strbuf_release(&err);
	return ret;
}

void serve_release(struct serve *s)
{
	precheck_free(s->pre);
	store_queue_free(s->q);
	catalog_free(s->cat);
	profile_set_release(&s->profiles);
	free(s->tokens);
	free(s->python);
	free(s->spool);
	json_decref(s->completed);
	json_decref(s->refused);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->changed);
	pthread_cond_destroy(&s->work);
	OPENSSL_cleanse(&s->secret_seed, sizeof(s->secret_seed));
}

/* ---- the queue worker ---- */

static const char *op_of(const char *task)
{
	const char *slash = strchr(task, '/');

	return slash ? slash + 1 : task;
}

/* The engine's per-candidate hook: one log line per candidate (no token, no code). */
static void log_event(void *data, const struct eval_event *ev)
{
	const struct serve *s = data;

	if (ev->checked_only || s->kctx.verbose < 0)
		return;
	fprintf(stderr, "kgb serve: %s %s/%s: %s (%.0f ms)\n", ev->sample_shown, ev->task->source,
		ev->task->op, ev->verdict, ev->wall_ms);
}

json_t *serve_run_records(struct store *st, long long run_id, const char *platform,
			  const char *store_path, struct strbuf *err)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *by = json_object();
	int r;

	if (!f) {
		strbuf_addf(err, "open_memstream: %s", strerror(errno));
		json_decref(by);
		return NULL;
	}
	r = report_from_store(f, st, run_id, platform, store_path, 0, NULL, true, NULL, err);
	fclose(f);
	if (r < 0) {
		free(buf);
		json_decref(by);
		return NULL;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *rec = json_loads(line, 0, NULL);
		const char *sample = json_string_value(json_object_get(rec, "sample"));

		if (sample && !strcmp(json_string_value(json_object_get(rec, "schema")),
				      "kgb.eval.v1")) {
			/* Paths on this server are no business of the client's. */
			json_object_set_new(rec, "candidate", json_null());
			json_object_set(by, sample, rec);
		}
		json_decref(rec);
	}
	free(buf);
	return by;
}

/* The stored result of a submission: {"result": rec|null, "reward": x|null, ...}. */
static char *result_text(json_t *rec, const char *error)
{
	const char *verdict = json_string_value(json_object_get(rec, "verdict"));
	json_t *sp = json_object_get(rec, "speedup");
	double reward = serve_reward(verdict, json_is_number(sp) ? json_number_value(sp) : NAN);
	json_t *o = json_object();
	char *text;

	json_object_set(o, "result", rec ? rec : json_null());
	json_object_set_new(o, "reward", isnan(reward) ? json_null() : json_real(reward));
	if (error) {
		json_object_set_new(o, "not_evaluated", json_true());
		json_object_set_new(o, "error", json_string(error));
	}
	text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return text;
}

static void finish(struct serve *s, struct store_sub *sub, json_t *rec, const char *error)
{
	struct strbuf err = STRBUF_INIT;
	char *text = result_text(rec, error);

	if (store_queue_finish(s->q, sub->id, text, &err) < 0)
		fprintf(stderr, "kgb serve: %s: %s\n", sub->id, err.buf);
	count_done(s, json_string_value(json_object_get(rec, "verdict")),
		   now_s() - sub->created_at);
	free(text);
	strbuf_release(&err);
}

/* Back to the queue (the machine failed its batch): a later batch runs it. */
static void requeue(struct serve *s, const struct store_sub *sub)
{
	struct strbuf err = STRBUF_INIT;

	if (store_queue_requeue(s->q, sub->id, &err) < 0)
		fprintf(stderr, "kgb serve: %s: %s\n", sub->id, err.buf);
	strbuf_release(&err);
}

/* Writes one candidate of a batch as <dir>/<op>/<id>.py. */
static int write_candidate(const char *dir, const struct store_sub *sub, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	FILE *f;
	int r;

	strbuf_addf(&p, "%s/%s", dir, op_of(sub->task));
	if ((r = mkdir_p(p.buf, 0700)) < 0) {
		strbuf_addf(err, "cannot make '%s': %s", p.buf, strerror(-r));
		strbuf_release(&p);
		return r;
	}
	strbuf_addf(&p, "/%s.py", sub->id);
	f = fopen(p.buf, "wxe");
	if (!f || fputs(sub->code, f) < 0 || fclose(f) != 0) {
		strbuf_addf(err, "cannot write '%s': %s", p.buf, strerror(errno));
		strbuf_release(&p);
		return -EIO;
	}
	strbuf_release(&p);
	return 0;
}

/*
 * One eval_run() of the candidates v[0..n), written to <spool>/<name>: under the submissions'
 * own options, or (`secret`) on the regular and held-out cases under the server's secret
 * seed. Returns the records by submission id (the caller's to release), or NULL with
 * *ret_exit eval_run()'s exit code (or KGB_EXIT_ENV when the candidates could not be written).
 */
static json_t *eval_phase(struct serve *s, struct store_sub *const *v, size_t n,
			  const char *name, bool secret, int *ret_exit)
{
	struct eval_hooks hooks = {.candidate = log_event, .data = s};
	struct eval_opts eo = {.cmd = "serve"};
	struct eval_outcome out = {0};
	struct strbuf dir = STRBUF_INIT, err = STRBUF_INIT, cmdline = STRBUF_INIT;
	const char **tasks = xcalloc(n, sizeof(*tasks));
	json_t *opts = json_loads(v[0]->options, 0, NULL), *recs = NULL;
	size_t nt = 0;
	int r = KGB_EXIT_ENV;

	strbuf_addf(&dir, "%s/%s", s->spool, name);
	(void)rm_rf(dir.buf); /* a killed server's */
	for (size_t i = 0; i < n; i++)
		if (write_candidate(dir.buf, v[i], &err) < 0) {
			fprintf(stderr, "kgb serve: %s\n", err.buf);
			goto out;
		}
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t k = 0; k < nt; k++)
			seen |= !strcmp(tasks[k], v[i]->task);
		if (!seen)
			tasks[nt++] = v[i]->task;
	}
	eo.solutions = dir.buf;
	eo.tasks = tasks;
	eo.nr_tasks = nt;
	eo.platform = s->prof->name;
	eo.store_path = s->o.store_path;
	eo.python = s->python;
	eo.slots = s->o.slots;
	eo.timeout_s = s->o.timeout_s;
	eo.memory_mib = s->o.memory_mib;
	eo.sandbox = s->o.sandbox;
	eo.standby = -1;
	eo.prechecked = true; /* at submission (serve_submit) */
	if (secret) {
		/* Held-out cases under the server's secret seed: the only numbers that count. */
		eo.heldout = true;
		eo.seed = s->secret_seed;
	} else {
		eo.heldout = json_is_true(json_object_get(opts, "heldout"));
		eo.seed = (unsigned long long)json_integer_value(json_object_get(opts, "seed"));
	}
	strbuf_addf(&cmdline, "kgb serve (%s of %zu from %s)", secret ? "ranked run" : "batch", n,
		    v[0]->id);
	eo.cmdline = cmdline.buf;
	if (s->o.slurm) {
		/* Its own directory per phase: shards of a killed server's run write elsewhere. */
		strbuf_addf(&err, "%s/%s-run-%lld", s->spool, name, (long long)time(NULL));
		recs = serve_slurm_phase(s, &eo, err.buf, &r);
		strbuf_reset(&err);
		goto out;
	}
	r = eval_run(&eo, &s->kctx, &hooks, &out);
	if (r == KGB_EXIT_OK)
		recs = serve_run_records(out.store, out.run_id, out.platform, s->o.store_path,
					 &err);
	if (r == KGB_EXIT_OK && !recs)
		fprintf(stderr, "kgb serve: reading the batch's results: %s\n", err.buf);
	eval_outcome_release(&out);
out:
	(void)rm_rf(dir.buf);
	json_decref(opts);
	free(tasks);
	strbuf_release(&dir);
	strbuf_release(&err);
	strbuf_release(&cmdline);
	*ret_exit = r;
	return recs;
}

/* Each submission of a phase ends done with its record, or goes back to the queue. */
static void settle(struct serve *s, struct store_sub *const *v, size_t n, json_t *recs,
		   int exit_code)
{
	for (size_t i = 0; i < n; i++) {
		json_t *rec = json_object_get(recs, v[i]->id);

		if (rec)
			finish(s, v[i], rec, NULL);
		else if (v[i]->attempts < 3 && exit_code != KGB_EXIT_DATA &&
			 exit_code != KGB_EXIT_USAGE)
			requeue(s, v[i]);
		else
			finish(s, v[i], NULL, "not evaluated: the engine failed on it (see the "
			       "server's log); submit it again once the machine is fixed");
	}
}

/*
 * One batch through eval_run(); every submission of it ends done, or queued again. A `ranked`
 * batch runs twice: first as submitted (seed 0, the public cases), then the candidates that
 * passed again on the held-out cases under the secret seed, whose record alone is their
 * result; one that fails the first run has that run's record (it pays no held-out cases).
 */
static void run_batch(struct serve *s, struct store_sub *v, size_t n)
{
	struct store_sub **all = xcalloc(n, sizeof(*all)), **passed = xcalloc(n, sizeof(*passed));
	json_t *opts = json_loads(v[0].options, 0, NULL), *recs, *ranked_recs;
	bool ranked = json_is_true(json_object_get(opts, "ranked"));
	struct strbuf name = STRBUF_INIT;
	size_t np = 0;
	int r, r2;

	for (size_t i = 0; i < n; i++)
		all[i] = &v[i];
	strbuf_addf(&name, "batch-%lld", v[0].seq);
	pthread_mutex_lock(&s->lock);
	s->in_flight = (long long)n;
	s->batches++;
	pthread_mutex_unlock(&s->lock);
	recs = eval_phase(s, all, n, name.buf, false, &r);
	if (!ranked) {
		settle(s, all, n, recs, r);
	} else {
		for (size_t i = 0; i < n; i++) {
			json_t *rec = json_object_get(recs, v[i].id);
			const char *verdict = json_string_value(json_object_get(rec, "verdict"));

			if (verdict && verdict_is_pass(verdict))
				passed[np++] = &v[i];
			else if (rec)
				finish(s, &v[i], rec, NULL);
			else
				settle(s, &all[i], 1, NULL, r);
		}
		if (np) {
			strbuf_addstr(&name, "-ranked");
			ranked_recs = eval_phase(s, passed, np, name.buf, true, &r2);
			settle(s, passed, np, ranked_recs, r2);
			json_decref(ranked_recs);
		}
	}
	pthread_mutex_lock(&s->lock);
	s->in_flight = 0;
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
	json_decref(recs);
	json_decref(opts);
	strbuf_release(&name);
	free(all);
	free(passed);
}

static void *worker_main(void *data)
{
	struct serve *s = data;

	for (;;) {
		struct strbuf err = STRBUF_INIT;
		struct store_sub *v = NULL;
		size_t n = 0;
		int r;

		pthread_mutex_lock(&s->lock);
		if (s->stopping) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		pthread_mutex_unlock(&s->lock);
		r = store_queue_claim(s->q, s->o.batch_size, &v, &n, &err);
		if (r < 0)
			fprintf(stderr, "kgb serve: %s\n", err.buf);
		strbuf_release(&err);
		if (n) {
			run_batch(s, v, n);
			store_subs_free(v, n);
			continue;
		}
		store_subs_free(v, n);
		/* Nothing queued: sleep until a submission (or a second, for safety). */
		pthread_mutex_lock(&s->lock);
		if (!s->stopping) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += r < 0 ? 5 : 1;
			pthread_cond_timedwait(&s->work, &s->lock, &ts);
		}
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

int serve_start(struct serve *s)
{
	if (pthread_create(&s->worker, NULL, worker_main, s) != 0)
		return -EAGAIN;
	s->worker_started = true;
	return 0;
}

void serve_stop(struct serve *s)
{
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_broadcast(&s->work);
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
	if (s->worker_started)
		pthread_join(s->worker, NULL);
	s->worker_started = false;
}

/* ---- requests ---- */

/* The response body of a submission row. */
static json_t *sub_json(struct serve *s, const struct store_sub *row)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:f}", "id", row->id, "status", row->state,
			      "task", row->task, "platform", row->platform, "created_at",
			      row->created_at);
	json_t *opts = json_loads(row->options, 0, NULL);
	struct strbuf err = STRBUF_INIT;

	json_object_set_new(o, "options", opts ? opts : json_object());
	json_object_set_new(o, "client_request_id", row->client_request_id
							    ? json_string(row->client_request_id)
							    : json_null());
	json_object_set_new(o, "started_at", row->started_at > 0 ? json_real(row->started_at)
								 : json_null());
	json_object_set_new(o, "finished_at", row->finished_at > 0 ? json_real(row->finished_at)
								   : json_null());
	if (!strcmp(row->state, "queued")) {
		long long pos = 0;

		if (store_queue_position(s->q, row->seq, &pos, &err) == 0)
			json_object_set_new(o, "queue_position", json_integer(pos));
		else
			json_object_set_new(o, "queue_position", json_null());
	} else {
		json_object_set_new(o, "queue_position", json_null());
	}
	if (row->result) {
		json_t *res = json_loads(row->result, 0, NULL);
		const char *k;
		json_t *v;

		json_object_foreach(res, k, v)
			json_object_set(o, k, v);
		json_decref(res);
	} else {
		json_object_set_new(o, "result", json_null());
		json_object_set_new(o, "reward", json_null());
	}
	strbuf_release(&err);
	return o;
}

/* Runs the static precheck on code (task t): *ret (new) its answer. -errno with err set. */
static int precheck(struct serve *s, const struct task *t, const char *id, const char *code,
		    json_t **ret, struct strbuf *err)
{
	struct strbuf file = STRBUF_INIT;
	json_t *none = json_array();
	FILE *f;
	int r;

	strbuf_addf(&file, "%s/incoming", s->spool);
	if (mkdir_p(file.buf, 0700) < 0) {
		/* Said by fopen below. */
	}
	strbuf_addf(&file, "/%s.py", id);
	f = fopen(file.buf, "we");
	if (!f || fputs(code, f) < 0 || fclose(f) != 0) {
		strbuf_addf(err, "cannot write '%s': %s", file.buf, strerror(errno));
		r = -EIO;
	} else {
		r = precheck_ask(s->pre, file.buf, t->allow ? t->allow : none,
				 SERVE_PRECHECK_TIMEOUT_S, ret, err) < 0 ? -EIO : 0;
		unlink(file.buf);
	}
	json_decref(none);
	strbuf_release(&file);
	return r;
}

/* 32 random hex digits. */
static void new_id(char out[STORE_QUEUE_ID_LEN + 1])
{
	unsigned char b[STORE_QUEUE_ID_LEN / 2];

	if (getrandom(b, sizeof(b), 0) != sizeof(b)) {
		/* Never happens for 16 bytes once the pool is ready; still unique-ish. */
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)rand();
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* The task named by a request, or NULL with the 404/422 error in *ret_body. */
static const struct task *request_task(struct serve *s, const char *name, int *ret_status,
				       json_t **ret_body)
{
	const struct task *t = catalog_find(s->cat, name);

	if (!t) {
		*ret_status = 404;
		*ret_body = serve_error(404, "unknown task '%s' (GET /v1/tasks lists them)", name);
		return NULL;
	}
	if (!eval_task_selected(s->cat, t, NULL, NULL, 0, s->prof->runtime, s->prof)) {
		*ret_status = 422;
		*ret_body = serve_error(422, "task '%s/%s' does not run on this server's platform "
					"'%s'", t->source, t->op, s->prof->name);
		return NULL;
	}
	return t;
}

static bool has_heldout(const struct task *t)
{
	struct strbuf err = STRBUF_INIT;
	struct case_list l = {0};
	bool any = false;

	if (cases_generate(t, CASES_HELDOUT, 0, &l, &err) == 0)
		for (size_t k = 0; k < l.nr; k++)
			any |= l.v[k].heldout;
	case_list_release(&l);
	strbuf_release(&err);
	return any;
}

/* A submission's fields, checked (parse_submission); the strings belong to the request. */
struct submission {
	const struct task *task;
	const char *code;
	size_t code_len;
	const char *client_request_id; /* or NULL */
	json_t *seed;		       /* the request's, or NULL */
	bool heldout, ranked;
};

/*
 * Check a POST /v1/evaluations body into `sub`: 0, or -1 with the 4xx status and JSON error
 * that say what was wrong.
 */
static int parse_submission(struct serve *s, json_t *req, struct submission *sub,
			    int *ret_status, json_t **ret_body)
{
	static const char *const known[] = {"task", "code", "seed", "heldout", "ranked",
					    "client_request_id", NULL};
	json_t *jtask, *jcode, *jheld, *jrank, *jcrid, *v;
	const char *key;

	if (!json_is_object(req)) {
		*ret_status = 400;
		*ret_body = serve_error(400, "body: expected a JSON object");
		return -1;
	}
	*ret_status = 422;
	json_object_foreach(req, key, v) {
		bool ok = false;

		for (const char *const *k = known; *k; k++)
			ok |= !strcmp(*k, key);
		if (!ok) {
			*ret_body = serve_error(422, "unknown field '%s' (fields: task, code, seed, "
						"heldout, ranked, client_request_id)", key);
			return -1;
		}
	}
	jtask = json_object_get(req, "task");
	jcode = json_object_get(req, "code");
	sub->seed = json_object_get(req, "seed");
	jheld = json_object_get(req, "heldout");
	jrank = json_object_get(req, "ranked");
	jcrid = json_object_get(req, "client_request_id");
	if (!json_is_string(jtask) || !*json_string_value(jtask)) {
		*ret_body = serve_error(422, "'task': %s (a task name: \"add\" or \"aten/add\")",
					jtask ? "expected a non-empty string" : "required");
		return -1;
	}
	if (!json_is_string(jcode)) {
		*ret_body = serve_error(422, "'code': %s (the candidate's Python source)",
					jcode ? "expected a string" : "required");
		return -1;
	}
	sub->code = json_string_value(jcode);
	sub->code_len = json_string_length(jcode);
	if (sub->code_len > s->o.max_code_bytes) {
		*ret_status = 413;
		*ret_body = serve_error(413, "'code': %zu bytes, this server takes at most %zu",
					sub->code_len, s->o.max_code_bytes);
		return -1;
	}
	if (sub->seed && (!json_is_integer(sub->seed) || json_integer_value(sub->seed) < 0)) {
		*ret_body = serve_error(422, "'seed': expected a non-negative integer");
		return -1;
	}
	if ((jheld && !json_is_boolean(jheld)) || (jrank && !json_is_boolean(jrank))) {
		*ret_body = serve_error(422, "'%s': expected true or false",
					jheld && !json_is_boolean(jheld) ? "heldout" : "ranked");
		return -1;
	}
	sub->heldout = json_is_true(jheld);
	sub->ranked = json_is_true(jrank);
	if (sub->ranked && (sub->seed || jheld)) {
		*ret_body = serve_error(422, "'ranked': runs on the server's secret seed and "
					"held-out cases; leave out 'seed' and 'heldout'");
		return -1;
	}
	if (jcrid) {
		if (!json_is_string(jcrid) || !json_string_length(jcrid) ||
		    json_string_length(jcrid) > SERVE_CRID_MAX) {
			*ret_body = serve_error(422, "'client_request_id': expected a string of 1 "
						"to %d bytes", SERVE_CRID_MAX);
			return -1;
		}
		sub->client_request_id = json_string_value(jcrid);
	}
	if (!(sub->task = request_task(s, json_string_value(jtask), ret_status, ret_body)))
		return -1;
	if ((sub->heldout || sub->ranked) && !has_heldout(sub->task)) {
		*ret_status = 422;
		*ret_body = serve_error(422, "task '%s/%s' has no held-out cases: 'heldout' and "
					"'ranked' need them", sub->task->source, sub->task->op);
		return -1;
	}
	return 0;
}

/* The stored result of a candidate the precheck refused (`pre`: its verdict and detail). */
static char *refused_result(struct serve *s, const struct task *t, const char *id, json_t *pre)
{
	json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:O, s:O, s:i, s:i, s:i, s:n, s:n, s:n, "
				"s:s, s:n, s:n, s:b, s:i, s:n, s:f, s:s, s:o}",
				"schema", "kgb.eval.v1", "task", t->op, "source", t->source,
				"sample", id, "verdict", json_object_get(pre, "verdict"),
				"detail", json_object_get(pre, "detail"), "cases_total", 0,
				"cases_passed", 0, "timed_cases", 0, "speedup", "max_tol_use",
				"first_failure", "platform", s->prof->runtime, "key",
				"candidate", "reused", 0, "cases_skipped", 0, "sol_fraction",
				"wall_ms", 0.0, "stage", "submission", "entries", json_object());
	char *text;

	if (json_object_get(pre, "findings"))
		json_object_set(rec, "findings", json_object_get(pre, "findings"));
	text = result_text(rec, NULL);
	json_decref(rec);
	return text;
}

void serve_submit(struct serve *s, const char *token, json_t *req, int *ret_status,
		  json_t **ret_body)
{
	struct strbuf err = STRBUF_INIT;
	struct store_sub row = {0}, prev = {0};
	struct submission sub = {0};
	json_t *opts, *pre = NULL;
	const struct task *t;
	const char *code, *crid;
	char task_name[512], hash[HASH_HEX_LEN + 1], *opts_text = NULL;
	size_t code_len;
	long long nq = 0;
	struct hash h;

	*ret_body = NULL;
	if (parse_submission(s, req, &sub, ret_status, ret_body) < 0)
		return;
	t = sub.task;
	code = sub.code;
	code_len = sub.code_len;
	crid = sub.client_request_id;
	snprintf(task_name, sizeof(task_name), "%s/%s", t->source, t->op);
	hash_init(&h);
	hash_update(&h, code, code_len);
	hash_hex(&h, hash);
	opts = json_pack("{s:b, s:b, s:I}", "heldout", sub.heldout, "ranked", sub.ranked, "seed",
			 sub.seed ? (json_int_t)json_integer_value(sub.seed) : (json_int_t)0);
	opts_text = json_dumps(opts, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(opts);

	/* A retry of a request this client made: the same answer. */
	if (crid && store_queue_find_client(s->q, token, crid, &prev, &err) == 0) {
		if (strcmp(prev.task, task_name) || strcmp(prev.code_hash, hash) ||
		    strcmp(prev.options, opts_text)) {
			*ret_status = 409;
			*ret_body = serve_error(409, "client_request_id '%s' was used for another "
						"submission (%s)", crid, prev.id);
		} else {
			*ret_status = strcmp(prev.state, "done") ? 202 : 200;
			*ret_body = sub_json(s, &prev);
		}
		goto out;
	}
	/* Content-addressed: the same candidate, task and options are judged once. */
	if (store_queue_find_same(s->q, task_name, hash, opts_text, s->prof->name, &prev, &err) ==
	    0) {
		*ret_status = strcmp(prev.state, "done") ? 202 : 200;
		*ret_body = sub_json(s, &prev);
		json_object_set_new(*ret_body, "duplicate", json_true());
		goto out;
	}
	if (store_queue_count(s->q, token, "queued", &nq, &err) == 0) {
		long long nr = 0;

		if (store_queue_count(s->q, token, "running", &nr, &err) == 0)
			nq += nr;
	}
	if (nq >= s->o.max_queued) {
		*ret_status = 429;
		*ret_body = serve_error(429, "this token has %lld submissions queued or running, "
					"the most it may have; retry after some finish", nq);
		goto out;
	}
	if (store_queue_count(s->q, NULL, "queued", &nq, &err) == 0 && nq >= s->o.max_queue) {
		*ret_status = 429;
		*ret_body = serve_error(429, "the server's queue is full (%lld submissions); retry "
					"later", nq);
		goto out;
	}
	new_id(row.id);
	if (precheck(s, t, row.id, code, &pre, &err) < 0) {
		fprintf(stderr, "kgb serve: %s\n", err.buf);
		*ret_status = 503;
		*ret_body = serve_error(503, "the static precheck could not run; the server's log "
					"says why");
		goto out;
	}
	row.token = xstrdup(token);
	row.client_request_id = crid ? xstrdup(crid) : NULL;
	row.task = xstrdup(task_name);
	row.code_hash = xstrdup(hash);
	row.code = xstrdup(code);
	row.options = xstrdup(opts_text);
	row.platform = xstrdup(s->prof->name);
	row.created_at = now_s();
	if (json_is_string(json_object_get(pre, "verdict"))) {
		/*
		 * Rejected before it was queued, as the judge would at its load stage: the same
		 * verdict and detail, done at once.
		 */
		row.state = xstrdup("done");
		row.result = refused_result(s, t, row.id, pre);
		row.finished_at = now_s();
	} else {
		row.state = xstrdup("queued");
	}
	if (store_queue_insert(s->q, &row, &err) < 0) {
		*ret_status = err.len && strstr(err.buf, "client_request_id") ? 409 : 503;
		*ret_body = serve_error(*ret_status, "%s", *ret_status == 409 ? err.buf :
					"the queue could not be written; the server's log says why");
		if (*ret_status == 503)
			fprintf(stderr, "kgb serve: %s\n", err.buf);
		goto out;
	}
	pthread_mutex_lock(&s->lock);
	s->submitted++;
	if (!strcmp(row.state, "done"))
		s->rejected_l1++;
	else
		pthread_cond_signal(&s->work);
	pthread_mutex_unlock(&s->lock);
	if (!strcmp(row.state, "done")) {
		json_t *rec = json_loads(row.result, 0, NULL);

		count_done(s, json_string_value(json_object_get(json_object_get(rec, "result"),
								"verdict")), 0);
		json_decref(rec);
		*ret_status = 200;
	} else {
		*ret_status = 202;
	}
	*ret_body = sub_json(s, &row);
out:
	store_sub_release(&row);
	store_sub_release(&prev);
	json_decref(pre);
	free(opts_text);
	strbuf_release(&err);
}

void serve_submit_batch(struct serve *s, const char *token, json_t *req, int *ret_status,
			json_t **ret_body)
{
	json_t *items = json_object_get(req, "evaluations"), *out;
	size_t i;
	json_t *it;

	if (!json_is_object(req) || !json_is_array(items) || json_object_size(req) != 1) {
		*ret_status = json_is_object(req) ? 422 : 400;
		*ret_body = serve_error(*ret_status, "body: expected {\"evaluations\": [...]}, an "
					"array of submissions");
		return;
	}
	if (!json_array_size(items) || json_array_size(items) > SERVE_BATCH_MAX_ITEMS) {
		*ret_status = json_array_size(items) ? 413 : 422;
		*ret_body = serve_error(*ret_status, "'evaluations': %zu submissions, expected 1 to "
					"%d", json_array_size(items), SERVE_BATCH_MAX_ITEMS);
		return;
	}
	out = json_array();
	json_array_foreach(items, i, it) {
		int st;
		json_t *body;

		serve_submit(s, token, it, &st, &body);
		json_object_set_new(body, "http_status", json_integer(st));
		json_array_append_new(out, body);
	}
	*ret_status = 200;
	*ret_body = json_pack("{s:o}", "evaluations", out);
}

void serve_status(struct serve *s, const char *id, double wait_s, int *ret_status,
		  json_t **ret_body)
{
	struct strbuf err = STRBUF_INIT;
	struct store_sub row = {0};
	double deadline = now_s() + (wait_s > s->o.max_wait_s ? s->o.max_wait_s : wait_s);
	int r;

	for (;;) {
		r = store_queue_get(s->q, id, &row, &err);
		if (r < 0 || !strcmp(row.state, "done") || now_s() >= deadline)
			break;
		store_sub_release(&row);
		pthread_mutex_lock(&s->lock);
		if (!s->stopping) {
			struct timespec ts;
			double until = now_s() + 1 < deadline ? now_s() + 1 : deadline;

			ts.tv_sec = (time_t)until;
			ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
			pthread_cond_timedwait(&s->changed, &s->lock, &ts);
		} else {
			deadline = 0;
		}
		pthread_mutex_unlock(&s->lock);
	}
	if (r == -ENOENT) {
		*ret_status = 404;
		*ret_body = serve_error(404, "no evaluation '%s'", id);
	} else if (r < 0) {
		fprintf(stderr, "kgb serve: %s\n", err.buf);
		*ret_status = 503;
		*ret_body = serve_error(503, "the queue could not be read");
	} else {
		*ret_status = 200;
		*ret_body = sub_json(s, &row);
	}
	store_sub_release(&row);
	strbuf_release(&err);
}

void serve_tasks(struct serve *s, int *ret_status, json_t **ret_body)
{
	json_t *a = json_array();

	for (size_t i = 0; i < s->cat->nr_tasks; i++) {
		const struct task *t = &s->cat->tasks[i];
		char name[512];

		if (!eval_task_selected(s->cat, t, NULL, NULL, 0, s->prof->runtime, s->prof))
			continue;
		snprintf(name, sizeof(name), "%s/%s", t->source, t->op);
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:b}", "task", name, "op",
						   t->op, "source", t->source, "kind",
						   t->kind ? t->kind : "", "heldout",
						   has_heldout(t)));
	}
	*ret_status = 200;
	*ret_body = json_pack("{s:s, s:s, s:o}", "platform", s->prof->name, "runtime",
			      s->prof->runtime, "tasks", a);
}

void serve_task(struct serve *s, const char *name, int *ret_status, json_t **ret_body)
{
	struct strbuf prompt = STRBUF_INIT, err = STRBUF_INIT;
	const struct task *t = request_task(s, name, ret_status, ret_body);
	char full[512];

	if (!t)
		return;
	if (prompt_build(t, s->prof->name, s->prof->prompt, &prompt, &err) < 0) {
		*ret_status = 500;
		*ret_body = serve_error(500, "the prompt of '%s' cannot be built: %s", name, err.buf);
	} else {
		snprintf(full, sizeof(full), "%s/%s", t->source, t->op);
		*ret_status = 200;
		*ret_body = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:s}", "task", full, "op",
				      t->op, "source", t->source, "kind", t->kind ? t->kind : "",
				      "platform", s->prof->name, "heldout", has_heldout(t),
				      "prompt", prompt.buf);
	}
	strbuf_release(&prompt);
	strbuf_release(&err);
}

void serve_health(struct serve *s, int *ret_status, json_t **ret_body)
{
	struct strbuf err = STRBUF_INIT;
	long long queued = -1;
	long long in_flight;
	int r = store_queue_count(s->q, NULL, "queued", &queued, &err);

	pthread_mutex_lock(&s->lock);
	in_flight = s->in_flight;
	pthread_mutex_unlock(&s->lock);
	*ret_status = r < 0 ? 503 : 200;
	*ret_body = json_pack("{s:s, s:s, s:s, s:I, s:I}", "status", r < 0 ? "unavailable" : "ok",
			      "platform", s->prof->name, "version", KGB_VERSION, "queued",
			      (json_int_t)queued, "in_flight", (json_int_t)in_flight);
	strbuf_release(&err);
}

static void histogram(struct strbuf *out, const char *name, const char *help,
		      const double *bounds, size_t nb, const long long *counts, double sum,
		      long long n)
{
	long long cum = 0;

	strbuf_addf(out, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (size_t i = 0; i < nb; i++) {
		cum += counts[i];
		strbuf_addf(out, "%s_bucket{le=\"%g\"} %lld\n", name, bounds[i], cum);
	}
	cum += counts[nb];
	strbuf_addf(out, "%s_bucket{le=\"+Inf\"} %lld\n%s_sum %.6f\n%s_count %lld\n", name, cum,
		    name, sum, name, n);
}

void serve_metrics(struct serve *s, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;
	long long queued = 0;
	const char *k;
	json_t *v;

	if (store_queue_count(s->q, NULL, "queued", &queued, &err) < 0)
		queued = -1;
	pthread_mutex_lock(&s->lock);
	strbuf_addf(out, "# HELP kgb_serve_queue_depth Submissions queued, not yet running.\n"
		    "# TYPE kgb_serve_queue_depth gauge\nkgb_serve_queue_depth %lld\n", queued);
	strbuf_addf(out, "# HELP kgb_serve_in_flight Submissions of the batch being evaluated.\n"
		    "# TYPE kgb_serve_in_flight gauge\nkgb_serve_in_flight %lld\n", s->in_flight);
	strbuf_addf(out, "# HELP kgb_serve_submissions_total Submissions accepted (queued or "
		    "rejected by the precheck) since start.\n# TYPE kgb_serve_submissions_total "
		    "counter\nkgb_serve_submissions_total %lld\n", s->submitted);
	strbuf_addf(out, "# HELP kgb_serve_precheck_rejected_total Submissions the static "
		    "precheck judged before queueing.\n# TYPE kgb_serve_precheck_rejected_total "
		    "counter\nkgb_serve_precheck_rejected_total %lld\n", s->rejected_l1);
	strbuf_addf(out, "# HELP kgb_serve_batches_total Engine runs since start.\n"
		    "# TYPE kgb_serve_batches_total counter\nkgb_serve_batches_total %lld\n",
		    s->batches);
	strbuf_addstr(out, "# HELP kgb_serve_completed_total Submissions done since start, by "
		      "verdict.\n# TYPE kgb_serve_completed_total counter\n");
	json_object_foreach(s->completed, k, v)
		strbuf_addf(out, "kgb_serve_completed_total{verdict=\"%s\"} %lld\n", k,
			    (long long)json_integer_value(v));
	strbuf_addstr(out, "# HELP kgb_serve_refused_total Requests answered with an error, by "
		      "HTTP status.\n# TYPE kgb_serve_refused_total counter\n");
	json_object_foreach(s->refused, k, v)
		strbuf_addf(out, "kgb_serve_refused_total{status=\"%s\"} %lld\n", k,
			    (long long)json_integer_value(v));
	histogram(out, "kgb_serve_completion_seconds",
		  "From submission to result, of submissions done since start.", serve_lat_bounds,
		  SERVE_LAT_BUCKETS, s->lat_counts, s->lat_sum, s->lat_n);
	histogram(out, "kgb_serve_accept_seconds", "Time to answer a submission (POST).",
		  serve_acc_bounds, SERVE_ACC_BUCKETS, s->acc_counts, s->acc_sum, s->acc_n);
	pthread_mutex_unlock(&s->lock);
	strbuf_release(&err);
}
