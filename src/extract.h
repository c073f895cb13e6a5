/*
 * extract.h - the candidate module in a model's reply, taken strictly.
 *
 * The prompt asks for one fenced Python code block holding the whole module. A reply is usable
 * when some fenced block (info string `python`, `py` or none) defines, at its top level, every
 * function the task needs; of several such blocks the last wins (a model that revises its answer
 * ends with the revision). Anything else has no usable code, and the reason is specific enough
 * to be fed back to the model: empty reply, refusal, cut off at the token limit, no code block,
 * a block never closed, or the entry points no block defines.
 */
#ifndef KGB_EXTRACT_H
#define KGB_EXTRACT_H

#include <stddef.h>

#include "util/compiler.h"
#include "util/strbuf.h"

/*
 * reply: the model's text (may be NULL); finish: its stop reason or NULL; entries: the function
 * names the module must define. 0 with *ret_code (owned by the caller) set, or -ENOENT with the
 * reason in `why` (one sentence).
 */
int extract_code(const char *reply, const char *finish, const char *const *entries,
		 size_t nr_entries, char **ret_code, struct strbuf *why) KGB_WUR;

#endif
