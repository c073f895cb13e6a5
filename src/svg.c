#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "util/xalloc.h"

double svg_scale_map(const struct svg_scale *s, double v)
{
	double a = s->d0, b = s->d1;

	if (isnan(v))
		return NAN;
	if (s->log) {
		if (v <= 0 || a <= 0 || b <= 0)
			return NAN;
		v = log10(v), a = log10(a), b = log10(b);
	}
	if (b == a)
		return (s->r0 + s->r1) / 2;
	return s->r0 + (v - a) / (b - a) * (s->r1 - s->r0);
}

size_t svg_ticks(double lo, double hi, bool log, double *out, size_t max)
{
	size_t n = 0;

	if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi) || max == 0)
		return 0;
	if (log) {
		double e0, e1;
		bool fine;

		if (lo <= 0)
			return 0;
		e0 = floor(log10(lo) + 1e-9);
		e1 = ceil(log10(hi) - 1e-9);
		fine = e1 - e0 < 3;
		for (double e = e0; e <= e1 && n < max; e++) {
			static const double mult[3] = {1, 2, 5};

			for (int k = 0; k < (fine ? 3 : 1) && n < max; k++) {
				double v = mult[k] * pow(10, e);

				if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
					out[n++] = v;
			}
		}
		return n;
	}
	if (lo == hi) {
		out[0] = lo;
		return 1;
	}
	{
		double span = hi - lo, p = pow(10, floor(log10(span)) - 1), step = p;
		static const double mult[] = {1, 2, 5, 10, 20, 50, 100};

		for (size_t k = 0; k < sizeof(mult) / sizeof(mult[0]); k++) {
			step = mult[k] * p;
			if (floor(hi / step + 1e-9) - ceil(lo / step - 1e-9) + 1 <= (double)max)
				break;
		}
		for (double v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && n < max;
		     v += step)
			out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

void svg_tick_label(double v, char *out, size_t n)
{
	if (v != 0 && (fabs(v) >= 1e4 || fabs(v) < 1e-3))
		snprintf(out, n, "%.0e", v);
	else
		snprintf(out, n, "%g", v);
}

void svg_nice_domain(double *lo, double *hi, bool log)
{
	if (log) {
		if (!(*lo > 0) || !isfinite(*lo))
			*lo = 1;
		if (!(*hi > 0) || !isfinite(*hi) || *hi < *lo)
			*hi = *lo;
		*lo = pow(10, floor(log10(*lo) + 1e-9));
		*hi = pow(10, ceil(log10(*hi) - 1e-9));
		if (*hi <= *lo)
			*hi = *lo * 10;
		return;
	}
	if (!isfinite(*lo) || !isfinite(*hi) || *hi < *lo)
		*lo = 0, *hi = 1;
	if (*hi == *lo)
		*hi = *lo + 1;
}

void svg_open(struct strbuf *sb, int w, int h, const char *title)
{
	strbuf_addf(sb,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		    "height=\"%d\" role=\"img\"><title>",
		    w, h, w, h);
	escape_html(sb, title);
	strbuf_addstr(sb, "</title>\n");
}

void svg_close(struct strbuf *sb)
{
	strbuf_addstr(sb, "</svg>\n");
}

void svg_text(struct strbuf *sb, double x, double y, const char *anchor, const char *cls,
	      const char *text)
{
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">", x, y,
		    anchor, cls);
	escape_html(sb, text);
	strbuf_addstr(sb, "</text>\n");
}

static void axis_ticks(struct strbuf *sb, const struct svg_scale *s, const struct svg_scale *o,
		       bool is_x)
{
	double t[16];
	size_t n = svg_ticks(s->d0 < s->d1 ? s->d0 : s->d1, s->d0 < s->d1 ? s->d1 : s->d0, s->log,
			     t, 12);

	for (size_t i = 0; i < n; i++) {
		double p = svg_scale_map(s, t[i]);
		char l[32];

		svg_tick_label(t[i], l, sizeof(l));
		if (is_x) {
			strbuf_addf(sb,
				    "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
				    "y2=\"%.1f\"/>\n",
				    p, p, o->r0, o->r1);
			svg_text(sb, p, o->r0 + 14, "middle", "tick", l);
		} else {
			strbuf_addf(sb,
				    "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
				    "y2=\"%.1f\"/>\n",
				    o->r0, o->r1, p, p);
			svg_text(sb, o->r0 - 4, p + 4, "end", "tick", l);
		}
	}
}

void svg_axes(struct strbuf *sb, const struct svg_scale *x, const struct svg_scale *y,
	      const char *xtitle, const char *ytitle)
{
	/* y->r0 is the bottom pixel, x->r0 the left one. */
	axis_ticks(sb, x, y, true);
	axis_ticks(sb, y, x, false);
	strbuf_addf(sb, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
		    x->r0, x->r1, y->r0, y->r0);
	strbuf_addf(sb, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
		    x->r0, x->r0, y->r0, y->r1);
	svg_text(sb, (x->r0 + x->r1) / 2, y->r0 + 30, "middle", "title", xtitle);
	strbuf_addf(sb,
		    "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" "
		    "class=\"title\">",
		    x->r0 - 38, (y->r0 + y->r1) / 2);
	escape_html(sb, ytitle);
	strbuf_addstr(sb, "</text>\n");
}

/* A label as UTF-8 code points: code point k is s[off[k], off[k + 1]). */
struct u8_label {
	const char *s;
	size_t n, *off;
};

