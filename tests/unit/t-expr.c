/* t-expr.c - the expression language of task specs (docs/task-format.md, "Axes"). */
#include "unit.h"

#include "expr.h"

/* The axis values of one case, as the expressions below see them. */
static const char axes_sq[] = "{'shape': [2, 3, 4], 'pair': {'a': 5, 'b': [7, 8]}, 'n': 10,"
			      " 'x': 2.5, 'dtype': 'float16', 'empty': [], 'neg': -7,"
			      " 'badshape': [2, -1], 'big': 4611686018427387904,"
			      " 'min': -9223372036854775808,"
			      " 'hugeshape': [4294967296, 4294967296, 4294967296],"
			      " 'dims': [0, 2], 'lastdim': [-1], 'alldims': null, 'nodims': [],"
			      " 'yes': true, 'no': false}";

/* Expected values are JSON: 3 is an integer result, 3.0 a real one. */
static const struct {
	const char *src, *want;
} ok_rows[] = {
	/* bare references yield the axis value, of any type */
	{"$shape", "[2, 3, 4]"},
	{"$pair", "{'a': 5, 'b': [7, 8]}"},
	{"$pair.a", "5"},
	{"$pair.b", "[7, 8]"},
	{"$pair.b[1]", "8"},
	{"$shape[0]", "2"},
	{"$shape[-1]", "4"},
	{"$shape[-3]", "2"},
	{"$shape[1 + 1]", "4"},
	{"$shape[len($shape) - 1]", "4"},
	{"$dtype", "'float16'"},
	{"$x", "2.5"},
	{"  $n  ", "10"},
	/* a boolean stays one when referenced, and counts as 0 or 1 in arithmetic */
	{"$yes", "true"},
	{"$yes * $n + $no * 1000", "10"},
	{"$n - $yes", "9"},
	{"$no / 2", "0.0"},
	{"($yes + $yes) * $x", "5.0"},
	/* precedence and associativity */
	{"1 + 2 * 3", "7"},
	{"(1 + 2) * 3", "9"},
	{"10 - 4 - 3", "3"},
	{"2 * 3 % 4", "2"},
	{"100 // 10 // 5", "2"},
	{"2 - -3", "5"},
	{"-$n + 3", "-7"},
	{"--2", "2"},
	{"-(2 + 3) * 2", "-10"},
	{"$shape[-1] * $shape[0]", "8"},
	/* integer arithmetic stays integral; `/` is real, `//` is integral on integers */
	{"7 / 2", "3.5"},
	{"8 / 2", "4.0"},
	{"7 // 2", "3"},
	{"7 % 3", "1"},
	{"7.0 // 2", "3.0"},
	{"7.5 % 2", "1.5"},
	{"$x * 2", "5.0"},
	{"$n + 0.5", "10.5"},
	{"1e3", "1000.0"},
	{"2.5e-1 * 4", "1.0"},
	{".5 + .5", "1.0"},
	/* `//` floors and `%` takes the divisor's sign, for integers and reals alike */
	{"-7 // 2", "-4"},
	{"$neg // 2", "-4"},
	{"7 // -2", "-4"},
	{"-7.0 // 2", "-4.0"},
	{"$neg % 3", "2"},
	{"7 % -3", "-2"},
	{"-7.5 % 2", "0.5"},
	{"-6 % 3", "0"},
	{"$min % -1", "0"},
	/* functions */
	{"numel($shape)", "24"},
	{"numel($empty)", "1"},
	{"numel($pair.b)", "56"},
	{"len($shape)", "3"},
	{"len($empty)", "0"},
	{"itemsize($dtype)", "2"},
	{"sqrt(16)", "4.0"},
	{"sqrt($x * 10)", "5.0"},
	{"min(3, $n)", "3"},
	{"max(3, $n)", "10"},
	{"min(2.5, 2)", "2"},
	{"max(1.5, 1)", "1.5"},
	{"3 * numel($shape) * itemsize($dtype)", "144"},
	{"max(min($n, 4), sqrt(4))", "4"},
	/* numel_dims: elements reduced over a dim list, a single dim, or null (all) */
	{"numel_dims($shape, $dims)", "8"},
	{"numel_dims($shape, $lastdim)", "4"},
	{"numel_dims($shape, 1)", "3"},
	{"numel_dims($shape, $pair.a - 5)", "2"},
	{"numel_dims($shape, $nodims)", "1"},
	{"numel_dims($shape, $alldims)", "24"},
};

