// SPDX-License-Identifier: GPL-2.0
/*
 * Copying a received tree, for the plain-directory destination's
 * snapshots: every inode type with its owner, mode, xattrs (ACLs and
 * capabilities included), times, inode flags and fs-verity, hard links
 * kept, file data shared where the filesystem can (FICLONE) and copied
 * elsewhere, holes kept as holes.
 *
 * The parent is read without changing its access times (O_NOATIME, which
 * needs ownership or CAP_FOWNER: without it, plain opens; a symlink's is
 * put back after readlink).
 *
 * Metadata goes in the order that keeps it: owner, then mode (a chown
 * clears setuid), then xattrs (a chown clears capabilities), then times,
 * and a directory's times after its entries; inode flags last, as
 * immutable or append-only would refuse the rest.
 *
 * Received by an ordinary user, the copy holds back modes that would
 * keep the stream from working in it (modes.c), and a parent's file or
 * directory that its owner may not read is opened up for the copy and put
 * back (only its ctime shows it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "receive.h"

/* A file with several links, and where its first copy is. */
struct linked {
	dev_t dev;
	ino_t ino;
	char *path;		/* relative to the destination root */
};

struct copy {
	int dst_root;
	struct recv_held *held;		/* unprivileged: modes.c */
	struct linked *links;
	size_t nlinks, cap;
	char *why;
	size_t wlen;
};

