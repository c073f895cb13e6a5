#include "sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/parse.h"
#include "util/xalloc.h"

/* The hard CPU limit is this much above the soft one: SIGXCPU first, SIGKILL if ignored. */
#define SANDBOX_CPU_GRACE_S 5
/* The fresh /dev/shm: POSIX shared memory and semaphores of one worker. */
#define SANDBOX_SHM_BYTES (64ULL << 20)
#define SANDBOX_DEFAULT_SCRATCH_BYTES (1ULL << 30)
/* How often sandbox_reap() measures a child's cache against its cap. */
#define SANDBOX_QUOTA_PERIOD_S 0.2
/* Exit statuses of a child that stops before exec (kgb's own, not the worker's). */
#define SANDBOX_EXIT_SETUP 126
#define SANDBOX_EXIT_EXEC 127

struct sandbox {
	enum sandbox_mode mode;
	struct sock_filter *filter; /* the seccomp program, or NULL (seccomp_why says why) */
	unsigned short filter_len;
	char seccomp_why[SANDBOX_REASON_MAX];
	struct sock_filter *unix_filter; /* connect, bind, datagram sockets; or NULL (unix_why) */
	unsigned short unix_filter_len;
	char unix_why[SANDBOX_REASON_MAX];
	char *cgroup_dir; /* where workers' pids cgroups go, or NULL (cgroup_why says why) */
	char cgroup_why[SANDBOX_REASON_MAX];
	char *memcg_dir; /* where their memory cgroups go, or NULL (memcg_why says why) */
	char memcg_why[SANDBOX_REASON_MAX];
	bool memcg_v2;
	unsigned long seq;
	unsigned skip;	 /* 1 << facility: left out on request (sandbox_skip) */
	unsigned broken; /* 1 << facility: left out because the platform fails with it */
};

static const char *const mode_names[] = {"off", "auto", "strict", NULL};

static const char *const facility_names[_SANDBOX_FACILITY_MAX] = {
	[SANDBOX_USERNS] = "userns",
	[SANDBOX_NETNS] = "netns",
	[SANDBOX_MNTNS] = "mntns",
	[SANDBOX_READONLY_FS] = "readonly_fs",
	[SANDBOX_PRIVATE_SCRATCH] = "private_scratch",
	[SANDBOX_NPROC] = "nproc",
	[SANDBOX_MEMORY] = "memory",
	[SANDBOX_RLIMITS] = "rlimits",
	[SANDBOX_CAPS] = "caps",
	[SANDBOX_NO_NEW_PRIVS] = "no_new_privs",
	[SANDBOX_SECCOMP] = "seccomp",
	[SANDBOX_PIDNS] = "pidns",
	[SANDBOX_MIN_DEV] = "min_dev",
	[SANDBOX_MEMCG] = "memcg",
	[SANDBOX_UNIX_SOCKETS] = "unix_sockets",
	[SANDBOX_HIDDEN_PATHS] = "hidden_paths",
	[SANDBOX_CLEAN_ENV] = "clean_env",
	[SANDBOX_CACHE_CAP] = "cache_cap",
};

/*
 * A minimal /dev has these (and the platform's, opts.dev_nodes), a fresh /dev/shm, and the
 * fd, stdin, stdout and stderr links to /proc/self/fd; nothing else of the host's /dev: no
 * terminal (/dev/tty, pts, console), no disk or loop device, no /dev/kmsg, /dev/mem or
 * /dev/fuse.
 */
const char *const sandbox_dev_base[] = {"null", "zero", "full", "random", "urandom", NULL};

/*
 * Covered in every worker, unless a path the worker needs lies below (opts.visible, bound back):
 * users' homes, password and group hashes, sudo rules, host keys and TLS private keys,
 * backups of /etc/shadow, mail, spools and logs, /run (service sockets and secrets), and the
 * temporary directories (other users' files, other kgb runs' scratch and caches, X11 and other
 * sockets; a worker's TMPDIR is its own scratch).
 */
const char *const sandbox_hidden_default[] = {
	"/root", "/home", "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private", "/var/backups",
	"/var/mail", "/var/spool", "/var/log", "/run", "/var/run", "/tmp", "/var/tmp", NULL,
};

/*
 * What Python, torch, Triton, CUDA and the runtime read: the search path and locale, Python's
 * own settings (PYTHONPATH, the bytecode cache), Triton's, torch's, CUDA's and NVIDIA's, the
 * loader path, the compilers Triton runs, OpenMP and BLAS threads, and kgb's GPU lock. HOME
 * and TMPDIR are set to the worker's scratch. Not kept: whatever else kgb was started with
 * (API keys, tokens, the store's path, SSH agent sockets, LD_PRELOAD, ...).
 */
const char *const sandbox_env_default[] = {
	"PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "LC_*", "TZ", "PYTHON*", "TRITON_*",
	"TORCH_*", "TORCHINDUCTOR_*", "PYTORCH_*", "CUDA_*", "NVIDIA_*", "LD_LIBRARY_PATH",
	"CC", "CXX", "OMP_*", "MKL_*", "OPENBLAS_*", "KGB_GPU_LOCK", NULL,
};

enum sandbox_mode sandbox_mode_from_string(const char *s)
{
	for (int i = 0; mode_names[i]; i++)
		if (!strcmp(mode_names[i], s))
			return (enum sandbox_mode)i;
	return _SANDBOX_MODE_INVALID;
}

const char *sandbox_mode_to_string(enum sandbox_mode m)
{
	return m >= 0 && m < _SANDBOX_MODE_MAX ? mode_names[m] : "invalid";
}

const char *sandbox_facility_name(enum sandbox_facility f)
{
	return f < _SANDBOX_FACILITY_MAX ? facility_names[f] : "invalid";
}

void sandbox_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- the seccomp program, built once per run in the parent ---- */

/*
 * Calls no worker needs (python, torch, Triton and the compilers it runs), which a candidate
 * could use to reach other processes, the kernel's attack surface or the host: each fails with
 * EPERM. perf_event_open stays allowed: profilers may use it, and it reads only this process
 * tree's counters at the default perf_event_paranoid.
 */
static const char *const denied_calls[] = {
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	"mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
	"fsconfig", "fsmount", "fspick", "mount_setattr", "unshare", "setns", "bpf",
	"userfaultfd", "kexec_load", "kexec_file_load", "init_module", "finit_module",
	"delete_module", "keyctl", "add_key", "request_key", "reboot", "swapon", "swapoff",
	"acct", "syslog", "name_to_handle_at", "open_by_handle_at", "iopl", "ioperm",
	/* io_uring can open sockets and connect without the socket() call filtered below. */
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	NULL,
};

/* Namespace flags of clone(2); unshare is denied outright, clone only with these. */
static const unsigned long long ns_clone_flags[] = {
	CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWIPC, CLONE_NEWUTS,
	CLONE_NEWCGROUP,
};

/* Exports ctx's BPF program into *ret (malloc'd); what failed goes into *ret_what. */
static int seccomp_export(scmp_filter_ctx ctx, struct sock_filter **ret, unsigned short *ret_len,
			  const char **ret_what)
{
	int r, fd;
	off_t size;

	*ret_what = "exporting the filter";
	fd = memfd_create("kgb-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		goto out;
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS) {
		r = -EINVAL;
		goto out;
	}
	*ret = xmalloc((size_t)size);
	if (pread(fd, *ret, (size_t)size, 0) != size) {
		r = -EIO;
		free(*ret);
		*ret = NULL;
		goto out;
	}
	*ret_len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
out:
	close(fd);
	return r;
}

static int seccomp_build(struct sandbox *box)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	const char *what = "seccomp_init";
	int r = -ENOMEM;

	if (!ctx)
		goto fail;
	/*
	 * System calls of another ABI (i386's int 0x80 on x86-64) would skip the rules below,
	 * which name native numbers: they kill the whole worker.
	 */
	what = "SCMP_FLTATR_ACT_BADARCH";
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		goto fail;
	for (const char *const *n = denied_calls; *n; n++) {
		int nr = seccomp_syscall_resolve_name(*n);

		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture or this libseccomp */
		what = *n;
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (r < 0)
			goto fail;
	}
	/* Unix sockets are how local libraries talk (and harmless in an empty netns); no other. */
	what = "socket";
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
			     SCMP_A0(SCMP_CMP_NE, AF_UNIX));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 1,
				     SCMP_A0(SCMP_CMP_NE, AF_UNIX));
	if (r < 0)
		goto fail;
	what = "clone";
	for (size_t i = 0; i < ARRAY_SIZE(ns_clone_flags); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, ns_clone_flags[i],
					     ns_clone_flags[i]));
		if (r < 0)
			goto fail;
	}
	/*
	 * clone3 passes its flags in memory a filter cannot read: ENOSYS makes glibc (posix_spawn,
	 * pthread_create) fall back to clone, whose flags it can.
	 */
	if (seccomp_syscall_resolve_name("clone3") != __NR_SCMP_ERROR) {
		what = "clone3";
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
				     seccomp_syscall_resolve_name("clone3"), 0);
		if (r < 0)
			goto fail;
	}
	r = seccomp_export(ctx, &box->filter, &box->filter_len, &what);
	if (r < 0)
		goto fail;
	seccomp_release(ctx);
	return 0;
fail:
	snprintf(box->seccomp_why, sizeof(box->seccomp_why), "libseccomp: %s: %s", what,
		 strerror(r < 0 ? -r : ENOMEM));
	if (ctx)
		seccomp_release(ctx);
	return r;
}

/*
 * The unix_sockets filter. A Unix socket reaches a listener of the host through its path in
 * the file system (the network namespace covers only abstract names), and a read-only mount
 * does not stop connect(): only write permission on the socket inode counts. A filter cannot
 * read the address connect() is given, so nothing is reached at all: connect() fails for every
 * socket (the main filter lets only AF_UNIX ones exist) with ENOENT, what a socket path that
 * is not there gives, because CUDA asks for the MPS daemon's socket and takes it as absent;
 * and so do datagram sockets (SOCK_DGRAM, and SOCK_RAW, which Unix sockets treat as one),
 * whose sendto()/sendmsg() take a destination path without connect(). bind() stays: CUDA
 * binds an abstract name of its own (bench/results/h200-2026-12-06), which only the worker's
 * network namespace sees, and a path can only be bound where the worker may write, its
 * scratch; with connect() refused in every worker, nothing reaches either listener. What is
 * left, socketpair()s and listeners of streams and sequenced packets, connects nothing
 * outside the worker (bench/sandbox-contain.sh checks that CUDA starts under it).
 */
