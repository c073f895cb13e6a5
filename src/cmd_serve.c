/*
 * cmd_serve.c - `kgb serve`: the verification service (docs/service.md).
 *
 * Option parsing and startup only: the service is serve.c (queue worker, submissions) and
 * serve_http.c (HTTP). Runs until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kgb.h"
#include "serve.h"
#include "slurm_run.h"
#include "util/parse.h"
#include "util/xalloc.h"

static void usage(void)
{
	printf("usage: kgb serve [options]\n"
	       "\n"
	       "Runs the verification service: an HTTP/1.1 JSON API that judges candidate\n"
	       "kernels with the engine of kgb eval (same sandbox, judge and verdicts), queued\n"
	       "durably in the store, with a reward for RL (docs/service.md). Runs until SIGINT\n"
	       "or SIGTERM; a killed server loses no accepted submission.\n"
	       "\n"
	       "  --listen ADDR:PORT  IPv4 address and port (default 127.0.0.1:8080; port 0: any\n"
	       "                    free port, printed on stderr); TLS belongs to a reverse proxy\n"
	       "  --tokens FILE     bearer tokens, one per line (kept only as SHA-256 digests);\n"
	       "                    without it no authentication, and only a loopback address\n"
	       "  --store PATH      results store and queue (default $KGB_STORE or\n"
	       "                    ./kgb-results.db)\n"
	       "  --platform P      platform profile or runtime (default: detected)\n"
	       "  -j, --slots N     checking slots of each batch (default: as kgb eval)\n"
	       "  --batch N         candidates per engine run (default 32)\n"
	       "  --timeout SEC     wall-clock limit per candidate (default 300)\n"
	       "  --max-queued N    submissions queued or running per token (default 64);\n"
	       "                    past it 429 with Retry-After\n"
	       "  --max-queue N     submissions queued in all (default 10000)\n"
	       "  --max-code BYTES  one candidate's source (default 262144); past it 413\n"
	       "  --max-body BYTES  one request's body (default 4194304; a batch's bound)\n"
	       "  --max-wait SEC    longest ?wait= long poll (default 60)\n"
	       "  --connections N   concurrent HTTP connections (default 128)\n"
	       "  --spool DIR       batch directories (default <store>.spool)\n"
	       "  --python PATH     Python for workers (default $KGB_PYTHON or <root>/.venv)\n"
	       "  --sandbox=MODE    worker isolation: auto (default), strict or off (kgb eval)\n"
	       "  --memory-limit MIB  memory per worker (kgb eval)\n"
	       "\n"
	       "With --backend slurm each batch is the shards of a Slurm run under --run-dir DIR\n"
	       "(the batches' spool too: the compute nodes must see it), merged into --store once\n"
	       "done; --platform names the nodes' platform (docs/service.md, docs/cluster.md).\n"
	       "%s", slurm_run_usage);
}

enum {
	OPT_LISTEN = 0x100,
	OPT_TOKENS,
	OPT_STORE,
	OPT_PLATFORM,
	OPT_BATCH,
	OPT_TIMEOUT,
	OPT_MAX_QUEUED,
	OPT_MAX_QUEUE,
	OPT_MAX_CODE,
	OPT_MAX_BODY,
	OPT_MAX_WAIT,
	OPT_CONNECTIONS,
	OPT_SPOOL,
	OPT_PYTHON,
	OPT_SANDBOX,
	OPT_MEMORY_LIMIT,
};

/* "ADDR:PORT" (or ":PORT", or "PORT") into o; 0 or a usage error. */
static int parse_listen(const char *arg, struct serve_opts *o, char **ret_addr)
{
	const char *colon = strrchr(arg, ':');
	long port;

	if (parse_int_range(colon ? colon + 1 : arg, 0, 65535, &port) < 0)
		return kgb_usage_error("serve", "--listen: expected ADDR:PORT, got '%s'", arg);
	o->port = (unsigned)port;
	if (colon && colon > arg) {
		*ret_addr = xstrndup(arg, (size_t)(colon - arg));
		o->listen_addr = *ret_addr;
	}
	return 0;
}

