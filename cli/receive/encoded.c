// SPDX-License-Identifier: GPL-2.0
/*
 * ENCODED_WRITE: compressed extents as they are on the sender's disk.
 *
 * Preferred path: BTRFS_IOC_ENCODED_WRITE stores the bytes as they are, so
 * the extent stays compressed and nothing is decompressed here.  The kernel
 * refuses some (ENOTTY before 5.18; EINVAL for NODATASUM files, an LZO
 * sector size other than ours, odd alignment; ENOSPC when it cannot find
 * room for the extent in one piece): then the data is decompressed here
 * (zlib, zstd, btrfs' LZO container, by cli/decompress.c) and written
 * with pwrite, as --force-decompress always does.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/btrfs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include "receive.h"

const uint8_t *recv_decompress(struct recv *r, uint32_t compression,
			       const uint8_t *data, size_t len,
			       uint64_t unencoded_len, int *err,
			       const char **why)
{
	return cli_decompress(&r->dz, compression, data, len, unencoded_len, err, why);
}

void recv_encoded_cleanup(struct recv *r)
{
	cli_decomp_free(&r->dz);
}

int recv_encoded_write(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	struct iovec iov = { (void *)c->data, c->data_len };
	struct btrfs_ioctl_encoded_io_args args = {
		.iov = &iov,
		.iovcnt = 1,
		.offset = (__s64)c->file_offset,
		.len = c->unencoded_file_len,
		.unencoded_len = c->unencoded_len,
		.unencoded_offset = c->unencoded_offset,
		.compression = c->compression,
		.encryption = c->encryption,
	};
	const uint8_t *buf;
	const char *why = NULL;
	int fd, ret, err = 0;

	ret = recv_data_fd(r, c, &fd);
	if (ret <= 0)
		return ret;
	if (recv_jobs_drain(r) < 0)
		return -1;
	if (c->encryption)
		return recv_fail(r, c, c->path, EOPNOTSUPP, "encryption %" PRIu32 " not supported",
				 c->encryption);
	if (c->unencoded_offset > c->unencoded_len ||
	    c->unencoded_file_len > c->unencoded_len - c->unencoded_offset ||
	    c->file_offset > INT64_MAX || c->unencoded_file_len > INT64_MAX - c->file_offset)
		return recv_fail(r, c, c->path, EINVAL,
				 "inconsistent lengths: offset %" PRIu64 " unencoded_file_len %" PRIu64
				 " unencoded_len %" PRIu64 " unencoded_offset %" PRIu64,
				 c->file_offset, c->unencoded_file_len, c->unencoded_len,
				 c->unencoded_offset);

	if (!r->force_decompress && r->backend->encoded_io && c->compression != CLI_COMP_NONE) {
		if (ioctl(fd, BTRFS_IOC_ENCODED_WRITE, &args) >= 0) {
			r->n_encoded_ioctl++;
			return 0;
		}
		if (errno != ENOTTY && errno != EINVAL && errno != ENOSPC)
			return recv_fail(r, c, c->path, errno,
					 "encoded write of %" PRIu32 " bytes at offset %" PRIu64,
					 c->data_len, c->file_offset);
	}

	buf = recv_decompress(r, c->compression, c->data, c->data_len,
			      c->unencoded_len, &err, &why);
	if (!buf)
		return recv_fail(r, c, c->path, err, "cannot decompress (compression %" PRIu32 "): %s",
				 c->compression, why);
	r->n_encoded_plain++;
	return recv_write_data(r, c, fd, buf + c->unencoded_offset,
			       c->unencoded_file_len, c->file_offset);
}
