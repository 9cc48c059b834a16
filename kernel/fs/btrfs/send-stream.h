/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building send stream commands: a command buffer, TLV attributes, the
 * CRC32C and the writes to the output file; file data of a command may
 * instead stay in page cache pages that go into a pipe output by
 * reference (send-splice.c).
 */

#ifndef BTRFS_SEND_STREAM_H
#define BTRFS_SEND_STREAM_H

#include <linux/types.h>
#include <linux/sizes.h>
#include "send-wire.h"

struct file;
struct page;
struct extent_buffer;
struct pipe_inode_info;

/* Version 1: a whole command fits in 64KiB, file data goes in 48KiB. */
#define SEND_V1_BUF_SIZE		BTRFS_SEND_V1_MAX_COMMAND
/* Version 2: room for one compressed extent (128KiB) plus attributes. */
#define SEND_V2_BUF_SIZE		ALIGN(SZ_16K + SZ_128K, PAGE_SIZE)
/* Space kept for the attributes in front of file data. */
#define SEND_DATA_HEADROOM		SZ_16K
/*
 * Small commands are gathered into one write of up to this many bytes: a
 * write to a pipe wakes its reader, and a command per write costs a
 * wakeup and often two context switches per command.  Larger commands
 * (file data) are written directly, as copying them again would cost
 * more than the write saves.
 */
#define SEND_BATCH_SIZE			SZ_64K
#define SEND_BATCH_CMD_MAX		SZ_4K

/*
 * A resumed send: the commands up to the resume point are measured, not
 * written.  Their lengths and the metadata checksum M (the stream header,
 * then each command with its CRC field zero and without the bytes of its
 * DATA attribute) must match the point; then the continuation starts.
 */
struct send_resume {
	struct btrfs_send_resume_point point;
	u64 done;		/* commands measured so far */
	u64 pos;		/* their bytes, stream header included */
	u32 meta;		/* M of them */
	/* The stream and its parent as RESUME names them. */
	const u8 *uuid;
	u64 ctransid;
	const u8 *parent_uuid;
	u64 parent_ctransid;
};

struct send_stream {
	struct file *out;
	loff_t pos;
	char *buf;
	u32 buf_size;
	u32 len;		/* bytes of the command being built */
	u32 proto;
	bool data_added;	/* v2 DATA must be the last attribute */
	u32 ref_len;		/* bytes of DATA left in pages, not in buf */
	/* The output's pipe, if file data may go into it by reference. */
	struct pipe_inode_info *pipe;
	u64 bytes_written;
	u32 data_off;		/* where the DATA bytes start in buf */
	/* Whole commands not written yet; NULL: each is written at once. */
	char *batch;
	u32 batch_len;
	/* Set until the resume point is reached; NULL for a plain send. */
	struct send_resume *resume;
};

/* Whether commands are measured instead of written (resume prefix). */
static inline bool send_measuring(const struct send_stream *s)
{
	return !!s->resume;
}

/* Most pages one WRITE by reference spans (a chunk at any page offset). */
#define SEND_REF_PAGES_MAX	\
	((SEND_V2_BUF_SIZE - SEND_DATA_HEADROOM) / PAGE_SIZE + 1)

int send_stream_init(struct send_stream *s, struct file *out, u32 proto);
void send_stream_release(struct send_stream *s);
int send_stream_write_header(struct send_stream *s);
int send_stream_flush(struct send_stream *s);
int send_cmd_begin(struct send_stream *s, enum btrfs_send_cmd cmd);
int send_cmd_end(struct send_stream *s);
int send_put_attr(struct send_stream *s, enum btrfs_send_attr type,
		  const void *data, u32 len);
int send_put_u64(struct send_stream *s, enum btrfs_send_attr type, u64 val);
int send_put_u32(struct send_stream *s, enum btrfs_send_attr type, u32 val);
int send_put_u8(struct send_stream *s, enum btrfs_send_attr type, u8 val);
int send_put_eb(struct send_stream *s, enum btrfs_send_attr type,
		const struct extent_buffer *eb, unsigned long off, u32 len);
void *send_put_data_begin(struct send_stream *s, u32 len);
int send_put_data_ref(struct send_stream *s, u32 len);
int send_cmd_end_pages(struct send_stream *s, struct page **pages, u32 nr,
		       u32 off);
u32 send_data_room(const struct send_stream *s);
int send_resume_check_end(const struct send_stream *s);
int send_check_interrupt(void);

/* send-splice.c */
struct pipe_inode_info *send_splice_pipe(struct file *out);
int send_splice_pages(struct send_stream *s, struct page **pages, u32 nr,
		      u32 off, u32 len);

#endif
