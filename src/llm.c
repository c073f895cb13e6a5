/*
 * llm.c - OpenAI-compatible and Anthropic chat clients on libcurl's multi interface.
 *
 * One thread drives every transfer: curl_multi_poll() waits on the sockets and on the next
 * retry that falls due, so `concurrency` requests overlap without threads or locks, and the
 * budget check before each new request sees every reply counted so far.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "llm.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* A reply larger than this is not a chat completion; the attempt fails. */
#define LLM_MAX_REPLY_BYTES (16u << 20)
/* What of an error body goes into a message. */
#define LLM_ERROR_EXCERPT 300
#define LLM_MAX_BACKOFF_S 60.0

struct llm_client {
	struct llm_config cfg;
	char *url;
	CURLM *multi;
	long long tokens; /* prompt + completion over every reply of the run */
	double usd;
};

/* One request's transfer state across its attempts. */
struct transfer {
	struct llm_request *req;
	CURL *easy; /* non-NULL while an attempt is in flight */
	struct curl_slist *headers;
	char *body;
	struct strbuf reply;
	bool too_big;
	double started; /* monotonic seconds of the first attempt; <0 before it */
	double due;	/* when the next attempt may start */
};

void llm_request_release(struct llm_request *r)
{
	free(r->text);
	free(r->finish);
	free(r->error);
	r->text = r->finish = r->error = NULL;
}

static bool curl_ready;

const char *llm_max_tokens_field(enum llm_api api)
{
	return api == LLM_API_OPENAI ? "max_completion_tokens" : "max_tokens";
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

char *llm_endpoint(enum llm_api api, const char *base_url)
{
	const char *scheme = strstr(base_url, "://");
	const char *host = scheme ? scheme + 3 : base_url;
	size_t len = strlen(base_url);
	struct strbuf url = STRBUF_INIT;
	bool no_path;

	while (len && base_url[len - 1] == '/')
		len--;
	no_path = !memchr(host, '/', len - (size_t)(host - base_url));
	strbuf_add(&url, base_url, len);
	if (api == LLM_API_OPENAI) {
		if (!ends_with(base_url, len, "/chat/completions"))
			strbuf_addstr(&url, no_path ? "/v1/chat/completions" : "/chat/completions");
	} else if (ends_with(base_url, len, "/v1")) {
		strbuf_addstr(&url, "/messages");
	} else if (!ends_with(base_url, len, "/v1/messages")) {
		strbuf_addstr(&url, "/v1/messages");
	}
	return strbuf_detach(&url, NULL);
}

bool llm_param_allowed(const char *key, const char **why)
{
	static const char *const owned[] = {"model", "messages", "system", "stream"};

	for (size_t i = 0; i < ARRAY_SIZE(owned); i++)
		if (!strcmp(key, owned[i])) {
			*why = "kgb sets it in every request (the model is --model, the "
			       "conversation is the task's, --stream streams)";
			return false;
		}
	return true;
}

int llm_client_new(const struct llm_config *cfg, struct llm_client **ret, struct strbuf *err)
{
	struct llm_client *c;

	if (!cfg->base_url || !*cfg->base_url || !cfg->model || !*cfg->model) {
		strbuf_addstr(err, "a base URL and a model are required");
		return -EINVAL;
	}
	if (cfg->budget_usd > 0 && (isnan(cfg->price.input) || isnan(cfg->price.output))) {
		strbuf_addf(err, "a money budget needs the price of model '%s' (--prices)", cfg->model);
		return -EINVAL;
	}
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			strbuf_addstr(err, "libcurl did not initialise");
			return -EIO;
		}
		curl_ready = true;
	}
	c = xcalloc(1, sizeof(*c));
	c->cfg = *cfg;
	if (!c->cfg.concurrency)
		c->cfg.concurrency = 1;
	if (!c->cfg.max_tokens_field)
		c->cfg.max_tokens_field = llm_max_tokens_field(cfg->api);
	c->url = llm_endpoint(cfg->api, cfg->base_url);
	c->multi = curl_multi_init();
	if (!c->multi) {
		free(c->url);
		free(c);
		strbuf_addstr(err, "curl_multi_init failed");
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

void llm_client_free(struct llm_client *c)
{
	if (!c)
		return;
	curl_multi_cleanup(c->multi);
	free(c->url);
	free(c);
}

void llm_totals(const struct llm_client *c, long long *ret_tokens, double *ret_usd)
{
	*ret_tokens = c->tokens;
	*ret_usd = c->usd;
}

/* ---- request bodies ---- */

static char *request_body(const struct llm_config *cfg, const struct llm_request *r)
{
	json_t *root = json_object(), *msgs = json_array();
	struct strbuf system = STRBUF_INIT;
	char *text;

	json_object_set_new(root, "model", json_string(cfg->model));
	if (*cfg->max_tokens_field)
		json_object_set_new(root, cfg->max_tokens_field, json_integer(cfg->max_tokens));
	if (!isnan(cfg->temperature))
		json_object_set_new(root, "temperature", json_real(cfg->temperature));
	for (size_t i = 0; i < r->nr_msgs; i++) {
		const struct llm_message *m = &r->msgs[i];

		/* Anthropic takes the system prompt beside the messages, not among them. */
		if (cfg->api == LLM_API_ANTHROPIC && !strcmp(m->role, "system")) {
			if (system.len)
				strbuf_addstr(&system, "\n\n");
			strbuf_addstr(&system, m->content);
			continue;
		}
		json_array_append_new(msgs, json_pack("{s:s, s:s}", "role", m->role, "content",
						      m->content));
	}
	if (system.len)
		json_object_set_new(root, "system", json_string(system.buf));
	json_object_set_new(root, "messages", msgs);
	if (cfg->stream) {
		json_object_set_new(root, "stream", json_true());
		if (cfg->api == LLM_API_OPENAI) /* without it, a stream carries no token counts */
			json_object_set_new(root, "stream_options",
					    json_pack("{s:b}", "include_usage", 1));
	}
	/* The user's fields last: they replace kgb's (llm_param_allowed() keeps the owned ones). */
	if (cfg->params)
		json_object_update(root, cfg->params);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	strbuf_release(&system);
	return text;
}

/* ---- reply parsing ---- */

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? xstrdup(s) : NULL;
}

