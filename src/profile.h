/*
 * profile.h - platform profiles: what kgb knows about a kind of accelerator, as data.
 *
 * One JSON file per platform under <root>/platforms/ (docs/platforms.md): how to detect it from
 * the runtime probe (runtime/platform.py), the worker runtime that runs on it ("cuda",
 * "interpreter"; "rocm", "xpu", "npu" and "musa" are described but have no runtime in kgb
 * yet), its visible-
 * devices variable, Triton backend, timing method, tolerance multipliers per dtype, the task
 * sources it supports, its features, the prompt fragment a model gets for it, and whether it
 * was verified on real hardware.
 *
 * profile_load_all() reads and validates every file (errors name the file and the field);
 * profile_detect() picks the profile a probe matches (the most specific rule wins);
 * profile_resolve() turns a --platform argument, a profile name or a runtime name (the
 * runtime's default profile), into a profile. Profiles are owned by their profile_set.
 */
#ifndef KGB_PROFILE_H
#define KGB_PROFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "cases.h"
#include "util/compiler.h"
#include "util/hash.h"
#include "util/strbuf.h"

struct profile {
	char *name;	      /* the file's stem: "nvidia-hopper" */
	char *runtime;	      /* "cuda", "interpreter", "rocm", "xpu", "npu", "musa" */
	bool verified;	      /* run on real hardware by this project (bench/results/) */
	bool runtime_default; /* the profile a bare runtime name (--platform cuda) means */
	char *backend;	      /* detect: the probe's "backend" must equal this */
	double cap_min, cap_max; /* detect: the probe's compute capability in [min, max]; NAN: any */
	char *arch_prefix;	 /* detect: the probe's "arch" starts with this (AMD gfx); or NULL */
	/* detect: one of these is a case-insensitive substring of the probe's "device_name"
	 * (a vendor whose torch looks like CUDA or HIP: "Iluvatar", "MetaX"); NULL: any. */
	char **device_name;
	char *visible_devices, *triton_backend, *timing, *prompt;
	double tol_mult[4]; /* float16, bfloat16, float32, float64 (complex: its component) */
	json_t *sources;    /* array of source names, owned */
	json_t *features;   /* object, owned */
	char digest[HASH_HEX_LEN + 1]; /* sha256 of the file: results are keyed by it */
};

struct profile_set {
	struct profile *v;
	size_t n;
};

/* -ENOENT when the directory is missing; other errors list every bad file and field. */
int profile_load_all(const char *root, struct profile_set *ret, struct strbuf *err) KGB_WUR;
void profile_set_release(struct profile_set *s);

const struct profile *profile_find(const struct profile_set *s, const char *name);
/* A profile name, or a runtime name meaning its default profile; NULL when neither. */
const struct profile *profile_resolve(const struct profile_set *s, const char *name);
/* The profile a runtime probe matches, most specific rule first (a device_name rule beats
 * capability and arch rules, which beat a bare backend); NULL when none does. */
const struct profile *profile_detect(const struct profile_set *s, json_t *probe);
/* Whether kgb has a worker runtime for it (cuda, interpreter). */
bool profile_runnable(const struct profile *p);
bool profile_supports_source(const struct profile *p, const char *source);
/* The tolerance multiplier for an output dtype: 1 for exact and unknown dtypes. */
double profile_tol_mult(const struct profile *p, const char *dtype);
/* A boolean of the profile's features: false only when the profile says false. */
bool profile_feature(const struct profile *p, const char *name);
/*
 * Removes from `l` the cases this platform cannot judge honestly and returns how many:
 * with the feature "bf16" false (Triton's interpreter adds bfloat16 values as raw 16-bit
 * integers), every case with a bfloat16 argument, axis or output. Such a case is not the
 * candidate's failure: it is not run, and `why` gets one phrase saying how many and why
 * (nothing when none was dropped). The order of the cases left is kept.
 */
size_t profile_drop_unsupported(const struct profile *p, struct case_list *l,
				struct strbuf *why);
/*
 * What the platform does to a task's cases before they run, for every command that plans
 * jobs (eval, lint --deep): drops what it cannot judge (profile_drop_unsupported, the count
 * returned, `why` as there) and multiplies each case's tolerances by its output dtype's
 * multiplier (profile_tol_mult).
 */
size_t profile_apply(const struct profile *p, struct case_list *l, struct strbuf *why);

#endif
