/*
 * cmd_merge.c - `kgb merge DEST SHARD...`: folds shard stores (a Slurm run's DIR/shard-K.db,
 * or any kgb store) into DEST, idempotently (store_merge(): same key = same result; merging
 * twice adds nothing), one transaction per shard file, and links every merged candidate to
 * one run of DEST per platform (docs/cluster.md).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgb.h"
#include "store.h"
#include "util/fs.h"
#include "util/xalloc.h"

static void usage(void)
{
	printf("usage: kgb merge [--label L] [--json] DEST SHARD...\n"
	       "\n"
	       "Folds the shard stores into DEST: each evaluation once (by its content address),\n"
	       "with its cases, and one run of DEST per platform that links every candidate of\n"
	       "the shards. Merging the same shards again adds nothing. Run it on one node.\n"
	       "\n"
	       "  --label L   the merged run's name (default: slurm:<the first shard's directory>,\n"
	       "              the name `kgb eval --backend slurm` gives its run)\n"
	       "  --json      one kgb.merge.v1 record with the counts\n");
}

int cmd_merge(int argc, char **argv, struct kgb_ctx *ctx)
{
	enum { OPT_LABEL = 0x100, OPT_JSON };
	static const struct option opts[] = {
		{"label", required_argument, NULL, OPT_LABEL},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct strbuf err = STRBUF_INIT, label = STRBUF_INIT;
	struct store_merge_stats ms = {0};
	struct store *store = NULL;
	long long *ids = NULL;
	char **plats = NULL;
	size_t nr = 0;
	bool json = false;
	int c, r, ret = KGB_EXIT_OK;

	(void)ctx;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_LABEL:
			if (!*optarg)
				return kgb_usage_error("merge", "--label: expected a name");
			strbuf_addstr(&label, optarg);
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			usage();
			strbuf_release(&label);
			return KGB_EXIT_OK;
		default:
			strbuf_release(&label);
			return kgb_usage_error("merge", "unknown option");
		}
	}
	if (argc - optind < 2) {
		strbuf_release(&label);
		return kgb_usage_error("merge", "expected DEST and at least one SHARD store");
	}
	for (int i = optind + 1; i < argc; i++) {
		if (!path_is_file(argv[i])) {
			fprintf(stderr, "kgb merge: shard store '%s': no such file\n", argv[i]);
			ret = KGB_EXIT_DATA;
			goto out;
		}
		if (!strcmp(argv[i], argv[optind])) {
			ret = kgb_usage_error("merge", "'%s' is both DEST and a shard", argv[i]);
			goto out;
		}
		/* Each shard is a store before DEST is made: a wrong argument leaves no DEST. */
		if (store_open_readonly(argv[i], &store, &err) < 0) {
			fprintf(stderr, "kgb merge: shard store: %s\n", err.buf);
			ret = KGB_EXIT_DATA;
			goto out;
		}
		store_free(store);
		store = NULL;
	}
	if (!label.len) {
		char *abs = path_abs(argv[optind + 1]), *dir;

		dir = abs ? dirname(abs) : ".";
		strbuf_addf(&label, "slurm:%s", dir);
		free(abs);
	}
	r = store_open(argv[optind], &store, &err);
	for (int i = optind + 1; r == 0 && i < argc; i++)
		r = store_merge(store, argv[i], label.buf, &ms, &err);
	if (r == 0)
		r = store_merge_runs(store, label.buf, &ids, &plats, &nr, &err);
	if (r < 0) {
		fprintf(stderr, "kgb merge: %s\n", err.buf);
		ret = r == -EBUSY ? KGB_EXIT_ENV : KGB_EXIT_DATA;
		goto out;
	}
	if (json) {
		json_t *runs = json_array(), *rec;
		char *line;

		for (size_t i = 0; i < nr; i++)
			json_array_append_new(runs, json_pack("{s:I, s:s}", "run", (json_int_t)ids[i],
							      "platform", plats[i]));
		rec = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "schema",
				"kgb.merge.v1", "store", argv[optind], "label", label.buf,
				"shards", (json_int_t)(argc - optind - 1), "evaluations_added",
				(json_int_t)ms.evaluations_added, "evaluations_known",
				(json_int_t)ms.evaluations_known, "conflicts",
				(json_int_t)ms.conflicts, "cases_added", (json_int_t)ms.cases_added,
				"links_added", (json_int_t)ms.links_added, "ceilings_added",
				(json_int_t)ms.ceilings_added, "generations_added",
				(json_int_t)ms.generations_added, "runs", runs);
		line = json_dumps(rec, JSON_COMPACT);
		printf("%s\n", line);
		free(line);
		json_decref(rec);
	} else {
		printf("merged %d shard store%s into %s: %lld evaluations added (%lld cases), %lld "
		       "already there, %lld candidates linked anew\n",
		       argc - optind - 1, argc - optind - 1 == 1 ? "" : "s", argv[optind],
		       ms.evaluations_added, ms.cases_added, ms.evaluations_known, ms.links_added);
		for (size_t i = 0; i < nr; i++)
			printf("run %lld (%s): 'kgb report --store %s --run %lld'\n", ids[i], plats[i],
			       argv[optind], ids[i]);
	}
	if (ms.conflicts)
		fprintf(stderr, "kgb merge: %lld evaluations were already stored with another "
			"verdict under the same key; kept as they were\n", ms.conflicts);
out:
	free(ids);
	strv_free(plats);
	store_free(store);
	strbuf_release(&label);
	strbuf_release(&err);
	return ret;
}