/* A count no reply can honestly hold; above it (or below 0) the usage is not believed. */
#define LLM_MAX_TOKENS_PER_REPLY 1000000000000LL

/* A token count field: 0 when absent, -1 when present but not a sane count. */
static long long int_field(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > LLM_MAX_TOKENS_PER_REPLY)
		return -1;
	return json_integer_value(v);
}

/*
 * Usage objects of both APIs into r; false when `usage` is not one or holds a count that is not
 * a sane non-negative integer (a reply whose tokens cannot be counted is not used).
 */
static bool take_usage(enum llm_api api, json_t *usage, struct llm_request *r)
{
	if (!json_is_object(usage))
		return false;
	if (api == LLM_API_OPENAI) {
		long long p = int_field(usage, "prompt_tokens"), c = int_field(usage,
			"completion_tokens"), k = int_field(json_object_get(usage,
			"prompt_tokens_details"), "cached_tokens");

		if (!json_is_integer(json_object_get(usage, "prompt_tokens")) || p < 0 || c < 0 ||
		    k < 0 || k > p)
			return false;
		r->prompt_tokens = p;
		r->completion_tokens = c;
		r->cached_tokens = k;
		return true;
	}
	/* Anthropic: input_tokens excludes the cached part, which is billed apart. */
	if (json_object_get(usage, "input_tokens")) {
		long long in = int_field(usage, "input_tokens");
		long long rd = int_field(usage, "cache_read_input_tokens");
		long long cr = int_field(usage, "cache_creation_input_tokens");

		if (in < 0 || rd < 0 || cr < 0)
			return false;
		r->cached_tokens = rd;
		r->prompt_tokens = in + rd + cr; /* each <= 1e12: no overflow */
	}
	if (json_object_get(usage, "output_tokens")) { /* message_delta: the running total */
		long long out = int_field(usage, "output_tokens");

		if (out < 0)
			return false;
		r->completion_tokens = out;
	}
	return true;
}

