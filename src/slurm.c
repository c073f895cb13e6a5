#include "slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "shard.h"
#include "store.h"
#include "util/fs.h"
#include "util/parse.h"
#include "util/xalloc.h"

/* A client's output past this is refused: squeue of a huge cluster is still far below. */
#define SLURM_MAX_OUTPUT_BYTES (16u << 20)
/* sbatch, squeue and sacct retry a busy controller themselves; past this kgb gives up. */
#define SLURM_CLIENT_TIMEOUT_S 120.0

#define SLURM_PLAN_SCHEMA "kgb.slurm.plan.v1"

/*
 * The batch script. Constant: kgb's path and the run directory arrive as $1 and $2, the shard
 * as Slurm's $SLURM_ARRAY_TASK_ID, so nothing a user typed is ever parsed by a shell.
 */
static const char batch_script[] =
	"#!/bin/sh\n"
	"# Written by kgb (src/slurm.c): one array task runs one shard of the plan in $2, with\n"
	"# the command $3 (eval, or generate).\n"
	"exec \"$1\" \"${3:-eval}\" --run-dir \"$2\" --shard \"$SLURM_ARRAY_TASK_ID\"\n";

static const struct {
	const char *name;
	enum slurm_state state;
} state_names[] = {
	{"PENDING", SLURM_STATE_PENDING},	{"CONFIGURING", SLURM_STATE_PENDING},
	{"REQUEUED", SLURM_STATE_PENDING},	{"REQUEUE_FED", SLURM_STATE_PENDING},
	{"REQUEUE_HOLD", SLURM_STATE_PENDING},	{"RESIZING", SLURM_STATE_PENDING},
	{"SUSPENDED", SLURM_STATE_PENDING},	{"RESV_DEL_HOLD", SLURM_STATE_PENDING},
	{"RUNNING", SLURM_STATE_RUNNING},	{"COMPLETING", SLURM_STATE_RUNNING},
	{"STAGE_OUT", SLURM_STATE_RUNNING},	{"SIGNALING", SLURM_STATE_RUNNING},
	{"COMPLETED", SLURM_STATE_COMPLETED},	{"FAILED", SLURM_STATE_FAILED},
	{"TIMEOUT", SLURM_STATE_FAILED},	{"NODE_FAIL", SLURM_STATE_FAILED},
	{"OUT_OF_MEMORY", SLURM_STATE_FAILED},	{"BOOT_FAIL", SLURM_STATE_FAILED},
	{"DEADLINE", SLURM_STATE_FAILED},	{"SPECIAL_EXIT", SLURM_STATE_FAILED},
	{"REVOKED", SLURM_STATE_CANCELLED},	{"CANCELLED", SLURM_STATE_CANCELLED},
	{"PREEMPTED", SLURM_STATE_PREEMPTED},
};

static const char *const state_strings[_SLURM_STATE_MAX] = {
	[SLURM_STATE_PENDING] = "pending",	   [SLURM_STATE_RUNNING] = "running",
	[SLURM_STATE_COMPLETED] = "completed",	   [SLURM_STATE_FAILED] = "failed",
	[SLURM_STATE_CANCELLED] = "cancelled",	   [SLURM_STATE_PREEMPTED] = "preempted",
	[SLURM_STATE_UNKNOWN] = "unknown",
};

static const char *const shard_state_strings[_SLURM_SHARD_MAX] = {
	[SLURM_SHARD_DONE] = "done",		 [SLURM_SHARD_PENDING] = "pending",
	[SLURM_SHARD_RUNNING] = "running",	 [SLURM_SHARD_FAILED] = "failed",
	[SLURM_SHARD_CANCELLED] = "cancelled",	 [SLURM_SHARD_PREEMPTED] = "preempted",
	[SLURM_SHARD_LOST] = "lost",		 [SLURM_SHARD_NEW] = "new",
};

enum slurm_state slurm_state_from_string(const char *s)
{
	size_t n = strcspn(s, " +");

	for (size_t i = 0; i < ARRAY_SIZE(state_names); i++)
		if (strlen(state_names[i].name) == n && !strncmp(state_names[i].name, s, n))
			return state_names[i].state;
	return SLURM_STATE_UNKNOWN;
}

const char *slurm_state_to_string(enum slurm_state s)
{
	return s >= 0 && s < _SLURM_STATE_MAX ? state_strings[s] : "invalid";
}

