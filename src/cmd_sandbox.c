/*
 * cmd_sandbox.c - `kgb sandbox-exec`, a debugging and test command (not in `kgb --help`'s list;
 * docs/security.md): runs any command exactly as a worker runs (its scratch directory, Triton
 * cache, environment additions, sandbox and limits), so that each property of the sandbox can
 * be tested with small shell or Python commands, which the static scan would never let a
 * candidate run. Also kgb_sandbox_probe(), which eval and sandbox-exec share.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kgb.h"
#include "method.h"
#include "platform.h"
#include "sched.h"
#include "util/fs.h"
#include "util/parse.h"
#include "util/xalloc.h"

extern char **environ;

/*
 * Whether CUDA starts inside the workers' sandbox: 1 yes, 0 no, -1 the probe could not run
 * (err set). The probe is kgb's own code, silenced so that the tries below stay quiet.
 */
static int cuda_starts(const struct sched_opts *so, const char *python, struct strbuf *err)
{
	char *argv[] = {(char *)python, "-c",
			"import os; os.dup2(os.open(os.devnull, os.O_WRONLY), 2); import torch; "
			"torch.zeros(1, device='cuda'); torch.cuda.synchronize()",
			NULL};
	struct sched_exec_result res;
	int r = sched_exec(so, argv, &res, err);

	if (r < 0)
		return -1;
	strbuf_release(&res.detail);
	return !res.timed_out && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0;
}

/*
 * The facilities to leave out, one at a time, when CUDA fails inside the full sandbox: the
 * narrowest first (mntns would take readonly_fs and the private scratch with it).
 */
static const enum sandbox_facility cuda_suspects[] = {
	SANDBOX_MEMORY,		 SANDBOX_MEMCG,		SANDBOX_MIN_DEV,      SANDBOX_HIDDEN_PATHS,
	SANDBOX_UNIX_SOCKETS,	 SANDBOX_CLEAN_ENV,	SANDBOX_READONLY_FS,  SANDBOX_PIDNS,
	SANDBOX_PRIVATE_SCRATCH, SANDBOX_SECCOMP,	SANDBOX_NO_NEW_PRIVS, SANDBOX_CAPS,
	SANDBOX_RLIMITS,	 SANDBOX_NPROC,		SANDBOX_NETNS,	      SANDBOX_USERNS,
	SANDBOX_MNTNS,
};

/*
 * On bench/results/h200-2026-12-03b's H200, CUDA failed to start under the read-only mounts
 * (cudaGetDeviceCount: error 304), and every candidate was stored as a crash. Checked here
 * before any candidate runs: auto mode leaves out the first facility without which CUDA starts,
 * or else the fewest in order that together stop breaking it, and records them unavailable;
 * strict mode, or no such set, stops the run.
 */
static int check_cuda(const struct sched_opts *so, enum sandbox_mode mode, const char *python,
		      const char *cmd)
{
	struct strbuf err = STRBUF_INIT;
	int ok = cuda_starts(so, python, &err);

	size_t n = ARRAY_SIZE(cuda_suspects), last = n;

	for (size_t i = 0; ok == 0 && mode == SANDBOX_AUTO && i < n; i++) {
		if (sandbox_is_skipped(so->box, cuda_suspects[i]))
			continue;
		sandbox_set_broken(so->box, cuda_suspects[i], true);
		ok = cuda_starts(so, python, &err);
		if (ok == 0)
			sandbox_set_broken(so->box, cuda_suspects[i], false);
	}
	/*
	 * No single one: two facilities may each break it. Leave them out cumulatively in order,
	 * then put back each one before the last that CUDA does not need.
	 */
	for (size_t i = 0; ok == 0 && mode == SANDBOX_AUTO && i < n; i++) {
		if (sandbox_is_skipped(so->box, cuda_suspects[i]))
			continue;
		sandbox_set_broken(so->box, cuda_suspects[i], true);
		ok = cuda_starts(so, python, &err);
		last = i;
	}
	for (size_t i = 0; ok == 1 && last < n && i < last; i++) {
		if (sandbox_is_skipped(so->box, cuda_suspects[i]))
			continue;
		sandbox_set_broken(so->box, cuda_suspects[i], false);
		ok = cuda_starts(so, python, &err);
		if (ok != 1) {
			sandbox_set_broken(so->box, cuda_suspects[i], true);
			ok = 1;
		}
	}
	if (ok < 0)
		fprintf(stderr, "kgb %s: probing CUDA in the sandbox: %s\n", cmd, err.buf);
	else if (ok == 0)
		fprintf(stderr,
			"kgb %s: CUDA does not start inside the workers' sandbox%s; find the "
			"facility with bench/sandbox-cuda.sh and leave it out with "
			"KGB_SANDBOX_SKIP, or use --sandbox=off\n",
			cmd,
			mode == SANDBOX_STRICT ? " (--sandbox=strict)"
					       : ", not even with any one facility left out");
	strbuf_release(&err);
	return ok == 1 ? 0 : -1;
}