static const struct {
	const char *src, *msg;
} err_rows[] = {
	{"$nope", "unknown axis 'nope'"},
	{"2 * $nope", "unknown axis 'nope'"},
	{"foo(1)", "unknown function 'foo'"},
	{"shape", "expected '(' after function name 'shape'"},
	{"f(1, 2, 3, 4, 5)", "too many arguments to 'f'"},
	{"1 / 0", "division by zero"},
	{"1 // 0", "division by zero"},
	{"1 % 0", "division by zero"},
	{"1.5 / 0", "division by zero"},
	{"1.5 // 0.0", "division by zero"},
	{"1.5 % 0", "division by zero"},
	/* JSON has no inf or NaN: a real that overflows, or a NaN, is an error, not a lost value */
	{"1e308 * 10", "'*' gives inf or NaN"},
	{"-1e308 - 1e308", "'-' gives inf or NaN"},
	{"1e308 + 1e308", "'+' gives inf or NaN"},
	{"1e308 / 0.001", "'/' gives inf or NaN"},
	{"sqrt(-1)", "sqrt() of a negative number"},
	{"sqrt(-1) + 1", "sqrt() of a negative number"},
	{"$shape[3]", "index out of range"},
	{"$shape[-4]", "index out of range"},
	{"$empty[0]", "index out of range"},
	{"$n[0]", "bad index"},
	{"$shape[1.5]", "bad index"},
	{"$shape[0", "bad index"},
	{"$pair.c", "no field 'c'"},
	{"$n.a", "no field 'a'"},
	{"1 2", "unexpected '2'"},
	{"1 + 2)", "unexpected ')'"},
	{"$shape extra", "unexpected 'e'"},
	{"(1 + 2", "expected ')'"},
	{"max(1, 2", "expected ')'"},
	{"", "expected a number, '$axis', a function or '('"},
	{"1 +", "expected a number, '$axis', a function or '('"},
	{"* 2", "expected a number, '$axis', a function or '('"},
	{"$", "expected an axis name after '$'"},
	{"$1", "expected an axis name after '$'"},
	{"1e", "bad number '1e'"},
	{"1.2.3", "bad number '1.2.3'"},
	{"99999999999999999999", "bad number"},
	{"-$dtype", "cannot negate a non-number"},
	{"$shape + 1", "operator '+' needs numbers"},
	{"$dtype * 2", "operator '*' needs numbers"},
	{"numel($n)", "numel() takes one list"},
	{"numel($badshape)", "numel() needs a list of non-negative integers"},
	{"len(1, 2)", "len() takes one list"},
	{"itemsize($n)", "itemsize() takes one dtype name"},
	{"itemsize($pair)", "itemsize() takes one dtype name"},
	{"sqrt()", "sqrt() takes one number"},
	{"sqrt($dtype)", "expected a number, got a string"},
	{"min(1)", "min() takes two numbers"},
	{"max(1, $shape)", "max() takes two numbers"},
	/* integer overflow is an error, not undefined behaviour */
	{"$big * 4", "integer overflow"},
	{"$big + $big", "integer overflow"},
	{"$min - 1", "integer overflow"},
	{"-$min", "integer overflow"},
	{"$min // -1", "integer overflow"},
	{"numel($hugeshape)", "integer overflow"},
};

static void test_eval_values(void **state)
{
	json_t *axes = unit_json(axes_sq);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok_rows); i++) {
		struct strbuf err = STRBUF_INIT;
		json_t *want = unit_json(ok_rows[i].want), *got = NULL;
		int r;

		print_message("'%s'\n", ok_rows[i].src);
		r = expr_eval(ok_rows[i].src, axes, &got, &err);
		if (r != 0)
			fail_msg("'%s': %d: %s", ok_rows[i].src, r, err.buf);
		assert_json_equal(got, want);
		/* err stays untouched on success */
		assert_int_equal(err.len, 0);
		json_decref(got);
		json_decref(want);
		strbuf_release(&err);
	}
	json_decref(axes);
}

