// SPDX-License-Identifier: GPL-2.0
/*
 * Work on an open file: the one implementation of each operation, run
 * by the main thread itself or handed to the worker thread (jobs.c).
 * No receive state and no messages here: an operation returns 0 or an
 * errno, and says what failed in the caller's buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "receive.h"

int fdop_write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	if (off > INT64_MAX || len > INT64_MAX - off)
		return EFBIG;
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return EIO;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/*
 * chown(2) clears setuid and setgid of a file, but the sender only sends
 * CHMOD when the mode differs from the parent's: an inode whose owner
 * changed and whose mode did not would lose the bits (btrfs-progs loses
 * them).  Put the mode back; a CHMOD that follows has the last word.
 * A file made by this stream has no setuid bit before its CHMOD: its
 * known permission bits spare the fstat().
 */
static int chown_keeping_mode(const struct fdop *op, char *why, size_t size)
{
	struct stat st;

	if (op->mode >= 0) {
		st.st_mode = S_IFREG | (mode_t)op->mode;
	} else if (fstat(op->fd, &st)) {
		snprintf(why, size, "cannot find inode");
		return errno;
	}
	if (fchown(op->fd, (uid_t)op->a, (gid_t)op->b)) {
		snprintf(why, size, "cannot chown to %" PRIu64 ":%" PRIu64, op->a, op->b);
		return errno;
	}
	if (!S_ISREG(st.st_mode) || !(st.st_mode & (S_ISUID | S_ISGID)))
		return 0;
	if (fchmod(op->fd, st.st_mode & 07777)) {
		snprintf(why, size, "cannot restore mode %04o after chown",
			 (unsigned int)(st.st_mode & 07777));
		return errno;
	}
	return 0;
}

int fdop_run(const struct fdop *op, char *why, size_t size)
{
	int err;

	switch (op->type) {
	case FDOP_WRITE:
		err = fdop_write_all(op->fd, op->data, op->len, op->a);
		if (err)
			snprintf(why, size, "cannot write %zu bytes at offset %" PRIu64,
				 op->len, op->a);
		return err;
	case FDOP_CHOWN:
		return chown_keeping_mode(op, why, size);
	case FDOP_CHMOD:
		if (!fchmod(op->fd, (mode_t)op->a))
			return 0;
		snprintf(why, size, "cannot chmod to %04o", (unsigned int)op->a);
		return errno;
	case FDOP_UTIMES:
		if (!futimens(op->fd, op->ts))
			return 0;
		snprintf(why, size, "cannot set times");
		return errno;
	case FDOP_SETXATTR:
	case FDOP_RMXATTR:
		if (op->type == FDOP_SETXATTR ? !fsetxattr(op->fd, op->xname, op->data, op->len, 0)
					      : !fremovexattr(op->fd, op->xname))
			return 0;
		err = errno;
		snprintf(why, size, "%s '%s'",
			 op->type == FDOP_SETXATTR ? "cannot set xattr" : "cannot remove xattr",
			 op->xname);
		return err;
	case FDOP_TRUNCATE:
		if (op->a > INT64_MAX) {
			snprintf(why, size, "cannot truncate to %" PRIu64, op->a);
			return EFBIG;
		}
		if (!ftruncate(op->fd, (off_t)op->a))
			return 0;
		snprintf(why, size, "cannot truncate to %" PRIu64, op->a);
		return errno;
	case FDOP_CLOSE:
		close(op->fd);
		return 0;
	}
	snprintf(why, size, "unknown operation");
	return EINVAL;
}
