/*
 * t-audit.c - the grid audit of `kgb lint` (audit.h): degenerate sizes, the `degenerate`
 * excuses, and held-out cases.
 */
#include "unit.h"

#include "audit.h"
#include "cases.h"

/* A one-entry task 'f' of `source` with args, entry axes and extra entry fields. */
#define TASK(source, args, axes, extra)                                                         \
	"{'schema': 1, 'op': 'foo', 'source': '" source "', 'entries': [{'name': 'f',"           \
	" 'signature': 'f(x)', 'args': [" args "], 'axes': {" axes "}" extra "}]}"
#define X_SHAPE "{'name': 'x', 'tensor': {'shape': '$shape', 'dtype': 'float32'}}"
/* Held-out axes whose shape no public case has. */
#define HELDOUT ", 'heldout': {'shape': [[11, 13]]}"

/* The findings of the task `spec` (loaded as foo under `source`), in `out`; their number. */
static size_t audit(struct unit_fx *fx, const char *source, const char *spec, struct strbuf *out)
{
	const struct task *t = unit_fx_load_in(fx, source, spec);
	struct case_list l = {0};
	struct strbuf err = STRBUF_INIT;
	size_t n;

	if (cases_generate(t, CASES_PERF | CASES_HELDOUT, 0, &l, &err) < 0)
		fail_msg("cases_generate: %s", err.buf);
	strbuf_reset(out);
	n = audit_task(t, &l, out);
	case_list_release(&l);
	strbuf_release(&err);
	return n;
}

static void test_sizes_missing_and_fixed(void **state)
{
	struct strbuf out = STRBUF_INIT;

	/* Powers of two only, never 0 or 1: three findings, each naming entry and argument. */
	assert_int_equal(audit(*state, "aten", TASK("aten", X_SHAPE, "'shape': [[2], [4, 8]]", HELDOUT), &out), 3);
	assert_line_has(out.buf, "foo/task.json: entries[0] (f): argument 'x'",
			"no dimension of size 0");
	assert_line_has(out.buf, "argument 'x'", "no dimension of size 1 ");
	assert_line_has(out.buf, "argument 'x'", "not a power of two");
	/* A 0-d tensor is no size 1; [1, 0] and [3, 0] have no element, so only empty counts. */
	assert_int_equal(audit(*state, "aten", TASK("aten", X_SHAPE, "'shape': [[], [2], [1, 0], [3, 0]]", HELDOUT), &out), 2);
	assert_contains(out.buf, "no dimension of size 1 ");
	assert_contains(out.buf, "not a power of two");
	/* Fixed: 0, 1 and 3, each in its own case. */
	assert_int_equal(audit(*state, "aten", TASK("aten", X_SHAPE, "'shape': [[2], [0], [1, 3]]", HELDOUT), &out), 0);
	assert_string_equal(out.buf, "");
	/* A tensor that is always 0-d has no shape to audit; an out= buffer is the op's. */
	assert_int_equal(audit(*state, "aten", TASK("aten", X_SHAPE ", {'name': 's', 'tensor': {'shape': [], 'dtype': 'float32'}},"
		" {'name': 'out', 'tensor': {'shape': [4], 'dtype': 'float32', 'dist': 'poison'}}",
		"'shape': [[2], [0], [1, 3]]", HELDOUT), &out), 0);
	/* Tensor lists count every element; a size list (a factory's size) is a shape. */
	assert_int_equal(audit(*state, "aten", TASK("aten", "{'name': 'ts', 'tensors': '$shape'}",
		"'shape': [[{'shape': [2], 'dtype': 'float32'}, {'shape': [0], 'dtype': 'float32'}], [{'shape': [1, 3], 'dtype': 'float32'}]]",
		", 'heldout': {'shape': [[{'shape': [5], 'dtype': 'float32'}]]}"), &out), 0);
	assert_int_equal(audit(*state, "aten", TASK("aten", "{'name': 'size', 'value': '$shape'}, {'name': 'x', 'tensor': {'shape': [], 'dtype': 'float32'}}",
		"'shape': [[2], [3]]", HELDOUT), &out), 2);
	assert_line_has(out.buf, "argument 'size'", "no dimension of size 0");
	assert_line_has(out.buf, "argument 'size'", "no dimension of size 1 ");
	strbuf_release(&out);
}

