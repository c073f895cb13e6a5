/*
 * report_html.h - the self-contained HTML report of one or more stored runs (`kgb report -o`).
 *
 * One page, nothing fetched to view it: inline CSS, a small inline script (sorting and filtering
 * the per-task table, and a #selftest fragment that sorts it and writes the result into the
 * page, for headless tests), inline SVG plots drawn by svg.c. Every number shown is recomputed
 * from the store by report.c's definitions (docs/metrics.md) and carries its raw value in a
 * data-value attribute; the page names each run's store path, run id and command, and the kgb
 * commit that wrote it. Every string from the store is HTML-escaped.
 */
#ifndef KGB_REPORT_HTML_H
#define KGB_REPORT_HTML_H

#include <stddef.h>

#include "report_runs.h"
#include "util/strbuf.h"

/* Appends the page for methods m[0..n) (borrowed) to out. */
void report_html_render(struct strbuf *out, const struct report_method *m, size_t n);

#endif
