/*
 * profile.c - loading, validating and matching the platform profiles (profile.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util/fs.h"
#include "util/xalloc.h"

static const char *const tol_dtypes[] = {"float16", "bfloat16", "float32", "float64"};
/* rocm, xpu, npu and musa are described only: kgb has no worker runtime for them yet. */
static const char *const runtimes[] = {"cuda", "interpreter", "rocm", "xpu", "npu", "musa", NULL};
/* The probe's backend (runtime/platform.py): npu is torch_npu's torch.npu (Huawei Ascend),
 * musa torch_musa's torch.musa (Moore Threads). */
static const char *const backends[] = {"cuda", "hip", "xpu", "npu", "musa", "cpu", NULL};
static const char *const timings[] = {"events", "none", NULL};
static const char *const sources[] = {"aten", "vllm", "cublas", NULL};

/* "9.0" -> 9.0; NAN when not "<major>.<minor>". */
static double capability(const char *s)
{
	char *end;
	double v = s ? strtod(s, &end) : NAN;

	return s && end != s && *end == '\0' && v >= 0 ? v : NAN;
}

struct vctx {
	const char *file;
	struct strbuf *err;
	int bad;
};

static void verr(struct vctx *v, const char *field, const char *what)
{
	strbuf_addf(v->err, "%s: %s: %s\n", v->file, field, what);
	v->bad++;
}

/* o's string `key`, one of `allowed` (any non-empty string when NULL); errors name `field`. */
static char *req_enum_at(struct vctx *v, json_t *o, const char *key, const char *field,
			 const char *const *allowed)
{
	const char *s = json_string_value(json_object_get(o, key));
	struct strbuf w = STRBUF_INIT;

	if (s && (!allowed || strv_contains(allowed, s)) && *s)
		return xstrdup(s);
	strbuf_addstr(&w, allowed ? "expected one of" : "expected a non-empty string");
	for (const char *const *a = allowed; a && *a; a++)
		strbuf_addf(&w, " %s", *a);
	verr(v, field, w.buf);
	strbuf_release(&w);
	return NULL;
}

static char *req_enum(struct vctx *v, json_t *o, const char *key, const char *const *allowed)
{
	return req_enum_at(v, o, key, key, allowed);
}

/* detect.device_name: a non-empty string, or a non-empty list of them; NULL otherwise. */
static char **device_names(json_t *x)
{
	size_t n = json_is_array(x) ? json_array_size(x) : 1, i;
	char **v;
	json_t *e;

	if (json_is_string(x) && *json_string_value(x)) {
		v = xcalloc(2, sizeof(*v));
		v[0] = xstrdup(json_string_value(x));
		return v;
	}
	if (!json_is_array(x) || !n)
		return NULL;
	json_array_foreach(x, i, e) {
		if (!json_is_string(e) || !*json_string_value(e))
			return NULL;
	}
	v = xcalloc(n + 1, sizeof(*v));
	json_array_foreach(x, i, e)
		v[i] = xstrdup(json_string_value(e));
	return v;
}

