/*
 * serve_http.c - the HTTP side of `kgb serve` (serve.h): routing, bodies, limits, auth, JSON
 * errors, on libmicrohttpd (mhd.h) with a thread per connection (a long poll waits in its own
 * thread; MHD caps the connections).
 */
#include "serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mhd.h"
#include "util/parse.h"
#include "util/xalloc.h"

enum serve_route serve_route(const char *method, const char *path, const char **ret_arg,
			     const char **ret_allow)
{
	static const struct {
		const char *path;
		bool prefix; /* path + "/" + arg */
		const char *method;
		enum serve_route route;
	} table[] = {
		{"/v1/evaluations", false, "POST", SERVE_ROUTE_SUBMIT},
		{"/v1/evaluations:batch", false, "POST", SERVE_ROUTE_BATCH},
		{"/v1/evaluations", true, "GET", SERVE_ROUTE_STATUS},
		{"/v1/tasks", false, "GET", SERVE_ROUTE_TASKS},
		{"/v1/tasks", true, "GET", SERVE_ROUTE_TASK},
		{"/healthz", false, "GET", SERVE_ROUTE_HEALTH},
		{"/metrics", false, "GET", SERVE_ROUTE_METRICS},
	};

	*ret_arg = NULL;
	*ret_allow = NULL;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		size_t n = strlen(table[i].path);
		const char *arg = NULL;

		if (strncmp(path, table[i].path, n))
			continue;
		if (table[i].prefix) {
			if (path[n] != '/' || !path[n + 1])
				continue;
			arg = path + n + 1;
			/* An id has no '/'; a task name may ("aten/add"), one at most. */
			if (table[i].route == SERVE_ROUTE_STATUS && strchr(arg, '/'))
				continue;
			if (table[i].route == SERVE_ROUTE_TASK && strchr(arg, '/') &&
			    (strchr(strchr(arg, '/') + 1, '/') || !strchr(arg, '/')[1]))
				continue;
		} else if (path[n]) {
			continue;
		}
		/* HEAD is GET without a body (MHD leaves the body out). */
		if (strcmp(method, table[i].method) &&
		    !(!strcmp(method, "HEAD") && !strcmp(table[i].method, "GET"))) {
			*ret_allow = table[i].method;
			return SERVE_ROUTE_BAD_METHOD;
		}
		*ret_arg = arg;
		return table[i].route;
	}
	return SERVE_ROUTE_NOT_FOUND;
}

/* One request's state across libmicrohttpd's calls. */
struct req {
	struct strbuf body;
	size_t limit;
	bool too_big, answered;
	double t0;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static enum MHD_Result send_text(struct MHD_Connection *c, int status, const char *type,
				 char *text, size_t len, const char *retry_after,
				 const char *allow)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(text);
		return MHD_NO;
	}
	mhd.add_response_header(r, "Content-Type", type);
	mhd.add_response_header(r, "Cache-Control", "no-store");
	if (retry_after)
		mhd.add_response_header(r, "Retry-After", retry_after);
	if (allow)
		mhd.add_response_header(r, "Allow", allow);
	if (status == 401)
		mhd.add_response_header(r, "WWW-Authenticate", "Bearer realm=\"kgb\"");
	ret = mhd.queue_response(c, (unsigned)status, r);
	mhd.destroy_response(r);
	return ret;
}

/* Sends body (stolen) as JSON with status; counts the errors for /metrics. */
static enum MHD_Result send_json(struct serve *s, struct MHD_Connection *c, int status,
				 json_t *body, const char *allow)
{
	char *text = json_dumps(body, JSON_COMPACT);
	size_t len;
	char retry[32];

	json_decref(body);
	if (!text)
		return MHD_NO;
	len = strlen(text);
	text = xrealloc(text, len + 2);
	text[len++] = '\n';
	text[len] = '\0';
	if (status >= 400)
		serve_count_refused(s, status);
	/* A slot frees as the batch ahead ends: a few seconds on the interpreter. */
	snprintf(retry, sizeof(retry), "%d", 5);
	return send_text(c, status, "application/json", text, len, status == 429 ? retry : NULL,
			 allow);
}

