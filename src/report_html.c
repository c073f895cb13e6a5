#include "report_html.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "escape.h"
#include "stats.h"
#include "svg.h"
#include "util/xalloc.h"
#include "verdict.h"

#ifndef KGB_GIT_COMMIT
#define KGB_GIT_COMMIT "unknown"
#endif

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1500px}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:8px 0}"
	"th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;white-space:nowrap}"
	"#leaderboard th{white-space:normal;max-width:80px}"
	"#leaderboard td,#leaderboard th{font-size:12px;padding:2px 4px}"
	"td.wrap{white-space:normal;text-align:left;max-width:320px;font-size:12px}"
	".scroll{overflow-x:auto;max-width:100%}"
	"th{background:#f3f3f3}td.l,th.l{text-align:left}"
	"#tasks th{cursor:pointer;user-select:none}#tasks th.asc:after{content:' \\25B2'}"
	"#tasks th.desc:after{content:' \\25BC'}"
	"td.pass{background:#e3f4e3}td.fail{background:#fae3e3}"
	".plots{display:flex;flex-wrap:wrap;gap:18px}.plot{border:1px solid #eee;padding:6px}"
	".plot h3{font-size:14px;margin:2px 0 4px}"
	"svg text{font:11px system-ui,sans-serif;fill:#333}svg text.title{font-size:12px}"
	"svg line.grid{stroke:#eee}svg line.axis{stroke:#555}"
	".meta{color:#555;font-size:12px}.na{color:#999}code{font-size:12px}";

/* Sorting, filtering and the #selftest hook; errors are collected into #js-errors. */
static const char script[] =
	"(function(){\n"
	"var t=document.getElementById('tasks');if(!t)return;\n"
	"var tb=t.tBodies[0],hs=t.tHead.rows[0].cells;\n"
	"function key(td,num){var v=td.getAttribute('data-value');\n"
	" if(num){var x=parseFloat(v);return isNaN(x)?-Infinity:x;}\n"
	" return v===null?td.textContent:v;}\n"
	"function sortBy(i,dir){var num=hs[i].getAttribute('data-type')==='num';\n"
	" var rows=Array.prototype.slice.call(tb.rows);\n"
	" rows.sort(function(a,b){var x=key(a.cells[i],num),y=key(b.cells[i],num);\n"
	"  var c=x<y?-1:x>y?1:0;return dir==='asc'?c:-c;});\n"
	" rows.forEach(function(r){tb.appendChild(r);});\n"
	" for(var k=0;k<hs.length;k++)\n"
	"  hs[k].className=hs[k].className.replace(/ ?(asc|desc)/g,'');\n"
	" hs[i].className+=' '+dir;}\n"
	"Array.prototype.forEach.call(hs,function(h,i){h.addEventListener('click',function(){\n"
	" sortBy(i,/ asc/.test(h.className)?'desc':'asc');});});\n"
	"var f=document.getElementById('filter');\n"
	"function filter(){var q=f.value.toLowerCase();Array.prototype.forEach.call(tb.rows,\n"
	" function(r){r.style.display=r.textContent.toLowerCase().indexOf(q)>=0?'':'none';});}\n"
	"f.addEventListener('input',filter);\n"
	"if(location.hash==='#selftest'){\n"
	" var col=0;for(var k=0;k<hs.length;k++)if(hs[k].getAttribute('data-key')==='task')col=k;\n"
	" hs[col].click();hs[col].click();\n"
	" var order=Array.prototype.map.call(tb.rows,function(r){\n"
	"  return r.cells[col].getAttribute('data-value');});\n"
	" var ok=order.length>0;for(var k=1;k<order.length;k++)if(order[k-1]<order[k])ok=false;\n"
	" f.value=order.length?order[0]:'';filter();\n"
	" var shown=Array.prototype.filter.call(tb.rows,function(r){\n"
	"  return r.style.display!=='none';}).length;\n"
	/* each plot's labels as drawn (whether each lies inside the SVG), its source groups */
	" var plots={};\n"
	" Array.prototype.forEach.call(document.querySelectorAll('.plot'),function(p){\n"
	"  var w=p.querySelector('svg').viewBox.baseVal.width;\n"
	"  plots[p.id]={legend:Array.prototype.map.call(p.querySelectorAll('text.legend'),\n"
	"   function(e){var b=e.getBBox();\n"
	"    return {text:e.textContent,fits:b.x>=0&&b.x+b.width<=w};}),\n"
	"   groups:Array.prototype.map.call(p.querySelectorAll('text.group'),\n"
	"   function(e){return e.textContent;})};});\n"
	" var out=document.createElement('pre');out.id='selftest';\n"
	" out.textContent=JSON.stringify({sorted_desc:ok,order:order,filter_shown:shown,\n"
	"  plots:plots,errors:window.kgbErrors});document.body.appendChild(out);}\n"
	"})();\n";