static int load_one(const char *path, const char *stem, struct profile *p, struct strbuf *err)
{
	struct vctx v = {.file = path, .err = err};
	json_error_t je;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je), *d, *x, *tol;
	struct hash h;
	const char *key;

	memset(p, 0, sizeof(*p));
	if (!root || !json_is_object(root)) {
		strbuf_addf(err, "%s:%d: %s\n", path, root ? 1 : je.line,
			    root ? "expected a JSON object" : je.text);
		json_decref(root);
		return -EINVAL;
	}
	p->name = xstrdup(stem);
	if (json_integer_value(json_object_get(root, "schema")) != 1)
		verr(&v, "schema", "expected 1");
	if (strcmp(json_string_value(json_object_get(root, "name")) ?: "", stem))
		verr(&v, "name", "expected the file's name without .json");
	p->runtime = req_enum(&v, root, "runtime", runtimes);
	p->verified = json_is_true(json_object_get(root, "verified"));
	if (!json_is_boolean(json_object_get(root, "verified")))
		verr(&v, "verified", "expected true or false");
	p->runtime_default = json_is_true(json_object_get(root, "runtime_default"));
	d = json_object_get(root, "detect");
	if (!json_is_object(d)) {
		verr(&v, "detect", "expected an object");
	} else {
		json_t *cap = json_object_get(d, "capability");

		p->backend = req_enum_at(&v, d, "backend", "detect.backend", backends);
		p->cap_min = p->cap_max = NAN;
		if (cap) {
			p->cap_min = capability(json_string_value(json_array_get(cap, 0)));
			p->cap_max = capability(json_string_value(json_array_get(cap, 1)));
			if (json_array_size(cap) != 2 || isnan(p->cap_min) || isnan(p->cap_max) ||
			    p->cap_min > p->cap_max)
				verr(&v, "detect.capability", "expected [\"min\", \"max\"], e.g. "
					 "[\"9.0\", \"9.9\"]");
		}
		if ((x = json_object_get(d, "arch_prefix")))
			p->arch_prefix = json_is_string(x) ? xstrdup(json_string_value(x)) : NULL;
		if (x && !p->arch_prefix)
			verr(&v, "detect.arch_prefix", "expected a string");
		if ((x = json_object_get(d, "device_name")))
			p->device_name = device_names(x);
		if (x && !p->device_name)
			verr(&v, "detect.device_name", "expected a non-empty string or a non-empty list "
				 "of them (case-insensitive substrings of the probe's device_name)");
		json_object_foreach(d, key, x) {
			static const char *const keys[] = {"backend", "capability", "arch_prefix",
							   "device_name", NULL};

			if (!strv_contains(keys, key))
				verr(&v, "detect", "unknown key (backend, capability, arch_prefix, "
					 "device_name)");
		}
	}
	p->visible_devices = req_enum(&v, root, "visible_devices", NULL);
	p->triton_backend = req_enum(&v, root, "triton_backend", NULL);
	p->timing = req_enum(&v, root, "timing", timings);
	p->prompt = req_enum(&v, root, "prompt", NULL);
	tol = json_object_get(root, "tolerance");
	for (size_t i = 0; i < 4; i++) {
		json_t *m = json_object_get(tol, tol_dtypes[i]);

		p->tol_mult[i] = json_is_number(m) ? json_number_value(m) : NAN;
		if (!(p->tol_mult[i] > 0) || !isfinite(p->tol_mult[i]))
			verr(&v, "tolerance", "expected a positive multiplier for each of float16, "
				 "bfloat16, float32, float64");
	}
	p->sources = json_incref(json_object_get(root, "sources"));
	if (!json_is_array(p->sources) || !json_array_size(p->sources)) {
		verr(&v, "sources", "expected a non-empty list of aten, vllm, cublas");
	} else {
		size_t i;

		json_array_foreach(p->sources, i, x) {
			if (!json_is_string(x) || !strv_contains(sources, json_string_value(x)))
				verr(&v, "sources", "expected a non-empty list of aten, vllm, cublas");
		}
	}
	p->features = json_incref(json_object_get(root, "features"));
	if (!json_is_object(p->features))
		verr(&v, "features", "expected an object");
	json_object_foreach(root, key, x) {
		static const char *const known[] = {
			"schema", "name", "runtime", "verified", "runtime_default", "detect",
			"visible_devices", "triton_backend", "timing", "tolerance", "sources",
			"features", "prompt", "notes", NULL};

		if (!strv_contains(known, key)) {
			struct strbuf w = STRBUF_INIT;

			strbuf_addf(&w, "unknown field '%s'", key);
			verr(&v, key, w.buf);
			strbuf_release(&w);
		}
	}
	json_decref(root);
	hash_init(&h);
	if (hash_update_file(&h, path, stem) < 0)
		verr(&v, "(file)", "cannot be read again for its digest");
	hash_hex(&h, p->digest);
	return v.bad ? -EINVAL : 0;
}

static void profile_release(struct profile *p)
{
	free(p->name);
	free(p->runtime);
	free(p->backend);
	free(p->arch_prefix);
	strv_free(p->device_name);
	free(p->visible_devices);
	free(p->triton_backend);
	free(p->timing);
	free(p->prompt);
	json_decref(p->sources);
	json_decref(p->features);
}

