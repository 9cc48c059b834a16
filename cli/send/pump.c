// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel writes the stream into a file descriptor from inside the send
 * ioctl, which returns only at the end.  As btrfs-progs does, give it the
 * write end of a pipe, run the ioctl in a second thread and read the pipe
 * in this one: the reader can then copy (send), parse (the estimate, diff)
 * or stop early, in which case the kernel gets EPIPE and returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "send.h"

struct ioctl_thread {
	const struct send_request *req;
	int wfd;
	int err;		/* errno of the ioctl, 0 on success */
};

static void *run_ioctl(void *arg)
{
	struct ioctl_thread *t = arg;
	struct btrfs_ioctl_send_args args;

	memset(&args, 0, sizeof(args));
	args.send_fd = t->wfd;
	args.clone_sources_count = t->req->clone_count;
	args.clone_sources = (__u64 *)t->req->clone_sources;
	args.parent_root = t->req->parent_root;
	args.flags = t->req->flags;
	args.version = t->req->version;
	if (t->req->resume)
		memcpy(args.reserved, t->req->resume, sizeof(*t->req->resume));
	t->err = ioctl(t->req->subvol_fd, BTRFS_IOC_SEND, &args) < 0 ? errno : 0;
	/* End of file for the reader. */
	close(t->wfd);
	t->wfd = -1;
	return NULL;
}

int send_pump(const struct send_request *req, bool big_pipe,
	      send_consumer consume, void *ctx, int *ioctl_errno,
	      struct send_err *e)
{
	struct ioctl_thread t = { .req = req };
	struct send_err cerr;
	pthread_t thread;
	int pipefd[2];
	int ret, cret;

	if (ioctl_errno)
		*ioctl_errno = 0;
	/*
	 * The kernel raises SIGPIPE when the reader went away; the ioctl
	 * then fails with EPIPE, which is how an early stop is reported.
	 */
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(pipefd, O_CLOEXEC))
		return send_errf(e, "cannot create a pipe: %s", strerror(errno));
	if (big_pipe) {
		/* Best effort, as in btrfs-progs: a smaller pipe still works. */
		fcntl(pipefd[0], F_SETPIPE_SZ, SEND_PIPE_SIZE_V2);
		fcntl(pipefd[1], F_SETPIPE_SZ, SEND_PIPE_SIZE_V2);
	}
	t.wfd = pipefd[1];
	ret = pthread_create(&thread, NULL, run_ioctl, &t);
	if (ret) {
		close(pipefd[0]);
		close(pipefd[1]);
		return send_errf(e, "cannot start the send thread: %s", strerror(ret));
	}
	cret = consume(ctx, pipefd[0], &cerr);
	close(pipefd[0]);
	pthread_join(thread, NULL);
	if (ioctl_errno)
		*ioctl_errno = t.err;
	if (cret) {
		memcpy(e->msg, cerr.msg, sizeof(e->msg));
		return -1;
	}
	if (t.err)
		return send_errf(e, "send ioctl failed: %s", strerror(t.err));
	return 0;
}

/* Copy with read/write where splice refuses (O_APPEND output, odd files). */
static int copy_rw(struct send_copy *c, int rfd, struct send_err *e)
{
	char *buf = malloc(SEND_PIPE_SIZE_V2);
	int ret = 0;
	ssize_t n;

	if (!buf)
		return send_errf(e, "out of memory");
	while (!ret && (n = read(rfd, buf, SEND_PIPE_SIZE_V2)) != 0) {
		if (n < 0) {
			if (errno != EINTR)
				ret = send_errf(e, "cannot read the stream from the kernel: %s",
						strerror(errno));
			continue;
		}
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(c->out_fd, buf + done, n - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				ret = send_errf(e, "cannot write the stream: %s",
						strerror(errno));
				break;
			}
			done += w;
			if (c->bytes)
				atomic_fetch_add(c->bytes, (uint64_t)w);
		}
	}
	free(buf);
	return ret;
}

int send_copy_consumer(void *ctx, int rfd, struct send_err *e)
{
	struct send_copy *c = ctx;
	size_t chunk = c->big_pipe ? SEND_PIPE_SIZE_V2 : 65536;
	ssize_t n;

	if (c->big_pipe)	/* the output may be a pipe too; ignored if not */
		fcntl(c->out_fd, F_SETPIPE_SZ, SEND_PIPE_SIZE_V2);
	for (;;) {
		n = splice(rfd, NULL, c->out_fd, NULL, chunk, SPLICE_F_MORE);
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* Nothing was moved yet by this call: fall back. */
			if (errno == EINVAL || errno == ENOSYS)
				return copy_rw(c, rfd, e);
			return send_errf(e, "cannot write the stream: %s",
					 strerror(errno));
		}
		if (c->bytes)
			atomic_fetch_add(c->bytes, (uint64_t)n);
	}
}
