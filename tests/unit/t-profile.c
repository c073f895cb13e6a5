/*
 * t-profile.c - the platform profiles (src/profile.h): every shipped profile loads, detection
 * on simulated probes of each kind of machine, resolution of --platform values, and clear
 * errors for malformed profiles. Run from the project root (make check-unit), whose
 * platforms/ it reads.
 */
#include "unit.h"

#include "profile.h"

static void test_shipped_profiles_load(void **state)
{
	struct profile_set s = {0};
	struct strbuf err = STRBUF_INIT;
	static const char *const names[] = {"nvidia-ampere", "nvidia-hopper", "nvidia-blackwell",
					    "amd-cdna3", "intel-xpu", "interpreter",
					    "huawei-ascend", "moore-threads-musa", "hygon-dcu",
					    "iluvatar-corex", "metax-maca"};
	/* the other backends the paper used: described from sources, never run here */
	static const char *const unverified[] = {"huawei-ascend", "moore-threads-musa",
						 "hygon-dcu", "iluvatar-corex", "metax-maca"};

	(void)state;
	if (profile_load_all(".", &s, &err) != 0)
		fail_msg("%s", err.buf);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct profile *p = profile_find(&s, names[i]);

		print_message("%s\n", names[i]);
		assert_non_null(p);
		assert_true(strlen(p->prompt) > 40);
		assert_int_equal(strlen(p->digest), HASH_HEX_LEN);
	}
	/* verified means run by this project on the hardware: the H200 and the interpreter */
	assert_true(profile_find(&s, "nvidia-hopper")->verified);
	assert_true(profile_find(&s, "interpreter")->verified);
	assert_false(profile_find(&s, "amd-cdna3")->verified);
	assert_false(profile_runnable(profile_find(&s, "amd-cdna3")));
	assert_true(profile_runnable(profile_find(&s, "nvidia-ampere")));
	for (size_t i = 0; i < ARRAY_SIZE(unverified); i++) {
		const struct profile *p = profile_find(&s, unverified[i]);

		assert_false(p->verified);
		assert_false(p->runtime_default);
		/* ATen only off NVIDIA, as in the paper */
		assert_false(profile_supports_source(p, "vllm"));
		assert_false(profile_supports_source(p, "cublas"));
	}
	/* npu and musa (and Hygon's rocm) are described only; Iluvatar and MetaX are torch.cuda */
	assert_string_equal(profile_find(&s, "huawei-ascend")->runtime, "npu");
	assert_false(profile_runnable(profile_find(&s, "huawei-ascend")));
	assert_string_equal(profile_find(&s, "moore-threads-musa")->runtime, "musa");
	assert_false(profile_runnable(profile_find(&s, "moore-threads-musa")));
	assert_false(profile_runnable(profile_find(&s, "hygon-dcu")));
	assert_true(profile_runnable(profile_find(&s, "iluvatar-corex")));
	assert_true(profile_runnable(profile_find(&s, "metax-maca")));
	assert_false(profile_supports_source(profile_find(&s, "intel-xpu"), "vllm"));
	assert_true(profile_supports_source(profile_find(&s, "nvidia-hopper"), "cublas"));
	assert_close(profile_tol_mult(profile_find(&s, "nvidia-hopper"), "complex64"), 1.0, 0);
	assert_close(profile_tol_mult(profile_find(&s, "nvidia-hopper"), "int32"), 1.0, 0);
	profile_set_release(&s);
	strbuf_release(&err);
}

