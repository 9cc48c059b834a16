// SPDX-License-Identifier: GPL-2.0
/*
 * send --resume: the consumer that turns a whole stream into its
 * continuation after a resume token's point (docs/resume.md).  The
 * stream is read and checked command by command; nothing is written
 * until the prefix, commands 1..K, has matched the token in stream,
 * length and checksum.  Then the continuation goes out: a stream header
 * of the same version marked BSTREAM_VERSION_CONTINUATION (which other
 * receivers refuse outright), the private RESUME_CMD that names the
 * stream and the point, and every command after K as it came.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <btrfs-stream/stream.h>
#include "send.h"
#include "../uuid.h"

#define CMD_END(c) ((c)->offset + 10 + (c)->len)

static const char *uuid_str(const uint8_t *u, char *s)
{
	cli_uuid_str(u, s);
	return s;
}

/* The first command must start the subvolume the token names. */
static int check_start(const struct resume_token *t, const struct bstream_cmd *c,
		       struct send_err *e)
{
	char a[37], b[37];

	if (c->cmd != BTRFS_SEND_C_SUBVOL && c->cmd != BTRFS_SEND_C_SNAPSHOT)
		return send_errf(e, "the stream does not start with a subvol or snapshot command");
	if (memcmp(c->uuid, t->uuid, 16) || c->ctransid != t->ctransid)
		return send_errf(e, "the token is for subvolume %s transid %" PRIu64
				 ", this stream sends subvolume %s transid %" PRIu64 ": nothing sent",
				 uuid_str(t->uuid, a), t->ctransid, uuid_str(c->uuid, b), c->ctransid);
	if (c->cmd == BTRFS_SEND_C_SUBVOL && t->has_parent)
		return send_errf(e, "the token is for an incremental stream from parent %s transid %" PRIu64
				 ", this stream is a full one (give -p PARENT): nothing sent",
				 uuid_str(t->parent_uuid, a), t->parent_ctransid);
	if (c->cmd == BTRFS_SEND_C_SNAPSHOT && !t->has_parent)
		return send_errf(e, "the token is for a full stream, this stream is incremental from %s: nothing sent",
				 uuid_str(c->clone_uuid, a));
	if (c->cmd == BTRFS_SEND_C_SNAPSHOT &&
	    (memcmp(c->clone_uuid, t->parent_uuid, 16) || c->clone_ctransid != t->parent_ctransid))
		return send_errf(e, "the parent differs: the token is for parent %s transid %" PRIu64
				 ", this stream is from parent %s transid %" PRIu64 ": nothing sent",
				 uuid_str(t->parent_uuid, a), t->parent_ctransid,
				 uuid_str(c->clone_uuid, b), c->clone_ctransid);
	return 0;
}

/* At command K: the prefix must be the one received. */
static int check_point(const struct resume_token *t, const struct bstream_cmd *c,
		       uint32_t prefix, uint32_t meta, struct send_err *e)
{
	if (CMD_END(c) == t->offset && prefix == t->prefix && t->has_meta && meta != t->meta)
		return send_errf(e, "the token's metadata checksum %#010" PRIx32 " differs from the stream's %#010" PRIx32
				 " although the prefix checksum matches (a damaged token?): nothing sent",
				 t->meta, meta);
	if (CMD_END(c) == t->offset && prefix == t->prefix)
		return 0;
	return send_errf(e, "the stream differs from the one received: its commands 1..%" PRIu64
			 " end at offset %" PRIu64 " with prefix checksum %#010" PRIx32
			 ", the token says offset %" PRIu64 " and checksum %#010" PRIx32
			 " (the subvolume or the send options changed): nothing sent",
			 t->index, CMD_END(c), prefix, t->offset, t->prefix);
}

