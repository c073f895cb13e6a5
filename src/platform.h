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
/*
 * The workers' bytecode cache (docs/architecture.md): a directory of compiled bytecode of what
 * a worker imports, which workers read through PYTHONPYCACHEPREFIX and never write. Where the
 * Python environment ships no bytecode and workers may write none, every worker compiled
 * torch, triton and torch._dynamo from source (7-8 s of each job's start on the H200 box).
 * platform_pycache_dir(): $KGB_PYCACHE when set ("off": none), else <root>/build/pycache on a
 * platform that times, else none (NULL); the caller frees. platform_pycache_fill() creates it
 * and runs `python -m runtime.pycache` there with bytecode writing on (trusted, unsandboxed);
 * negative with the reason in err when either fails (workers then compile, as before).
 */
char *platform_pycache_dir(const char *root, const char *platform);
int platform_pycache_fill(const char *root, const char *python, const char *dir,
			  struct strbuf *err) KGB_WUR;
const char *platform_detect(json_t *probe);
bool platform_is_known(const char *name);
/*
 * The environment of a worker: this process's, with PYTHONPATH=root, no bytecode files written,
 * bytecode read from `pycache` when not NULL (PYTHONPYCACHEPREFIX), TRITON_INTERPRET=1 on the
 * interpreter, and OpenMP threads split between `slots` workers. A NULL-terminated array the
 * caller frees with strv_free().
 */
char **platform_worker_env(const char *root, const char *platform, unsigned slots,
			   const char *pycache);
/*
 * The device nodes a worker on `platform` opens, besides the minimal /dev every worker has
 * (sandbox_dev_base): glob patterns below /dev, a NULL-terminated list (data, static). On cuda
 * the NVIDIA driver's nodes; none elsewhere. KGB_SANDBOX_DEV adds to it (cmd_sandbox.c).
 */
const char *const *platform_dev_nodes(const char *platform);
/*
 * The Python module a job's runner runs on `platform` (static): on cuda runtime.runner, which
 * imports torch and starts CUDA at once, beside its judge; elsewhere runtime.replay_runner,
 * which waits for its judge's first request before it imports anything, so that a candidate
 * the judge refuses (L1) or never loads (a validity job) costs a Python start, not a second
 * torch import (on the CPU machine about 1.3 s of CPU per job, and its cores are what the
 * test suite waits for; on a GPU the runner's CUDA start stays off the critical path).
 */
const char *platform_runner_module(const char *platform);
/*
 * The three processes of a job on `platform` (sched.h): judge, runner and replay runner, each
 * `python -P -m <module>` (-P: the working directory, a candidate's scratch, is not on the
 * import path). The argv arrays are filled with borrowed strings and NULL-terminated.
 */
struct platform_worker_argv {
	char *judge[5], *runner[5], *replay[5];
};
void platform_worker_argv(struct platform_worker_argv *a, const char *python,
			  const char *platform);
/*
 * The checking slots of a run on `platform` and their devices, shared by eval and lint --deep:
 * `requested` when non-zero; else on cuda one per core (compilation is CPU-bound), at most
 * PLATFORM_CHECK_SLOTS_PER_GPU per GPU and one per PLATFORM_CHECK_SLOT_DEVICE_BYTES of its
 * memory (the probe's total_mem_bytes, of device 0: the GPUs of one host are alike), so that
 * the workers' contexts and inputs fit; elsewhere one per core. On cuda *ngpu is the probe's
 * device_count (at least 1) and *slot_dev each slot's CUDA_VISIBLE_DEVICES, round-robin over
 * `visible` (sched_slot_devices: free with sched_slot_devices_free); elsewhere *ngpu is 1 and
 * *slot_dev NULL. -EINVAL (message in err) when `visible` lists fewer GPUs than the probe saw.
 */
#define PLATFORM_CHECK_SLOTS_PER_GPU 8u
/*
 * A slot is three CUDA processes (judge, runner, replay runner) of about 0.6 GiB of context
 * each, and the largest cases have 1 GiB inputs, which the judge holds twice (pristine and
 * passed) beside the reference's output while a runner holds its copy and the candidate's
 * output (measured on an 80 GiB H100, 2026-12-06, git log). An 80 GiB card gets 7 slots, a
 * 141 GiB H200 8.
 */
#define PLATFORM_CHECK_SLOT_DEVICE_BYTES (10ull << 30)
int platform_check_slots(const char *platform, json_t *probe, unsigned requested,
			 const char *visible, unsigned *slots, unsigned *ngpu, char ***slot_dev,
			 struct strbuf *err) KGB_WUR;
/* Whether results on this platform carry timings (the interpreter's never do). */
bool platform_times(const char *name);

#endif
