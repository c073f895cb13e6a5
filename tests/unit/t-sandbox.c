/*
 * t-sandbox.c - the sandbox's pieces that do not depend on what this machine allows: stale
 * scratch removal, mode names, the report's JSON, exit descriptions, and spawning with and
 * without a box (every facility ends applied, unavailable or not enforced; never silently off;
 * exit statuses, signals and exec failures read the same inside a box, pid namespace or not).
 * What the sandbox enforces is tested end to end in tests/cli/t0160-sandbox-faults.sh.
 */
#include "unit.h"

#include <poll.h>
#include <sys/stat.h>

#include "sandbox.h"

/* A pid that no process has: a child that has exited and been reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void test_rm_stale_pid_dirs(void **state)
{
	struct unit_fx *fx = *state;
	char name[64], *p;
	pid_t dead = dead_pid();
	unsigned removed = 99;
	static const char *const kept[] = {"kgb-cli.x1", "kgb-", "kgb-12a", "other-1", NULL};

	snprintf(name, sizeof(name), "kgb-%ld/slot0-1/f", (long)dead);
	unit_write_file(fx->root, name, "x");
	snprintf(name, sizeof(name), "kgb-lint-%ld/f", (long)dead);
	unit_write_file(fx->root, name, "x");
	snprintf(name, sizeof(name), "kgb-%ld/f", (long)getpid()); /* alive: this process */
	unit_write_file(fx->root, name, "x");
	snprintf(name, sizeof(name), "kgb-%ld", (long)getppid()); /* alive: the runner */
	p = path_join(fx->root, name);
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	for (const char *const *k = kept; *k; k++) {
		p = path_join(fx->root, *k);
		assert_int_equal(mkdir(p, 0700), 0);
		free(p);
	}
	assert_int_equal(rm_stale_pid_dirs(fx->root, "kgb-", &removed), 0);
	assert_int_equal(removed, 1);
	assert_int_equal(rm_stale_pid_dirs(fx->root, "kgb-lint-", &removed), 0);
	assert_int_equal(removed, 1);
	snprintf(name, sizeof(name), "kgb-%ld", (long)dead);
	p = path_join(fx->root, name);
	assert_false(path_is_dir(p));
	free(p);
	snprintf(name, sizeof(name), "kgb-%ld", (long)getpid());
	p = path_join(fx->root, name);
	assert_true(path_is_dir(p));
	free(p);
	for (const char *const *k = kept; *k; k++) {
		p = path_join(fx->root, *k);
		assert_true(path_is_dir(p));
		free(p);
	}
	p = path_join(fx->root, "missing");
	assert_int_equal(rm_stale_pid_dirs(p, "kgb-", NULL), -ENOENT);
	free(p);
}

static void test_mode_names(void **state)
{
	(void)state;
	assert_int_equal(sandbox_mode_from_string("off"), SANDBOX_OFF);
	assert_int_equal(sandbox_mode_from_string("auto"), SANDBOX_AUTO);
	assert_int_equal(sandbox_mode_from_string("strict"), SANDBOX_STRICT);
	assert_int_equal(sandbox_mode_from_string("Strict"), _SANDBOX_MODE_INVALID);
	assert_int_equal(sandbox_mode_from_string(""), _SANDBOX_MODE_INVALID);
	assert_string_equal(sandbox_mode_to_string(SANDBOX_STRICT), "strict");
	for (int f = 0; f < _SANDBOX_FACILITY_MAX; f++)
		assert_string_not_equal(sandbox_facility_name((enum sandbox_facility)f), "invalid");
}

