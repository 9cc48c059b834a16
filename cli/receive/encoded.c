// SPDX-License-Identifier: GPL-2.0
/*
 * ENCODED_WRITE: compressed extents as they are on the sender's disk.
 *
 * Preferred path: BTRFS_IOC_ENCODED_WRITE stores the bytes as they are, so
 * the extent stays compressed and nothing is decompressed here.  The kernel
 * refuses some (ENOTTY before 5.18; EINVAL for NODATASUM files, an LZO
 * sector size other than ours, odd alignment; ENOSPC when it cannot find
 * room for the extent in one piece): then the data is decompressed here
 * (zlib, zstd, btrfs' LZO container) and written with pwrite, as
 * --force-decompress always does.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/btrfs.h>
#include <lzo/lzo1x.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <zlib.h>
#include <zstd.h>
#include "receive.h"

/* Largest decoded extent accepted for decompression (Linux: 128 KiB). */
#define MAX_UNENCODED (16u << 20)
/* btrfs limits zstd windows to 2^17; allow some room, bound the memory. */
#define ZSTD_WINDOWLOG_MAX 22

enum {
	COMP_NONE = 0,
	COMP_ZLIB = 1,
	COMP_ZSTD = 2,
	COMP_LZO_4K = 3,
	COMP_LZO_64K = 7,
};

static void *zbuf(struct recv *r, size_t len)
{
	if (len > r->zcap) {
		void *n = realloc(r->zbuf, len);

		if (!n)
			return NULL;
		r->zbuf = n;
		r->zcap = len;
	}
	memset(r->zbuf, 0, len);
	return r->zbuf;
}

static int inflate_zlib(struct recv *r, const uint8_t *in, size_t len,
			uint8_t *out, size_t olen, const char **why)
{
	z_stream *zs = r->zlib;
	int ret;

	if (!zs) {
		zs = calloc(1, sizeof(*zs));
		if (!zs || inflateInit(zs) != Z_OK) {
			free(zs);
			*why = "cannot initialise zlib";
			return -ENOMEM;
		}
		r->zlib = zs;
	} else if (inflateReset(zs) != Z_OK) {
		*why = "cannot reset zlib";
		return -EIO;
	}
	if (len > UINT32_MAX || olen > UINT32_MAX) {
		*why = "zlib data too large";
		return -EINVAL;
	}
	zs->next_in = (Bytef *)in;
	zs->avail_in = (uInt)len;
	zs->next_out = out;
	zs->avail_out = (uInt)olen;
	for (;;) {
		ret = inflate(zs, Z_NO_FLUSH);
		if (ret == Z_STREAM_END || !zs->avail_out)
			return 0;
		if (ret == Z_OK && zs->avail_in)
			continue;
		*why = ret == Z_OK || ret == Z_BUF_ERROR ? "zlib data truncated" :
		       zs->msg ? zs->msg : "corrupt zlib data";
		return -EIO;
	}
}

static int inflate_zstd(struct recv *r, const uint8_t *in, size_t len,
			uint8_t *out, size_t olen, const char **why)
{
	ZSTD_inBuffer ib = { in, len, 0 };
	ZSTD_outBuffer ob = { out, olen, 0 };
	ZSTD_DCtx *d = r->zstd;

	if (!d) {
		d = ZSTD_createDCtx();
		if (!d) {
			*why = "cannot initialise zstd";
			return -ENOMEM;
		}
		ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX);
		r->zstd = d;
	} else {
		ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
	}
	for (;;) {
		size_t ret = ZSTD_decompressStream(d, &ob, &ib);

		if (ZSTD_isError(ret)) {
			*why = ZSTD_getErrorName(ret);
			return -EIO;
		}
		/* Frame complete, or all we need decoded (padding follows). */
		if (ret == 0 || ob.pos == ob.size)
			return 0;
		if (ib.pos == ib.size) {
			*why = "zstd data truncated";
			return -EIO;
		}
	}
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * btrfs' LZO container: le32 total length, then per sector of input a le32
 * segment length and LZO1X data; a segment header never straddles a sector
 * boundary (the remainder of the sector is zero padding).  out has room for
 * olen + sector bytes.
 */
static int inflate_lzo(const uint8_t *in, size_t len, uint8_t *out,
		       size_t olen, size_t sector, const char **why)
{
	static bool ready;
	size_t total, pos = 4, opos = 0;

	if (!ready) {
		if (lzo_init() != LZO_E_OK) {
			*why = "cannot initialise lzo";
			return -EIO;
		}
		ready = true;
	}
	if (len < 4 || (total = le32(in)) > len || total < 4) {
		*why = "bad lzo header";
		return -EIO;
	}
	while (pos < total && opos < olen) {
		size_t left_in_sector = sector - pos % sector;
		lzo_uint seg, produced = sector;

		if (left_in_sector < 4) {
			pos += left_in_sector;
			continue;
		}
		if (total - pos < 4) {
			*why = "lzo segment header truncated";
			return -EIO;
		}
		seg = le32(in + pos);
		pos += 4;
		/* LZO1X's bound on the output for one sector of input. */
		if (seg > total - pos || seg > sector + sector / 16 + 64 + 3) {
			*why = "lzo segment length out of bounds";
			return -EIO;
		}
		if (lzo1x_decompress_safe(in + pos, seg, out + opos, &produced, NULL) != LZO_E_OK) {
			*why = "corrupt lzo data";
			return -EIO;
		}
		opos += produced;
		pos += seg;
	}
	return 0;
}

const uint8_t *recv_decompress(struct recv *r, uint32_t compression,
			       const uint8_t *data, size_t len,
			       uint64_t unencoded_len, int *err,
			       const char **why)
{
	size_t sector = 0;
	uint8_t *out;
	int ret;

	if (unencoded_len > MAX_UNENCODED) {
		*why = "unencoded_len too large to decompress";
		*err = EINVAL;
		return NULL;
	}
	if (compression >= COMP_LZO_4K && compression <= COMP_LZO_64K)
		sector = (size_t)4096 << (compression - COMP_LZO_4K);
	out = zbuf(r, unencoded_len + sector);
	if (!out) {
		*why = "cannot allocate the decompression buffer";
		*err = ENOMEM;
		return NULL;
	}
	switch (compression) {
	case COMP_NONE:
		/* Never sent by Linux; the bytes are the extent itself. */
		memcpy(out, data, len < unencoded_len ? len : unencoded_len);
		ret = 0;
		break;
	case COMP_ZLIB:
		ret = inflate_zlib(r, data, len, out, unencoded_len, why);
		break;
	case COMP_ZSTD:
		ret = inflate_zstd(r, data, len, out, unencoded_len, why);
		break;
	default:
		if (!sector) {
			*why = "unknown compression";
			*err = EOPNOTSUPP;
			return NULL;
		}
		ret = inflate_lzo(data, len, out, unencoded_len, sector, why);
		break;
	}
	if (ret) {
		*err = -ret;
		return NULL;
	}
	return out;
}

void recv_encoded_cleanup(struct recv *r)
{
	if (r->zlib) {
		inflateEnd(r->zlib);
		free(r->zlib);
	}
	ZSTD_freeDCtx(r->zstd);
	free(r->zbuf);
	r->zlib = r->zstd = r->zbuf = NULL;
	r->zcap = 0;
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

	if (!r->force_decompress && r->backend->encoded_io && c->compression != COMP_NONE) {
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