json_t *kgb_sandbox_probe(const struct sched_opts *so, enum sandbox_mode mode,
			  const char *cuda_python, const char *cmd)
{
	struct sandbox_report rep;
	struct strbuf err = STRBUF_INIT;
	const char *skip = getenv("KGB_SANDBOX_SKIP");

	if (so->box && skip && *skip && sandbox_skip(so->box, skip, &err) < 0) {
		fprintf(stderr, "kgb %s: KGB_SANDBOX_SKIP: %s\n", cmd, err.buf);
		strbuf_release(&err);
		return NULL;
	}
	if (cuda_python && so->box && mode != SANDBOX_OFF &&
	    check_cuda(so, mode, cuda_python, cmd) < 0) {
		strbuf_release(&err);
		return NULL;
	}
	if (sched_probe_sandbox(so, &rep, &err) < 0) {
		fprintf(stderr, "kgb %s: %s\n", cmd, err.buf);
		strbuf_release(&err);
		return NULL;
	}
	strbuf_release(&err);
	if (mode == SANDBOX_OFF)
		fprintf(stderr,
			"kgb: sandbox: off (process group, timeout and plain limits only)\n");
	for (int f = 0; f < _SANDBOX_FACILITY_MAX; f++)
		if (rep.state[f] == SANDBOX_STATE_UNAVAILABLE)
			fprintf(stderr, "kgb: sandbox: %s unavailable: %s; continuing without it\n",
				sandbox_facility_name((enum sandbox_facility)f), rep.reason[f]);
	return sandbox_report_json(&rep, mode);
}

void kgb_sandbox_view_add(char ***list, const char *s)
{
	size_t n = 0;

	while (*list && (*list)[n])
		n++;
	*list = xrealloc(*list, (n + 2) * sizeof(**list));
	(*list)[n] = xstrdup(s);
	(*list)[n + 1] = NULL;
}

/* Each entry of a list separated by `sep` (',' or ':'), when the variable is set. */
static void add_env_list(char ***list, const char *var, char sep)
{
	const char *p = getenv(var);

	while (p && *p) {
		size_t n = strcspn(p, (char[]){sep, '\0'});

		if (n) {
			char *one = xstrndup(p, n);

			kgb_sandbox_view_add(list, one);
			free(one);
		}
		p += n;
		if (*p)
			p++;
	}
}

