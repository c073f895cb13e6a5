/*
 * serve.h - `kgb serve`: the verification service (docs/service.md).
 *
 * A server holds the catalog and platform profile it serves (loaded once), the durable queue
 * (store_queue.h), the token digests, and one queue worker thread that claims batches of
 * queued submissions and runs each batch through the evaluation engine in-process (eval_run(),
 * as `kgb eval --solutions DIR` does: same sandbox, judge and verdicts), one solutions
 * directory per batch. HTTP (serve_http.c, on libmicrohttpd: mhd.h) calls serve_submit() and
 * serve_status() from its connection threads.
 *
 * Call sequence: serve_init() → serve_start() (the worker) → serve_http_start() → ... →
 * serve_http_stop() → serve_stop() → serve_release().
 * Everything shared between threads is under `lock`; `changed` is broadcast whenever a
 * submission changes state (long polls wait on it), `work` when one is queued.
 */
#ifndef KGB_SERVE_H
#define KGB_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "kgb.h"
#include "profile.h"
#include "sandbox.h"
#include "util/compiler.h"
#include "util/hash.h"
#include "util/strbuf.h"

#define SERVE_BATCH_MAX_ITEMS 64 /* candidates of one POST /v1/evaluations:batch */
#define SERVE_CRID_MAX 128	 /* bytes of a client_request_id */
#define SERVE_PRECHECK_TIMEOUT_S 30.0 /* for the static precheck of one submission */

struct catalog;
struct eval_opts;
struct precheck;
struct slurm_run_opts;
struct store;
struct store_queue;

struct serve_opts {
	const char *listen_addr; /* IPv4 address; default 127.0.0.1 */
	unsigned port;		 /* 0: any free port (printed) */
	const char *store_path;
	const char *tokens_path; /* NULL: no authentication (loopback only) */
	const char *platform;	 /* a profile or runtime name; NULL: detected */
	const char *python;
	const char *spool;	     /* batch directories; default <store>.spool */
	unsigned slots;		     /* checking slots of each batch; 0: eval's default */
	double timeout_s;	     /* per candidate */
	enum sandbox_mode sandbox;
	unsigned long long memory_mib;
	size_t max_code_bytes;	     /* one candidate's source */
	size_t max_body_bytes;	     /* one request's body */
	long long max_queued;	     /* queued + running per token */
	long long max_queue;	     /* queued in all */
	unsigned batch_size;	     /* candidates per engine run */
	unsigned connections;	     /* concurrent HTTP connections */
	double max_wait_s;	     /* bound of ?wait= */
	bool allow_remote_no_auth;   /* listen beyond loopback without --tokens */
	/* --backend slurm (serve_slurm.c): each batch as shards of a Slurm run, or NULL. */
	const struct slurm_run_opts *slurm;
};

/* Completion-latency histogram bounds (seconds) of /metrics. */
#define SERVE_LAT_BUCKETS 10
extern const double serve_lat_bounds[SERVE_LAT_BUCKETS];
#define SERVE_ACC_BUCKETS 8
extern const double serve_acc_bounds[SERVE_ACC_BUCKETS];

struct serve {
	struct serve_opts o;
	struct kgb_ctx kctx;
	struct catalog *cat;
	struct profile_set profiles;
	const struct profile *prof; /* served platform */
	char *python;
	struct precheck *pre; /* the resident static precheck (precheck.h) */
	char *spool;
	struct store_queue *q;
	char (*tokens)[HASH_HEX_LEN + 1]; /* digests */
	size_t nr_tokens;
	unsigned long long secret_seed; /* `ranked`: never returned nor logged */
	pthread_t worker;
	bool worker_started;
	pthread_mutex_t lock;
	pthread_cond_t changed, work;
	bool stopping;
	/* Metrics, under lock. */
	long long in_flight, submitted, rejected_l1, batches;
	json_t *completed;  /* verdict -> count */
	json_t *refused;    /* http status -> count */
	long long lat_counts[SERVE_LAT_BUCKETS + 1], acc_counts[SERVE_ACC_BUCKETS + 1];
	double lat_sum, acc_sum;
	long long lat_n, acc_n;
	void *http; /* serve_http.c's daemon */
};

/*
 * The reward of a result for RL (docs/service.md): pass 1 + 0.5·clamp(log2(speedup), -1, 1)
 * (1 when untimed), hack -1, other failures of the candidate 0, NAN (null) when the verdict is
 * not the candidate's doing (ref_error, skipped, degenerate, env) or there is none.
 */
double serve_reward(const char *verdict, double speedup);