void profile_set_release(struct profile_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		profile_release(&s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

int profile_load_all(const char *root, struct profile_set *ret, struct strbuf *err)
{
	char *dir = path_join(root, "platforms"), **names = NULL;
	struct profile_set s = {0};
	int r = list_dir_sorted(dir, &names), bad = 0;

	if (r < 0) {
		strbuf_addf(err, "cannot read the platform profiles in '%s': %s\n", dir, strerror(-r));
		free(dir);
		return r;
	}
	for (char **n = names; *n; n++) {
		size_t len = strlen(*n);
		char *path, *stem;

		if (len < 6 || strcmp(*n + len - 5, ".json"))
			continue;
		path = path_join(dir, *n);
		stem = xstrndup(*n, len - 5);
		s.v = xrealloc(s.v, (s.n + 1) * sizeof(*s.v));
		if (load_one(path, stem, &s.v[s.n], err) < 0)
			bad++;
		s.n++;
		free(path);
		free(stem);
	}
	strv_free(names);
	free(dir);
	/* One default per runtime, so that --platform cuda means one thing. */
	for (size_t i = 0; i < s.n && !bad; i++)
		for (size_t j = i + 1; j < s.n; j++)
			if (s.v[i].runtime_default && s.v[j].runtime_default && s.v[i].runtime &&
			    s.v[j].runtime && !strcmp(s.v[i].runtime, s.v[j].runtime)) {
				strbuf_addf(err, "platforms/%s.json: runtime_default: '%s' already has "
					    "its default, %s\n", s.v[j].name, s.v[j].runtime,
					    s.v[i].name);
				bad++;
			}
	if (bad || !s.n) {
		if (!s.n)
			strbuf_addf(err, "no platform profile (platforms/*.json) found\n");
		profile_set_release(&s);
		return -EINVAL;
	}
	*ret = s;
	return 0;
}

const struct profile *profile_find(const struct profile_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

const struct profile *profile_resolve(const struct profile_set *s, const char *name)
{
	const struct profile *p = profile_find(s, name);

	for (size_t i = 0; !p && i < s->n; i++)
		if (s->v[i].runtime_default && !strcmp(s->v[i].runtime, name))
			p = &s->v[i];
	return p;
}

/*
 * How specific a matching rule is: capability and arch rules beat a bare backend rule, and a
 * device_name rule beats any of them (3 > capability + arch), so that a vendor whose torch
 * looks like CUDA or HIP (Iluvatar, MetaX, Hygon) is told apart by its device name while an
 * NVIDIA or AMD device, whose name matches no such rule, detects as before.
 */
static int match(const struct profile *p, json_t *probe)
{
	const char *backend = json_string_value(json_object_get(probe, "backend"));
	const char *arch = json_string_value(json_object_get(probe, "arch"));
	const char *name = json_string_value(json_object_get(probe, "device_name"));
	double cap = capability(json_string_value(json_object_get(probe, "capability")));
	int score = 1;

	/* A probe from before "backend" existed: its "cuda" flag says which. */
	if (!backend)
		backend = json_is_true(json_object_get(probe, "cuda")) ? "cuda" : "cpu";
	if (strcmp(p->backend, backend))
		return 0;
	if (!isnan(p->cap_min)) {
		if (isnan(cap) || cap < p->cap_min || cap > p->cap_max + 1e-9)
			return 0;
		score++;
	}
	if (p->arch_prefix) {
		if (!arch || strncmp(arch, p->arch_prefix, strlen(p->arch_prefix)))
			return 0;
		score++;
	}
	if (p->device_name) {
		char **n = p->device_name;

		while (name && *n && !strcasestr(name, *n))
			n++;
		if (!name || !*n)
			return 0;
		score += 3;
	}
	return score;
}

const struct profile *profile_detect(const struct profile_set *s, json_t *probe)
{
	const struct profile *best = NULL;
	int best_score = 0;

	for (size_t i = 0; i < s->n; i++) {
		int m = match(&s->v[i], probe);

		if (m > best_score) {
			best = &s->v[i];
			best_score = m;
		}
	}
	return best;
}

bool profile_runnable(const struct profile *p)
{
	return !strcmp(p->runtime, "cuda") || !strcmp(p->runtime, "interpreter");
}

bool profile_supports_source(const struct profile *p, const char *source)
{
	json_t *x;
	size_t i;

	json_array_foreach(p->sources, i, x) {
		if (!strcmp(json_string_value(x), source))
			return true;
	}
	return false;
}

double profile_tol_mult(const struct profile *p, const char *dtype)
{
	const char *component = !strcmp(dtype, "complex64")    ? "float32"
				: !strcmp(dtype, "complex128") ? "float64"
							       : dtype;

	for (size_t i = 0; i < 4; i++)
		if (!strcmp(tol_dtypes[i], component))
			return p->tol_mult[i];
	return 1;
}

/* Whether a JSON value holds the string `s` anywhere (a dtype in an argument or axis). */
static bool json_mentions(json_t *v, const char *s)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_string(v))
		return !strcmp(json_string_value(v), s);
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (json_mentions(x, s))
				return true;
	} else if (json_is_object(v)) {
		json_object_foreach(v, k, x)
			if (json_mentions(x, s))
				return true;
	}
	return false;
}

bool profile_feature(const struct profile *p, const char *name)
{
	json_t *v = json_object_get(p->features, name);

	return !json_is_false(v);
}

size_t profile_drop_unsupported(const struct profile *p, struct case_list *l, struct strbuf *why)
{
	size_t kept = 0, dropped = 0;

	if (profile_feature(p, "bf16"))
		return 0;
	for (size_t i = 0; i < l->nr; i++) {
		struct case_desc *c = &l->v[i];

		if (strcmp(c->out_dtype, "bfloat16") && !json_mentions(c->args, "bfloat16") &&
		    !json_mentions(c->axes, "bfloat16")) {
			l->v[kept++] = *c;
			continue;
		}
		json_decref(c->axes);
		json_decref(c->args);
		dropped++;
	}
	l->nr = kept;
	if (dropped)
		strbuf_addf(why, "%zu bfloat16 case%s not run: the %s platform computes bfloat16 "
			    "wrongly (its profile's feature bf16 is false)", dropped,
			    dropped == 1 ? "" : "s", p->name);
	return dropped;
}

size_t profile_apply(const struct profile *p, struct case_list *l, struct strbuf *why)
{
	size_t dropped = profile_drop_unsupported(p, l, why);

	for (size_t k = 0; k < l->nr; k++) {
		double m = profile_tol_mult(p, l->v[k].out_dtype);

		l->v[k].tol.atol *= m;
		l->v[k].tol.rtol *= m;
	}
	return dropped;
}