static json_t *parse_body(const struct req *rq, int *ret_status, json_t **ret_err)
{
	json_error_t jerr;
	json_t *j = json_loadb(rq->body.buf, rq->body.len, JSON_REJECT_DUPLICATES, &jerr);

	if (!j) {
		*ret_status = 400;
		*ret_err = serve_error(400, "body: malformed JSON at line %d, column %d: %s",
				       jerr.line, jerr.column, jerr.text);
	}
	return j;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct serve *s = cls;
	struct req *rq = *con_cls;
	const char *arg, *allow;
	enum serve_route route = serve_route(method, url, &arg, &allow);
	char token[HASH_HEX_LEN + 1];
	int status = 500;
	json_t *body = NULL;

	(void)version;
	if (!rq) {
		const char *cl = mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
		unsigned long long n = 0;

		rq = xcalloc(1, sizeof(*rq));
		strbuf_init(&rq->body, 0);
		rq->t0 = mono_s();
		/* Room for the JSON around the code: escapes may double it, plus the fields. */
		rq->limit = route == SERVE_ROUTE_BATCH ? s->o.max_body_bytes
						       : 2 * s->o.max_code_bytes + 65536;
		if (rq->limit > s->o.max_body_bytes)
			rq->limit = s->o.max_body_bytes;
		*con_cls = rq;
		/* Refused before a byte of the body is read. */
		if (cl && parse_ull(cl, &n) == 0 && n > rq->limit) {
			rq->answered = true;
			return send_json(s, c, 413, serve_error(413, "body of %llu bytes; this "
								 "server takes at most %zu", n,
								 rq->limit), NULL);
		}
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (!rq->too_big && rq->body.len + *upload_data_size > rq->limit)
			rq->too_big = true;
		if (!rq->too_big)
			strbuf_add(&rq->body, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (rq->answered)
		return MHD_YES;
	rq->answered = true;
	if (rq->too_big)
		return send_json(s, c, 413, serve_error(413, "body over %zu bytes", rq->limit),
				 NULL);
	switch (route) {
	case SERVE_ROUTE_NOT_FOUND:
		return send_json(s, c, 404, serve_error(404, "no such endpoint '%s' (docs/"
							"service.md)", url), NULL);
	case SERVE_ROUTE_BAD_METHOD:
		return send_json(s, c, 405, serve_error(405, "%s %s: use %s", method, url, allow),
				 allow);
	case SERVE_ROUTE_HEALTH:
		serve_health(s, &status, &body);
		return send_json(s, c, status, body, NULL);
	case SERVE_ROUTE_METRICS: {
		struct strbuf m = STRBUF_INIT;
		size_t len;
		char *text;

		serve_metrics(s, &m);
		text = strbuf_detach(&m, &len);
		return send_text(c, 200, "text/plain; version=0.0.4", text, len, NULL, NULL);
	}
	default:
		break;
	}
	if (!serve_auth(s, mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Authorization"),
			token))
		return send_json(s, c, 401, serve_error(401, "missing or unknown bearer token "
							"(Authorization: Bearer <token>)"), NULL);
	switch (route) {
	case SERVE_ROUTE_SUBMIT:
	case SERVE_ROUTE_BATCH: {
		json_t *req = parse_body(rq, &status, &body);

		if (req) {
			if (route == SERVE_ROUTE_SUBMIT)
				serve_submit(s, token, req, &status, &body);
			else
				serve_submit_batch(s, token, req, &status, &body);
			json_decref(req);
			if (status < 300)
				serve_count_accept(s, mono_s() - rq->t0);
		}
		break;
	}
	case SERVE_ROUTE_STATUS: {
		const char *w = mhd.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "wait");
		double wait = 0;

		if (w && (parse_double(w, &wait) < 0 || !(wait >= 0) || !isfinite(wait))) {
			status = 422;
			body = serve_error(422, "wait: expected seconds >= 0, got '%s'", w);
			break;
		}
		serve_status(s, arg, wait, &status, &body);
		break;
	}
	case SERVE_ROUTE_TASKS:
		serve_tasks(s, &status, &body);
		break;
	case SERVE_ROUTE_TASK:
		serve_task(s, arg, &status, &body);
		break;
	default:
		status = 500;
		body = serve_error(500, "unrouted request");
	}
	return send_json(s, c, status, body, NULL);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct req *rq = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (!rq)
		return;
	strbuf_release(&rq->body);
	free(rq);
	*con_cls = NULL;
}

int serve_http_check(const struct serve_opts *o, struct strbuf *err)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port)};
	int fd, one = 1, r = 0;

	if ((r = mhd_load(err)) < 0)
		return r;
	if (inet_pton(AF_INET, o->listen_addr, &addr.sin_addr) != 1) {
		strbuf_addf(err, "--listen: '%s' is not an IPv4 address", o->listen_addr);
		return -EINVAL;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		strbuf_addf(err, "socket: %s", strerror(errno));
		return -errno;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		strbuf_addf(err, "cannot listen on %s:%u (%s)", o->listen_addr, o->port,
			    strerror(errno));
		r = -EADDRINUSE;
	}
	close(fd);
	return r;
}

int serve_http_start(struct serve *s, unsigned *ret_port, struct strbuf *err)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->o.port)};
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	int r;

	if ((r = mhd_load(err)) < 0)
		return r;
	if (inet_pton(AF_INET, s->o.listen_addr, &addr.sin_addr) != 1) {
		strbuf_addf(err, "--listen: '%s' is not an IPv4 address", s->o.listen_addr);
		return -EINVAL;
	}
	d = mhd.start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
				     MHD_USE_ERROR_LOG,
			     0, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR, &addr,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)s->o.connections,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(s->o.max_wait_s + 60),
			     MHD_OPTION_THREAD_STACK_SIZE, (size_t)(1 << 20),
			     MHD_OPTION_NOTIFY_COMPLETED, completed, s, MHD_OPTION_END);
	if (!d) {
		strbuf_addf(err, "cannot listen on %s:%u (in use, or not an address of this "
			    "machine)", s->o.listen_addr, s->o.port);
		return -EADDRINUSE;
	}
	info = mhd.get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	*ret_port = info ? info->port : s->o.port;
	s->http = d;
	return 0;
}

void serve_http_stop(struct serve *s)
{
	if (s->http)
		mhd.stop_daemon(s->http);
	s->http = NULL;
}
