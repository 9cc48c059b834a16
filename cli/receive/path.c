// SPDX-License-Identifier: GPL-2.0
/*
 * Paths from the stream are untrusted.  Every one is checked here once
 * (relative, no "." / ".." / empty component, no NUL byte) and then only
 * ever resolved beneath a directory descriptor of the subvolume being
 * received, with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) for the
 * directories; the last component is left to the caller's *at() call with
 * the no-follow flag that call needs.
 *
 * Paths may be longer than PATH_MAX (the stream allows 64 KiB): they are
 * walked in pieces shorter than PATH_MAX, each beneath the previous one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "receive.h"

const char *recv_path_invalid(const char *path, size_t len, bool allow_root)
{
	const char *p = path, *end = path + len;

	if (strlen(path) != len)
		return "contains a NUL byte";
	if (!len)
		return allow_root ? NULL : "empty path";
	if (*path == '/')
		return "absolute path";
	while (p <= end) {
		const char *slash = memchr(p, '/', end - p);
		size_t n = (slash ? slash : end) - p;

		if (n == 0)
			return "empty path component";
		if (n == 1 && p[0] == '.')
			return "'.' path component";
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return "'..' path component";
		if (!slash)
			break;
		p = slash + 1;
	}
	return NULL;
}

const char *recv_name_invalid(const char *name, size_t len)
{
	const char *why = recv_path_invalid(name, len, false);

	if (why)
		return why;
	if (memchr(name, '/', len))
		return "contains '/'";
	return NULL;
}

size_t recv_last_slash(const char *path, size_t len)
{
	const char *s = memrchr(path, '/', len);

	return s ? (size_t)(s - path) : 0;
}

static bool have_openat2 = true;

/* Open one piece (< PATH_MAX, NUL-terminated) of a directory path. */
static int open_piece(int base, const char *piece)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int fd;

	if (have_openat2) {
		fd = syscall(SYS_openat2, base, piece, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno != ENOSYS)
			return -errno;
		have_openat2 = false;
	}

	/*
	 * No openat2 (before Linux 5.6): one component at a time with
	 * O_NOFOLLOW, which is as safe because ".." was refused already.
	 */
	char name[NAME_MAX + 1];
	const char *p = piece;
	int cur = base;

	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n > NAME_MAX) {
			fd = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, n);
		name[n] = 0;
		fd = openat(cur, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			fd = -errno;
		if (cur != base)
			close(cur);
		if (fd < 0 || !slash)
			break;
		cur = fd;
		p = slash + 1;
	}
	return fd;
}

int recv_walk_dir(int base, const char *rel, size_t len)
{
	char buf[PATH_MAX];
	int cur = base, fd = -EINVAL;

	if (!len)
		return -EINVAL;
	while (len) {
		size_t n = len;

		if (n >= sizeof(buf)) {
			/* Cut at the last '/' that fits. */
			const char *s = memrchr(rel, '/', sizeof(buf) - 1);

			if (!s || s == rel) {
				fd = -ENAMETOOLONG;
				break;
			}
			n = s - rel;
		}
		memcpy(buf, rel, n);
		buf[n] = 0;
		fd = open_piece(cur, buf);
		if (cur != base)
			close(cur);
		if (fd < 0)
			return fd;
		cur = fd;
		rel += n;
		len -= n;
		if (len) {
			/* Skip the '/' between pieces. */
			rel++;
			len--;
		}
	}
	if (fd < 0 && cur != base)
		close(cur);
	return fd;
}