static void test_report_json(void **state)
{
	struct sandbox_report r;
	enum sandbox_facility first = _SANDBOX_FACILITY_MAX;
	json_t *j, *want;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_false(sandbox_report_missing(&r, &first));
	r.state[SANDBOX_USERNS] = SANDBOX_STATE_APPLIED;
	r.state[SANDBOX_NPROC] = SANDBOX_STATE_APPLIED;
	strcpy(r.reason[SANDBOX_NPROC], "pids cgroup");
	r.state[SANDBOX_MEMORY] = SANDBOX_STATE_NOT_ENFORCED;
	strcpy(r.reason[SANDBOX_MEMORY], "cuda");
	assert_false(sandbox_report_missing(&r, &first));
	r.state[SANDBOX_SECCOMP] = SANDBOX_STATE_UNAVAILABLE;
	strcpy(r.reason[SANDBOX_SECCOMP], "no libseccomp");
	r.state[SANDBOX_NETNS] = SANDBOX_STATE_UNAVAILABLE;
	assert_true(sandbox_report_missing(&r, &first));
	assert_int_equal(first, SANDBOX_NETNS);
	j = sandbox_report_json(&r, SANDBOX_AUTO);
	want = unit_json("{'mode': 'auto', 'userns': 'applied', 'netns': 'unavailable: ',"
			 " 'mntns': 'off', 'readonly_fs': 'off', 'private_scratch': 'off',"
			 " 'nproc': 'applied: pids cgroup', 'memory': 'not enforced: cuda',"
			 " 'rlimits': 'off', 'caps': 'off', 'no_new_privs': 'off',"
			 " 'seccomp': 'unavailable: no libseccomp', 'pidns': 'off',"
			 " 'min_dev': 'off', 'memcg': 'off', 'unix_sockets': 'off',"
			 " 'hidden_paths': 'off', 'clean_env': 'off', 'cache_cap': 'off'}");
	assert_json_equal(j, want);
	json_decref(j);
	json_decref(want);
}

static void test_describe_exit(void **state)
{
	struct sandbox_limits l = {.cpu_s = 600, .file_bytes = 1ULL << 30};
	static const struct {
		int status;
		double cpu_s;
		int exec_errno;
		const char *want;
	} rows[] = {
		{3 << 8, 0, 0, "exited with status 3"},
		{127 << 8, 0, ENOENT, "exited with status 127 (cannot execute: No such file"},
		{SIGXCPU, 600, 0, "killed by signal 24 (SIGXCPU): CPU time limit 600 s"},
		{SIGXFSZ, 0, 0, "killed by signal 25 (SIGXFSZ): file size limit 1024 MiB"},
		{SIGKILL, 605, 0, "killed by signal 9 (SIGKILL): CPU time limit 600 s (hard limit"},
		{SIGKILL, 3, 0, "killed by signal 9 (Killed)"},
		{SIGSEGV, 0, 0, "killed by signal 11 (Segmentation fault)"},
		{SIGSYS, 0, 0, "killed by signal 31 (SIGSYS)"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct sandbox_child c = {.reaped = true, .status = rows[i].status,
					  .cpu_s = rows[i].cpu_s, .exec_errno = rows[i].exec_errno};
		struct strbuf sb = STRBUF_INIT;

		sandbox_describe_exit(&c, &l, &sb);
		assert_contains(sb.buf, rows[i].want);
		strbuf_release(&sb);
	}
}

/* Spawns argv with `box` in fx->root/cwd, waits, and returns the child (fds closed). */
static void spawn_wait(struct unit_fx *fx, struct sandbox *box, char *const *argv,
		       struct sandbox_child *c)
{
	char *cwd = path_join(fx->root, "cwd"), *hide = path_join(fx->root, "hide");
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	struct sandbox_opts o = {.argv = argv, .envp = env, .cwd = cwd, .box = box,
				 .limits = {.cpu_s = 10, .open_files = 64, .procs = 64,
					    .memory_bytes = 1ULL << 30,
					    .scratch_bytes = 1 << 20}};
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(mkdir_p(cwd, 0700), 0);
	assert_int_equal(mkdir_p(hide, 0700), 0);
	o.hide = box ? hide : NULL;
	if (sandbox_spawn(&o, c, &err) < 0)
		fail_msg("spawn: %s", err.buf);
	/* Let it end on its own (destroy would kill it), within the runner's timeout. */
	while (!sandbox_reap(c)) {
		struct pollfd p = {.fd = c->pidfd, .events = POLLIN};

		poll(&p, c->pidfd >= 0 ? 1 : 0, 10);
	}
	sandbox_destroy(c);
	strbuf_release(&err);
	free(cwd);
	free(hide);
}

static void test_spawn_without_box(void **state)
{
	char *argv[] = {"true", NULL};
	struct sandbox_child c;

	spawn_wait(*state, NULL, argv, &c);
	assert_true(c.reaped);
	for (int f = 0; f < _SANDBOX_FACILITY_MAX; f++)
		assert_int_equal(c.report.state[f],
				 f == SANDBOX_RLIMITS ? SANDBOX_STATE_APPLIED : SANDBOX_STATE_OFF);
	assert_int_equal(c.exec_errno, 0);
}

static void test_spawn_with_box_reports_every_facility(void **state)
{
	char *argv[] = {"true", NULL};
	struct sandbox *box = sandbox_new(SANDBOX_AUTO);
	struct sandbox_child c;

	spawn_wait(*state, box, argv, &c);
	for (int f = 0; f < _SANDBOX_FACILITY_MAX; f++) {
		print_message("%s: %d %s\n", sandbox_facility_name((enum sandbox_facility)f),
			      c.report.state[f], c.report.reason[f]);
		assert_int_not_equal(c.report.state[f], SANDBOX_STATE_OFF);
	}
	assert_true(WIFEXITED(c.status));
	sandbox_free(box);
}

static void test_spawn_exec_failure(void **state)
{
	char *argv[] = {"kgb-no-such-command", NULL};
	struct sandbox *box = sandbox_new(SANDBOX_AUTO);
	struct sandbox_child c;

	spawn_wait(*state, NULL, argv, &c);
	assert_int_equal(c.exec_errno, ENOENT);
	assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127);
	/* In a box, the worker may be a grandchild (pidns): its errno and status still come. */
	spawn_wait(*state, box, argv, &c);
	assert_int_equal(c.exec_errno, ENOENT);
	assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127);
	sandbox_free(box);
}