void kgb_sandbox_view_init(struct kgb_sandbox_view *v, const char *root, const char *python,
			   const char *platform, const char *cmd)
{
	const char *tmp = getenv("TMPDIR");
	struct strbuf err = STRBUF_INIT;
	json_t *paths = NULL, *p;
	size_t i;
	char *git, *methods;

	memset(v, 0, sizeof(*v));
	for (const char *const *h = sandbox_hidden_default; *h; h++)
		kgb_sandbox_view_add(&v->hidden, *h);
	/* Other runs' scratch roots and caches live there too. */
	if (tmp && *tmp == '/')
		kgb_sandbox_view_add(&v->hidden, tmp);
	/* The repository's history holds every shipped solution. */
	git = path_join(root, ".git");
	kgb_sandbox_view_add(&v->hidden, git);
	free(git);
	/* The methods' libraries and candidates (method.h): a method run binds its own library
	 * back; no other worker has any business with them. */
	methods = path_join(root, METHOD_BUILD_DIR);
	kgb_sandbox_view_add(&v->hidden, methods);
	free(methods);
	add_env_list(&v->hidden, "KGB_SANDBOX_HIDE", ',');
	kgb_sandbox_view_add(&v->visible, root);
	if (python) {
		/*
		 * The interpreter as named (a wrapper script, maybe), and where it and the project's
		 * own one import from: a wrapper that runs another Python cannot always say.
		 */
		char *pp = path_abs(python), *venv = path_join(root, ".venv/bin/python");
		const char *ask[] = {python, venv};
		bool answered = false;

		if (pp)
			kgb_sandbox_view_add(&v->visible, pp);
		for (size_t k = 0; k < ARRAY_SIZE(ask); k++) {
			if (k && (!path_is_file(ask[k]) || !strcmp(ask[k], python)))
				continue;
			strbuf_reset(&err);
			if (platform_run_module(root, ask[k], "runtime.paths", 30, &paths, &err) < 0)
				continue;
			answered = true;
			json_array_foreach(json_object_get(paths, "paths"), i, p)
				if (json_is_string(p))
					kgb_sandbox_view_add(&v->visible, json_string_value(p));
			json_decref(paths);
			paths = NULL;
		}
		if (!answered)
			fprintf(stderr, "kgb %s: sandbox: cannot ask %s where it imports from (%s); a "
					"hidden directory may hide it from workers\n",
				cmd, python, err.buf);
		free(pp);
		free(venv);
	}
	add_env_list(&v->visible, "LD_LIBRARY_PATH", ':');
	add_env_list(&v->visible, "CUDA_HOME", '\0');
	add_env_list(&v->visible, "CUDA_PATH", '\0');
	add_env_list(&v->visible, "KGB_SANDBOX_VISIBLE", ',');
	for (const char *const *d = platform_dev_nodes(platform); *d; d++)
		kgb_sandbox_view_add(&v->dev_nodes, *d);
	add_env_list(&v->dev_nodes, "KGB_SANDBOX_DEV", ',');
	add_env_list(&v->env_allow, "KGB_SANDBOX_ENV", ',');
	json_decref(paths);
	strbuf_release(&err);
}

void kgb_sandbox_view_hide_from_runner(struct kgb_sandbox_view *v, const char *dir)
{
	char *abs = realpath(dir, NULL);

	strv_free(v->runner_hidden);
	v->runner_hidden = NULL;
	for (char **h = v->hidden; h && *h; h++)
		kgb_sandbox_view_add(&v->runner_hidden, *h);
	kgb_sandbox_view_add(&v->runner_hidden, abs ? abs : dir);
	free(abs);
}

void kgb_sandbox_view_apply(const struct kgb_sandbox_view *v, struct sched_opts *so)
{
	so->runner_hidden = (const char *const *)v->runner_hidden;
	so->hidden = (const char *const *)v->hidden;
	so->visible = (const char *const *)v->visible;
	so->dev_nodes = (const char *const *)v->dev_nodes;
	so->env_allow = (const char *const *)v->env_allow;
}

void kgb_sandbox_view_release(struct kgb_sandbox_view *v)
{
	strv_free(v->hidden);
	strv_free(v->visible);
	strv_free(v->dev_nodes);
	strv_free(v->env_allow);
	strv_free(v->runner_hidden);
	memset(v, 0, sizeof(*v));
}

