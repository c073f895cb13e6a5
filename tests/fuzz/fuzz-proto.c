/*
 * fuzz-proto.c - src/proto.c: proto_parse_line(), one line from a worker (untrusted: the
 * candidate's code runs in that process and may write anything to stdout).
 *
 * Input: the bytes of one line, as sched.c passes them (pointer and length, no NUL needed).
 * Checks, besides the sanitizers (leaks included): the return is 0, -EBADMSG or -EPROTO; a
 * failure leaves a message in err and nothing in *ret to release; a success returns an object
 * whose "type" names the message type, with a non-negative case id and a known case verdict for
 * a case, and a known fatal verdict for a fatal; and the numeric case fields sched.c and the
 * store read are numbers or null.
 */
#include "fuzz.h"

#include <errno.h>

#include "proto.h"
#include "verdict.h"

static const char *const type_names[] = {"hello", "loaded", "case", "fatal", "done"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct proto_msg m;
	int r;

	memset(&m, 0xa5, sizeof(m));
	r = proto_parse_line((const char *)data, size, &m, &err);
	if (r < 0) {
		FUZZ_CHECK(r == -EBADMSG || r == -EPROTO, "return %d", r);
		FUZZ_CHECK(err.len > 0, "failure %d without a message", r);
		for (size_t i = 0; i < sizeof(m); i++)
			FUZZ_CHECK(((unsigned char *)&m)[i] == 0xa5, "failure %d wrote *ret", r);
		strbuf_release(&err);
		return 0;
	}
	FUZZ_CHECK(r == 0, "return %d", r);
	FUZZ_CHECK(err.len == 0, "success with a message: %s", err.buf);
	FUZZ_CHECK(json_is_object(m.obj), "success without an object");
	FUZZ_CHECK((int)m.type >= 0 && m.type < _PROTO_MSG_MAX, "type %d", (int)m.type);
	FUZZ_CHECK(!strcmp(json_string_value(json_object_get(m.obj, "type")), type_names[m.type]),
		   "type %d for '%s'", (int)m.type,
		   json_string_value(json_object_get(m.obj, "type")));
	switch (m.type) {
	case PROTO_HELLO:
		FUZZ_CHECK(json_integer_value(json_object_get(m.obj, "protocol")) == PROTO_VERSION,
			   "hello of another protocol accepted");
		break;
	case PROTO_CASE:
		FUZZ_CHECK(m.case_id >= 0, "case id %lld", m.case_id);
		FUZZ_CHECK(m.verdict && verdict_at(m.verdict, V_CASE), "case verdict");
		FUZZ_CHECK(m.verdict == json_string_value(json_object_get(m.obj, "verdict")),
			   "verdict not borrowed from obj");
		for (const char *const *f = (const char *const[]){"max_abs_err", "tol_use",
								   "base_tol_use", "ms", "speedup",
								   "time_base_ms", "time_cand_ms",
								   NULL};
		     *f; f++) {
			json_t *x = json_object_get(m.obj, *f);

			FUZZ_CHECK(!x || json_is_number(x) || json_is_null(x), "case field '%s'",
				   *f);
		}
		break;
	case PROTO_FATAL:
		FUZZ_CHECK(m.verdict && verdict_at(m.verdict, V_FATAL), "fatal verdict");
		break;
	default:
		break;
	}
	proto_msg_release(&m);
	FUZZ_CHECK(m.obj == NULL, "release left obj");
	strbuf_release(&err);
	return 0;
}
