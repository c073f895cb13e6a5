/*
 * proto.h - the worker protocol, kgb's side (docs/protocol.md).
 *
 * proto_build_job() renders the one job line sent to a worker; proto_parse_line() validates one
 * line received from it. Every received line is untrusted data: a line that is not a JSON
 * object, has an unknown type, lacks a required field or has one of the wrong type is -EBADMSG
 * with the reason in err; a hello with another protocol version is -EPROTO.
 */
#ifndef KGB_PROTO_H
#define KGB_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "cases.h"
#include "catalog.h"
#include "util/compiler.h"
#include "util/strbuf.h"

#define PROTO_VERSION 1
#define PROTO_MAX_LINE (1u << 20)

enum proto_msg_type {
	PROTO_HELLO,
	PROTO_LOADED,
	PROTO_CASE,
	PROTO_FATAL,
	PROTO_DONE,
	_PROTO_MSG_MAX,
};

struct proto_msg {
	enum proto_msg_type type;
	json_t *obj;	     /* the whole message, owned */
	long long case_id;   /* PROTO_CASE */
	const char *verdict; /* PROTO_CASE, PROTO_FATAL: borrowed from obj */
};

/* How the worker runs a job. NULL or {0} means: check every case, time nothing. */
struct proto_job_opts {
	bool timed;	   /* the platform times: send warmup and rounds */
	int warmup;
	int rounds;	   /* the least; the worker calibrates up from it */
	const char *timing_method; /* NULL: events (runtime/timing.py) */
	const char *mutant; /* runtime/mutants.py name, or NULL */
	const char *mode;   /* "evaluate" (NULL) or "validity" */
	bool stop_on_fail;  /* cases after the first failure come back "skipped" */
	bool stop_per_entry; /* with stop_on_fail: only the rest of the failing case's entry */
	/* A method run's library (method_job(), docs/methods.md), or NULL: never a candidate's. */
	const json_t *method;
};

/* Whether the task's jobs run the L2 ghost replay (the job's task.ghost). */
bool proto_task_ghost(const struct task *t);
/* Renders the job as one line ending in '\n'; owned by the caller. */
char *proto_build_job(const struct task *t, const char *candidate_path, const char *platform,
		      const struct case_list *cases, const struct proto_job_opts *opts);
int proto_parse_line(const char *line, size_t len, struct proto_msg *ret, struct strbuf *err)
	KGB_WUR;
void proto_msg_release(struct proto_msg *m);

#endif
