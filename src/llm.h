/*
 * llm.h - chat-completion clients on libcurl: OpenAI-compatible and Anthropic Messages.
 *
 * llm_run() sends a batch of requests with at most `concurrency` in flight (curl multi, one
 * thread), retries what failed transiently (429, 5xx, timeouts, connection errors, a reply cut
 * off or not JSON) after a backoff that Retry-After overrides, and stops starting new requests
 * once the run's token or money budget is spent (requests in flight finish and are counted).
 * Every attempt's tokens, latency and cost are added to the request and to the client's totals.
 *
 * The API key is read by the caller from the environment and lives only in the request headers:
 * it is never copied into an error message, a request record or the store.
 */
#ifndef KGB_LLM_H
#define KGB_LLM_H

#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"
#include "util/strbuf.h"

struct json_t;

enum llm_api { LLM_API_OPENAI, LLM_API_ANTHROPIC };

/* USD per million tokens; NAN where unknown (the cost is then NAN, never a guessed 0). */
struct llm_price {
	double input, cached_input, output;
};

struct llm_config {
	enum llm_api api;
	const char *base_url; /* with or without /v1: llm_endpoint() */
	const char *model;
	const char *key;      /* NULL: no key header (local servers) */
	double temperature;   /* NAN: not sent (the server's default) */
	long max_tokens;
	/* The body field max_tokens goes in; NULL: the API's (llm_max_tokens_field()); "": none. */
	const char *max_tokens_field;
	/* Fields merged into every request body last (--param), or NULL; borrowed. */
	struct json_t *params;
	double timeout_s;     /* per attempt */
	unsigned max_retries; /* attempts after the first */
	double backoff_s;     /* delay before the first retry; doubles per retry, capped at 60 s */
	bool stream;	      /* server-sent events instead of one JSON body */
	unsigned concurrency; /* requests in flight at once, >= 1 */
	long long budget_tokens; /* prompt + completion over the run; 0: unlimited */
	double budget_usd;	 /* 0: unlimited (needs a price) */
	struct llm_price price;
};

struct llm_message {
	const char *role; /* "system", "user" or "assistant" */
	const char *content;
};

enum llm_status {
	LLM_PENDING = 0,
	LLM_OK,	    /* a reply (its text may still hold no code) */
	LLM_FAILED, /* no reply: a permanent error or retries exhausted; `error` says which */
	LLM_BUDGET, /* never sent: the budget was spent */
};

struct llm_request {
	/* In: the conversation (borrowed for the duration of llm_run). */
	const struct llm_message *msgs;
	size_t nr_msgs;

	/* Out: filled by llm_run(); the strings are owned by the request (llm_request_release). */
	enum llm_status status;
	char *text;   /* the reply's text, or NULL */
	char *finish; /* why the model stopped: "stop", "length", "end_turn", "max_tokens", ... */
	char *error;  /* why there is no reply, or NULL */
	long long prompt_tokens, completion_tokens, cached_tokens; /* summed over attempts */
	double latency_ms; /* wall time from the first send to the final answer, waits included */
	double cost_usd;   /* NAN when the price is unknown */
	unsigned attempts;
	long http_status; /* of the last attempt; 0 when none reached the server */
};

void llm_request_release(struct llm_request *r);

/*
 * The body field of the completion token limit that the API takes today: OpenAI's chat
 * completions "max_completion_tokens" (its reasoning models refuse "max_tokens"), Anthropic's
 * "max_tokens".
 */
const char *llm_max_tokens_field(enum llm_api api);

/*
 * The URL a request of `api` is POSTed to, from a base URL given with or without the API's
 * version (owned string): OpenAI: a base with no path gets "/v1", then "/chat/completions"
 * unless the base already ends with it ("http://h:8000", "http://h:8000/v1" and a provider's
 * ".../openai/v1" all work); Anthropic: "/v1/messages" after a host, "/messages" after ".../v1",
 * nothing after ".../v1/messages".
 */
char *llm_endpoint(enum llm_api api, const char *base_url);

/*
 * Whether `key` may be set by --param: not the fields kgb owns in every request (the model,
 * the conversation, whether it streams); *why says which and why when not.
 */
bool llm_param_allowed(const char *key, const char **why);

struct llm_client;

/* A client for one run; the config's strings are borrowed and must outlive it. */
int llm_client_new(const struct llm_config *cfg, struct llm_client **ret, struct strbuf *err)
	KGB_WUR;
void llm_client_free(struct llm_client *c);

/*
 * Sends the requests not yet done (status LLM_PENDING) and fills each. Returns 0 when every
 * request has a status (some may be FAILED or BUDGET); a negative errno only when the client
 * itself cannot work (curl could not start), with err set.
 */
int llm_run(struct llm_client *c, struct llm_request *reqs, size_t n, struct strbuf *err) KGB_WUR;

/* The run's totals so far. */
void llm_totals(const struct llm_client *c, long long *ret_tokens, double *ret_usd);

/*
 * The price of `model` in a JSON price table {"<model>": {"input": x, "cached_input": y,
 * "output": z}} (USD per million tokens; cached_input defaults to input). -ENOENT when the
 * model is not in the table; other errors name the file and the field.
 */
int llm_price_load(const char *path, const char *model, struct llm_price *ret, struct strbuf *err)
	KGB_WUR;

/* Exposed for tests: one attempt's reply body parsed (stream or not) into r's out fields. */
int llm_parse_reply(enum llm_api api, bool stream, const char *body, size_t len,
		    struct llm_request *r, struct strbuf *err) KGB_WUR;

#endif