static int seccomp_build_unix(struct sandbox *box)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	static const int types[] = {SOCK_DGRAM, SOCK_RAW};
	const char *what = "seccomp_init";
	int r = -ENOMEM;

	if (!ctx)
		goto fail;
	what = "SCMP_FLTATR_ACT_BADARCH";
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		goto fail;
	what = "connect";
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(connect), 0);
	if (r < 0)
		goto fail;
	/* sendto() with a destination: no datagram socket exists to use it; refused all the same. */
	what = "sendto";
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sendto), 1,
			     SCMP_A4(SCMP_CMP_NE, 0));
	if (r < 0)
		goto fail;
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		/* The type's low bits; SOCK_CLOEXEC and SOCK_NONBLOCK are above them. */
		what = "socket";
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, types[i]));
		if (r < 0)
			goto fail;
		what = "socketpair";
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, types[i]));
		if (r < 0)
			goto fail;
	}
	r = seccomp_export(ctx, &box->unix_filter, &box->unix_filter_len, &what);
	if (r < 0)
		goto fail;
	seccomp_release(ctx);
	return 0;
fail:
	snprintf(box->unix_why, sizeof(box->unix_why), "libseccomp: %s: %s", what,
		 strerror(r < 0 ? -r : ENOMEM));
	if (ctx)
		seccomp_release(ctx);
	return r;
}

/* ---- the pids cgroup ---- */

/* Whether the comma-separated list contains the word. */
static bool list_has(const char *list, size_t len, const char *word)
{
	size_t wl = strlen(word);

	for (size_t i = 0; i < len;) {
		size_t j = i;

		while (j < len && list[j] != ',' && list[j] != ' ' && list[j] != '\n')
			j++;
		if (j - i == wl && !memcmp(list + i, word, wl))
			return true;
		i = j + 1;
	}
	return false;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

struct mountinfo_line {
	char *root, *mountpoint, *fstype, *super_opts; /* point into the line, unescaped */
};

/* Splits one /proc/self/mountinfo line in place; false when malformed. */
static bool mountinfo_parse(char *line, struct mountinfo_line *m)
{
	char *f[6] = {0}, *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(line, " ", &save); tok && n < 6; tok = strtok_r(NULL, " ", &save))
		f[n++] = tok;
	if (n < 6)
		return false;
	m->root = f[3];
	m->mountpoint = f[4];
	/* Optional fields end at "-"; then fstype, source, super options. */
	while (tok && strcmp(tok, "-"))
		tok = strtok_r(NULL, " ", &save);
	if (!tok)
		return false;
	m->fstype = strtok_r(NULL, " ", &save);
	(void)strtok_r(NULL, " ", &save);
	m->super_opts = strtok_r(NULL, " \n", &save);
	if (!m->fstype || !m->super_opts)
		return false;
	unescape_octal(m->root);
	unescape_octal(m->mountpoint);
	return true;
}

/*
 * This process's cgroup directory of a controller ("pids", "memory"): cgroup v1's hierarchy of
 * it, else cgroup v2 when the controller is delegated to our children (*ret_v2 then true).
 * NULL with *why set otherwise.
 */
static char *cgroup_dir_of(const char *controller, bool *ret_v2, struct strbuf *why)
{
	struct strbuf cg = STRBUF_INIT, mi = STRBUF_INIT, sb = STRBUF_INIT;
	char *v1_path = NULL, *v2_path = NULL, *dir = NULL, *save = NULL;
	bool v2 = false;

	*ret_v2 = false;
	if (strbuf_read_file(&cg, "/proc/self/cgroup", 1 << 20) < 0 ||
	    strbuf_read_file(&mi, "/proc/self/mountinfo", 4 << 20) < 0) {
		strbuf_addstr(why, "cannot read /proc/self/cgroup or mountinfo");
		goto out;
	}
	for (char *l = strtok_r(cg.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		if (c2 == c1 + 1 && !strncmp(l, "0:", 2))
			v2_path = c2 + 1;
		else if (list_has(c1 + 1, (size_t)(c2 - c1 - 1), controller))
			v1_path = c2 + 1;
	}
	save = NULL;
	for (char *l = strtok_r(mi.buf, "\n", &save); l && !dir; l = strtok_r(NULL, "\n", &save)) {
		struct mountinfo_line m;
		const char *path;
		size_t rl;

		if (!mountinfo_parse(l, &m))
			continue;
		if (v1_path && !strcmp(m.fstype, "cgroup") &&
		    list_has(m.super_opts, strlen(m.super_opts), controller))
			path = v1_path;
		else if (!v1_path && v2_path && !strcmp(m.fstype, "cgroup2"))
			path = v2_path, v2 = true;
		else
			continue;
		/* The mount shows the hierarchy from m.root down (a container sees its own). */
		rl = strcmp(m.root, "/") ? strlen(m.root) : 0;
		if (rl && (strncmp(path, m.root, rl) || (path[rl] && path[rl] != '/')))
			continue;
		strbuf_addf(&sb, "%s%s", m.mountpoint, path + rl);
		dir = strbuf_detach(&sb, NULL);
	}
	if (!dir) {
		strbuf_addf(why, "no %s cgroup hierarchy mounted", controller);
		goto out;
	}
	if (v2) {
		struct strbuf ctl = STRBUF_INIT;
		char *p = path_join(dir, "cgroup.subtree_control");
		bool ok = strbuf_read_file(&ctl, p, 4096) == 0 &&
			  list_has(ctl.buf, ctl.len, controller);

		free(p);
		strbuf_release(&ctl);
		if (!ok) {
			strbuf_addf(why, "cgroup v2 '%s' does not delegate %s", dir, controller);
			free(dir);
			dir = NULL;
		}
	}
	*ret_v2 = v2 && dir;
out:
	strbuf_release(&cg);
	strbuf_release(&mi);
	return dir;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n != (ssize_t)len)
		r = n < 0 ? -errno : -EIO;
	close(fd);
	return r;
}

/* SIGKILL to every task listed in a cgroup; the number of tasks seen. */
static int cgroup_kill_all(const char *cgroup)
{
	struct strbuf sb = STRBUF_INIT;
	char *procs = path_join(cgroup, "cgroup.procs"), *save = NULL;
	int n = 0;

	if (strbuf_read_file(&sb, procs, 1 << 20) == 0) {
		for (char *l = strtok_r(sb.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			long pid;

			if (parse_long(l, &pid) == 0 && pid > 1) {
				kill((pid_t)pid, SIGKILL);
				n++;
			}
		}
	}
	free(procs);
	strbuf_release(&sb);
	return n;
}

/* Kills what is left in a worker's cgroup and removes it; a few tries while tasks exit. */
static void cgroup_remove(const char *cgroup)
{
	for (int i = 0; i < 200; i++) {
		struct timespec ts = {0, 1000000};

		cgroup_kill_all(cgroup);
		if (rmdir(cgroup) == 0 || errno == ENOENT)
			return;
		if (errno != EBUSY)
			return;
		/* Killed tasks leave the cgroup once their parent (init) has reaped them. */
		nanosleep(&ts, NULL);
	}
}

/* Removes the cgroups "kgb-<pid>-..." of kgb processes that are gone (killed with -9). */
static void cgroup_remove_stale(const char *dir)
{
	char **names = NULL;

	if (list_dir_sorted(dir, &names) < 0)
		return;
	for (char **n = names; *n; n++) {
		const char *p = *n + 4;
		long pid = 0;

		if (strncmp(*n, "kgb-", 4) || !(*p >= '0' && *p <= '9'))
			continue;
		while (*p >= '0' && *p <= '9')
			pid = pid * 10 + (*p++ - '0');
		if (*p != '-' || pid <= 0 || pid == getpid() ||
		    (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		{
			char *path = path_join(dir, *n);
			cgroup_remove(path);
			free(path);
		}
	}
	strv_free(names);
}

/*
 * Where workers' cgroups of `controller` go: a directory of this process's own cgroup of it
 * where kgb may make one and write `value` to `file` in it (tried on a probe cgroup, removed
 * again). NULL, with why[] saying why, where it may not (no such hierarchy, not writable).
 * Stale cgroups of dead kgb processes are removed from it first.
 */
static char *cgroup_probe(const char *controller, const char *what, const char *file_v1,
			  const char *file_v2, const char *value_v1, const char *value_v2,
			  bool *ret_v2, char why[SANDBOX_REASON_MAX])
{
	struct strbuf err = STRBUF_INIT, probe = STRBUF_INIT;
	bool v2;
	char *dir = cgroup_dir_of(controller, &v2, &err), *file;
	int r;

	if (!dir) {
		snprintf(why, SANDBOX_REASON_MAX, "%s", err.buf);
		strbuf_release(&err);
		return NULL;
	}
	cgroup_remove_stale(dir);
	strbuf_addf(&probe, "%s/kgb-%ld-%sprobe", dir, (long)getpid(), controller);
	file = path_join(probe.buf, v2 ? file_v2 : file_v1);
	if (mkdir(probe.buf, 0755) < 0 && errno != EEXIST) {
		r = -errno;
	} else {
		r = write_file(file, v2 ? value_v2 : value_v1);
		rmdir(probe.buf);
	}
	if (r < 0) {
		snprintf(why, SANDBOX_REASON_MAX, "cannot create a %s cgroup in '%s': %s", what,
			 dir, strerror(-r));
		free(dir);
		dir = NULL;
	}
	free(file);
	strbuf_release(&probe);
	strbuf_release(&err);
	*ret_v2 = v2;
	return dir;
}

static void cgroup_setup(struct sandbox *box)
{
	bool v2;

	box->cgroup_dir = cgroup_probe("pids", "pids", "pids.max", "pids.max", "max", "max", &v2,
				       box->cgroup_why);
}

/* The memory limit's file, and the swap limit's (absent where swap is not accounted). */
static const char *memcg_limit_file(bool v2)
{
	return v2 ? "memory.max" : "memory.limit_in_bytes";
}

static const char *memcg_swap_file(bool v2)
{
	return v2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes";
}

/*
 * Where workers' memory cgroups go: as for pids, a directory of this process's own memory
 * cgroup where kgb may make one and set its limit (cgroup v1 with a writable memory hierarchy,
 * as on the CPU machine, or v2 delegating memory).
 */
static void memcg_setup(struct sandbox *box)
{
	box->memcg_dir = cgroup_probe("memory", "memory", memcg_limit_file(false),
				      memcg_limit_file(true), "-1", "max", &box->memcg_v2,
				      box->memcg_why);
}

struct sandbox *sandbox_new(enum sandbox_mode mode)
{
	struct sandbox *box = xcalloc(1, sizeof(*box));

	box->mode = mode;
	if (mode == SANDBOX_OFF)
		return box;
	(void)seccomp_build(box);
	(void)seccomp_build_unix(box);
	cgroup_setup(box);
	memcg_setup(box);
	return box;
}

void sandbox_free(struct sandbox *box)
{
	if (!box)
		return;
	free(box->filter);
	free(box->unix_filter);
	free(box->cgroup_dir);
	free(box->memcg_dir);
	free(box);
}

int sandbox_skip(struct sandbox *box, const char *list, struct strbuf *err)
{
	const char *p = list;

	while (p && *p) {
		size_t n = strcspn(p, ",");
		int f;

		for (f = 0; f < _SANDBOX_FACILITY_MAX; f++)
			if (strlen(facility_names[f]) == n && !strncmp(p, facility_names[f], n))
				break;
		if (f == _SANDBOX_FACILITY_MAX) {
			strbuf_addf(err, "unknown sandbox facility '%.*s' (expected one of", (int)n,
				    p);
			for (f = 0; f < _SANDBOX_FACILITY_MAX; f++)
				strbuf_addf(err, " %s", facility_names[f]);
			strbuf_addch(err, ')');
			return -EINVAL;
		}
		box->skip |= 1U << f;
		p += n + (p[n] == ',');
	}
	return 0;
}

void sandbox_set_broken(struct sandbox *box, enum sandbox_facility f, bool broken)
{
	if (broken)
		box->broken |= 1U << f;
	else
		box->broken &= ~(1U << f);
}

bool sandbox_is_skipped(const struct sandbox *box, enum sandbox_facility f)
{
	return box && ((box->skip | box->broken) & (1U << f));
}

static bool skipped(const struct sandbox *box, enum sandbox_facility f)
{
	return sandbox_is_skipped(box, f);
}

enum sandbox_mode sandbox_mode(const struct sandbox *box)
{
	return box ? box->mode : SANDBOX_OFF;
}

/* ---- the child, between fork and exec ---- */

/* The most device nodes, and hidden plus visible paths, one worker gets (the child's arrays). */
#define SANDBOX_MAX_DEV 64
#define SANDBOX_MAX_FS 64

/* One step of the filesystem view: cover `path` (hide) or bind it back from kgb's view. */
struct fs_op {
	char *path; /* absolute, resolved (realpath) */
	bool hide, dir;
};

/* What the parent prepares so that the child only makes system calls. */
struct plan {
	char **mounts;		  /* mount points of kgb's namespace, in mount order */
	char uid_map[64], gid_map[64];
	char scratch_opts[64], shm_opts[64];
	const char *cgroup_procs; /* the worker's cgroup.procs, or NULL */
	const char *memcg_procs;  /* its memory cgroup's, when a directory of its own, or NULL */
	bool memcg;		  /* a memory cgroup was made (v2: the pids cgroup is it) */
	bool memcg_v2;
	char *const *envp;	  /* what the worker is started with (clean_env: reduced) */
	bool env_clean;
	char **dev;		  /* the device nodes of its /dev (absolute), or NULL */
	size_t ndev;
	bool dev_overflow;
	struct fs_op fs[SANDBOX_MAX_FS]; /* in mount order: by path length */
	size_t nfs;
	bool fs_overflow;
	bool quota;		  /* kgb checks its cache's size */
};

static void rep_set(struct sandbox_report *r, enum sandbox_facility f, enum sandbox_state s,
		    const char *what, const char *arg, int err)
{
	char *o = r->reason[f];
	size_t n = 0, cap = SANDBOX_REASON_MAX - 1;
	/*
	 * strerrordesc_np, not strerror: this runs in the child between fork and exec, and kgb
	 * serve forks from a multithreaded process, where strerror's translation could wait on a
	 * gettext lock that another thread held at the fork. strerrordesc_np (glibc 2.32) is
	 * async-signal-safe: a constant, untranslated string (NULL for an unknown errno).
	 */
	const char *parts[6] = {what, arg ? " '" : NULL, arg, arg ? "'" : NULL,
				err ? ": " : NULL, err ? strerrordesc_np(err) : NULL};

	/* The first failure of a facility is the one worth reporting. */
	if (r->state[f] == SANDBOX_STATE_UNAVAILABLE)
		return;
	r->state[f] = (unsigned char)s;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		for (const char *p = parts[i]; p && *p && n < cap; p++)
			o[n++] = *p;
	o[n] = '\0';
}

static void set_limit(int resource, unsigned long long soft, unsigned long long hard)
{
	struct rlimit rl = {.rlim_cur = soft, .rlim_max = hard};

	(void)setrlimit(resource, &rl);
}

/* mkdir -p without allocation; 0 or an errno value. */
static int child_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);
	struct stat st;

	if (len >= sizeof(buf))
		return ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST &&
		    !(stat(buf, &st) == 0 && S_ISDIR(st.st_mode)))
			return errno;
		if (i < len)
			buf[i] = '/';
	}
	return 0;
}