const char *slurm_shard_state_to_string(enum slurm_shard_state s)
{
	return s >= 0 && s < _SLURM_SHARD_MAX ? shard_state_strings[s] : "invalid";
}

bool slurm_shard_needs_submit(enum slurm_shard_state s)
{
	return s != SLURM_SHARD_DONE && s != SLURM_SHARD_PENDING && s != SLURM_SHARD_RUNNING;
}

enum slurm_shard_state slurm_shard_decide(bool submitted, enum slurm_state slurm, bool complete)
{
	if (complete)
		return SLURM_SHARD_DONE;
	if (!submitted)
		return SLURM_SHARD_NEW;
	switch (slurm) {
	case SLURM_STATE_PENDING:
		return SLURM_SHARD_PENDING;
	case SLURM_STATE_RUNNING:
		return SLURM_SHARD_RUNNING;
	case SLURM_STATE_CANCELLED:
		return SLURM_SHARD_CANCELLED;
	case SLURM_STATE_PREEMPTED:
		return SLURM_SHARD_PREEMPTED;
	case SLURM_STATE_COMPLETED: /* exited 0 without finishing its store: a failure */
	case SLURM_STATE_FAILED:
		return SLURM_SHARD_FAILED;
	default:
		return SLURM_SHARD_LOST;
	}
}

/* A decimal number at *p (advanced past it); -EBADMSG without one. */
static int parse_num(const char **p, long long *ret)
{
	long long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -EBADMSG;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (1LL << 50))
			return -EBADMSG;
		v = v * 10 + (*s - '0');
	}
	*p = s;
	*ret = v;
	return 0;
}

/* Ranges "a-b,c" up to `end` (or a '%' throttle, which ends them), each index through add. */
static int parse_ranges_n(const char *s, const char *end, size_t max, size_t **v, size_t *nr)
{
	size_t alloc = 0;

	if (s == end)
		return -EBADMSG;
	while (s < end && *s != '%') {
		long long a, b;

		if (parse_num(&s, &a) < 0)
			return -EBADMSG;
		b = a;
		if (s < end && *s == '-') {
			s++;
			if (parse_num(&s, &b) < 0 || b < a)
				return -EBADMSG;
		}
		if ((unsigned long long)b > max || (size_t)(b - a) > max)
			return -EBADMSG;
		for (long long k = a; k <= b; k++) {
			XGROW(*v, *nr + 1, alloc);
			(*v)[(*nr)++] = (size_t)k;
		}
		if (s < end && *s == ',') {
			s++;
			if (s == end || *s == '%')
				return -EBADMSG;
		} else if (s < end && *s != '%') {
			return -EBADMSG;
		}
	}
	return 0;
}

int slurm_parse_ranges(const char *s, size_t max, size_t **ret, size_t *ret_nr)
{
	size_t *v = NULL, n = 0;
	int r = parse_ranges_n(s, s + strlen(s), max, &v, &n);

	if (r < 0) {
		free(v);
		return r;
	}
	*ret = v;
	*ret_nr = n;
	return 0;
}

/* Largest array index a state line may name (Slurm's MaxArraySize is at most 4000001). */
#define SLURM_MAX_ARRAY_INDEX 4000001u

static int parse_state_line(const char *line, size_t len, struct slurm_task_state **v, size_t *nr,
			    size_t *alloc)
{
	const char *bar = memchr(line, '|', len), *p = line;
	char state[64];
	long long job, task = -1;
	size_t *idx = NULL, nidx = 0, slen;

	if (!bar || parse_num(&p, &job) < 0)
		return -EBADMSG;
	if (*p == '.') /* a job step: its job's line says what we need */
		return 0;
	slen = len - (size_t)(bar + 1 - line);
	if (slen >= sizeof(state))
		slen = sizeof(state) - 1;
	memcpy(state, bar + 1, slen);
	state[slen] = '\0';
	if (*p == '_' && p[1] == '[') {
		const char *close = memchr(p, ']', (size_t)(bar - p));

		if (!close || close + 1 != bar ||
		    parse_ranges_n(p + 2, close, SLURM_MAX_ARRAY_INDEX, &idx, &nidx) < 0) {
			free(idx);
			return -EBADMSG;
		}
	} else if (*p == '_') {
		p++;
		if (parse_num(&p, &task) < 0 || p != bar)
			return -EBADMSG;
	} else if (p != bar) {
		return -EBADMSG;
	}
	if (!idx) {
		XGROW(*v, *nr + 1, *alloc);
		(*v)[(*nr)++] = (struct slurm_task_state){job, task, slurm_state_from_string(state)};
		return 0;
	}
	for (size_t i = 0; i < nidx; i++) {
		XGROW(*v, *nr + 1, *alloc);
		(*v)[(*nr)++] = (struct slurm_task_state){job, (long long)idx[i],
							  slurm_state_from_string(state)};
	}
	free(idx);
	return 0;
}