static void test_detect(void **state)
{
	static const struct {
		const char *probe, *want; /* want NULL: no profile */
	} rows[] = {
		{"{'backend': 'cuda', 'capability': '8.0'}", "nvidia-ampere"},
		{"{'backend': 'cuda', 'capability': '8.9'}", "nvidia-ampere"},
		{"{'backend': 'cuda', 'capability': '9.0'}", "nvidia-hopper"},
		{"{'backend': 'cuda', 'capability': '10.0'}", "nvidia-blackwell"},
		{"{'backend': 'cuda', 'capability': '12.0'}", "nvidia-blackwell"},
		{"{'backend': 'cuda', 'capability': '7.5'}", NULL},
		{"{'backend': 'cuda', 'capability': null}", NULL},
		{"{'backend': 'hip', 'arch': 'gfx942:sramecc+:xnack-'}", "amd-cdna3"},
		{"{'backend': 'hip', 'arch': 'gfx90a'}", NULL},
		{"{'backend': 'xpu'}", "intel-xpu"},
		{"{'backend': 'cpu'}", "interpreter"},
		{"{'backend': 'tpu'}", NULL},
		/* a probe from before "backend": its cuda flag */
		{"{'cuda': true, 'capability': '9.0'}", "nvidia-hopper"},
		{"{'cuda': false}", "interpreter"},
		/* real device names leave NVIDIA, AMD and CPU machines where they were */
		{"{'backend': 'cuda', 'capability': '9.0', 'device_name': 'NVIDIA H200'}",
		 "nvidia-hopper"},
		{"{'backend': 'cuda', 'capability': '8.0', 'device_name': 'NVIDIA A100-SXM4-80GB'}",
		 "nvidia-ampere"},
		{"{'backend': 'hip', 'arch': 'gfx942:sramecc+:xnack-',"
		 " 'device_name': 'AMD Instinct MI300X'}",
		 "amd-cdna3"},
		{"{'backend': 'cpu', 'device_name': null}", "interpreter"},
		/* the other backends (simulated names, with the substrings the paper's detector
		 * looks for): npu and musa by their backend, the CUDA and HIP look-alikes by their
		 * device name, which beats any capability or arch rule */
		{"{'backend': 'npu', 'device_name': 'Ascend910B2'}", "huawei-ascend"},
		{"{'backend': 'musa', 'device_name': 'MTT S4000'}", "moore-threads-musa"},
		{"{'backend': 'hip', 'arch': 'gfx928', 'device_name': 'DCU K100_AI'}", "hygon-dcu"},
		{"{'backend': 'hip', 'arch': 'gfx906', 'device_name': 'hygon z100'}", "hygon-dcu"},
		{"{'backend': 'hip', 'arch': 'gfx942', 'device_name': 'Hygon DCU'}", "hygon-dcu"},
		{"{'backend': 'hip', 'arch': 'gfx906', 'device_name': 'AMD Instinct MI50'}", NULL},
		{"{'backend': 'hip', 'arch': 'gfx928', 'device_name': 'K100_AI'}", NULL},
		{"{'backend': 'cuda', 'capability': '8.0', 'device_name': 'Iluvatar BI-V150'}",
		 "iluvatar-corex"},
		{"{'backend': 'cuda', 'capability': '9.0', 'device_name': 'ILUVATAR MR-V100'}",
		 "iluvatar-corex"},
		{"{'backend': 'cuda', 'capability': null, 'device_name': 'MetaX C500'}",
		 "metax-maca"},
		{"{'backend': 'hip', 'device_name': 'MetaX C500'}", NULL},
		{"{'backend': 'cuda', 'capability': '7.0', 'device_name': 'Tesla V100'}", NULL},
	};
	struct profile_set s = {0};
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(profile_load_all(".", &s, &err), 0);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		json_t *probe = unit_json(rows[i].probe);
		const struct profile *p = profile_detect(&s, probe);

		print_message("%s -> %s\n", rows[i].probe, p ? p->name : "(none)");
		if (rows[i].want)
			assert_string_equal(p ? p->name : "(none)", rows[i].want);
		else
			assert_null(p);
		json_decref(probe);
	}
	assert_string_equal(profile_resolve(&s, "cuda")->name, "nvidia-hopper");
	assert_string_equal(profile_resolve(&s, "interpreter")->name, "interpreter");
	assert_string_equal(profile_resolve(&s, "nvidia-ampere")->name, "nvidia-ampere");
	assert_null(profile_resolve(&s, "rocm")); /* no default for a runtime kgb lacks */
	assert_null(profile_resolve(&s, "npu"));
	assert_null(profile_resolve(&s, "musa"));
	assert_string_equal(profile_resolve(&s, "huawei-ascend")->name, "huawei-ascend");
	assert_null(profile_resolve(&s, "bogus"));
	profile_set_release(&s);
	strbuf_release(&err);
}

#define GOOD                                                                                    \
	"'schema': 1, 'runtime': 'cuda', 'verified': false, 'detect': {'backend': 'cuda'},"     \
	" 'visible_devices': 'CUDA_VISIBLE_DEVICES', 'triton_backend': 'nvidia',"               \
	" 'timing': 'events', 'tolerance': {'float16': 1, 'bfloat16': 1, 'float32': 2,"         \
	" 'float64': 1}, 'sources': ['aten'], 'features': {}, 'prompt': 'p'"

