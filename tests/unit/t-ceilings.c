/* t-ceilings.c - speed-of-light: parsing the measured ceilings, the fraction, the store. */
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "ceilings.h"
#include "store.h"

/* The H200's, bench/results/h200-2026-12-03b/ceilings.json. */
static const char h200[] = "{\"device_name\": \"NVIDIA H200\", \"copy_gbps\": 4180.98, "
                           "\"mm_tflops\": {\"float16\": 744.4, \"bfloat16\": 791.4, "
                           "\"float32\": 50.8}, \"method\": \"cuda events\"}";

static void load(const char *text, struct ceilings *c, int want)
{
	struct strbuf err = STRBUF_INIT;
	json_t *j = json_loads(text, 0, NULL);

	assert_non_null(j);
	assert_int_equal(ceilings_from_json(j, c, &err), want);
	if (want)
		assert_true(err.len > 0);
	json_decref(j);
	strbuf_release(&err);
}

static void test_parse(void **state)
{
	struct ceilings c;

	(void)state;
	load(h200, &c, 0);
	assert_true(c.known);
	assert_close(c.copy_gbps, 4180.98, 1e-9);
	assert_close(c.mm_tflops_bf16, 791.4, 1e-9);
	load("{\"mm_tflops\": {\"float16\": 1}}", &c, -EBADMSG);
	assert_false(c.known);
	load("{\"copy_gbps\": 0, \"mm_tflops\": {\"float16\": 1}}", &c, -EBADMSG);
	load("{\"copy_gbps\": 10, \"mm_tflops\": {}}", &c, -EBADMSG);
	load("{\"copy_gbps\": 10, \"mm_tflops\": {\"float32\": -1}}", &c, -EBADMSG);
	/* one matrix dtype is enough; the others stay unknown */
	load("{\"copy_gbps\": 10, \"mm_tflops\": {\"float32\": 5}}", &c, 0);
	assert_true(isnan(c.mm_tflops_f16));
}

static void test_fraction(void **state)
{
	struct ceilings c, none = {0};

	(void)state;
	load(h200, &c, 0);
	/* bandwidth-bound: half the copy ceiling */
	assert_close(ceilings_fraction(&c, "float32", 4180.98 / 2, -1), 0.5, 1e-12);
	/* compute-bound, by the output dtype's matrix ceiling */
	assert_close(ceilings_fraction(&c, "float16", -1, 372.2), 0.5, 1e-12);
	assert_close(ceilings_fraction(&c, "float32", -1, 25.4), 0.5, 1e-12);
	/* both given: the larger */
	assert_close(ceilings_fraction(&c, "float32", 418.098, 25.4), 0.5, 1e-12);
	/* no ceiling of its own (float64, ints): the largest, never an overestimate */
	assert_close(ceilings_fraction(&c, "float64", -1, 79.14), 0.1, 1e-12);
	assert_close(ceilings_fraction(&c, "int32", -1, 79.14), 0.1, 1e-12);
	/* nothing to compare */
	assert_true(isnan(ceilings_fraction(&c, "float32", -1, -1)));
	assert_true(isnan(ceilings_fraction(&none, "float32", 100, 1)));
	/* the flag's boundary */
	assert_true(ceilings_fraction(&c, "float32", 4180.98 * CEILINGS_SOL_LIMIT * 1.01, -1) >
	            CEILINGS_SOL_LIMIT);
	assert_false(ceilings_fraction(&c, "float32", 4180.98 * CEILINGS_SOL_LIMIT * 0.99, -1) >
	             CEILINGS_SOL_LIMIT);
}

static void test_store(void **state)
{
	char path[] = "/tmp/kgb-t-ceilings-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct store *s;
	char *got = NULL;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(store_open(path, &s, &err), 0);
	assert_int_equal(store_ceilings_get(s, "NVIDIA H200", "torch 2.11", &got, &err), -ENOENT);
	assert_int_equal(store_ceilings_put(s, "NVIDIA H200", "torch 2.11", h200, &err), 0);
	assert_int_equal(store_ceilings_get(s, "NVIDIA H200", "torch 2.11", &got, &err), 0);
	assert_string_equal(got, h200);
	free(got);
	/* another stack is another measurement */
	assert_int_equal(store_ceilings_get(s, "NVIDIA H200", "torch 2.12", &got, &err), -ENOENT);
	/* a new measurement replaces the old */
	assert_int_equal(store_ceilings_put(s, "NVIDIA H200", "torch 2.11", "{}", &err), 0);
	assert_int_equal(store_ceilings_get(s, "NVIDIA H200", "torch 2.11", &got, &err), 0);
	assert_string_equal(got, "{}");
	free(got);
	store_free(s);
	unlink(path);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_fraction),
        cmocka_unit_test(test_store),
};

UNIT_MAIN(tests)