int slurm_parse_states(const char *text, struct slurm_task_state **v, size_t *nr,
		       struct strbuf *err)
{
	size_t alloc = *nr;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
			len--;
		while (len && *p == ' ') {
			p++;
			len--;
		}
		if (len && parse_state_line(p, len, v, nr, &alloc) < 0) {
			strbuf_addf(err, "malformed job state line '%.*s'", (int)(len > 200 ? 200 : len),
				    p);
			return -EBADMSG;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

int slurm_parse_sbatch(const char *text, long long *ret_job_id, struct strbuf *err)
{
	const char *p = text;
	long long id;

	while (*p == ' ' || *p == '\n')
		p++;
	if (parse_num(&p, &id) < 0 || (*p && *p != ';' && *p != '\n' && *p != ' ') || id <= 0) {
		strbuf_addf(err, "unexpected sbatch output '%.200s'", text);
		return -EBADMSG;
	}
	*ret_job_id = id;
	return 0;
}

int slurm_exec(const char *const *argv, double timeout_s, struct strbuf *out, struct strbuf *err)
{
	/* The client's own session and group: a timeout kills it and anything it started. */
	struct sandbox_opts so = {.argv = (char *const *)argv, .envp = environ};
	struct proc_opts po = {.timeout_s = timeout_s, .out_max = SLURM_MAX_OUTPUT_BYTES,
			       .err_max = SLURM_MAX_OUTPUT_BYTES};
	struct proc p;
	int status, r = proc_run(&so, &po, &p, err);

	if (r < 0 && r != -E2BIG) {
		proc_release(&p);
		return r;
	}
	status = p.child.status;
	strbuf_add(out, p.out.buf, p.out.len);
	strbuf_trim_trailing(&p.errout);
	if (r == -E2BIG) {
		strbuf_addf(err, "'%s' printed more than %u bytes", argv[0], SLURM_MAX_OUTPUT_BYTES);
	} else if (p.timed_out) {
		strbuf_addf(err, "'%s' did not answer within %.0f s", argv[0], timeout_s);
		r = -ETIMEDOUT;
	} else if (p.child.exec_errno) {
		strbuf_addf(err, "cannot run '%s': %s", argv[0], strerror(p.child.exec_errno));
		r = -ENOENT;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		const char *last = strrchr(p.errout.buf, '\n');

		strbuf_addf(err, "'%s' exited %d: %s", argv[0],
			    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
			    last ? last + 1 : p.errout.len ? p.errout.buf : "(no message)");
		r = -EIO;
	}
	proc_release(&p);
	return r;
}

void slurm_plan_release(struct slurm_plan *p)
{
	free(p->tasks_dir);
	free(p->command);
	strv_free(p->eval_args);
	for (size_t i = 0; i < p->nr_shards; i++) {
		free(p->shards[i].platform);
		strv_free(p->shards[i].tasks);
	}
	free(p->shards);
	memset(p, 0, sizeof(*p));
}

struct slurm_shard *slurm_plan_add_shard(struct slurm_plan *p, const char *platform)
{
	struct slurm_shard *s;

	p->shards = xrealloc(p->shards, (p->nr_shards + 1) * sizeof(*p->shards));
	s = &p->shards[p->nr_shards++];
	memset(s, 0, sizeof(*s));
	s->platform = xstrdup(platform);
	s->tasks = xcalloc(1, sizeof(*s->tasks));
	return s;
}

void slurm_shard_add_task(struct slurm_shard *s, const char *task)
{
	s->tasks = xrealloc(s->tasks, (s->nr_tasks + 2) * sizeof(*s->tasks));
	s->tasks[s->nr_tasks++] = xstrdup(task);
	s->tasks[s->nr_tasks] = NULL;
}

static json_t *strv_json(char **v)
{
	json_t *a = json_array();

	for (; v && *v; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

json_t *slurm_plan_to_json(const struct slurm_plan *p)
{
	json_t *shards = json_array();

	for (size_t i = 0; i < p->nr_shards; i++)
		json_array_append_new(
			shards, json_pack("{s:I, s:s, s:o, s:I}", "index", (json_int_t)i, "platform",
					  p->shards[i].platform, "tasks", strv_json(p->shards[i].tasks),
					  "candidates", (json_int_t)p->shards[i].candidates));
	json_t *j = json_pack("{s:s, s:s, s:o, s:o}", "schema", SLURM_PLAN_SCHEMA, "tasks_dir",
			      p->tasks_dir, "eval_args", strv_json(p->eval_args), "shards", shards);

	/* Absent for eval: the plans of runs made before `generate` had shards stay equal. */
	if (p->command && strcmp(p->command, "eval"))
		json_object_set_new(j, "command", json_string(p->command));
	return j;
}

/* A JSON array of strings as a NULL-terminated vector; NULL when it is not one. */
static char **json_strv(json_t *a)
{
	char **v;
	size_t i;
	json_t *e;

	if (!json_is_array(a))
		return NULL;
	v = xcalloc(json_array_size(a) + 1, sizeof(*v));
	json_array_foreach(a, i, e) {
		if (!json_is_string(e)) {
			strv_free(v);
			return NULL;
		}
		v[i] = xstrdup(json_string_value(e));
	}
	return v;
}

int slurm_plan_from_json(json_t *j, struct slurm_plan *ret, struct strbuf *err)
{
	struct slurm_plan p = {0};
	json_t *shards = json_object_get(j, "shards"), *s;
	const char *schema = json_string_value(json_object_get(j, "schema"));
	const char *tasks_dir = json_string_value(json_object_get(j, "tasks_dir"));
	json_t *command = json_object_get(j, "command");
	size_t i;

	if (!schema || strcmp(schema, SLURM_PLAN_SCHEMA)) {
		strbuf_addf(err, "not a %s plan (schema '%s')", SLURM_PLAN_SCHEMA,
			    schema ? schema : "?");
		return -EBADMSG;
	}
	if (!tasks_dir || !json_is_array(shards) || !json_array_size(shards))
		goto bad;
	if (command && (!json_is_string(command) ||
			(strcmp(json_string_value(command), "eval") &&
			 strcmp(json_string_value(command), "generate"))))
		goto bad;
	p.tasks_dir = xstrdup(tasks_dir);
	if (command && strcmp(json_string_value(command), "eval"))
		p.command = xstrdup(json_string_value(command));
	p.eval_args = json_strv(json_object_get(j, "eval_args"));
	if (!p.eval_args)
		goto bad;
	json_array_foreach(shards, i, s) {
		const char *platform = json_string_value(json_object_get(s, "platform"));
		json_t *cands = json_object_get(s, "candidates");
		char **tasks = json_strv(json_object_get(s, "tasks"));
		struct slurm_shard *sh;

		if (!platform || !tasks || !json_is_integer(cands) || json_integer_value(cands) < 0 ||
		    json_integer_value(json_object_get(s, "index")) != (json_int_t)i) {
			strv_free(tasks);
			goto bad;
		}
		sh = slurm_plan_add_shard(&p, platform);
		free(sh->tasks);
		sh->tasks = tasks;
		while (sh->tasks[sh->nr_tasks])
			sh->nr_tasks++;
		sh->candidates = (size_t)json_integer_value(cands);
	}
	*ret = p;
	return 0;
bad:
	strbuf_addstr(err, "malformed plan: expected tasks_dir, eval_args, shards "
			   "[{index, platform, tasks, candidates}] and an optional command (eval or "
			   "generate)");
	slurm_plan_release(&p);
	return -EBADMSG;
}

int slurm_plan_load(const char *run_dir, struct slurm_plan *ret, struct strbuf *err)
{
	char *path = path_join(run_dir, "plan.json");
	json_error_t jerr;
	json_t *j;
	int r;

	if (!path_is_file(path)) {
		strbuf_addf(err, "'%s' holds no plan (plan.json): not a kgb run directory", run_dir);
		free(path);
		return -ENOENT;
	}
	j = json_load_file(path, 0, &jerr);
	if (!j) {
		strbuf_addf(err, "cannot read '%s': %s", path, jerr.text);
		free(path);
		return -EBADMSG;
	}
	r = slurm_plan_from_json(j, ret, err);
	if (r < 0) {
		struct strbuf tmp = STRBUF_INIT;

		strbuf_addf(&tmp, "'%s': %s", path, err->buf);
		strbuf_reset(err);
		strbuf_addstr(err, tmp.buf);
		strbuf_release(&tmp);
	}
	json_decref(j);
	free(path);
	return r;
}

int slurm_plan_reconcile(const struct slurm_plan *p, const char *run_dir, bool *ret_new,
			 struct strbuf *err)
{
	struct slurm_plan old = {0};
	char *logs = path_join(run_dir, "logs");
	json_t *want = slurm_plan_to_json(p);
	int r;

	r = mkdir_p(logs, 0755);
	free(logs);
	if (r < 0) {
		strbuf_addf(err, "cannot create the run directory '%s': %s", run_dir, strerror(-r));
		json_decref(want);
		return r;
	}
	r = slurm_plan_load(run_dir, &old, err);
	if (r == -ENOENT) {
		char *text = json_dumps(want, JSON_INDENT(1) | JSON_SORT_KEYS);
		char *path = path_join(run_dir, "plan.json");
		char *script = path_join(run_dir, "shard.sh");

		strbuf_reset(err);
		r = write_file_atomic(script, batch_script, 0755, err);
		if (r == 0)
			r = write_file_atomic(path, text, 0644, err);
		free(text);
		free(path);
		free(script);
		json_decref(want);
		if (r == 0)
			*ret_new = true;
		return r;
	}
	if (r == 0) {
		json_t *have = slurm_plan_to_json(&old);

		if (!json_equal(have, want)) {
			const char *what = "the shards' tasks or platforms";

			if (!json_equal(json_object_get(have, "command"),
					json_object_get(want, "command")))
				what = "the commands (eval, generate)";
			else if (!json_equal(json_object_get(have, "eval_args"),
					json_object_get(want, "eval_args")))
				what = "the evaluation options";
			else if (!json_equal(json_object_get(have, "tasks_dir"),
					     json_object_get(want, "tasks_dir")))
				what = "the task catalog";
			strbuf_addf(err, "run directory '%s' holds another run (%s differ); rerun "
				    "its own command, or use a new --run-dir", run_dir, what);
			r = -EEXIST;
		}
		json_decref(have);
		slurm_plan_release(&old);
		*ret_new = false;
	}
	json_decref(want);
	return r;
}

bool slurm_plan_generates(const struct slurm_plan *p)
{
	return p->command && !strcmp(p->command, "generate");
}

char *slurm_shard_store(const char *run_dir, size_t k)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/shard-%zu.db", run_dir, k);
	return strbuf_detach(&sb, NULL);
}

const char *slurm_part_lookup(const struct slurm_part *v, size_t n, const char *platform)
{
	const char *dflt = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!v[i].platform)
			dflt = v[i].value;
		else if (platform && !strcmp(v[i].platform, platform))
			return v[i].value;
	}
	return dflt;
}

static void argv_add(char ***v, size_t *n, const char *fmt, const char *val)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, fmt, val);
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = strbuf_detach(&sb, NULL);
	(*v)[*n] = NULL;
}

