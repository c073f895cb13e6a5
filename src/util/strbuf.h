/*
 * strbuf.h - growable, NUL-terminated byte strings (git's strbuf, with a cap).
 *
 * Invariants: `buf` is never NULL and always NUL-terminated; `len` excludes the NUL.
 * A strbuf starts as STRBUF_INIT (or strbuf_init()), is appended to, and is freed with
 * strbuf_release(); strbuf_detach() hands the bytes to the caller, who then owns them.
 * `cap` (0 = none) bounds what outside data can make us hold: strbuf_add_capped() returns
 * -E2BIG rather than grow past it.
 */
#ifndef KGB_UTIL_STRBUF_H
#define KGB_UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "compiler.h"

struct strbuf {
	size_t alloc;
	size_t len;
	size_t cap;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT {0, 0, 0, strbuf_slopbuf}

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb, size_t *ret_len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) KGB_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Appends unless that would take len past sb->cap (when set): then -E2BIG, sb unchanged. */
int strbuf_add_capped(struct strbuf *sb, const void *data, size_t len) KGB_WUR;
/*
 * Replaces the contents with the whole file at `path`; -errno on failure (sb then empty):
 * -EINVAL for what is not a regular file (a FIFO, a device: never waited on), -EISDIR for a
 * directory, -E2BIG past max_bytes (0: no cap).
 */
int strbuf_read_file(struct strbuf *sb, const char *path, size_t max_bytes) KGB_WUR;
void strbuf_trim_trailing(struct strbuf *sb);

#endif
