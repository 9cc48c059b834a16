// SPDX-License-Identifier: GPL-2.0
/*
 * A file's content, read back from the stream files by the references of
 * its extents: raw WRITE bytes with pread, compressed extents read whole
 * and decoded by cli/decompress.c (receive's decoder), keeping the last
 * decoded extent for its next piece.  Only the bytes of the file asked for
 * are read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "archive.h"

#define CHUNK (1u << 20)

static const uint8_t zeros[1 << 16];

__attribute__((format(printf, 3, 4)))
static int fail(struct ar_reader *r, const struct ar_extent *e, const char *fmt, ...)
{
	struct ar *a = r->a;
	char q[320];
	va_list ap;
	int n;

	n = snprintf(a->err, sizeof(a->err), "'%s': %s data at offset %" PRIu64 ": ",
		     ar_quote(q, sizeof(q), a->streams[e->stream].name),
		     e->kind == AR_EXT_RAW ? "write" : "encoded_write", e->pos);
	va_start(ap, fmt);
	vsnprintf(a->err + n, sizeof(a->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Read exactly len bytes at pos of the extent's stream. */
static int read_at(struct ar_reader *r, const struct ar_extent *e, void *buf,
		   size_t len, uint64_t pos)
{
	int fd = r->a->streams[e->stream].fd;

	while (len) {
		ssize_t n = pread(fd, buf, len, (off_t)pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(r, e, "cannot read: %s", strerror(errno));
		if (!n)
			return fail(r, e, "the stream file ended (did it change since it was read?)");
		buf = (uint8_t *)buf + n;
		pos += n;
		len -= n;
	}
	return 0;
}

static int emit_zeros(ar_out_fn out, void *ctx, uint64_t off, uint64_t len)
{
	while (len) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		if (out(ctx, zeros, n, off))
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

static int emit_raw(struct ar_reader *r, const struct ar_extent *e, uint64_t len,
		    ar_out_fn out, void *ctx)
{
	for (uint64_t done = 0; done < len;) {
		size_t n = len - done < CHUNK ? len - done : CHUNK;

		if (r->in_cap < CHUNK) {
			uint8_t *b = realloc(r->in, CHUNK);

			if (!b)
				return fail(r, e, "out of memory");
			r->in = b;
			r->in_cap = CHUNK;
		}
		if (read_at(r, e, r->in, n, e->pos + done) || out(ctx, r->in, n, e->off + done))
			return -1;
		done += n;
	}
	return 0;
}

static int emit_enc(struct ar_reader *r, const struct ar_extent *e, uint64_t len,
		    ar_out_fn out, void *ctx)
{
	if (!r->dec || r->dec_stream != e->stream || r->dec_pos != e->pos) {
		const char *why = NULL;
		int err = 0;

		r->dec = NULL;
		if (r->in_cap < e->enc_len) {
			uint8_t *b = realloc(r->in, e->enc_len);

			if (!b)
				return fail(r, e, "out of memory");
			r->in = b;
			r->in_cap = e->enc_len;
		}
		if (read_at(r, e, r->in, e->enc_len, e->pos))
			return -1;
		r->dec = cli_decompress(&r->dz, e->compression, r->in, e->enc_len,
					e->dec_len, &err, &why);
		if (!r->dec)
			return fail(r, e, "cannot decompress (compression %u): %s",
				    e->compression, why);
		r->dec_stream = e->stream;
		r->dec_pos = e->pos;
	}
	return out(ctx, r->dec + e->dec_off, len, e->off);
}

int ar_read_file(struct ar_reader *r, const struct ar_inode *ino, bool holes,
		 ar_out_fn out, void *ctx)
{
	const struct ar_extents *x = &ino->u.ext;
	uint64_t off = 0, size = ino->size;

	for (uint32_t i = 0; i < x->n && x->v[i].off < size; i++) {
		const struct ar_extent *e = &x->v[i];
		uint64_t len = e->len < size - e->off ? e->len : size - e->off;

		if (holes && e->off > off && emit_zeros(out, ctx, off, e->off - off))
			return -1;
		if (e->kind == AR_EXT_RAW ? emit_raw(r, e, len, out, ctx) :
					    emit_enc(r, e, len, out, ctx))
			return -1;
		off = e->off + len;
	}
	if (holes && off < size)
		return emit_zeros(out, ctx, off, size - off);
	return 0;
}

void ar_reader_free(struct ar_reader *r)
{
	cli_decomp_free(&r->dz);
	free(r->in);
	r->in = NULL;
	r->in_cap = 0;
	r->dec = NULL;
}
