/*
 * t-platform.c - platform_check_slots(), the checking slots eval and lint --deep share: how
 * many, and each one's GPU, from simulated probes (one or two GPUs of 80 or 141 GiB, a small
 * card, no GPU) and the machine's own core count.
 */
#include "unit.h"

#include <unistd.h>

#include "platform.h"
#include "sched.h"

#define GIB (1ull << 30)

static json_t *probe(unsigned ngpu, unsigned long long mem)
{
	return json_pack("{s:I, s:I}", "device_count", (json_int_t)ngpu, "total_mem_bytes",
	                 (json_int_t)mem);
}

/* The slots of `platform` under `p` (stolen) and `requested`; devices joined by spaces. */
static unsigned plan(const char *platform, json_t *p, unsigned requested, const char *visible,
                     struct strbuf *devices)
{
	struct strbuf err = STRBUF_INIT;
	char **dev = NULL;
	unsigned slots = 0, ngpu = 0;

	if (platform_check_slots(platform, p, requested, visible, &slots, &ngpu, &dev, &err) < 0)
		fail_msg("platform_check_slots: %s", err.buf);
	for (unsigned i = 0; dev && i < slots; i++)
		strbuf_addf(devices, "%s%s", i ? " " : "", dev[i]);
	assert_true(ngpu >= 1);
	sched_slot_devices_free(dev);
	json_decref(p);
	strbuf_release(&err);
	return slots;
}

static unsigned ncpu(void)
{
	return (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
}

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

static void test_cuda_default_by_memory_and_cores(void **state)
{
	struct strbuf dev = STRBUF_INIT;

	(void)state;
	/* 80 GiB: 8 slots of 10 GiB each, at most one per core. */
	assert_int_equal(plan("cuda", probe(1, 80 * GIB), 0, NULL, &dev), min_u(8, ncpu()));
	strbuf_reset(&dev);
	/* Two 141 GiB cards: 8 each, round-robin over both. */
	assert_int_equal(plan("cuda", probe(2, 141 * GIB), 0, NULL, &dev), min_u(16, ncpu()));
	assert_int_equal(strncmp(dev.buf, ncpu() > 1 ? "0 1" : "0", ncpu() > 1 ? 3 : 1), 0);
	strbuf_reset(&dev);
	/* A card under 10 GiB still gets one. */
	assert_int_equal(plan("cuda", probe(1, 6 * GIB), 0, NULL, &dev), 1);
	assert_string_equal(dev.buf, "0");
	strbuf_release(&dev);
}

static void test_requested_and_inherited(void **state)
{
	struct strbuf dev = STRBUF_INIT;

	(void)state;
	/* -j wins over the memory rule; a Slurm job's GPUs are named, never 0 and 1. */
	assert_int_equal(plan("cuda", probe(2, 80 * GIB), 5, "2,3", &dev), 5);
	assert_string_equal(dev.buf, "2 3 2 3 2");
	strbuf_release(&dev);
}

static void test_cpu_platforms_have_no_devices(void **state)
{
	struct strbuf dev = STRBUF_INIT;

	(void)state;
	assert_int_equal(plan("interpreter", NULL, 0, NULL, &dev), ncpu());
	assert_int_equal(plan("interpreter", NULL, 3, "0", &dev), 3);
	assert_string_equal(dev.buf, "");
	strbuf_release(&dev);
}

static void test_short_visible_list_fails(void **state)
{
	struct strbuf err = STRBUF_INIT;
	json_t *p = probe(2, 80 * GIB);
	char **dev = NULL;
	unsigned slots, ngpu;

	(void)state;
	assert_true(platform_check_slots("cuda", p, 2, "7", &slots, &ngpu, &dev, &err) < 0);
	assert_null(dev);
	assert_non_null(strstr(err.buf, "lists 1 devices"));
	json_decref(p);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_default_by_memory_and_cores),
        cmocka_unit_test(test_requested_and_inherited),
        cmocka_unit_test(test_cpu_platforms_have_no_devices),
        cmocka_unit_test(test_short_visible_list_fails),
};

UNIT_MAIN(tests)
