/*
 * t-sched.c - which GPU each worker slot gets, on simulated device lists (one to eight GPUs,
 * with and without a CUDA_VISIBLE_DEVICES inherited from Slurm or the user).
 */
#include "unit.h"

#include "sched.h"

/* Slots of `ngpu` GPUs under `visible`: the devices, joined by spaces. */
static char *slots_of(const char *visible, unsigned ngpu, unsigned slots)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	char **dev = sched_slot_devices(visible, ngpu, slots, &err);

	if (!dev)
		fail_msg("sched_slot_devices: %s", err.buf);
	for (unsigned i = 0; i < slots; i++)
		strbuf_addf(&out, "%s%s", i ? " " : "", dev[i]);
	assert_null(dev[slots]);
	sched_slot_devices_free(dev);
	strbuf_release(&err);
	return strbuf_detach(&out, NULL);
}

static void expect(const char *visible, unsigned ngpu, unsigned slots, const char *want)
{
	char *got = slots_of(visible, ngpu, slots);

	assert_string_equal(got, want);
	free(got);
}

static void test_round_robin(void **state)
{
	(void)state;
	expect(NULL, 1, 3, "0 0 0");
	expect(NULL, 2, 5, "0 1 0 1 0");
	expect("", 4, 4, "0 1 2 3");
	/* Eight GPUs, sixteen checking slots: the first eight are one per GPU (the timing slots). */
	expect(NULL, 8, 16, "0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7");
	expect(NULL, 0, 2, "0 0"); /* no GPU counted: one */
}

static void test_inherited_list(void **state)
{
	(void)state;
	/* A Slurm job given GPUs 2 and 3: workers get those, never 0 or 1. */
	expect("2,3", 2, 4, "2 3 2 3");
	expect("GPU-aa,GPU-bb,GPU-cc", 3, 3, "GPU-aa GPU-bb GPU-cc");
	/* torch counts fewer than listed (an invalid entry ends the list): the first ngpu. */
	expect("5,6,7", 2, 3, "5 6 5");
}

static void test_short_list_is_an_error(void **state)
{
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_null(sched_slot_devices("1", 2, 2, &err));
	assert_non_null(strstr(err.buf, "lists 1 devices, but 2 are visible"));
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_round_robin),
	cmocka_unit_test(test_inherited_list),
	cmocka_unit_test(test_short_list_is_an_error),
};

UNIT_MAIN(tests)
