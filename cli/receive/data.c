// SPDX-License-Identifier: GPL-2.0
/*
 * File data: WRITE, CLONE, TRUNCATE, FALLOCATE and UPDATE_EXTENT, on
 * files kept open in the file cache; writes and truncations may go to the
 * worker thread (jobs.c).  ENCODED_WRITE is in encoded.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include "receive.h"

/* Open the file of c->path for writing, reporting failures. */
int recv_data_fd(struct recv *r, const struct bstream_cmd *c, int *fd)
{
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	const char *name;
	int dfd, ret;

	*fd = fcache_get(&r->files, c->path, len);
	if (*fd >= 0)
		return 1;
	ret = recv_locate(r, c->path, len, &dfd, &name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory") < 0 ? -1 : 0;
	*fd = recv_open_regular(dfd, name, O_WRONLY);
	if (*fd == -EPERM && recv_unlock(r, dfd, name))
		*fd = recv_open_regular(dfd, name, O_WRONLY);
	if (*fd < 0)
		return recv_fail(r, c, c->path, -*fd, "%s", recv_open_what(*fd)) < 0 ? -1 : 0;
	recv_hold_setid(recv_held_of(r), *fd);
	fcache_put(&r->files, c->path, len, *fd);
	return 1;
}

int recv_write_data(struct recv *r, const struct bstream_cmd *c, int fd,
		    const void *buf, size_t len, uint64_t off)
{
	int err = fdop_write_all(fd, buf, len, off);

	if (err)
		return recv_fail(r, c, c->path, err, "cannot write %zu bytes at offset %" PRIu64, len, off);
	return 0;
}

int recv_write(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	struct fdop op = {
		.type = FDOP_WRITE, .a = c->file_offset,
		.data = c->data, .len = c->data_len,
	};
	int fd, ret;

	ret = recv_data_fd(r, c, &fd);
	if (ret <= 0)
		return ret;
	op.fd = fd;
	r->n_writes++;
	if (c->file_offset <= INT64_MAX && c->data_len <= INT64_MAX - c->file_offset &&
	    recv_job_queue(r, c, &op))
		return 0;
	return recv_write_data(r, c, fd, c->data, c->data_len, c->file_offset);
}

int recv_clone(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t slen = c->attr[BTRFS_SEND_A_CLONE_PATH].len;
	struct dcache *sdc = NULL;
	char why[512], q[320];
	int fd, ret, root, sfd, err;

	ret = recv_data_fd(r, c, &fd);
	if (ret <= 0)
		return ret;
	r->n_clones++;
	/* Both files' queued writes must be on disk first. */
	if (recv_jobs_drain(r) < 0)
		return -1;
	root = recv_clone_source(r, c, &sdc, why, sizeof(why));
	if (root < 0)
		return recv_fail(r, c, c->path, -root, "clone source: %s", why);

	if (r->src_file_fd >= 0 && r->src_file_root == root &&
	    !strcmp(r->src_file_path, c->clone_path)) {
		sfd = r->src_file_fd;
	} else {
		size_t slash = recv_last_slash(c->clone_path, slen);
		const char *name = slash ? c->clone_path + slash + 1 : c->clone_path;
		int dfd = slash ? dcache_dir(sdc, c->clone_path, slash) : root;
		char *copy;

		if (dfd < 0)
			return recv_fail(r, c, c->path, -dfd, "cannot open directory of clone source '%s'",
					 recv_quote(q, sizeof(q), c->clone_path));
		/* Reading a clone source must not change its atime. */
		sfd = recv_open_regular(dfd, name, O_RDONLY | O_NOATIME);
		if (sfd == -EPERM)
			sfd = recv_open_regular(dfd, name, O_RDONLY);
		if (sfd < 0)
			return recv_fail(r, c, c->path, -sfd, "clone source '%s': %s",
					 recv_quote(q, sizeof(q), c->clone_path), recv_open_what(sfd));
		copy = strdup(c->clone_path);
		if (!copy) {
			close(sfd);
			return recv_fail(r, c, c->path, ENOMEM, "clone");
		}
		if (r->src_file_fd >= 0)
			close(r->src_file_fd);
		free(r->src_file_path);
		r->src_file_fd = sfd;
		r->src_file_root = root;
		r->src_file_path = copy;
	}

	err = r->backend->clone(fd, c->file_offset, sfd, c->clone_offset, c->clone_len);
	if (!err)
		return 0;
	return recv_fail(r, c, c->path, err,
			 "cannot clone %" PRIu64 " bytes at offset %" PRIu64 " from '%s' offset %" PRIu64,
			 c->clone_len, c->file_offset,
			 recv_quote(q, sizeof(q), c->clone_path), c->clone_offset);
}

int recv_truncate(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	struct fdop op = { .type = FDOP_TRUNCATE, .a = c->size };
	char why[160];
	int fd, ret, err;

	ret = recv_data_fd(r, c, &fd);
	if (ret <= 0)
		return ret;
	op.fd = fd;
	if (c->size > INT64_MAX)
		return recv_fail(r, c, c->path, EFBIG, "cannot truncate to %" PRIu64, c->size);
	if (recv_job_queue(r, c, &op))
		return 0;
	/* Without memory for a job, this file's queued writes go first. */
	if (recv_jobs_drain(r) < 0)
		return -1;
	err = fdop_run(&op, why, sizeof(why));
	return err ? recv_fail(r, c, c->path, err, "%s", why) : 0;
}

int recv_fallocate(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	int fd, ret;

	ret = recv_data_fd(r, c, &fd);
	if (ret <= 0)
		return ret;
	if (c->file_offset > INT64_MAX || c->size > INT64_MAX - c->file_offset)
		return recv_fail(r, c, c->path, EFBIG, "fallocate range out of bounds");
	if (recv_jobs_drain(r) < 0)
		return -1;
	if (fallocate(fd, (int)c->fallocate_mode, (off_t)c->file_offset, (off_t)c->size))
		return recv_fail(r, c, c->path, errno,
				 "cannot fallocate (mode %#x) %" PRIu64 " bytes at offset %" PRIu64,
				 c->fallocate_mode, c->size, c->file_offset);
	return 0;
}

/* No data to write: only check that the command names a regular file. */
int recv_update_extent(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	const char *name;
	struct stat st;
	int ret, dfd;

	if (c->file_offset > INT64_MAX || c->size > INT64_MAX - c->file_offset)
		return recv_fail(r, c, c->path, EFBIG, "extent range out of bounds");
	ret = recv_locate(r, c->path, c->attr[BTRFS_SEND_A_PATH].len, &dfd, &name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory");
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return recv_fail(r, c, c->path, errno, "cannot find file");
	if (!S_ISREG(st.st_mode))
		return recv_fail(r, c, c->path, 0, "not a regular file");
	return 0;
}

/* The clone source file, if it lies in the current subvolume, may have moved. */
void recv_src_file_forget(struct recv *r, const char *path, size_t len)
{
	size_t l;

	if (r->src_file_fd < 0 || r->src_file_root != r->sv.root_fd)
		return;
	l = strlen(r->src_file_path);
	if (l >= len && !memcmp(r->src_file_path, path, len) &&
	    (l == len || r->src_file_path[len] == '/')) {
		close(r->src_file_fd);
		free(r->src_file_path);
		r->src_file_fd = -1;
		r->src_file_path = NULL;
	}
}