/*
 * The per-mount flags of a mount, which a bind remount in a user namespace must keep.
 * *ret_rdonly is also true for a mount point this process cannot reach: it cannot write there.
 */
static unsigned long mount_flags_of(const char *path, bool *ret_rdonly)
{
	struct statfs sf;
	unsigned long f = 0;

	*ret_rdonly = true;
	if (statfs(path, &sf) < 0)
		return 0;
	*ret_rdonly = sf.f_flags & ST_RDONLY;
	f |= sf.f_flags & ST_NOSUID ? MS_NOSUID : 0;
	f |= sf.f_flags & ST_NODEV ? MS_NODEV : 0;
	f |= sf.f_flags & ST_NOEXEC ? MS_NOEXEC : 0;
	f |= sf.f_flags & ST_NOATIME ? MS_NOATIME : 0;
	f |= sf.f_flags & ST_NODIRATIME ? MS_NODIRATIME : 0;
	f |= sf.f_flags & ST_RELATIME ? MS_RELATIME : 0;
	if (!(sf.f_flags & (ST_NOATIME | ST_RELATIME)))
		f |= MS_STRICTATIME;
	return f;
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* "/proc/self/fd/N" for a bind mount from an fd opened before the paths were covered. */
static void fd_path(char out[32], int fd)
{
	char digits[12];
	int n = 0;

	memcpy(out, "/proc/self/fd/", 14);
	do
		digits[n++] = (char)('0' + fd % 10);
	while ((fd /= 10) > 0);
	for (int i = 0; i < n; i++)
		out[14 + i] = digits[n - 1 - i];
	out[14 + n] = '\0';
}

/*
 * The parts of a fresh /proc that act on the whole machine, not on the worker's processes: the
 * sysctls (whose permission check is the global root uid, which a worker run by root is, mapped
 * to itself), the magic SysRq key, interrupt affinities, bus devices, file system settings; and
 * ACPI's wakeup devices, written with no capability either.
 */
static const char *const proc_readonly[] = {
	"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs", "/proc/acpi",
};

/*
 * Mounts a procfs of the worker's pid namespace over the host's /proc and makes proc_readonly[]
 * read-only in it. It stays writable otherwise: CUDA does not start under a read-only /proc
 * (docs/security.md), and what is left writable there acts only on this namespace's processes.
 * Without it, the host's /proc stays (read-only under readonly_fs), and pidns is unavailable:
 * it would show every process of the machine. The kernel refuses the mount (EPERM) in a user
 * namespace whose /proc has parts covered, as containers' have.
 */
static void child_fresh_proc(struct sandbox_report *rep)
{
	const unsigned long f = MS_NOSUID | MS_NODEV | MS_NOEXEC;

	if (mount("proc", "/proc", "proc", f, NULL) < 0) {
		rep_set(rep, SANDBOX_PIDNS, SANDBOX_STATE_UNAVAILABLE,
			"no fresh /proc (the host's stays): mount -t proc", NULL, errno);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(proc_readonly); i++) {
		const char *path = proc_readonly[i];
		int e;

		if (access(path, F_OK) < 0)
			continue;
		if (mount(path, path, NULL, MS_BIND, NULL) == 0 &&
		    mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | f, NULL) == 0)
			continue;
		e = errno;
		/* A writable /proc/sys is worse than the host's read-only /proc: back to that. */
		umount2("/proc", MNT_DETACH);
		rep_set(rep, SANDBOX_PIDNS, SANDBOX_STATE_UNAVAILABLE,
			"no fresh /proc (the host's stays): cannot make read-only", path, e);
		return;
	}
}

