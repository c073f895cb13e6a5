/*
 * expr.h - the small expression language of task specs (docs/task-format.md, "Axes").
 *
 * An expression is evaluated against `axes`, a JSON object mapping axis names to the values of
 * one case. A bare reference ($shape, $pair.a, $shape[-1]) yields the referenced JSON value of
 * any type; arithmetic (+ - * / // %, unary -, parentheses, numel len itemsize sqrt min max)
 * yields a JSON integer or real. Integer arithmetic stays integral; `/` gives a real.
 *
 * Ownership: every json_t returned through ret_* is a new reference the caller must decref.
 * Errors: -EINVAL, with one complete message (no file name: the caller adds context) in err.
 */
#ifndef KGB_EXPR_H
#define KGB_EXPR_H

#include <jansson.h>

#include "util/compiler.h"
#include "util/strbuf.h"

/* Evaluates the expression text `src` (with or without a leading '$' on its first reference). */
int expr_eval(const char *src, json_t *axes, json_t **ret_value, struct strbuf *err) KGB_WUR;
/* Evaluates a spec value that is either a JSON number (returned as is) or an expression string. */
int expr_eval_value(json_t *value, json_t *axes, json_t **ret_value, struct strbuf *err) KGB_WUR;
/* Same, requiring a number; *ret set only on success. */
int expr_eval_number(json_t *value, json_t *axes, double *ret, struct strbuf *err) KGB_WUR;
/*
 * Copies the template `tmpl`, replacing every string that starts with '$' by its value.
 * Strings not starting with '$' are literals.
 */
int expr_subst(json_t *tmpl, json_t *axes, json_t **ret_value, struct strbuf *err) KGB_WUR;
/* Adds every axis name referenced in `src` as a key of the object `names`. */
void expr_collect_refs(const char *src, json_t *names);
/* Same over a whole template: every string starting with '$' is scanned. */
void expr_collect_refs_tree(json_t *tmpl, json_t *names);

#endif
