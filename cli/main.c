// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs-stream: entry point.  Parses nothing but the subcommand name and the
 * global --help/-h and --version/-V; each subcommand parses its own options.
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"

/* One line per subcommand; keep sorted by name. */
static const struct cli_command *const commands[] = {
	&cmd_cat,
	&cmd_diff,
	&cmd_dump,
	&cmd_extract,
	&cmd_ls,
	&cmd_receive,
	&cmd_send,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void global_usage(FILE *out)
{
	fprintf(out, "usage: %s <command> [<args>]\n", PROG);
	fprintf(out, "       %s --help | --version\n\n", PROG);
	fprintf(out, "Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!commands[i]->hidden)
			fprintf(out, "    %-12s %s\n", commands[i]->name,
				commands[i]->summary);
	fprintf(out, "\nRun '%s <command> --help' for the options of a command.\n",
		PROG);
}

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/* --help anywhere before "--" shows the subcommand's usage. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		global_usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		global_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cli_print_version();
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			global_usage(stdout);
			return 0;
		}
		cmd = find_command(argv[2]);
		if (cmd) {
			cli_usage(cmd, false);
			return 0;
		}
		argv[1] = argv[2];
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "%s: unknown command '%s'\n", PROG, argv[1]);
		fprintf(stderr, "Try '%s --help' for more information.\n", PROG);
		return 1;
	}
	if (wants_help(argc - 1, argv + 1)) {
		cli_usage(cmd, false);
		return 0;
	}
	return cmd->run(cmd, argc - 1, argv + 1);
}