/* An empty file or directory to mount on, with its parents; 0 or an errno value. */
static int child_mountpoint(const char *path, bool dir)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);
	char *slash;
	int fd, e;

	if (dir)
		return child_mkdir_p(path);
	/* An existing file is one already: never opened (it may be a FIFO, or read-only). */
	if (access(path, F_OK) == 0)
		return 0;
	if (len >= sizeof(buf))
		return ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	slash = strrchr(buf, '/');
	if (slash && slash != buf) {
		*slash = '\0';
		e = child_mkdir_p(buf);
		if (e)
			return e;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* A bind mount of an fd opened before the paths were covered; 0 or an errno value. */
static int child_bind_fd(int fd, const char *target, bool dir, bool rdonly)
{
	char src[32];
	int e = child_mountpoint(target, dir);

	if (e)
		return e;
	fd_path(src, fd);
	if (mount(src, target, NULL, MS_BIND, NULL) < 0)
		return errno;
	if (rdonly && mount(NULL, target, NULL,
			    MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
		return errno;
	return 0;
}

/*
 * hidden_paths: p->fs in order (shorter paths first, so that nesting works both ways). A hidden
 * directory gets an empty tmpfs, writable for now: the mount points of what is bound back below
 * it, and of the worker's own directories, are made in it; child_mounts() makes it read-only
 * last. A hidden file gets /dev/null bound over it, read-only. A path that no longer shows (it
 * lies below another one hidden) is hidden already.
 */
static void child_hide(const struct plan *p, const int *vfd, const int *verr, int null_fd,
		       struct sandbox_report *rep)
{
	for (size_t i = 0; i < p->nfs; i++) {
		const struct fs_op *op = &p->fs[i];
		int e = 0;

		if (!op->hide)
			e = vfd[i] < 0 ? verr[i] : child_bind_fd(vfd[i], op->path, op->dir, true);
		else if (access(op->path, F_OK) < 0 && errno == ENOENT)
			continue;
		else if (op->dir)
			e = mount("tmpfs", op->path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
				  "size=1m,nr_inodes=4096,mode=0755") < 0
				    ? errno
				    : 0;
		else
			e = null_fd < 0 ? EBADF : child_bind_fd(null_fd, op->path, false, true);
		if (e)
			rep_set(rep, SANDBOX_HIDDEN_PATHS, SANDBOX_STATE_UNAVAILABLE,
				op->hide ? "cannot hide" : "cannot bind back", op->path, e);
	}
}

/* The hidden directories' tmpfs read-only, once every mount point below them is made. */
static void child_hide_seal(const struct plan *p, struct sandbox_report *rep)
{
	for (size_t i = 0; i < p->nfs; i++) {
		const struct fs_op *op = &p->fs[i];

		if (!op->hide || !op->dir || access(op->path, F_OK) < 0)
			continue;
		if (mount(NULL, op->path, NULL,
			  MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  NULL) < 0 &&
		    errno != EINVAL) /* EINVAL: not a mount point, nothing was mounted there */
			rep_set(rep, SANDBOX_HIDDEN_PATHS, SANDBOX_STATE_UNAVAILABLE,
				"cannot make read-only", op->path, errno);
	}
}

/*
 * min_dev: a tmpfs over /dev with the nodes of p->dev bound in from the host's (opened before,
 * as dfd), the fd/stdin/stdout/stderr links and an empty shm/ (the fresh /dev/shm goes there),
 * then read-only. In a user namespace a tmpfs is nodev and mknod is refused: binding the host's
 * nodes is the only way in. Where one fails, the host's /dev comes back whole: a /dev without a
 * node the platform needs (CUDA's) is worse than the host's.
 */
static void child_min_dev(const struct plan *p, const int *dfd, const int *derr,
			  struct sandbox_report *rep)
{
	static const char *const links[][2] = {
		{"/proc/self/fd", "/dev/fd"},	   {"/proc/self/fd/0", "/dev/stdin"},
		{"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"},
	};
	const char *what = "cannot mount a tmpfs on", *arg = "/dev";
	struct stat st;
	int e = 0;

	if (p->dev_overflow) {
		rep_set(rep, SANDBOX_MIN_DEV, SANDBOX_STATE_UNAVAILABLE,
			"more device nodes than a worker may have (64)", NULL, 0);
		return;
	}
	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC,
		  "size=64k,nr_inodes=256,mode=0755") < 0) {
		rep_set(rep, SANDBOX_MIN_DEV, SANDBOX_STATE_UNAVAILABLE, what, arg, errno);
		return;
	}
	for (size_t i = 0; i < p->ndev && !e; i++) {
		what = "cannot bind", arg = p->dev[i];
		if (dfd[i] < 0)
			e = derr[i];
		else if (fstat(dfd[i], &st) < 0)
			e = errno;
		else
			e = child_bind_fd(dfd[i], p->dev[i], S_ISDIR(st.st_mode), false);
	}
	for (size_t i = 0; i < ARRAY_SIZE(links) && !e; i++)
		if (symlink(links[i][0], links[i][1]) < 0)
			e = errno, what = "cannot link", arg = links[i][1];
	if (!e && mkdir("/dev/shm", 01777) < 0)
		e = errno, what = "cannot make", arg = "/dev/shm";
	if (!e && mount(NULL, "/dev", NULL,
			MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			NULL) < 0)
		e = errno, what = "cannot make read-only", arg = "/dev";
	if (!e) {
		rep_set(rep, SANDBOX_MIN_DEV, SANDBOX_STATE_APPLIED, "", NULL, 0);
		return;
	}
	umount2("/dev", MNT_DETACH);
	rep_set(rep, SANDBOX_MIN_DEV, SANDBOX_STATE_UNAVAILABLE, what, arg, e);
}

static void child_mounts(const struct sandbox_opts *o, const struct plan *p,
			 struct sandbox_report *rep)
{
	int wfd[8], wfd_err[8], vfd[SANDBOX_MAX_FS], verr[SANDBOX_MAX_FS];
	int dfd[SANDBOX_MAX_DEV], derr[SANDBOX_MAX_DEV], null_fd = -1;
	bool hide_paths = p->nfs && !skipped(o->box, SANDBOX_HIDDEN_PATHS);
	bool min_dev = !skipped(o->box, SANDBOX_MIN_DEV);
	size_t nw = 0;
	bool rdonly;

	/* Opened first: the tmpfs mounts below cover these paths. */
	for (const char *const *w = o->writable; w && *w && nw < ARRAY_SIZE(wfd); w++) {
		wfd[nw] = open(*w, O_PATH | O_DIRECTORY | O_CLOEXEC);
		wfd_err[nw++] = errno;
	}
	for (size_t i = 0; hide_paths && i < p->nfs; i++) {
		vfd[i] = p->fs[i].hide ? -1 : open(p->fs[i].path, O_PATH | O_CLOEXEC);
		verr[i] = errno;
	}
	if (hide_paths)
		null_fd = open("/dev/null", O_PATH | O_CLOEXEC);
	for (size_t i = 0; min_dev && i < p->ndev; i++) {
		dfd[i] = open(p->dev[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
		derr[i] = errno;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		rep_set(rep, SANDBOX_READONLY_FS, SANDBOX_STATE_UNAVAILABLE,
			"making mounts private", NULL, errno);
		rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_UNAVAILABLE,
			"making mounts private", NULL, errno);
		rep_set(rep, SANDBOX_HIDDEN_PATHS, SANDBOX_STATE_UNAVAILABLE,
			"making mounts private", NULL, errno);
		rep_set(rep, SANDBOX_MIN_DEV, SANDBOX_STATE_UNAVAILABLE, "making mounts private",
			NULL, errno);
		return;
	}
	/*
	 * Read-only: every mount of kgb's namespace, each on its own (a bind remount is not
	 * recursive). /dev is left to min_dev: a read-only mount does not protect device nodes.
	 */
	rep_set(rep, SANDBOX_READONLY_FS, SANDBOX_STATE_APPLIED, "", NULL, 0);
	for (char **m = p->mounts; !skipped(o->box, SANDBOX_READONLY_FS) && m && *m; m++) {
		unsigned long f;

		if (under(*m, "/dev"))
			continue;
		f = mount_flags_of(*m, &rdonly);
		if (rdonly)
			continue;
		if (mount(NULL, *m, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | f, NULL) < 0)
			rep_set(rep, SANDBOX_READONLY_FS, SANDBOX_STATE_UNAVAILABLE,
				"cannot remount read-only", *m, errno);
	}
	if (!p->nfs)
		rep_set(rep, SANDBOX_HIDDEN_PATHS, SANDBOX_STATE_NOT_ENFORCED, "no paths to hide",
			NULL, 0);
	else if (p->fs_overflow)
		rep_set(rep, SANDBOX_HIDDEN_PATHS, SANDBOX_STATE_UNAVAILABLE,
			"more hidden and visible paths than a worker may have (64)", NULL, 0);
	else
		rep_set(rep, SANDBOX_HIDDEN_PATHS, SANDBOX_STATE_APPLIED, "", NULL, 0);
	if (hide_paths && !p->fs_overflow)
		child_hide(p, vfd, verr, null_fd, rep);
	if (min_dev)
		child_min_dev(p, dfd, derr, rep);
	rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_APPLIED, "", NULL, 0);
	if (!skipped(o->box, SANDBOX_PRIVATE_SCRATCH) && access("/dev/shm", F_OK) == 0 &&
	    mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, p->shm_opts) < 0)
		rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_UNAVAILABLE,
			"cannot mount a tmpfs on", "/dev/shm", errno);
	/* An empty tmpfs over the scratch root hides the other slots and candidates. */
	if (o->hide && !skipped(o->box, SANDBOX_PRIVATE_SCRATCH)) {
		int e = child_mkdir_p(o->hide);

		if (e || mount("tmpfs", o->hide, "tmpfs", MS_NOSUID | MS_NODEV,
			       "size=1m,nr_inodes=256,mode=0755") < 0)
			rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_UNAVAILABLE,
				"cannot hide", o->hide, e ? e : errno);
	}
	for (const char *const *h = o->hide_also;
	     h && *h && !skipped(o->box, SANDBOX_PRIVATE_SCRATCH); h++)
		if (mount("tmpfs", *h, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV,
			  "size=4k,nr_inodes=16,mode=0555") < 0)
			rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_UNAVAILABLE,
				"cannot hide", *h, errno);
	if (o->cwd) {
		int e = child_mkdir_p(o->cwd);

		if (e || mount("tmpfs", o->cwd, "tmpfs", MS_NOSUID | MS_NODEV, p->scratch_opts) < 0)
			rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_UNAVAILABLE,
				"cannot mount the scratch tmpfs on", o->cwd, e ? e : errno);
	}
	for (size_t i = 0; i < nw; i++) {
		const char *w = o->writable[i];
		unsigned long flags;
		char src[32];
		int e;

		if (wfd[i] < 0) {
			rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_UNAVAILABLE,
				"cannot open", w, wfd_err[i]);
			continue;
		}
		fd_path(src, wfd[i]);
		e = child_mkdir_p(w);
		if (e || mount(src, w, NULL, MS_BIND, NULL) < 0) {
			rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_UNAVAILABLE,
				"cannot bind", w, e ? e : errno);
			continue;
		}
		/* The bind inherits the read-only flag set above: lift it on this one. */
		flags = mount_flags_of(w, &rdonly);
		if (mount(NULL, w, NULL, MS_BIND | MS_REMOUNT | flags, NULL) < 0)
			rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_UNAVAILABLE,
				"cannot make writable", w, errno);
		close(wfd[i]);
	}
	if (o->hide && !skipped(o->box, SANDBOX_PRIVATE_SCRATCH) &&
	    mount(NULL, o->hide, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV,
		  NULL) < 0)
		rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_UNAVAILABLE,
			"cannot remount read-only", o->hide, errno);
	if (hide_paths && !p->fs_overflow)
		child_hide_seal(p, rep);
	for (size_t i = 0; hide_paths && i < p->nfs; i++)
		if (vfd[i] >= 0)
			close(vfd[i]);
	for (size_t i = 0; min_dev && i < p->ndev; i++)
		if (dfd[i] >= 0)
			close(dfd[i]);
	if (null_fd >= 0)
		close(null_fd);
	/* Last: the loop above made the host's /proc read-only; the fresh one stays writable. */
	if (rep->state[SANDBOX_PIDNS] == SANDBOX_STATE_APPLIED)
		child_fresh_proc(rep);
}

/* Enters the namespaces; records what worked. */
static void child_namespaces(const struct sandbox *box, const struct plan *p,
			     struct sandbox_report *rep)
{
	int ns = (skipped(box, SANDBOX_NETNS) ? 0 : CLONE_NEWNET) |
		 (skipped(box, SANDBOX_MNTNS) ? 0 : CLONE_NEWNS);
	int e;

	if (!skipped(box, SANDBOX_USERNS) && unshare(CLONE_NEWUSER | ns) == 0) {
		rep_set(rep, SANDBOX_USERNS, SANDBOX_STATE_APPLIED, "", NULL, 0);
		if (ns & CLONE_NEWNET)
			rep_set(rep, SANDBOX_NETNS, SANDBOX_STATE_APPLIED, "", NULL, 0);
		if (ns & CLONE_NEWNS)
			rep_set(rep, SANDBOX_MNTNS, SANDBOX_STATE_APPLIED, "", NULL, 0);
		/* Without a gid map, setgroups must be denied first (user_namespaces(7)). */
		if ((e = -write_file("/proc/self/setgroups", "deny")) > 0 ||
		    (e = -write_file("/proc/self/uid_map", p->uid_map)) > 0 ||
		    (e = -write_file("/proc/self/gid_map", p->gid_map)) > 0)
			rep_set(rep, SANDBOX_USERNS, SANDBOX_STATE_UNAVAILABLE,
				"cannot map the uid and gid", NULL, e);
		return;
	}
	if (!skipped(box, SANDBOX_USERNS))
		rep_set(rep, SANDBOX_USERNS, SANDBOX_STATE_UNAVAILABLE, "unshare(CLONE_NEWUSER)",
			NULL, errno);
	/* Without a user namespace, the other two need CAP_SYS_ADMIN (kgb run as root). */
	if (unshare(ns) == 0) {
		if (ns & CLONE_NEWNET)
			rep_set(rep, SANDBOX_NETNS, SANDBOX_STATE_APPLIED, "", NULL, 0);
		if (ns & CLONE_NEWNS)
			rep_set(rep, SANDBOX_MNTNS, SANDBOX_STATE_APPLIED, "", NULL, 0);
		return;
	}
	e = errno;
	rep_set(rep, SANDBOX_NETNS, SANDBOX_STATE_UNAVAILABLE, "unshare(CLONE_NEWNET)", NULL, e);
	rep_set(rep, SANDBOX_MNTNS, SANDBOX_STATE_UNAVAILABLE, "unshare(CLONE_NEWNS)", NULL, e);
	rep_set(rep, SANDBOX_READONLY_FS, SANDBOX_STATE_UNAVAILABLE, "no mount namespace", NULL,
		0);
	rep_set(rep, SANDBOX_PRIVATE_SCRATCH, SANDBOX_STATE_UNAVAILABLE, "no mount namespace",
		NULL, 0);
	rep_set(rep, SANDBOX_MIN_DEV, SANDBOX_STATE_UNAVAILABLE, "no mount namespace", NULL, 0);
	rep_set(rep, SANDBOX_HIDDEN_PATHS, SANDBOX_STATE_UNAVAILABLE, "no mount namespace", NULL,
		0);
}

