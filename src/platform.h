/*
 * platform.h - where kgb is and what it runs on.
 *
 * platform_root() finds the project root (runtime/, tasks/): $KGB_ROOT, else the directory
 * above the binary's build/ directory, else the current directory. platform_python() picks the
 * interpreter for workers: $KGB_PYTHON, else <root>/.venv/bin/python, else python3.
 * platform_probe() runs `python -m runtime.platform` once (torch imported, CUDA queried) and
 * returns its JSON; platform_detect() turns that into a platform name: "cuda" when torch sees a
 * GPU, else "interpreter" (Triton's CPU interpreter, correctness only).
 *
 * Strings returned are owned by the caller; the probe's JSON is a new reference.
 */
#ifndef KGB_PLATFORM_H
#define KGB_PLATFORM_H

#include <jansson.h>
#include <stdbool.h>

#include "util/compiler.h"
#include "util/strbuf.h"

char *platform_root(void);
char *platform_python(const char *root);
int platform_probe(const char *root, const char *python, json_t **ret, struct strbuf *err) KGB_WUR;
/*
 * Runs `python -m module` (kgb's own, trusted: no sandbox) in root and parses the one JSON object
 * it prints on stdout; an error after timeout_s without output. platform_probe() is this with
 * runtime.platform.
 */
int platform_run_module(const char *root, const char *python, const char *module,
			int timeout_s, json_t **ret, struct strbuf *err) KGB_WUR;
const char *platform_detect(json_t *probe);
bool platform_is_known(const char *name);
/*
 * The environment of a worker: this process's, with PYTHONPATH=root, no bytecode files,
 * TRITON_INTERPRET=1 on the interpreter, and OpenMP threads split between `slots` workers.
 * A NULL-terminated array the caller frees with strv_free().
 */
char **platform_worker_env(const char *root, const char *platform, unsigned slots);
/* Whether results on this platform carry timings (the interpreter's never do). */
bool platform_times(const char *name);

#endif
