/*
 * method.h - methods (docs/methods.md): libraries of Triton kernels that kgb judges as
 * candidates, each described by an adapter table, <root>/methods/<name>.json.
 *
 * method_load() reads and validates a table and finds the library's installed version in
 * <root>/build/methods/<name>/lib (scripts/methods.sh installs it there); method_task() says
 * whether a task is covered and, if not, why; method_write() renders a covered task's candidate
 * into <root>/build/methods/<name>/candidates/<source>/<op>/<name>.py. `kgb eval --method`
 * evaluates those files with method_job() in their jobs: the library's import is allowed to
 * candidates kgb wrote from a table, never to one it was given (the allowance is not in the
 * candidate's text, and --solutions never gets it).
 */
#ifndef KGB_METHOD_H
#define KGB_METHOD_H

#include <stdbool.h>

#include <jansson.h>

#include "util/compiler.h"
#include "util/strbuf.h"

struct task;

/* Below the project root: the tables, and the libraries and candidates kgb writes. */
#define METHOD_TABLES_DIR "methods"
#define METHOD_BUILD_DIR "build/methods"

struct method {
	char *name;		  /* the table's file name, without .json; owned */
	json_t *spec;		  /* the table; owned */
	const char *title, *about, *package, *version, *module, *uncovered; /* borrowed */
	json_t *env, *imports, *tasks, *notes; /* borrowed from spec */
	char *dir;		  /* <root>/build/methods/<name>, owned */
	char *lib;		  /* dir/lib: the library's install directory, owned */
	char *installed;	  /* the version installed in lib, or NULL; owned */
};

/* The names of the tables in <root>/methods, sorted (NULL-terminated; strv_free). -errno. */
int method_names(const char *root, char ***ret) KGB_WUR;
/*
 * Reads <root>/methods/<name>.json into *m (released by method_release() even on failure):
 * 0, -ENOENT (no such table) or -EINVAL (invalid: err says where and what).
 */
int method_load(const char *root, const char *name, struct method *m, struct strbuf *err)
	KGB_WUR;
void method_release(struct method *m);
/*
 * Whether the method covers task t: true with *ret_entries (borrowed: entry name -> its code,
 * {"call": "module.fn"} or {"body": [lines]}); false with why appended to `why`.
 */
bool method_task(const struct method *m, const struct task *t, const json_t **ret_entries,
		 struct strbuf *why);
/* What the table notes of task t on `platform` (its own note, else the method's), or NULL. */
const char *method_note(const struct method *m, const struct task *t, const char *platform);
/* The candidate file of covered task t (owned). */
char *method_render(const struct method *m, const struct task *t, const json_t *entries);
/*
 * Writes method_render() to the candidate's path unless the file holds those bytes already;
 * returns the path (owned), or NULL with err set.
 */
char *method_write(const struct method *m, const struct task *t, const json_t *entries,
		   struct strbuf *err);
/* The job line's "method" object (docs/protocol.md): name, module, path, env. New reference. */
json_t *method_job(const struct method *m);

#endif