static const char error_hook[] =
	"window.kgbErrors=[];window.addEventListener('error',function(e){"
	"window.kgbErrors.push(String(e.message));});";

/* A number cell: shown text, raw value for sorting and tracing. */
static void num_td(struct strbuf *o, const char *key, double v, const char *fmt, double scale,
		   const char *suffix)
{
	strbuf_addf(o, "<td data-key=\"%s\" data-value=\"", key);
	if (isfinite(v))
		strbuf_addf(o, "%.17g\">", v);
	else
		strbuf_addstr(o, "null\"><span class=\"na\">n/a</span></td>");
	if (isfinite(v)) {
		strbuf_addf(o, fmt, v * scale);
		strbuf_addf(o, "%s</td>", suffix);
	}
}

static void pass_td(struct strbuf *o, const struct report_metrics *mt)
{
	strbuf_addf(o, "<td data-key=\"pass\" data-value=\"%zu\">%zu/%zu</td>", mt->pass,
		    mt->pass, mt->total);
}

static void text_td(struct strbuf *o, const char *cls, const char *text)
{
	strbuf_addf(o, "<td class=\"%s\">", cls);
	escape_html(o, text);
	strbuf_addstr(o, "</td>");
}

static void th(struct strbuf *o, const char *cls, const char *text)
{
	strbuf_addf(o, "<th class=\"%s\">", cls);
	escape_html(o, text);
	strbuf_addstr(o, "</th>");
}

/*
 * Pass@k with k the fewest samples any task of the method has (docs/metrics.md), the mean over
 * its tasks of the unbiased estimator; NAN (and k 0) when some task has a single sample.
 */
static double pass_at_max(const struct report_method *m, size_t *ret_k)
{
	size_t k = SIZE_MAX, tasks = 0;
	double sum = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < m->nr;) {
			const struct store_eval *e = &m->evals[i];
			size_t first, c = 0;
			size_t n = report_method_find(m, e->source, e->task, &first);

			for (size_t j = first; j < first + n; j++)
				c += verdict_is_pass(m->evals[j].verdict);
			if (pass == 0 && n < k)
				k = n;
			if (pass == 1) {
				sum += stats_pass_at_k(n, c, k);
				tasks++;
			}
			i = first + n > i ? first + n : i + 1; /* groups are contiguous */
		}
	if (k == SIZE_MAX || k < 2 || !tasks) {
		*ret_k = 0;
		return NAN;
	}
	*ret_k = k;
	return sum / (double)tasks;
}

static double per_success(double total, size_t solved)
{
	return isfinite(total) && solved ? total / (double)solved : NAN;
}

