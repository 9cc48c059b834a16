/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decompressing the data of an ENCODED_WRITE (spec 5.6): zlib, zstd and
 * btrfs' LZO container.  Shared by receive, whose fallback writes what the
 * kernel would not take encoded, and by the archive commands (ls, cat,
 * extract), which read encoded extents without any kernel at all.
 */
#ifndef BTRFS_STREAM_CLI_DECOMPRESS_H
#define BTRFS_STREAM_CLI_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

/* Largest decoded extent accepted for decompression (Linux: 128 KiB). */
#define CLI_DECOMP_MAX (16u << 20)

/* Values of the COMPRESSION attribute. */
enum {
	CLI_COMP_NONE = 0,
	CLI_COMP_ZLIB = 1,
	CLI_COMP_ZSTD = 2,
	CLI_COMP_LZO_4K = 3,
	CLI_COMP_LZO_64K = 7,
};

/* Decompressor state and output buffer, reused from one extent to the next. */
struct cli_decomp {
	void *buf;
	size_t cap;
	void *zlib;
	void *zstd;
};

/*
 * Decompress an encoded extent into a zero-filled buffer of unencoded_len
 * bytes; returns it (owned by d, valid until the next call) or NULL with
 * *err (an errno) and *why set.
 */
const uint8_t *cli_decompress(struct cli_decomp *d, uint32_t compression,
			      const uint8_t *data, size_t len,
			      uint64_t unencoded_len, int *err, const char **why);
/* Release the state; d can be used again afterwards. */
void cli_decomp_free(struct cli_decomp *d);

#endif