static void u8_index(struct u8_label *u, const char *s)
{
	size_t len = strlen(s);

	u->s = s;
	u->n = 0;
	u->off = xcalloc(len + 2, sizeof(*u->off));
	for (size_t i = 0; i < len; i++)
		if (!i || ((unsigned char)s[i] & 0xc0) != 0x80) /* not a continuation byte */
			u->off[u->n++] = i;
	u->off[u->n] = len;
}

static bool u8_same(const struct u8_label *a, size_t i, const struct u8_label *b, size_t j)
{
	size_t la = a->off[i + 1] - a->off[i];

	return la == b->off[j + 1] - b->off[j] && !memcmp(a->s + a->off[i], b->s + b->off[j], la);
}

/* How many code points a and b share at their start, or (at_end) at their end. */
static size_t u8_common(const struct u8_label *a, const struct u8_label *b, bool at_end)
{
	size_t k = 0;

	while (k < a->n && k < b->n &&
	       u8_same(a, at_end ? a->n - 1 - k : k, b, at_end ? b->n - 1 - k : k))
		k++;
	return k;
}

static void u8_add(struct strbuf *sb, const struct u8_label *u, size_t from, size_t to)
{
	strbuf_add(sb, u->s + u->off[from], u->off[to] - u->off[from]);
}

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026, one character of the `max` */

/*
 * The shortest tail, from min_tail up, with which head + "..." + tail (max characters) differs
 * from every other label: in its head or in its tail. 0 when none does.
 */
static size_t fitting_tail(const struct u8_label *u, size_t n, size_t i, size_t max,
			   size_t min_tail, size_t min_head)
{
	for (size_t t = min_tail; t + 1 + min_head <= max; t++) {
		bool ok = true;

		for (size_t j = 0; j < n && ok; j++)
			if (j != i && strcmp(u[i].s, u[j].s))
				ok = u8_common(&u[i], &u[j], false) < max - 1 - t ||
				     u8_common(&u[i], &u[j], true) < t;
		if (ok)
			return t;
	}
	return 0;
}

/* Label i shortened (it is longer than max): see svg_short_labels(). */
static char *short_label(const struct u8_label *u, size_t n, size_t i, size_t max)
{
	const struct u8_label *l = &u[i];
	size_t min_head = max / 3, t = fitting_tail(u, n, i, max, max / 3, min_head);
	size_t p = 0, w = max - min_head - 2, a;
	struct strbuf sb = STRBUF_INIT;

	if (t) {
		u8_add(&sb, l, 0, max - 1 - t);
		strbuf_addstr(&sb, ELLIPSIS);
		u8_add(&sb, l, l->n - t, l->n);
		return strbuf_detach(&sb, NULL);
	}
	/* they differ only in the middle: show it, centred on the first difference */
	for (size_t j = 0; j < n; j++) {
		size_t c = j != i && strcmp(l->s, u[j].s) ? u8_common(l, &u[j], false) : 0;

		p = c > p ? c : p;
	}
	a = p > min_head + w / 2 ? p - w / 2 : min_head;
	u8_add(&sb, l, 0, min_head);
	strbuf_addstr(&sb, ELLIPSIS);
	if (a + w + 1 >= l->n) {
		u8_add(&sb, l, l->n - w - 1, l->n);
	} else {
		u8_add(&sb, l, a, a + w);
		strbuf_addstr(&sb, ELLIPSIS);
	}
	return strbuf_detach(&sb, NULL);
}

char **svg_short_labels(const char *const *labels, size_t n, size_t max)
{
	struct u8_label *u = xcalloc(n + 1, sizeof(*u));
	char **out = xcalloc(n + 1, sizeof(*out));
	bool *alike = xcalloc(n + 1, sizeof(*alike));

	for (size_t i = 0; i < n; i++)
		u8_index(&u[i], labels[i]);
	for (size_t i = 0; i < n; i++)
		out[i] = u[i].n <= max ? xstrdup(labels[i]) : short_label(u, n, i, max);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(labels[i], labels[j]) && !strcmp(out[i], out[j]))
				alike[i] = alike[j] = true;
	for (size_t i = 0; i < n; i++) {
		struct strbuf sb = STRBUF_INIT;
		char tag[32];
		size_t keep;

		if (!alike[i])
			continue;
		snprintf(tag, sizeof(tag), "#%zu", i);
		keep = max - 1 - strlen(tag);
		u8_add(&sb, &u[i], 0, u[i].n < keep ? u[i].n : keep);
		strbuf_addf(&sb, ELLIPSIS "%s", tag);
		free(out[i]);
		out[i] = strbuf_detach(&sb, NULL);
	}
	for (size_t i = 0; i < n; i++)
		free(u[i].off);
	free(u);
	free(alike);
	return out;
}

const char *svg_color(size_t i)
{
	static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
					      "#9467bd", "#8c564b", "#e377c2", "#17becf"};

	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

void svg_heat_color(double t, char out[8])
{
	int r, g, b;

	if (isnan(t)) {
		snprintf(out, 8, "#dddddd");
		return;
	}
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	/* white-ish red (0) through yellow to green (1) */
	if (t < 0.5) {
		r = 230;
		g = (int)(90 + 2 * t * (200 - 90));
		b = 80;
	} else {
		r = (int)(230 - 2 * (t - 0.5) * (230 - 60));
		g = (int)(200 - 2 * (t - 0.5) * (200 - 170));
		b = (int)(80 - 2 * (t - 0.5) * (80 - 90));
	}
	snprintf(out, 8, "#%02x%02x%02x", r & 0xff, g & 0xff, b & 0xff);
}
