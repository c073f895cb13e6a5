/*
 * precheck.h - the static precheck of `kgb serve`, in one resident Python process.
 *
 * `python -m runtime.precheck --serve` reads one request per line ({"file": PATH, "allow":
 * [...]}) and answers each with one JSON line: the verdict of the judge's load stage for the
 * candidate file (runtime/precheck.py). It parses the candidate, never imports or runs it. A
 * resident process answers in about a millisecond where a process per submission paid
 * Python's start and the scanner's import each time (hundreds of ms: accept latency, issue 34).
 *
 * precheck_ask() is safe from any thread: calls are serialised. The process is started on
 * first use, and killed and started afresh after any failure (no answer by the deadline, a
 * malformed answer, an exit), so one bad request costs that request only.
 */
#ifndef KGB_PRECHECK_H
#define KGB_PRECHECK_H

#include <jansson.h>

#include "util/compiler.h"
#include "util/strbuf.h"

struct precheck;

/* A pool for `python` with the project at `root` (both copied); nothing is started yet. */
struct precheck *precheck_new(const char *python, const char *root);

/*
 * The answer for candidate file `path` of a task whose extra allowances are `allow` (a JSON
 * array, borrowed): 0 with *ret (a new reference: {"verdict": null} or the verdict, detail and
 * findings), or -1 with err saying why no answer came within timeout_s.
 */
int precheck_ask(struct precheck *pc, const char *path, json_t *allow, double timeout_s,
		 json_t **ret, struct strbuf *err) KGB_WUR;

/* Stops the process and frees the pool; NULL is fine. */
void precheck_free(struct precheck *pc);

#endif
