// SPDX-License-Identifier: GPL-2.0
/*
 * From a validated stream path of the current subvolume to something to
 * act on: a directory descriptor (from the cache) and the last component,
 * used with *at() calls that never follow a symlink in that component.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "receive.h"

int recv_locate(struct recv *r, const char *path, size_t len, int *dfd,
		const char **name)
{
	size_t slash;
	int fd;

	if (!len) {
		*dfd = r->sv.root_fd;
		*name = "";
		return 0;
	}
	slash = recv_last_slash(path, len);
	if (!slash) {
		*dfd = r->sv.root_fd;
		*name = path;
		return 0;
	}
	fd = dcache_dir(r->sv.dc, path, slash);
	if (fd < 0)
		return fd;
	*dfd = fd;
	*name = path + slash + 1;
	return 0;
}

int recv_open_regular(int dfd, const char *name, int flags)
{
	struct stat st;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	fd = openat(dfd, name, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

const char *recv_open_what(int err)
{
	switch (err) {
	case -ELOOP: return "cannot open: not a regular file (symlink)";
	case -EISDIR: return "cannot open: not a regular file (directory)";
	case -EINVAL: return "cannot open: not a regular file";
	default: return "cannot open";
	}
}