static void child_limits(const struct sandbox_opts *o, bool boxed, bool in_cgroup,
			 bool in_memcg, const struct plan *p, const struct sandbox *box,
			 struct sandbox_report *rep)
{
	const struct sandbox_limits *l = &o->limits;

	set_limit(RLIMIT_CORE, 0, 0);
	if (l->file_bytes)
		set_limit(RLIMIT_FSIZE, l->file_bytes, l->file_bytes);
	if (l->open_files)
		set_limit(RLIMIT_NOFILE, l->open_files, l->open_files);
	if (l->cpu_s)
		set_limit(RLIMIT_CPU, l->cpu_s, l->cpu_s + SANDBOX_CPU_GRACE_S);
	rep_set(rep, SANDBOX_RLIMITS, SANDBOX_STATE_APPLIED, "", NULL, 0);
	if (!boxed)
		return;
	if (l->memory_bytes && !skipped(box, SANDBOX_MEMORY)) {
		set_limit(l->memory_data ? RLIMIT_DATA : RLIMIT_AS, l->memory_bytes,
			  l->memory_bytes);
		rep_set(rep, SANDBOX_MEMORY, SANDBOX_STATE_APPLIED,
			l->memory_data ? "RLIMIT_DATA" : "", NULL, 0);
	} else {
		rep_set(rep, SANDBOX_MEMORY, SANDBOX_STATE_NOT_ENFORCED,
			l->memory_why ? l->memory_why : "no limit configured", NULL, 0);
	}
	/* The same bound on what RLIMIT_AS misses: tmpfs and memfd pages, the page cache. */
	if (!l->memory_bytes)
		rep_set(rep, SANDBOX_MEMCG, SANDBOX_STATE_NOT_ENFORCED,
			l->memory_why ? l->memory_why : "no limit configured", NULL, 0);
	else if (in_memcg)
		rep_set(rep, SANDBOX_MEMCG, SANDBOX_STATE_APPLIED,
			p->memcg_v2 ? "cgroup v2" : "cgroup v1", NULL, 0);
	else
		rep_set(rep, SANDBOX_MEMCG, SANDBOX_STATE_UNAVAILABLE,
			!box->memcg_dir ? box->memcg_why
			: p->memcg	? "cannot join the worker's memory cgroup"
					: "cannot make the worker's memory cgroup",
			NULL, 0);
	if (!l->procs) {
		rep_set(rep, SANDBOX_NPROC, SANDBOX_STATE_NOT_ENFORCED, "no limit configured",
			NULL, 0);
		return;
	}
	/*
	 * RLIMIT_NPROC counts per user namespace (Linux >= 5.14), so in our own it bounds this
	 * worker alone; outside one it would count every process of the user. It never applies
	 * to root (uid 0 is exempt), where only a pids cgroup limits a fork bomb.
	 */
	if (rep->state[SANDBOX_USERNS] == SANDBOX_STATE_APPLIED && getuid() != 0)
		set_limit(RLIMIT_NPROC, l->procs, l->procs);
	if (in_cgroup)
		rep_set(rep, SANDBOX_NPROC, SANDBOX_STATE_APPLIED, "pids cgroup", NULL, 0);
	else if (rep->state[SANDBOX_USERNS] == SANDBOX_STATE_APPLIED && getuid() != 0)
		rep_set(rep, SANDBOX_NPROC, SANDBOX_STATE_APPLIED, "RLIMIT_NPROC", NULL, 0);
	else if (getuid() == 0)
		rep_set(rep, SANDBOX_NPROC, SANDBOX_STATE_UNAVAILABLE,
			"RLIMIT_NPROC does not limit root, and no pids cgroup:",
			box->cgroup_dir ? "cannot join" : box->cgroup_why, 0);
	else
		rep_set(rep, SANDBOX_NPROC, SANDBOX_STATE_UNAVAILABLE,
			"no user namespace (RLIMIT_NPROC would count every process of this user) "
			"and no pids cgroup:",
			box->cgroup_dir ? "cannot join" : box->cgroup_why, 0);
}

/*
 * Empties the bounding, ambient and inheritable capability sets: after exec the worker has no
 * capability, not even as root (in its user namespace, or kgb's when there is none). Nothing a
 * worker does needs one. 0 or an errno value.
 */
static int child_drop_caps(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];

	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			return errno;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return errno;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return errno;
	data[0].inheritable = data[1].inheritable = 0;
	if (syscall(SYS_capset, &hdr, data) < 0)
		return errno;
	return 0;
}

/*
 * No capability left at all (permitted and effective too), for the two processes of
 * child_pidns() that never exec: nothing they do needs one.
 */
static void child_clear_caps(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	(void)syscall(SYS_capset, &hdr, data);
}

/* Whether the keeper is gone: it holds the only write end of the pipe left, never written. */
static bool keeper_gone(int alive_r)
{
	struct pollfd pfd = {.fd = alive_r, .events = POLLIN};

	return poll(&pfd, 1, 0) != 0;
}

/*
 * Pid 1 of the worker's namespace. It runs nothing: it is there because the namespace needs an
 * init, and the worker must not be it (see child_pidns()). The orphans it inherits are reaped
 * by the kernel (SIGCHLD ignored); it ends by SIGKILL from the keeper, or through the parent-
 * death signal when the keeper dies, and the kernel then kills everything left in the namespace.
 */
static KGB_NORETURN void pidns_init(const int alive[2])
{
	close(alive[1]);
	child_clear_caps();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (keeper_gone(alive[0]))
		_exit(SANDBOX_EXIT_SETUP);
	syscall(SYS_close_range, 0U, ~0U, 0U);
	signal(SIGCHLD, SIG_IGN);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	for (;;)
		pause(); /* every signal blocked (inherited): only SIGKILL ends it */
}

/*
 * kgb's child, outside the namespace: waits for the worker, kills pid 1 (and with it whatever
 * the worker left in the namespace, setsid()'d processes included), then ends as the worker
 * ended: the same exit status, or the same signal raised on itself. Its rusage, which kgb reads,
 * includes the worker's once reaped here.
 */