/* openat() beneath the source, without updating atime where allowed. */
static int open_src(int dir, const char *name, int flags)
{
	int fd = openat(dir, name, flags | O_NOATIME | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == EPERM)
		fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

static int fail(struct copy *cp, const char *path, int err, const char *what)
{
	snprintf(cp->why, cp->wlen, "%s '%s'", what, path);
	return err;
}

/* Copy the xattrs of src (a descriptor, or name beneath the cwd if fd < 0). */
static int copy_xattrs(int src, int dst, const char *name)
{
	char list[64 * 1024], value[64 * 1024];
	ssize_t len, vlen;

	len = src >= 0 ? flistxattr(src, list, sizeof(list)) : llistxattr(name, list, sizeof(list));
	if (len < 0)
		return errno == ENOTSUP ? 0 : errno;
	for (char *x = list; x < list + len; x += strlen(x) + 1) {
		vlen = src >= 0 ? fgetxattr(src, x, value, sizeof(value))
				: lgetxattr(name, x, value, sizeof(value));
		if (vlen < 0)
			return errno;
		if (src >= 0 ? fsetxattr(dst, x, value, vlen, 0)
			     : lsetxattr(name, x, value, vlen, 0))
			return errno;
	}
	return 0;
}

/* Owner, mode and xattrs of an open inode (times come last, separately). */
static int copy_meta_fd(struct copy *cp, int src, int dst, const struct stat *st)
{
	mode_t mode = st->st_mode & 07777;
	struct stat own;

	if (fchown(dst, st->st_uid, st->st_gid))
		return errno;
	if (cp->held && !fstat(dst, &own))
		mode = recv_hold_mode(cp->held, dst, -1, NULL, &own, mode);
	if (fchmod(dst, mode))
		return errno;
	return copy_xattrs(src, dst, NULL);
}

/*
 * Unprivileged: let the owner read (and search) a parent's inode for the
 * copy.  True when its mode was changed; put_back_src undoes it.
 */
static bool open_up_src(struct copy *cp, int dir, const char *name, const struct stat *st)
{
	mode_t need = S_ISDIR(st->st_mode) ? S_IRUSR | S_IXUSR : S_IRUSR;

	if (!cp->held || st->st_uid != geteuid() || (st->st_mode & need) == need)
		return false;
	return !fchmodat(dir, name, (st->st_mode & 07777) | need, 0);
}

static void put_back_src(int dir, const char *name, const struct stat *st)
{
	fchmodat(dir, name, st->st_mode & 07777, 0);
}

/* Copy [off, end) of src to the same place in dst. */
static int copy_range(int src, int dst, off_t off, off_t end)
{
	off_t in = off, out = off;

	while (in < end) {
		ssize_t n = copy_file_range(src, &in, dst, &out, (size_t)(end - in), 0);

		if (n < 0)
			return errno;
		if (n == 0)
			break;
	}
	return 0;
}

/*
 * Share the data, or copy only where src has data: a copy of every byte
 * would turn holes into zeros (copy_file_range does so on ext4 and
 * tmpfs), which a sparse file of many gigabytes cannot afford.
 */
static int copy_data(int src, int dst, off_t size)
{
	off_t pos = 0;
	int err;

	if (!ioctl(dst, FICLONE, src))
		return 0;
	while (pos < size) {
		off_t data = lseek(src, pos, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break;
		if (data < 0)
			return copy_range(src, dst, pos, size);
		hole = lseek(src, data, SEEK_HOLE);
		if (hole < 0)
			hole = size;
		err = copy_range(src, dst, data, hole < size ? hole : size);
		if (err)
			return err;
		pos = hole;
	}
	return ftruncate(dst, size) ? errno : 0;
}

/*
 * The inode flags a FILEATTR can set, as the parent holds them: it
 * received them here, so the copy can hold them too.
 */
static int copy_flags(int src, int dst)
{
	int flags, have;

	if (ioctl(src, FS_IOC_GETFLAGS, &flags))
		return errno == ENOTTY || errno == EOPNOTSUPP ? 0 : errno;
	flags &= RECV_MANAGED_FL;
	if (!flags)
		return 0;
	if (ioctl(dst, FS_IOC_GETFLAGS, &have))
		return errno;
	have |= flags;
	return ioctl(dst, FS_IOC_SETFLAGS, &have) ? errno : 0;
}

static bool has_verity(int fd)
{
	int flags;

	return !ioctl(fd, FS_IOC_GETFLAGS, &flags) && (flags & FS_VERITY_FL);
}

/*
 * fs-verity of a parent's file, enabled on the copy (name beneath dst_dir,
 * which must not be open for writing) with the parent's hash algorithm,
 * block size, salt and signature: the copy then measures the same.
 */
static int copy_verity(int src, int dst_dir, const char *name)
{
	struct fsverity_descriptor desc;
	uint8_t sig[16384];
	struct fsverity_read_metadata_arg rd = {
		.metadata_type = FS_VERITY_METADATA_TYPE_DESCRIPTOR,
		.length = sizeof(desc), .buf_ptr = (uintptr_t)&desc,
	};
	struct fsverity_enable_arg en = { .version = 1 };
	int fd, err = 0;
	int slen;

	if (ioctl(src, FS_IOC_READ_VERITY_METADATA, &rd) < 0)
		return errno;
	rd.metadata_type = FS_VERITY_METADATA_TYPE_SIGNATURE;
	rd.length = sizeof(sig);
	rd.buf_ptr = (uintptr_t)sig;
	slen = ioctl(src, FS_IOC_READ_VERITY_METADATA, &rd);
	if (slen < 0 && errno != ENODATA)
		return errno;
	en.hash_algorithm = desc.hash_algorithm;
	en.block_size = 1u << desc.log_blocksize;
	en.salt_size = desc.salt_size;
	en.salt_ptr = (uintptr_t)desc.salt;
	en.sig_size = slen > 0 ? (uint32_t)slen : 0;
	en.sig_ptr = (uintptr_t)sig;
	fd = openat(dst_dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (ioctl(fd, FS_IOC_ENABLE_VERITY, &en))
		err = errno;
	close(fd);
	return err;
}

/* A second link of an inode copied before: link to its copy. */
static int link_again(struct copy *cp, const struct stat *st, int dst, const char *name,
		      const char *path, bool *done)
{
	*done = false;
	for (size_t i = 0; i < cp->nlinks; i++) {
		if (cp->links[i].dev == st->st_dev && cp->links[i].ino == st->st_ino) {
			*done = true;
			if (linkat(cp->dst_root, cp->links[i].path, dst, name, 0))
				return fail(cp, path, errno, "cannot link");
			return 0;
		}
	}
	if (cp->nlinks == cp->cap) {
		struct linked *l;

		cp->cap = cp->cap ? 2 * cp->cap : 64;
		l = realloc(cp->links, cp->cap * sizeof(*l));
		if (!l)
			return fail(cp, path, ENOMEM, "cannot copy");
		cp->links = l;
	}
	cp->links[cp->nlinks].dev = st->st_dev;
	cp->links[cp->nlinks].ino = st->st_ino;
	cp->links[cp->nlinks].path = strdup(path);
	if (!cp->links[cp->nlinks].path)
		return fail(cp, path, ENOMEM, "cannot copy");
	cp->nlinks++;
	return 0;
}

static int copy_file_as(struct copy *cp, int src_dir, int dst_dir, const char *name,
			const char *path, const struct stat *st);

static int copy_file(struct copy *cp, int src_dir, int dst_dir, const char *name,
		     const char *path, const struct stat *st)
{
	bool opened = open_up_src(cp, src_dir, name, st);
	int err = copy_file_as(cp, src_dir, dst_dir, name, path, st);

	if (opened)
		put_back_src(src_dir, name, st);
	return err;
}

static int copy_file_as(struct copy *cp, int src_dir, int dst_dir, const char *name,
			const char *path, const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int src, dst, err;

	src = open_src(src_dir, name, O_RDONLY);
	if (src < 0)
		return fail(cp, path, errno, "cannot open");
	dst = openat(dst_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (dst < 0) {
		err = errno;
		close(src);
		return fail(cp, path, err, "cannot create");
	}
	err = copy_data(src, dst, st->st_size);
	if (!err)
		err = copy_meta_fd(cp, src, dst, st);
	/* Verity refuses a file open for writing; times come after it. */
	if (!err && has_verity(src)) {
		close(dst);
		err = copy_verity(src, dst_dir, name);
		dst = err ? -1 : openat(dst_dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (!err && dst < 0)
			err = errno;
	}
	if (!err && futimens(dst, ts))
		err = errno;
	if (!err)
		err = copy_flags(src, dst);
	close(src);
	if (dst >= 0)
		close(dst);
	return err ? fail(cp, path, err, "cannot copy") : 0;
}

/* Symlinks and special files: no descriptor to work through. */
static int copy_other(struct copy *cp, int src_dir, int dst_dir, const char *name,
		      const char *path, const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	char target[PATH_MAX + 1];
	ssize_t len;
	int err = 0;

	if (S_ISLNK(st->st_mode)) {
		len = readlinkat(src_dir, name, target, sizeof(target) - 1);
		if (len < 0)
			return fail(cp, path, errno, "cannot read symlink");
		target[len] = 0;
		/*
		 * readlink updates the parent's atime (there is no O_NOATIME
		 * for it): put back the one it had, which the parent was
		 * received with.  Only its ctime shows the copy.
		 */
		struct timespec back[2] = { st->st_atim, { .tv_nsec = UTIME_OMIT } };

		utimensat(src_dir, name, back, AT_SYMLINK_NOFOLLOW);
		if (symlinkat(target, dst_dir, name))
			return fail(cp, path, errno, "cannot create symlink");
	} else if (mknodat(dst_dir, name, st->st_mode & (S_IFMT | 0600), st->st_rdev)) {
		return fail(cp, path, errno, "cannot create");
	}
	if (fchownat(dst_dir, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW))
		err = errno;
	if (!err && !S_ISLNK(st->st_mode) && fchmodat(dst_dir, name, st->st_mode & 07777, 0))
		err = errno;
	/* No l*xattr beneath a descriptor: work from the source directory. */
	if (!err && !fchdir(src_dir)) {
		char list[64 * 1024], value[64 * 1024];
		ssize_t n = llistxattr(name, list, sizeof(list));

		for (char *x = list; n > 0 && x < list + n && !err; x += strlen(x) + 1) {
			ssize_t vlen = lgetxattr(name, x, value, sizeof(value));

			if (vlen < 0 || fchdir(dst_dir) ||
			    lsetxattr(name, x, value, vlen, 0) || fchdir(src_dir))
				err = errno;
		}
	}
	if (!err && utimensat(dst_dir, name, ts, AT_SYMLINK_NOFOLLOW))
		err = errno;
	return err ? fail(cp, path, err, "cannot copy") : 0;
}

static int copy_dir(struct copy *cp, int src, int dst, const char *path,
		    const struct stat *own);

static int copy_entry(struct copy *cp, int src_dir, int dst_dir, const char *name,
		      const char *path)
{
	struct stat st;
	bool linked, opened;
	int err, s, d;

	if (fstatat(src_dir, name, &st, AT_SYMLINK_NOFOLLOW))
		return fail(cp, path, errno, "cannot find");
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		err = link_again(cp, &st, dst_dir, name, path, &linked);
		if (err || linked)
			return err;
	}
	if (S_ISREG(st.st_mode))
		return copy_file(cp, src_dir, dst_dir, name, path, &st);
	if (!S_ISDIR(st.st_mode))
		return copy_other(cp, src_dir, dst_dir, name, path, &st);
	if (mkdirat(dst_dir, name, 0700))
		return fail(cp, path, errno, "cannot create directory");
	opened = open_up_src(cp, src_dir, name, &st);
	s = open_src(src_dir, name, O_RDONLY | O_DIRECTORY);
	d = openat(dst_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = s < 0 || d < 0 ? fail(cp, path, errno, "cannot open directory")
			     : copy_dir(cp, s, d, path, &st);
	if (s >= 0)
		close(s);
	if (d >= 0)
		close(d);
	if (opened)
		put_back_src(src_dir, name, &st);
	return err;
}

/*
 * The entries of src into dst, then dst's own metadata and times (from
 * own, src's own as it was before open_up_src, or from src if NULL).
 */
static int copy_dir(struct copy *cp, int src, int dst, const char *path,
		    const struct stat *own)
{
	struct timespec ts[2];
	struct dirent *de;
	struct stat st;
	int fd, err = 0;
	DIR *d;

	fd = open_src(src, ".", O_RDONLY | O_DIRECTORY);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return fail(cp, path, errno, "cannot list directory");
	}
	while (!err && (errno = 0, de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (asprintf(&sub, "%s%s%s", path, *path ? "/" : "", de->d_name) < 0)
			return fail(cp, path, ENOMEM, "cannot copy");
		err = copy_entry(cp, src, dst, de->d_name, sub);
		free(sub);
	}
	if (!err && errno)
		err = fail(cp, path, errno, "cannot list directory");
	closedir(d);
	if (err)
		return err;
	if (fstat(src, &st))
		return fail(cp, path, errno, "cannot find");
	if (own)
		st.st_mode = own->st_mode;
	err = copy_meta_fd(cp, src, dst, &st);
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	if (!err && futimens(dst, ts))
		err = errno;
	if (!err)
		err = copy_flags(src, dst);
	return err ? fail(cp, *path ? path : ".", err, "cannot copy") : 0;
}

int recv_tree_copy(int src, int dst, struct recv_held *held, char *why, size_t wlen)
{
	struct copy cp = { .dst_root = dst, .held = held, .why = why, .wlen = wlen };
	int err = copy_dir(&cp, src, dst, "", NULL);

	for (size_t i = 0; i < cp.nlinks; i++)
		free(cp.links[i].path);
	free(cp.links);
	return err;
}

int recv_tree_rollback(int root, int src, char *why, size_t wlen)
{
	char list[64 * 1024];
	ssize_t n = flistxattr(root, list, sizeof(list));
	int err;

	err = recv_tree_empty(root, why, wlen);
	if (err)
		return err;
	/* What the rolled back commands set on the root itself goes too. */
	for (char *x = list; n > 0 && x < list + n; x += strlen(x) + 1)
		fremovexattr(root, x);
	if (src >= 0) {
		err = recv_tree_copy(src, root, NULL, why, wlen);
		if (err)
			return err;
	}
	if (syncfs(root)) {
		snprintf(why, wlen, "cannot sync the rolled back tree");
		return errno;
	}
	return 0;
}
