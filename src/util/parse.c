#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>

/*
 * strto*() skip leading white space, and strtoull() then takes a '-' and wraps: " -1" would be
 * 18446744073709551615. Whole string means no white space either.
 */
static bool starts_badly(const char *s)
{
	return !s || !*s || isspace((unsigned char)*s);
}

int parse_long(const char *s, long *ret)
{
	char *end;
	long v;

	if (starts_badly(s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end) /* garbage, even after digits that overflow */
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*ret = v;
	return 0;
}

int parse_int_range(const char *s, long min, long max, long *ret)
{
	long v;
	int r = parse_long(s, &v);

	if (r < 0)
		return r;
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int parse_ull(const char *s, unsigned long long *ret)
{
	char *end;
	unsigned long long v;

	if (starts_badly(s) || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end) /* garbage, even after digits that overflow */
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*ret = v;
	return 0;
}

int parse_double(const char *s, double *ret)
{
	static locale_t c_locale;
	char *end;
	double v;

	if (starts_badly(s))
		return -EINVAL;
	if (!c_locale)
		c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	errno = 0;
	v = strtod_l(s, &end, c_locale);
	if (*end) /* garbage, even after digits that overflow */
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*ret = v;
	return 0;
}
