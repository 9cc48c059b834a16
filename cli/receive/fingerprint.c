// SPDX-License-Identifier: GPL-2.0
/*
 * The layout digest of a partial subvolume: what a resumed receive checks
 * to know nobody changed the subvolume since the receive stopped.
 *
 * It covers, for every inode reached from the root (names in byte order):
 * the path, inode number, type, mode, owner, link count, size, device
 * number, mtime and ctime, the xattrs (names and values) of files and
 * directories and their inode flags.  ctime catches any change through the
 * file system, including one that puts the mtime back; file data is not
 * read (writing it moves mtime and ctime).  atime is left out on purpose:
 * reading a file of the partial subvolume (relatime, a backup scan) is
 * not a change.  The hash is FNV-1a, 64 bits: this guards against
 * mistakes, not against someone who may write the subvolume anyway.
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
#include <sys/xattr.h>
#include <unistd.h>
#include "receive.h"

struct digest {
	uint64_t h;
	char *why;
	size_t wlen;
};

static void mix(struct digest *d, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		d->h ^= p[i];
		d->h *= 0x100000001b3ULL;
	}
}

static void mix_u64(struct digest *d, uint64_t v)
{
	mix(d, &v, sizeof(v));
}

static int fail(struct digest *d, const char *path, int err, const char *what)
{
	snprintf(d->why, d->wlen, "%s '%s': %s", what, *path ? path : ".", strerror(err));
	return err;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names and values of the xattrs of the file or directory fd. */
static int mix_xattrs(struct digest *d, int fd, const char *path)
{
	char list[64 * 1024], value[64 * 1024];
	ssize_t n = flistxattr(fd, list, sizeof(list));

	if (n < 0)
		return errno == ENOTSUP ? 0 : fail(d, path, errno, "cannot list xattrs of");
	/* Listed in the order the file system keeps them: stable for one inode. */
	for (char *x = list; x < list + n; x += strlen(x) + 1) {
		ssize_t v = fgetxattr(fd, x, value, sizeof(value));

		if (v < 0)
			return fail(d, path, errno, "cannot read xattrs of");
		mix(d, x, strlen(x) + 1);
		mix_u64(d, (uint64_t)v);
		mix(d, value, (size_t)v);
	}
	return 0;
}

static int walk(struct digest *d, int dir, const char *path);

static int mix_entry(struct digest *d, int dir, const char *name, const char *path)
{
	struct stat st;
	int fd, err = 0, flags = 0;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW))
		return fail(d, path, errno, "cannot stat");
	mix(d, path, strlen(path) + 1);
	mix_u64(d, st.st_ino);
	mix_u64(d, st.st_mode);
	mix_u64(d, st.st_uid);
	mix_u64(d, st.st_gid);
	mix_u64(d, st.st_nlink);
	mix_u64(d, S_ISDIR(st.st_mode) ? 0 : (uint64_t)st.st_size);
	mix_u64(d, st.st_rdev);
	mix_u64(d, (uint64_t)st.st_mtim.tv_sec);
	mix_u64(d, (uint64_t)st.st_mtim.tv_nsec);
	mix_u64(d, (uint64_t)st.st_ctim.tv_sec);
	mix_u64(d, (uint64_t)st.st_ctim.tv_nsec);
	/*
	 * A symlink's target is not read: readlink would move its atime,
	 * and putting that back would move its ctime.  A target cannot be
	 * changed in place; a new symlink has a new inode and ctime.
	 */
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return 0;
	/* O_PATH would not do for xattrs and flags; never block on a file. */
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOATIME | O_CLOEXEC);
	if (fd < 0 && errno == EPERM)
		fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return fail(d, path, errno, "cannot open");
	if (!ioctl(fd, FS_IOC_GETFLAGS, &flags))
		mix_u64(d, (unsigned int)flags);
	err = mix_xattrs(d, fd, path);
	if (!err && S_ISDIR(st.st_mode))
		err = walk(d, fd, path);
	close(fd);
	return err;
}

/* The entries of dir, sorted. */
static int walk(struct digest *d, int dir, const char *path)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int fd, err = 0;
	DIR *dp;

	/* Listing it must not move its atime (the receive may have set it). */
	fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_NOATIME | O_CLOEXEC);
	if (fd < 0 && errno == EPERM)
		fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dp = fd < 0 ? NULL : fdopendir(fd);
	if (!dp) {
		if (fd >= 0)
			close(fd);
		return fail(d, path, errno, "cannot list");
	}
	while (!err && (errno = 0, de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));

			if (!nn) {
				err = fail(d, path, ENOMEM, "cannot list");
				break;
			}
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			err = fail(d, path, ENOMEM, "cannot list");
		else
			n++;
	}
	if (!err && errno)
		err = fail(d, path, errno, "cannot list");
	closedir(dp);
	if (!err)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char *sub = NULL;

		if (!err && asprintf(&sub, "%s%s%s", path, *path ? "/" : "", names[i]) < 0)
			err = fail(d, path, ENOMEM, "cannot list");
		if (!err)
			err = mix_entry(d, dir, names[i], sub);
		free(sub);
		free(names[i]);
	}
	free(names);
	return err;
}

int recv_layout_digest(int root, uint64_t *out, char *why, size_t wlen)
{
	struct digest d = { .h = 0xcbf29ce484222325ULL, .why = why, .wlen = wlen };
	int err = mix_entry(&d, root, ".", "");

	*out = d.h;
	return err;
}