#define DEG(x) ", 'degenerate': " x
static void test_degenerate_excuses(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf out = STRBUF_INIT;

	/* One reason for every argument, or one per argument; in the entry or the task. */
	assert_int_equal(audit(fx, "aten", TASK("aten", X_SHAPE, "'shape': [[2], [1, 3]]",
		HELDOUT DEG("{'empty': 'the op has no empty form in this test'}")), &out), 0);
	assert_int_equal(audit(fx, "aten", TASK("aten", X_SHAPE, "'shape': [[2], [1, 3]]",
		HELDOUT DEG("{'empty': {'x': 'the op has no empty form in this test'}}")), &out), 0);
	assert_int_equal(audit(fx, "aten",
		"{'schema': 1, 'op': 'foo', 'source': 'aten', 'degenerate': {'empty': 'no empty form in this test'},"
		" 'entries': [{'name': 'f', 'signature': 'f(x)', 'args': [" X_SHAPE "],"
		" 'axes': {'shape': [[2], [1, 3]]}" HELDOUT "}]}", &out), 0);
	/* An excuse the grid does not need is a finding: it would hide a case added later. */
	assert_int_equal(audit(fx, "aten", TASK("aten", X_SHAPE, "'shape': [[2], [0], [1, 3]]",
		HELDOUT DEG("{'empty': {'x': 'the op has no empty form in this test'}}")), &out), 1);
	assert_line_has(out.buf, "entries[0] (f)", "degenerate.empty.x: the grid reaches that size");
	assert_int_equal(audit(fx, "aten", TASK("aten", X_SHAPE, "'shape': [[2], [0], [1, 3]]",
		HELDOUT DEG("{'npot': 'the op has no such size in this test'}")), &out), 1);
	assert_contains(out.buf, "degenerate.npot: every case grid it covers reaches that size");
	/* Unknown sizes, unknown arguments and missing reasons do not load. */
	unit_write_task(fx->root, "aten", "foo", TASK("aten", X_SHAPE, "'shape': [[2]]",
		DEG("{'small': 'the op has no small form at all'}")));
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	assert_contains(fx->errs.buf, "entries[0].degenerate: unknown size 'small'");
	unit_write_task(fx->root, "aten", "foo", TASK("aten", X_SHAPE, "'shape': [[2]]",
		DEG("{'empty': {'y': 'the op has no empty form at all'}}")));
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	assert_contains(fx->errs.buf, "'empty': 'y' is not an argument of the entry");
	unit_write_task(fx->root, "aten", "foo", TASK("aten", X_SHAPE, "'shape': [[2]]",
		DEG("{'size1': 'no'}")));
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	assert_contains(fx->errs.buf, "'size1': expected the reason as a sentence");
	strbuf_release(&out);
}

#define SUM_ARGS                                                                                \
	"{'name': 'x', 'tensor': {'shape': '$c.shape', 'dtype': 'float32'}},"                   \
	" {'name': 'dim', 'value': '$c.dim'}"
#define SUM_HELDOUT ", 'heldout': {'c': [{'shape': [11, 13], 'dim': 0}]}"
static void test_dim_size1(void **state)
{
	struct strbuf out = STRBUF_INIT;

	/* The size-1 dimension exists, but no dim reduces it. */
	assert_int_equal(audit(*state, "aten", TASK("aten", SUM_ARGS,
		"'c': [{'shape': [1, 3], 'dim': 1}, {'shape': [0, 3], 'dim': 0}, {'shape': [1, 3], 'dim': [-1]}]",
		SUM_HELDOUT), &out), 1);
	assert_line_has(out.buf, "entries[0] (f)", "argument 'dim' never indexes a dimension of size 1");
	/* dim -2 of [1, 3] is its size-1 dimension; so is every dim of null. */
	assert_int_equal(audit(*state, "aten", TASK("aten", SUM_ARGS,
		"'c': [{'shape': [1, 3], 'dim': 1}, {'shape': [0, 3], 'dim': 0}, {'shape': [1, 3], 'dim': [-2]}]",
		SUM_HELDOUT), &out), 0);
	assert_int_equal(audit(*state, "aten", TASK("aten", SUM_ARGS,
		"'c': [{'shape': [1, 3], 'dim': 1}, {'shape': [0, 3], 'dim': 0}, {'shape': [3, 1], 'dim': null}]",
		SUM_HELDOUT), &out), 0);
	/* An empty tensor's size-1 dimension has nothing to reduce. */
	assert_int_equal(audit(*state, "aten", TASK("aten", SUM_ARGS,
		"'c': [{'shape': [1, 3], 'dim': 1}, {'shape': [1, 0], 'dim': 0}]", SUM_HELDOUT), &out), 1);
	assert_contains(out.buf, "never indexes a dimension of size 1");
	strbuf_release(&out);
}

#define GEMV_ARGS                                                                               \
	"{'name': 'm', 'value': '$mn.m'}, {'name': 'n', 'value': '$mn.n'},"                     \
	" {'name': 'A', 'tensor': {'shape': ['$(max(1, $mn.m * $mn.n))'], 'dtype': 'float32'}}"
