/* t-prompt.c - the prompt of `kgb show`: signatures, argument types, semantics, rules. */
#include "unit.h"

#include <sys/stat.h>

#include "prompt.h"

#define TOP "'schema': 1, 'op': 'foo', 'source': 'aten'"
#define ARG_X "{'name': 'self', 'tensor': {'shape': [2, 3, 4, 5], 'dtype': 'float32'}}"

/* Entries taking torch objects get one line per kind, naming their parameters. */
static void test_argument_types(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, "{" TOP ", 'entries': ["
		    "{'name': 'clone', 'signature': 'clone(Tensor self, *, MemoryFormat? "
		    "memory_format=None) -> Tensor',"
		    " 'args': [" ARG_X ", {'name': 'memory_format', 'memory_format': '$m',"
		    " 'keyword': true}], 'axes': {'m': [null, 'channels_last']}},"
		    "{'name': 'to', 'signature': 'to(Tensor self, ScalarType dtype) -> Tensor',"
		    " 'args': [" ARG_X ", {'name': 'dtype', 'dtype': 'float16'},"
		    " {'name': 'out_dtype', 'dtype': null}, {'name': 'dev', 'device': true},"
		    " {'name': 'p', 'value': 'inf'}]}]}");
	struct strbuf out = STRBUF_INIT;
	const char *types, *sem;

	assert_int_equal(prompt_build(t, "interpreter", "FRAGMENT-I", &out, &fx->errs), 0);
	assert_contains(out.buf, "\n## Platform: interpreter\n\nFRAGMENT-I\n");
	assert_contains(out.buf, "- `clone` implements `clone(Tensor self, *, MemoryFormat? "
				 "memory_format=None) -> Tensor`\n");
	types = strstr(out.buf, "\n## Argument types\n\n");
	sem = strstr(out.buf, "\n## Semantics\n");
	assert_non_null(types);
	assert_non_null(sem);
	/* after the signatures, before the semantics; kinds in a fixed order */
	assert_true(types < sem);
	assert_contains(types, "\n- `dtype`, `out_dtype`: a `torch.dtype` (such as "
			       "`torch.float16`), or `None` where the schema says `ScalarType?`.\n"
			       "- `dev`: a `torch.device`");
	assert_contains(types, "- `memory_format`: a `torch.memory_format`: "
			       "`torch.contiguous_format`, `torch.channels_last` (4-d tensors), "
			       "`torch.channels_last_3d` (5-d) or `torch.preserve_format`, or `None`");
	assert_contains(types, "every returned tensor must have the strides ATen gives it");
	/* a value argument is a plain Python value: nothing to say */
	assert_null(strstr(types, "`p`"));
	strbuf_release(&out);
}

/* No torch-object arguments: no section. */
static void test_no_argument_types(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, "{" TOP ", 'entries': [{'name': 'f', 'signature': 'f(Tensor self, Scalar p)',"
		    " 'args': [" ARG_X ", {'name': 'p', 'value': 2}]}]}");
	struct strbuf out = STRBUF_INIT;

	assert_int_equal(prompt_build(t, "nvidia-hopper", "F", &out, &fx->errs), 0);
	assert_contains(out.buf, "- `f` implements `f(Tensor self, Scalar p)`\n\n## Semantics\n");
	assert_null(strstr(out.buf, "Argument types"));
	strbuf_release(&out);
}

/* The prompt of a one-entry task of `source`, in *out. */
static void build_for_source(void **state, const char *source, struct strbuf *out)
{
	struct unit_fx *fx = *state;
	struct strbuf spec = STRBUF_INIT;
	const struct task *t;

	strbuf_addf(&spec, "{'schema': 1, 'op': 'foo', 'source': '%s', 'entries': [{'name': 'f', "
			   "'signature': 'f(Tensor self)', 'args': [" ARG_X "]}]}",
		    source);
	t = unit_fx_load_in(fx, source, spec.buf);
	assert_int_equal(prompt_build(t, "nvidia-hopper", "F", out, &fx->errs), 0);
	strbuf_release(&spec);
}

/* The layout rule: any layout for ATen ops; the stated ones for vLLM's (its kernels' own). */
static void test_layout_rule_aten(void **state)
{
	struct strbuf out = STRBUF_INIT;

	build_for_source(state, "aten", &out);
	assert_contains(out.buf, "- Inputs may be non-contiguous");
	assert_null(strstr(out.buf, "layouts the semantics above state"));
	strbuf_release(&out);
}

static void test_layout_rule_vllm(void **state)
{
	struct strbuf out = STRBUF_INIT;

	build_for_source(state, "vllm", &out);
	assert_contains(out.buf, "- Tensors have the layouts the semantics above state");
	assert_null(strstr(out.buf, "non-contiguous"));
	strbuf_release(&out);
}

/*
 * A prompt.md that cannot be read whole (too large, a FIFO) is an error: the prompt is never
 * sent without the task's semantics, nor does kgb wait on a FIFO (issue 36).
 */
static void test_semantics_unreadable(void **state)
{
	struct unit_fx *fx = *state;
	const struct task *t = unit_fx_load(
		fx, "{" TOP ", 'entries': [{'name': 'f', 'signature': 'f(Tensor self)',"
		    " 'args': [" ARG_X "]}]}");
	char *path = task_path(t, "prompt.md");
	struct strbuf out = STRBUF_INIT;
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (unsigned i = 0; i <= PROMPT_MAX_SEMANTICS_BYTES / 16; i++)
		fputs("0123456789abcdef", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(prompt_build(t, "nvidia-hopper", "F", &out, &fx->errs), -E2BIG);
	assert_int_equal(out.len, 0);
	assert_contains(fx->errs.buf, "prompt.md': larger than 1 MiB");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0644), 0);
	strbuf_reset(&fx->errs);
	assert_int_equal(prompt_build(t, "nvidia-hopper", "F", &out, &fx->errs), -EINVAL);
	assert_contains(fx->errs.buf, "prompt.md': not a regular file");
	strbuf_reset(&fx->errs);
	free(path);
	strbuf_release(&out);
}

static const struct CMUnitTest tests[] = {
	unit_test_fx(test_layout_rule_aten),
	unit_test_fx(test_layout_rule_vllm),
	unit_test_fx(test_argument_types),
	unit_test_fx(test_no_argument_types),
	unit_test_fx(test_semantics_unreadable),
};

UNIT_MAIN(tests)