static void test_eval_errors(void **state)
{
	json_t *axes = unit_json(axes_sq);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(err_rows); i++) {
		struct strbuf err = STRBUF_INIT, src = STRBUF_INIT;
		json_t *got = NULL;

		print_message("'%s'\n", err_rows[i].src);
		assert_int_equal(expr_eval(err_rows[i].src, axes, &got, &err), -EINVAL);
		assert_null(got);
		assert_contains(err.buf, err_rows[i].msg);
		/* the message quotes the expression, so the caller's context is enough */
		strbuf_addf(&src, "'%s'", err_rows[i].src);
		assert_contains(err.buf, src.buf);
		assert_null(strchr(err.buf, '\n'));
		strbuf_release(&err);
		strbuf_release(&src);
	}
	json_decref(axes);
}

/* Recursion is capped (EXPR_MAX_DEPTH 64): deep but sane nesting passes, deeper is rejected. */
static void test_eval_nesting(void **state)
{
	static const struct {
		const char *open, *close;
		int depth;
		bool ok;
	} rows[] = {
		{"(", ")", 60, true},	    {"(", ")", 100, false},	  {"(", ")", 100000, false},
		{"-", "", 60, true},	    {"-", "", 100, false},	  {"-", "", 100000, false},
		{"sqrt(", ")", 60, true}, {"sqrt(", ")", 100, false}, {"$shape[", "]", 100, false},
	};
	json_t *axes = unit_json(axes_sq);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct strbuf src = STRBUF_INIT, err = STRBUF_INIT;
		json_t *got = NULL;
		int r;

		for (int d = 0; d < rows[i].depth; d++)
			strbuf_addstr(&src, rows[i].open);
		strbuf_addch(&src, '1');
		for (int d = 0; d < rows[i].depth; d++)
			strbuf_addstr(&src, rows[i].close);
		print_message("%s x %d\n", rows[i].open, rows[i].depth);
		r = expr_eval(src.buf, axes, &got, &err);
		if (rows[i].ok) {
			if (r != 0)
				fail_msg("%s", err.buf);
			assert_true(json_is_number(got));
			json_decref(got);
		} else {
			assert_int_equal(r, -EINVAL);
			assert_contains(err.buf, "expression nested too deeply");
		}
		strbuf_release(&src);
		strbuf_release(&err);
	}
	json_decref(axes);
}

static void test_eval_value_and_number(void **state)
{
	json_t *axes = unit_json(axes_sq), *v = NULL, *in;
	struct strbuf err = STRBUF_INIT;
	double d = -1;

	(void)state;
	/* A JSON number is returned as is; a string is an expression, '$' or not. */
	in = json_integer(3);
	assert_int_equal(expr_eval_value(in, axes, &v, &err), 0);
	assert_ptr_equal(v, in);
	json_decref(v);
	json_decref(in);
	in = json_string("2 * numel($shape)");
	assert_int_equal(expr_eval_value(in, axes, &v, &err), 0);
	assert_true(json_is_integer(v));
	assert_int_equal(json_integer_value(v), 48);
	json_decref(v);
	assert_int_equal(expr_eval_number(in, axes, &d, &err), 0);
	assert_float_equal(d, 48, 0);
	json_decref(in);
	assert_int_equal(err.len, 0);

	in = json_true();
	assert_int_equal(expr_eval_value(in, axes, &v, &err), -EINVAL);
	assert_contains(err.buf, "expected a number or an expression string");
	strbuf_reset(&err);

	/* A bare reference to a list is a value but not a number. */
	d = -1;
	in = json_string("$shape");
	assert_int_equal(expr_eval_number(in, axes, &d, &err), -EINVAL);
	assert_contains(err.buf, "expression does not give a number");
	assert_float_equal(d, -1, 0);
	json_decref(in);
	strbuf_release(&err);
	json_decref(axes);
}

