#include "parse.h"

#include <errno.h>
#include <locale.h>
#include <stdlib.h>

int parse_long(const char *s, long *ret)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
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

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_double(const char *s, double *ret)
{
	static locale_t c_locale;
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	if (!c_locale)
		c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	errno = 0;
	v = strtod_l(s, &end, c_locale);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}
