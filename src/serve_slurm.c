/*
 * serve_slurm.c - `kgb serve --backend slurm`: a batch evaluated as the shards of a Slurm run.
 *
 * The queue worker calls serve_slurm_phase() where the local backend calls eval_run(). It
 * drives the same sequence as `kgb eval --backend slurm --run-dir DIR` run again and again
 * (slurm_run_submit(): plan, submit the shards, resubmit failed ones, merge once all are done),
 * every SERVE_SLURM_POLL_S, until the shards' stores are merged into the server's store; the
 * batch's records are then read from the merged run, as the local backend reads them from its
 * own. The shards run `kgb eval` on the compute nodes (the plan's command), so a candidate is
 * judged there exactly as anywhere: same sandbox, same judge, same store keys.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "eval.h"
#include "eval_shard.h"
#include "serve.h"
#include "slurm_run.h"
#include "store.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* Seconds between two rounds of the sequence (each asks squeue and sacct once). */
#define SERVE_SLURM_POLL_S 3.0
/* Rounds in a row that may fail (Slurm unreachable, sbatch refusing) before the batch does. */
#define SERVE_SLURM_MAX_FAILED_ROUNDS 20

struct phase {
	struct serve *s;
	struct eval_opts *eo;
	json_t *recs; /* by submission id, once merged; owned */
};

/* slurm_run_driver.plan_platform: the batch's tasks (one candidate per submission). */
static int plan_platform(void *data, const struct catalog *cat, const struct profile *prof,
			 const char *platform, struct slurm_plan *plan)
{
	struct phase *ph = data;

	return eval_plan_platform(ph->eo, ph->s->o.slurm, cat, prof, platform, plan);
}

/* slurm_run_driver.report: the shards are merged into the server's store; read the records. */
static int merged(void *data, const struct catalog *cat, struct store *store,
		  const char *store_path, const char *label, struct strbuf *err)
{
	struct phase *ph = data;
	long long *ids = NULL;
	char **plats = NULL;
	size_t nr = 0;
	json_t *recs = json_object();
	int r;

	(void)cat;
	r = store_merge_runs(store, label, &ids, &plats, &nr, err);
	for (size_t i = 0; r == 0 && i < nr; i++) {
		json_t *one = serve_run_records(store, ids[i], plats[i], store_path, err);

		if (!one) {
			r = -EIO;
			break;
		}
		json_object_update(recs, one);
		json_decref(one);
	}
	free(ids);
	strv_free(plats);
	if (r < 0) {
		json_decref(recs);
		return r;
	}
	ph->recs = recs;
	return KGB_EXIT_OK;
}

/* Waits up to `seconds`, or less when the server stops: whether it stops. */
static bool wait_or_stop(struct serve *s, double seconds)
{
	struct timespec until;
	bool stopping;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)seconds;
	until.tv_nsec += (long)((seconds - floor(seconds)) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->lock);
	while (!s->stopping && pthread_cond_timedwait(&s->changed, &s->lock, &until) == 0)
		;
	stopping = s->stopping;
	pthread_mutex_unlock(&s->lock);
	return stopping;
}

json_t *serve_slurm_phase(struct serve *s, struct eval_opts *eo, const char *run_dir,
			  int *ret_exit)
{
	struct slurm_run_opts sr = *s->o.slurm; /* a shallow copy: its arrays stay the server's */
	struct phase ph = {.s = s, .eo = eo};
	/* "eval": the shards' command (the plan runs `kgb eval --run-dir DIR --shard K`). */
	struct slurm_run_driver d = {.cmd = "eval", .platform = eo->platform,
				     .store_path = s->o.store_path, .quiet = true,
				     .verbose = s->kctx.verbose, .plan_platform = plan_platform,
				     .report = merged, .data = &ph};
	unsigned failed = 0;
	int r;

	sr.run_dir = run_dir;
	/* The plan holds the seed (a `ranked` run's is the server's secret): the owner's only. */
	if (mkdir_p(run_dir, 0700) < 0 || chmod(run_dir, 0700) < 0) {
		fprintf(stderr, "kgb serve: cannot create '%s': %s\n", run_dir, strerror(errno));
		*ret_exit = KGB_EXIT_ENV;
		return NULL;
	}
	for (;;) {
		r = slurm_run_submit(&sr, &d, &s->kctx, eval_shard_args(eo, sr.cpus_per_task));
		if (ph.recs) {
			*ret_exit = KGB_EXIT_OK;
			return ph.recs;
		}
		/* Slurm unreachable or a submission refused: maybe better next round. */
		if (r == KGB_EXIT_ENV && ++failed < SERVE_SLURM_MAX_FAILED_ROUNDS)
			r = KGB_EXIT_OK;
		else if (r == KGB_EXIT_OK)
			failed = 0;
		if (r != KGB_EXIT_OK) {
			fprintf(stderr, "kgb serve: the Slurm run in '%s' failed (exit %d, said "
				"above)\n", run_dir, r);
			*ret_exit = r;
			return NULL;
		}
		if (wait_or_stop(s, SERVE_SLURM_POLL_S)) {
			fprintf(stderr, "kgb serve: leaving the Slurm run in '%s' unfinished\n",
				run_dir);
			*ret_exit = KGB_EXIT_INTERRUPTED;
			return NULL;
		}
	}
}
