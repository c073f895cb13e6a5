#include "unit.h"
static void test_leak(void **s) { (void)s; char *p = xstrdup("leak"); (void)p; }
static void test_fail(void **s) { (void)s; assert_int_equal(1, 2); }
static void test_ok(void **s) { (void)s; }
static void test_ubsan(void **s) { (void)s; volatile int x = 2147483647; x = x + 1; }
static void test_hang(void **s) { (void)s; for (;;) pause(); }
static const struct CMUnitTest tests[] = { cmocka_unit_test(test_leak), cmocka_unit_test(test_fail), cmocka_unit_test(test_ok), cmocka_unit_test(test_ubsan), cmocka_unit_test(test_hang) };
UNIT_MAIN(tests)
