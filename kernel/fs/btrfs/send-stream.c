// SPDX-License-Identifier: GPL-2.0
/*
 * Send stream encoding: every command is assembled in one buffer (header,
 * TLV attributes, optional file data), checksummed and written out whole,
 * so a command is never split across two writes of ours.  Small commands
 * are gathered and written together, up to SEND_BATCH_SIZE at a time.
 * The exception is file data bound for a pipe: it stays in its page cache
 * pages, is checksummed there and follows the rest of its command into the
 * pipe by reference (send-splice.c), which saves copying it twice.
 */

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/crc32c.h>
#include <linux/sched/signal.h>
#include "ctree.h"
#include "send-stream.h"

#define CMD_HDR_SIZE	sizeof(struct btrfs_send_cmd_header)
#define TLV_HDR_SIZE	sizeof(struct btrfs_send_tlv_header)

int send_stream_init(struct send_stream *s, struct file *out, u32 proto)
{
	memset(s, 0, sizeof(*s));
	s->out = out;
	s->proto = proto;
	s->buf_size = proto >= 2 ? SEND_V2_BUF_SIZE : SEND_V1_BUF_SIZE;
	s->buf = kvmalloc(s->buf_size, GFP_KERNEL);
	if (!s->buf)
		return -ENOMEM;
	s->pipe = send_splice_pipe(out);
	/* Without it every command is written at once, which works too. */
	s->batch = kvmalloc(SEND_BATCH_SIZE, GFP_KERNEL | __GFP_NOWARN);
	return 0;
}

void send_stream_release(struct send_stream *s)
{
	kvfree(s->buf);
	s->buf = NULL;
	kvfree(s->batch);
	s->batch = NULL;
}

/*
 * Write all of @len bytes.  The output is usually a pipe: a reader that
 * went away gives EPIPE, a fatal signal interrupts a blocked write.
 */
static int send_stream_write(struct send_stream *s, const void *data,
			     size_t len)
{
	while (len) {
		ssize_t ret;

		ret = kernel_write(s->out, data, len, &s->pos);
		if (ret == -ERESTARTSYS)
			return -EINTR;
		if (ret < 0)
			return ret;
		if (ret == 0)
			return -EIO;
		data += ret;
		len -= ret;
		s->bytes_written += ret;
	}
	return 0;
}

/* Write the gathered commands, if any. */
int send_stream_flush(struct send_stream *s)
{
	u32 len = s->batch_len;

	if (!len)
		return 0;
	s->batch_len = 0;
	return send_stream_write(s, s->batch, len);
}

/*
 * Queue @len bytes of whole commands: small ones are gathered, anything
 * else first writes what was gathered, so the stream keeps its order.
 */
static int send_stream_emit(struct send_stream *s, const void *data, u32 len)
{
	int ret;

	if (s->batch && len <= SEND_BATCH_CMD_MAX) {
		if (s->batch_len + len > SEND_BATCH_SIZE) {
			ret = send_stream_flush(s);
			if (ret)
				return ret;
		}
		memcpy(s->batch + s->batch_len, data, len);
		s->batch_len += len;
		return 0;
	}
	ret = send_stream_flush(s);
	if (ret)
		return ret;
	return send_stream_write(s, data, len);
}

static int write_header_version(struct send_stream *s, u32 version)
{
	struct btrfs_send_stream_header hdr;

	memcpy(hdr.magic, BTRFS_SEND_STREAM_MAGIC, sizeof(hdr.magic));
	hdr.version = cpu_to_le32(version);
	if (send_measuring(s)) {
		s->resume->pos = sizeof(hdr);
		s->resume->meta = crc32c(0, &hdr, sizeof(hdr));
		return 0;
	}
	return send_stream_emit(s, &hdr, sizeof(hdr));
}

int send_stream_write_header(struct send_stream *s)
{
	return write_header_version(s, s->proto);
}

static void cmd_begin(struct send_stream *s, u16 cmd)
{
	struct btrfs_send_cmd_header *hdr = (void *)s->buf;

	memset(hdr, 0, CMD_HDR_SIZE);
	hdr->cmd = cpu_to_le16(cmd);
	s->len = CMD_HDR_SIZE;
	s->data_added = false;
	s->data_off = 0;
	s->ref_len = 0;
}

/* Start building command @cmd; the previous one must have been written. */
int send_cmd_begin(struct send_stream *s, enum btrfs_send_cmd cmd)
{
	if (WARN_ON_ONCE(s->len))
		return -EINVAL;
	/* Commands of a newer protocol would be misparsed by the receiver. */
	if (WARN_ON_ONCE(cmd > btrfs_send_cmd_max(s->proto)))
		return -EINVAL;
	cmd_begin(s, cmd);
	return 0;
}

