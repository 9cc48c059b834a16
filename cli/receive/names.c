// SPDX-License-Identifier: GPL-2.0
/*
 * RENAME, LINK, UNLINK and RMDIR.  A rename of the inode whose creation is
 * held back (pending.c) creates it at the new name instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "receive.h"

/* After EPERM on a namespace change: unlock both directories and inodes. */
static bool unlock_names(struct recv *r, int err, int d1, const char *n1,
			 int d2, const char *n2)
{
	bool any = false;

	if (err != EPERM)
		return false;
	any |= recv_unlock(r, d1, "");
	any |= d2 != d1 && recv_unlock(r, d2, "");
	any |= n1 && recv_unlock(r, d1, n1);
	any |= n2 && recv_unlock(r, d2, n2);
	return any;
}

int recv_rename(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t flen = c->attr[BTRFS_SEND_A_PATH].len;
	size_t tlen = c->attr[BTRFS_SEND_A_PATH_TO].len;
	const char *fname, *tname;
	int ret, fdfd, tdfd, err;

	/* Still held back here only if it is this command's PATH. */
	if (r->pend.active) {
		ret = recv_rename_pending(r, c);
		if (ret)
			return ret < 0 ? -1 : 0;
	}
	ret = recv_locate(r, c->path, flen, &fdfd, &fname);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory");
	ret = recv_locate(r, c->path_to, tlen, &tdfd, &tname);
	if (ret)
		return recv_fail(r, c, c->path_to, -ret, "cannot open parent directory of the new name");
	for (int tries = 0;; tries++) {
		err = renameat(fdfd, fname, tdfd, tname) ? errno : 0;
		if (!err || tries || !unlock_names(r, err, fdfd, fname, tdfd, tname))
			break;
	}
	if (err) {
		char q[320];

		return recv_fail(r, c, c->path, err, "cannot rename to '%s'",
				 recv_quote(q, sizeof(q), c->path_to));
	}
	dcache_renamed(r->sv.dc, c->path, flen, c->path_to, tlen);
	fcache_renamed(&r->files, c->path, flen, c->path_to, tlen);
	recv_src_file_forget(r, c->path, flen);
	recv_src_file_forget(r, c->path_to, tlen);
	return 0;
}

int recv_link(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	size_t olen = c->attr[BTRFS_SEND_A_PATH_LINK].len;
	const char *name, *oname;
	int ret, dfd, odfd, err;

	ret = recv_locate(r, c->path_link, olen, &odfd, &oname);
	if (ret)
		return recv_fail(r, c, c->path_link, -ret, "cannot open parent directory of the link target");
	ret = recv_locate(r, c->path, len, &dfd, &name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory");
	/* Flags 0: a symlink target is linked itself, never followed. */
	for (int tries = 0;; tries++) {
		err = linkat(odfd, oname, dfd, name, 0) ? errno : 0;
		if (!err || tries || !unlock_names(r, err, dfd, NULL, odfd, oname))
			break;
	}
	if (err) {
		char q[320];

		return recv_fail(r, c, c->path, err, "cannot link to '%s'",
				 recv_quote(q, sizeof(q), c->path_link));
	}
	return 0;
}

int recv_remove(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	bool dir = c->cmd == BTRFS_SEND_C_RMDIR;
	const char *name;
	int ret, dfd, err;

	ret = recv_locate(r, c->path, len, &dfd, &name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory");
	for (int tries = 0;; tries++) {
		err = unlinkat(dfd, name, dir ? AT_REMOVEDIR : 0) ? errno : 0;
		if (!err || tries || !unlock_names(r, err, dfd, name, dfd, NULL))
			break;
	}
	if (err)
		return recv_fail(r, c, c->path, err, dir ? "cannot remove directory" : "cannot unlink");
	if (dir)
		dcache_removed(r->sv.dc, c->path, len);
	else
		fcache_removed(&r->files, c->path, len);
	recv_src_file_forget(r, c->path, len);
	return 0;
}
