#ifndef KGB_PROC_H
#define KGB_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox.h"
#include "util/compiler.h"
#include "util/strbuf.h"

/*
 * A child process run to its end: spawned by sandbox_spawn() (its own session and process
 * group, whatever sandbox its opts name), its stdout and stderr read into buffers (unless it
 * inherits kgb's), under a wall-clock deadline that fires whether or not the child prints, and
 * with its whole group killed at the deadline, when stdout passes its cap, and once it has
 * ended (grandchildren left behind die with it). Every caller that runs a child to completion
 * uses it: the platform probe, the Slurm clients, the external agent, `kgb sandbox-exec`;
 * the scheduler's workers, which talk to kgb while they run, have their own loop (sched.c).
 */

struct proc_opts {
	double timeout_s; /* from the spawn; <= 0: none */
	size_t out_max;	  /* stdout bytes kept; past them the group is killed (-E2BIG) */
	size_t err_max;	  /* stderr bytes kept; more are read and dropped */
	/* Called once the child runs (e.g. to say what its sandbox lacks); may be NULL. */
	void (*started)(const struct sandbox_child *c, void *data);
	void *data;
};

struct proc {
	/* Reaped and destroyed when proc_run() returns: status, report, cpu_s are kept. */
	struct sandbox_child child;
	struct strbuf out, errout; /* owned; empty when the child inherits kgb's stdio */
	bool timed_out;		   /* killed at the deadline */
	bool over_quota;	   /* its opts.quota_dir passed the cap; why in quota_why */
	struct strbuf quota_why;
};

/*
 * Runs o's child to its end into *p (initialised here; proc_release() it whatever the
 * result). 0 once it ended or was killed at the deadline (p->timed_out); -E2BIG when its
 * stdout passed o->out_max (killed); sandbox_spawn()'s errors, with err set.
 */
int proc_run(const struct sandbox_opts *so, const struct proc_opts *o, struct proc *p,
	     struct strbuf *err) KGB_WUR;
void proc_release(struct proc *p);

#endif
