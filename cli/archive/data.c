// SPDX-License-Identifier: GPL-2.0
/*
 * A file's content, read back from the stream files by the references of
 * its extents.  The replay skipped all file data without checking its CRC
 * (streams.c), so each command whose data is given out is read again here
 * through the library's reader, positioned on it with
 * bstream_reader_seek(), and checked whole (framing, CRC, attributes)
 * before any of its bytes leave: what cat and extract write is always
 * CRC-checked.  Raw WRITE bytes are handed out in place; compressed
 * extents are decoded by cli/decompress.c (receive's decoder).  The last
 * command read and the last extent decoded are kept for the next piece of
 * them.  Only the commands of the file asked for are read.
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

static const uint8_t zeros[1 << 16];

/* A failure about the command of extent e: "'stream': command N (name) at offset O: ...". */
__attribute__((format(printf, 3, 4)))
static int fail(struct ar_reader *r, const struct ar_extent *e, const char *fmt, ...)
{
	struct ar *a = r->a;
	char q[320];
	va_list ap;
	int n;

	n = snprintf(a->err, sizeof(a->err), "'%s': command %" PRIu64 " (%s) at offset %" PRIu64 ": ",
		     ar_quote(q, sizeof(q), a->streams[e->stream].name), e->index,
		     e->kind == AR_EXT_RAW ? "write" : "encoded_write", e->pos);
	va_start(ap, fmt);
	vsnprintf(a->err + n, sizeof(a->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* The reader of stream file i, made and set on it when first needed. */
static struct bstream_reader *reader_of(struct ar_reader *r, const struct ar_extent *e)
{
	struct ar *a = r->a;
	struct ar_stream *s = &a->streams[e->stream];
	struct bstream_reader *rd;

	if (!r->rd) {
		r->rd = calloc(a->nstreams, sizeof(*r->rd));
		if (!r->rd) {
			fail(r, e, "out of memory");
			return NULL;
		}
	}
	if (r->rd[e->stream])
		return r->rd[e->stream];
	rd = bstream_reader_new(NULL);
	if (!rd) {
		fail(r, e, "cannot create the stream reader");
		return NULL;
	}
	/* Marks count from where the replay started reading. */
	if (lseek(s->fd, s->start, SEEK_SET) < 0 || bstream_reader_set_fd(rd, s->fd)) {
		fail(r, e, "cannot read the stream file again: %s", strerror(errno));
		bstream_reader_free(rd);
		return NULL;
	}
	r->rd[e->stream] = rd;
	return rd;
}

/* The command holding e's data, read again and checked; NULL after fail(). */
static const struct bstream_cmd *command_of(struct ar_reader *r, const struct ar_extent *e)
{
	struct bstream_mark m = {
		.offset = e->pos, .index = e->index,
		.version = e->version, .substream = e->substream,
	};
	unsigned int want = e->kind == AR_EXT_RAW ? BTRFS_SEND_C_WRITE : BTRFS_SEND_C_ENCODED_WRITE;
	const struct bstream_cmd *c;
	struct bstream_reader *rd;
	char q[320];
	int ret;

	if (r->cmd && r->cmd_stream == e->stream && r->cmd->offset == e->pos)
		return r->cmd;
	r->cmd = NULL;
	rd = reader_of(r, e);
	if (!rd)
		return NULL;
	ret = bstream_reader_seek(rd, &m);
	if (!ret)
		ret = bstream_next(rd, &c);
	if (ret < 0) {
		snprintf(r->a->err, sizeof(r->a->err), "'%s': %s",
			 ar_quote(q, sizeof(q), r->a->streams[e->stream].name),
			 bstream_reader_errmsg(rd));
		return NULL;
	}
	if (!ret || c->cmd != want || !c->data || c->data_len != e->enc_len) {
		fail(r, e, "not the command read before (did the stream file change since?)");
		return NULL;
	}
	r->cmd = c;
	r->cmd_stream = e->stream;
	return c;
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
	const struct bstream_cmd *c = command_of(r, e);

	if (!c)
		return -1;
	/* Extents only ever shrink within their command's data. */
	if (e->dec_off > c->data_len || len > c->data_len - e->dec_off)
		return fail(r, e, "extent outside the command's data");
	return out(ctx, c->data + e->dec_off, len, e->off);
}

static int emit_enc(struct ar_reader *r, const struct ar_extent *e, uint64_t len,
		    ar_out_fn out, void *ctx)
{
	if (!r->dec || r->dec_stream != e->stream || r->dec_pos != e->pos) {
		const struct bstream_cmd *c = command_of(r, e);
		const char *why = NULL;
		int err = 0;

		r->dec = NULL;
		if (!c)
			return -1;
		r->dec = cli_decompress(&r->dz, e->compression, c->data, c->data_len,
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
	for (size_t i = 0; r->rd && i < r->a->nstreams; i++)
		bstream_reader_free(r->rd[i]);
	free(r->rd);
	r->rd = NULL;
	r->cmd = NULL;
	r->dec = NULL;
}
