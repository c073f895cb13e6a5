/*
 * main.c - kgb's entry point: global options, the command table, and the exit.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "kgb.h"
#include "platform.h"
#include "proto.h"
#include "util/fs.h"

#ifndef KGB_GIT_COMMIT
#define KGB_GIT_COMMIT "unknown"
#endif

int cmd_export(int argc, char **argv, struct kgb_ctx *ctx); /* cmd_export.c */

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct kgb_ctx *ctx);
	const char *summary; /* NULL: a debugging command, left out of --help (docs/security.md) */
} commands[] = {
	{"list", cmd_list, "list the tasks of the catalog"},
	{"show", cmd_show, "print the prompt a model gets for a task"},
	{"lint", cmd_lint, "validate every task spec and its case grid"},
	{"eval", cmd_eval, "evaluate candidate kernels (default: the shipped solutions)"},
	{"methods", cmd_methods, "libraries judged as candidates (FlagGems, Liger): coverage"},
	{"generate", cmd_generate, "ask a model or an agent for kernels and score them"},
	{"platforms", cmd_platforms, "list the platform profiles; which one this machine is"},
	{"compare", cmd_compare, "the task x platform matrix of stored runs (portability)"},
	{"report", cmd_report, "a stored run again (table or JSON), or runs as one HTML page"},
	{"merge", cmd_merge, "fold shard stores of a Slurm run (or any stores) into one"},
	{"status", cmd_status, "progress of a Slurm run's shards (kgb eval --backend slurm)"},
	{"export", cmd_export, "a stored run as CSV or JSON lines, one row per evaluation"},
	{"serve", cmd_serve, "the verification service: an HTTP API that judges kernels"},
	{"sandbox-exec", cmd_sandbox_exec, NULL},
};

static void print_help(void)
{
	printf("usage: kgb [--tasks DIR] [-q | -v] <command> [<args>]\n"
	       "\n"
	       "KernelGenBench: are LLM-written Triton kernels correct and fast?\n"
	       "\n"
	       "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].summary)
			printf("  %-9s  %s\n", commands[i].name, commands[i].summary);
	printf("\n"
	       "global options:\n"
	       "  --tasks DIR    task catalog (default: <root>/tasks; root from $KGB_ROOT)\n"
	       "  -q, --quiet    less output;  -v, --verbose  more (both may repeat)\n"
	       "  -h, --help     this help;    --version      version, commit, protocol\n"
	       "\n"
	       "'kgb <command> --help' describes a command.\n"
	       "\n"
	       "exit status: 0 success; 1 ran but the answer is no (lint findings, failures with\n"
	       "--exit-status); 2 usage; 3 bad input data; 4 environment; 130 interrupted\n");
}

int main(int argc, char **argv)
{
	enum { OPT_TASKS = 0x100, OPT_VERSION };
	static const struct option opts[] = {
		{"tasks", required_argument, NULL, OPT_TASKS},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, OPT_VERSION},
		{0},
	};
	struct kgb_ctx ctx = {0};
	char *root, *tasks = NULL;
	int c, ret = KGB_EXIT_USAGE;

	/* '+': stop at the command name; its options are its own. */
	while ((c = getopt_long(argc, argv, "+qvh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_TASKS:
			tasks = optarg;
			break;
		case 'q':
			ctx.verbose--;
			break;
		case 'v':
			ctx.verbose++;
			break;
		case 'h':
			print_help();
			return KGB_EXIT_OK;
		case OPT_VERSION:
			printf("kgb %s (commit %s, protocol %d)\n", KGB_VERSION, KGB_GIT_COMMIT,
			       PROTO_VERSION);
			return KGB_EXIT_OK;
		default:
			fprintf(stderr, "Try 'kgb --help'.\n");
			return KGB_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		print_help();
		return KGB_EXIT_USAGE;
	}
	root = platform_root();
	ctx.root = root;
	{
		char *dflt = path_join(root, "tasks");
		int sub_argc = argc - optind;
		char **sub_argv = argv + optind;
		bool found = false;

		ctx.tasks_dir = tasks ? tasks : dflt;
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
			if (strcmp(commands[i].name, sub_argv[0]))
				continue;
			/* 0 makes glibc's getopt start over at sub_argv[1]. */
			optind = 0;
			ret = commands[i].fn(sub_argc, sub_argv, &ctx);
			found = true;
			break;
		}
		if (!found)
			ret = kgb_usage_error(NULL, "'%s' is not a kgb command", sub_argv[0]);
		free(dflt);
	}
	free(root);
	return ret;
}