/*
 * Under a pid namespace kgb waits for the worker's keeper, not the worker: how the worker ended
 * must read the same. Each row also holds without the namespace (where it is unavailable).
 */
static void test_spawn_with_box_keeps_exit_status(void **state)
{
	static const struct {
		const char *script;
		bool signaled;
		int code;
	} rows[] = {
		{"exit 3", false, 3},
		{"exit 0", false, 0},
		{"kill -SEGV $$", true, SIGSEGV},
		{"kill -KILL $$", true, SIGKILL},
		{"kill -ABRT $$", true, SIGABRT},
		/* The whole process group: the worker dies of it, the keeper only as it does. */
		{"trap '' USR1; kill -USR1 0; kill -TERM 0; sleep 1", true, SIGTERM},
	};
	struct sandbox *box = sandbox_new(SANDBOX_AUTO);

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *argv[] = {"sh", "-c", (char *)rows[i].script, NULL};
		struct sandbox_child c;

		spawn_wait(*state, box, argv, &c);
		print_message("%s: pidns %d, wait status %#x\n", rows[i].script,
			      c.report.state[SANDBOX_PIDNS], (unsigned)c.status);
		if (rows[i].signaled) {
			assert_true(WIFSIGNALED(c.status));
			assert_int_equal(WTERMSIG(c.status), rows[i].code);
		} else {
			assert_true(WIFEXITED(c.status));
			assert_int_equal(WEXITSTATUS(c.status), rows[i].code);
		}
	}
	sandbox_free(box);
}

/*
 * Where the pid namespace applies, the worker is pid 2 under a pid 1 and sees no one else; its
 * own /proc entries are writable, the sysctls are not (opened for writing only: nothing is
 * written, even where that succeeds).
 */
static void test_spawn_pidns(void **state)
{
	char *argv[] = {"sh", "-c",
			"set -- /proc/[0-9]* && test \"$$ $*\" = \"2 /proc/1 /proc/2\" && "
			"echo kgb >/proc/self/comm && ! true 2>/dev/null >/proc/sys/kernel/hostname",
			NULL};
	struct sandbox *box = sandbox_new(SANDBOX_AUTO);
	struct sandbox_child c;

	spawn_wait(*state, box, argv, &c);
	if (c.report.state[SANDBOX_PIDNS] != SANDBOX_STATE_APPLIED) {
		print_message("pidns not applied here: %s\n", c.report.reason[SANDBOX_PIDNS]);
		sandbox_free(box);
		skip();
	}
	assert_true(WIFEXITED(c.status));
	assert_int_equal(WEXITSTATUS(c.status), 0);
	sandbox_free(box);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_rm_stale_pid_dirs, unit_fx_setup, unit_fx_teardown),
	cmocka_unit_test(test_mode_names),
	cmocka_unit_test(test_report_json),
	cmocka_unit_test(test_describe_exit),
	cmocka_unit_test_setup_teardown(test_spawn_without_box, unit_fx_setup, unit_fx_teardown),
	cmocka_unit_test_setup_teardown(test_spawn_with_box_reports_every_facility, unit_fx_setup,
					unit_fx_teardown),
	cmocka_unit_test_setup_teardown(test_spawn_exec_failure, unit_fx_setup, unit_fx_teardown),
	cmocka_unit_test_setup_teardown(test_spawn_with_box_keeps_exit_status, unit_fx_setup,
					unit_fx_teardown),
	cmocka_unit_test_setup_teardown(test_spawn_pidns, unit_fx_setup, unit_fx_teardown),
};

UNIT_MAIN(tests)