static int error_object(json_t *root, struct strbuf *err)
{
	json_t *e = json_object_get(root, "error");
	const char *msg;

	if (!e)
		return 0;
	msg = json_string_value(json_object_get(e, "message"));
	strbuf_addf(err, "the server reported an error: %s",
		    msg ? msg : json_is_string(e) ? json_string_value(e) : "(no message)");
	return -EPROTO;
}

static int parse_whole(enum llm_api api, json_t *root, struct llm_request *r, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int ret;

	if ((ret = error_object(root, err)) < 0)
		return ret;
	if (api == LLM_API_OPENAI) {
		json_t *choice = json_array_get(json_object_get(root, "choices"), 0);
		json_t *msg = json_object_get(choice, "message");
		const char *content = json_string_value(json_object_get(msg, "content"));
		const char *refusal = json_string_value(json_object_get(msg, "refusal"));

		if (!json_is_object(msg)) {
			strbuf_addstr(err, "the reply has no choices[0].message");
			return -EPROTO;
		}
		set_str(&r->text, content ? content : refusal ? refusal : "");
		set_str(&r->finish, !content && refusal ? "refusal"
				   : json_string_value(json_object_get(choice, "finish_reason")));
	} else {
		json_t *blocks = json_object_get(root, "content"), *b;
		size_t i;

		if (!json_is_array(blocks)) {
			strbuf_addstr(err, "the reply has no content array");
			return -EPROTO;
		}
		json_array_foreach(blocks, i, b) {
			const char *t = json_string_value(json_object_get(b, "text"));

			if (t && !strcmp(json_string_value(json_object_get(b, "type")) ?: "", "text"))
				strbuf_addstr(&text, t);
		}
		set_str(&r->text, text.buf);
		set_str(&r->finish, json_string_value(json_object_get(root, "stop_reason")));
	}
	strbuf_release(&text);
	if (!take_usage(api, json_object_get(root, "usage"), r)) {
		strbuf_addstr(err, "the reply carries no valid token usage, and kgb counts every token");
		return -ENODATA;
	}
	return 0;
}

/* One server-sent event's data (a JSON object) of a stream. */
static int parse_event(enum llm_api api, json_t *ev, struct llm_request *r, struct strbuf *text,
		       bool *done, bool *usage, struct strbuf *err)
{
	int ret;

	if ((ret = error_object(ev, err)) < 0)
		return ret;
	if (api == LLM_API_OPENAI) {
		json_t *choice = json_array_get(json_object_get(ev, "choices"), 0);
		json_t *delta = json_object_get(choice, "delta");
		const char *piece = json_string_value(json_object_get(delta, "content"));
		const char *fin = json_string_value(json_object_get(choice, "finish_reason"));

		if (piece)
			strbuf_addstr(text, piece);
		if (fin)
			set_str(&r->finish, fin);
		if (take_usage(api, json_object_get(ev, "usage"), r))
			*usage = true;
		return 0;
	}
	{
		const char *type = json_string_value(json_object_get(ev, "type")) ?: "";

		if (!strcmp(type, "message_start")) {
			if (take_usage(api, json_object_get(json_object_get(ev, "message"), "usage"),
				       r))
				*usage = true;
		} else if (!strcmp(type, "content_block_delta")) {
			const char *piece = json_string_value(
				json_object_get(json_object_get(ev, "delta"), "text"));

			if (piece)
				strbuf_addstr(text, piece);
		} else if (!strcmp(type, "message_delta")) {
			const char *fin = json_string_value(
				json_object_get(json_object_get(ev, "delta"), "stop_reason"));

			if (fin)
				set_str(&r->finish, fin);
			if (json_object_get(ev, "usage") &&
			    !take_usage(api, json_object_get(ev, "usage"), r))
				*usage = false; /* a count not to be believed: none at all */
		} else if (!strcmp(type, "message_stop")) {
			*done = true;
		}
	}
	return 0;
}