static void leaderboard(struct strbuf *o, const struct report_method *m, size_t n)
{
	strbuf_addstr(o, "<h2>Leaderboard</h2>\n<div class=\"scroll\"><table id=\"leaderboard\">"
			 "<thead><tr>");
	th(o, "l", "method / model");
	th(o, "l", "platform");
	th(o, "l", "store:run");
	th(o, "", "candidates");
	th(o, "", "pass rate");
	th(o, "", "Pass@1");
	th(o, "", "Pass@k");
	th(o, "", "solved tasks");
	th(o, "", "geomean speedup [95% CI]");
	for (int k = 0; k < REPORT_FAST_P_N; k++) {
		char h[32];

		snprintf(h, sizeof(h), "fast_%.1f", report_fast_p[k]);
		th(o, "", h);
	}
	th(o, "", "speed-of-light (median)");
	th(o, "", "tokens / success");
	th(o, "", "time / success (s)");
	th(o, "", "cost / success (USD)");
	strbuf_addstr(o, "</tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		struct report_metrics mt;
		size_t pass = 0, k;
		double pk;
		char sr[64];

		report_compute_metrics(&m[i].rr, NULL, &mt);
		for (size_t j = 0; j < m[i].nr; j++)
			pass += verdict_is_pass(m[i].evals[j].verdict);
		pk = pass_at_max(&m[i], &k);
		strbuf_addf(o, "<tr data-method=\"%zu\" data-run=\"%lld\" data-store=\"", i,
			    m[i].run_id);
		escape_html(o, m[i].store_path);
		strbuf_addstr(o, "\">");
		text_td(o, "l", m[i].label);
		text_td(o, "l", m[i].platform);
		snprintf(sr, sizeof(sr), ":%lld", m[i].run_id);
		/* the file name here, the whole path in the title and the Runs table */
		strbuf_addstr(o, "<td class=\"l\" title=\"");
		escape_html(o, m[i].store_path);
		strbuf_addstr(o, "\"><code>");
		escape_html(o, strrchr(m[i].store_path, '/') ? strrchr(m[i].store_path, '/') + 1
							    : m[i].store_path);
		strbuf_addf(o, "%s</code></td>", sr);
		num_td(o, "candidates", (double)m[i].nr, "%.0f", 1, "");
		num_td(o, "pass_rate", stats_rate(pass, m[i].nr), "%.1f", 100, "%");
		num_td(o, "pass_at_1", mt.pass_at[0], "%.3f", 1, "");
		strbuf_addf(o, "<td data-key=\"pass_at_k\" data-k=\"%zu\" data-value=\"", k);
		if (isfinite(pk))
			strbuf_addf(o, "%.17g\">%.3f (k=%zu)</td>", pk, pk, k);
		else
			strbuf_addstr(o, "null\"><span class=\"na\">n/a</span></td>");
		num_td(o, "solved", (double)m[i].solved, "%.0f", 1, "");
		strbuf_addstr(o, "<td data-key=\"geomean_speedup\" data-value=\"");
		if (isfinite(mt.geomean)) {
			strbuf_addf(o, "%.17g\" data-ci-lo=\"%.17g\" data-ci-hi=\"%.17g\">%.3fx",
				    mt.geomean, mt.ci_lo, mt.ci_hi, mt.geomean);
			if (isfinite(mt.ci_lo))
				strbuf_addf(o, " [%.3f, %.3f]", mt.ci_lo, mt.ci_hi);
			strbuf_addf(o, " (n=%zu)</td>", mt.nsp);
		} else {
			strbuf_addstr(o, "null\"><span class=\"na\">n/a</span></td>");
		}
		for (int f = 0; f < REPORT_FAST_P_N; f++) {
			char key[32];

			snprintf(key, sizeof(key), "fast_%.1f", report_fast_p[f]);
			num_td(o, key, mt.fast_p[f], "%.1f", 100, "%");
		}
		num_td(o, "sol_fraction_median", mt.sol_median, "%.2f", 1, "");
		num_td(o, "tokens_per_success",
		       m[i].tokens >= 0 ? per_success((double)m[i].tokens, m[i].solved) : NAN,
		       "%.0f", 1, "");
		num_td(o, "time_per_success_s", per_success(m[i].time_ms / 1000, m[i].solved),
		       "%.2f", 1, "");
		num_td(o, "cost_per_success_usd", per_success(m[i].cost_usd, m[i].solved), "%.4f",
		       1, "");
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</tbody></table></div>\n");
}

static void by_source(struct strbuf *o, const struct report_method *m, size_t n)
{
	strbuf_addstr(o, "<h2>By source</h2>\n<table id=\"by-source\"><thead><tr>");
	th(o, "l", "method / model");
	th(o, "l", "source");
	th(o, "", "pass");
	th(o, "", "pass rate");
	th(o, "", "Pass@1");
	th(o, "", "geomean speedup");
	th(o, "", "fast_1.0");
	th(o, "l", "baseline");
	strbuf_addstr(o, "</tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++)
		for (int s = 0; catalog_sources[s]; s++) {
			struct report_metrics mt;

			report_compute_metrics(&m[i].rr, catalog_sources[s], &mt);
			if (!mt.total)
				continue;
			strbuf_addf(o, "<tr data-method=\"%zu\" data-source=\"%s\">", i,
				    catalog_sources[s]);
			text_td(o, "l", m[i].label);
			text_td(o, "l", catalog_sources[s]);
			pass_td(o, &mt);
			num_td(o, "pass_rate", stats_rate(mt.pass, mt.total), "%.1f", 100, "%");
			num_td(o, "pass_at_1", mt.pass_at[0], "%.3f", 1, "");
			num_td(o, "geomean_speedup", mt.geomean, "%.3f", 1, "x");
			num_td(o, "fast_1.0", mt.fast_p[1], "%.1f", 100, "%");
			text_td(o, "wrap", catalog_source_baseline(catalog_sources[s]));
			strbuf_addstr(o, "</tr>\n");
		}
	strbuf_addstr(o, "</tbody></table>\n");
}

static void by_platform(struct strbuf *o, const struct report_method *m, size_t n)
{
	strbuf_addstr(o, "<h2>By platform</h2>\n<table id=\"by-platform\"><thead><tr>");
	th(o, "l", "platform");
	th(o, "l", "method / model");
	th(o, "", "pass");
	th(o, "", "pass rate");
	th(o, "", "geomean speedup");
	th(o, "", "fast_1.0");
	strbuf_addstr(o, "</tr></thead><tbody>\n");
	for (size_t p = 0; p < n; p++) {
		bool seen = false;

		for (size_t q = 0; q < p && !seen; q++)
			seen = !strcmp(m[q].platform, m[p].platform);
		if (seen)
			continue;
		for (size_t i = p; i < n; i++) {
			struct report_metrics mt;

			if (strcmp(m[i].platform, m[p].platform))
				continue;
			report_compute_metrics(&m[i].rr, NULL, &mt);
			strbuf_addf(o, "<tr data-method=\"%zu\">", i);
			text_td(o, "l", m[i].platform);
			text_td(o, "l", m[i].label);
			pass_td(o, &mt);
			num_td(o, "pass_rate", stats_rate(mt.pass, mt.total), "%.1f", 100, "%");
			num_td(o, "geomean_speedup", mt.geomean, "%.3f", 1, "x");
			num_td(o, "fast_1.0", mt.fast_p[1], "%.1f", 100, "%");
			strbuf_addstr(o, "</tr>\n");
		}
	}
	strbuf_addstr(o, "</tbody></table>\n");
}

/* The distinct source/task pairs over all methods, in first-seen order. */
struct task_key {
	const char *source, *task;
};

static size_t all_tasks(const struct report_method *m, size_t n, struct task_key **ret)
{
	size_t nr = 0, alloc = 0;
	struct task_key *t = NULL;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < m[i].nr; j++) {
			const struct store_eval *e = &m[i].evals[j];
			bool seen = false;

			for (size_t k = nr; k > 0 && !seen; k--)
				seen = !strcmp(t[k - 1].task, e->task) &&
				       !strcmp(t[k - 1].source, e->source);
			if (seen)
				continue;
			if (nr == alloc) {
				alloc = alloc ? 2 * alloc : 32;
				t = xrealloc(t, alloc * sizeof(*t));
			}
			t[nr].source = e->source;
			t[nr++].task = e->task;
		}
	*ret = t;
	return nr;
}

/* Passing candidates of source/task in m, their count, and the best passing speedup. */
static size_t task_cell(const struct report_method *m, const struct task_key *t, size_t *ret_n,
			double *ret_best, const char **ret_verdict)
{
	size_t first, n = report_method_find(m, t->source, t->task, &first), pass = 0;
	double best = NAN;

	*ret_verdict = n ? m->evals[first].verdict : NULL;
	for (size_t k = first; k < first + n; k++) {
		const struct store_eval *e = &m->evals[k];

		if (!verdict_is_pass(e->verdict))
			continue;
		pass++;
		*ret_verdict = e->verdict;
		if (isfinite(e->speedup) && (isnan(best) || e->speedup > best))
			best = e->speedup;
	}
	*ret_n = n;
	*ret_best = best;
	return pass;
}

static void task_table(struct strbuf *o, const struct report_method *m, size_t n)
{
	struct task_key *t;
	size_t nt = all_tasks(m, n, &t);

	strbuf_addstr(o, "<h2>Per task</h2>\n<p>Filter: <input id=\"filter\" type=\"search\" "
			 "placeholder=\"task, source or verdict\"> (click a header to sort)</p>\n"
			 "<div class=\"scroll\"><table id=\"tasks\"><thead><tr>"
			 "<th class=\"l\" data-key=\"task\" data-type=\"str\">task</th>"
			 "<th class=\"l\" data-key=\"source\" data-type=\"str\">source</th>");
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(o, "<th data-key=\"pass-%zu\" data-type=\"num\">", i);
		escape_html(o, m[i].label);
		strbuf_addf(o, " pass</th><th data-key=\"speedup-%zu\" data-type=\"num\">", i);
		escape_html(o, m[i].label);
		strbuf_addstr(o, " speedup</th>");
	}
	strbuf_addstr(o, "</tr></thead><tbody>\n");
	for (size_t k = 0; k < nt; k++) {
		strbuf_addstr(o, "<tr><td class=\"l\" data-value=\"");
		escape_html(o, t[k].task);
		strbuf_addstr(o, "\">");
		escape_html(o, t[k].task);
		strbuf_addstr(o, "</td><td class=\"l\" data-value=\"");
		escape_html(o, t[k].source);
		strbuf_addstr(o, "\">");
		escape_html(o, t[k].source);
		strbuf_addstr(o, "</td>");
		for (size_t i = 0; i < n; i++) {
			size_t cnt, pass;
			double best;
			const char *verdict;

			pass = task_cell(&m[i], &t[k], &cnt, &best, &verdict);
			if (!cnt) {
				strbuf_addstr(o, "<td data-value=\"-1\" class=\"na\">-</td>"
						 "<td data-value=\"null\" class=\"na\">-</td>");
				continue;
			}
			strbuf_addf(o, "<td class=\"%s\" data-value=\"%.17g\" data-pass=\"%zu\" "
				       "data-n=\"%zu\">",
				    pass ? "pass" : "fail", (double)pass / (double)cnt, pass, cnt);
			if (cnt == 1)
				escape_html(o, verdict);
			else
				strbuf_addf(o, "%zu/%zu pass", pass, cnt);
			strbuf_addstr(o, "</td>");
			num_td(o, "speedup", best, "%.2f", 1, "x");
		}
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</tbody></table></div>\n");
	free(t);
}

static void plot_begin(struct strbuf *o, const char *id, const char *title, int w, int h)
{
	strbuf_addf(o, "<div class=\"plot\" id=\"%s\"><h3>", id);
	escape_html(o, title);
	strbuf_addstr(o, "</h3>\n");
	svg_open(o, w, h, title);
}

static void plot_end(struct strbuf *o)
{
	svg_close(o);
	strbuf_addstr(o, "</div>\n");
}

/*
 * The plots' labels of methods (legends, the speedup plot's rows) have LEGEND_PX pixels; at
 * 11px a character takes at most about 7 (digits in DejaVu Sans; only wide capitals take more),
 * so they are cut to LEGEND_CHARS by svg_short_labels(), which keeps labels that differ apart
 * (a longer label ran past the SVG's edge, and two runs of one model looked alike). Each
 * label's <title> has it whole, as a tooltip. A plot with a legend is PLOT_W wide.
 */
#define LEGEND_CHARS 26
#define LEGEND_PX 190
#define LEGEND_X 410 /* the legend's colour swatches; its text starts 14 further */
#define PLOT_W (LEGEND_X + 14 + LEGEND_PX + 6)

/* Label i of a plot: the short one shown, the whole one as its tooltip. */
static void plot_label(struct strbuf *o, const struct report_method *m, char *const *lab,
		       size_t i, double x, double y, const char *anchor)
{
	strbuf_addstr(o, "<g><title>");
	escape_html(o, m[i].label);
	strbuf_addstr(o, "</title>");
	svg_text(o, x, y, anchor, "legend", lab[i]);
	strbuf_addstr(o, "</g>\n");
}

/* The legend at (LEGEND_X, y). */
static void legend(struct strbuf *o, const struct report_method *m, char *const *lab, size_t n,
		   double y)
{
	double x = LEGEND_X;

	for (size_t i = 0; i < n; i++) {
		strbuf_addf(o,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>",
			    x, y + 14.0 * (double)i - 9, svg_color(i));
		plot_label(o, m, lab, i, x + 14, y + 14.0 * (double)i, "start");
	}
}

/* Passing speedups of all methods on a log axis, one row of points per method. */
static void plot_speedups(struct strbuf *o, const struct report_method *m, char *const *lab,
			  size_t n)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t total = 0;
	int h = 60 + 34 * (int)n;
	struct svg_scale x, y;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < m[i].nr; j++) {
			double s = m[i].evals[j].speedup;

			if (!verdict_is_pass(m[i].evals[j].verdict) || !(s > 0) || !isfinite(s))
				continue;
			lo = fmin(lo, s), hi = fmax(hi, s), total++;
		}
	lo = fmin(lo, 1), hi = fmax(hi, 1);
	svg_nice_domain(&lo, &hi, true);
	/* the rows' labels, right-aligned, have the LEGEND_PX on the left */
	x = (struct svg_scale){.d0 = lo, .d1 = hi, .r0 = LEGEND_PX + 10, .r1 = PLOT_W - 20,
			       .log = true};
	y = (struct svg_scale){.d0 = 0, .d1 = (double)n, .r0 = h - 40, .r1 = 10};
	plot_begin(o, "plot-speedup", "Speedup distribution (passing candidates, log scale)",
		   PLOT_W, h);
	if (!total) {
		svg_text(o, PLOT_W / 2.0, h / 2.0, "middle", "title",
			 "no timed passing candidates (correctness-only platform)");
		plot_end(o);
		return;
	}
	{
		double t[16];
		size_t nt = svg_ticks(lo, hi, true, t, 12);

		for (size_t k = 0; k < nt; k++) {
			double p = svg_scale_map(&x, t[k]);
			char l[32];

			svg_tick_label(t[k], l, sizeof(l));
			strbuf_addf(o, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"10\" "
				       "y2=\"%.1f\"/>",
				    p, p, y.r0);
			strbuf_addstr(o, "\n");
			svg_text(o, p, y.r0 + 14, "middle", "tick", l);
		}
		svg_text(o, (x.r0 + x.r1) / 2, y.r0 + 30, "middle", "title",
			 "speedup over the baseline (x)");
	}
	for (size_t i = 0; i < n; i++) {
		double cy = svg_scale_map(&y, (double)(n - i) - 0.5);
		struct report_metrics mt;
		size_t c = 0;

		plot_label(o, m, lab, i, x.r0 - 6, cy + 4, "end");
		for (size_t j = 0; j < m[i].nr; j++) {
			const struct store_eval *e = &m[i].evals[j];

			if (!verdict_is_pass(e->verdict) || !(e->speedup > 0) ||
			    !isfinite(e->speedup))
				continue;
			strbuf_addf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" "
				       "fill-opacity=\"0.6\" data-value=\"%.17g\"><title>",
				    svg_scale_map(&x, e->speedup),
				    cy + (double)((c++ * 7) % 15) - 7, svg_color(i), e->speedup);
			escape_html(o, e->source);
			strbuf_addch(o, '/');
			escape_html(o, e->task);
			strbuf_addf(o, ": %.3fx</title></circle>\n", e->speedup);
		}
		report_compute_metrics(&m[i].rr, NULL, &mt);
		if (isfinite(mt.geomean))
			strbuf_addf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				       "stroke=\"#000\" stroke-width=\"2\"/>\n",
				    svg_scale_map(&x, mt.geomean), svg_scale_map(&x, mt.geomean),
				    cy - 12, cy + 12);
	}
	plot_end(o);
}

