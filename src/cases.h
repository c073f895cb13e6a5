/*
 * cases.h - case generation: the seeded Cartesian product of an entry's axes (DESIGN §3).
 *
 * cases_generate() expands every entry of a task into concrete cases: it takes the product of
 * the axes the entry references (first axis slowest), substitutes the axis values into the
 * argument templates, fills descriptor defaults (layout, dist), validates the resolved values,
 * and computes each case's tolerance, cost model and seed. Perf cases (the entry's `perf`
 * axes) are added with CASES_PERF, i.e. on platforms that time; held-out cases with
 * CASES_HELDOUT: the product of the entry's `heldout` axes (shapes never shown to a model or an
 * agent's verify tool), then up to CASES_RESEEDED of its regular cases again with another seed
 * (values no public case draws), chosen by the run seed among those with drawn inputs.
 *
 * Ownership: a case_list owns its cases and their JSON; release with case_list_release().
 * Errors: -EINVAL or -E2BIG, with "entries[i] case N: what" in err (the caller adds the file).
 */
#ifndef KGB_CASES_H
#define KGB_CASES_H

#include <jansson.h>
#include <stdbool.h>

#include "catalog.h"
#include "tolerance.h"
#include "util/compiler.h"
#include "util/strbuf.h"

#define CASES_MAX_PER_ENTRY 4096
/* The most steps a pairwise cover may take to build (cover_pairwise_cost): about a second. */
#define CASES_MAX_COVER_WORK 200000000
/* Largest tensor a case may ask for, in elements (16 Gi): guards typos in task files. */
#define CASES_MAX_NUMEL (1LL << 34)
/* Regular cases of each entry that CASES_HELDOUT repeats with a held-out seed. */
#define CASES_RESEEDED 2

struct case_desc {
	size_t entry_idx;
	const char *entry;  /* entry name, borrowed from the task */
	bool timed;
	bool heldout;
	bool reseeded; /* held out: a regular case's axes again, with another seed */
	unsigned long long seed;
	json_t *axes;	    /* owned: axis name -> value, only the axes the entry references */
	json_t *args;	    /* owned: fully resolved argument list */
	char out_dtype[16];
	struct tolerance tol;
	double reduce, scale;
	double bytes, flops; /* < 0 when the task gives no cost model */
};

struct case_list {
	struct case_desc *v;
	size_t nr, alloc;
};

enum cases_flags {
	CASES_PERF = 1 << 0,
	CASES_HELDOUT = 1 << 1,
};

int cases_generate(const struct task *t, unsigned flags, unsigned long long run_seed,
		   struct case_list *ret, struct strbuf *err) KGB_WUR;
void case_list_release(struct case_list *l);
/* One-line "shape=[40999] dtype=float16 layout=strided" rendering of a case's axes; owned. */
char *cases_axes_summary(json_t *axes);

#endif