/* SHA-256 of a token as hex (what the server keeps and compares). */
void serve_token_digest(const char *token, size_t len, char out[HASH_HEX_LEN + 1]);
/*
 * Reads the tokens file (one per line; blank lines and '#' comments skipped; surrounding white
 * space trimmed) into the digests of s. -errno with err set; -EINVAL when it has none.
 */
int serve_load_tokens(struct serve *s, const char *path, struct strbuf *err) KGB_WUR;
/* Whether the header value "Bearer <token>" names a known token; its digest into out. */
bool serve_auth(const struct serve *s, const char *authorization, char out[HASH_HEX_LEN + 1]);

/* Loads the catalog and profile, opens the queue, recovers it. A KGB_EXIT_* code (printed). */
int serve_init(struct serve *s, const struct serve_opts *o, struct kgb_ctx *kctx);
int serve_start(struct serve *s);
void serve_stop(struct serve *s);
void serve_release(struct serve *s);

/*
 * One submission (a JSON object) by token `token` (a digest): *ret_status an HTTP status and
 * *ret_body (new reference) the response. Runs the static precheck (runtime/precheck.py) in a
 * child process, never here.
 */
void serve_submit(struct serve *s, const char *token, json_t *req, int *ret_status,
		  json_t **ret_body);
/* POST /v1/evaluations:batch: {"evaluations": [...]}. */
void serve_submit_batch(struct serve *s, const char *token, json_t *req, int *ret_status,
			json_t **ret_body);
/* GET /v1/evaluations/{id}, waiting up to wait_s for it to be done. */
void serve_status(struct serve *s, const char *id, double wait_s, int *ret_status,
		  json_t **ret_body);
/* GET /v1/tasks and /v1/tasks/{name}. */
void serve_tasks(struct serve *s, int *ret_status, json_t **ret_body);
void serve_task(struct serve *s, const char *name, int *ret_status, json_t **ret_body);
void serve_health(struct serve *s, int *ret_status, json_t **ret_body);
/* The Prometheus text of GET /metrics into out. */
void serve_metrics(struct serve *s, struct strbuf *out);
/* Counts a refused request (its status) for /metrics; records an accept latency. */
void serve_count_refused(struct serve *s, int status);
void serve_count_accept(struct serve *s, double seconds);

/* A JSON error body {"error": {"status": n, "message": ...}} (new reference). */
json_t *serve_error(int status, const char *fmt, ...) KGB_PRINTF(2, 3);

/* Routing of serve_http.c (pure): what a method and path ask for. */
enum serve_route {
	SERVE_ROUTE_NOT_FOUND,
	SERVE_ROUTE_BAD_METHOD, /* a known path, another method: *ret_allow names the right one */
	SERVE_ROUTE_SUBMIT,
	SERVE_ROUTE_BATCH,
	SERVE_ROUTE_STATUS, /* *ret_arg: the id */
	SERVE_ROUTE_TASKS,
	SERVE_ROUTE_TASK, /* *ret_arg: the task name */
	SERVE_ROUTE_HEALTH,
	SERVE_ROUTE_METRICS,
};
enum serve_route serve_route(const char *method, const char *path, const char **ret_arg,
			     const char **ret_allow);

/* serve_http.c: the HTTP daemon on s->o's address. */
int serve_http_start(struct serve *s, unsigned *ret_port, struct strbuf *err) KGB_WUR;
/*
 * Whether serve_http_start() could listen as `o` says: libmicrohttpd loads, and o's address and
 * port can be bound now (a socket bound and closed again, with the SO_REUSEADDR libmicrohttpd
 * sets). Before serve_init(), so that a command line that cannot serve fails before the store
 * and the spool are made. 0, or negative errno with err set (as serve_http_start()'s).
 */
int serve_http_check(const struct serve_opts *o, struct strbuf *err) KGB_WUR;
void serve_http_stop(struct serve *s);

/* ---- between serve.c and serve_slurm.c ---- */

/* The kgb.eval.v1 records of run run_id of st, by sample (the submission id): a new object. */
json_t *serve_run_records(struct store *st, long long run_id, const char *platform,
			  const char *store_path, struct strbuf *err);

/*
 * The candidates eo names (written under eo->solutions, which the compute nodes must see)
 * evaluated as the shards of a Slurm run in run_dir (a new directory, made 0700: its plan
 * holds the seed), merged into the server's store once every shard is done: their records by
 * submission id (the caller's to release), or NULL with *ret_exit the reason (KGB_EXIT_ENV:
 * Slurm stayed unreachable or refused the job; KGB_EXIT_INTERRUPTED: the server stops, the
 * shards keep running and are not waited for).
 */
json_t *serve_slurm_phase(struct serve *s, struct eval_opts *eo, const char *run_dir,
			  int *ret_exit);

#endif
