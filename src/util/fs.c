#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "strbuf.h"
#include "xalloc.h"

char *path_join(const char *a, const char *b)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, a);
	if (sb.len && sb.buf[sb.len - 1] != '/')
		strbuf_addch(&sb, '/');
	strbuf_addstr(&sb, b);
	return strbuf_detach(&sb, NULL);
}

bool path_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool path_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int mkdir_p(const char *path, unsigned mode)
{
	char *p = xstrdup(path);
	int r = 0;

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			r = -errno;
			goto out;
		}
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		r = -errno;
	else if (!path_is_dir(p)) /* a file of that name: the caller's use of it would fail later */
		r = -ENOTDIR;
out:
	free(p);
	return r;
}

static int rm_rf_at(int at_fd, const char *name)
{
	struct stat st;
	int r = 0;

	if (fstatat(at_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode)) {
		int fd = openat(at_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d;
		struct dirent *de;

		if (fd < 0)
			return -errno;
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			return -errno;
		}
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			r = rm_rf_at(dirfd(d), de->d_name);
			if (r < 0)
				break;
		}
		closedir(d);
		if (r == 0 && unlinkat(at_fd, name, AT_REMOVEDIR) < 0)
			r = -errno;
	} else if (unlinkat(at_fd, name, 0) < 0) {
		r = -errno;
	}
	return r;
}

int rm_rf(const char *path)
{
	return rm_rf_at(AT_FDCWD, path);
}

int rm_stale_pid_dirs(const char *dir, const char *prefix, unsigned *ret_removed)
{
	size_t plen = strlen(prefix);
	unsigned removed = 0;
	char **names = NULL;
	int r = list_dir_sorted(dir, &names);

	if (r < 0)
		return r;
	for (char **n = names; *n; n++) {
		const char *p = *n + plen;
		long long pid = 0;
		struct stat st;
		char *path;

		if (strncmp(*n, prefix, plen) || !*p)
			continue;
		for (; *p >= '0' && *p <= '9' && pid < INT_MAX; p++)
			pid = pid * 10 + (*p - '0');
		if (*p || pid <= 0 || pid >= INT_MAX || pid == getpid())
			continue;
		/* kill(pid, 0) fails with ESRCH only when no such process exists. */
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		path = path_join(dir, *n);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
		    rm_rf(path) == 0)
			removed++;
		free(path);
	}
	strv_free(names);
	if (ret_removed)
		*ret_removed = removed;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int list_dir_sorted(const char *dir, char ***ret_names)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, alloc = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		XGROW(v, n + 2, alloc);
		v[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	XGROW(v, n + 1, alloc);
	v[n] = NULL;
	qsort(v, n, sizeof(*v), cmp_str);
	*ret_names = v;
	return 0;
}

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

bool strv_contains(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

char *path_abs(const char *path)
{
	return realpath(path, NULL);
}

bool path_within(const char *root_real, const char *real)
{
	size_t n = strlen(root_real);

	if (!strcmp(root_real, "/"))
		return real[0] == '/';
	return !strncmp(real, root_real, n) && (real[n] == '/' || !real[n]);
}

double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int write_file_atomic(const char *path, const char *text, unsigned mode, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	size_t len = strlen(text);
	int fd, r = 0;

	strbuf_addf(&tmp, "%s.tmp-%ld", path, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		r = -errno;
	if (fd >= 0 && close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp.buf, path) < 0)
		r = -errno;
	if (r < 0) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(-r));
		unlink(tmp.buf);
	}
	strbuf_release(&tmp);
	return r;
}
