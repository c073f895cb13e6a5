/*
 * compiler.h - GNU attributes behind macros, so the rest of the code names intent
 * (a result that must be used, a printf-like function) rather than compiler syntax.
 */
#ifndef KGB_UTIL_COMPILER_H
#define KGB_UTIL_COMPILER_H

#define KGB_WUR __attribute__((warn_unused_result))
#define KGB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define KGB_NORETURN __attribute__((noreturn))
#define KGB_UNUSED __attribute__((unused))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