/* fast_p against p for each method (the fraction of candidates correct and faster than p). */
static void plot_fast_p(struct strbuf *o, const struct report_method *m, char *const *lab,
			size_t n)
{
	struct svg_scale x = {.d0 = 0, .d1 = 3, .r0 = 60, .r1 = 400};
	struct svg_scale y = {.d0 = 0, .d1 = 1, .r0 = 250, .r1 = 20};
	bool any = false;

	plot_begin(o, "plot-fast-p", "fast_p over p", PLOT_W, 290);
	svg_axes(o, &x, &y, "p (speedup threshold)", "fast_p");
	for (size_t i = 0; i < n; i++) {
		double *sp = xcalloc(m[i].nr + 1, sizeof(*sp));
		bool *ok = xcalloc(m[i].nr + 1, sizeof(*ok));
		size_t nt = 0;

		for (size_t j = 0; j < m[i].nr; j++) {
			const struct store_eval *e = &m[i].evals[j];

			if (e->timed_cases <= 0)
				continue;
			sp[nt] = e->speedup;
			ok[nt++] = verdict_is_pass(e->verdict) && !isnan(e->speedup);
		}
		if (nt) {
			any = true;
			strbuf_addf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
				       "points=\"",
				    svg_color(i));
			for (int k = 0; k <= 60; k++) {
				double p = k * 0.05;

				strbuf_addf(o, "%.1f,%.1f ", svg_scale_map(&x, p),
					    svg_scale_map(&y, stats_fast_p(sp, ok, nt, p)));
			}
			strbuf_addstr(o, "\"/>\n");
		}
		free(sp);
		free(ok);
	}
	if (!any)
		svg_text(o, 230, 140, "middle", "title", "no candidates with timed cases");
	legend(o, m, lab, n, 30);
	plot_end(o);
}

