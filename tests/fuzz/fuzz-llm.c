/*
 * fuzz-llm.c - src/llm.c's reply parser and src/extract.c: what a chat server sends back.
 *
 * Input: the first byte picks the API (bit 0: OpenAI or Anthropic) and the form (bit 1: one
 * JSON body or a server-sent event stream); the rest is the reply body. Checks, besides the
 * sanitizers:
 * - llm_parse_reply returns 0 or a negative errno with a message, never both a success and an
 *   error text;
 * - on success the text is set and the token counts are sane: non-negative, cached <= prompt
 *   for OpenAI (kgb sums them over a run: a negative or absurd count would corrupt every total);
 * - extract_code on that text either returns code that is a part of the text or a reason.
 */
#include "fuzz.h"

#include <errno.h>

#include "extract.h"
#include "llm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const entries[] = {"add"};
	struct llm_request r = {0};
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	enum llm_api api;
	bool stream;
	char *body, *code = NULL;
	int ret;

	if (size < 1)
		return 0;
	api = data[0] & 1 ? LLM_API_ANTHROPIC : LLM_API_OPENAI;
	stream = data[0] & 2;
	body = fuzz_cstr(data + 1, size - 1);
	ret = llm_parse_reply(api, stream, body, size - 1, &r, &err);
	FUZZ_CHECK(ret <= 0, "llm_parse_reply returned %d", ret);
	if (ret < 0) {
		FUZZ_CHECK(err.len > 0, "a failure without a message");
	} else {
		FUZZ_CHECK(err.len == 0, "a success with an error '%s'", err.buf);
		FUZZ_CHECK(r.text != NULL, "a success without text");
		FUZZ_CHECK(r.prompt_tokens >= 0 && r.completion_tokens >= 0 && r.cached_tokens >= 0,
			   "negative counts %lld %lld %lld", r.prompt_tokens, r.completion_tokens,
			   r.cached_tokens);
		FUZZ_CHECK(api != LLM_API_OPENAI || r.cached_tokens <= r.prompt_tokens,
			   "cached %lld > prompt %lld", r.cached_tokens, r.prompt_tokens);
		ret = extract_code(r.text, r.finish, entries, 1, &code, &why);
		FUZZ_CHECK(ret == 0 || ret == -ENOENT, "extract_code returned %d", ret);
		if (ret == 0)
			FUZZ_CHECK(code && strstr(r.text, code) && why.len == 0,
				   "code not taken from the reply");
		else
			FUZZ_CHECK(!code && why.len > 0, "no code and no reason");
	}
	free(code);
	llm_request_release(&r);
	strbuf_release(&err);
	strbuf_release(&why);
	free(body);
	return 0;
}
