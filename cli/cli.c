// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the subcommands: usage and error reporting. */
#include <stdarg.h>
#include <stdio.h>
#include "cli.h"

void cli_usage(const struct cli_command *cmd, bool to_stderr)
{
	FILE *out = to_stderr ? stderr : stdout;
	const char *const *line = cmd->usage;

	fprintf(out, "usage: %s %s\n", PROG, *line++);
	for (; *line; line++)
		fprintf(out, "%s%s\n", **line ? "    " : "", *line);
}

int cli_bad_usage(const struct cli_command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", PROG, cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s %s --help' for more information.\n", PROG,
		cmd->name);
	return 1;
}

void cli_error(const struct cli_command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", PROG, cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