static int write_resume_cmd(struct bstream_writer *w, const struct resume_token *t)
{
	int ret = bstream_write_header(w, t->version | BSTREAM_VERSION_CONTINUATION);

	if (!ret)
		ret = bstream_cmd_begin(w, RESUME_CMD);
	if (!ret)
		ret = bstream_put_uuid(w, BTRFS_SEND_A_UUID, t->uuid);
	if (!ret)
		ret = bstream_put_u64(w, BTRFS_SEND_A_CTRANSID, t->ctransid);
	if (!ret && t->has_parent)
		ret = bstream_put_uuid(w, BTRFS_SEND_A_CLONE_UUID, t->parent_uuid);
	if (!ret && t->has_parent)
		ret = bstream_put_u64(w, BTRFS_SEND_A_CLONE_CTRANSID, t->parent_ctransid);
	if (!ret)
		ret = bstream_put_u64(w, BTRFS_SEND_A_SIZE, t->index);
	if (!ret)
		ret = bstream_put_u64(w, BTRFS_SEND_A_FILE_OFFSET, t->offset);
	if (!ret)
		ret = bstream_put_u64(w, BTRFS_SEND_A_INO, t->prefix);
	if (!ret)
		ret = bstream_put_u64(w, BTRFS_SEND_A_MODE, t->flags);
	if (!ret)
		ret = bstream_cmd_end(w, NULL);
	return ret;
}

static int cut(struct send_resume *sr, struct bstream_reader *rd, struct bstream_writer *w,
	       struct send_err *e)
{
	const struct resume_token *t = sr->tok;
	const struct bstream_cmd *c;
	bool at_point = false;
	uint32_t prefix = 0, meta = 0;
	int ret;

	while ((ret = bstream_next(rd, &c)) > 0) {
		if (c->substream)
			return send_errf(e, "command %" PRIu64 ": a second stream header: resuming takes one subvolume",
					 c->index);
		if (c->index == 1) {
			if (bstream_reader_version(rd) != t->version)
				return send_errf(e, "the stream has protocol version %" PRIu32
						 ", the token says %" PRIu32 ": nothing sent",
						 bstream_reader_version(rd), t->version);
			if (check_start(t, c, e))
				return -1;
			prefix = resume_prefix_start(t->version);
			meta = resume_meta_start(t->version);
		}
		if (c->index <= t->index) {
			prefix = resume_prefix_add(prefix, c);
			meta = resume_meta_add(meta, c);
			if (c->index == t->index &&
			    (check_point(t, c, prefix, meta, e) || write_resume_cmd(w, t)))
				goto out;
			at_point = c->index == t->index;
			continue;
		}
		sr->commands++;
		if (bstream_write_cmd(w, c))
			goto out;
	}
	if (ret < 0)
		return send_errf(e, "reading the stream: %s", bstream_reader_errmsg(rd));
	if (!at_point)
		return send_errf(e, "the stream ends before command %" PRIu64 ", the resume point: nothing sent",
				 t->index);
	return 0;
out:
	if (e->msg[0])
		return -1;
	return send_errf(e, "writing the continuation: %s", bstream_writer_errmsg(w));
}

int send_resume_consumer(void *ctx, int rfd, struct send_err *e)
{
	struct send_resume *sr = ctx;
	struct bstream_reader *rd = bstream_reader_new(NULL);
	struct bstream_writer *w = bstream_writer_new();
	int ret = -1;

	e->msg[0] = 0;
	if (!rd || !w || bstream_reader_set_fd(rd, rfd) || bstream_writer_set_fd(w, sr->out_fd))
		send_errf(e, "out of memory");
	else
		ret = cut(sr, rd, w, e);
	bstream_reader_free(rd);
	bstream_writer_free(w);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Resuming in the kernel                                                  */

bool send_resume_kernel_supported(void)
{
	return access("/sys/fs/btrfs/features/send_resume", F_OK) == 0;
}

void send_resume_point_of(const struct resume_token *t, struct btrfs_send_resume_point *pt)
{
	memset(pt, 0, sizeof(*pt));
	pt->index = t->index;
	pt->offset = t->offset;
	pt->meta = t->meta;
	pt->prefix = t->prefix;
	pt->flags = (uint32_t)t->flags;
}

/* The UUID a receiver knows a subvolume by: its received UUID if set. */
static const uint8_t *stream_uuid(const struct subvol *sv)
{
	static const uint8_t zero[16];

	return memcmp(sv->received_uuid, zero, 16) ? sv->received_uuid : sv->uuid;
}

int send_resume_check_subvols(const struct resume_token *t, const struct subvol *sv,
			      const struct subvol *parent, struct send_err *e)
{
	struct bstream_cmd c = {
		.cmd = parent ? BTRFS_SEND_C_SNAPSHOT : BTRFS_SEND_C_SUBVOL,
		.uuid = stream_uuid(sv),
		.ctransid = sv->ctransid,
		.clone_uuid = parent ? stream_uuid(parent) : NULL,
		.clone_ctransid = parent ? parent->ctransid : 0,
	};

	return check_start(t, &c, e);
}