/*
 * A stream request answered with one JSON body instead of events (a server or proxy that
 * does not stream this API): the server's error if it is one, else -EMEDIUMTYPE with the
 * body's usage in r when it holds a valid one, so that what was spent is still counted.
 */
static int parse_not_stream(enum llm_api api, const char *body, size_t len,
			    struct llm_request *r, struct strbuf *err)
{
	json_t *root = json_loadb(body, len, 0, NULL);
	int ret = error_object(root, err);

	if (ret == 0) {
		struct llm_request got = {0};

		if (take_usage(api, json_object_get(root, "usage"), &got)) {
			r->prompt_tokens = got.prompt_tokens;
			r->completion_tokens = got.completion_tokens;
			r->cached_tokens = got.cached_tokens;
		}
		strbuf_addstr(err, "the server answered a stream request with one JSON body, not "
				   "server-sent events (it does not stream this API: run without "
				   "--stream)");
		ret = -EMEDIUMTYPE;
	}
	json_decref(root);
	return ret;
}

static int parse_stream(enum llm_api api, const char *body, size_t len, struct llm_request *r,
			struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	const char *p = body, *end = body + len;
	bool done = false, usage = false;
	int ret = 0;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	if (p < end && *p == '{')
		return parse_not_stream(api, p, (size_t)(end - p), r, err);

	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t n = (size_t)(eol - p);

		if (n && p[n - 1] == '\r')
			n--;
		if (n >= 5 && !memcmp(p, "data:", 5)) {
			const char *d = p + 5;
			size_t dn = n - 5;
			json_t *ev;
			json_error_t je;

			while (dn && *d == ' ')
				d++, dn--;
			if (dn == 6 && !memcmp(d, "[DONE]", 6)) {
				done = true;
			} else if ((ev = json_loadb(d, dn, 0, &je))) {
				ret = parse_event(api, ev, r, &text, &done, &usage, err);
				json_decref(ev);
			} else {
				strbuf_addf(err, "a stream event is not JSON: %s", je.text);
				ret = -EPROTO;
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (!ret && !done) {
		strbuf_addstr(err, "the stream ended before its end marker (cut off)");
		ret = -EPROTO;
	}
	if (!ret && !usage) {
		strbuf_addstr(err, "the stream carries no valid token usage, and kgb counts every token");
		ret = -ENODATA;
	}
	if (!ret)
		set_str(&r->text, text.buf);
	strbuf_release(&text);
	return ret;
}

int llm_parse_reply(enum llm_api api, bool stream, const char *body, size_t len,
		    struct llm_request *r, struct strbuf *err)
{
	json_t *root;
	json_error_t je;
	int ret;

	if (stream)
		return parse_stream(api, body, len, r, err);
	root = json_loadb(body, len, 0, &je);
	if (!root) {
		strbuf_addf(err, "the reply is not JSON (line %d: %s)", je.line, je.text);
		return -EPROTO;
	}
	ret = parse_whole(api, root, r, err);
	json_decref(root);
	return ret;
}

/* ---- prices ---- */

int llm_price_load(const char *path, const char *model, struct llm_price *ret, struct strbuf *err)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je), *m;
	const char *fields[] = {"input", "cached_input", "output"};
	double *dst[] = {&ret->input, &ret->cached_input, &ret->output};
	int r = 0;

	if (!root && je.line < 0) { /* not a parse error: the file itself */
		strbuf_addf(err, "%s: %s", path, je.text);
		return -EINVAL;
	}
	if (!root) {
		strbuf_addf(err, "%s:%d: %s", path, je.line, je.text);
		return -EINVAL;
	}
	m = json_object_get(root, model);
	if (!json_is_object(root) || !m) {
		strbuf_addf(err, "%s: no price for model '%s'", path, model);
		json_decref(root);
		return -ENOENT;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		json_t *v = json_object_get(m, fields[i]);

		if (!v && i == 1) {
			*dst[i] = NAN; /* cached_input: the input price, below */
			continue;
		}
		if (!json_is_number(v) || json_number_value(v) < 0) {
			strbuf_addf(err, "%s: %s.%s: expected a non-negative number (USD per million "
				    "tokens)", path, model, fields[i]);
			r = -EINVAL;
			break;
		}
		*dst[i] = json_number_value(v);
	}
	if (!r && isnan(ret->cached_input))
		ret->cached_input = ret->input;
	json_decref(root);
	return r;
}

