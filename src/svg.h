/*
 * svg.h - the small plotting kit of the HTML report: scales, axis ticks, and SVG text for axes,
 * lines, points, bars and cells, appended to a strbuf (no library, no script needed to view).
 *
 * A scale maps a data interval [d0, d1] to a pixel interval [r0, r1], linearly or in log10
 * (then d0 and d1 must be > 0). Values outside the domain map outside the range; NAN maps to
 * NAN. The functions that take text (titles, labels) HTML-escape it (escape.h); the caller
 * escapes whatever else it appends to the same buffer.
 */
#ifndef KGB_SVG_H
#define KGB_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

struct svg_scale {
	double d0, d1; /* domain */
	double r0, r1; /* range, pixels */
	bool log;      /* log10 */
};

double svg_scale_map(const struct svg_scale *s, double v);
/*
 * Up to `max` tick values for [lo, hi] into out, ascending; returns how many. Linear: multiples
 * of 1, 2 or 5 x 10^k, the smallest step giving at most `max` ticks. Log: the powers of ten in
 * the interval, and 2x and 5x of them when there are fewer than three decades. 0 when lo > hi or
 * (log) lo <= 0.
 */
size_t svg_ticks(double lo, double hi, bool log, double *out, size_t max);
/* A short tick label: "0.5", "10", "1e+04", "2x" style without the x. */
void svg_tick_label(double v, char *out, size_t n);
/* Widens [*lo, *hi] so it is not empty: a log domain to whole decades around it. */
void svg_nice_domain(double *lo, double *hi, bool log);

/* <svg ...> with a viewBox of w x h and an aria title (escaped); svg_close() ends it. */
void svg_open(struct strbuf *sb, int w, int h, const char *title);
void svg_close(struct strbuf *sb);
/* A left y axis and a bottom x axis with ticks, grid lines and axis titles (escaped). */
void svg_axes(struct strbuf *sb, const struct svg_scale *x, const struct svg_scale *y,
	      const char *xtitle, const char *ytitle);
/* Text at (x, y), escaped; anchor "start", "middle" or "end". */
void svg_text(struct strbuf *sb, double x, double y, const char *anchor, const char *cls,
	      const char *text);

/*
 * Labels for a plot's legend, from labels[0..n): each at most `max` characters (UTF-8 code
 * points; max >= 12), since a legend has a fixed width and a longer label is cut by the SVG's
 * edge. A new array of new strings (free each, then the array). A label that fits is kept. A
 * longer one keeps its head and its tail around "...", the tail long enough to show where it
 * differs from every other label (report_methods_disambiguate ends duplicates with their store
 * and run, so the end is where runs of one model differ); where no tail does, the part where it
 * first differs from another instead of the tail; if two still read alike, "...#i" (i: its
 * index, as the Runs table numbers them) ends each. Labels equal in full stay equal.
 */
char **svg_short_labels(const char *const *labels, size_t n, size_t max);

/* The i-th colour of the series palette, "#rrggbb". */
const char *svg_color(size_t i);
/* A colour from white (t = 0) to green (t = 1) for heatmap cells; grey for NAN. */
void svg_heat_color(double t, char out[8]);

#endif