static int parse_num(int c, const char *arg, struct serve_opts *o)
{
	unsigned long long u;
	long l;

	switch (c) {
	case 'j':
		if (parse_int_range(arg, 1, 1024, &l) < 0)
			return kgb_usage_error("serve", "--slots: expected 1..1024, got '%s'", arg);
		o->slots = (unsigned)l;
		return 0;
	case OPT_BATCH:
		if (parse_int_range(arg, 1, 1024, &l) < 0)
			return kgb_usage_error("serve", "--batch: expected 1..1024, got '%s'", arg);
		o->batch_size = (unsigned)l;
		return 0;
	case OPT_CONNECTIONS:
		if (parse_int_range(arg, 1, 4096, &l) < 0)
			return kgb_usage_error("serve", "--connections: expected 1..4096, got '%s'",
					       arg);
		o->connections = (unsigned)l;
		return 0;
	case OPT_TIMEOUT:
		if (parse_double(arg, &o->timeout_s) < 0 || !(o->timeout_s > 0))
			return kgb_usage_error("serve", "--timeout: expected seconds > 0, got '%s'",
					       arg);
		return 0;
	case OPT_MAX_WAIT:
		if (parse_double(arg, &o->max_wait_s) < 0 || !(o->max_wait_s >= 0) ||
		    o->max_wait_s > 3600)
			return kgb_usage_error("serve", "--max-wait: expected 0..3600 seconds, got "
					       "'%s'", arg);
		return 0;
	case OPT_MAX_QUEUED:
	case OPT_MAX_QUEUE:
		if (parse_int_range(arg, 1, 1000000, &l) < 0)
			return kgb_usage_error("serve", "%s: expected 1..1000000, got '%s'",
					       c == OPT_MAX_QUEUED ? "--max-queued" : "--max-queue",
					       arg);
		*(c == OPT_MAX_QUEUED ? &o->max_queued : &o->max_queue) = l;
		return 0;
	case OPT_MAX_CODE:
	case OPT_MAX_BODY:
		if (parse_ull(arg, &u) < 0 || u < 1024 || u > (64ULL << 20))
			return kgb_usage_error("serve", "%s: expected 1024..67108864 bytes, got '%s'",
					       c == OPT_MAX_CODE ? "--max-code" : "--max-body", arg);
		*(c == OPT_MAX_CODE ? &o->max_code_bytes : &o->max_body_bytes) = (size_t)u;
		return 0;
	case OPT_MEMORY_LIMIT:
		if (parse_ull(arg, &o->memory_mib) < 0 || !o->memory_mib ||
		    o->memory_mib > (1ULL << 30))
			return kgb_usage_error("serve", "--memory-limit: expected MiB > 0, got '%s'",
					       arg);
		return 0;
	default:
		return -ENOENT;
	}
}

static int parse_args(int argc, char **argv, struct serve_opts *o, struct slurm_run_opts *sr,
		      char **ret_addr)
{
	static const struct option opts[] = {
		{"listen", required_argument, NULL, OPT_LISTEN},
		{"tokens", required_argument, NULL, OPT_TOKENS},
		{"store", required_argument, NULL, OPT_STORE},
		{"platform", required_argument, NULL, OPT_PLATFORM},
		{"slots", required_argument, NULL, 'j'},
		{"jobs", required_argument, NULL, 'j'},
		{"batch", required_argument, NULL, OPT_BATCH},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"max-queued", required_argument, NULL, OPT_MAX_QUEUED},
		{"max-queue", required_argument, NULL, OPT_MAX_QUEUE},
		{"max-code", required_argument, NULL, OPT_MAX_CODE},
		{"max-body", required_argument, NULL, OPT_MAX_BODY},
		{"max-wait", required_argument, NULL, OPT_MAX_WAIT},
		{"connections", required_argument, NULL, OPT_CONNECTIONS},
		{"spool", required_argument, NULL, OPT_SPOOL},
		{"python", required_argument, NULL, OPT_PYTHON},
		{"sandbox", required_argument, NULL, OPT_SANDBOX},
		{"memory-limit", required_argument, NULL, OPT_MEMORY_LIMIT},
		SLURM_RUN_LONG_OPTIONS,
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_LISTEN:
			if ((r = parse_listen(optarg, o, ret_addr)))
				return r;
			break;
		case OPT_TOKENS:
			o->tokens_path = optarg;
			break;
		case OPT_STORE:
			o->store_path = optarg;
			break;
		case OPT_PLATFORM:
			o->platform = optarg;
			break;
		case OPT_SPOOL:
			o->spool = optarg;
			break;
		case OPT_PYTHON:
			o->python = optarg;
			break;
		case OPT_SANDBOX:
			o->sandbox = sandbox_mode_from_string(optarg);
			if (o->sandbox < 0)
				return kgb_usage_error("serve", "--sandbox: expected auto, strict or "
						       "off, got '%s'", optarg);
			break;
		case 'h':
			usage();
			return -1;
		default:
			r = parse_num(c, optarg, o);
			if (r == -ENOENT)
				r = slurm_run_parse_opt(sr, "serve", c, optarg);
			if (r == -ENOENT)
				return kgb_usage_error("serve", "unknown option");
			if (r)
				return r;
		}
	}
	if (optind < argc)
		return kgb_usage_error("serve", "unexpected argument '%s'", argv[optind]);
	if ((r = slurm_run_check_opts(sr, "serve", false)))
		return r;
	if (sr->shard >= 0)
		return kgb_usage_error("serve", "--shard is a shard's own call, not the server's");
	if (sr->slurm && !o->platform)
		return kgb_usage_error("serve", "--backend slurm: name the platform the compute "
				       "nodes run (--platform P)");
	if (sr->slurm) {
		o->slurm = sr;
		if (!o->spool) /* the nodes read the candidates: the spool on the shared run dir */
			o->spool = sr->run_dir;
	}
	return 0;
}

