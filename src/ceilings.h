/*
 * ceilings.h - the device's speed-of-light (DESIGN §5): its measured copy bandwidth and matrix
 * throughput, and each timed case's fraction of them.
 *
 * runtime/ceilings.py measures them with the harness's own timing method; ceilings_get() runs it
 * once per device and software stack (torch, triton, CUDA) and keeps the result in the store, so
 * later runs only read it. A timed case's fraction is the larger of achieved GB/s over the copy
 * ceiling and achieved TFLOP/s over the matrix ceiling of its output dtype (the largest matrix
 * ceiling when its dtype has none measured: never an overestimate). Above CEILINGS_SOL_LIMIT the
 * case is faster than the device can be: flagged, and its speedup never counted (issue 4).
 */
#ifndef KGB_CEILINGS_H
#define KGB_CEILINGS_H

#include <jansson.h>
#include <stdbool.h>

#include "util/compiler.h"
#include "util/strbuf.h"

/*
 * The measured copy ceiling is a torch device-to-device copy; HBM's nominal peak is higher (on
 * the H200, 4.8 TB/s nominal against 4.18 measured: 1.15x). Above 1.25x the measured ceiling no
 * honest kernel reaches: the cost model is wrong or the work was not done.
 */
#define CEILINGS_SOL_LIMIT 1.25

struct store;

struct ceilings {
	bool known;
	double copy_gbps;
	double mm_tflops_f16, mm_tflops_bf16, mm_tflops_f32; /* NAN when not measured */
};

/* From runtime/ceilings.py's JSON; -EBADMSG with err set when a field is missing or not > 0. */
int ceilings_from_json(json_t *j, struct ceilings *ret, struct strbuf *err) KGB_WUR;

/*
 * The ceilings of the device the probe describes (runtime.platform's JSON), from the store, or
 * measured now with `python -m runtime.ceilings` and stored. *ret_json (a new reference) is
 * what was measured, for the run's record.
 */
int ceilings_get(struct store *s, const char *root, const char *python, json_t *probe,
                 struct ceilings *ret, json_t **ret_json, struct strbuf *err) KGB_WUR;

/* The fraction of speed-of-light of a case with these achieved rates (< 0: not given); NAN
 * when nothing is known. */
double ceilings_fraction(const struct ceilings *c, const char *dtype, double gbps, double tflops);

#endif
