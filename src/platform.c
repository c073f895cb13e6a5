#include "platform.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "sandbox.h"
#include "sched.h"
#include "util/strbuf.h"
#include "util/fs.h"
#include "util/xalloc.h"

extern char **environ;

static bool is_root(const char *dir)
{
	char *p = path_join(dir, "runtime/worker.py");
	bool ok = path_is_file(p);

	free(p);
	return ok;
}

char *platform_root(void)
{
	const char *env = getenv("KGB_ROOT");
	char *exe, *cwd;

	if (env && *env)
		return xstrdup(env);
	exe = path_abs("/proc/self/exe");
	if (exe) {
		char *slash = strrchr(exe, '/');

		if (slash) {
			*slash = '\0';
			slash = strrchr(exe, '/');
			if (slash) {
				*slash = '\0';
				if (is_root(exe))
					return exe;
			}
		}
		free(exe);
	}
	cwd = getcwd(NULL, 0);
	return cwd ? cwd : xstrdup(".");
}

char *platform_python(const char *root)
{
	const char *env = getenv("KGB_PYTHON");
	char *venv;

	if (env && *env)
		return xstrdup(env);
	venv = path_join(root, ".venv/bin/python");
	if (access(venv, X_OK) == 0)
		return venv;
	free(venv);
	return xstrdup("python3");
}

int platform_probe(const char *root, const char *python, json_t **ret, struct strbuf *err)
{
	/* The probe imports torch: seconds. A minute means something is wrong. */
	return platform_run_module(root, python, "runtime.platform", 60, ret, err);
}

/* platform_run_module(), writing bytecode under `pycache` when it is not NULL. */
static int run_module(const char *root, const char *python, const char *module, int timeout_s,
		      const char *pycache, json_t **ret, struct strbuf *err)
{
	char *argv[] = {(char *)python, "-m", (char *)module, NULL};
	struct sandbox_opts o = {.argv = argv, .cwd = root};
	/* A deadline for the whole run: a probe that prints now and then must not hang kgb. */
	struct proc_opts po = {.timeout_s = timeout_s, .out_max = 65536, .err_max = 16384};
	struct proc p;
	struct strbuf env_pp = STRBUF_INIT, env_pc = STRBUF_INIT;
	char **env;
	size_t n = 0, k = 0;
	json_error_t jerr;
	int r;

	while (environ[n])
		n++;
	env = xcalloc(n + 3, sizeof(*env));
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(environ[i], "PYTHONPATH=", 11))
			continue;
		if (pycache && (!strncmp(environ[i], "PYTHONDONTWRITEBYTECODE=", 24) ||
				!strncmp(environ[i], "PYTHONPYCACHEPREFIX=", 20)))
			continue;
		env[k++] = environ[i];
	}
	strbuf_addf(&env_pp, "PYTHONPATH=%s", root);
	env[k++] = env_pp.buf;
	if (pycache) {
		strbuf_addf(&env_pc, "PYTHONPYCACHEPREFIX=%s", pycache);
		env[k++] = env_pc.buf;
	}
	env[k] = NULL;
	o.envp = env;
	r = proc_run(&o, &po, &p, err);
	free(env);
	strbuf_release(&env_pp);
	strbuf_release(&env_pc);
	if (r == -E2BIG)
		strbuf_addf(err, "'%s -m %s' printed more than 64 KiB", python, module);
	if (r < 0) {
		proc_release(&p);
		return r;
	}
	if (p.timed_out) {
		strbuf_addf(err, "'%s -m %s' gave no answer in %d s", python, module, timeout_s);
		r = -ETIMEDOUT;
	} else if (!WIFEXITED(p.child.status) || WEXITSTATUS(p.child.status) != 0) {
		const char *last;

		strbuf_trim_trailing(&p.errout);
		last = strrchr(p.errout.buf, '\n');
		strbuf_addf(err,
			    "'%s -m %s' failed (exit status %d%s%s); is the Python "
			    "environment set up? (make setup)",
			    python, module,
			    WIFEXITED(p.child.status) ? WEXITSTATUS(p.child.status) : -1,
			    p.errout.len ? ": " : "", last ? last + 1 : p.errout.buf);
		r = -ENOEXEC;
	}
	if (r == 0) {
		*ret = json_loadb(p.out.buf, p.out.len, 0, &jerr);
		if (!*ret || !json_is_object(*ret)) {
			strbuf_addf(err, "'%s -m %s' printed no JSON object: %s", python, module,
				    jerr.text);
			json_decref(*ret);
			r = -EBADMSG;
		}
	}
	proc_release(&p);
	return r;
}

int platform_run_module(const char *root, const char *python, const char *module,
			int timeout_s, json_t **ret, struct strbuf *err)
{
	return run_module(root, python, module, timeout_s, NULL, ret, err);
}

char *platform_pycache_dir(const char *root, const char *platform)
{
	const char *env = getenv("KGB_PYCACHE");
	struct strbuf sb = STRBUF_INIT;

	if (env && *env)
		return strcmp(env, "off") ? xstrdup(env) : NULL;
	if (!platform_times(platform))
		return NULL; /* CI and the interpreter: bytecode next to the sources does */
	strbuf_addf(&sb, "%s/build/pycache", root);
	return strbuf_detach(&sb, NULL);
}

int platform_pycache_fill(const char *root, const char *python, const char *dir,
			  struct strbuf *err)
{
	json_t *j = NULL;
	int r = mkdir_p(dir, 0755);