static int stop_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (write(stop_pipe[1], &c, 1) < 0) {
		/* Nothing to do: the pipe holds a byte already. */
	}
	errno = saved;
}

static bool loopback(const char *addr)
{
	return !strncmp(addr, "127.", 4);
}

int cmd_serve(int argc, char **argv, struct kgb_ctx *kctx)
{
	struct serve_opts o = {.listen_addr = "127.0.0.1", .port = 8080, .timeout_s = 300,
			       .sandbox = SANDBOX_AUTO, .max_code_bytes = 262144,
			       .max_body_bytes = 4194304, .max_queued = 64, .max_queue = 10000,
			       .batch_size = 32, .connections = 128, .max_wait_s = 60};
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	struct strbuf err = STRBUF_INIT;
	struct slurm_run_opts sr = {.shard = -1};
	struct serve s;
	char *addr = NULL, c;
	unsigned port = 0;
	long long queued = 0;
	int ret, r;

	r = parse_args(argc, argv, &o, &sr, &addr);
	if (r) {
		ret = r < 0 ? KGB_EXIT_OK : r;
		goto out_args;
	}
	if (!o.tokens_path && !loopback(o.listen_addr)) {
		ret = kgb_usage_error("serve", "--listen %s without --tokens: anyone who reaches "
				      "the port could submit code; give --tokens FILE",
				      o.listen_addr);
		goto out_args;
	}
	if (!o.store_path)
		o.store_path = getenv("KGB_STORE") && *getenv("KGB_STORE") ? getenv("KGB_STORE")
									   : "kgb-results.db";
	/* A server that cannot listen (no libmicrohttpd, the port taken) makes no store. */
	if (serve_http_check(&o, &err) < 0) {
		fprintf(stderr, "kgb serve: %s\n", err.buf);
		strbuf_release(&err);
		ret = KGB_EXIT_ENV;
		goto out_args;
	}
	ret = serve_init(&s, &o, kctx);
	if (ret != KGB_EXIT_OK)
		goto out_release;
	if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		fprintf(stderr, "kgb serve: pipe: %s\n", strerror(errno));
		ret = KGB_EXIT_ENV;
		goto out_release;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (serve_http_start(&s, &port, &err) < 0) {
		fprintf(stderr, "kgb serve: %s\n", err.buf);
		ret = KGB_EXIT_ENV;
		goto out_release;
	}
	if (serve_start(&s) < 0) {
		fprintf(stderr, "kgb serve: cannot start the queue worker\n");
		serve_http_stop(&s);
		ret = KGB_EXIT_ENV;
		goto out_release;
	}
	fprintf(stderr, "kgb serve: listening on http://%s:%u (platform %s, store %s%s)\n",
		o.listen_addr, port, s.prof->name, o.store_path,
		o.tokens_path ? "" : ", no authentication");
	for (;;) {
		struct pollfd p = {.fd = stop_pipe[0], .events = POLLIN};

		if (poll(&p, 1, -1) > 0 && read(stop_pipe[0], &c, 1) == 1)
			break;
	}
	fprintf(stderr, "kgb serve: stopping\n");
	pthread_mutex_lock(&s.lock);
	s.stopping = true; /* long polls answer now */
	pthread_cond_broadcast(&s.changed);
	pthread_mutex_unlock(&s.lock);
	serve_http_stop(&s);
	pthread_mutex_lock(&s.lock);
	queued = s.in_flight;
	pthread_mutex_unlock(&s.lock);
	if (queued) {
		/*
		 * The batch's rows stay `running`: the next start queues them again. The worker
		 * still runs: what it reads (the options, sr) stays until the process ends.
		 */
		fprintf(stderr, "kgb serve: stopped mid-batch: its %lld submission%s run again at "
			"the next start\n", queued, queued == 1 ? "" : "s");
		strbuf_release(&err);
		free(addr);
		return KGB_EXIT_INTERRUPTED;
	}
	serve_stop(&s);
	ret = KGB_EXIT_OK;
out_release:
	serve_release(&s);
	strbuf_release(&err);
out_args:
	free(addr);
	slurm_run_opts_release(&sr);
	return ret;
}
