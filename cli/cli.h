/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared pieces of the btrfs-stream command line tool.
 *
 * Each subcommand lives in its own cmd-NAME.c and exports one
 * struct cli_command; adding a subcommand is that file plus one line in the
 * table of main.c (and the file in cli/build.mk's CLI_CMDS).
 */
#ifndef BTRFS_STREAM_CLI_H
#define BTRFS_STREAM_CLI_H

#include <stdbool.h>
#include <stdint.h>

#define PROG "btrfs-stream"

/*
 * Highest stream protocol version `send` writes.  Send copies the kernel's
 * stream unchanged, so this is what the kernel send of this project writes
 * (BTRFS_SEND_STREAM_VERSION in kernel/patches/0009-*), as Linux 6.1's own
 * does; v3 only comes from kernels built with CONFIG_BTRFS_DEBUG.
 */
#define CLI_SEND_PROTO_MAX 2

struct cli_command {
	const char *name;
	/* One-line summary for the global help. */
	const char *summary;
	/*
	 * Usage text as data: first line is the synopsis (without the
	 * program name), then free text; NULL-terminated.
	 */
	const char *const *usage;
	/* argv[0] is the subcommand name; returns the exit status. */
	int (*run)(const struct cli_command *cmd, int argc, char **argv);
	/* Not listed in the global help. */
	bool hidden;
};

/* Print the usage of cmd to stdout (help requested) or stderr. */
void cli_usage(const struct cli_command *cmd, bool to_stderr);

/*
 * Report a bad option or argument with the "Try ... --help" hint; returns
 * the exit status to use (1).
 */
int cli_bad_usage(const struct cli_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Report what getopt_long() refused (it returned ':' for a missing
 * argument, else '?'); returns the exit status to use (1).
 */
int cli_bad_option(const struct cli_command *cmd, int opt, char **argv);

/* Parse the count of -E/--max-errors: digits only; false if invalid. */
bool cli_parse_count(const char *arg, uint64_t *count);

/* "btrfs-stream NAME: message" on stderr. */
void cli_error(const struct cli_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Print "btrfs-stream VERSION (stream protocol: reads 1-N, writes 1-M)" on
 * stdout; returns the exit status (1 if stdout could not be written).
 */
int cli_print_version(void);

/* CPUs this process may run on (sched_getaffinity), at least 1. */
unsigned int cli_usable_cpus(void);

/*
 * Reader flags for a stream read from fd: for a regular file
 * BSTREAM_READ_DIRECT (O_DIRECT reads, no page cache: no copy to share or
 * save), and where its file system refuses them or the page cache holds
 * the file already, BSTREAM_READ_MMAP on a single CPU, where the
 * read-ahead thread cannot share the copy from the page cache and mapping
 * saves it (see docs/stream-library.md);
 * force_mmap maps whenever the file is regular.  Mapping installs a SIGBUS
 * handler that reports a file shrinking under the reader and exits 1.
 */
unsigned int cli_stream_read_flags(int fd, bool force_mmap);

extern const struct cli_command cmd_cat;
extern const struct cli_command cmd_dump;
extern const struct cli_command cmd_receive;
extern const struct cli_command cmd_send;
extern const struct cli_command cmd_diff;
extern const struct cli_command cmd_extract;
extern const struct cli_command cmd_ls;

#endif