static void test_subst(void **state)
{
	static const struct {
		const char *tmpl, *want;
	} rows[] = {
		{"'$shape'", "[2, 3, 4]"},
		{"'shape'", "'shape'"},
		/* only a leading '$' makes an expression */
		{"'cost $n'", "'cost $n'"},
		/* '$(' opens an expression that starts with a function or a number */
		{"['$(max(1, 1 + ($n - 1) * 3))', '$(2 * $n)', '$(7)']", "[28, 20, 7]"},
		{"[]", "[]"},
		{"null", "null"},
		{"1.5", "1.5"},
		{"{'shape': '$shape', 'dims': ['$shape[0]', 'lit', 3, '$n * 2', null, true],"
		 " 'inner': {'d': '$dtype', 's': 'dtype', 'p': '$pair',"
		 " 'deep': [['$pair.b[-1]']]}}",
		 "{'shape': [2, 3, 4], 'dims': [2, 'lit', 3, 20, null, true],"
		 " 'inner': {'d': 'float16', 's': 'dtype', 'p': {'a': 5, 'b': [7, 8]},"
		 " 'deep': [[8]]}}"},
	};
	json_t *axes = unit_json(axes_sq);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct strbuf err = STRBUF_INIT;
		json_t *tmpl = unit_json(rows[i].tmpl), *copy = json_deep_copy(tmpl);
		json_t *want = unit_json(rows[i].want), *got = NULL;

		print_message("%s\n", rows[i].tmpl);
		assert_int_equal(expr_subst(tmpl, axes, &got, &err), 0);
		assert_json_equal(got, want);
		/* the template itself is not modified */
		assert_json_equal(tmpl, copy);
		assert_int_equal(err.len, 0);
		json_decref(got);
		json_decref(want);
		json_decref(copy);
		json_decref(tmpl);
		strbuf_release(&err);
	}
	json_decref(axes);
}

static void test_subst_error(void **state)
{
	json_t *axes = unit_json(axes_sq);
	json_t *tmpl = unit_json("{'a': {'ok': '$n', 'b': ['x', '$nope']}}"), *got = NULL;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(expr_subst(tmpl, axes, &got, &err), -EINVAL);
	assert_null(got);
	assert_contains(err.buf, "unknown axis 'nope'");
	/* the path to the bad string, innermost field first */
	assert_contains(err.buf, "(field 'b') (field 'a')");
	strbuf_release(&err);
	json_decref(tmpl);
	json_decref(axes);
}

static void test_collect_refs(void **state)
{
	static const struct {
		const char *src, *want;
	} rows[] = {
		{"$shape", "{'shape': true}"},
		{"numel($shape) * itemsize($dtype)", "{'shape': true, 'dtype': true}"},
		{"$pair.a + $pair.b[0]", "{'pair': true}"},
		{"$shape[$n - 1]", "{'shape': true, 'n': true}"},
		{"no refs", "{}"},
		{"", "{}"},
		{"$ $1 $_x2", "{'_x2': true}"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		json_t *names = json_object(), *want = unit_json(rows[i].want);

		print_message("'%s'\n", rows[i].src);
		expr_collect_refs(rows[i].src, names);
		assert_json_equal(names, want);
		json_decref(names);
		json_decref(want);
	}
}

static void test_collect_refs_adds(void **state)
{
	json_t *names = unit_json("{'keep': true}");
	json_t *want = unit_json("{'keep': true, 'n': true}");

	(void)state;
	expr_collect_refs("$n + $n", names);
	assert_json_equal(names, want);
	json_decref(names);
	json_decref(want);
}

static void test_collect_refs_tree(void **state)
{
	/* Every string starting with '$' is scanned; literals are not, even with a '$' inside. */
	json_t *tmpl = unit_json("{'a': '$x', 'b': ['$y + $z', 'literal $w', 3, null],"
				 " 'c': {'d': '$x[0]', 'e': ['$v']}}");
	json_t *names = json_object(), *want = unit_json("{'x': 1, 'y': 1, 'z': 1, 'v': 1}");
	const char *key;
	json_t *v;

	(void)state;
	expr_collect_refs_tree(tmpl, names);
	assert_int_equal(json_object_size(names), json_object_size(want));
	json_object_foreach(want, key, v) {
		print_message("%s\n", key);
		assert_non_null(json_object_get(names, key));
	}
	json_decref(names);
	json_decref(want);
	json_decref(tmpl);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_eval_values),	    cmocka_unit_test(test_eval_errors),
	cmocka_unit_test(test_eval_nesting),	    cmocka_unit_test(test_eval_value_and_number),
	cmocka_unit_test(test_subst),		    cmocka_unit_test(test_subst_error),
	cmocka_unit_test(test_collect_refs),	    cmocka_unit_test(test_collect_refs_adds),
	cmocka_unit_test(test_collect_refs_tree),
};

UNIT_MAIN(tests)
