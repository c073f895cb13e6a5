/*
 * cmd_platforms.c - `kgb platforms`: the platform profiles, and which one this machine is.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgb.h"
#include "platform.h"
#include "profile.h"
#include "util/strbuf.h"

static void usage(void)
{
	printf("usage: kgb platforms [--detect [--probe FILE]] [--json]\n"
	       "\n"
	       "Lists the platform profiles (platforms/*.json, docs/platforms.md).\n"
	       "\n"
	       "  --detect       probe this machine (runtime/platform.py) and print the profile\n"
	       "                 it matches; exit 1 when none does\n"
	       "  --probe FILE   with --detect: match this probe JSON instead (a simulated\n"
	       "                 machine: {\"backend\": \"cuda\", \"capability\": \"8.0\"}, ...)\n"
	       "  --json         kgb.platform.v1 records (with --detect: one, plus \"probe\")\n");
}

static json_t *profile_json(const struct profile *p)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:s, s:s, s:s, s:s, s:O, s:O, s:s}", "schema",
			      "kgb.platform.v1", "name", p->name, "runtime", p->runtime,
			      "verified", p->verified, "backend", p->backend, "visible_devices",
			      p->visible_devices, "triton_backend", p->triton_backend, "timing",
			      p->timing, "sources", p->sources, "features", p->features, "digest",
			      p->digest);

	json_object_set_new(o, "runnable", json_boolean(profile_runnable(p)));
	return o;
}

static void print_json(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);

	printf("%s\n", s);
	free(s);
}

static void detect_rule(const struct profile *p, struct strbuf *out)
{
	strbuf_addf(out, "backend=%s", p->backend);
	if (p->cap_min == p->cap_min) /* not NAN */
		strbuf_addf(out, " capability %.1f-%.1f", p->cap_min, p->cap_max);
	if (p->arch_prefix)
		strbuf_addf(out, " arch %s*", p->arch_prefix);
	for (char **n = p->device_name; n && *n; n++)
		strbuf_addf(out, "%s%s", n == p->device_name ? " name~" : "|", *n);
}

int cmd_platforms(int argc, char **argv, struct kgb_ctx *ctx)
{
	enum { OPT_DETECT = 0x100, OPT_PROBE, OPT_JSON };
	static const struct option opts[] = {
		{"detect", no_argument, NULL, OPT_DETECT},
		{"probe", required_argument, NULL, OPT_PROBE},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct profile_set set = {0};
	const char *probe_file = NULL;
	bool detect = false, json = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_DETECT:
			detect = true;
			break;
		case OPT_PROBE:
			probe_file = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			usage();
			return KGB_EXIT_OK;
		default:
			return kgb_usage_error("platforms", "unknown option");
		}
	}
	if (optind != argc)
		return kgb_usage_error("platforms", "unexpected argument '%s'", argv[optind]);
	if (probe_file && !detect)
		return kgb_usage_error("platforms", "--probe goes with --detect");
	if ((ret = kgb_load_profiles(ctx, "platforms", &set)) != KGB_EXIT_OK)
		return ret;
	if (detect) {
		struct strbuf err = STRBUF_INIT;
		json_t *probe = NULL;
		const struct profile *p;

		if (probe_file) {
			json_error_t je;

			probe = json_load_file(probe_file, 0, &je);
			if (!json_is_object(probe)) {
				fprintf(stderr, "kgb platforms: %s:%d: %s\n", probe_file, je.line,
					probe ? "expected a JSON object" : je.text);
				json_decref(probe);
				profile_set_release(&set);
				return KGB_EXIT_DATA;
			}
		} else {
			char *python = platform_python(ctx->root);
			int r = platform_probe(ctx->root, python, &probe, &err);

			free(python);
			if (r < 0) {
				fprintf(stderr, "kgb platforms: %s\n", err.buf);
				strbuf_release(&err);
				profile_set_release(&set);
				return KGB_EXIT_ENV;
			}
		}
		p = profile_detect(&set, probe);
		if (json) {
			json_t *o = p ? profile_json(p) : json_pack("{s:s, s:n}", "schema",
								     "kgb.platform.v1", "name");

			json_object_set(o, "probe", probe);
			print_json(o);
			json_decref(o);
		} else if (p) {
			printf("%s (runtime %s, %s%s)\n", p->name, p->runtime,
			       p->verified ? "verified" : "unverified",
			       profile_runnable(p) ? "" : "; kgb cannot evaluate on it yet");
		} else {
			printf("no profile matches (backend %s)\n",
			       json_string_value(json_object_get(probe, "backend")) ?: "?");
		}
		json_decref(probe);
		strbuf_release(&err);
		profile_set_release(&set);
		return p ? KGB_EXIT_OK : KGB_EXIT_NO;
	}
	if (!json)
		printf("%-18s %-12s %-10s %-32s %s\n", "PLATFORM", "RUNTIME", "STATUS", "DETECT",
		       "SOURCES");
	for (size_t i = 0; i < set.n; i++) {
		const struct profile *p = &set.v[i];

		if (json) {
			json_t *o = profile_json(p);

			print_json(o);
			json_decref(o);
		} else {
			struct strbuf rule = STRBUF_INIT, src = STRBUF_INIT;
			json_t *x;
			size_t k;

			detect_rule(p, &rule);
			json_array_foreach(p->sources, k, x)
				strbuf_addf(&src, "%s%s", k ? "," : "", json_string_value(x));
			printf("%-18s %-12s %-10s %-32s %s%s\n", p->name, p->runtime,
			       p->verified ? "verified" : "unverified", rule.buf, src.buf,
			       p->runtime_default ? "  (default)" : "");
			strbuf_release(&rule);
			strbuf_release(&src);
		}
	}
	profile_set_release(&set);
	return KGB_EXIT_OK;
}
