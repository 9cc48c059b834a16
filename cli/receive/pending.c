// SPDX-License-Identifier: GPL-2.0
/*
 * Creations held back for one command.  The sender creates every new
 * inode under an orphan name in the subvolume's root and usually moves it
 * to its place with the next command: receive then creates it there
 * directly, which saves the root directory an insertion and a removal.
 * Anything else that comes first makes the creation happen as sent.
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

/* Create the inode of c at name beneath dfd: 0 or errno, *what on failure. */
static int create(struct recv *r, const struct bstream_cmd *c, int dfd,
		  const char *name, const char **what)
{
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	int fd;

	switch (c->cmd) {
	case BTRFS_SEND_C_MKFILE:
		*what = "cannot create file";
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return errno;
		fcache_put(&r->files, c->path, len, fd);
		fcache_find(&r->files, c->path, len)->mode = 0600;
		return 0;
	case BTRFS_SEND_C_MKDIR:
		*what = "cannot create directory";
		return mkdirat(dfd, name, 0700) ? errno : 0;
	case BTRFS_SEND_C_MKNOD:
		*what = "cannot create device node";
		return mknodat(dfd, name, c->mode & S_IFMT, (dev_t)c->rdev) ? errno : 0;
	case BTRFS_SEND_C_MKFIFO:
		*what = "cannot create fifo";
		return mknodat(dfd, name, S_IFIFO | 0600, 0) ? errno : 0;
	case BTRFS_SEND_C_MKSOCK:
		*what = "cannot create socket";
		return mknodat(dfd, name, S_IFSOCK | 0600, 0) ? errno : 0;
	default:
		*what = "cannot create symlink";
		return symlinkat(c->path_link, dfd, name) ? errno : 0;
	}
}

void recv_drop_pending(struct recv *r)
{
	free(r->pend.path);
	free(r->pend.link);
	memset(&r->pend, 0, sizeof(r->pend));
}

/* A command like the held-back one, creating at path (len bytes). */
static void pending_cmd(const struct recv_pending *p, struct bstream_cmd *c,
			const char *path, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->cmd = p->cmd;
	c->known = true;
	c->index = p->index;
	c->offset = p->offset;
	c->path = path;
	c->attr[BTRFS_SEND_A_PATH].len = len;
	c->path_link = p->link;
	c->mode = p->mode;
	c->rdev = p->rdev;
}

static const char no_parent[] = "cannot open parent directory";

/*
 * A device node an unprivileged receive cannot make: an empty file takes
 * its name, so that the stream's later commands on it (rename, link,
 * owner, mode, times, unlink) still apply and the tree keeps its shape.
 * Returns EPERM, which the caller reports and skips.c counts as skipped,
 * or why the stand-in could not be made either.
 */
static int stand_in(int dfd, const char *name, const char **what)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0) {
		*what = "cannot create device node, nor an empty file to stand in for it";
		return errno;
	}
	close(fd);
	*what = "cannot create device node (an empty file stands in for it)";
	return EPERM;
}

/* Create c's inode at c->path; 0, or errno with *what. */
static int create_at(struct recv *r, const struct bstream_cmd *c, const char **what)
{
	const char *name;
	int ret, dfd, err;

	ret = recv_locate(r, c->path, c->attr[BTRFS_SEND_A_PATH].len, &dfd, &name);
	if (ret) {
		*what = no_parent;
		return -ret;
	}
	for (int tries = 0;; tries++) {
		err = create(r, c, dfd, name, what);
		if (!err || tries || err != EPERM || !recv_unlock(r, dfd, ""))
			break;
	}
	if (err == EPERM && c->cmd == BTRFS_SEND_C_MKNOD && recv_may_skip(r))
		return stand_in(dfd, name, what);
	return err;
}

int recv_flush_pending(struct recv *r)
{
	struct bstream_cmd c;
	const char *what;
	int err;

	if (!r->pend.active)
		return 0;
	pending_cmd(&r->pend, &c, r->pend.path, r->pend.len);
	err = create_at(r, &c, &what);
	r->pend.active = false;
	err = err ? recv_fail(r, &c, c.path, err, "%s", what) : 0;
	recv_drop_pending(r);
	return err;
}

/*
 * Whether creating an inode in directory path_to's parent gives the same
 * inode as creating it in the root and moving it there: yes for the root
 * itself, and where neither directory passes anything on to new inodes
 * (ACLs, setgid group, flags, properties).
 */
static bool same_as_moved(struct recv *r, const char *path, size_t len)
{
	size_t slash = recv_last_slash(path, len);

	if (!slash)
		return true;
	if (r->sv.root_plain < 0)
		r->sv.root_plain = recv_dir_is_plain(r->sv.root_fd);
	return r->sv.root_plain && dcache_plain(r->sv.dc, path, slash) > 0;
}

/*
 * RENAME of the held-back inode: create it at the new name, or, if that
 * name exists (a rename would replace it) or the new directory would give
 * it something the root does not, at its own name and let the rename go
 * on.  Returns 1 when done, 0 to rename, -1 to stop.
 */
int recv_rename_pending(struct recv *r, const struct bstream_cmd *c)
{
	size_t tlen = c->attr[BTRFS_SEND_A_PATH_TO].len;
	struct bstream_cmd nc;
	const char *what;
	int err;

	if (!same_as_moved(r, c->path_to, tlen))
		return recv_flush_pending(r) < 0 ? -1 : 0;
	pending_cmd(&r->pend, &nc, c->path_to, tlen);
	err = create_at(r, &nc, &what);
	if (err == EEXIST)
		return recv_flush_pending(r) < 0 ? -1 : 0;
	recv_drop_pending(r);
	/* A device's stand-in: the skip belongs to the MKNOD. */
	if (err == EPERM && nc.cmd == BTRFS_SEND_C_MKNOD && what != no_parent)
		return recv_fail(r, &nc, c->path_to, err, "%s", what) < 0 ? -1 : 1;
	if (err)
		return recv_fail(r, c, c->path_to, err, "%s",
				 what == no_parent ? "cannot open parent directory of the new name" : what) < 0 ? -1 : 1;
	return 1;
}

int recv_make_inode(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	struct recv_pending *p = &r->pend;

	if (c->cmd == BTRFS_SEND_C_SYMLINK &&
	    strlen(c->path_link) != c->attr[BTRFS_SEND_A_PATH_LINK].len)
		return recv_fail(r, c, c->path, 0, "refusing symlink target: contains a NUL byte");
	p->path = malloc(len + 1);
	p->link = c->path_link ? strdup(c->path_link) : NULL;
	if (!p->path || (c->path_link && !p->link)) {
		recv_drop_pending(r);
		return recv_fail(r, c, c->path, ENOMEM, "cannot create");
	}
	memcpy(p->path, c->path, len + 1);
	p->len = len;
	p->cmd = c->cmd;
	p->index = c->index;
	p->offset = c->offset;
	p->mode = c->mode;
	p->rdev = c->rdev;
	p->active = true;
	return 0;
}