static double cost_of(const struct llm_price *p, long long prompt, long long cached,
		      long long completion)
{
	return ((double)(prompt - cached) * p->input + (double)cached * p->cached_input +
		(double)completion * p->output) / 1e6;
}

/* ---- transfers ---- */

static size_t on_data(char *data, size_t size, size_t nmemb, void *userp)
{
	struct transfer *t = userp;

	if (strbuf_add_capped(&t->reply, data, size * nmemb) < 0) {
		t->too_big = true;
		return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
	}
	return size * nmemb;
}

static int start_attempt(struct llm_client *c, struct transfer *t, double now, struct strbuf *err)
{
	const struct llm_config *cfg = &c->cfg;
	struct strbuf h = STRBUF_INIT;

	if (!t->body) {
		t->body = request_body(cfg, t->req);
		t->headers = curl_slist_append(NULL, "Content-Type: application/json");
		if (cfg->key && *cfg->key) {
			if (cfg->api == LLM_API_OPENAI)
				strbuf_addf(&h, "Authorization: Bearer %s", cfg->key);
			else
				strbuf_addf(&h, "x-api-key: %s", cfg->key);
			t->headers = curl_slist_append(t->headers, h.buf);
			strbuf_release(&h);
		}
		if (cfg->api == LLM_API_ANTHROPIC)
			t->headers = curl_slist_append(t->headers, "anthropic-version: 2023-06-01");
	}
	strbuf_reset(&t->reply);
	t->reply.cap = LLM_MAX_REPLY_BYTES;
	t->too_big = false;
	t->easy = curl_easy_init();
	if (!t->easy) {
		strbuf_addstr(err, "curl_easy_init failed");
		return -ENOMEM;
	}
	curl_easy_setopt(t->easy, CURLOPT_URL, c->url);
	curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
	curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, t->body);
	curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t);
	curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t);
	curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS, (long)(cfg->timeout_s * 1000));
	curl_easy_setopt(t->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)(cfg->timeout_s * 1000));
	curl_easy_setopt(t->easy, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(t->easy, CURLOPT_USERAGENT, "kgb/" "0.1");
	if (t->started < 0)
		t->started = now;
	curl_multi_add_handle(c->multi, t->easy);
	return 0;
}

/* Seconds a Retry-After header asks for (delay-seconds or an HTTP date); -1 when absent. */
static double retry_after(CURL *easy)
{
	struct curl_header *h;
	char *end;
	double s;

	if (curl_easy_header(easy, "Retry-After", 0, CURLH_HEADER, -1, &h) != CURLHE_OK)
		return -1;
	s = strtod(h->value, &end);
	if (end != h->value && *end == '\0' && s >= 0)
		return s;
	{
		time_t when = curl_getdate(h->value, NULL);

		return when < 0 ? -1 : fmax(0, difftime(when, time(NULL)));
	}
}

/* The key must never reach a message: a hostile or careless server may echo it back. */
static void scrub_key(const char *key, struct strbuf *sb)
{
	size_t kl = key ? strlen(key) : 0;
	char *p;

	if (kl < 4)
		return;
	while ((p = strstr(sb->buf, key)))
		memset(p, '*', kl);
}

