// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the subcommands: usage, errors, how to read a stream. */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <btrfs-stream/stream.h>
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

int cli_bad_option(const struct cli_command *cmd, int opt, char **argv)
{
	if (opt == ':')
		return cli_bad_usage(cmd, "option '%s' requires an argument",
				     argv[optind - 1]);
	if (optopt && optopt < 256)
		return cli_bad_usage(cmd, "invalid option -- '%c'", optopt);
	return cli_bad_usage(cmd, "unrecognized option '%s'", argv[optind - 1]);
}

bool cli_parse_count(const char *arg, uint64_t *count)
{
	char *end;

	errno = 0;
	*count = strtoull(arg, &end, 10);
	return !errno && end != arg && !*end && *arg != '-';
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

unsigned int cli_usable_cpus(void)
{
	cpu_set_t cpus;

	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		return 1;
	return CPU_COUNT(&cpus) > 0 ? (unsigned int)CPU_COUNT(&cpus) : 1;
}

/* A mapped stream file was truncated while it was read. */
static void on_sigbus(int sig)
{
	static const char msg[] = PROG ": the stream file shrank while it was "
				  "being read (bus error); stopping\n";

	ssize_t n = write(STDERR_FILENO, msg, sizeof(msg) - 1);

	(void)sig;
	(void)n;	/* nothing more to do if stderr is gone */
	_exit(1);
}

unsigned int cli_stream_read_flags(int fd, bool force_mmap)
{
	struct sigaction sa;
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (!force_mmap && cli_usable_cpus() > 1)
		return BSTREAM_READ_DIRECT;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL))
		return force_mmap ? 0 : BSTREAM_READ_DIRECT;
	return force_mmap ? BSTREAM_READ_MMAP : BSTREAM_READ_MMAP | BSTREAM_READ_DIRECT;
}