static KGB_NORETURN void pidns_keeper(pid_t init, pid_t worker, const int alive[2])
{
	sigset_t one;
	int st = SANDBOX_EXIT_SETUP << 8, sig;

	/*
	 * The worker's copies of the pipes must be the last ones: kgb reads the report pipe until
	 * exec closes it, and stdout and stderr until the worker's end.
	 */
	syscall(SYS_close_range, 0U, 3U, 0U);
	close(alive[0]);
	child_clear_caps();
	while (waitpid(worker, &st, 0) < 0 && errno == EINTR)
		;
	kill(init, SIGKILL);
	while (waitpid(init, NULL, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	sig = WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL;
	/* No core dump of the keeper itself (it is also not dumpable, see child_pidns()). */
	set_limit(RLIMIT_CORE, 0, 0);
	signal(sig, SIG_DFL);
	kill(getpid(), sig);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	_exit(128 + sig); /* not reached: a signal that ended the worker ends the keeper */
}

/*
 * The pid namespace. unshare(CLONE_NEWPID) moves the caller's children, not the caller, and
 * the first child is the namespace's init (pid 1), which the kernel treats apart: it ignores
 * every signal it has no handler for when sent from inside (a worker as pid 1 would not die of
 * its own raise(SIGABRT), nor of SIGXCPU), and the namespace dies with it. Nor can the worker
 * be the caller, execed next to a pid 1 that reaps: it would stay outside, and the fresh /proc
 * would have no /proc/self for it (CUDA reads it). So three processes:
 *
 *   kgb - keeper (kgb's child: the pid, pidfd, process group and cgroup kgb knows)
 *          |- init (pid 1: only reaps orphans, pidns_init())
 *          `- worker (pid 2: returns from here, mounts the fresh /proc, execs)
 *
 * Both are children of the keeper, so that it waits for the worker itself and gets its exact
 * wait status and rusage, then ends the same way (pidns_keeper()): kgb's view of exit
 * statuses, signals (SIGSEGV, SIGXCPU, SIGKILL at the hard CPU limit) and exec failures is
 * unchanged. The timeout's SIGKILL to the process group reaches all three (a process group
 * spans pid namespaces), and so does the cgroup's. The parent-death signal chains: kgb, keeper,
 * each of the other two. Inside, getppid() is 0 whether the keeper lives or not, so the race
 * with its death is checked on a pipe that only the keeper holds open for writing.
 *
 * The keeper and init run no candidate code but hold capabilities (in the user namespace, or
 * the machine's when there is none) until they drop them: both are made non-dumpable before
 * they exist, so that no /proc/<pid>/mem of theirs opens for the worker (the worker becomes
 * dumpable again at exec). Returns in the worker; the keeper never returns.
 */
static void child_pidns(const struct sandbox *box, struct sandbox_report *rep)
{
	sigset_t all, old;
	int alive[2];
	pid_t init, worker;

	if (skipped(box, SANDBOX_PIDNS))
		return;
	/* Mounting the fresh /proc in kgb's own mount namespace is out of the question. */
	if (rep->state[SANDBOX_MNTNS] != SANDBOX_STATE_APPLIED) {
		rep_set(rep, SANDBOX_PIDNS, SANDBOX_STATE_UNAVAILABLE,
			"no mount namespace for a fresh /proc", NULL, 0);
		return;
	}
	if (pipe2(alive, O_CLOEXEC) < 0) {
		rep_set(rep, SANDBOX_PIDNS, SANDBOX_STATE_UNAVAILABLE, "pipe", NULL, errno);
		return;
	}
	/* After the user namespace: the pid namespace is then owned by it. */
	if (unshare(CLONE_NEWPID) < 0) {
		rep_set(rep, SANDBOX_PIDNS, SANDBOX_STATE_UNAVAILABLE, "unshare(CLONE_NEWPID)",
			NULL, errno);
		close(alive[0]);
		close(alive[1]);
		return;
	}
	rep_set(rep, SANDBOX_PIDNS, SANDBOX_STATE_APPLIED, "", NULL, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/*
	 * The keeper must not end before the worker because of a signal the worker sends its
	 * process group (kill(0, ...)): all blocked, SIGKILL aside; the worker unblocks again.
	 */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	/*
	 * A failed fork cannot fall back to no namespace: the worker's first child would become
	 * its pid 1, and every later fork fail once that child ended. Then the keeper ends before
	 * writing the report, and kgb reports that the worker died entering its sandbox.
	 */
	init = fork();
	if (init < 0)
		_exit(SANDBOX_EXIT_SETUP);
	if (init == 0)
		pidns_init(alive);
	worker = fork();
	if (worker < 0)
		_exit(SANDBOX_EXIT_SETUP); /* init follows through its parent-death signal */
	if (worker > 0)
		pidns_keeper(init, worker, alive);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(alive[1]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (keeper_gone(alive[0]))
		_exit(SANDBOX_EXIT_SETUP);
	close(alive[0]);
}

static KGB_NORETURN void child_exec(const struct sandbox_opts *o, const struct plan *p,
				    int in_r, int out_w, int err_w, int rep_w, pid_t parent)
{
	const struct sandbox *box = o->box;
	bool boxed = box && box->mode != SANDBOX_OFF, in_cgroup = false, in_memcg = false;
	struct sandbox_report rep;
	enum sandbox_facility missing;
	int e;

	memset(&rep, 0, sizeof(rep));
	/*
	 * A session of its own, and with it a process group (kgb kills it by its pid, which both
	 * are named after) and no controlling terminal: /dev/tty does not open (ENXIO), and
	 * TIOCSTI, which pushes keystrokes into a terminal's input, needs the terminal to be the
	 * caller's own. Only here: the parent making the child a group leader first (setpgid)
	 * would make setsid() fail; kgb reads the child's report, written after this, before it
	 * ever signals the group.
	 */
	if (setsid() < 0)
		_exit(SANDBOX_EXIT_EXEC);
	/* If kgb dies (kill -9 included), the worker follows instead of running on. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(SANDBOX_EXIT_EXEC);
	if (!o->inherit_stdio &&
	    (dup2(in_r, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0))
		_exit(SANDBOX_EXIT_EXEC);
	/* The report pipe becomes fd 3, closed by exec; nothing else of kgb's leaks in. */
	if (rep_w != 3 && dup3(rep_w, 3, O_CLOEXEC) < 0)
		_exit(SANDBOX_EXIT_EXEC);
	/* The descriptors passed on purpose (dup2 leaves them open across exec). */
	{
		/* Each source is above SANDBOX_REPLAY_FD: no dup2 overwrites a later one's. */
		const int from[] = {o->pass_fd, o->peer_fd, o->replay_fd};
		const int to[] = {SANDBOX_PASS_FD, SANDBOX_PEER_FD, SANDBOX_REPLAY_FD};

		for (size_t i = 0; i < ARRAY_SIZE(to); i++) {
			if (from[i] <= SANDBOX_REPLAY_FD)
				close(to[i]);
			else if (dup2(from[i], to[i]) < 0)
				_exit(SANDBOX_EXIT_EXEC);
		}
	}
	syscall(SYS_close_range, SANDBOX_REPLAY_FD + 1U, ~0U, 0U);
	if (boxed) {
		/* Joined before the user namespace: the cgroup files belong to the outer uid. */
		if (p->cgroup_procs)
			in_cgroup = write_file(p->cgroup_procs, "0") == 0;
		if (p->memcg_procs)
			in_memcg = write_file(p->memcg_procs, "0") == 0;
		else if (p->memcg)
			in_memcg = in_cgroup; /* cgroup v2: one directory for both */
		child_namespaces(box, p, &rep);
		/* A new user namespace changed our credentials, which clears the death signal. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(SANDBOX_EXIT_EXEC);
		/* From here on, with a pid namespace, this is the worker: pid 2 in it. */
		child_pidns(box, &rep);
		if (rep.state[SANDBOX_MNTNS] == SANDBOX_STATE_APPLIED) {
			child_mounts(o, p, &rep);
		} else {
			static const enum sandbox_facility need_mntns[] = {
				SANDBOX_READONLY_FS, SANDBOX_PRIVATE_SCRATCH, SANDBOX_MIN_DEV,
				SANDBOX_HIDDEN_PATHS};

			for (size_t i = 0; i < ARRAY_SIZE(need_mntns); i++)
				rep_set(&rep, need_mntns[i], SANDBOX_STATE_UNAVAILABLE,
					"no mount namespace", NULL, 0);
		}
		if (p->env_clean)
			rep_set(&rep, SANDBOX_CLEAN_ENV, SANDBOX_STATE_APPLIED, "", NULL, 0);
		rep_set(&rep, SANDBOX_CACHE_CAP,
			p->quota ? SANDBOX_STATE_APPLIED : SANDBOX_STATE_NOT_ENFORCED,
			p->quota ? "its size checked by kgb every 200 ms and at the end"
				 : "no cache directory or no cap",
			NULL, 0);
	}
	child_limits(o, boxed, in_cgroup, in_memcg, p, box, &rep);
	if (boxed) {
		e = skipped(box, SANDBOX_CAPS) ? 0 : child_drop_caps();
		rep_set(&rep, SANDBOX_CAPS, e ? SANDBOX_STATE_UNAVAILABLE : SANDBOX_STATE_APPLIED,
			e ? "dropping capabilities" : "", NULL, e);
		if (skipped(box, SANDBOX_NO_NEW_PRIVS) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
			rep_set(&rep, SANDBOX_NO_NEW_PRIVS, SANDBOX_STATE_APPLIED, "", NULL, 0);
		else
			rep_set(&rep, SANDBOX_NO_NEW_PRIVS, SANDBOX_STATE_UNAVAILABLE,
				"prctl(PR_SET_NO_NEW_PRIVS)", NULL, errno);
		if (skipped(box, SANDBOX_SECCOMP)) {
			/* the report says so below */
		} else if (box->filter) {
			struct sock_fprog prog = {.len = box->filter_len, .filter = box->filter};

			if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0)
				rep_set(&rep, SANDBOX_SECCOMP, SANDBOX_STATE_APPLIED, "", NULL, 0);
			else
				rep_set(&rep, SANDBOX_SECCOMP, SANDBOX_STATE_UNAVAILABLE,
					"prctl(PR_SET_SECCOMP)", NULL, errno);
		} else {
			rep_set(&rep, SANDBOX_SECCOMP, SANDBOX_STATE_UNAVAILABLE, box->seccomp_why,
				NULL, 0);
		}
		/* A filter of its own, so that it can be left out alone (CUDA's probe). */
		if (skipped(box, SANDBOX_UNIX_SOCKETS)) {
			/* the report says so below */
		} else if (box->unix_filter) {
			struct sock_fprog prog = {.len = box->unix_filter_len,
						  .filter = box->unix_filter};

			if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0)
				rep_set(&rep, SANDBOX_UNIX_SOCKETS, SANDBOX_STATE_APPLIED, "", NULL,
					0);
			else
				rep_set(&rep, SANDBOX_UNIX_SOCKETS, SANDBOX_STATE_UNAVAILABLE,
					"prctl(PR_SET_SECCOMP)", NULL, errno);
		} else {
			rep_set(&rep, SANDBOX_UNIX_SOCKETS, SANDBOX_STATE_UNAVAILABLE, box->unix_why,
				NULL, 0);
		}
	}
	/* Left out: recorded as such, whatever the steps above wrote. */
	for (int f = 0; boxed && f < _SANDBOX_FACILITY_MAX; f++)
		if (box->skip & (1U << f)) {
			static const char why[] = "skipped on request (KGB_SANDBOX_SKIP)";

			rep.state[f] = SANDBOX_STATE_NOT_ENFORCED;
			memcpy(rep.reason[f], why, sizeof(why));
		} else if (box->broken & (1U << f)) {
			static const char why[] = "left out: CUDA does not start with it on this "
						  "machine (kgb's probe)";

			rep.state[f] = SANDBOX_STATE_UNAVAILABLE;
			memcpy(rep.reason[f], why, sizeof(why));
		}
	(void)!write(3, &rep, sizeof(rep));
	if (boxed && box->mode == SANDBOX_STRICT && sandbox_report_missing(&rep, &missing))
		_exit(SANDBOX_EXIT_SETUP);
	signal(SIGPIPE, SIG_DFL);
	if (o->cwd && chdir(o->cwd) < 0)
		e = errno;
	else {
		execvpe(o->argv[0], o->argv, p->envp);
		e = errno;
	}
	(void)!write(3, &e, sizeof(e));
	_exit(SANDBOX_EXIT_EXEC);
}

/* ---- the parent ---- */

static char **read_mounts(void)
{
	struct strbuf mi = STRBUF_INIT;
	char **v = NULL, *save = NULL;
	size_t n = 0, alloc = 0;

	if (strbuf_read_file(&mi, "/proc/self/mountinfo", 4 << 20) < 0) {
		strbuf_release(&mi);
		return NULL;
	}
	for (char *l = strtok_r(mi.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct mountinfo_line m;

		if (!mountinfo_parse(l, &m))
			continue;
		XGROW(v, n + 2, alloc);
		v[n++] = xstrdup(m.mountpoint);
		v[n] = NULL;
	}
	strbuf_release(&mi);
	return v;
}

/* Makes the worker's pids cgroup; NULL when there is none (the child then reports why). */
static char *cgroup_make(struct sandbox *box, unsigned long procs, unsigned long seq)
{
	struct strbuf sb = STRBUF_INIT;
	char *max, value[32];

	if (!box->cgroup_dir || !procs || skipped(box, SANDBOX_NPROC))
		return NULL;
	strbuf_addf(&sb, "%s/kgb-%ld-%lu", box->cgroup_dir, (long)getpid(), seq);
	max = path_join(sb.buf, "pids.max");
	snprintf(value, sizeof(value), "%lu", procs);
	if ((mkdir(sb.buf, 0755) < 0 && errno != EEXIST) || write_file(max, value) < 0) {
		rmdir(sb.buf);
		strbuf_release(&sb);
		free(max);
		return NULL;
	}
	free(max);
	return strbuf_detach(&sb, NULL);
}

/* Writes `value` to the file `name` of cgroup `dir`. */
static int cgroup_set(const char *dir, const char *name, const char *value)
{
	char *path = path_join(dir, name);
	int r = write_file(path, value);

	free(path);
	return r;
}

/*
 * Makes the worker's memory cgroup with its limit, or NULL. Under cgroup v2 a process is in one
 * cgroup: when the pids cgroup is the same directory, the limit goes there. No swap: the limit
 * must hold for tmpfs and memfd pages too, which would otherwise go to swap (v1: where the
 * kernel accounts swap at all, memory.memsw). One task killed by the OOM killer takes the rest
 * of the worker with it (v2 memory.oom.group).
 */
static char *memcg_make(struct sandbox *box, unsigned long long bytes, unsigned long seq,
			const char *pids)
{
	struct strbuf sb = STRBUF_INIT;
	char value[32];
	bool same;
	int r;

	if (!box->memcg_dir || !bytes || skipped(box, SANDBOX_MEMCG))
		return NULL;
	strbuf_addf(&sb, "%s/kgb-%ld-%lu", box->memcg_dir, (long)getpid(), seq);
	same = pids && !strcmp(pids, sb.buf);
	snprintf(value, sizeof(value), "%llu", bytes);
	r = !same && mkdir(sb.buf, 0755) < 0 && errno != EEXIST ? -errno : 0;
	if (r == 0)
		r = cgroup_set(sb.buf, memcg_limit_file(box->memcg_v2), value);
	/* Absent where swap is not accounted (v1 without swapaccount, v2 without swap). */
	if (r == 0 && (r = cgroup_set(sb.buf, memcg_swap_file(box->memcg_v2),
				      box->memcg_v2 ? "0" : value)) == -ENOENT)
		r = 0;
	if (r == 0 && box->memcg_v2)
		(void)cgroup_set(sb.buf, "memory.oom.group", "1");
	if (r < 0) {
		if (!same)
			rmdir(sb.buf);
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* How many tasks the kernel's OOM killer killed in a memory cgroup ("oom_kill N"); 0 if unknown. */
static unsigned long memcg_oom_kills(const char *memcg, bool v2)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = path_join(memcg, v2 ? "memory.events" : "memory.oom_control");
	unsigned long n = 0;
	const char *p;

	if (strbuf_read_file(&sb, path, 65536) == 0 && (p = strstr(sb.buf, "oom_kill ")))
		n = strtoul(p + 9, NULL, 10);
	free(path);
	strbuf_release(&sb);
	return n;
}

/* Whether the variable ("NAME=value") is one of the allow-list's NAMEs or PREFIX*es. */
static bool env_allowed(const char *var, const char *const *allow)
{
	size_t n = strcspn(var, "=");

	for (; allow && *allow; allow++) {
		size_t k = strlen(*allow);

		if (k && (*allow)[k - 1] == '*' ? n >= k - 1 && !strncmp(var, *allow, k - 1)
						 : k == n && !strncmp(var, *allow, n))
			return true;
	}
	return false;
}

/* clean_env: envp reduced to sandbox_env_default and `extra`, HOME set to `home` (if any). */
static char **env_clean(char *const *envp, const char *const *extra, const char *home)
{
	size_t n = 0, k = 0;
	char **env;

	while (envp && envp[n])
		n++;
	env = xcalloc(n + 2, sizeof(*env));
	for (size_t i = 0; i < n; i++) {
		if (home && !strncmp(envp[i], "HOME=", 5))
			continue;
		if (env_allowed(envp[i], sandbox_env_default) || env_allowed(envp[i], extra))
			env[k++] = xstrdup(envp[i]);
	}
	if (home) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "HOME=%s", home);
		env[k++] = strbuf_detach(&sb, NULL);
	}
	return env;
}

/* min_dev: the host's nodes that match sandbox_dev_base and `extra` (globs below /dev). */
static void plan_dev(struct plan *p, const char *const *extra)
{
	const char *const *lists[] = {sandbox_dev_base, extra};
	size_t alloc = 0;

	for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
		for (const char *const *pat = lists[l]; pat && *pat; pat++) {
			struct strbuf sb = STRBUF_INIT;
			glob_t g;

			/* Below /dev only. */
			if (strstr(*pat, "..") || (*pat)[0] == '/')
				continue;
			strbuf_addf(&sb, "/dev/%s", *pat);
			if (glob(sb.buf, 0, NULL, &g) == 0) {
				for (size_t i = 0; i < g.gl_pathc; i++) {
					if (p->dev && strv_contains((const char *const *)p->dev,
								    g.gl_pathv[i]))
						continue;
					XGROW(p->dev, p->ndev + 2, alloc);
					p->dev[p->ndev++] = xstrdup(g.gl_pathv[i]);
					p->dev[p->ndev] = NULL;
				}
				globfree(&g);
			}
			strbuf_release(&sb);
		}
	}
	p->dev_overflow = p->ndev > SANDBOX_MAX_DEV;
}

static bool strictly_under(const char *path, const char *dir)
{
	return strcmp(path, dir) && under(path, dir);
}

/* Whether an op of kind `hide` lies strictly between `outer` and `inner` (below outer). */
static bool op_between(const struct fs_op *v, size_t n, bool hide, const char *outer,
		       const char *inner)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].path && v[i].hide == hide && strictly_under(v[i].path, outer) &&
		    under(inner, v[i].path))
			return true;
	return false;
}

