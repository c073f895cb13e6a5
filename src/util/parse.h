/*
 * parse.h - checked number parsing (STYLE §0 bans bare atoi/strtol/strtod).
 *
 * Each parser accepts the whole string or fails with -EINVAL (garbage, empty) or -ERANGE;
 * *ret is set only on success. Doubles are parsed in the C locale whatever LC_NUMERIC says.
 */
#ifndef KGB_UTIL_PARSE_H
#define KGB_UTIL_PARSE_H

#include "compiler.h"

int parse_long(const char *s, long *ret) KGB_WUR;
int parse_int_range(const char *s, long min, long max, long *ret) KGB_WUR;
int parse_ull(const char *s, unsigned long long *ret) KGB_WUR;
int parse_double(const char *s, double *ret) KGB_WUR;

#endif
