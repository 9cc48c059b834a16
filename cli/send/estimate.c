// SPDX-License-Identifier: GPL-2.0
/*
 * How big will the stream be?  The kernel knows only when it is done, so
 * we ask it twice: first with BTRFS_SEND_FLAG_NO_FILE_DATA, where it runs
 * the same tree comparison and the same extent walk but, instead of
 * reading file data, sends one UPDATE_EXTENT (path, offset, length) per
 * range it would have sent as WRITE commands.  Linux cuts such a range into
 * WRITEs of at most 48 KiB (v1) or 128 KiB (v2+, 4 KiB pages) of payload,
 * each with the path and offset again; hole ranges of v1 incremental sends
 * are written the same way.  So the data stream is the NO_FILE_DATA stream
 * with every UPDATE_EXTENT replaced by those WRITEs, which is exact for
 * plain data.  With --compressed-data compressed extents travel smaller
 * (ENCODED_WRITE of the on-disk bytes), so the estimate is an upper bound.
 *
 * The pass costs a second tree comparison without any data reads; it runs
 * beside the real send (see cmd-send.c), and docs/send-cli.md has
 * measurements.
 */
#include <string.h>
#include <unistd.h>
#include <btrfs-stream/stream.h>
#include "send.h"

/* Command header, PATH and FILE_OFFSET TLVs, and the DATA TLV header. */
static uint64_t write_overhead(uint32_t version, size_t path_len)
{
	uint64_t data_hdr = version >= 2 ? 2 : 4;	/* v2+: no length (spec 2.3.2) */

	return sizeof(struct btrfs_send_cmd_header) + 4 + path_len + 4 + 8 +
	       data_hdr;
}

uint64_t estimate_write_chunk(uint32_t version)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t buf;

	if (version < 2)
		return BTRFS_SEND_V1_MAX_COMMAND - 16384;
	if (page <= 0)
		page = 4096;
	/* Linux: ALIGN(16 KiB + 128 KiB, PAGE_SIZE) minus 16 KiB of room. */
	buf = (16384 + 131072 + page - 1) / page * page;
	return buf - 16384;
}

uint64_t estimate_write_bytes(uint32_t version, uint64_t chunk,
			      size_t path_len, uint64_t len)
{
	uint64_t n;

	if (!len)
		return 0;
	if (!chunk)
		chunk = estimate_write_chunk(version);
	n = (len + chunk - 1) / chunk;
	return n * write_overhead(version, path_len) + len;
}

int estimate_consumer(void *ctx, int rfd, struct send_err *e)
{
	struct send_estimate *est = ctx;
	struct bstream_reader *r = bstream_reader_new(NULL);
	const struct bstream_cmd *c;
	uint64_t base = atomic_load(&est->bytes);
	uint64_t replaced = 0, writes = 0;
	int ret;

	if (!r)
		return send_errf(e, "cannot create the stream reader");
	ret = bstream_reader_set_fd(r, rfd);
	if (!ret) {
		while ((ret = bstream_next(r, &c)) > 0) {
			if (atomic_load(&est->cancel)) {
				bstream_reader_free(r);
				return send_errf(e, "estimate cancelled");
			}
			atomic_fetch_add(&est->commands, 1);
			if (c->cmd == BTRFS_SEND_C_UPDATE_EXTENT) {
				replaced += sizeof(struct btrfs_send_cmd_header) + c->len;
				writes += estimate_write_bytes(c->version, est->write_chunk,
							       c->attr[BTRFS_SEND_A_PATH].len,
							       c->size);
				est->data_bytes += c->size;
			}
			atomic_store(&est->bytes, base + bstream_reader_offset(r) -
				     replaced + writes);
		}
	}
	if (ret < 0) {
		send_errf(e, "cannot parse the NO_FILE_DATA stream: %s",
			  bstream_reader_errmsg(r));
		bstream_reader_free(r);
		return -1;
	}
	est->nodata_bytes += bstream_reader_offset(r);
	atomic_store(&est->bytes, base + bstream_reader_offset(r) - replaced + writes);
	bstream_reader_free(r);
	return 0;
}