/* Seal a built command with its length and CRC and write it out. */
static int send_cmd_write(struct send_stream *s)
{
	struct btrfs_send_cmd_header *hdr = (void *)s->buf;
	u32 len = s->len;
	int ret;

	hdr->len = cpu_to_le32(len - CMD_HDR_SIZE);
	hdr->crc = 0;
	hdr->crc = cpu_to_le32(crc32c(0, s->buf, len));
	s->len = 0;
	ret = send_stream_emit(s, s->buf, len);
	if (ret)
		return ret;
	return send_check_interrupt();
}

/*
 * The continuation: a stream header marked as such, then the private
 * RESUME command naming the stream and the point, as userspace writes it
 * when it drops the prefix of a whole stream itself.
 */
static int send_resume_begin(struct send_stream *s, struct send_resume *r)
{
	const struct btrfs_send_resume_point *pt = &r->point;
	int ret;

	ret = write_header_version(s, s->proto | BTRFS_SEND_VERSION_CONTINUATION);
	if (ret)
		return ret;
	cmd_begin(s, BTRFS_SEND_C_RESUME);
	ret = send_put_attr(s, BTRFS_SEND_A_UUID, r->uuid, BTRFS_UUID_SIZE);
	if (!ret)
		ret = send_put_u64(s, BTRFS_SEND_A_CTRANSID, r->ctransid);
	if (!ret && r->parent_uuid)
		ret = send_put_attr(s, BTRFS_SEND_A_CLONE_UUID, r->parent_uuid,
				    BTRFS_UUID_SIZE);
	if (!ret && r->parent_uuid)
		ret = send_put_u64(s, BTRFS_SEND_A_CLONE_CTRANSID,
				   r->parent_ctransid);
	if (!ret)
		ret = send_put_u64(s, BTRFS_SEND_A_SIZE, pt->index);
	if (!ret)
		ret = send_put_u64(s, BTRFS_SEND_A_FILE_OFFSET, pt->offset);
	if (!ret)
		ret = send_put_u64(s, BTRFS_SEND_A_INO, pt->prefix);
	if (!ret)
		ret = send_put_u64(s, BTRFS_SEND_A_MODE, pt->flags);
	if (ret) {
		s->len = 0;
		return ret;
	}
	return send_cmd_write(s);
}

/*
 * Account for a command of the resume prefix instead of writing it: its
 * length, and its bytes without the DATA ones (never read) in M.  After
 * command K the prefix must be the one the receiver holds, else ESTALE.
 */
static int send_cmd_measure(struct send_stream *s)
{
	struct btrfs_send_cmd_header *hdr = (void *)s->buf;
	struct send_resume *r = s->resume;
	u32 len = s->len;

	hdr->len = cpu_to_le32(len - CMD_HDR_SIZE);
	hdr->crc = 0;
	r->meta = crc32c(r->meta, s->buf, s->data_added ? s->data_off : len);
	r->pos += len;
	r->done++;
	s->len = 0;
	if (r->done < r->point.index)
		return send_check_interrupt();
	if (r->pos != r->point.offset || r->meta != r->point.meta)
		return -ESTALE;
	s->resume = NULL;
	return send_resume_begin(s, r);
}

/*
 * At the end of a resumed send: a point past the last command of the
 * stream names no command of it.
 */
int send_resume_check_end(const struct send_stream *s)
{
	return send_measuring(s) ? -EINVAL : 0;
}

/* Seal the command with its length and CRC and write it out. */
int send_cmd_end(struct send_stream *s)
{
	if (WARN_ON_ONCE(s->len < CMD_HDR_SIZE || s->ref_len))
		return -EINVAL;
	if (send_measuring(s))
		return send_cmd_measure(s);
	return send_cmd_write(s);
}

static void *send_reserve_attr(struct send_stream *s,
			       enum btrfs_send_attr type, u32 len)
{
	struct btrfs_send_tlv_header *tlv;

	if (WARN_ON_ONCE(!s->len || s->data_added ||
			 type > btrfs_send_attr_max(s->proto)))
		return ERR_PTR(-EINVAL);
	if (len > U16_MAX)
		return ERR_PTR(-EOVERFLOW);
	if (s->buf_size - s->len < TLV_HDR_SIZE + len)
		return ERR_PTR(-EOVERFLOW);

	tlv = (void *)(s->buf + s->len);
	tlv->tlv_type = cpu_to_le16(type);
	tlv->tlv_len = cpu_to_le16(len);
	s->len += TLV_HDR_SIZE + len;
	return tlv + 1;
}

int send_put_attr(struct send_stream *s, enum btrfs_send_attr type,
		  const void *data, u32 len)
{
	void *dst = send_reserve_attr(s, type, len);

	if (IS_ERR(dst))
		return PTR_ERR(dst);
	memcpy(dst, data, len);
	return 0;
}

int send_put_u64(struct send_stream *s, enum btrfs_send_attr type, u64 val)
{
	__le64 v = cpu_to_le64(val);

	return send_put_attr(s, type, &v, sizeof(v));
}

int send_put_u32(struct send_stream *s, enum btrfs_send_attr type, u32 val)
{
	__le32 v = cpu_to_le32(val);

	return send_put_attr(s, type, &v, sizeof(v));
}