/* url, its user and password (if any) replaced by "***": a message may be shown or stored. */
static void add_url_masked(struct strbuf *dst, const char *url)
{
	const char *host = strstr(url, "://");
	const char *at, *slash;

	host = host ? host + 3 : url;
	slash = strchr(host, '/');
	at = memchr(host, '@', slash ? (size_t)(slash - host) : strlen(host));
	if (!at) {
		strbuf_addstr(dst, url);
		return;
	}
	strbuf_add(dst, url, (size_t)(host - url));
	strbuf_addstr(dst, "***");
	strbuf_addstr(dst, at);
}

static void excerpt(struct strbuf *dst, const struct strbuf *body)
{
	size_t n = body->len < LLM_ERROR_EXCERPT ? body->len : LLM_ERROR_EXCERPT;

	for (size_t i = 0; i < n; i++)
		strbuf_addch(dst, body->buf[i] == '\n' || body->buf[i] == '\r' ? ' ' : body->buf[i]);
	if (body->len > n)
		strbuf_addstr(dst, "...");
}

/* One attempt's usage (got) added to its request and to the run's totals. */
static void count_usage(struct llm_client *c, struct llm_request *r,
			const struct llm_request *got)
{
	double cost = cost_of(&c->cfg.price, got->prompt_tokens, got->cached_tokens,
			      got->completion_tokens);

	r->prompt_tokens += got->prompt_tokens;
	r->completion_tokens += got->completion_tokens;
	r->cached_tokens += got->cached_tokens;
	r->cost_usd += cost;
	c->tokens += got->prompt_tokens + got->completion_tokens;
	if (!isnan(cost))
		c->usd += cost;
}

/* An attempt ended: the request is done, or due again after a backoff. */
static void end_attempt(struct llm_client *c, struct transfer *t, CURLcode code, double now)
{
	struct llm_request *r = t->req;
	struct strbuf why = STRBUF_INIT, perr = STRBUF_INIT;
	bool transient = false;
	double wait = -1;
	long http = 0;

	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &http);
	r->attempts++;
	r->http_status = http;
	if (t->too_big) {
		strbuf_addf(&why, "the reply passed %u MiB", LLM_MAX_REPLY_BYTES >> 20);
	} else if (code != CURLE_OK) {
		strbuf_addf(&why, "%s", curl_easy_strerror(code));
		transient = true;
	} else if (http == 429 || http >= 500) {
		strbuf_addf(&why, "HTTP %ld: ", http);
		excerpt(&why, &t->reply);
		transient = true;
		wait = retry_after(t->easy);
	} else if (http >= 300 || http < 200) {
		strbuf_addf(&why, "HTTP %ld: ", http);
		excerpt(&why, &t->reply);
	} else {
		struct llm_request got = {0};
		int pr = llm_parse_reply(c->cfg.api, c->cfg.stream, t->reply.buf, t->reply.len,
					 &got, &perr);

		/* A reply not streamed as asked still counts what it says it cost. */
		if (pr == 0 || pr == -EMEDIUMTYPE)
			count_usage(c, r, &got);
		if (pr == 0) {
			r->status = LLM_OK;
			r->text = got.text;
			r->finish = got.finish;
		} else {
			llm_request_release(&got);
			strbuf_addstr(&why, perr.buf);
			/* A cut-off or garbled reply may come right next time; one without usage,
			 * or not streamed as asked, never will. */
			transient = pr != -ENODATA && pr != -EMEDIUMTYPE;
		}
	}
	curl_multi_remove_handle(c->multi, t->easy);
	curl_easy_cleanup(t->easy);
	t->easy = NULL;
	if (r->status != LLM_OK) {
		if (transient && r->attempts <= c->cfg.max_retries) {
			if (wait < 0) {
				wait = c->cfg.backoff_s;
				for (unsigned i = 1; i < r->attempts && wait < LLM_MAX_BACKOFF_S; i++)
					wait *= 2;
			}
			t->due = now + fmin(wait, LLM_MAX_BACKOFF_S);
		} else {
			struct strbuf msg = STRBUF_INIT;

			if (r->attempts > 1)
				strbuf_addf(&why, " (after %u attempts)", r->attempts);
			/* Which request it was: a wrong base URL is the commonest mistake. */
			strbuf_addstr(&msg, "POST ");
			add_url_masked(&msg, c->url);
			strbuf_addf(&msg, ": %s", why.buf);
			scrub_key(c->cfg.key, &msg);
			r->status = LLM_FAILED;
			r->error = strbuf_detach(&msg, NULL);
		}
	}
	if (r->status != LLM_PENDING)
		r->latency_ms = (now - t->started) * 1000;
	strbuf_release(&why);
	strbuf_release(&perr);
}

