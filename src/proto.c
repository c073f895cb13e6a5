#include "proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/fs.h"
#include "verdict.h"

static const char *const type_names[_PROTO_MSG_MAX] = {
	[PROTO_HELLO] = "hello", [PROTO_LOADED] = "loaded", [PROTO_CASE] = "case",
	[PROTO_FATAL] = "fatal", [PROTO_DONE] = "done",
};

bool proto_task_ghost(const struct task *t)
{
	/* Compute tasks, unless the task says why it cannot apply. */
	return !strcmp(t->kind, "compute") && !task_exemption(t, "ghost");
}

char *proto_build_job(const struct task *t, const char *candidate_path, const char *platform,
		      const struct case_list *cases, const struct proto_job_opts *opts)
{
	json_t *job = json_object(), *task = json_object(), *entries = json_array();
	json_t *jc = json_array();
	struct strbuf sb = STRBUF_INIT;
	char *s;

	for (size_t i = 0; i < t->nr_entries; i++) {
		const struct task_entry *e = &t->entries[i];
		json_t *je = json_pack("{s:s, s:O, s:O, s:s}", "name", e->name, "mutates", e->mutates,
				       "returns", e->returns, "reference_precision",
				       e->reference_precision);

		/* An entry's own ghost exemption; the task's turns the replay off for all. */
		if (e->exempt && json_object_get(e->exempt, "ghost"))
			json_object_set_new(je, "ghost", json_false());
		json_array_append_new(entries, je);
	}
	json_object_set_new(task, "op", json_string(t->op));
	json_object_set_new(task, "source", json_string(t->source));
	json_object_set_new(task, "kind", json_string(t->kind));
	json_object_set_new(task, "ghost", json_boolean(proto_task_ghost(t)));
	json_object_set_new(task, "dir", json_string(t->dir));
	json_object_set_new(task, "entries", entries);
	if (t->allow)
		json_object_set(task, "allow", t->allow);
	for (size_t i = 0; i < cases->nr; i++) {
		const struct case_desc *c = &cases->v[i];

		json_array_append_new(
			jc, json_pack("{s:I, s:s, s:I, s:b, s:f, s:f, s:s, s:O, s:O}", "id",
				      (json_int_t)i, "entry", c->entry, "seed",
				      (json_int_t)(c->seed & 0x7fffffffffffffffULL), "timed",
				      c->timed, "atol", c->tol.atol, "rtol", c->tol.rtol, "out_dtype",
				      c->out_dtype, "axes", c->axes, "args", c->args));
	}
	json_object_set_new(job, "type", json_string("job"));
	json_object_set_new(job, "protocol", json_integer(PROTO_VERSION));
	json_object_set_new(job, "platform", json_string(platform));
	json_object_set_new(job, "task", task);
	json_object_set_new(job, "candidate", json_string(candidate_path));
	if (opts && opts->timed) {
		json_t *timing = json_pack("{s:i, s:i}", "warmup", opts->warmup, "rounds",
					   opts->rounds);

		if (opts->timing_method)
			json_object_set_new(timing, "method", json_string(opts->timing_method));
		json_object_set_new(job, "timing", timing);
	}
	if (opts && opts->mutant)
		json_object_set_new(job, "mutant", json_string(opts->mutant));
	if (opts && opts->mode)
		json_object_set_new(job, "mode", json_string(opts->mode));
	if (opts && opts->method)
		json_object_set(job, "method", (json_t *)opts->method);
	if (opts && opts->stop_on_fail)
		json_object_set_new(job, "stop_on_fail",
				    opts->stop_per_entry ? json_string("entry") : json_true());
	json_object_set_new(job, "cases", jc);
	s = json_dumps(job, JSON_COMPACT);
	json_decref(job);
	strbuf_addstr(&sb, s);
	strbuf_addch(&sb, '\n');
	free(s);
	return strbuf_detach(&sb, NULL);
}

static int bad(struct strbuf *err, const char *fmt, const char *what)
{
	strbuf_addf(err, fmt, what);
	return -EBADMSG;
}

int proto_parse_line(const char *line, size_t len, struct proto_msg *ret, struct strbuf *err)
{
	json_error_t jerr;
	json_t *obj, *type, *x;
	struct proto_msg m = {0};
	int t;

	if (len > PROTO_MAX_LINE)
		return bad(err, "line longer than %s", "1 MiB");
	obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!obj) {
		strbuf_addf(err, "not JSON: %s", jerr.text);
		return -EBADMSG;
	}
	m.obj = obj;
	if (!json_is_object(obj)) {
		proto_msg_release(&m);
		return bad(err, "expected a JSON object%s", "");
	}
	type = json_object_get(obj, "type");
	if (!json_is_string(type)) {
		proto_msg_release(&m);
		return bad(err, "missing 'type'%s", "");
	}
	for (t = 0; t < _PROTO_MSG_MAX; t++)
		if (!strcmp(type_names[t], json_string_value(type)))
			break;
	if (t == _PROTO_MSG_MAX) {
		strbuf_addf(err, "unknown message type '%.40s'", json_string_value(type));
		proto_msg_release(&m);
		return -EBADMSG;
	}
	m.type = (enum proto_msg_type)t;
	switch (m.type) {
	case PROTO_HELLO:
		x = json_object_get(obj, "protocol");
		if (!json_is_integer(x)) {
			proto_msg_release(&m);
			return bad(err, "hello without an integer 'protocol'%s", "");
		}
		if (json_integer_value(x) != PROTO_VERSION) {
			strbuf_addf(err, "worker speaks protocol %lld, kgb speaks %d",
				    (long long)json_integer_value(x), PROTO_VERSION);
			proto_msg_release(&m);
			return -EPROTO;
		}
		break;
	case PROTO_CASE:
		x = json_object_get(obj, "id");
		if (!json_is_integer(x) || json_integer_value(x) < 0) {
			proto_msg_release(&m);
			return bad(err, "case without a non-negative integer 'id'%s", "");
		}
		m.case_id = json_integer_value(x);
		x = json_object_get(obj, "verdict");
		if (!json_is_string(x) || !verdict_at(json_string_value(x), V_CASE)) {
			proto_msg_release(&m);
			return bad(err, "case with a missing or unknown 'verdict'%s", "");
		}
		m.verdict = json_string_value(x);
		for (const char *const *f = (const char *const[]){"max_abs_err", "tol_use",
								   "base_tol_use", "ms", "speedup",
								   "time_base_ms", "time_cand_ms",
								   NULL};
		     *f; f++) {
			x = json_object_get(obj, *f);
			if (x && !json_is_number(x) && !json_is_null(x)) {
				proto_msg_release(&m);
				return bad(err, "case field '%s' is not a number", *f);
			}
		}
		break;
	case PROTO_FATAL:
		x = json_object_get(obj, "verdict");
		if (!json_is_string(x) || !verdict_at(json_string_value(x), V_FATAL)) {
			proto_msg_release(&m);
			return bad(err, "fatal with a missing or unknown 'verdict'%s", "");
		}
		m.verdict = json_string_value(x);
		break;
	case PROTO_LOADED:
	case PROTO_DONE:
	case _PROTO_MSG_MAX:
		break;
	}
	*ret = m;
	return 0;
}

void proto_msg_release(struct proto_msg *m)
{
	json_decref(m->obj);
	memset(m, 0, sizeof(*m));
}