static void usage(void)
{
	printf("usage: kgb sandbox-exec [options] -- COMMAND [ARG...]\n"
	       "\n"
	       "Runs COMMAND as an eval worker runs: in a fresh scratch directory under the\n"
	       "scratch root, with a Triton cache of its own, inside the same sandbox and limits\n"
	       "(docs/security.md). For testing the sandbox; kgb's stdin, stdout and stderr are\n"
	       "COMMAND's. Exits with COMMAND's status, 128 + N when signal N killed it, 124 on\n"
	       "timeout.\n"
	       "\n"
	       "  --sandbox=MODE     auto (default), strict or off, as for eval\n"
	       "  --platform P       interpreter (default) or cuda: cuda limits memory by\n"
	       "                     RLIMIT_DATA, not RLIMIT_AS\n"
	       "  --timeout SEC      wall-clock limit (default 60)\n"
	       "  --cpu SEC          CPU time limit (default: as eval's worker, one slot)\n"
	       "  --memory MIB       memory limit (default: as eval's worker, one slot)\n"
	       "  --procs N          processes and threads (default 1024)\n"
	       "  --file-size MIB    largest file (default 1024)\n"
	       "  --scratch-size MIB size of the scratch tmpfs (default 1024)\n"
	       "  --cache-size MIB   cap of the Triton cache (default 512); over it: exit 125\n"
	       "  --scratch-root DIR where the scratch and cache directories go (default\n"
	       "                     $TMPDIR/kgb-<pid>, removed at the end); the sandbox hides\n"
	       "                     everything else in it\n"
	       "  --report FILE      write what the sandbox applied, as JSON, to FILE\n");
}

struct exec_opts {
	enum sandbox_mode mode;
	const char *platform;
	const char *scratch_root;
	const char *report;
	double timeout_s;
	unsigned long long cpu_s, memory_mib, procs, file_mib, scratch_mib, cache_mib;
};

static int parse_args(int argc, char **argv, struct exec_opts *o)
{
	enum {
		OPT_SANDBOX = 0x100,
		OPT_PLATFORM,
		OPT_TIMEOUT,
		OPT_CPU,
		OPT_MEMORY,
		OPT_PROCS,
		OPT_FILE_SIZE,
		OPT_SCRATCH_SIZE,
		OPT_CACHE_SIZE,
		OPT_SCRATCH_ROOT,
		OPT_REPORT,
	};
	static const struct option opts[] = {
		{"sandbox", required_argument, NULL, OPT_SANDBOX},
		{"platform", required_argument, NULL, OPT_PLATFORM},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"cpu", required_argument, NULL, OPT_CPU},
		{"memory", required_argument, NULL, OPT_MEMORY},
		{"procs", required_argument, NULL, OPT_PROCS},
		{"file-size", required_argument, NULL, OPT_FILE_SIZE},
		{"scratch-size", required_argument, NULL, OPT_SCRATCH_SIZE},
		{"cache-size", required_argument, NULL, OPT_CACHE_SIZE},
		{"scratch-root", required_argument, NULL, OPT_SCRATCH_ROOT},
		{"report", required_argument, NULL, OPT_REPORT},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	unsigned long long *num;
	int c;

	o->mode = SANDBOX_AUTO;
	o->platform = "interpreter";
	o->timeout_s = 60;
	/* '+': the command's own options are not ours. */
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SANDBOX:
			o->mode = sandbox_mode_from_string(optarg);
			if (o->mode < 0)
				return kgb_usage_error("sandbox-exec", "--sandbox: expected auto, "
						       "strict or off, got '%s'", optarg);
			break;
		case OPT_PLATFORM:
			if (!platform_is_known(optarg))
				return kgb_usage_error("sandbox-exec",
						       "unknown platform '%s' (cuda, interpreter)",
						       optarg);
			o->platform = optarg;
			break;
		case OPT_TIMEOUT:
			if (parse_double(optarg, &o->timeout_s) < 0 || !(o->timeout_s > 0))
				return kgb_usage_error("sandbox-exec",
						       "--timeout: expected seconds > 0, got '%s'",
						       optarg);
			break;
		case OPT_CPU:
		case OPT_MEMORY:
		case OPT_PROCS:
		case OPT_FILE_SIZE:
		case OPT_SCRATCH_SIZE:
		case OPT_CACHE_SIZE:
			num = c == OPT_CPU ? &o->cpu_s
			      : c == OPT_MEMORY ? &o->memory_mib
			      : c == OPT_PROCS ? &o->procs
			      : c == OPT_FILE_SIZE ? &o->file_mib
			      : c == OPT_SCRATCH_SIZE ? &o->scratch_mib
						 : &o->cache_mib;
			if (parse_ull(optarg, num) < 0 || !*num || *num > (1ULL << 30))
				return kgb_usage_error("sandbox-exec", "expected a number > 0, got "
						       "'%s'", optarg);
			break;
		case OPT_SCRATCH_ROOT:
			if (optarg[0] != '/')
				return kgb_usage_error("sandbox-exec",
						       "--scratch-root: expected an absolute path, "
						       "got '%s'", optarg);
			o->scratch_root = optarg;
			break;
		case OPT_REPORT:
			o->report = optarg;
			break;
		case 'h':
			usage();
			return -1;
		default:
			return kgb_usage_error("sandbox-exec", "unknown option");
		}
	}
	if (optind >= argc)
		return kgb_usage_error("sandbox-exec", "expected a command after the options");
	return 0;
}