static int fs_op_cmp(const void *a, const void *b)
{
	size_t la = strlen(((const struct fs_op *)a)->path),
	       lb = strlen(((const struct fs_op *)b)->path);

	return la < lb ? -1 : la > lb;
}

/*
 * hidden_paths: the resolved hidden and visible paths that change the view, by path length.
 * A visible path counts only below a hidden one (a path the worker needs inside /root, say);
 * the same path both ways stays visible; a visible path below another with no hidden one in
 * between, and a hidden path below another with no visible one in between, add nothing.
 */
static void plan_fs(struct plan *p, const char *const *hidden, const char *const *visible)
{
	struct fs_op *v = NULL;
	size_t n = 0, alloc = 0, k = 0;
	bool *drop;

	for (int hide = 1; hide >= 0; hide--) {
		for (const char *const *x = hide ? hidden : visible; x && *x; x++) {
			char *rp = realpath(*x, NULL);
			struct stat st;

			if (!rp)
				continue; /* nothing there to hide, or to keep visible */
			XGROW(v, n + 1, alloc);
			v[n].path = rp;
			v[n].hide = hide;
			v[n++].dir = stat(rp, &st) == 0 && S_ISDIR(st.st_mode);
		}
	}
	drop = xcalloc(n + 1, sizeof(*drop));
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n && !drop[i]; j++) {
			if (i == j)
				continue;
			/* a duplicate, or hidden and visible: visible */
			if (!strcmp(v[i].path, v[j].path))
				drop[i] = v[i].hide == v[j].hide ? j < i : v[i].hide;
			else if (v[i].hide == v[j].hide && strictly_under(v[i].path, v[j].path))
				drop[i] = !op_between(v, n, !v[i].hide, v[j].path, v[i].path);
		}
		if (!v[i].hide && !drop[i]) {
			bool below_hidden = false;

			for (size_t j = 0; j < n; j++)
				below_hidden |= v[j].hide && strictly_under(v[i].path, v[j].path);
			drop[i] = !below_hidden;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (drop[i] || k >= SANDBOX_MAX_FS) {
			p->fs_overflow |= !drop[i];
			free(v[i].path);
			continue;
		}
		p->fs[k++] = v[i];
	}
	p->nfs = k;
	qsort(p->fs, p->nfs, sizeof(*p->fs), fs_op_cmp);
	free(drop);
	free(v);
}

static void plan_release(struct plan *p)
{
	strv_free(p->mounts);
	strv_free(p->dev);
	for (size_t i = 0; i < p->nfs; i++)
		free(p->fs[i].path);
	if (p->env_clean)
		strv_free((char **)p->envp);
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/*
 * Records how the child ended; and whether the kernel's OOM killer acted in its memory cgroup,
 * read now: the cgroup goes with sandbox_destroy(), and sandbox_describe_exit() may come later.
 */
static void reaped(struct sandbox_child *c, int status, const struct rusage *ru)
{
	c->reaped = true;
	c->status = status;
	c->cpu_s = (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec * 1e-6 +
		   (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec * 1e-6;
	if (c->memcg)
		c->oom_killed = memcg_oom_kills(c->memcg, c->memcg_v2) > 0;
}

static void wait_blocking(struct sandbox_child *c)
{
	while (!c->reaped) {
		int status;
		struct rusage ru;
		pid_t r = wait4(c->pid, &status, 0, &ru);

		if (r == c->pid) {
			reaped(c, status, &ru);
		} else if (r < 0 && errno != EINTR) {
			break;
		}
	}
}

int sandbox_spawn(const struct sandbox_opts *o, struct sandbox_child *ret, struct strbuf *err)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1}, rep[2] = {-1, -1};
	struct sandbox *box = (struct sandbox *)o->box;
	bool boxed = box && box->mode != SANDBOX_OFF;
	struct plan plan = {0};
	char *cgroup = NULL, *procs = NULL, *memcg = NULL, *memcg_procs = NULL;
	unsigned long seq;
	pid_t parent = getpid(), pid;
	enum sandbox_facility missing;
	ssize_t n;
	int r = -EAGAIN;

	memset(ret, 0, sizeof(*ret));
	ret->pid = -1;
	ret->pidfd = ret->in_fd = ret->out_fd = ret->err_fd = -1;
	if ((!o->inherit_stdio &&
	     (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0)) ||
	    pipe2(rep, O_CLOEXEC) < 0) {
		strbuf_addf(err, "cannot create pipes: %s", strerror(errno));
		goto fail;
	}
	if (boxed) {
		unsigned long long scratch = o->limits.scratch_bytes;

		if (!scratch)
			scratch = SANDBOX_DEFAULT_SCRATCH_BYTES;

		plan.mounts = read_mounts();
		snprintf(plan.uid_map, sizeof(plan.uid_map), "%u %u 1\n", (unsigned)getuid(),
			 (unsigned)getuid());
		snprintf(plan.gid_map, sizeof(plan.gid_map), "%u %u 1\n", (unsigned)getgid(),
			 (unsigned)getgid());
		snprintf(plan.scratch_opts, sizeof(plan.scratch_opts), "size=%llu,mode=0700",
			 scratch);
		snprintf(plan.shm_opts, sizeof(plan.shm_opts), "size=%llu,mode=1777",
			 SANDBOX_SHM_BYTES);
		seq = box->seq++;
		cgroup = cgroup_make(box, o->limits.procs, seq);
		if (cgroup) {
			procs = path_join(cgroup, "cgroup.procs");
			plan.cgroup_procs = procs;
		}
		memcg = memcg_make(box, o->limits.memory_bytes, seq, cgroup);
		plan.memcg = memcg;
		plan.memcg_v2 = box->memcg_v2;
		if (memcg && (!cgroup || strcmp(memcg, cgroup))) {
			memcg_procs = path_join(memcg, "cgroup.procs");
			plan.memcg_procs = memcg_procs;
		}
		if (!skipped(box, SANDBOX_CLEAN_ENV)) {
			plan.envp = env_clean(o->envp, o->env_allow, o->cwd);
			plan.env_clean = true;
		}
		if (!skipped(box, SANDBOX_MIN_DEV))
			plan_dev(&plan, o->dev_nodes);
		if (!skipped(box, SANDBOX_HIDDEN_PATHS))
			plan_fs(&plan, o->hidden, o->visible);
		plan.quota = o->quota_dir && o->limits.cache_bytes && !skipped(box, SANDBOX_CACHE_CAP);
	}
	if (!plan.envp)
		plan.envp = o->envp;
	pid = fork();
	if (pid < 0) {
		strbuf_addf(err, "cannot fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0)
		child_exec(o, &plan, in[0], out[1], er[1], rep[1], parent);
	ret->pid = pid;
	ret->cgroup = cgroup;
	cgroup = NULL;
	ret->memcg = memcg;
	memcg = NULL;
	ret->memcg_v2 = box && box->memcg_v2;
	ret->memcg_bytes = o->limits.memory_bytes;
	if (plan.quota) {
		ret->quota_dir = xstrdup(o->quota_dir);
		ret->quota_bytes = o->limits.cache_bytes;
		ret->quota_next_s = monotonic_s() + SANDBOX_QUOTA_PERIOD_S;
	}
	sandbox_close_fd(&in[0]);
	sandbox_close_fd(&out[1]);
	sandbox_close_fd(&er[1]);
	sandbox_close_fd(&rep[1]);
	ret->in_fd = in[1];
	ret->out_fd = out[0];
	ret->err_fd = er[0];
	in[1] = out[0] = er[0] = -1;
	/* The child writes its report before exec, and its exec error if exec fails. */
	n = read_full(rep[0], &ret->report, sizeof(ret->report));
	if (n != (ssize_t)sizeof(ret->report)) {
		sandbox_destroy(ret);
		strbuf_addstr(err, "the worker died while entering its sandbox (");
		sandbox_describe_exit(ret, &o->limits, err);
		strbuf_addch(err, ')');
		r = -EIO;
		goto fail;
	}
	if (read_full(rep[0], &ret->exec_errno, sizeof(ret->exec_errno)) !=
	    (ssize_t)sizeof(ret->exec_errno))
		ret->exec_errno = 0;
	if (boxed && box->mode == SANDBOX_STRICT &&
	    sandbox_report_missing(&ret->report, &missing)) {
		sandbox_destroy(ret);
		strbuf_addf(err, "sandbox: %s unavailable: %s (--sandbox=strict)",
			    sandbox_facility_name(missing), ret->report.reason[missing]);
		r = -EPERM;
		goto fail;
	}
	if (ret->in_fd >= 0) {
		fcntl(ret->in_fd, F_SETFL, O_NONBLOCK);
		fcntl(ret->out_fd, F_SETFL, O_NONBLOCK);
		fcntl(ret->err_fd, F_SETFL, O_NONBLOCK);
	}
	ret->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (ret->pidfd < 0)
		ret->pidfd = -1;
	sandbox_close_fd(&rep[0]);
	free(procs);
	free(memcg_procs);
	plan_release(&plan);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		sandbox_close_fd(&in[i]);
		sandbox_close_fd(&out[i]);
		sandbox_close_fd(&er[i]);
		sandbox_close_fd(&rep[i]);
	}
	if (memcg && (!cgroup || strcmp(memcg, cgroup)))
		cgroup_remove(memcg);
	free(memcg);
	if (cgroup) {
		cgroup_remove(cgroup);
		free(cgroup);
	}
	free(procs);
	free(memcg_procs);
	plan_release(&plan);
	return r;
}

/* The walk of quota_usage(): stops once `limit` is passed, or below 16 levels. */
static void quota_walk(int dirfd, unsigned depth, unsigned long long limit,
		       unsigned long long *used)
{
	DIR *d;
	struct dirent *de;

	if (depth > 16) {
		*used = limit + 1; /* deeper than any cache: over */
		close(dirfd);
		return;
	}
	d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return;
	}
	while (*used <= limit && (de = readdir(d))) {
		struct stat st;
		unsigned long long b;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		/* What the disk holds; an entry costs an inode and a block at least. */
		b = (unsigned long long)st.st_blocks * 512;
		*used += b > 4096 ? b : 4096;
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				quota_walk(sub, depth + 1, limit, used);
		}
	}
	closedir(d);
}