/* Whether some method has candidates of `source`. */
static bool source_has_data(const struct report_method *m, size_t n, const char *source)
{
	for (size_t i = 0; i < n; i++) {
		struct report_metrics mt;

		report_compute_metrics(&m[i].rr, source, &mt);
		if (mt.total)
			return true;
	}
	return false;
}

/*
 * Pass rate per source, one bar per method: a group for each source some method has
 * candidates of (an empty group reads as a pass rate of 0).
 */
static void plot_sources(struct strbuf *o, const struct report_method *m, char *const *lab,
			 size_t n)
{
	int ns = 0, ng = 0;
	struct svg_scale y = {.d0 = 0, .d1 = 1, .r0 = 250, .r1 = 20};
	struct svg_scale x = {.d0 = 0, .d1 = 1, .r0 = 60, .r1 = 400};
	const char **groups;
	double gw;

	while (catalog_sources[ns])
		ns++;
	groups = xcalloc((size_t)ns + 1, sizeof(*groups));
	for (int s = 0; s < ns; s++)
		if (source_has_data(m, n, catalog_sources[s]))
			groups[ng++] = catalog_sources[s];
	gw = (x.r1 - x.r0) / (ng ? ng : 1);
	plot_begin(o, "plot-sources", "Pass rate by source", PLOT_W, 290);
	{
		double t[16];
		size_t nt = svg_ticks(0, 1, false, t, 6);

		for (size_t k = 0; k < nt; k++) {
			char l[32];
			double p = svg_scale_map(&y, t[k]);

			svg_tick_label(t[k], l, sizeof(l));
			strbuf_addf(o, "<line class=\"grid\" x1=\"60\" x2=\"400\" y1=\"%.1f\" "
				       "y2=\"%.1f\"/>\n",
				    p, p);
			svg_text(o, 56, p + 4, "end", "tick", l);
		}
		strbuf_addstr(o, "<line class=\"axis\" x1=\"60\" x2=\"400\" y1=\"250\" "
				 "y2=\"250\"/>\n");
	}
	for (int g = 0; g < ng; g++) {
		double bw = (gw - 10) / (double)(n ? n : 1);

		svg_text(o, x.r0 + gw * (g + 0.5), 266, "middle", "tick group", groups[g]);
		for (size_t i = 0; i < n; i++) {
			struct report_metrics mt;
			double rate, top;

			report_compute_metrics(&m[i].rr, groups[g], &mt);
			if (!mt.total)
				continue;
			rate = stats_rate(mt.pass, mt.total);
			top = svg_scale_map(&y, rate);
			strbuf_addf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				       "fill=\"%s\" data-value=\"%.17g\"><title>",
				    x.r0 + gw * g + 5 + bw * (double)i, top, bw, y.r0 - top,
				    svg_color(i), rate);
			escape_html(o, m[i].label);
			strbuf_addf(o, " %s: %zu/%zu</title></rect>\n", groups[g], mt.pass,
				    mt.total);
		}
	}
	if (!ng)
		svg_text(o, 230, 140, "middle", "title", "no candidates");
	svg_text(o, 230, 284, "middle", "title", "source");
	legend(o, m, lab, n, 30);
	plot_end(o);
	free(groups);
}

