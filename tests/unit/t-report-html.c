/*
 * t-report-html.c - the pure pieces of the HTML report, export and compare: SVG scales and
 * ticks (svg.c), text, JSON, HTML and CSV escaping (escape.c), the compare change rule
 * (report_runs.c).
 */
#include "unit.h"

#include "escape.h"
#include "report.h"
#include "report_runs.h"
#include "svg.h"

static void test_scale_linear_and_log(void **state)
{
	struct svg_scale lin = {.d0 = 0, .d1 = 10, .r0 = 100, .r1 = 200};
	struct svg_scale inv = {.d0 = 0, .d1 = 1, .r0 = 250, .r1 = 20}; /* y grows upwards */
	struct svg_scale lg = {.d0 = 0.1, .d1 = 10, .r0 = 0, .r1 = 200, .log = true};

	(void)state;
	assert_close(svg_scale_map(&lin, 0), 100, 1e-12);
	assert_close(svg_scale_map(&lin, 5), 150, 1e-12);
	assert_close(svg_scale_map(&lin, 20), 300, 1e-12); /* outside maps outside */
	assert_close(svg_scale_map(&inv, 1), 20, 1e-12);
	assert_close(svg_scale_map(&inv, 0.5), 135, 1e-12);
	assert_close(svg_scale_map(&lg, 1), 100, 1e-12); /* the middle decade */
	assert_close(svg_scale_map(&lg, 10), 200, 1e-12);
	assert_close(svg_scale_map(&lg, 0.1), 0, 1e-9);
	assert_true(isnan(svg_scale_map(&lg, 0)));  /* no log of 0 */
	assert_true(isnan(svg_scale_map(&lg, -2))); /* nor of a negative */
	assert_true(isnan(svg_scale_map(&lin, NAN)));
}

static void test_ticks(void **state)
{
	double t[16];
	size_t n;

	(void)state;
	n = svg_ticks(0, 1, false, t, 6); /* 0, 0.2, ... 1 */
	assert_int_equal(n, 6);
	assert_close(t[1], 0.2, 1e-12);
	assert_true(t[0] == 0 && fabs(t[5] - 1) < 1e-12);
	n = svg_ticks(0, 3, false, t, 12); /* 0, 0.5, ... 3 */
	assert_int_equal(n, 7);
	assert_close(t[1], 0.5, 1e-12);
	n = svg_ticks(0.1, 10, true, t, 16); /* under three decades: 1, 2, 5 per decade */
	assert_int_equal(n, 7);
	assert_close(t[0], 0.1, 1e-12);
	assert_close(t[1], 0.2, 1e-12);
	assert_close(t[6], 10, 1e-12);
	n = svg_ticks(1, 1e4, true, t, 16); /* four decades: powers of ten only */
	assert_int_equal(n, 5);
	assert_close(t[4], 1e4, 1e-9);
	assert_int_equal(svg_ticks(0, 10, true, t, 16), 0); /* log of 0 */
	assert_int_equal(svg_ticks(2, 1, false, t, 16), 0); /* empty interval */
	assert_int_equal(svg_ticks(3, 3, false, t, 16), 1);
}

static void test_nice_domain_and_labels(void **state)
{
	double lo = 0.7, hi = 3.2;
	char l[32];

	(void)state;
	svg_nice_domain(&lo, &hi, true);
	assert_close(lo, 0.1, 1e-12);
	assert_close(hi, 10, 1e-12);
	lo = INFINITY, hi = -INFINITY; /* no data */
	svg_nice_domain(&lo, &hi, true);
	assert_true(lo > 0 && hi > lo);
	lo = 2, hi = 2;
	svg_nice_domain(&lo, &hi, false);
	assert_true(hi > lo);
	svg_tick_label(0.5, l, sizeof(l));
	assert_string_equal(l, "0.5");
	svg_tick_label(1e4, l, sizeof(l));
	assert_string_equal(l, "1e+04");
	svg_tick_label(0, l, sizeof(l));
	assert_string_equal(l, "0");
}