/* The disk space of a directory tree, counted up to a little past `limit`. */
static unsigned long long quota_usage(const char *dir, unsigned long long limit)
{
	unsigned long long used = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		quota_walk(fd, 0, limit, &used);
	return used;
}

/* Measures the child's cache; over its cap, kills the group. */
static void quota_check(struct sandbox_child *c)
{
	if (!c->quota_dir || c->quota_exceeded)
		return;
	c->quota_used = quota_usage(c->quota_dir, c->quota_bytes);
	c->quota_next_s = monotonic_s() + SANDBOX_QUOTA_PERIOD_S;
	if (c->quota_used > c->quota_bytes) {
		c->quota_exceeded = true;
		sandbox_kill_group(c);
	}
}

bool sandbox_quota_exceeded(struct sandbox_child *c, struct strbuf *detail)
{
	quota_check(c);
	if (!c->quota_exceeded)
		return false;
	if (detail)
		strbuf_addf(detail,
			    "Triton cache over its cap: more than %llu MiB on disk in '%s' (the "
			    "cap is %llu MiB; the cache is removed)",
			    c->quota_bytes >> 20, c->quota_dir, c->quota_bytes >> 20);
	/* Nothing of it may reach a later job (the candidate's timing, a re-run's cache). */
	rm_rf(c->quota_dir);
	(void)mkdir(c->quota_dir, 0700);
	return true;
}

bool sandbox_reap(struct sandbox_child *c)
{
	int status;
	struct rusage ru;
	pid_t r;

	if (c->quota_dir && !c->reaped && monotonic_s() >= c->quota_next_s)
		quota_check(c);
	if (c->reaped)
		return true;
	do
		r = wait4(c->pid, &status, WNOHANG, &ru);
	while (r < 0 && errno == EINTR);
	if (r == c->pid)
		reaped(c, status, &ru);
	return c->reaped;
}

void sandbox_kill_group(struct sandbox_child *c)
{
	if (c->pid > 0)
		kill(-c->pid, SIGKILL);
	/* A process that left the group (setsid) is still in the cgroup. */
	if (c->cgroup)
		cgroup_kill_all(c->cgroup);
	if (c->memcg && (!c->cgroup || strcmp(c->memcg, c->cgroup)))
		cgroup_kill_all(c->memcg);
}

void sandbox_destroy(struct sandbox_child *c)
{
	sandbox_kill_group(c);
	if (c->pid > 0)
		wait_blocking(c);
	sandbox_close_fd(&c->in_fd);
	sandbox_close_fd(&c->out_fd);
	sandbox_close_fd(&c->err_fd);
	sandbox_close_fd(&c->pidfd);
	if (c->memcg) {
		if (!c->cgroup || strcmp(c->memcg, c->cgroup))
			cgroup_remove(c->memcg);
		free(c->memcg);
		c->memcg = NULL;
	}
	if (c->cgroup) {
		cgroup_remove(c->cgroup);
		free(c->cgroup);
		c->cgroup = NULL;
	}
	free(c->quota_dir);
	c->quota_dir = NULL;
}

bool sandbox_report_missing(const struct sandbox_report *r, enum sandbox_facility *ret_first)
{
	for (int f = 0; f < _SANDBOX_FACILITY_MAX; f++) {
		if (r->state[f] == SANDBOX_STATE_UNAVAILABLE) {
			*ret_first = (enum sandbox_facility)f;
			return true;
		}
	}
	return false;
}

json_t *sandbox_report_json(const struct sandbox_report *r, enum sandbox_mode mode)
{
	json_t *o = json_object();

	json_object_set_new(o, "mode", json_string(sandbox_mode_to_string(mode)));
	for (int f = 0; f < _SANDBOX_FACILITY_MAX; f++) {
		struct strbuf sb = STRBUF_INIT;
		char reason[SANDBOX_REASON_MAX];

		memcpy(reason, r->reason[f], sizeof(reason));
		reason[sizeof(reason) - 1] = '\0';
		switch (r->state[f]) {
		case SANDBOX_STATE_APPLIED:
			/* How, where there is a choice ("applied: pids cgroup"). */
			strbuf_addf(&sb, "applied%s%s", *reason ? ": " : "", reason);
			break;
		case SANDBOX_STATE_UNAVAILABLE:
			strbuf_addf(&sb, "unavailable: %s", reason);
			break;
		case SANDBOX_STATE_NOT_ENFORCED:
			strbuf_addf(&sb, "not enforced: %s", reason);
			break;
		default:
			strbuf_addstr(&sb, "off");
			break;
		}
		json_object_set_new(o, facility_names[f], json_string(sb.buf));
		strbuf_release(&sb);
	}
	return o;
}

static void add_mib(struct strbuf *out, unsigned long long bytes)
{
	strbuf_addf(out, "%llu MiB", bytes >> 20);
}

void sandbox_describe_exit(const struct sandbox_child *c, const struct sandbox_limits *l,
			   struct strbuf *out)
{
	int st = c->status, sig;

	if (!c->reaped) {
		strbuf_addstr(out, "not reaped");
		return;
	}
	if (WIFEXITED(st)) {
		strbuf_addf(out, "exited with status %d", WEXITSTATUS(st));
		if (c->exec_errno)
			strbuf_addf(out, " (cannot execute: %s)", strerror(c->exec_errno));
		return;
	}
	if (!WIFSIGNALED(st)) {
		strbuf_addf(out, "ended with wait status %d", st);
		return;
	}
	sig = WTERMSIG(st);
	switch (sig) {
	case SIGXCPU:
		strbuf_addf(out, "killed by signal %d (SIGXCPU): CPU time limit %llu s", sig,
			    l->cpu_s);
		break;
	case SIGXFSZ:
		strbuf_addf(out, "killed by signal %d (SIGXFSZ): file size limit ", sig);
		add_mib(out, l->file_bytes);
		break;
	case SIGSYS:
		strbuf_addf(out, "killed by signal %d (SIGSYS): a system call of another "
				 "architecture, which the seccomp filter rejects", sig);
		break;
	case SIGKILL:
		if (c->quota_exceeded) {
			strbuf_addf(out, "killed by signal %d (SIGKILL): Triton cache over its cap "
					 "of %llu MiB", sig, c->quota_bytes >> 20);
			break;
		}
		/* The kernel's OOM killer, at the memory cgroup's limit. */
		if (c->oom_killed) {
			strbuf_addf(out, "killed by signal %d (SIGKILL): memory cgroup limit ", sig);
			add_mib(out, c->memcg_bytes);
			strbuf_addstr(out, " (resident, tmpfs and memfd pages), the kernel's OOM "
					   "killer");
			break;
		}
		/* SIGXCPU ignored: the kernel sends SIGKILL at the hard limit. */
		if (l->cpu_s && c->cpu_s >= (double)l->cpu_s)
			strbuf_addf(out, "killed by signal %d (SIGKILL): CPU time limit %llu s "
					 "(hard limit, %.0f s used)", sig, l->cpu_s, c->cpu_s);
		else
			strbuf_addf(out, "killed by signal %d (%s)", sig, strsignal(sig));
		break;
	default:
		strbuf_addf(out, "killed by signal %d (%s)", sig, strsignal(sig));
		break;
	}
}
