/*
 * catalog.h - the task catalog: reads and validates tasks/<source>/<op>/task.json.
 *
 * catalog_load() walks a tasks directory, parses every task.json with jansson and validates it
 * against docs/task-format.md. Tasks that validate are kept; every problem found is appended to
 * `errs` as one line "file: json.path: what was expected" (so `kgb lint` reports them all), and
 * the call returns -EINVAL if there was at least one. Case generation (cases.h) validates the
 * resolved values of every case on top of this.
 *
 * Ownership: a struct catalog owns its tasks, which own their spec JSON; entry fields that are
 * json_t * are borrowed from the spec unless marked "owned". Free with catalog_free().
 */
#ifndef KGB_CATALOG_H
#define KGB_CATALOG_H

#include <jansson.h>
#include <stdbool.h>

#include "util/compiler.h"
#include "util/hash.h"
#include "util/strbuf.h"

/* Caps on what a task file can make kgb hold. */
#define CATALOG_MAX_SPEC_BYTES (4u << 20)
#define CATALOG_MAX_ENTRIES 64
#define CATALOG_MAX_ARGS 64

struct task_entry {
	char *name;	    /* identifier, owned */
	const char *signature; /* borrowed from spec */
	json_t *args;	    /* array, borrowed */
	json_t *axes;	    /* merged shared+entry axes, owned */
	json_t *perf_axes;  /* merged axes with perf laid over, owned; NULL without perf */
	json_t *heldout_axes; /* merged axes with heldout laid over, owned; NULL without */
	json_t *heldout_over; /* the task's and entry's heldout axes, merged; owned, or NULL */
	json_t *mutates;    /* array of arg names, borrowed (or owned empty array) */
	json_t *returns;     /* "value", "none", an arg name, or a list of arg names; owned */
	const char *reference_precision; /* "float64" or "native"; borrowed */
	json_t *reduce, *scale, *bytes, *flops, *out_dtype; /* expressions or NULL, borrowed */
	double atol_mult, rtol_mult;
	bool cover_pairwise; /* "cover": "pairwise": its cases cover every value pair, not the product */
	json_t *exempt;	     /* check name -> why it cannot apply to this entry, borrowed, or NULL */
	json_t *degenerate;  /* size the grid cannot reach -> why (docs/task-format.md), or NULL */
};

struct task {
	char *op, *source, *kind; /* owned */
	char *dir;		  /* absolute path of the task directory, owned */
	json_t *spec;		  /* parsed task.json, owned */
	json_t *platforms;	  /* array of platform names or NULL (all), borrowed */
	struct task_entry *entries;
	size_t nr_entries;
	long long seed;
	json_t *exempt;		  /* check name -> why it cannot apply (kgb lint --deep), borrowed */
	json_t *allow;		  /* extra names the L1 scan allows (strings) or NULL, borrowed */
	json_t *degenerate;	  /* like an entry's, for every entry; borrowed or NULL */
	char version[HASH_HEX_LEN + 1]; /* sha256 of task.json, reference.py and prompt.md */
};

struct catalog {
	struct task *tasks; /* sorted by source, then op */
	size_t nr_tasks;
};

/* Sources in catalog order. */
extern const char *const catalog_sources[];
/* Whether `source` names one of catalog_sources (the --source check of list and methods). */
bool catalog_source_known(const char *source);
/* What speedups of `source` are measured against, in words (a static string). */
const char *catalog_source_baseline(const char *source);
/* The mutants of `kgb lint --deep`, as runtime/mutants.py names them. */
extern const char *const catalog_mutants[];

int catalog_load(const char *tasks_dir, struct catalog **ret, struct strbuf *errs) KGB_WUR;
void catalog_free(struct catalog *cat);
/* Finds a task by op name, or "source/op"; NULL when absent. Borrowed. */
const struct task *catalog_find(const struct catalog *cat, const char *name);
/* Whether the task may run on `platform` (its `platforms` list, or all). */
bool task_supports_platform(const struct task *t, const char *platform);
/* Path of a file in the task directory; owned by the caller. */
char *task_path(const struct task *t, const char *file);
/* The task's reason why `check` (validity, ghost or a mutant) does not apply, or NULL. Borrowed. */
const char *task_exemption(const struct task *t, const char *check);
/*
 * Why `check` does not apply to entry `entry_idx`: the entry's own reason, else the task's, or
 * NULL. Borrowed.
 */
const char *task_entry_exemption(const struct task *t, size_t entry_idx, const char *check);
/*
 * The degenerate sizes `kgb lint` requires of every case grid (audit.h), as `degenerate` keys
 * of task.json name them: empty, size1, npot, dim_size1.
 */
extern const char *const catalog_degenerate_keys[];
/* Whether `name` is a dtype the runtime knows. */
bool catalog_is_dtype(const char *name);
/* Whether `name` is a tensor layout / value distribution the runtime knows. */
bool catalog_is_layout(const char *name);
bool catalog_is_dist(const char *name);
/* Whether `name` is a lazy bit of a tensor descriptor: none, conj or neg. */
bool catalog_is_bit(const char *name);
/* Whether `name` is a memory format name of a `memory_format` argument (contiguous_format, ...). */
bool catalog_is_memory_format(const char *name);
/*
 * Whether `s` is one of the spellings of a non-finite float ("inf", "-inf", "nan"): JSON has no
 * such numbers, so task.json writes them as these strings wherever a value may be a float.
 */
bool catalog_is_nonfinite(const char *s);

#endif