static void test_cublas_sizes(void **state)
{
	struct strbuf out = STRBUF_INIT;

	/*
	 * cuBLAS: m, n, k and batchCount are the shape; the flat buffer A is not audited. m = 1
	 * with n = 0 is a quick return, no m of 1.
	 */
	assert_int_equal(audit(*state, "cublas", TASK("cublas", GEMV_ARGS,
		"'mn': [{'m': 4, 'n': 6}, {'m': 1, 'n': 0}, {'m': 3, 'n': 1}]",
		", 'heldout': {'mn': [{'m': 5, 'n': 7}]}"), &out), 2);
	assert_line_has(out.buf, "argument 'm'", "is never 0");
	assert_line_has(out.buf, "argument 'm'", "is never 1");
	assert_int_equal(audit(*state, "cublas", TASK("cublas", GEMV_ARGS,
		"'mn': [{'m': 4, 'n': 2}, {'m': 0, 'n': 0}, {'m': 1, 'n': 3}, {'m': 3, 'n': 1}]",
		", 'heldout': {'mn': [{'m': 5, 'n': 7}]}"), &out), 0);
	/* A held-out pad alone gives other buffer sizes, not another shape. */
	assert_int_equal(audit(*state, "cublas", TASK("cublas", GEMV_ARGS ", {'name': 'lda', 'value': '$pad'}",
		"'mn': [{'m': 4, 'n': 2}, {'m': 0, 'n': 0}, {'m': 1, 'n': 3}, {'m': 3, 'n': 1}], 'pad': [0, 1]",
		", 'heldout': {'pad': [2]}"), &out), 2);
	assert_contains(out.buf, "4 of 4 held-out cases have the shapes of a public case");
	assert_contains(out.buf, "no held-out shapes");
	strbuf_release(&out);
}

static void test_heldout(void **state)
{
	struct unit_fx *fx = *state;
	struct strbuf out = STRBUF_INIT;

	/* Shapes vary, no heldout axes: the reseeded copies are no new shape. */
	assert_int_equal(audit(fx, "aten", TASK("aten", X_SHAPE, "'shape': [[2], [0], [1, 3]]", ""), &out), 1);
	assert_line_has(out.buf, "entries[0] (f)", "no held-out shapes");
	/* A held-out shape the public grid (its timed cases included) has is a finding. */
	assert_int_equal(audit(fx, "aten", TASK("aten", X_SHAPE, "'shape': [[2], [0], [1, 3]]",
		", 'perf': {'shape': [[4096]]}, 'heldout': {'shape': [[4096], [11, 13]]}"), &out), 1);
	assert_contains(out.buf, "1 of 2 held-out cases have the shapes of a public case (first: shape=[4096])");
	/* Nothing drawn from the seed and no heldout axes: no held-out case at all. */
	assert_int_equal(audit(fx, "aten", TASK("aten", "{'name': 'x', 'tensor': {'shape': [1, 3], 'dtype': 'float32', 'dist': 'ones'}}",
		"'unused': [1]", DEG("{'empty': 'the test keeps one shape'}")), &out), 1);
	assert_contains(out.buf, "foo/task.json: heldout: no held-out cases");
	/* One fixed shape with drawn values: the reseeded copies are its held-out cases. */
	assert_int_equal(audit(fx, "aten", TASK("aten", "{'name': 'x', 'tensor': {'shape': [1, 3], 'dtype': 'float32'}}",
		"'unused': [1]", DEG("{'empty': 'the test keeps one shape'}")), &out), 0);
	/* The task's heldout axes apply to the entries that use them. */
	assert_int_equal(audit(fx, "aten",
		"{'schema': 1, 'op': 'foo', 'source': 'aten', 'axes': {'shape': [[2], [0], [1, 3]]},"
		" 'heldout': {'shape': [[11, 13]]}, 'entries': ["
		" {'name': 'f', 'signature': 'f(x)', 'args': [" X_SHAPE "]},"
		" {'name': 'g', 'signature': 'g(x)', 'args': [" X_SHAPE "]}]}", &out), 0);
	unit_write_task(fx->root, "aten", "foo", "{'schema': 1, 'op': 'foo', 'source': 'aten',"
		" 'heldout': {'nope': [[11, 13]]}, 'entries': [{'name': 'f', 'signature': 'f(x)',"
		" 'args': [" X_SHAPE "], 'axes': {'shape': [[2]]}}]}");
	assert_int_equal(unit_fx_reload(fx), -EINVAL);
	assert_contains(fx->errs.buf, "heldout: heldout axis 'nope' is not an axis of any entry");
	strbuf_release(&out);
}

static const struct CMUnitTest tests[] = {
	unit_test_fx(test_sizes_missing_and_fixed),
	unit_test_fx(test_degenerate_excuses),
	unit_test_fx(test_dim_size1),
	unit_test_fx(test_cublas_sizes),
	unit_test_fx(test_heldout),
};

UNIT_MAIN(tests)