int cmd_sandbox_exec(int argc, char **argv, struct kgb_ctx *ctx)
{
	struct exec_opts o = {0};
	struct sched_opts so = {0};
	struct sched_exec_result res = {0};
	struct strbuf scratch = STRBUF_INIT, err = STRBUF_INIT;
	struct sandbox *box = NULL;
	struct kgb_sandbox_view view = {0};
	json_t *report = NULL;
	char *python = NULL;
	bool own_root;
	int r, ret = KGB_EXIT_ENV;

	r = parse_args(argc, argv, &o);
	if (r != 0)
		return r < 0 ? KGB_EXIT_OK : r;
	own_root = !o.scratch_root;
	if (own_root) {
		const char *tmp = getenv("TMPDIR");

		strbuf_addf(&scratch, "%s/kgb-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
	} else {
		strbuf_addstr(&scratch, o.scratch_root);
	}
	box = sandbox_new(o.mode);
	so.slots = 1;
	so.timeout_s = o.timeout_s;
	so.env = environ;
	so.scratch_root = scratch.buf;
	so.box = box;
	sched_default_limits(&so.limits, o.platform, o.timeout_s, 1);
	if (o.cpu_s)
		so.limits.cpu_s = o.cpu_s;
	if (o.memory_mib)
		so.limits.memory_bytes = o.memory_mib << 20;
	if (o.procs)
		so.limits.procs = (unsigned long)o.procs;
	if (o.file_mib)
		so.limits.file_bytes = o.file_mib << 20;
	if (o.scratch_mib)
		so.limits.scratch_bytes = o.scratch_mib << 20;
	if (o.cache_mib)
		so.limits.cache_bytes = o.cache_mib << 20;
	/* What eval's workers see, for the Python eval would run (KGB_PYTHON, .venv, python3). */
	python = platform_python(ctx->root);
	kgb_sandbox_view_init(&view, ctx->root, python, o.platform, "sandbox-exec");
	kgb_sandbox_view_apply(&view, &so);
	report = kgb_sandbox_probe(&so, o.mode, NULL, "sandbox-exec");
	if (!report)
		goto out;
	if (o.report && json_dump_file(report, o.report, JSON_COMPACT) < 0) {
		fprintf(stderr, "kgb sandbox-exec: cannot write '%s'\n", o.report);
		goto out;
	}
	fflush(stdout);
	r = sched_exec(&so, argv + optind, &res, &err);
	if (r < 0) {
		fprintf(stderr, "kgb sandbox-exec: %s\n", err.buf);
		goto out;
	}
	if (res.over_quota) {
		fprintf(stderr, "kgb sandbox-exec: %s\n", res.detail.buf);
		ret = 125;
	} else if (res.timed_out) {
		fprintf(stderr, "kgb sandbox-exec: %s\n", res.detail.buf);
		ret = 124;
	} else if (WIFSIGNALED(res.status)) {
		fprintf(stderr, "kgb sandbox-exec: %s\n", res.detail.buf);
		ret = 128 + WTERMSIG(res.status);
	} else {
		ret = WEXITSTATUS(res.status);
	}
out:
	if (own_root)
		rm_rf(scratch.buf);
	json_decref(report);
	sandbox_free(box);
	kgb_sandbox_view_release(&view);
	free(python);
	strbuf_release(&res.detail);
	strbuf_release(&scratch);
	strbuf_release(&err);
	return ret;
}
