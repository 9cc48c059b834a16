// SPDX-License-Identifier: GPL-2.0
/*
 * The callback table that receive hands to the stream reader: every
 * command goes through dispatch(), which checks what the command's entry
 * in recv_cmds[] asks (that it belongs to a subvolume being received, that
 * its path attributes are paths beneath it) and then runs its handler.
 * Handlers never call back into this file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "receive.h"

/*
 * Whether a command of a subvolume can run: 1 yes, 0 skip it (its
 * subvolume could not be created, already reported), -1 stop.
 */
static int in_subvol(struct recv *r, const struct bstream_cmd *c)
{
	r->n_cmds++;
	if (r->verbose >= 3)
		fprintf(stderr, "%s %s\n", bstream_cmd_name(c->cmd),
			c->path ? c->path : "");
	/* Errors of queued jobs (jobs.c) count from now. */
	if (r->jobs && recv_jobs_report(r) < 0)
		return -1;
	/* A held-back creation happens first, unless this moves it (recv_rename()). */
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
static int check_path(struct recv *r, const struct bstream_cmd *c,
		      unsigned int attr, const char *path, bool allow_root)
{
	const char *why = recv_path_invalid(path, c->attr[attr].len, allow_root);

	if (!why)
		return 1;
	return recv_fail(r, c, path, 0, "refusing %s: %s", bstream_attr_name(attr), why) < 0 ? -1 : 0;
}

static int do_unknown_cmd(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;

	recv_info(r, 2, "skipping unknown command %u at offset %" PRIu64, c->cmd, c->offset);
	return 0;
}

/* What apply.c checks before a command's handler runs. */
enum {
	IN_SUBVOL = 1 << 0,	/* the command belongs to the current subvolume */
	PATH = 1 << 1,		/* PATH is a path beneath it ... */
	PATH_ROOT = 1 << 2,	/* ... or its root */
	PATH_TO = 1 << 3,
	PATH_LINK = 1 << 4,	/* LINK's target (not SYMLINK's) */
	CLONE_PATH = 1 << 5,
};

struct recv_cmd {
	bstream_cb run;
	unsigned int checks;
};

#define NAMED (IN_SUBVOL | PATH)
#define NAMED_OR_ROOT (IN_SUBVOL | PATH | PATH_ROOT)

static const struct recv_cmd recv_cmds[] = {
	[BTRFS_SEND_C_SUBVOL] = { recv_subvol, 0 },
	[BTRFS_SEND_C_SNAPSHOT] = { recv_snapshot, 0 },
	[BTRFS_SEND_C_END] = { recv_end, 0 },
	[BTRFS_SEND_C_MKFILE] = { recv_make_inode, NAMED },
	[BTRFS_SEND_C_MKDIR] = { recv_make_inode, NAMED },
	[BTRFS_SEND_C_MKNOD] = { recv_make_inode, NAMED },
	[BTRFS_SEND_C_MKFIFO] = { recv_make_inode, NAMED },
	[BTRFS_SEND_C_MKSOCK] = { recv_make_inode, NAMED },
	[BTRFS_SEND_C_SYMLINK] = { recv_make_inode, NAMED },
	[BTRFS_SEND_C_RENAME] = { recv_rename, NAMED | PATH_TO },
	[BTRFS_SEND_C_LINK] = { recv_link, NAMED | PATH_LINK },
	[BTRFS_SEND_C_UNLINK] = { recv_remove, NAMED },
	[BTRFS_SEND_C_RMDIR] = { recv_remove, NAMED },
	[BTRFS_SEND_C_SET_XATTR] = { recv_set_xattr, NAMED_OR_ROOT },
	[BTRFS_SEND_C_REMOVE_XATTR] = { recv_remove_xattr, NAMED_OR_ROOT },
	[BTRFS_SEND_C_WRITE] = { recv_write, NAMED },
	[BTRFS_SEND_C_CLONE] = { recv_clone, NAMED | CLONE_PATH },
	[BTRFS_SEND_C_TRUNCATE] = { recv_truncate, NAMED },
	[BTRFS_SEND_C_CHMOD] = { recv_chmod, NAMED_OR_ROOT },
	[BTRFS_SEND_C_CHOWN] = { recv_chown, NAMED_OR_ROOT },
	[BTRFS_SEND_C_UTIMES] = { recv_utimes, NAMED_OR_ROOT },
	[BTRFS_SEND_C_UPDATE_EXTENT] = { recv_update_extent, NAMED },
	[BTRFS_SEND_C_FALLOCATE] = { recv_fallocate, NAMED },
	[BTRFS_SEND_C_FILEATTR] = { recv_fileattr, NAMED_OR_ROOT },
	[BTRFS_SEND_C_ENCODED_WRITE] = { recv_encoded_write, NAMED },
	[BTRFS_SEND_C_ENABLE_VERITY] = { recv_enable_verity, NAMED },
};

/* The path attributes a command's checks name. */
static int check_paths(struct recv *r, const struct bstream_cmd *c,
		       unsigned int checks)
{
	int ret = 1;

	if (checks & PATH)
		ret = check_path(r, c, BTRFS_SEND_A_PATH, c->path,
				      checks & PATH_ROOT);
	if (ret > 0 && (checks & PATH_TO))
		ret = check_path(r, c, BTRFS_SEND_A_PATH_TO, c->path_to, false);
	if (ret > 0 && (checks & PATH_LINK))
		ret = check_path(r, c, BTRFS_SEND_A_PATH_LINK, c->path_link, false);
	if (ret > 0 && (checks & CLONE_PATH))
		ret = check_path(r, c, BTRFS_SEND_A_CLONE_PATH, c->clone_path, false);
	return ret;
}

/* Every command: its checks, then its handler. */
static int dispatch(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	const struct recv_cmd *rc;
	int ret;

	if (recv_resume_before(r, c))
		return -1;
	if (c->cmd >= sizeof(recv_cmds) / sizeof(recv_cmds[0]) || !recv_cmds[c->cmd].run)
		return do_unknown_cmd(user, c);
	rc = &recv_cmds[c->cmd];
	if (rc->checks & IN_SUBVOL) {
		ret = in_subvol(r, c);
		if (ret <= 0)
			return ret;
	}
	ret = check_paths(r, c, rc->checks);
	if (ret <= 0) {
		/* A creation held back for a refused RENAME is valid on its own. */
		if (recv_flush_pending(r) < 0)
			return -1;
		return ret;
	}
	ret = rc->run(user, c);
	return ret ? ret : recv_resume_applied(r, c);
}

const struct bstream_ops recv_ops = {
	.subvol = dispatch, .snapshot = dispatch, .end = dispatch,
	.mkfile = dispatch, .mkdir = dispatch, .mknod = dispatch,
	.mkfifo = dispatch, .mksock = dispatch, .symlink = dispatch,
	.rename = dispatch, .link = dispatch, .unlink = dispatch,
	.rmdir = dispatch, .set_xattr = dispatch, .remove_xattr = dispatch,
	.write = dispatch, .clone = dispatch, .truncate = dispatch,
	.chmod = dispatch, .chown = dispatch, .utimes = dispatch,
	.update_extent = dispatch, .fallocate = dispatch, .fileattr = dispatch,
	.encoded_write = dispatch, .enable_verity = dispatch,
	.unknown = recv_resume_unknown,
	.header = recv_resume_header,
};