/* Task x platform: the fraction of the candidates on that platform (all methods) passing. */
static void plot_heatmap(struct strbuf *o, const struct report_method *m, size_t n)
{
	struct task_key *t;
	size_t nt = all_tasks(m, n, &t), np = 0;
	const char **plat = xcalloc(n + 1, sizeof(*plat));
	int cw = 90, ch = 14, left = 200, top = 40, w, h;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t p = 0; p < np && !seen; p++)
			seen = !strcmp(plat[p], m[i].platform);
		if (!seen)
			plat[np++] = m[i].platform;
	}
	w = left + cw * (int)np + 20;
	h = top + ch * (int)nt + 20;
	plot_begin(o, "plot-heatmap", "Operator x platform portability (pass fraction)", w, h);
	for (size_t p = 0; p < np; p++)
		svg_text(o, left + cw * (p + 0.5), top - 8, "middle", "tick", plat[p]);
	for (size_t k = 0; k < nt; k++) {
		struct strbuf name = STRBUF_INIT;

		strbuf_addf(&name, "%s/%s", t[k].source, t[k].task);
		svg_text(o, left - 6, top + ch * (k + 0.75), "end", "tick", name.buf);
		for (size_t p = 0; p < np; p++) {
			size_t pass = 0, cnt = 0;
			char col[8];
			double frac;

			for (size_t i = 0; i < n; i++) {
				size_t c;
				double best;
				const char *v;

				if (strcmp(m[i].platform, plat[p]))
					continue;
				pass += task_cell(&m[i], &t[k], &c, &best, &v);
				cnt += c;
			}
			frac = cnt ? (double)pass / (double)cnt : NAN;
			svg_heat_color(frac, col);
			strbuf_addf(o,
				    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				    "fill=\"%s\" stroke=\"#fff\" data-value=\"%.17g\"><title>",
				    left + cw * (int)p, top + ch * (int)k, cw, ch, col, frac);
			escape_html(o, name.buf);
			strbuf_addf(o, " on ");
			escape_html(o, plat[p]);
			strbuf_addf(o, ": %zu/%zu pass</title></rect>\n", pass, cnt);
		}
		strbuf_release(&name);
	}
	plot_end(o);
	free(plat);
	free(t);
}