char **slurm_sbatch_argv(const struct slurm_submit_opts *so, const char *run_dir,
			 const char *platform, const size_t *idx, size_t n)
{
	struct strbuf ranges = STRBUF_INIT;
	char **v = NULL, *script = path_join(run_dir, "shard.sh");
	const char *part = slurm_part_lookup(so->partitions, so->nr_partitions, platform);
	const char *gres = slurm_part_lookup(so->gres, so->nr_gres, platform);
	const char *cons = slurm_part_lookup(so->constraints, so->nr_constraints, platform);
	size_t nr = 0;

	shard_format_ranges(&ranges, idx, n);
	argv_add(&v, &nr, "%s", "sbatch");
	argv_add(&v, &nr, "%s", "--parsable");
	argv_add(&v, &nr, "--job-name=%s", so->job_name ? so->job_name : "kgb");
	argv_add(&v, &nr, "--array=%s", ranges.buf);
	argv_add(&v, &nr, "--output=%s/logs/shard-%%a-%%A.out", run_dir);
	argv_add(&v, &nr, "--chdir=%s", run_dir);
	if (part)
		argv_add(&v, &nr, "--partition=%s", part);
	if (gres)
		argv_add(&v, &nr, "--gres=%s", gres);
	if (cons)
		argv_add(&v, &nr, "--constraint=%s", cons);
	if (so->time)
		argv_add(&v, &nr, "--time=%s", so->time);
	if (so->mem)
		argv_add(&v, &nr, "--mem=%s", so->mem);
	if (so->account)
		argv_add(&v, &nr, "--account=%s", so->account);
	if (so->qos)
		argv_add(&v, &nr, "--qos=%s", so->qos);
	if (so->cpus_per_task) {
		char c[24];

		snprintf(c, sizeof(c), "%u", so->cpus_per_task);
		argv_add(&v, &nr, "--cpus-per-task=%s", c);
	}
	for (const char *const *e = so->extra; e && *e; e++)
		argv_add(&v, &nr, "%s", *e);
	argv_add(&v, &nr, "%s", script);
	argv_add(&v, &nr, "%s", so->kgb);
	argv_add(&v, &nr, "%s", run_dir);
	if (so->command && strcmp(so->command, "eval"))
		argv_add(&v, &nr, "%s", so->command);
	strbuf_release(&ranges);
	free(script);
	return v;
}

