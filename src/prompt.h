/*
 * prompt.h - the prompt a model gets for a task: entry points with their signatures, the
 * task's semantics (prompt.md), the rules every candidate follows, and the platform's
 * constraints. `kgb show` prints it; the generation commands (issue 9) send it.
 */
#ifndef KGB_PROMPT_H
#define KGB_PROMPT_H

#include "catalog.h"
#include "util/strbuf.h"

/* Appends the whole prompt to `out`. */
void prompt_build(const struct task *t, const char *platform, struct strbuf *out);

#endif