/* Pass@1 against the tokens a method spent (generation runs; log x). */
static void plot_tokens(struct strbuf *o, const struct report_method *m, char *const *lab,
			size_t n)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t pts = 0;
	struct svg_scale x, y = {.d0 = 0, .d1 = 1, .r0 = 250, .r1 = 20};

	for (size_t i = 0; i < n; i++)
		if (m[i].tokens > 0) {
			lo = fmin(lo, (double)m[i].tokens), hi = fmax(hi, (double)m[i].tokens);
			pts++;
		}
	svg_nice_domain(&lo, &hi, true);
	x = (struct svg_scale){.d0 = lo, .d1 = hi, .r0 = 60, .r1 = 400, .log = true};
	plot_begin(o, "plot-tokens", "Pass@1 against tokens spent", PLOT_W, 290);
	svg_axes(o, &x, &y, "tokens (prompt + completion, log scale)", "Pass@1");
	for (size_t i = 0; i < n; i++) {
		struct report_metrics mt;

		if (m[i].tokens <= 0)
			continue;
		report_compute_metrics(&m[i].rr, NULL, &mt);
		if (isnan(mt.pass_at[0]))
			continue;
		strbuf_addf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" "
			       "data-tokens=\"%lld\" data-value=\"%.17g\"><title>",
			    svg_scale_map(&x, (double)m[i].tokens),
			    svg_scale_map(&y, mt.pass_at[0]), svg_color(i), m[i].tokens,
			    mt.pass_at[0]);
		escape_html(o, m[i].label);
		strbuf_addf(o, ": %lld tokens, Pass@1 %.3f</title></circle>\n", m[i].tokens,
			    mt.pass_at[0]);
	}
	if (!pts)
		svg_text(o, 230, 140, "middle", "title", "no generation runs (no tokens spent)");
	legend(o, m, lab, n, 30);
	plot_end(o);
}

