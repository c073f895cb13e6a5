#ifndef KGB_VERDICT_H
#define KGB_VERDICT_H

#include <stdbool.h>

/*
 * Verdicts: the one table (src/verdicts.def) of every verdict name, where it may appear and
 * what it counts as. Verdicts travel and are stored as their names; these functions answer
 * for a name, so that no other file spells one. A name not in the table is VERDICT_UNKNOWN,
 * which appears at no level and counts as a failure.
 */

enum verdict_level { V_CASE = 1, V_FATAL = 2, V_CANDIDATE = 4 };
enum verdict_counts { V_PASS, V_FAIL, V_TASK, V_NONE, V_ENV };

enum verdict {
#define VERDICT(e, name, levels, counts, meaning) VERDICT_##e,
#include "verdicts.def"
#undef VERDICT
	VERDICT_UNKNOWN,
};

/* The name of v (a static string); "unknown" for VERDICT_UNKNOWN or out of range. */
const char *verdict_name(enum verdict v);
/* The verdict named name; VERDICT_UNKNOWN for NULL or a name not in the table. */
enum verdict verdict_of(const char *name);
/* The static copy of a known name, or NULL: for a name borrowed from a message kept longer. */
const char *verdict_static_name(const char *name);
/* Whether the named verdict may appear at level (V_CASE, V_FATAL, V_CANDIDATE). */
bool verdict_at(const char *name, enum verdict_level level);
/* What the named verdict counts as (V_FAIL for an unknown name). */
enum verdict_counts verdict_counts(const char *name);
/* name is "pass" (NULL is not). */
bool verdict_is_pass(const char *name);
/* name is verdict v (NULL is none). */
bool verdict_is(const char *name, enum verdict v);

#endif
