#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = sb->cap = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *ret_len)
{
	char *p;

	strbuf_grow(sb, 0);
	p = sb->buf;
	if (ret_len)
		*ret_len = sb->len;
	strbuf_init(sb, 0);
	return p;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	int fresh = !sb->alloc;

	if (fresh)
		sb->buf = NULL;
	xgrow((void **)&sb->buf, 1, sb->len + extra + 1, &sb->alloc);
	if (fresh)
		sb->buf[0] = '\0';
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;
	strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

int strbuf_add_capped(struct strbuf *sb, const void *data, size_t len)
{
	if (sb->cap && sb->len + len > sb->cap)
		return -E2BIG;
	strbuf_add(sb, data, len);
	return 0;
}

/*
 * The whole of the open file fd into sb (reset first), which must be a regular file of at most
 * max_bytes (0: no cap); fd is closed. *ret_st (may be NULL) gets what fstat() saw.
 */
static int read_fd_capped(struct strbuf *sb, int fd, size_t max_bytes, struct stat *ret_st)
{
	char tmp[8192];
	struct stat st;
	int r = 0;
	ssize_t n;

	strbuf_reset(sb);
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (ret_st)
		*ret_st = st;
	if (!S_ISREG(st.st_mode))
		r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	else if (max_bytes && (size_t)st.st_size > max_bytes)
		r = -E2BIG;
	while (r == 0) {
		n = read(fd, tmp, sizeof(tmp));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		/* It may grow while read: the cap holds for what is read, not only for st_size. */
		if (max_bytes && sb->len + (size_t)n > max_bytes) {
			r = -E2BIG;
			break;
		}
		strbuf_add(sb, tmp, (size_t)n);
	}
	close(fd);
	if (r < 0)
		strbuf_reset(sb);
	return r;
}

int strbuf_read_file(struct strbuf *sb, const char *path, size_t max_bytes)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	strbuf_reset(sb);
	if (fd < 0)
		return -errno;
	return read_fd_capped(sb, fd, max_bytes, NULL);
}

int strbuf_read_file_at(struct strbuf *sb, int dirfd, const char *name, size_t max_bytes,
			struct stat *ret_st)
{
	struct stat st;
	int fd;

	strbuf_reset(sb);
	/* One component: O_NOFOLLOW guards the last one only. */
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	/*
	 * What is not a regular file is refused without being opened: opening a device may do
	 * something by itself (a tape rewinds, a terminal becomes the controlling one).
	 */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (ret_st)
		*ret_st = st;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (max_bytes && (size_t)st.st_size > max_bytes)
		return -E2BIG;
	/* It may have been swapped since: O_NOFOLLOW and O_NONBLOCK, then fstat() again. */
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return read_fd_capped(sb, fd, max_bytes, ret_st);
}

void strbuf_trim_trailing(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == ' ' ||
			   sb->buf[sb->len - 1] == '\t' || sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

void strbuf_add_sh_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}