static bool budget_spent(const struct llm_client *c)
{
	return (c->cfg.budget_tokens > 0 && c->tokens >= c->cfg.budget_tokens) ||
	       (c->cfg.budget_usd > 0 && c->usd >= c->cfg.budget_usd);
}

int llm_run(struct llm_client *c, struct llm_request *reqs, size_t n, struct strbuf *err)
{
	struct transfer *ts = xcalloc(n ? n : 1, sizeof(*ts));
	unsigned running = 0;
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		ts[i].req = &reqs[i];
		ts[i].started = -1;
		strbuf_init(&ts[i].reply, 0);
		/*
		 * Summed over its attempts; a request never sent (the budget) costs nothing where
		 * the price is known, and is as unknown as the others where it is not.
		 */
		reqs[i].cost_usd = isnan(c->cfg.price.input) ? NAN : 0;
	}
	for (;;) {
		double now = monotonic_s(), next_due = INFINITY;
		bool waiting = false;
		int still;
		CURLMsg *msg;

		for (size_t i = 0; i < n; i++) {
			struct transfer *t = &ts[i];

			if (t->req->status != LLM_PENDING || t->easy)
				continue;
			if (t->req->attempts == 0 && budget_spent(c)) {
				t->req->status = LLM_BUDGET;
				set_str(&t->req->error, "not sent: the run's budget is spent");
				continue;
			}
			waiting = true;
			if (t->due > now) {
				next_due = fmin(next_due, t->due);
				continue;
			}
			if (running >= c->cfg.concurrency)
				continue;
			if ((ret = start_attempt(c, t, now, err)) < 0)
				goto out;
			running++;
		}
		if (!running && !waiting)
			break;
		if (curl_multi_perform(c->multi, &still) != CURLM_OK) {
			strbuf_addstr(err, "curl_multi_perform failed");
			ret = -EIO;
			goto out;
		}
		while ((msg = curl_multi_info_read(c->multi, &still))) {
			struct transfer *t;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&t);
			end_attempt(c, t, msg->data.result, monotonic_s());
			running--;
		}
		if (running || isfinite(next_due)) {
			double wait_ms = isfinite(next_due) ? (next_due - monotonic_s()) * 1000 : 1000;
			int timeout = wait_ms < 1 ? 1 : wait_ms > 1000 ? 1000 : (int)wait_ms;

			if (!running) {
				struct timespec ts_wait = {timeout / 1000, (long)(timeout % 1000) * 1000000};

				nanosleep(&ts_wait, NULL);
			} else {
				curl_multi_poll(c->multi, NULL, 0, timeout, NULL);
			}
		}
	}
out:
	for (size_t i = 0; i < n; i++) {
		if (ts[i].easy) {
			curl_multi_remove_handle(c->multi, ts[i].easy);
			curl_easy_cleanup(ts[i].easy);
		}
		curl_slist_free_all(ts[i].headers);
		free(ts[i].body);
		strbuf_release(&ts[i].reply);
	}
	free(ts);
	return ret;
}
