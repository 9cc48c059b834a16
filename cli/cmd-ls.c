// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs-stream ls: list the tree a stream (or a chain of them) makes, as
 * `tar tv` lists an archive, without receiving it.  The work is in
 * cli/archive/; this file parses the options.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include "cli.h"
#include "archive/archive.h"

static const char *const ls_usage[] = {
	"ls [--json] [--subvol NAME] [-v] STREAM...",
	"",
	"List the tree that receiving STREAM would make, one line per name, like",
	"'tar tv': type and permissions, uid/gid, size (devices: major,minor),",
	"modification time, path ('.' is the top directory); '-> TARGET' for a",
	"symlink, 'link to PATH' for another name of a file listed before.",
	"Directories come before what they hold, names in byte order.",
	"",
	"Several STREAMs make a chain: a full stream, then incremental streams,",
	"each sent from the subvolume the one before it made.  Nothing is",
	"received and nothing needs root or btrfs; '-' reads standard input.",
	"",
	"--json           one JSON object per line and name",
	"--subvol NAME    the subvolume NAME of the streams (default: the last)",
	"-v, --verbose    say how many inodes and names the tree has",
	NULL,
};

static int run_ls(const struct cli_command *cmd, int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_SUBVOL };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "subvol", required_argument, NULL, OPT_SUBVOL },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct ar a = { .cmd = cmd, .verbose = 1 };
	bool json = false;
	int opt, ret = 1;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":v", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_JSON:
			json = true;
			break;
		case OPT_SUBVOL:
			a.want_subvol = optarg;
			break;
		case 'v':
			a.verbose++;
			break;
		default:
			return cli_bad_option(cmd, opt, argv);
		}
	}
	if (optind >= argc)
		return cli_bad_usage(cmd, "need a STREAM");
	if (ar_load(&a, argv + optind, argc - optind)) {
		cli_error(cmd, "%s", a.err);
		goto out;
	}
	if (ar_list(&a, stdout, json)) {
		cli_error(cmd, "%s", a.err);
		goto out;
	}
	ret = 0;
out:
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(cmd, "cannot write output: %s", strerror(errno));
		ret = 1;
	}
	ar_unload(&a);
	return ret;
}

const struct cli_command cmd_ls = {
	.name = "ls",
	.summary = "list the tree a stream makes, like tar tv",
	.usage = ls_usage,
	.run = run_ls,
};
