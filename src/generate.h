/*
 * generate.h - the generation tracks: a model or an agent writes candidates, kgb verifies them.
 *
 * Three tracks (docs/generation.md):
 *   sample    n independent samples per task, each with up to `rounds` reflection rounds that
 *             feed the failure back (no code and why, compile error, first failing case,
 *             anti-hack finding); Pass@k is over the first round, solved-within-r over rounds.
 *   agent     the built-in three-stage loop per task: generate, verify on the visible cases
 *             with structured feedback, then, once correct on a timing platform, tune (the
 *             speedup, the speed-of-light fraction and the launch parameters to try); the best
 *             passing kernel is finally scored on the held-out cases too.
 *   external  a configured command (a coding agent CLI) in a fresh workspace per task holding
 *             the prompt and a `verify` script; its solution.py is scored like the agent's and
 *             its reported usage (usage.json) is what it cost.
 *
 * Every request is stored in the `generations` table (tokens, latency, cost, verdict), every
 * candidate is evaluated in this process by `kgb eval`'s engine (eval.h: the sandbox, the
 * anti-hack layers and the content-addressed store are the same as for any evaluation), and
 * gen_run() fills one gen_task_result per task for the scores.
 */
#ifndef KGB_GENERATE_H
#define KGB_GENERATE_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "llm.h"
#include "util/compiler.h"
#include "util/strbuf.h"

enum gen_track { GEN_SAMPLE, GEN_AGENT, GEN_EXTERNAL };

struct gen_opts {
	enum gen_track track;
	struct llm_config llm;	/* sample and agent tracks */
	const char *agent_cmd;	/* external track: run by /bin/sh -c in the workspace */
	double agent_timeout_s; /* external track: wall clock per task */
	/*
	 * External track: the sandbox the agent runs in (sandbox.h; network allowed), and the
	 * absolute dirs it may write besides its workspace (NULL-terminated, or NULL).
	 */
	int agent_sandbox; /* enum sandbox_mode */
	const char *const *agent_writable;
	const char *kgb_root; /* its .git is hidden from the agent, as the catalog is */
	unsigned samples;	/* sample track: per task; the agent tracks run one per task */
	unsigned rounds;	/* reflection rounds (sample) or further iterations (agent) */
	double task_time_s;	/* agent track: wall clock per task (LLM and verification); 0: none */
	const char *out_dir;	/* candidates, workspaces and transcripts go here */
	const char *store_path;
	const char *platform;	     /* the platform profile's name (profile.h) */
	const char *platform_prompt; /* its prompt fragment */
	const char *tasks_dir;
	const char *kgb_exe; /* this binary, for the agent workspace's ./verify */
	unsigned long long seed;
	int verbose;
};

/* One request and what came of it: a row of the generations table. */
struct gen_attempt {
	unsigned sample, round;
	const char *stage;   /* "generate", "tune" or "final" (static) */
	char outcome[32];    /* "pass", a verdict of kgb eval, "no_code", "no_reply", "budget" */
	char *finish, *error;	       /* owned; error: the request's or the extraction's reason */
	char *candidate, *eval_key;    /* owned; NULL when there was no code */
	char *detail;		       /* owned: the feedback text the model got next, or NULL */
	long long prompt_tokens, completion_tokens, cached_tokens;
	double latency_ms, eval_ms, cost_usd, speedup;
	unsigned http_attempts;
};

struct gen_task_result {
	const struct task *task;
	unsigned n;		   /* samples (trajectories) */
	unsigned *solved_by_round; /* [rounds + 1]: samples passed within round r (cumulative) */
	unsigned rounds;
	bool solved;		   /* some sample passed */
	double best_speedup;	   /* of the passing candidates; NAN when untimed or none */
	const char *final_verdict; /* agent tracks: the best kernel with held-out cases (static) */
	long long prompt_tokens, completion_tokens, cached_tokens;
	double cost_usd; /* of its requests (not its final evaluation); NAN if one's is unknown */
	double llm_s, eval_s;
	struct gen_attempt *attempts;
	size_t nr_attempts;
};

void gen_task_result_release(struct gen_task_result *r);

/* A token count plus another; -1 (unknown: an agent that reported none) stays -1. */
static inline long long gen_tokens_add(long long sum, long long x)
{
	return sum < 0 || x < 0 ? -1 : sum + x;
}

/*
 * Runs the track over `tasks` (borrowed), storing as it goes under run `run_id` of the store
 * at opts->store_path. *ret is an array of nr_tasks results (owned; release each, then free).
 * A negative errno with err set only when the run cannot go on (the store, curl, a child that
 * cannot start; -EBADMSG: a task's prompt cannot be built from the catalog, before anything is
 * asked). A failing request or kernel is a result, not an error; so is whatever an external
 * agent leaves in its workspace (no solution.py, a link, a FIFO, a file too large).
 */
int gen_run(const struct gen_opts *opts, const struct task *const *tasks, size_t nr_tasks,
	    long long run_id, struct gen_task_result **ret, struct strbuf *err) KGB_WUR;

/* The feedback a failed candidate sends back, from its verdict and first failure (JSON text). */
void gen_feedback(const char *verdict, const char *first_failure_json, struct strbuf *out);

#endif