static void test_malformed(void **state)
{
	static const struct {
		const char *what, *field, *value; /* GOOD with field set to value; raw text if !field */
		const char *want;
	} rows[] = {
		{"not JSON", NULL, "{\"schema\": 1,\n  oops}", "platforms/x.json:2:"},
		{"name differs from the file", "name", "'y'", "name: expected the file's name"},
		{"unknown runtime", "runtime", "'metal'", "runtime: expected one of cuda interpreter rocm xpu npu musa"},
		{"unknown backend", "detect", "{'backend': 'tpu'}", "platforms/x.json: detect.backend: expected one of cuda hip xpu npu musa cpu"},
		{"bad capability range", "detect", "{'backend': 'cuda', 'capability': ['9.0', '8.0']}", "detect.capability: expected"},
		{"unknown detect key", "detect", "{'backend': 'cuda', 'sm': 90}", "detect: unknown key"},
		{"device_name a number", "detect", "{'backend': 'cuda', 'device_name': 5}", "platforms/x.json: detect.device_name: expected a non-empty string or a non-empty list"},
		{"device_name empty", "detect", "{'backend': 'cuda', 'device_name': ''}", "platforms/x.json: detect.device_name: expected"},
		{"device_name empty list", "detect", "{'backend': 'cuda', 'device_name': []}", "platforms/x.json: detect.device_name: expected"},
		{"device_name list of a number", "detect", "{'backend': 'cuda', 'device_name': ['MetaX', 3]}", "platforms/x.json: detect.device_name: expected"},
		{"zero multiplier", "tolerance", "{'float16': 0, 'bfloat16': 1, 'float32': 1, 'float64': 1}", "tolerance: expected a positive multiplier"},
		{"unknown source", "sources", "['triton']", "sources: expected"},
		{"unknown field", "colour", "'red'", "unknown field 'colour'"},
		{"duplicate key", NULL, "{\"name\": \"x\", \"name\": \"x\"}", "duplicate object key"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char *root = unit_mkdtemp(), *dir = path_join(root, "platforms"), *text;
		struct strbuf err = STRBUF_INIT;
		struct profile_set s = {0};

		if (rows[i].field) {
			json_t *o = unit_json("{'name': 'x', " GOOD "}");

			json_object_set_new(o, rows[i].field, unit_json(rows[i].value));
			text = json_dumps(o, 0);
			json_decref(o);
		} else {
			text = xstrdup(rows[i].value);
		}
		unit_write_file(dir, "x.json", text);
		print_message("%s\n", rows[i].what);
		assert_int_equal(profile_load_all(root, &s, &err), -EINVAL);
		print_message("  %s", err.buf);
		assert_contains(err.buf, rows[i].want);
		assert_int_equal(s.n, 0);
		assert_int_equal(rm_rf(root), 0);
		free(text);
		free(dir);
		free(root);
		strbuf_release(&err);
	}
}

static void test_two_defaults_and_missing_dir(void **state)
{
	char *root = unit_mkdtemp(), *dir = path_join(root, "platforms");
	struct strbuf err = STRBUF_INIT;
	struct profile_set s = {0};
	char *a = unit_sq("{'name': 'a', 'runtime_default': true, " GOOD "}");
	char *b = unit_sq("{'name': 'b', 'runtime_default': true, " GOOD "}");

	(void)state;
	assert_int_equal(profile_load_all(root, &s, &err), -ENOENT);
	assert_contains(err.buf, "cannot read the platform profiles");
	strbuf_reset(&err);
	unit_write_file(dir, "a.json", a);
	unit_write_file(dir, "b.json", b);
	assert_int_equal(profile_load_all(root, &s, &err), -EINVAL);
	assert_contains(err.buf, "platforms/b.json: runtime_default: 'cuda' already has its "
				 "default, a");
	assert_int_equal(rm_rf(root), 0);
	free(a);
	free(b);
	free(dir);
	free(root);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_shipped_profiles_load),
	cmocka_unit_test(test_detect),
	cmocka_unit_test(test_malformed),
	cmocka_unit_test(test_two_defaults_and_missing_dir),
};

UNIT_MAIN(tests)