static void test_escape_html(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	escape_html(&sb, "<script>alert('x') & \"y\"</script>");
	assert_string_equal(sb.buf,
			    "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
	strbuf_reset(&sb);
	escape_html(&sb, NULL);
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

static void test_escape_csv(void **state)
{
	static const struct {
		const char *in, *want;
	} rows[] = {
		{"plain", "plain"},
		{"", ""},
		{"a,b", "\"a,b\""},
		{"say \"hi\"", "\"say \"\"hi\"\"\""},
		/* Line ends are written out (escape_text), so no field spans lines. */
		{"two\nlines", "two\\nlines"},
		{" lead", "\" lead\""},
		{"trail ", "\"trail \""},
		{"in side", "in side"},
		/* OWASP CSV injection: a cell a spreadsheet would run as a formula. */
		{"=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""},
		{"+1", "'+1"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\\t=1"},
		{"\rx", "'\\rx"},
		{"a=1", "a=1"},
		{"\x1b[31m", "\\x1b[31m"},
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		strbuf_reset(&sb);
		escape_csv(&sb, rows[i].in);
		print_message("%s\n", rows[i].in);
		assert_string_equal(sb.buf ? sb.buf : "", rows[i].want);
	}
	strbuf_release(&sb);
}

/* Nothing that a terminal, a browser or a spreadsheet would act on survives escape_text. */
static void test_escape_text(void **state)
{
	static const struct {
		const char *in, *want;
	} rows[] = {
		{"plain text, \\ and \"quotes\"", "plain text, \\ and \"quotes\""},
		{"caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"},
		/* ANSI CSI (clear screen), OSC 0 (window title) ended by BEL, OSC 52 (clipboard) */
		{"\x1b[2J\x1b]0;pwned\x07", "\\x1b[2J\\x1b]0;pwned\\x07"},
		{"\x1b]52;c;cHduZWQ=\x1b\\", "\\x1b]52;c;cHduZWQ=\\x1b\\"},
		{"a\tb\nc\rd\x7f", "a\\tb\\nc\\rd\\x7f"},
		/* C1: an 8-bit CSI (U+009B), NEL (U+0085) */
		{"\xc2\x9b" "31m\xc2\x85", "\\u009b31m\\u0085"},
		/* bidi override (U+202E), isolate (U+2066), zero-width space, BOM */
		{"\xe2\x80\xae" "cod\xe2\x81\xa6\xe2\x80\x8b\xef\xbb\xbf", "\\u202ecod\\u2066\\u200b\\ufeff"},
		/* not UTF-8: a lone continuation byte, an overlong '/', a surrogate, a cut sequence */
		{"\x80", "\\x80"},
		{"\xc0\xaf", "\\xc0\\xaf"},
		{"\xed\xa0\x80", "\\xed\\xa0\\x80"},
		{"\xe2\x82", "\\xe2\\x82"},
		{"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		strbuf_reset(&sb);
		escape_text(&sb, rows[i].in);
		print_message("%zu: %s\n", i, sb.buf);
		assert_string_equal(sb.buf, rows[i].want);
		assert_int_equal(escape_text_needed(rows[i].in), strcmp(rows[i].in, rows[i].want) != 0);
		for (const unsigned char *p = (const unsigned char *)sb.buf; *p; p++)
			assert_true(*p >= 0x20 && *p != 0x7f);
	}
	strbuf_reset(&sb);
	escape_text(&sb, NULL);
	assert_int_equal(sb.len, 0);
	/* The HTML report's escaping does both. */
	escape_html(&sb, "<b>\x1b[1m</b>");
	assert_string_equal(sb.buf, "&lt;b&gt;\\x1b[1m&lt;/b&gt;");
	strbuf_release(&sb);
}

/* Every string of a JSON record, however deep; keys, numbers and clean strings untouched. */
static void test_escape_json_strings(void **state)
{
	json_t *o = json_pack("{s:s, s:i, s:[s, {s:s}], s:s}", "detail", "boom\x1b[2J", "n", 3,
			      "list", "x\x07", "in", "\xc2\x9b", "clean", "ok");
	char *s;

	(void)state;
	escape_json_strings(o);
	s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(s, "{\"clean\":\"ok\",\"detail\":\"boom\\\\x1b[2J\",\"list\":"
			       "[\"x\\\\x07\",{\"in\":\"\\\\u009b\"}],\"n\":3}");
	free(s);
	json_decref(o);
}

static void test_change_rule(void **state)
{
	struct report_side a = {.n = 1, .pass = 1, .speedup = 1.0, .ci_lo = 0.9, .ci_hi = 1.1};
	struct report_side b = a;
	struct report_delta d;
	double lo, hi;

	(void)state;
	report_runs_delta(&a, &b, &d);
	assert_int_equal(d.change, REPORT_SAME);
	b.pass = 0, b.speedup = NAN; /* one candidate each: a changed verdict is certain */
	report_runs_delta(&a, &b, &d);
	assert_int_equal(d.change, REPORT_WORSE);
	assert_true(d.significant);
	assert_string_equal(d.what, "verdict");
	b = a, b.speedup = 1.2, b.ci_lo = 1.05, b.ci_hi = 1.3; /* intervals overlap */
	report_runs_delta(&a, &b, &d);
	assert_int_equal(d.change, REPORT_BETTER);
	assert_false(d.significant);
	b.ci_lo = 1.15; /* disjoint */
	report_runs_delta(&a, &b, &d);
	assert_true(d.change == REPORT_BETTER && d.significant);
	assert_string_equal(d.what, "speedup");
	b.ci_lo = b.ci_hi = NAN; /* no interval: never significant */
	report_runs_delta(&a, &b, &d);
	assert_false(d.significant);
	/* pass rates: 1/2 against 2/2 overlap; 0/20 against 20/20 do not */
	a = (struct report_side){.n = 2, .pass = 1, .speedup = NAN};
	b = (struct report_side){.n = 2, .pass = 2, .speedup = NAN};
	report_runs_delta(&a, &b, &d);
	assert_true(d.change == REPORT_BETTER && !d.significant);
	a.n = b.n = b.pass = 20, a.pass = 0;
	report_runs_delta(&a, &b, &d);
	assert_true(d.change == REPORT_BETTER && d.significant);
	b.n = 0;
	report_runs_delta(&a, &b, &d);
	assert_int_equal(d.change, REPORT_ABSENT);
	report_runs_wilson(0, 10, &lo, &hi);
	assert_true(lo == 0 && hi > 0.25 && hi < 0.35); /* 0.2775 */
	report_runs_wilson(5, 10, &lo, &hi);
	assert_close(lo, 0.2366, 1e-3);
	assert_close(hi, 0.7634, 1e-3);
}

static void test_progress_bar(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	report_progress_bar(&sb, 3, 12, 30, 8, false); /* 10 s each: 90 s to go */
	assert_string_equal(sb.buf, "[==>     ] 3/12  25%  +30s  ETA 1m30s");
	strbuf_reset(&sb);
	report_progress_bar(&sb, 12, 12, 4000, 4, false); /* done: no ETA */
	assert_string_equal(sb.buf, "[====] 12/12 100%  +1h06m");
	strbuf_reset(&sb);
	report_progress_bar(&sb, 0, 5, 0, 4, true); /* nothing done yet: no ETA; colour codes */
	assert_string_equal(sb.buf, "[\033[32m>   \033[0m] 0/5   0%  +0s");
	strbuf_reset(&sb);
	report_progress_bar(&sb, 0, 0, 1, 2, false); /* nothing at all */
	assert_string_equal(sb.buf, "[  ] 0/0   0%  +1s");
	strbuf_release(&sb);
}

/* Code points of a UTF-8 string, checking that no sequence is cut. */
static size_t code_points(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; n++) {
		size_t k = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc0 ? 2 : 1;

		for (size_t c = 1; c < k; c++)
			assert_int_equal(p[c] & 0xc0, 0x80);
		p += k;
	}
	return n;
}

/* Shortened labels of labels[0..n) at `max`: each fits, and labels that differ still do. */
static char **short_labels(const char *const *labels, size_t n, size_t max)
{
	char **out = svg_short_labels(labels, n, max);

	for (size_t i = 0; i < n; i++) {
		print_message("%s -> %s\n", labels[i], out[i]);
		assert_true(code_points(out[i]) <= max);
		for (size_t j = 0; j < n; j++)
			assert_int_equal(!strcmp(labels[i], labels[j]), !strcmp(out[i], out[j]));
	}
	return out;
}

static void free_labels(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static void test_short_labels(void **state)
{
	/* two runs of one model in one store: they differ only in their last characters */
	static const char *const runs[] = {
		"shipped",
		"claude-sonnet-4-5-20250929 (sample) (kgb-results.db:3)",
		"claude-sonnet-4-5-20250929 (sample) (kgb-results.db:4)",
		"claude-sonnet-4-5-20250929 (sample)",
		"shipped",
	};
	/* differ only in the middle, far from either end */
	static const char *const middle[] = {
		"a-very-long-common-prefix-X-and-a-long-common-suffix (sample)",
		"a-very-long-common-prefix-Y-and-a-long-common-suffix (sample)",
	};
	/* the middle windows of 0 and 1 (centred on 30) read alike: the index decides */
	static const char *const alike[] = {
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"aaaaaaaaaaaaaaaaaaaabaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaacaaaaaaaaaaaaaaaaaaa",
		"aaaaaaaaaaaaaaaaaaaabaaaaaaaaacaaaaaaaaaaaaaaaaaaa",
	};
	static const char *const utf8[] = {"modèle-très-long-à-accents-ünïcode (sample)"};
	char **l;

	(void)state;
	l = short_labels(runs, ARRAY_SIZE(runs), 26);
	assert_string_equal(l[0], "shipped");
	assert_string_equal(l[3], "claude-sonnet-4-5\xe2\x80\xa6(sample)");
	assert_string_equal(l[1], "claude-sonnet-4-5\xe2\x80\xa6ts.db:3)");
	free_labels(l, ARRAY_SIZE(runs));
	l = short_labels(middle, ARRAY_SIZE(middle), 26);
	assert_non_null(strstr(l[0], "-X-"));
	assert_non_null(strstr(l[1], "-Y-"));
	free_labels(l, ARRAY_SIZE(middle));
	l = short_labels(alike, ARRAY_SIZE(alike), 12);
	assert_string_equal(l[0], "aaaaaaaaa\xe2\x80\xa6#0");
	assert_string_equal(l[1], "aaaaaaaaa\xe2\x80\xa6#1");
	free_labels(l, ARRAY_SIZE(alike));
	l = short_labels(utf8, 1, 26);
	assert_int_equal(code_points(l[0]), 26);
	assert_string_equal(l[0], "modèle-très-long-\xe2\x80\xa6(sample)");
	free_labels(l, 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_progress_bar), cmocka_unit_test(test_short_labels),
	cmocka_unit_test(test_scale_linear_and_log), cmocka_unit_test(test_ticks),
	cmocka_unit_test(test_nice_domain_and_labels), cmocka_unit_test(test_escape_html),
	cmocka_unit_test(test_escape_csv), cmocka_unit_test(test_escape_text),
	cmocka_unit_test(test_escape_json_strings), cmocka_unit_test(test_change_rule),
};

UNIT_MAIN(tests)
