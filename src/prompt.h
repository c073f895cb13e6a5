/*
 * prompt.h - the prompt a model gets for a task: entry points with their signatures, the
 * task's semantics (prompt.md), the rules every candidate follows, and the platform's
 * constraints. `kgb show` prints it; `kgb generate` sends it.
 */
#ifndef KGB_PROMPT_H
#define KGB_PROMPT_H

#include "catalog.h"
#include "util/strbuf.h"

/*
 * Appends the whole prompt to `out`: `platform` names the platform profile and `fragment` is
 * its prompt text (profile.h), the constraints and pitfalls of that hardware.
 */
void prompt_build(const struct task *t, const char *platform, const char *fragment,
		  struct strbuf *out);

#endif
