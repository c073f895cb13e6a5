/*
 * prompt.h - the prompt a model gets for a task: entry points with their signatures, the
 * task's semantics (prompt.md), the rules every candidate follows, and the platform's
 * constraints. `kgb show` prints it; `kgb generate` sends it.
 */
#ifndef KGB_PROMPT_H
#define KGB_PROMPT_H

#include "catalog.h"
#include "util/strbuf.h"

/* The most of a task's prompt.md that goes into a prompt: more is refused, never cut. */
#define PROMPT_MAX_SEMANTICS_BYTES (1u << 20)

/*
 * Appends the whole prompt to `out`: `platform` names the platform profile and `fragment` is
 * its prompt text (profile.h), the constraints and pitfalls of that hardware. -errno with err
 * set (out then unchanged) when the task's prompt.md cannot be read whole: missing, not a
 * regular file, or larger than PROMPT_MAX_SEMANTICS_BYTES; a prompt without the task's
 * semantics is never sent.
 */
int prompt_build(const struct task *t, const char *platform, const char *fragment,
		 struct strbuf *out, struct strbuf *err) KGB_WUR;

#endif
