#include "expr.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "util/parse.h"
#include "util/xalloc.h"

/* Recursion depth cap: expressions come from task files, which are outside data. */
#define EXPR_MAX_DEPTH 64

struct parser {
	const char *src;
	const char *p;
	json_t *axes;
	struct strbuf *err;
	int depth;
};

static int fail(struct parser *ps, const char *fmt, const char *what)
{
	if (!ps->err->len) {
		strbuf_addf(ps->err, fmt, what);
		strbuf_addf(ps->err, " at offset %ld in '%s'", (long)(ps->p - ps->src), ps->src);
	}
	return -EINVAL;
}

static void skip_ws(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static size_t ident_len(const char *p)
{
	size_t n = 0;

	if (!is_ident_start((unsigned char)p[0]))
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

static int parse_sum(struct parser *ps, json_t **ret);

static int as_double(struct parser *ps, json_t *v, double *ret)
{
	if (!json_is_number(v))
		return fail(ps, "expected a number, got %s",
			    json_is_array(v) ? "a list" : json_is_string(v) ? "a string" : "another value");
	*ret = json_number_value(v);
	return 0;
}

static int itemsize_of(const char *dtype, long long *ret)
{
	static const struct {
		const char *name;
		int size;
	} sizes[] = {
		{"float16", 2}, {"bfloat16", 2}, {"float32", 4}, {"float64", 8},
		{"int8", 1},	{"uint8", 1},	 {"int16", 2},	 {"int32", 4},
		{"int64", 8},	{"bool", 1},	 {"complex64", 8}, {"complex128", 16},
		{"float8_e4m3fn", 1}, {"float8_e5m2", 1},
	};

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		if (!strcmp(sizes[i].name, dtype)) {
			*ret = sizes[i].size;
			return 0;
		}
	}
	return -EINVAL;
}

static int call_func(struct parser *ps, const char *name, json_t **argv, int argc, json_t **ret)
{
	if (!strcmp(name, "numel") || !strcmp(name, "len")) {
		size_t i;
		json_t *x;
		long long n = 1;

		if (argc != 1 || !json_is_array(argv[0]))
			return fail(ps, "%s() takes one list", name);
		if (name[0] == 'l') {
			*ret = json_integer((json_int_t)json_array_size(argv[0]));
			return 0;
		}
		json_array_foreach(argv[0], i, x) {
			if (!json_is_integer(x) || json_integer_value(x) < 0)
				return fail(ps, "%s() needs a list of non-negative integers", name);
			if (__builtin_mul_overflow(n, json_integer_value(x), &n))
				return fail(ps, "integer overflow in %s()", name);
		}
		*ret = json_integer(n);
		return 0;
	}
	if (!strcmp(name, "numel_dims")) {
		/* numel_dims(shape, dims): elements reduced over `dims` (null: all dims). */
		long long n = 1, len;
		size_t i;
		json_t *d;

		if (argc != 2 || !json_is_array(argv[0]) ||
		    !(json_is_array(argv[1]) || json_is_null(argv[1]) || json_is_integer(argv[1])))
			return fail(ps, "%s() takes a shape and a list of dims (or null)", name);
		len = (long long)json_array_size(argv[0]);
		if (json_is_null(argv[1]))
			return call_func(ps, "numel", argv, 1, ret);
		if (json_is_integer(argv[1])) {
			json_t *one = json_array(), *sub[2] = {argv[0], one};
			int r;

			json_array_append(one, argv[1]);
			r = call_func(ps, name, sub, 2, ret);
			json_decref(one);
			return r;
		}
		json_array_foreach(argv[1], i, d) {
			long long k = json_is_integer(d) ? json_integer_value(d) : len;
			json_t *e;

			if (k < 0)
				k += len;
			if (k < 0 || k >= len)
				return fail(ps, "%s(): dim out of range", name);
			e = json_array_get(argv[0], (size_t)k);
			if (!json_is_integer(e) || json_integer_value(e) < 0)
				return fail(ps, "%s() needs a shape of non-negative integers", name);
			if (__builtin_mul_overflow(n, json_integer_value(e), &n))
				return fail(ps, "integer overflow in %s()", name);
		}
		*ret = json_integer(n);
		return 0;
	}
	if (!strcmp(name, "itemsize")) {
		long long n;

		if (argc != 1 || !json_is_string(argv[0]) ||
		    itemsize_of(json_string_value(argv[0]), &n) < 0)
			return fail(ps, "%s() takes one dtype name", name);
		*ret = json_integer(n);
		return 0;
	}
	if (!strcmp(name, "sqrt")) {
		double x;

		if (argc != 1)
			return fail(ps, "%s() takes one number", name);
		if (as_double(ps, argv[0], &x) < 0)
			return -EINVAL;
		*ret = json_real(sqrt(x));
		/* json_real() refuses NaN, which JSON cannot carry */
		return *ret ? 0 : fail(ps, "%s() of a negative number", name);
	}
	if (!strcmp(name, "min") || !strcmp(name, "max")) {
		bool is_min = name[1] == 'i';
		json_t *best;

		if (argc != 2 || !json_is_number(argv[0]) || !json_is_number(argv[1]))
			return fail(ps, "%s() takes two numbers", name);
		best = (json_number_value(argv[0]) <= json_number_value(argv[1])) == is_min ? argv[0]
											    : argv[1];
		*ret = json_incref(best);
		return 0;
	}
	return fail(ps, "unknown function '%s'", name);
}

static int parse_primary(struct parser *ps, json_t **ret)
{
	size_t n;

	skip_ws(ps);
	/* "$(...)": an args expression that starts with a function or a number ("$(max(1, $n))"). */
	if (ps->p[0] == '$' && ps->p[1] == '(')
		ps->p++;
	if (*ps->p == '(') {
		ps->p++;
		if (parse_sum(ps, ret) < 0)
			return -EINVAL;
		skip_ws(ps);
		if (*ps->p != ')') {
			json_decref(*ret);
			return fail(ps, "expected '%s'", ")");
		}
		ps->p++;
		return 0;
	}
	if (*ps->p == '$') {
		json_t *v;
		char *name;

		ps->p++;
		n = ident_len(ps->p);
		if (!n)
			return fail(ps, "expected an axis name after '%s'", "$");
		name = xstrndup(ps->p, n);
		v = json_object_get(ps->axes, name);
		if (!v) {
			fail(ps, "unknown axis '%s'", name);
			free(name);
			return -EINVAL;
		}
		free(name);
		ps->p += n;
		*ret = json_incref(v);
		return 0;
	}
	if (isdigit((unsigned char)*ps->p) || *ps->p == '.') {
		const char *start = ps->p;
		bool real = false;
		char *text;
		int r;

		while (isdigit((unsigned char)*ps->p) || *ps->p == '.' || *ps->p == 'e' ||
		       *ps->p == 'E' ||
		       ((*ps->p == '-' || *ps->p == '+') && (ps->p[-1] == 'e' || ps->p[-1] == 'E'))) {
			if (!isdigit((unsigned char)*ps->p))
				real = true;
			ps->p++;
		}
		text = xstrndup(start, (size_t)(ps->p - start));
		if (real) {
			double d;
			r = parse_double(text, &d);
			if (r == 0)
				*ret = json_real(d);
		} else {
			long l;
			r = parse_long(text, &l);
			if (r == 0)
				*ret = json_integer(l);
		}
		if (r < 0)
			fail(ps, "bad number '%s'", text);
		free(text);
		return r < 0 ? -EINVAL : 0;
	}
	n = ident_len(ps->p);
	if (n) {
		json_t *argv[4];
		int argc = 0, r;
		char *name = xstrndup(ps->p, n);

		ps->p += n;
		skip_ws(ps);
		if (*ps->p != '(') {
			fail(ps, "expected '(' after function name '%s'", name);
			free(name);
			return -EINVAL;
		}
		ps->p++;
		skip_ws(ps);
		r = 0;
		if (*ps->p != ')') {
			for (;;) {
				if (argc == (int)ARRAY_SIZE(argv)) {
					r = fail(ps, "too many arguments to '%s'", name);
					break;
				}
				if (parse_sum(ps, &argv[argc]) < 0) {
					r = -EINVAL;
					break;
				}
				argc++;
				skip_ws(ps);
				if (*ps->p == ',') {
					ps->p++;
					continue;
				}
				break;
			}
		}
		if (r == 0 && *ps->p != ')')
			r = fail(ps, "expected '%s'", ")");
		if (r == 0) {
			ps->p++;
			r = call_func(ps, name, argv, argc, ret);
		}
		for (int i = 0; i < argc; i++)
			json_decref(argv[i]);
		free(name);
		return r;
	}
	return fail(ps, "expected a number, '$axis', a function or '('%s", "");
}

static int parse_postfix(struct parser *ps, json_t **ret)
{
	json_t *v;

	if (parse_primary(ps, &v) < 0)
		return -EINVAL;
	for (;;) {
		skip_ws(ps);
		if (*ps->p == '.' && is_ident_start((unsigned char)ps->p[1])) {
			size_t n = ident_len(ps->p + 1);
			char *key = xstrndup(ps->p + 1, n);
			json_t *f = json_is_object(v) ? json_object_get(v, key) : NULL;

			if (!f) {
				fail(ps, "no field '%s'", key);
				free(key);
				json_decref(v);
				return -EINVAL;
			}
			free(key);
			ps->p += n + 1;
			json_incref(f);
			json_decref(v);
			v = f;
		} else if (*ps->p == '[') {
			json_t *idx, *e;
			long long i, len;

			ps->p++;
			if (parse_sum(ps, &idx) < 0) {
				json_decref(v);
				return -EINVAL;
			}
			skip_ws(ps);
			if (*ps->p != ']' || !json_is_integer(idx) || !json_is_array(v)) {
				json_decref(idx);
				json_decref(v);
				return fail(ps, "bad index: expected list[integer]%s", "");
			}
			ps->p++;
			i = json_integer_value(idx);
			len = (long long)json_array_size(v);
			json_decref(idx);
			if (i < 0)
				i += len;
			if (i < 0 || i >= len) {
				json_decref(v);
				return fail(ps, "index out of range%s", "");
			}
			e = json_incref(json_array_get(v, (size_t)i));
			json_decref(v);
			v = e;
		} else {
			break;
		}
	}
	*ret = v;
	return 0;
}

static int parse_unary(struct parser *ps, json_t **ret)
{
	json_t *v;

	skip_ws(ps);
	if (*ps->p != '-')
		return parse_postfix(ps, ret);
	ps->p++;
	if (++ps->depth > EXPR_MAX_DEPTH)
		return fail(ps, "expression nested too deeply%s", "");
	if (parse_unary(ps, &v) < 0)
		return -EINVAL;
	ps->depth--;
	if (json_is_integer(v) && json_integer_value(v) == LLONG_MIN) {
		json_decref(v);
		return fail(ps, "integer overflow in '%s'", "-");
	}
	if (json_is_integer(v))
		*ret = json_integer(-json_integer_value(v));
	else if (json_is_real(v))
		*ret = json_real(-json_real_value(v));
	else {
		json_decref(v);
		return fail(ps, "cannot negate a non-number%s", "");
	}
	json_decref(v);
	return 0;
}

static int arith_numbers(struct parser *ps, const char *op, json_t *a, json_t *b, json_t **ret)
{
	double x, y;

	if (!json_is_number(a) || !json_is_number(b))
		return fail(ps, "operator '%s' needs numbers", op);
	if (json_is_integer(a) && json_is_integer(b) && strcmp(op, "/")) {
		long long i = json_integer_value(a), j = json_integer_value(b), k, q, m;
		bool over;

		switch (op[0]) {
		case '+':
			over = __builtin_add_overflow(i, j, &k);
			break;
		case '-':
			over = __builtin_sub_overflow(i, j, &k);
			break;
		case '*':
			over = __builtin_mul_overflow(i, j, &k);
			break;
		default:
			if (j == 0)
				return fail(ps, "division by zero in '%s'", op);
			if (j == -1) {
				/* C's LLONG_MIN / -1 overflows and LLONG_MIN % -1 traps. */
				k = 0;
				over = op[0] == '/' && __builtin_sub_overflow(0LL, i, &k);
				break;
			}
			/* Python's rules, as for reals: `//` floors, `%` has the divisor's sign. */
			q = i / j;
			m = i % j;
			if (m != 0 && (m < 0) != (j < 0)) {
				q--;
				m += j;
			}
			over = false;
			k = op[0] == '%' ? m : q;
			break;
		}
		if (over)
			return fail(ps, "integer overflow in '%s'", op);
		*ret = json_integer(k);
		return 0;
	}
	x = json_number_value(a);
	y = json_number_value(b);
	switch (op[0]) {
	case '+':
		*ret = json_real(x + y);
		break;
	case '-':
		*ret = json_real(x - y);
		break;
	case '*':
		*ret = json_real(x * y);
		break;
	case '%':
		if (y == 0)
			return fail(ps, "division by zero in '%s'", op);
		x = fmod(x, y);
		*ret = json_real(x != 0 && (x < 0) != (y < 0) ? x + y : x);
		break;
	default:
		if (y == 0)
			return fail(ps, "division by zero in '%s'", op);
		*ret = json_real(op[1] == '/' ? floor(x / y) : x / y);
		break;
	}
	/* json_real() refuses inf and NaN, which JSON cannot carry: the case would lose the value */
	if (!*ret)
		return fail(ps, "'%s' gives inf or NaN (an argument value spells them \"inf\", "
				"\"-inf\" or \"nan\")", op);
	return 0;
}

/*
 * A boolean operand counts as 0 or 1, as in Python, so a cost model can follow an optional
 * argument: "($has_bias * $n + ...) * itemsize($dtype)".
 */
static int arith(struct parser *ps, const char *op, json_t *a, json_t *b, json_t **ret)
{
	json_t *ia = json_is_boolean(a) ? json_integer(json_is_true(a)) : json_incref(a);
	json_t *ib = json_is_boolean(b) ? json_integer(json_is_true(b)) : json_incref(b);
	int r = arith_numbers(ps, op, ia, ib, ret);

	json_decref(ia);
	json_decref(ib);
	return r;
}

static int parse_binary(struct parser *ps, json_t **ret, bool sum_level)
{
	json_t *a, *b, *c;
	char op[3];

	if ((sum_level ? parse_binary(ps, &a, false) : parse_unary(ps, &a)) < 0)
		return -EINVAL;
	for (;;) {
		skip_ws(ps);
		if (sum_level ? (*ps->p != '+' && *ps->p != '-')
			      : (*ps->p != '*' && *ps->p != '/' && *ps->p != '%'))
			break;
		op[0] = *ps->p++;
		op[1] = op[2] = '\0';
		if (op[0] == '/' && *ps->p == '/')
			op[1] = *ps->p++;
		if ((sum_level ? parse_binary(ps, &b, false) : parse_unary(ps, &b)) < 0) {
			json_decref(a);
			return -EINVAL;
		}
		if (arith(ps, op, a, b, &c) < 0) {
			json_decref(a);
			json_decref(b);
			return -EINVAL;
		}
		json_decref(a);
		json_decref(b);
		a = c;
	}
	*ret = a;
	return 0;
}

static int parse_sum(struct parser *ps, json_t **ret)
{
	int r;

	if (++ps->depth > EXPR_MAX_DEPTH)
		return fail(ps, "expression nested too deeply%s", "");
	r = parse_binary(ps, ret, true);
	ps->depth--;
	return r;
}

int expr_eval(const char *src, json_t *axes, json_t **ret_value, struct strbuf *err)
{
	struct parser ps = {.src = src, .p = src, .axes = axes, .err = err};
	json_t *v;

	if (parse_sum(&ps, &v) < 0)
		return -EINVAL;
	skip_ws(&ps);
	if (*ps.p) {
		json_decref(v);
		return fail(&ps, "unexpected '%.1s'", ps.p);
	}
	*ret_value = v;
	return 0;
}

int expr_eval_value(json_t *value, json_t *axes, json_t **ret_value, struct strbuf *err)
{
	if (json_is_number(value)) {
		*ret_value = json_incref(value);
		return 0;
	}
	if (!json_is_string(value)) {
		strbuf_addstr(err, "expected a number or an expression string");
		return -EINVAL;
	}
	return expr_eval(json_string_value(value), axes, ret_value, err);
}

int expr_eval_number(json_t *value, json_t *axes, double *ret, struct strbuf *err)
{
	json_t *v;

	if (expr_eval_value(value, axes, &v, err) < 0)
		return -EINVAL;
	if (!json_is_number(v)) {
		json_decref(v);
		strbuf_addstr(err, "expression does not give a number");
		return -EINVAL;
	}
	*ret = json_number_value(v);
	json_decref(v);
	return 0;
}

int expr_subst(json_t *tmpl, json_t *axes, json_t **ret_value, struct strbuf *err)
{
	if (json_is_string(tmpl)) {
		const char *s = json_string_value(tmpl);

		if (s[0] == '$')
			return expr_eval(s, axes, ret_value, err);
		*ret_value = json_incref(tmpl);
		return 0;
	}
	if (json_is_array(tmpl)) {
		json_t *out = json_array(), *e, *v;
		size_t i;

		json_array_foreach(tmpl, i, e) {
			if (expr_subst(e, axes, &v, err) < 0) {
				json_decref(out);
				return -EINVAL;
			}
			json_array_append_new(out, v);
		}
		*ret_value = out;
		return 0;
	}
	if (json_is_object(tmpl)) {
		json_t *out = json_object(), *e, *v;
		const char *key;

		json_object_foreach(tmpl, key, e) {
			if (expr_subst(e, axes, &v, err) < 0) {
				strbuf_addf(err, " (field '%s')", key);
				json_decref(out);
				return -EINVAL;
			}
			json_object_set_new(out, key, v);
		}
		*ret_value = out;
		return 0;
	}
	*ret_value = json_incref(tmpl);
	return 0;
}

void expr_collect_refs(const char *src, json_t *names)
{
	for (const char *p = src; *p; p++) {
		size_t n;
		char *name;

		if (*p != '$')
			continue;
		n = ident_len(p + 1);
		if (!n)
			continue;
		name = xstrndup(p + 1, n);
		json_object_set_new(names, name, json_true());
		free(name);
		p += n;
	}
}

void expr_collect_refs_tree(json_t *tmpl, json_t *names)
{
	size_t i;
	const char *key;
	json_t *e;

	if (json_is_string(tmpl) && json_string_value(tmpl)[0] == '$')
		expr_collect_refs(json_string_value(tmpl), names);
	else if (json_is_array(tmpl))
		json_array_foreach(tmpl, i, e) expr_collect_refs_tree(e, names);
	else if (json_is_object(tmpl))
		json_object_foreach(tmpl, key, e) expr_collect_refs_tree(e, names);
}
