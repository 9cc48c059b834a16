// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs-stream diff: what changed between two read-only snapshots, as
 * paths, without sending anything.  The kernel compares the trees (send
 * with NO_FILE_DATA and OLD as parent, so no file data is read); the
 * stream's path operations are replayed onto inodes by the model in
 * cli/diff/ to give a clean before/after view.  -f reads a stored stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/btrfs.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <btrfs-stream/stream.h>
#include "cli.h"
#include "diff/diff.h"
#include "send/send.h"

static const char *const diff_usage[] = {
	"diff [--json] OLD NEW",
	"diff [--json] -f STREAM",
	"",
	"Show what changed from the read-only snapshot OLD to the read-only",
	"snapshot NEW of one filesystem, one line per path, sorted by path:",
	"",
	"  +  PATH                 added",
	"  -  PATH                 removed",
	"  M  PATH  WHAT           modified: WHAT is a list of data, mode, owner,",
	"                          times, xattrs, flags",
	"  R  OLD -> NEW  [WHAT]   renamed or moved (and modified)",
	"",
	"Fields are separated by tabs; paths start at the snapshot's top",
	"directory ('/') and are escaped as by 'btrfs receive --dump'.  A renamed",
	"directory is one line; what is inside shows only if it changed itself.",
	"The kernel compares the trees as for an incremental send without file",
	"data, so this is as fast as the send's own comparison.",
	"",
	"-f FILE, --file FILE   read a send stream (- for stdin) instead: an",
	"                       incremental one gives the same report (but for",
	"                       'times' on inodes whose times did not move), a",
	"                       full one lists everything as added",
	"--json                 one JSON object per line",
	NULL,
};

struct diff_run {
	const struct cli_command *cmd;
	struct diff_model *model;
	struct bstream_reader *reader;
	char msg[PATH_MAX + 512];
};

/* Parse a stream from fd into the model. */
static int read_stream(struct diff_run *d, int fd)
{
	int ret;

	d->reader = bstream_reader_new(NULL);
	if (!d->reader)
		return snprintf(d->msg, sizeof(d->msg), "cannot create the stream reader"), -1;
	ret = bstream_reader_set_fd(d->reader, fd);
	if (!ret)
		ret = bstream_process(d->reader, &diff_model_ops, d->model);
	if (ret < 0) {
		snprintf(d->msg, sizeof(d->msg), "%s",
			 bstream_reader_errcode(d->reader) == BSTREAM_E_CALLBACK ?
			 diff_model_errmsg(d->model) : bstream_reader_errmsg(d->reader));
		return -1;
	}
	if (diff_model_finish(d->model)) {
		snprintf(d->msg, sizeof(d->msg), "%s", diff_model_errmsg(d->model));
		return -1;
	}
	return 0;
}

static int consume(void *ctx, int rfd, struct send_err *e)
{
	struct diff_run *d = ctx;

	if (read_stream(d, rfd))
		return send_errf(e, "%s", d->msg);
	return 0;
}

static int from_file(struct diff_run *d, const char *file)
{
	int fd = STDIN_FILENO;
	int ret;

	if (strcmp(file, "-")) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			cli_error(d->cmd, "cannot open '%s': %s", file, strerror(errno));
			return 1;
		}
	}
	ret = read_stream(d, fd);
	if (fd != STDIN_FILENO)
		close(fd);
	if (ret)
		cli_error(d->cmd, "%s", d->msg);
	return ret ? 1 : 0;
}

static int from_snapshots(struct diff_run *d, const char *old_arg,
			  const char *new_arg)
{
	struct subvol old, new;
	struct send_err err;
	struct send_request req = { 0 };
	uint64_t clone;
	uint32_t supported;
	int ret = 1;

	old.fd = new.fd = -1;
	old.path = new.path = NULL;
	if (subvol_open(&old, old_arg, &err) || subvol_open(&new, new_arg, &err) ||
	    subvol_same_fs(&old, &new, &err)) {
		cli_error(d->cmd, "%s", err.msg);
		goto out;
	}
	if (!old.readonly || !new.readonly) {
		cli_error(d->cmd, "'%s' is not read-only: diff compares read-only snapshots",
			  old.readonly ? new.path : old.path);
		goto out;
	}
	/* The highest version: v2 also reports changed inode flags. */
	supported = send_proto_supported();
	clone = old.root_id;
	req.subvol_fd = new.fd;
	req.parent_root = old.root_id;
	req.clone_sources = &clone;
	req.clone_count = 1;
	req.flags = BTRFS_SEND_FLAG_NO_FILE_DATA;
	if (supported > 1)
		req.flags |= BTRFS_SEND_FLAG_VERSION;
	if (send_pump(&req, supported > 1, consume, d, NULL, &err)) {
		cli_error(d->cmd, "%s", err.msg);
		goto out;
	}
	if (diff_identify(d->model, old.fd, d->msg, sizeof(d->msg))) {
		cli_error(d->cmd, "%s", d->msg);
		goto out;
	}
	ret = 0;
out:
	subvol_close(&old);
	subvol_close(&new);
	return ret;
}

static int run_diff(const struct cli_command *cmd, int argc, char **argv)
{
	enum { OPT_JSON = 256 };
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct diff_run d = { .cmd = cmd };
	enum diff_format fmt = DIFF_TEXT;
	const char *file = NULL;
	int opt, ret;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":f:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			file = optarg;
			break;
		case OPT_JSON:
			fmt = DIFF_JSON;
			break;
		default:
			return cli_bad_option(cmd, opt, argv);
		}
	}
	if (file && optind < argc)
		return cli_bad_usage(cmd, "unexpected argument '%s' with -f", argv[optind]);
	if (!file && argc - optind != 2)
		return cli_bad_usage(cmd, "need OLD and NEW snapshots, or -f STREAM");

	d.model = diff_model_new();
	if (!d.model) {
		cli_error(cmd, "out of memory");
		return 1;
	}
	if (file)
		ret = from_file(&d, file);
	else
		ret = from_snapshots(&d, argv[optind], argv[optind + 1]);
	if (!ret && diff_report(d.model, stdout, fmt, d.msg, sizeof(d.msg))) {
		cli_error(cmd, "%s", d.msg);
		ret = 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(cmd, "cannot write output: %s", strerror(errno));
		ret = 1;
	}
	bstream_reader_free(d.reader);
	diff_model_free(d.model);
	return ret;
}

const struct cli_command cmd_diff = {
	.name = "diff",
	.summary = "show what changed between two snapshots",
	.usage = diff_usage,
	.run = run_diff,
};
