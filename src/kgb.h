/*
 * kgb.h - what main.c shares with the cmd_<verb>.c files: the command signature, the exit
 * codes (never renumbered; listed in `kgb --help` and docs/cli.md) and the global context.
 */
#ifndef KGB_KGB_H
#define KGB_KGB_H

#include "sandbox.h"

#define KGB_VERSION "0.1.0"

enum kgb_exit {
	KGB_EXIT_OK = 0,	   /* success */
	KGB_EXIT_NO = 1,	   /* ran, and the answer is no (lint findings, --exit-status) */
	KGB_EXIT_USAGE = 2,	   /* bad command line */
	KGB_EXIT_DATA = 3,	   /* bad input data (task spec, solution directory, store) */
	KGB_EXIT_ENV = 4,	   /* environment: Python runtime, device, locked store */
	KGB_EXIT_INTERRUPTED = 130,
};

struct kgb_ctx {
	const char *root;      /* project root: runtime/ lives here */
	const char *tasks_dir; /* the catalog */
	int verbose;	       /* -v count minus -q count */
};

int cmd_list(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_show(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_lint(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_eval(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_methods(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_report(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_generate(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_platforms(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_compare(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_merge(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_status(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_serve(int argc, char **argv, struct kgb_ctx *ctx);
int cmd_sandbox_exec(int argc, char **argv, struct kgb_ctx *ctx);

/* Shared by the commands: print a usage error (one line + pointer to --help), return 2. */
int kgb_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "kgb" and the command's arguments, space-separated, as a run records them (owned). */
char *kgb_command_line(int argc, char **argv);
/* Loads the catalog, printing every problem; returns NULL (and prints) on failure. */
struct catalog;
struct catalog *kgb_load_catalog(struct kgb_ctx *ctx, int *ret_exit);
/*
 * The platform profiles of <root>/platforms (profile.h) into *ret: KGB_EXIT_OK, or
 * KGB_EXIT_DATA with every problem printed. kgb_platform_arg() resolves a --platform value (a
 * profile or a runtime name) or prints the usage error listing the profiles (exit code in
 * *ret_exit) and returns NULL.
 */
struct profile;
struct profile_set;
int kgb_load_profiles(struct kgb_ctx *ctx, const char *cmd, struct profile_set *ret);
const struct profile *kgb_platform_arg(const struct profile_set *set, const char *cmd,
				       const char *name, int *ret_exit);
/*
 * With cuda_python (the workers' Python on the cuda platform), first checks that CUDA starts
 * inside the sandbox; in auto mode, leaves out the facility it fails with (recorded unavailable)
 * (cmd_sandbox.c says why). Then starts one `true` in the workers' sandbox of `so`
 * (sched_probe_sandbox), prints on stderr each
 * facility that is unavailable ("kgb: sandbox: <facility> unavailable: <reason>; continuing
 * without it"), or that the sandbox is off, and returns the report as JSON (a new reference).
 * NULL, with the error printed as "kgb <cmd>: ...", when the workers cannot start (strict mode
 * and a facility missing).
 */
struct sched_opts;
json_t *kgb_sandbox_probe(const struct sched_opts *so, enum sandbox_mode mode,
			  const char *cuda_python, const char *cmd);

/*
 * The workers' filesystem view, devices and environment (sandbox.h: hidden_paths, min_dev,
 * clean_env), as data: NULL-terminated lists the caller may add to (kgb_sandbox_view_add) and
 * hands to sched_opts. kgb_sandbox_view_init() fills them with
 *   hidden:    sandbox_hidden_default, $TMPDIR, <root>/.git, <root>/build/methods (the methods'
 *              libraries: method.h; eval --method binds its own back), and $KGB_SANDBOX_HIDE;
 *   visible:   the project root, the directories `python` imports from (runtime/paths.py),
 *              $LD_LIBRARY_PATH, $CUDA_HOME, $CUDA_PATH, and $KGB_SANDBOX_VISIBLE;
 *   dev_nodes: platform_dev_nodes(platform) and $KGB_SANDBOX_DEV;
 *   env_allow: $KGB_SANDBOX_ENV (NAME or PREFIX*, besides sandbox_env_default);
 * the $KGB_SANDBOX_* lists comma-separated. When `python` cannot say where it imports from,
 * a warning names it: the workers may then not find their Python.
 */
struct kgb_sandbox_view {
	char **hidden, **visible, **dev_nodes, **env_allow;
	/* What the candidate's runner does not see besides `hidden` (sched.h): the catalog. */
	char **runner_hidden;
};
void kgb_sandbox_view_init(struct kgb_sandbox_view *v, const char *root, const char *python,
			   const char *platform, const char *cmd);
/* Appends a copy of s to one of a view's lists (&v->hidden, &v->visible, ...). */
void kgb_sandbox_view_add(char ***list, const char *s);
/* `hidden` and `dir` (the catalog) as the view's runner_hidden. */
void kgb_sandbox_view_hide_from_runner(struct kgb_sandbox_view *v, const char *dir);
/* Points so's lists at the view's (borrowed: release the view after the run). */
void kgb_sandbox_view_apply(const struct kgb_sandbox_view *v, struct sched_opts *so);
void kgb_sandbox_view_release(struct kgb_sandbox_view *v);

#endif