/* Appends "<job>\t<ranges>\n" to DIR/jobs.tsv (O_APPEND: one write, one line). */
static int record_job(const char *run_dir, long long job, const size_t *idx, size_t n,
		      struct strbuf *err)
{
	char *path = path_join(run_dir, "jobs.tsv");
	struct strbuf line = STRBUF_INIT;
	int fd, r = 0;

	strbuf_addf(&line, "%lld\t", job);
	shard_format_ranges(&line, idx, n);
	strbuf_addch(&line, '\n');
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line.buf, line.len) != (ssize_t)line.len)
		r = -errno;
	if (fd >= 0)
		close(fd);
	if (r < 0)
		strbuf_addf(err, "cannot record job %lld in '%s': %s", job, path, strerror(-r));
	free(path);
	strbuf_release(&line);
	return r;
}

int slurm_submit(const struct slurm_submit_opts *so, const char *run_dir, const char *platform,
		 const size_t *idx, size_t n, long long *ret_job_id, struct strbuf *err)
{
	char **argv = slurm_sbatch_argv(so, run_dir, platform, idx, n);
	struct strbuf out = STRBUF_INIT;
	long long job = 0;
	int r;

	r = slurm_exec((const char *const *)argv, SLURM_CLIENT_TIMEOUT_S, &out, err);
	if (r == 0)
		r = slurm_parse_sbatch(out.buf, &job, err);
	if (r == 0)
		r = record_job(run_dir, job, idx, n, err);
	if (r == 0)
		*ret_job_id = job;
	strbuf_release(&out);
	strv_free(argv);
	return r;
}

