// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the stream reader, from memory, with and without repaired
 * CRCs, plus the writer round trip: every command the reader accepts must
 * re-encode to bytes that read back as the same command.
 */
#include <stdio.h>
#include "fuzz-common.h"

static void check_round_trip(const struct bstream_cmd *c)
{
	static uint8_t out[1 << 20];
	struct bstream_writer *w = bstream_writer_new();
	struct bstream_reader *r2 = bstream_reader_new(NULL);
	const struct bstream_cmd *c2;
	size_t hdr;

	if (!w || !r2 || c->len > sizeof(out) - 100)
		goto out;
	bstream_writer_set_buf(w, out, sizeof(out));
	bstream_write_header(w, c->version);
	hdr = bstream_writer_offset(w);
	if (bstream_write_cmd(w, c))
		abort();
	bstream_reader_set_mem(r2, out, bstream_writer_offset(w));
	if (bstream_next(r2, &c2) != 1 || c2->cmd != c->cmd || c2->present != c->present)
		abort();
	for (int a = 1; a <= BTRFS_SEND_A_MAX; a++)
		if (c->attr[a].len != c2->attr[a].len ||
		    (c->attr[a].len && memcmp(c->attr[a].data, c2->attr[a].data, c->attr[a].len)))
			abort();
	(void)hdr;
out:
	bstream_writer_free(w);
	bstream_reader_free(r2);
}

static void run(const uint8_t *data, size_t size, unsigned int flags)
{
	struct bstream_reader_opts o = { .flags = flags, .max_cmd_size = 1 << 20 };
	struct bstream_reader *r = bstream_reader_new(&o);
	const struct bstream_cmd *c;
	int ret, errors = 0;

	if (!r)
		return;
	bstream_reader_set_mem(r, data, size);
	for (;;) {
		ret = bstream_next(r, &c);
		if (ret == 0)
			break;
		if (ret < 0) {
			if (!bstream_reader_errmsg(r)[0])
				abort();	/* every error has a message */
			if (++errors > 1000 || bstream_next(r, &c) == ret)
				break;
			continue;
		}
		if (c->path && strlen(c->path) > c->attr[BTRFS_SEND_A_PATH].len)
			abort();
		check_round_trip(c);
	}
	bstream_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed;

	run(data, size, 0);
	run(data, size, BSTREAM_READ_STRICT_VERSION | BSTREAM_READ_STOP_AT_END);
	fixed = fuzz_fix_crcs(data, size);
	if (fixed) {
		run(fixed, size, 0);
		free(fixed);
	}
	return 0;
}
