// SPDX-License-Identifier: GPL-2.0
/*
 * The plain-directory destination: a subvolume is a directory, clones
 * become reflinks where the filesystem has them and copies elsewhere,
 * and encoded data is decompressed.  Today it receives full streams only
 * (host-side tests use it through the hidden --plain-dirs); parents and
 * clone sources in other subvolumes, and the record of what was received,
 * are what "receive anywhere" adds.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "receive.h"

static int plain_init(struct recv *r)
{
	return 0;
}

static int plain_create(struct recv *r, const char *name)
{
	return mkdirat(r->dest_fd, name, 0755) ? errno : 0;
}

static int plain_snapshot(struct recv *r, int parent_fd, const char *name)
{
	return EOPNOTSUPP;
}

static int plain_check_new(struct recv *r, int fd, uint64_t *id)
{
	*id = 0;
	return 0;
}

static int plain_open_received(struct recv *r, const uint8_t *uuid,
			       uint64_t ctransid, uint64_t *id, char *why,
			       size_t wlen)
{
	snprintf(why, wlen, "plain directories keep no record of received subvolumes yet");
	return -EOPNOTSUPP;
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

static int plain_mark_received(struct recv *r, char *why, size_t wlen)
{
	return 0;
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
};
