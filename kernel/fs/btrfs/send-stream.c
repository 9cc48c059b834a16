// SPDX-License-Identifier: GPL-2.0
/*
 * Send stream encoding: every command is assembled in one buffer (header,
 * TLV attributes, optional file data), checksummed and written out whole,
 * so a command is never split across two writes of ours.
 */

#include <linux/fs.h>
#include <linux/mm.h>
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
	return 0;
}

void send_stream_release(struct send_stream *s)
{
	kvfree(s->buf);
	s->buf = NULL;
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

int send_stream_write_header(struct send_stream *s)
{
	struct btrfs_send_stream_header hdr;

	memcpy(hdr.magic, BTRFS_SEND_STREAM_MAGIC, sizeof(hdr.magic));
	hdr.version = cpu_to_le32(s->proto);
	return send_stream_write(s, &hdr, sizeof(hdr));
}

/* Start building command @cmd; the previous one must have been written. */
int send_cmd_begin(struct send_stream *s, enum btrfs_send_cmd cmd)
{
	struct btrfs_send_cmd_header *hdr = (void *)s->buf;

	if (WARN_ON_ONCE(s->len))
		return -EINVAL;
	/* Commands of a newer protocol would be misparsed by the receiver. */
	if (WARN_ON_ONCE(cmd > btrfs_send_cmd_max(s->proto)))
		return -EINVAL;

	memset(hdr, 0, CMD_HDR_SIZE);
	hdr->cmd = cpu_to_le16(cmd);
	s->len = CMD_HDR_SIZE;
	s->data_added = false;
	return 0;
}

/* Seal the command with its length and CRC and write it out. */
int send_cmd_end(struct send_stream *s)
{
	struct btrfs_send_cmd_header *hdr = (void *)s->buf;
	u32 len = s->len;
	int ret;

	if (WARN_ON_ONCE(len < CMD_HDR_SIZE))
		return -EINVAL;
	hdr->len = cpu_to_le32(len - CMD_HDR_SIZE);
	hdr->crc = 0;
	hdr->crc = cpu_to_le32(crc32c(0, s->buf, len));
	s->len = 0;
	ret = send_stream_write(s, s->buf, len);
	if (ret)
		return ret;
	return send_check_interrupt();
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
 * Add the DATA attribute for @len bytes and return where the caller copies
 * them.  From version 2 on DATA has no length and ends the command, which
 * lets one command carry a whole compressed extent.
 */
void *send_put_data_begin(struct send_stream *s, u32 len)
{
	void *dst;

	if (WARN_ON_ONCE(!s->len || s->data_added))
		return ERR_PTR(-EINVAL);
	if (len > send_data_room(s))
		return ERR_PTR(-EOVERFLOW);

	if (s->proto >= 2) {
		__le16 type = cpu_to_le16(BTRFS_SEND_A_DATA);

		memcpy(s->buf + s->len, &type, sizeof(type));
		s->len += sizeof(type);
		dst = s->buf + s->len;
		s->len += len;
	} else {
		dst = send_reserve_attr(s, BTRFS_SEND_A_DATA, len);
		if (IS_ERR(dst))
			return dst;
	}
	s->data_added = true;
	return dst;
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