int send_put_u8(struct send_stream *s, enum btrfs_send_attr type, u8 val)
{
	return send_put_attr(s, type, &val, sizeof(val));
}

/* Put bytes that live in a tree block (names, xattr values, timespecs). */
int send_put_eb(struct send_stream *s, enum btrfs_send_attr type,
		const struct extent_buffer *eb, unsigned long off, u32 len)
{
	void *dst = send_reserve_attr(s, type, len);

	if (IS_ERR(dst))
		return PTR_ERR(dst);
	read_extent_buffer(eb, dst, off, len);
	return 0;
}

/* How many bytes of file data still fit into the current command. */
u32 send_data_room(const struct send_stream *s)
{
	u32 hdr = s->proto >= 2 ? sizeof(__le16) : TLV_HDR_SIZE;
	u32 room;

	if (s->buf_size - s->len < hdr)
		return 0;
	room = s->buf_size - s->len - hdr;
	/* In version 1 DATA is an ordinary TLV with a 16 bit length. */
	if (s->proto < 2)
		room = min_t(u32, room, U16_MAX);
	return room;
}

/*
 * The header of the DATA attribute for @len bytes.  From version 2 on DATA
 * has no length and ends the command, which lets one command carry a whole
 * compressed extent.
 */
static int put_data_header(struct send_stream *s, u32 len)
{
	if (WARN_ON_ONCE(!s->len || s->data_added))
		return -EINVAL;
	if (len > send_data_room(s))
		return -EOVERFLOW;

	if (s->proto >= 2) {
		__le16 type = cpu_to_le16(BTRFS_SEND_A_DATA);

		memcpy(s->buf + s->len, &type, sizeof(type));
		s->len += sizeof(type);
	} else {
		struct btrfs_send_tlv_header *tlv = (void *)(s->buf + s->len);

		tlv->tlv_type = cpu_to_le16(BTRFS_SEND_A_DATA);
		tlv->tlv_len = cpu_to_le16(len);
		s->len += TLV_HDR_SIZE;
	}
	s->data_added = true;
	s->data_off = s->len;
	return 0;
}

/* Add the DATA attribute for @len bytes and return where to copy them. */
void *send_put_data_begin(struct send_stream *s, u32 len)
{
	void *dst;
	int ret;

	ret = put_data_header(s, len);
	if (ret)
		return ERR_PTR(ret);
	dst = s->buf + s->len;
	s->len += len;
	return dst;
}

/*
 * Add the DATA attribute for @len bytes that stay in pages; only
 * send_cmd_end_pages() can end the command.  The limits are those of
 * send_put_data_begin(), so both make the same commands.
 */
int send_put_data_ref(struct send_stream *s, u32 len)
{
	int ret;

	if (WARN_ON_ONCE(!s->pipe))
		return -EINVAL;
	ret = put_data_header(s, len);
	if (!ret)
		s->ref_len = len;
	return ret;
}

/* Continue @crc over @len bytes starting @off bytes into @pages[0]. */
static u32 crc_pages(u32 crc, struct page **pages, u32 off, u32 len)
{
	for (; len; pages++) {
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		void *kaddr = kmap_local_page(*pages);

		crc = crc32c(crc, kaddr + off, n);
		kunmap_local(kaddr);
		len -= n;
		off = 0;
	}
	return crc;
}

/*
 * Seal a command whose DATA is in @pages from @off bytes into the first
 * one, write its head and put the data into the pipe after it.  The
 * references of the @nr pages are consumed, also on error.
 */
int send_cmd_end_pages(struct send_stream *s, struct page **pages, u32 nr,
		       u32 off)
{
	struct btrfs_send_cmd_header *hdr = (void *)s->buf;
	u32 len = s->len;
	u32 ref_len = s->ref_len;
	u32 crc;
	int ret;

	if (WARN_ON_ONCE(len < CMD_HDR_SIZE || !ref_len || !s->pipe ||
			 off + ref_len > (u64)nr * PAGE_SIZE)) {
		ret = -EINVAL;
		goto put_pages;
	}
	hdr->len = cpu_to_le32(len + ref_len - CMD_HDR_SIZE);
	hdr->crc = 0;
	crc = crc32c(0, s->buf, len);
	hdr->crc = cpu_to_le32(crc_pages(crc, pages, off, ref_len));
	s->len = 0;
	s->ref_len = 0;
	/* The head, after whatever was gathered, then the data. */
	ret = send_stream_emit(s, s->buf, len);
	if (!ret)
		ret = send_stream_flush(s);
	if (ret)
		goto put_pages;
	ret = send_splice_pages(s, pages, nr, off, ref_len);
	if (ret)
		return ret;
	return send_check_interrupt();

put_pages:
	while (nr--)
		put_page(pages[nr]);
	return ret;
}

/*
 * Long loops call this between units of work: a fatal signal (the sender
 * was killed, e.g. by ^C) ends the send promptly.
 */
int send_check_interrupt(void)
{
	if (fatal_signal_pending(current))
		return -EINTR;
	cond_resched();
	return 0;
}