	if (r < 0) {
		strbuf_addf(err, "cannot create '%s': %s", dir, strerror(-r));
		return r;
	}
	/* Importing torch, triton and torch._dynamo from source: 10 s on the H200 box. */
	r = run_module(root, python, "runtime.pycache", 300, dir, &j, err);
	json_decref(j);
	return r;
}

const char *platform_detect(json_t *probe)
{
	return json_is_true(json_object_get(probe, "cuda")) ? "cuda" : "interpreter";
}

bool platform_is_known(const char *name)
{
	return !strcmp(name, "cuda") || !strcmp(name, "interpreter");
}

bool platform_times(const char *name)
{
	return !strcmp(name, "cuda");
}

char **platform_worker_env(const char *root, const char *platform, unsigned slots,
			   const char *pycache)
{
	static const char *const drop[] = {"PYTHONPATH=", "TRITON_INTERPRET=", "OMP_NUM_THREADS=",
					   "OMP_WAIT_POLICY=", "PYTHONDONTWRITEBYTECODE=",
					   "PYTHONPYCACHEPREFIX=", NULL};
	size_t n = 0, k = 0;
	char **env;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct strbuf sb = STRBUF_INIT;

	while (environ[n])
		n++;
	env = xcalloc(n + 9, sizeof(*env));
	for (size_t i = 0; i < n; i++) {
		bool skip = false;
		for (const char *const *d = drop; *d; d++)
			skip |= !strncmp(environ[i], *d, strlen(*d));
		if (!skip)
			env[k++] = xstrdup(environ[i]);
	}
	strbuf_addf(&sb, "PYTHONPATH=%s", root);
	env[k++] = strbuf_detach(&sb, NULL);
	/* Task and candidate directories stay clean of __pycache__. */
	env[k++] = xstrdup("PYTHONDONTWRITEBYTECODE=1");
	if (pycache) {
		strbuf_addf(&sb, "PYTHONPYCACHEPREFIX=%s", pycache);
		env[k++] = strbuf_detach(&sb, NULL);
	}
	if (!strcmp(platform, "interpreter"))
		env[k++] = xstrdup("TRITON_INTERPRET=1");
	/* Workers share the cores: one BLAS/OpenMP pool each would oversubscribe them. */
	strbuf_addf(&sb, "OMP_NUM_THREADS=%ld",
		    !strcmp(platform, "interpreter") || ncpu <= (long)slots ? 1 : ncpu / (long)slots);
	env[k++] = strbuf_detach(&sb, NULL);
	/*
	 * Idle OpenMP threads spin by default; on a shared machine that costs 3-7x CPU time
	 * (measured by the task helpers on the 2-core box). The interpreter gains nothing from
	 * intra-op threads: its kernels run in numpy, one program at a time.
	 */
	env[k++] = xstrdup("OMP_WAIT_POLICY=PASSIVE");
	env[k] = NULL;
	return env;
}


/*
 * What CUDA opens (bench/sandbox-cuda.sh lists what it did open on a GPU machine): each GPU's
 * node, the control node, the unified-memory ones (nvidia-uvm-tools for profilers), the
 * modeset node, and nvidia-caps/ (MIG and IMEX capabilities: a directory of nodes).
 */
static const char *const cuda_dev_nodes[] = {
	"nvidia[0-9]*", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset",
	"nvidia-caps", NULL,
};

const char *platform_runner_module(const char *platform)
{
	return platform && !strcmp(platform, "cuda") ? "runtime.runner" : "runtime.replay_runner";
}

void platform_worker_argv(struct platform_worker_argv *a, const char *python,
			  const char *platform)
{
	const char *modules[] = {"runtime.worker", platform_runner_module(platform),
				 "runtime.replay_runner"};
	char **argvs[] = {a->judge, a->runner, a->replay};

	for (size_t i = 0; i < 3; i++) {
		argvs[i][0] = (char *)python;
		argvs[i][1] = "-P";
		argvs[i][2] = "-m";
		argvs[i][3] = (char *)modules[i];
		argvs[i][4] = NULL;
	}
}

const char *const *platform_dev_nodes(const char *platform)
{
	static const char *const none[] = {NULL};

	return platform && !strcmp(platform, "cuda") ? cuda_dev_nodes : none;
}

int platform_check_slots(const char *platform, json_t *probe, unsigned requested,
			 const char *visible, unsigned *slots, unsigned *ngpu, char ***slot_dev,
			 struct strbuf *err)
{
	unsigned ncpu = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	bool cuda = !strcmp(platform, "cuda");

	*ngpu = cuda ? (unsigned)json_integer_value(json_object_get(probe, "device_count")) : 0;
	if (!*ngpu)
		*ngpu = 1;
	*slots = requested ? requested : ncpu;
	if (!requested && cuda) {
		json_int_t mem = json_integer_value(json_object_get(probe, "total_mem_bytes"));
		unsigned long long per_gpu = PLATFORM_CHECK_SLOTS_PER_GPU;

		if (mem > 0 && (unsigned long long)mem / PLATFORM_CHECK_SLOT_DEVICE_BYTES < per_gpu)
			per_gpu = (unsigned long long)mem / PLATFORM_CHECK_SLOT_DEVICE_BYTES;
		if (!per_gpu)
			per_gpu = 1;
		if (per_gpu * *ngpu < *slots)
			*slots = (unsigned)(per_gpu * *ngpu);
	}
	if (!*slots)
		*slots = 1;
	*slot_dev = NULL;
	if (!cuda)
		return 0;
	/* Slots share the GPUs round-robin, so slots 0..ngpu-1 are one per GPU. */
	*slot_dev = sched_slot_devices(visible, *ngpu, *slots, err);
	return *slot_dev ? 0 : -EINVAL;
}