/* The latest job of each shard from DIR/jobs.tsv into job_of[0..nr) (0: none). */
static int load_jobs(const char *run_dir, size_t nr, long long *job_of, struct strbuf *err)
{
	char *path = path_join(run_dir, "jobs.tsv");
	struct strbuf text = STRBUF_INIT;
	int r = strbuf_read_file(&text, path, 16u << 20);

	if (r == -ENOENT) {
		r = 0;
		goto out;
	}
	if (r < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-r));
		goto out;
	}
	for (char *p = text.buf; *p;) {
		char *nl = strchr(p, '\n'), *tab;
		const char *q = p;
		long long job;
		size_t *idx = NULL, n = 0;

		if (nl)
			*nl = '\0';
		tab = strchr(p, '\t');
		if (*p) {
			if (!tab || parse_num(&q, &job) < 0 || q != tab ||
			    slurm_parse_ranges(tab + 1, nr ? nr - 1 : 0, &idx, &n) < 0) {
				strbuf_addf(err, "'%s': malformed line '%.100s'", path, p);
				r = -EBADMSG;
				goto out;
			}
			for (size_t i = 0; i < n; i++)
				job_of[idx[i]] = job;
			free(idx);
		}
		if (!nl)
			break;
		p = nl + 1;
	}
out:
	free(path);
	strbuf_release(&text);
	return r;
}

