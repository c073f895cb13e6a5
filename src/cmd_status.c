/*
 * cmd_status.c - `kgb status DIR`: the progress of a run submitted with `kgb eval --backend
 * slurm --run-dir DIR` (or `kgb generate`), from the shards' stores and squeue/sacct (slurm_run_status()); reads,
 * never submits or writes (docs/cluster.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "kgb.h"
#include "slurm.h"
#include "util/xalloc.h"

static void usage(void)
{
	printf("usage: kgb status [--json] DIR\n"
	       "\n"
	       "Per shard of the Slurm run in DIR: its job, its state (done, pending, running,\n"
	       "failed, cancelled, preempted, lost, new) and its candidates (of a generation\n"
	       "run: tasks) done of total. Rerunning the run's `kgb eval --backend slurm` (or\n"
	       "`kgb generate`) command resubmits every shard that is not done, pending or\n"
	       "running.\n"
	       "\n"
	       "  --json   kgb.slurm.shard.v1 per shard, then kgb.slurm.status.v1\n");
}

int cmd_status(int argc, char **argv, struct kgb_ctx *ctx)
{
	enum { OPT_JSON = 0x100 };
	static const struct option opts[] = {
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct strbuf err = STRBUF_INIT;
	struct slurm_plan plan = {0};
	struct slurm_shard_status *st = NULL;
	bool json = false;
	int c, r, ret = KGB_EXIT_OK;

	(void)ctx;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			usage();
			return KGB_EXIT_OK;
		default:
			return kgb_usage_error("status", "unknown option");
		}
	}
	if (argc - optind != 1)
		return kgb_usage_error("status", "expected one run directory");
	r = slurm_plan_load(argv[optind], &plan, &err);
	if (r < 0) {
		fprintf(stderr, "kgb status: %s\n", err.buf);
		ret = KGB_EXIT_DATA;
		goto out;
	}
	st = xcalloc(plan.nr_shards, sizeof(*st));
	r = slurm_run_status(&plan, argv[optind], st, &err);
	if (r == -EAGAIN) {
		/* What the stores say is still worth showing; Slurm's side is unknown. */
		fprintf(stderr, "kgb status: %s\n", err.buf);
		ret = KGB_EXIT_ENV;
		r = 0;
	}
	if (r < 0) {
		fprintf(stderr, "kgb status: %s\n", err.buf);
		ret = KGB_EXIT_DATA;
		goto out;
	}
	slurm_status_write(stdout, &plan, st, json);
out:
	free(st);
	slurm_plan_release(&plan);
	strbuf_release(&err);
	return ret;
}