static void provenance(struct strbuf *o, const struct report_method *m, size_t n)
{
	strbuf_addstr(o, "<h2>Runs</h2>\n<table id=\"runs\"><thead><tr>");
	th(o, "l", "#");
	th(o, "l", "method / model");
	th(o, "l", "store");
	th(o, "l", "run");
	th(o, "l", "platform");
	th(o, "l", "started");
	th(o, "l", "command");
	strbuf_addstr(o, "</tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		char id[32];

		strbuf_addf(o, "<tr data-method=\"%zu\"><td class=\"l\">%zu</td>", i, i);
		text_td(o, "l", m[i].label);
		text_td(o, "l", m[i].store_path);
		snprintf(id, sizeof(id), "%lld", m[i].run_id);
		text_td(o, "l", id);
		text_td(o, "l", m[i].platform);
		text_td(o, "l", m[i].started_at ? m[i].started_at : "");
		text_td(o, "l", m[i].command ? m[i].command : "");
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</tbody></table>\n");
}

void report_html_render(struct strbuf *o, const struct report_method *m, size_t n)
{
	const char **full = xcalloc(n + 1, sizeof(*full));
	char **lab;

	for (size_t i = 0; i < n; i++)
		full[i] = m[i].label;
	lab = svg_short_labels(full, n, LEGEND_CHARS);
	strbuf_addstr(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			 "<title>KernelGenBench report</title>\n<script>");
	strbuf_addstr(o, error_hook);
	strbuf_addstr(o, "</script>\n<style>");
	strbuf_addstr(o, css);
	strbuf_addf(o, "</style></head>\n<body data-kgb-commit=\"%s\">\n", KGB_GIT_COMMIT);
	strbuf_addf(o, "<h1>KernelGenBench report</h1>\n<p class=\"meta\">Written by kgb commit "
		       "<code>%s</code> from %zu stored run%s; every number is recomputed from the "
		       "store (definitions: docs/metrics.md) and its raw value is in the cell's "
		       "data-value attribute.</p>\n",
		    KGB_GIT_COMMIT, n, n == 1 ? "" : "s");
	leaderboard(o, m, n);
	by_source(o, m, n);
	by_platform(o, m, n);
	strbuf_addstr(o, "<h2>Plots</h2>\n<div class=\"plots\">\n");
	plot_speedups(o, m, lab, n);
	plot_fast_p(o, m, lab, n);
	plot_sources(o, m, lab, n);
	plot_tokens(o, m, lab, n);
	plot_heatmap(o, m, n);
	strbuf_addstr(o, "</div>\n");
	for (size_t i = 0; i < n; i++)
		free(lab[i]);
	free(lab);
	free(full);
	task_table(o, m, n);
	provenance(o, m, n);
	strbuf_addstr(o, "<script>");
	strbuf_addstr(o, script);
	strbuf_addstr(o, "</script>\n</body></html>\n");
}