/*
 * Asks a client (squeue or sacct) about jobs[0..n); appends what it says to *v. 0, or the
 * client's failure with its message in err (squeue's "Invalid job id" for jobs it has
 * forgotten is no failure).
 */
static int query(const char *const *argv_head, size_t nhead, const long long *jobs, size_t n,
		 struct slurm_task_state **v, size_t *nr, struct strbuf *reterr)
{
	int r;
	struct strbuf ids = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	const char **argv = xcalloc(nhead + 3, sizeof(*argv));

	for (size_t i = 0; i < n; i++)
		strbuf_addf(&ids, "%s%lld", i ? "," : "", jobs[i]);
	memcpy(argv, argv_head, nhead * sizeof(*argv));
	argv[nhead] = "-j";
	argv[nhead + 1] = ids.buf;
	r = slurm_exec(argv, SLURM_CLIENT_TIMEOUT_S, &out, &err);
	if (r == 0)
		r = slurm_parse_states(out.buf, v, nr, &err);
	else if (r == -EIO && strstr(err.buf, "Invalid job id"))
		r = 0;
	if (r < 0)
		strbuf_addstr(reterr, err.buf);
	free(argv);
	strbuf_release(&ids);
	strbuf_release(&out);
	strbuf_release(&err);
	return r;
}

static const struct slurm_task_state *find_state(const struct slurm_task_state *v, size_t n,
						 long long job, long long task)
{
	const struct slurm_task_state *hit = NULL;

	for (size_t i = 0; i < n; i++)
		if (v[i].job_id == job && v[i].task_id == task)
			hit = &v[i]; /* the last word (a later line) wins */
	return hit;
}

int slurm_run_status(const struct slurm_plan *p, const char *run_dir,
		     struct slurm_shard_status *ret, struct strbuf *err)
{
	static const char *const squeue[] = {"squeue", "-r", "-h", "-t", "all", "-o", "%i|%T"};
	static const char *const sacct[] = {"sacct", "-n", "-P", "-X", "-o", "JobID,State"};
	long long *job_of = xcalloc(p->nr_shards + 1, sizeof(*job_of)), *jobs = NULL;
	struct slurm_task_state *st = NULL;
	size_t nst = 0, njobs = 0, missing = 0;
	struct strbuf qerr = STRBUF_INIT;
	int r, qr = 0;

	r = load_jobs(run_dir, p->nr_shards, job_of, err);
	if (r < 0)
		goto out;
	jobs = xcalloc(p->nr_shards + 1, sizeof(*jobs));
	for (size_t i = 0; i < p->nr_shards; i++) {
		bool seen = false;

		for (size_t k = 0; k < njobs; k++)
			seen = seen || jobs[k] == job_of[i];
		if (job_of[i] && !seen)
			jobs[njobs++] = job_of[i];
	}
	if (njobs)
		qr = query(squeue, ARRAY_SIZE(squeue), jobs, njobs, &st, &nst, &qerr);
	for (size_t i = 0; i < p->nr_shards; i++)
		if (job_of[i] && !find_state(st, nst, job_of[i], (long long)i))
			missing++;
	/* squeue forgets finished jobs after MinJobAge; accounting, where there is one, does not. */
	if (missing && qr == 0) {
		struct strbuf ignore = STRBUF_INIT;

		/* Without accounting sacct fails: the jobs it would name stay unknown. */
		if (query(sacct, ARRAY_SIZE(sacct), jobs, njobs, &st, &nst, &ignore) < 0)
			strbuf_reset(&ignore);
		strbuf_release(&ignore);
	}
	for (size_t i = 0; i < p->nr_shards; i++) {
		struct slurm_shard_status *s = &ret[i];
		const struct slurm_task_state *t =
			job_of[i] ? find_state(st, nst, job_of[i], (long long)i) : NULL;
		char *path = slurm_shard_store(run_dir, i);
		struct store_progress pr = {0};
		bool complete = false;

		memset(s, 0, sizeof(*s));
		s->job_id = job_of[i];
		s->task_id = job_of[i] ? (long long)i : -1;
		s->slurm = t ? t->state : SLURM_STATE_UNKNOWN;
		s->total = p->shards[i].candidates;
		r = store_progress(path, &pr, err);
		free(path);
		if (r < 0 && r != -ENOENT)
			goto out;
		r = 0;
		if (slurm_plan_generates(p)) {
			/* A generation shard is done when a finished `kgb generate` run covers
			 * every one of its tasks; its progress is in tasks. */
			s->done = pr.generated_tasks;
			complete = s->total && pr.finished_generated_tasks >= (long long)s->total;
		} else {
			s->done = pr.candidates;
			complete = pr.finished_links >= (long long)s->total && pr.finished_runs > 0;
		}
		s->state = slurm_shard_decide(job_of[i] != 0, s->slurm, complete);
	}
	if (qr < 0) {
		strbuf_addf(err, "cannot ask Slurm about jobs of '%s': %s", run_dir, qerr.buf);
		r = -EAGAIN;
	}
out:
	strbuf_release(&qerr);
	free(job_of);
	free(jobs);
	free(st);
	return r;
}

