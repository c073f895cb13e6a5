/*
 * t-llm.c - what the chat clients POST to and what they make of a reply (src/llm.h): the
 * endpoint from a base URL with or without /v1, the fields --param may not set, and the
 * Anthropic stream parser against a transcript of the documented event sequence
 * (tests/llm/anthropic-stream.sse: thinking and text blocks, pings, cache usage), the same with
 * CRLF line ends, cut off, interrupted by an error event, and answered without streaming.
 */
#include "unit.h"

#include "llm.h"

#define TRANSCRIPT "tests/llm/anthropic-stream.sse"

static void test_endpoint(void **state)
{
	static const struct {
		enum llm_api api;
		const char *base, *want;
	} rows[] = {
		{LLM_API_OPENAI, "http://h:8000", "http://h:8000/v1/chat/completions"},
		{LLM_API_OPENAI, "http://h:8000/", "http://h:8000/v1/chat/completions"},
		{LLM_API_OPENAI, "http://h:8000/v1", "http://h:8000/v1/chat/completions"},
		{LLM_API_OPENAI, "http://h:8000/v1/", "http://h:8000/v1/chat/completions"},
		{LLM_API_OPENAI, "https://api.example.com/openai/v1",
		 "https://api.example.com/openai/v1/chat/completions"},
		{LLM_API_OPENAI, "https://h/v1beta/openai",
		 "https://h/v1beta/openai/chat/completions"},
		{LLM_API_OPENAI, "http://h/v1/chat/completions", "http://h/v1/chat/completions"},
		{LLM_API_ANTHROPIC, "https://api.x.com", "https://api.x.com/v1/messages"},
		{LLM_API_ANTHROPIC, "https://api.x.com/", "https://api.x.com/v1/messages"},
		{LLM_API_ANTHROPIC, "http://h:4000/v1", "http://h:4000/v1/messages"},
		{LLM_API_ANTHROPIC, "http://h:4000/v1/messages", "http://h:4000/v1/messages"},
		{LLM_API_ANTHROPIC, "user:pw@h", "user:pw@h/v1/messages"},
		{LLM_API_ANTHROPIC, "http://proxy/anthropic", "http://proxy/anthropic/v1/messages"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *url = llm_endpoint(rows[i].api, rows[i].base);

		print_message("%s -> %s\n", rows[i].base, url);
		assert_string_equal(url, rows[i].want);
		free(url);
	}
	assert_string_equal(llm_max_tokens_field(LLM_API_OPENAI), "max_completion_tokens");
	assert_string_equal(llm_max_tokens_field(LLM_API_ANTHROPIC), "max_tokens");
}

static void test_param_allowed(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_true(llm_param_allowed("top_p", &why));
	assert_true(llm_param_allowed("reasoning_effort", &why));
	assert_true(llm_param_allowed("max_tokens", &why)); /* replaces kgb's: the user's word */
	assert_null(why);
	for (const char *const *k = (const char *const[]){"model", "messages", "stream", "system",
							    NULL};
	     *k; k++) {
		why = NULL;
		assert_false(llm_param_allowed(*k, &why));
		assert_non_null(why);
	}
}

/* The transcript's bytes (owned), with every "\n" made "\r\n" when crlf. */
static char *transcript(bool crlf, size_t *ret_len)
{
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;

	assert_true(strbuf_read_file(&sb, TRANSCRIPT, 1 << 20) >= 0);
	for (size_t i = 0; i < sb.len; i++) {
		if (crlf && sb.buf[i] == '\n')
			strbuf_addch(&out, '\r');
		strbuf_addch(&out, sb.buf[i]);
	}
	strbuf_release(&sb);
	*ret_len = out.len;
	return strbuf_detach(&out, NULL);
}

static void test_anthropic_stream(void **state)
{
	(void)state;
	for (int crlf = 0; crlf <= 1; crlf++) {
		struct llm_request r = {0};
		struct strbuf err = STRBUF_INIT;
		size_t len;
		char *body = transcript(crlf, &len);

		assert_int_equal(llm_parse_reply(LLM_API_ANTHROPIC, true, body, len, &r, &err), 0);
		assert_string_equal(r.text, "Here is the kernel.\n\n```python\ndef add(x, y):\n"
					    "    return x + y\n```\n");
		assert_string_equal(r.finish, "end_turn");
		/* input_tokens excludes the cached part: the prompt is both. */
		assert_int_equal(r.prompt_tokens, 1480 + 512);
		assert_int_equal(r.cached_tokens, 512);
		assert_int_equal(r.completion_tokens, 97);
		llm_request_release(&r);
		strbuf_release(&err);
		free(body);
	}
}

/* The transcript with `cut` removed from its end or replaced: what a broken stream gives. */
static void test_anthropic_stream_broken(void **state)
{
	static const char error_event[] =
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
		"\"message\":\"Overloaded\"}}\n\n";
	size_t len;
	char *body = transcript(false, &len);
	char *stop = strstr(body, "event: message_stop");
	struct llm_request r = {0};
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;

	(void)state;
	assert_non_null(stop);
	assert_int_equal(llm_parse_reply(LLM_API_ANTHROPIC, true, body, (size_t)(stop - body), &r,
					 &err), -EPROTO);
	assert_non_null(strstr(err.buf, "cut off"));
	llm_request_release(&r);
	strbuf_reset(&err);

	strbuf_add(&sb, body, (size_t)(strstr(body, "event: message_delta") - body));
	strbuf_addstr(&sb, error_event);
	memset(&r, 0, sizeof(r));
	assert_int_equal(llm_parse_reply(LLM_API_ANTHROPIC, true, sb.buf, sb.len, &r, &err),
			 -EPROTO);
	assert_non_null(strstr(err.buf, "Overloaded"));
	llm_request_release(&r);
	strbuf_release(&sb);
	strbuf_release(&err);
	free(body);
}

/*
 * A stream request answered with one JSON message (a proxy that does not stream this API):
 * not "cut off", not retried (llm.c: -EMEDIUMTYPE), and its usage kept; a JSON error body is
 * the server's error.
 */
static void test_stream_answered_whole(void **state)
{
	static const char whole[] =
		"{\"content\":[{\"text\":\"```python\\ndef add(x, y): pass\\n```\","
		"\"type\":\"text\"}],\"id\":\"msg_1\",\"model\":\"m\",\"role\":\"assistant\","
		"\"stop_reason\":\"end_turn\","
		"\"type\":\"message\",\"usage\":{\"input_tokens\":2095,\"output_tokens\":503}}";
	static const char openai_whole[] =
		"\n{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
		"\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}";
	static const char error_body[] = "{\"error\":{\"message\":\"model not found\"}}";
	struct llm_request r = {0};
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(llm_parse_reply(LLM_API_ANTHROPIC, true, whole, strlen(whole), &r, &err),
			 -EMEDIUMTYPE);
	assert_non_null(strstr(err.buf, "not server-sent events"));
	assert_int_equal(r.prompt_tokens, 2095);
	assert_int_equal(r.completion_tokens, 503);
	assert_null(r.text);
	llm_request_release(&r);
	strbuf_reset(&err);

	memset(&r, 0, sizeof(r));
	assert_int_equal(llm_parse_reply(LLM_API_OPENAI, true, openai_whole, strlen(openai_whole),
					 &r, &err), -EMEDIUMTYPE);
	assert_int_equal(r.prompt_tokens, 7);
	assert_int_equal(r.completion_tokens, 3);
	llm_request_release(&r);
	strbuf_reset(&err);

	memset(&r, 0, sizeof(r));
	assert_int_equal(llm_parse_reply(LLM_API_ANTHROPIC, true, error_body, strlen(error_body),
					 &r, &err), -EPROTO);
	assert_non_null(strstr(err.buf, "model not found"));
	llm_request_release(&r);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_endpoint),
	cmocka_unit_test(test_param_allowed),
	cmocka_unit_test(test_anthropic_stream),
	cmocka_unit_test(test_anthropic_stream_broken),
	cmocka_unit_test(test_stream_answered_whole),
};

UNIT_MAIN(tests)
