// SPDX-License-Identifier: GPL-2.0
/*
 * The callback table that receive hands to the stream reader, and what
 * every command of a subvolume goes through first.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "receive.h"

/*
 * Whether a command of a subvolume can run: 1 yes, 0 skip it (its
 * subvolume could not be created, already reported), -1 stop.
 */
int recv_in_subvol(struct recv *r, const struct bstream_cmd *c)
{
	r->n_cmds++;
	if (r->verbose >= 3)
		fprintf(stderr, "%s %s\n", bstream_cmd_name(c->cmd),
			c->path ? c->path : "");
	/* Errors of queued jobs (jobs.c) count from now. */
	if (r->jobs && recv_jobs_report(r) < 0)
		return -1;
	/* A held-back creation happens first, unless this moves it (do_rename). */
	if (r->pend.active &&
	    !(c->cmd == BTRFS_SEND_C_RENAME && r->pend.len == c->attr[BTRFS_SEND_A_PATH].len &&
	      !memcmp(r->pend.path, c->path, r->pend.len)) &&
	    recv_flush_pending(r) < 0)
		return -1;
	if (r->sv.active)
		return r->sv.created ? 1 : 0;
	return recv_fail(r, c, c->path, 0, "command outside of a subvolume (no subvol or snapshot command before it)") < 0 ? -1 : 0;
}

/* Validate attribute attr of c as a path; on failure report and return <= 0. */
int recv_check_path(struct recv *r, const struct bstream_cmd *c,
		      unsigned int attr, const char *path, bool allow_root)
{
	const char *why = recv_path_invalid(path, c->attr[attr].len, allow_root);

	if (!why)
		return 1;
	return recv_fail(r, c, path, 0, "refusing %s: %s", bstream_attr_name(attr), why) < 0 ? -1 : 0;
}

static int do_unknown(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;

	recv_info(r, 2, "skipping unknown command %u at offset %" PRIu64, c->cmd, c->offset);
	return 0;
}

const struct bstream_ops recv_ops = {
	.subvol = recv_subvol,
	.snapshot = recv_snapshot,
	.mkfile = recv_make_inode,
	.mkdir = recv_make_inode,
	.mknod = recv_make_inode,
	.mkfifo = recv_make_inode,
	.mksock = recv_make_inode,
	.symlink = recv_make_inode,
	.rename = recv_rename,
	.link = recv_link,
	.unlink = recv_remove,
	.rmdir = recv_remove,
	.set_xattr = recv_set_xattr,
	.remove_xattr = recv_remove_xattr,
	.write = recv_write,
	.clone = recv_clone,
	.truncate = recv_truncate,
	.chmod = recv_chmod,
	.chown = recv_chown,
	.utimes = recv_utimes,
	.end = recv_end,
	.update_extent = recv_update_extent,
	.fallocate = recv_fallocate,
	.fileattr = recv_fileattr,
	.encoded_write = recv_encoded_write,
	.enable_verity = recv_enable_verity,
	.unknown = do_unknown,
};
