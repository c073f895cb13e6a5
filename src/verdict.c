#include "verdict.h"

#include <stddef.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned levels;
	enum verdict_counts counts;
} table[] = {
#define VERDICT(e, n, l, c, meaning) [VERDICT_##e] = {n, l, c},
#include "verdicts.def"
#undef VERDICT
};

const char *verdict_name(enum verdict v)
{
	return v >= 0 && v < VERDICT_UNKNOWN ? table[v].name : "unknown";
}

enum verdict verdict_of(const char *name)
{
	if (name)
		for (int v = 0; v < VERDICT_UNKNOWN; v++)
			if (!strcmp(table[v].name, name))
				return (enum verdict)v;
	return VERDICT_UNKNOWN;
}

const char *verdict_static_name(const char *name)
{
	enum verdict v = verdict_of(name);

	return v == VERDICT_UNKNOWN ? NULL : table[v].name;
}

bool verdict_at(const char *name, enum verdict_level level)
{
	enum verdict v = verdict_of(name);

	return v != VERDICT_UNKNOWN && (table[v].levels & level);
}

enum verdict_counts verdict_counts(const char *name)
{
	enum verdict v = verdict_of(name);

	return v == VERDICT_UNKNOWN ? V_FAIL : table[v].counts;
}

bool verdict_is_pass(const char *name)
{
	return verdict_is(name, VERDICT_PASS);
}

bool verdict_is(const char *name, enum verdict v)
{
	return name && v >= 0 && v < VERDICT_UNKNOWN && !strcmp(name, table[v].name);
}
