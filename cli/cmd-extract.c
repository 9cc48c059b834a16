// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs-stream extract: write the tree a stream (or chain) makes, or some
 * paths of it, beneath a directory as plain files, like tar -x.  The work
 * is in cli/archive/; this file parses the options.  Arguments before -C
 * are streams, after it paths, so the order of the command line matters
 * and getopt's "-" mode keeps it.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "archive/archive.h"

static const char *const extract_usage[] = {
	"extract [--subvol NAME] [--strict] STREAM... -C DIR [PATH...]",
	"",
	"Write the tree that receiving STREAM would make beneath the existing",
	"directory DIR, as plain files and directories: data (holes stay",
	"holes), hard links, symlinks, fifos, sockets and devices, owners,",
	"modes, times, xattrs and inode flags.  With PATHs (relative to the",
	"subvolume's top), only those, a directory with all it holds; the",
	"directories on the way are made plainly.  Nothing in DIR is replaced:",
	"a name that exists there already is an error (a directory is reused).",
	"",
	"Several STREAMs make a chain (see 'btrfs-stream ls --help').  Nothing",
	"is ever written outside DIR, whatever the streams say.  What DIR cannot",
	"hold (owners and devices without root, some xattrs, inode flags) is",
	"skipped and summed up per kind at the end.",
	"",
	"-C DIR, --directory DIR  where to write (required)",
	"--strict                 what DIR cannot hold is an error",
	"--subvol NAME            the subvolume NAME of the streams (default: the last)",
	NULL,
};

static int run_extract(const struct cli_command *cmd, int argc, char **argv)
{
	enum { OPT_SUBVOL = 256, OPT_STRICT };
	static const struct option longopts[] = {
		{ "directory", required_argument, NULL, 'C' },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "subvol", required_argument, NULL, OPT_SUBVOL },
		{ NULL, 0, NULL, 0 },
	};
	struct ar a = { .cmd = cmd, .verbose = 1, .need_data = true };
	struct ar_extract_opts o = { 0 };
	char **streams, **args, q[320];
	int nstreams = 0, opt, ret = 1;
	bool after_dir = false;

	streams = calloc(argc, sizeof(*streams));
	args = calloc(argc, sizeof(*args));
	o.paths = calloc(argc, sizeof(*o.paths));
	if (!streams || !args || !o.paths) {
		cli_error(cmd, "out of memory");
		goto out;
	}
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "-:C:", longopts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (after_dir)
				args[o.npaths++] = optarg;
			else
				streams[nstreams++] = optarg;
			break;
		case 'C':
			if (o.dir) {
				ret = cli_bad_usage(cmd, "-C given twice");
				goto out;
			}
			o.dir = optarg;
			after_dir = true;
			break;
		case OPT_STRICT:
			o.strict = true;
			break;
		case OPT_SUBVOL:
			a.want_subvol = optarg;
			break;
		default:
			ret = cli_bad_option(cmd, opt, argv);
			goto out;
		}
	}
	for (; optind < argc; optind++) {
		if (after_dir)
			args[o.npaths++] = argv[optind];
		else
			streams[nstreams++] = argv[optind];
	}
	if (!o.dir) {
		ret = cli_bad_usage(cmd, "need -C DIR");
		goto out;
	}
	if (!nstreams) {
		ret = cli_bad_usage(cmd, "need a STREAM before -C");
		goto out;
	}
	for (int i = 0; i < o.npaths; i++) {
		char norm[PATH_MAX + 1];
		const char *why = ar_user_path(args[i], norm, sizeof(norm));

		if (why) {
			cli_error(cmd, "path '%s': %s", ar_quote(q, sizeof(q), args[i]), why);
			goto out;
		}
		o.paths[i] = strdup(norm);
		if (!o.paths[i]) {
			cli_error(cmd, "out of memory");
			goto out;
		}
	}
	if (ar_load(&a, streams, nstreams)) {
		cli_error(cmd, "%s", a.err);
		goto out;
	}
	ret = ar_extract(&a, &o);
out:
	ar_unload(&a);
	free(streams);
	free(args);
	for (int i = 0; o.paths && i < o.npaths; i++)
		free(o.paths[i]);
	free(o.paths);
	return ret;
}

const struct cli_command cmd_extract = {
	.name = "extract",
	.summary = "write the tree of a stream beneath a directory, like tar -x",
	.usage = extract_usage,
	.run = run_extract,
};
