// SPDX-License-Identifier: GPL-2.0
/*
 * Decompressing encoded extents (see decompress.h).  Moved here from
 * cli/receive/encoded.c so that receive and the archive commands share one
 * decoder, with its checks of hostile data, instead of two.
 */
#include <errno.h>
#include <lzo/lzo1x.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include "decompress.h"

/* btrfs limits zstd windows to 2^17; allow some room, bound the memory. */
#define ZSTD_WINDOWLOG_MAX 22

static void *zbuf(struct cli_decomp *d, size_t len)
{
	if (len > d->cap) {
		void *n = realloc(d->buf, len);

		if (!n)
			return NULL;
		d->buf = n;
		d->cap = len;
	}
	memset(d->buf, 0, len);
	return d->buf;
}

static int inflate_zlib(struct cli_decomp *d, const uint8_t *in, size_t len,
			uint8_t *out, size_t olen, const char **why)
{
	z_stream *zs = d->zlib;
	int ret;

	if (!zs) {
		zs = calloc(1, sizeof(*zs));
		if (!zs || inflateInit(zs) != Z_OK) {
			free(zs);
			*why = "cannot initialise zlib";
			return -ENOMEM;
		}
		d->zlib = zs;
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

static int inflate_zstd(struct cli_decomp *d, const uint8_t *in, size_t len,
			uint8_t *out, size_t olen, const char **why)
{
	ZSTD_inBuffer ib = { in, len, 0 };
	ZSTD_outBuffer ob = { out, olen, 0 };
	ZSTD_DCtx *z = d->zstd;

	if (!z) {
		z = ZSTD_createDCtx();
		if (!z) {
			*why = "cannot initialise zstd";
			return -ENOMEM;
		}
		ZSTD_DCtx_setParameter(z, ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX);
		d->zstd = z;
	} else {
		ZSTD_DCtx_reset(z, ZSTD_reset_session_only);
	}
	for (;;) {
		size_t ret = ZSTD_decompressStream(z, &ob, &ib);

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

const uint8_t *cli_decompress(struct cli_decomp *d, uint32_t compression,
			      const uint8_t *data, size_t len,
			      uint64_t unencoded_len, int *err, const char **why)
{
	size_t sector = 0;
	uint8_t *out;
	int ret;

	if (unencoded_len > CLI_DECOMP_MAX) {
		*why = "unencoded_len too large to decompress";
		*err = EINVAL;
		return NULL;
	}
	if (compression >= CLI_COMP_LZO_4K && compression <= CLI_COMP_LZO_64K)
		sector = (size_t)4096 << (compression - CLI_COMP_LZO_4K);
	out = zbuf(d, unencoded_len + sector);
	if (!out) {
		*why = "cannot allocate the decompression buffer";
		*err = ENOMEM;
		return NULL;
	}
	switch (compression) {
	case CLI_COMP_NONE:
		/* Never sent by Linux; the bytes are the extent itself. */
		memcpy(out, data, len < unencoded_len ? len : unencoded_len);
		ret = 0;
		break;
	case CLI_COMP_ZLIB:
		ret = inflate_zlib(d, data, len, out, unencoded_len, why);
		break;
	case CLI_COMP_ZSTD:
		ret = inflate_zstd(d, data, len, out, unencoded_len, why);
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

void cli_decomp_free(struct cli_decomp *d)
{
	if (d->zlib) {
		inflateEnd(d->zlib);
		free(d->zlib);
	}
	ZSTD_freeDCtx(d->zstd);
	free(d->buf);
	d->zlib = d->zstd = d->buf = NULL;
	d->cap = 0;
}
