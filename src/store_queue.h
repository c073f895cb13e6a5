/*
 * store_queue.h - the durable queue of `kgb serve` (docs/service.md): the submissions table of
 * the results store.
 *
 * One row per accepted submission: its public id (random, unguessable), the SHA-256 digest of
 * the bearer token that sent it (never the token), the task, the candidate's source and its
 * hash, the options that change its evaluation (canonical JSON), the platform, its state and,
 * once done, its result (JSON). States: queued → running → done; a row is written before the
 * client hears its id, so a server killed at any point loses no accepted submission. On start,
 * store_queue_recover() turns every `running` row back into `queued`: its batch is run again,
 * and the evaluation store (content-addressed) keeps one evaluation per candidate whatever the
 * number of runs.
 *
 * The queue has its own SQLite connection to the store file (WAL: the evaluation engine writes
 * through another), serialised by a mutex: every function may be called from any thread.
 * Call sequence: store_queue_open() (after store_open() made the file) → store_queue_recover()
 * → store_queue_insert() / store_queue_claim() / store_queue_finish() / reads → store_queue_free().
 * Errors: negative errno, the SQLite message in err; -ENOENT when a looked-up row is absent.
 */
#ifndef KGB_STORE_QUEUE_H
#define KGB_STORE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"
#include "util/hash.h"
#include "util/strbuf.h"

#define STORE_QUEUE_ID_LEN 32 /* hex digits of a public id */

struct store_queue;

/* A row of the submissions table; strings owned (store_sub_release()), NULL when SQL NULL. */
struct store_sub {
	long long seq; /* queue order */
	char id[STORE_QUEUE_ID_LEN + 1];
	char *token;		 /* digest of the sender's token ("" without --tokens) */
	char *client_request_id; /* the client's own id, or NULL */
	char *task;		 /* source/op */
	char *code_hash;	 /* sha256 of code */
	char *code;
	char *options;	/* canonical JSON: {"heldout":b,"ranked":b,"seed":n} */
	char *platform; /* the profile's name */
	char *state;	/* queued, running, done */
	char *result;	/* JSON text once done: the response's result and reward */
	double created_at, started_at, finished_at; /* Unix seconds; 0 when not yet */
	long long attempts;			    /* batches it was claimed by */
};

void store_sub_release(struct store_sub *s);
void store_subs_free(struct store_sub *v, size_t n);

int store_queue_open(const char *path, struct store_queue **ret, struct strbuf *err) KGB_WUR;
void store_queue_free(struct store_queue *q);
/* running → queued (a server killed mid-batch); *ret_n gets how many. */
int store_queue_recover(struct store_queue *q, long long *ret_n, struct strbuf *err) KGB_WUR;
/* Inserts s (its id, state and fields as given; seq is set). */
int store_queue_insert(struct store_queue *q, struct store_sub *s, struct strbuf *err) KGB_WUR;
int store_queue_get(struct store_queue *q, const char *id, struct store_sub *ret,
		    struct strbuf *err) KGB_WUR;
/* The submission of this token with this client request id: 0 or -ENOENT. */
int store_queue_find_client(struct store_queue *q, const char *token, const char *crid,
			    struct store_sub *ret, struct strbuf *err) KGB_WUR;
/*
 * A submission of the same task, code hash, options and platform: a done one first (the
 * earliest), else one queued or running. 0 or -ENOENT.
 */
int store_queue_find_same(struct store_queue *q, const char *task, const char *code_hash,
			  const char *options, const char *platform, struct store_sub *ret,
			  struct strbuf *err) KGB_WUR;
/* Rows of `state` (queued, running or done), of one token (NULL: all) into *ret_n. */
int store_queue_count(struct store_queue *q, const char *token, const char *state,
		      long long *ret_n, struct strbuf *err) KGB_WUR;
/* Queued rows ahead of seq. */
int store_queue_position(struct store_queue *q, long long seq, long long *ret_n,
			 struct strbuf *err) KGB_WUR;
/*
 * Claims a batch: the oldest queued row and up to max - 1 more of the same options and
 * platform, in queue order, none of whose op (the part after '/') is the op of another
 * source's task already in the batch (the engine finds candidates by op). They become
 * `running` (attempts + 1, started_at now) in one transaction. *ret (owned, store_subs_free)
 * may be empty.
 */
int store_queue_claim(struct store_queue *q, size_t max, struct store_sub **ret, size_t *ret_nr,
		      struct strbuf *err) KGB_WUR;
/* The row becomes done with this result (JSON text). */
int store_queue_finish(struct store_queue *q, const char *id, const char *result,
		       struct strbuf *err) KGB_WUR;
/* The row goes back to queued (its batch failed for the machine's fault). */
int store_queue_requeue(struct store_queue *q, const char *id, struct strbuf *err) KGB_WUR;

#endif
