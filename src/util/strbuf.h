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

struct stat;

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
/*
 * strbuf_read_file() of `name`, one path component in the directory open as `dirfd`
 * (AT_FDCWD: the working directory), for a directory someone else writes (an agent's
 * workspace): a symbolic link is never followed (-ELOOP), what is not a regular file is
 * refused without being opened (-EISDIR, -EINVAL), a name with a '/' or "." or ".." is -EINVAL.
 * *ret_st (may be NULL) gets the file's lstat when it could be taken, to say what it was.
 */
int strbuf_read_file_at(struct strbuf *sb, int dirfd, const char *name, size_t max_bytes,
			struct stat *ret_st) KGB_WUR;
void strbuf_trim_trailing(struct strbuf *sb);
/*
 * s as one word of POSIX sh: in single quotes, each ' written as '\'' (close, an escaped quote,
 * reopen), so that nothing in it ($, `, \, a space, a newline) is ever expanded or split.
 */
void strbuf_add_sh_quoted(struct strbuf *sb, const char *s);

#endif
