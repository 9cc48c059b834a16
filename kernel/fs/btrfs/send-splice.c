// SPDX-License-Identifier: GPL-2.0
/*
 * File data into a pipe by reference: when the send output is a pipe, the
 * page cache pages holding the data of a WRITE, and the pages a compressed
 * extent of an ENCODED_WRITE was read into, are put into the pipe's ring
 * with a reference taken, as splice from a file does, instead of being
 * copied into the command buffer and from there into the pipe.
 *
 * The page cache pages belong to a read-only root, and an encoded read's
 * pages to nobody else, so their contents cannot change while they wait
 * in the pipe.  Page cache pages may be dropped from the page cache
 * meanwhile (send drops what it read, an unused inode is evicted): the
 * pipe's reference keeps each page and its contents alive, and unlike the
 * page cache's own pipe buffer operations the plain ones used here do not
 * treat a page that left the cache as lost data.  Nobody may steal the
 * pages either.
 */

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pipe_fs_i.h>
#include <linux/poll.h>
#include <linux/splice.h>
#include <linux/sched/signal.h>
#include "send-stream.h"

static bool send_zero_copy = true;
module_param(send_zero_copy, bool, 0644);
MODULE_PARM_DESC(send_zero_copy,
		 "send: hand file data to a pipe output by reference (default: 1; 0 copies it)");

/*
 * The pipe behind @out if file data may go into it by reference: a FIFO
 * or pipe(2) end opened for blocking writes (a non-blocking writer needs
 * the all-or-nothing semantics of write(), which the copying path has) and
 * not in packet mode (O_DIRECT: every write() one packet, not every page).
 * A pipe's file carries its pipe in private_data, as its inode does.
 */
struct pipe_inode_info *send_splice_pipe(struct file *out)
{
	struct inode *inode = file_inode(out);
	struct pipe_inode_info *pipe = out->private_data;

	if (!READ_ONCE(send_zero_copy))
		return NULL;
	if (!S_ISFIFO(inode->i_mode) || !pipe || pipe != inode->i_pipe)
		return NULL;
	if (out->f_op->splice_write != iter_file_splice_write)
		return NULL;
	if (!(out->f_mode & FMODE_WRITE) ||
	    (out->f_flags & (O_NONBLOCK | O_DIRECT)))
		return NULL;
	if (pipe_has_watch_queue(pipe))
		return NULL;
	return pipe;
}

static bool pipe_room_or_no_reader(const struct pipe_inode_info *pipe)
{
	return !pipe_full(READ_ONCE(pipe->head), READ_ONCE(pipe->tail),
			  READ_ONCE(pipe->max_usage)) ||
	       !READ_ONCE(pipe->readers);
}

/* Called with the pipe locked, as a write to a pipe wakes its readers. */
static void wake_pipe_readers(struct pipe_inode_info *pipe)
{
	wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM);
	kill_fasync(&pipe->fasync_readers, SIGIO, POLL_IN);
}

/*
 * Wait, with the pipe locked, until a slot is free.  As a blocking write
 * to a pipe does: a reader that went away gives EPIPE and SIGPIPE, any
 * signal ends the wait (EINTR, as the copying path reports it).
 */
static int wait_pipe_room(struct pipe_inode_info *pipe)
{
	for (;;) {
		if (!pipe->readers) {
			send_sig(SIGPIPE, current, 0);
			return -EPIPE;
		}
		if (!pipe_full(pipe->head, pipe->tail, pipe->max_usage))
			return 0;
		if (signal_pending(current))
			return -EINTR;
		/* What we added so far may be all the reader waits for. */
		wake_pipe_readers(pipe);
		pipe_unlock(pipe);
		wait_event_interruptible(pipe->wr_wait,
					 pipe_room_or_no_reader(pipe));
		pipe_lock(pipe);
	}
}

/*
 * Put @len bytes starting @off bytes into @pages[0] into the pipe, one
 * pipe buffer per page.  The page references pass to the pipe; on error
 * the ones not passed are dropped here.  Returns 0 or a negative errno.
 */
int send_splice_pages(struct send_stream *s, struct page **pages, u32 nr,
		      u32 off, u32 len)
{
	struct pipe_inode_info *pipe = s->pipe;
	u32 i = 0;
	int ret = 0;

	pipe_lock(pipe);
	for (; i < nr && len; i++) {
		struct pipe_buffer buf = {
			.page = pages[i],
			.offset = off,
			.len = min_t(u32, len, PAGE_SIZE - off),
			/*
			 * Plain page references: valid outside the page
			 * cache, never stolen, and the kernel's own, so a
			 * pipe may outlive this module.
			 */
			.ops = &nosteal_pipe_buf_ops,
		};
		ssize_t added;

		ret = wait_pipe_room(pipe);
		if (ret)
			break;
		added = add_to_pipe(pipe, &buf);
		if (WARN_ON_ONCE(added < 0)) {
			/* add_to_pipe() dropped the reference already. */
			i++;
			ret = added;
			break;
		}
		s->bytes_written += added;
		len -= added;
		off = 0;
	}
	wake_pipe_readers(pipe);
	pipe_unlock(pipe);
	for (; i < nr; i++)
		put_page(pages[i]);
	return ret;
}
