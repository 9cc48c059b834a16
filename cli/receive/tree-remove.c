// SPDX-License-Identifier: GPL-2.0
/*
 * Removing a received tree: what the plain destination does for a
 * checkpoint or an aborted partial directory, and what every destination
 * does to empty a partial subvolume before rolling it back to its
 * checkpoint.  Immutable and append-only flags, which a received tree may
 * carry, are cleared where they refuse a removal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "receive.h"

#define LOCK_FL (FS_IMMUTABLE_FL | FS_APPEND_FL)

/* Clear immutable/append-only on name beneath dir ("" for dir): true if any was set. */
static bool unlock(int dir, const char *name)
{
	int fd = *name ? openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : dir;
	int flags;
	bool done = false;

	if (fd < 0)
		return false;
	if (!ioctl(fd, FS_IOC_GETFLAGS, &flags) && (flags & LOCK_FL)) {
		flags &= ~LOCK_FL;
		done = !ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	if (fd != dir)
		close(fd);
	return done;
}

static int empty_dir(int dir, const char *path, char *why, size_t wlen);

static int remove_entry(int dir, const char *name, const char *path, char *why, size_t wlen)
{
	struct stat st;
	int err;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW)) {
		snprintf(why, wlen, "cannot find '%s'", path);
		return errno;
	}
	if (S_ISDIR(st.st_mode)) {
		int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0) {
			snprintf(why, wlen, "cannot open '%s'", path);
			return errno;
		}
		err = empty_dir(fd, path, why, wlen);
		close(fd);
		if (err)
			return err;
	}
	for (int tries = 0; tries < 2; tries++) {
		if (!unlinkat(dir, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0))
			return 0;
		err = errno;
		if (err != EPERM || tries || !(unlock(dir, name) | unlock(dir, "")))
			break;
	}
	snprintf(why, wlen, "cannot remove '%s'", path);
	return err;
}

static int empty_dir(int dir, const char *path, char *why, size_t wlen)
{
	struct dirent *de;
	bool removed = true;
	int fd, err = 0;
	DIR *d;

	unlock(dir, "");
	fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		snprintf(why, wlen, "cannot list '%s'", *path ? path : ".");
		return errno;
	}
	/* Removing while listing may hide entries: list again until none is left. */
	while (!err && removed) {
		removed = false;
		rewinddir(d);
		while (!err && (errno = 0, de = readdir(d))) {
			char *sub;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (asprintf(&sub, "%s%s%s", path, *path ? "/" : "", de->d_name) < 0) {
				snprintf(why, wlen, "out of memory");
				err = ENOMEM;
				break;
			}
			err = remove_entry(dir, de->d_name, sub, why, wlen);
			free(sub);
			removed = true;
		}
		if (!err && errno) {
			err = errno;
			snprintf(why, wlen, "cannot list '%s'", *path ? path : ".");
		}
	}
	closedir(d);
	return err;
}

int recv_tree_empty(int dir, char *why, size_t wlen)
{
	return empty_dir(dir, "", why, wlen);
}

int recv_tree_remove(int dir, const char *name, char *why, size_t wlen)
{
	return remove_entry(dir, name, name, why, wlen);
}
