// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs-stream cat: one file's content as receiving the streams would
 * leave it, on stdout.  The streams are replayed as metadata only
 * (cli/archive/); then only that file's bytes are read back.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "archive/archive.h"

static const char *const cat_usage[] = {
	"cat [--subvol NAME] STREAM... PATH",
	"",
	"Write the content of file PATH (relative to the subvolume's top) as",
	"receiving STREAM would leave it to standard output: holes as zeros,",
	"compressed extents decompressed, exactly its size.  Several STREAMs",
	"make a chain (see 'btrfs-stream ls --help').  Only PATH's data is read",
	"back from the streams; nothing is received.",
	"",
	"--subvol NAME    the subvolume NAME of the streams (default: the last)",
	NULL,
};

static int out_fd(void *ctx, const void *buf, size_t len, uint64_t off)
{
	struct ar *a = ctx;

	while (len) {
		ssize_t n = write(STDOUT_FILENO, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(a->err, sizeof(a->err), "cannot write output: %s", strerror(errno));
			return -1;
		}
		buf = (const uint8_t *)buf + n;
		len -= n;
	}
	return 0;
}

static int run_cat(const struct cli_command *cmd, int argc, char **argv)
{
	enum { OPT_SUBVOL = 256 };
	static const struct option longopts[] = {
		{ "subvol", required_argument, NULL, OPT_SUBVOL },
		{ NULL, 0, NULL, 0 },
	};
	struct ar a = { .cmd = cmd, .verbose = 1, .need_data = true };
	struct ar_reader rd = { .a = &a };
	struct ar_inode *ino;
	char path[PATH_MAX + 1], q[320];
	const char *why;
	int opt, ret = 1;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_SUBVOL:
			a.want_subvol = optarg;
			break;
		default:
			return cli_bad_option(cmd, opt, argv);
		}
	}
	if (argc - optind < 2)
		return cli_bad_usage(cmd, "need a STREAM and a PATH");
	why = ar_user_path(argv[argc - 1], path, sizeof(path));
	if (why) {
		cli_error(cmd, "path '%s': %s", ar_quote(q, sizeof(q), argv[argc - 1]), why);
		return 1;
	}
	if (ar_load(&a, argv + optind, argc - optind - 1)) {
		cli_error(cmd, "%s", a.err);
		goto out;
	}
	ino = ar_resolve(a.model, path, strlen(path), NULL, &why);
	if (!ino) {
		cli_error(cmd, "'%s': %s in subvolume '%s'", ar_quote(q, sizeof(q), path), why,
			  a.sv.name);
		goto out;
	}
	if (!S_ISREG(ino->mode)) {
		cli_error(cmd, "'%s': %s", ar_quote(q, sizeof(q), path),
			  S_ISDIR(ino->mode) ? "is a directory" : "not a regular file");
		goto out;
	}
	if (a.no_data)
		cli_error(cmd, "warning: the stream was sent without file data (--no-data): "
			  "what it changed reads as it was or as zeros");
	if (ar_read_file(&rd, ino, true, out_fd, &a)) {
		cli_error(cmd, "%s", a.err);
		goto out;
	}
	ret = 0;
out:
	ar_reader_free(&rd);
	ar_unload(&a);
	return ret;
}

const struct cli_command cmd_cat = {
	.name = "cat",
	.summary = "write one file of a stream to stdout",
	.usage = cat_usage,
	.run = run_cat,
};