void slurm_status_write(FILE *f, const struct slurm_plan *p, const struct slurm_shard_status *st,
			bool json)
{
	size_t count[_SLURM_SHARD_MAX] = {0};
	long long done = 0, total = 0;

	for (size_t k = 0; k < p->nr_shards; k++) {
		count[st[k].state]++;
		done += st[k].done;
		total += (long long)st[k].total;
	}
	if (json) {
		json_t *states = json_object();

		for (size_t k = 0; k < p->nr_shards; k++) {
			json_t *rec = json_pack(
				"{s:s, s:I, s:s, s:s, s:s, s:I, s:I, s:I, s:o}", "schema",
				"kgb.slurm.shard.v1", "shard", (json_int_t)k, "platform",
				p->shards[k].platform, "state",
				slurm_shard_state_to_string(st[k].state), "slurm_state",
				slurm_state_to_string(st[k].slurm), "job_id", (json_int_t)st[k].job_id,
				"done", (json_int_t)st[k].done, "total", (json_int_t)st[k].total, "tasks",
				strv_json(p->shards[k].tasks));
			char *line = json_dumps(rec, JSON_COMPACT);

			fprintf(f, "%s\n", line);
			free(line);
			json_decref(rec);
		}
		for (int s = 0; s < _SLURM_SHARD_MAX; s++)
			json_object_set_new(states, shard_state_strings[s],
					    json_integer((json_int_t)count[s]));
		{
			json_t *sum = json_pack("{s:s, s:I, s:I, s:I, s:o, s:b}", "schema",
						"kgb.slurm.status.v1", "shards",
						(json_int_t)p->nr_shards, "done", (json_int_t)done,
						"total", (json_int_t)total, "states", states,
						"complete", count[SLURM_SHARD_DONE] == p->nr_shards);
			char *line = json_dumps(sum, JSON_COMPACT);

			fprintf(f, "%s\n", line);
			free(line);
			json_decref(sum);
		}
		return;
	}
	fprintf(f, "%-6s %-12s %-12s %-10s %-11s %s\n", "shard", "platform", "job", "state", "done",
		"tasks");
	for (size_t k = 0; k < p->nr_shards; k++) {
		char job[48] = "-", progress[48];
		struct strbuf tasks = STRBUF_INIT;

		if (st[k].job_id)
			snprintf(job, sizeof(job), "%lld_%lld", st[k].job_id, st[k].task_id);
		snprintf(progress, sizeof(progress), "%lld/%zu", st[k].done, st[k].total);
		for (size_t i = 0; i < p->shards[k].nr_tasks; i++) {
			if (i == 4) {
				strbuf_addf(&tasks, " (+%zu)", p->shards[k].nr_tasks - 4);
				break;
			}
			strbuf_addf(&tasks, "%s%s", i ? " " : "", p->shards[k].tasks[i]);
		}
		fprintf(f, "%-6zu %-12s %-12s %-10s %-11s %s\n", k, p->shards[k].platform, job,
			slurm_shard_state_to_string(st[k].state), progress, tasks.buf);
		strbuf_release(&tasks);
	}
	fprintf(f, "%zu of %zu shards done, %lld of %lld %s", count[SLURM_SHARD_DONE],
		p->nr_shards, done, total, slurm_plan_generates(p) ? "tasks" : "candidates");
	for (int s = 1; s < _SLURM_SHARD_MAX; s++)
		if (count[s])
			fprintf(f, "; %zu %s", count[s], shard_state_strings[s]);
	fprintf(f, "\n");
}
