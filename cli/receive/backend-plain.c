// SPDX-License-Identifier: GPL-2.0
/*
 * The plain-directory destination: a subvolume is a directory, clones
 * become reflinks where the filesystem has them and copies elsewhere,
 * and encoded data is decompressed.
 *
 * What btrfs keeps in a subvolume's root item is kept in a record file,
 * DEST/.btrfs-stream/NAME, written (and synced) when NAME is complete: the
 * UUID and ctransid it was received as.  An incremental stream finds its
 * parent among the records, and the snapshot of the parent is a copy of
 * its tree (tree-copy.c) that shares the data where the filesystem can.
 * A directory of DEST without a record was not received completely.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "receive.h"

#define RECORDS ".btrfs-stream"

static int plain_init(struct recv *r)
{
	return 0;
}

static int plain_create(struct recv *r, const char *name)
{
	/* The records' directory is not a name a stream can take. */
	if (!strcmp(name, RECORDS))
		return EEXIST;
	return mkdirat(r->dest_fd, name, 0755) ? errno : 0;
}

static int plain_snapshot(struct recv *r, int parent_fd, const char *name)
{
	char why[512];
	int fd, err;

	err = plain_create(r, name);
	if (err)
		return err;
	fd = openat(r->dest_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = recv_tree_copy(parent_fd, fd, recv_held_of(r), why, sizeof(why));
	close(fd);
	if (err)
		recv_error(r, "copying the parent into '%s': %s: %s", name, why, strerror(err));
	return err;
}

static int plain_check_new(struct recv *r, int fd, uint64_t *id)
{
	*id = 0;
	return 0;
}

/* Read the record of NAME: 0 with its UUID and ctransid, or an errno. */
static int read_record(int dir, const char *name, uint8_t *uuid, uint64_t *ctransid)
{
	char buf[256], us[37];
	ssize_t len;
	int fd;

	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0)
		return errno;
	buf[len] = 0;
	if (sscanf(buf, "uuid=%36s ctransid=%" SCNu64, us, ctransid) != 2 ||
	    cli_uuid_parse(us, strlen(us), uuid))
		return EINVAL;
	return 0;
}

static int plain_open_received(struct recv *r, const uint8_t *uuid,
			       uint64_t ctransid, uint64_t *id, char *why,
			       size_t wlen)
{
	char us[37];
	struct dirent *de;
	int dir, ret = -ENOENT;
	DIR *d;

	cli_uuid_str(uuid, us);
	*id = 0;
	dir = openat(r->dest_fd, RECORDS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = dir < 0 ? NULL : fdopendir(dir);
	if (!d) {
		if (dir >= 0)
			close(dir);
		snprintf(why, wlen, "nothing was received into '%s' yet", r->dest_name);
		return -ENOENT;
	}
	while ((de = readdir(d))) {
		uint8_t got[16];
		uint64_t got_ctransid;

		if (de->d_name[0] == '.' ||
		    read_record(dirfd(d), de->d_name, got, &got_ctransid) ||
		    memcmp(got, uuid, 16) || got_ctransid != ctransid)
			continue;
		ret = recv_walk_dir(r->dest_fd, de->d_name, strlen(de->d_name));
		if (ret < 0)
			snprintf(why, wlen, "cannot open '%s', received as %s: %s",
				 de->d_name, us, strerror(-ret));
		break;
	}
	closedir(d);
	if (ret == -ENOENT)
		snprintf(why, wlen, "no directory of '%s' was received as %s transid %" PRIu64,
			 r->dest_name, us, ctransid);
	return ret;
}

/* Reflink where the filesystem can, else copy. */
static int plain_clone(int dst, uint64_t doff, int src, uint64_t soff, uint64_t len)
{
	struct file_clone_range range = {
		.src_fd = src, .src_offset = soff, .src_length = len, .dest_offset = doff,
	};
	off_t in = (off_t)soff, out = (off_t)doff;

	if (!ioctl(dst, FICLONERANGE, &range))
		return 0;
	if (errno != EOPNOTSUPP && errno != EXDEV && errno != EINVAL && errno != ENOTTY)
		return errno;
	while (len) {
		ssize_t n = copy_file_range(src, &in, dst, &out,
					    len > (1 << 30) ? (1 << 30) : len, 0);

		if (n < 0)
			return errno;
		if (n == 0)
			break;
		len -= n;
	}
	return 0;
}

/* Write the record of the current subvolume, durably, replacing any. */
static int plain_mark_received(struct recv *r, char *why, size_t wlen)
{
	char us[37], text[128], tmp[300];
	int dir, fd, err = 0;
	size_t len;

	/* What the record vouches for is on disk before the record. */
	if (syncfs(r->sv.root_fd)) {
		snprintf(why, wlen, "cannot sync the received tree");
		return errno;
	}
	if (mkdirat(r->dest_fd, RECORDS, 0755) && errno != EEXIST) {
		snprintf(why, wlen, "cannot create '%s'", RECORDS);
		return errno;
	}
	dir = openat(r->dest_fd, RECORDS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0) {
		snprintf(why, wlen, "cannot open '%s'", RECORDS);
		return errno;
	}
	cli_uuid_str(r->sv.uuid, us);
	len = (size_t)snprintf(text, sizeof(text), "uuid=%s ctransid=%" PRIu64 "\n",
			       us, r->sv.ctransid);
	snprintf(tmp, sizeof(tmp), ".%s.tmp", r->sv.name);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || fsync(fd) ||
	    renameat(dir, tmp, dir, r->sv.name) || fsync(dir))
		err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	close(dir);
	if (err)
		snprintf(why, wlen, "cannot record it as received in '%s'", RECORDS);
	return err;
}

/*
 * A checkpoint is a copy of the tree (tree-copy.c): data shared where the
 * filesystem has reflinks (XFS, btrfs), copied elsewhere, so on ext4 or
 * tmpfs each checkpoint costs what has been received so far
 * (docs/resume.md: choose --checkpoint-every accordingly).
 */
static int plain_checkpoint(struct recv *r, int dir, const char *name, char *why,
			    size_t wlen)
{
	int fd, err;

	if (mkdirat(dir, name, 0700)) {
		snprintf(why, wlen, "cannot create '%s/%s'", RESUME_DIR, name);
		return errno;
	}
	fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, wlen, "cannot open '%s/%s'", RESUME_DIR, name);
		return errno;
	}
	err = recv_tree_copy(r->sv.root_fd, fd, NULL, why, wlen);
	if (!err && syncfs(fd)) {
		err = errno;
		snprintf(why, wlen, "cannot sync '%s/%s'", RESUME_DIR, name);
	}
	close(fd);
	if (err) {
		char ignored[200];

		recv_tree_remove(dir, name, ignored, sizeof(ignored));
	}
	return err;
}

static int plain_restore(struct recv *r, int root, int src, char *why, size_t wlen)
{
	return recv_tree_rollback(root, src, why, wlen);
}

static int plain_remove(struct recv *r, int dir, const char *name, char *why, size_t wlen)
{
	return recv_tree_remove(dir, name, why, wlen);
}

const struct recv_backend recv_plain_backend = {
	.name = "plain",
	.what = "directory",
	.encoded_io = false,
	.init = plain_init,
	.create = plain_create,
	.snapshot = plain_snapshot,
	.check_new = plain_check_new,
	.open_received = plain_open_received,
	.clone = plain_clone,
	.mark_received = plain_mark_received,
	.checkpoint = plain_checkpoint,
	.restore = plain_restore,
	.remove = plain_remove,
};
