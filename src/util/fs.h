/*
 * fs.h - small filesystem and clock helpers. Paths returned as char * are owned by the caller.
 */
#ifndef KGB_UTIL_FS_H
#define KGB_UTIL_FS_H

#include <stdbool.h>

#include "compiler.h"

struct strbuf;

char *path_join(const char *a, const char *b);
bool path_is_dir(const char *path);
bool path_is_file(const char *path);
/* mkdir -p; -errno on failure (-ENOTDIR when `path` is there but not a directory). */
int mkdir_p(const char *path, unsigned mode) KGB_WUR;
/* Removes a directory tree (no symlink following); -errno on the first failure. */
int rm_rf(const char *path);
/*
 * Lists the names in `dir` (no "." or ".."), sorted, into a NULL-terminated array the caller
 * frees with strv_free(). -errno if the directory cannot be read.
 */
int list_dir_sorted(const char *dir, char ***ret_names) KGB_WUR;
void strv_free(char **v);
/* Whether the NULL-terminated list contains s. */
bool strv_contains(const char *const *list, const char *s);
/*
 * Removes the directories `dir`/<prefix><pid> (pid: digits only) owned by this user whose
 * process is gone: the scratch roots a kgb killed with SIGKILL left behind. A pid that is
 * alive, or that belongs to another user (kill() says EPERM), is left alone. *ret_removed
 * (may be NULL) counts what went; -errno when `dir` cannot be read (-ENOENT: nothing to do).
 */
int rm_stale_pid_dirs(const char *dir, const char *prefix, unsigned *ret_removed);
/* Absolute, symlink-resolved path (realpath); NULL with errno set on failure. */
char *path_abs(const char *path);
/* Whether the real path `real` is root_real or lies below it (both symlink-resolved). */
bool path_within(const char *root_real, const char *real);

/*
 * Writes `text` to `path` (mode `mode` when created) through a temporary file beside it,
 * fsync and rename: a reader sees the old file or the whole new one. -errno, with err saying
 * which path, on failure (the temporary file is removed).
 */
int write_file_atomic(const char *path, const char *text, unsigned mode, struct strbuf *err)
	KGB_WUR;

/* Seconds on the monotonic clock, for durations and deadlines. */
double monotonic_s(void);

#endif
