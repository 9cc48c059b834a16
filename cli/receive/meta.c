// SPDX-License-Identifier: GPL-2.0
/*
 * Inode metadata: owner, mode, times, xattrs, inode flags and fs-verity.
 *
 * The sender orders one inode's commands so that replaying them keeps
 * setuid bits and capabilities (data, CHOWN, CHMOD, capability xattr,
 * UTIMES last), and receive applies them in stream order.  Two things
 * are deliberately applied later than they arrive:
 *  - the times of directories, which the sender repeats after every change
 *    of the directory's entries: only the last one counts, so it is kept
 *    with the cached directory descriptor and applied once (cache.c);
 *  - the immutable and append-only inode flags, which would make the rest
 *    of the inode's commands (capabilities, times) and any later entry
 *    changes in a directory fail: they are set when the subvolume is done.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "receive.h"

/*
 * The target of the commands below (apply.c checked the subvolume and
 * the path, which may be the root) as a descriptor already open (*fe set for a cached file,
 * whose work may be queued for the worker thread; else the root or a
 * cached directory), or as (dfd, name).  Work queued for files is drained
 * before a file is named by path: it may be open under another name.
 */
static int target(struct recv *r, const struct bstream_cmd *c, int *fd,
		  int *dfd, const char **name, struct fcache_ent **fe)
{
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	int ret;

	/* Modes, xattrs and flags of directories decide what new inodes inherit. */
	if (c->cmd != BTRFS_SEND_C_CHOWN) {
		if (len)
			dcache_meta_changed(r->sv.dc, c->path, len);
		else
			r->sv.root_plain = -1;
	}
	*fe = len ? fcache_find(&r->files, c->path, len) : NULL;
	*fd = *fe ? (*fe)->fd : len ? dcache_peek(r->sv.dc, c->path, len) : r->sv.root_fd;
	if (*fd >= 0)
		return 1;
	ret = recv_locate(r, c->path, len, dfd, name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory") < 0 ? -1 : 0;
	return recv_jobs_drain(r) < 0 ? -1 : 1;
}

/*
 * Run op on the target's descriptor: queued for the worker when it is a
 * cached file, else here, once more after EPERM if that cleared an
 * immutable or append-only flag.  0, or an errno with what failed in why.
 */
static int fd_op(struct recv *r, const struct bstream_cmd *c,
		 struct fcache_ent *fe, const struct fdop *op, char *why,
		 size_t size)
{
	int err;

	if (fe && recv_job_queue(r, c, op))
		return 0;
	for (int tries = 0;; tries++) {
		err = fdop_run(op, why, size);
		if (!err || tries || err != EPERM || !recv_unlock(r, op->fd, ""))
			return err;
	}
}

/* After err from an operation on a target (fd, or name beneath dfd): retry? */
static bool unlocked(struct recv *r, int err, int fd, int dfd, const char *name)
{
	if (err != EPERM)
		return false;
	return fd >= 0 ? recv_unlock(r, fd, "") : recv_unlock(r, dfd, name);
}

int recv_chown(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	struct fcache_ent *fe;
	const char *name;
	struct stat st;
	char why[160];
	int ret, fd, dfd, err;

	ret = target(r, c, &fd, &dfd, &name, &fe);
	if (ret <= 0)
		return ret;
	if (c->uid > UINT32_MAX || c->gid > UINT32_MAX)
		return recv_fail(r, c, c->path, EINVAL, "uid %" PRIu64 " gid %" PRIu64 " out of range",
				 c->uid, c->gid);
	if (fd >= 0) {
		struct fdop op = {
			.type = FDOP_CHOWN, .fd = fd, .a = c->uid, .b = c->gid,
			.mode = fe ? fe->mode : -1,
		};

		err = fd_op(r, c, fe, &op, why, sizeof(why));
		return err ? recv_fail(r, c, c->path, err, "%s", why) : 0;
	}

	/* By name (fdop.c says why the mode is put back). */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return recv_fail(r, c, c->path, errno, "cannot find inode");
	for (int tries = 0;; tries++) {
		ret = fchownat(dfd, name, (uid_t)c->uid, (gid_t)c->gid, AT_SYMLINK_NOFOLLOW);
		err = ret ? errno : 0;
		if (!err || tries || !unlocked(r, err, fd, dfd, name))
			break;
	}
	if (err)
		return recv_fail(r, c, c->path, err, "cannot chown to %" PRIu64 ":%" PRIu64,
				 c->uid, c->gid);
	if (!S_ISREG(st.st_mode) || !(st.st_mode & (S_ISUID | S_ISGID)))
		return 0;
	if (fchmodat(dfd, name, st.st_mode & 07777, 0))
		return recv_fail(r, c, c->path, errno, "cannot restore mode %04o after chown",
				 (unsigned int)(st.st_mode & 07777));
	return 0;
}

int recv_chmod(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	mode_t mode = c->mode & 07777;
	struct fcache_ent *fe;
	const char *name;
	struct stat st;
	int ret, fd, dfd, err;

	ret = target(r, c, &fd, &dfd, &name, &fe);
	if (ret <= 0)
		return ret;
	if (fd >= 0) {
		struct fdop op = { .type = FDOP_CHMOD, .fd = fd };
		char why[160];

		if (recv_held_of(r) && !fstat(fd, &st))
			mode = recv_hold_mode(recv_held_of(r), fd, -1, NULL, &st, mode);
		op.a = mode;

		err = fd_op(r, c, fe, &op, why, sizeof(why));
		if (fe)
			fe->mode = err ? -1 : (int)mode;
		return err ? recv_fail(r, c, c->path, err, "%s", why) : 0;
	}
	/* fchmodat() follows a symlink in the last component: refuse one. */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return recv_fail(r, c, c->path, errno, "cannot find inode");
	if (S_ISLNK(st.st_mode))
		return recv_fail(r, c, c->path, 0, "refusing to chmod a symlink");
	mode = recv_hold_mode(recv_held_of(r), -1, dfd, name, &st, mode);
	for (int tries = 0;; tries++) {
		ret = fchmodat(dfd, name, mode, 0);
		err = ret ? errno : 0;
		if (!err || tries || !unlocked(r, err, fd, dfd, name))
			break;
	}
	if (err)
		return recv_fail(r, c, c->path, err, "cannot chmod to %04o", mode);
	return 0;
}

int recv_utimes(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	struct timespec ts[2];
	struct fcache_ent *fe;
	const char *name;
	int ret, fd, dfd = -1, err;

	if (c->atime.nsec >= 1000000000 || c->mtime.nsec >= 1000000000)
		return recv_fail(r, c, c->path, EINVAL, "nanoseconds out of range");
	ts[0].tv_sec = c->atime.sec;
	ts[0].tv_nsec = c->atime.nsec;
	ts[1].tv_sec = c->mtime.sec;
	ts[1].tv_nsec = c->mtime.nsec;

	/* Directories: keep the last times, apply them once (see cache.c). */
	if (!len) {
		r->sv.root_times[0] = ts[0];
		r->sv.root_times[1] = ts[1];
		r->sv.root_times_pending = true;
		return 0;
	}
	if (dcache_set_times(r->sv.dc, c->path, len, ts))
		return 0;

	fe = fcache_find(&r->files, c->path, len);
	if (fe) {
		struct fdop op = { .type = FDOP_UTIMES, .fd = fe->fd, .ts = { ts[0], ts[1] } };
		char why[160];

		err = fd_op(r, c, fe, &op, why, sizeof(why));
		return err ? recv_fail(r, c, c->path, err, "%s", why) : 0;
	}
	fd = -1;
	ret = recv_locate(r, c->path, len, &dfd, &name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory");
	if (recv_jobs_drain(r) < 0)
		return -1;
	for (int tries = 0;; tries++) {
		ret = utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW);
		err = ret ? errno : 0;
		if (!err || tries || !unlocked(r, err, fd, dfd, name))
			break;
	}
	if (err)
		return recv_fail(r, c, c->path, err, "cannot set times");
	return 0;
}

static int xattr_common(struct recv *r, const struct bstream_cmd *c, bool set)
{
	const char *name, *what = set ? "cannot set xattr" : "cannot remove xattr";
	const char *xname = c->xattr_name;
	struct fcache_ent *fe;
	int ret, fd, dfd, err;

	ret = target(r, c, &fd, &dfd, &name, &fe);
	if (ret <= 0)
		return ret;
	if (strlen(xname) != c->attr[BTRFS_SEND_A_XATTR_NAME].len || !*xname)
		return recv_fail(r, c, c->path, EINVAL, "refusing xattr name");
	if (fd >= 0) {
		struct fdop op = {
			.type = set ? FDOP_SETXATTR : FDOP_RMXATTR, .fd = fd,
			.xname = xname, .data = c->xattr_data,
			.len = set ? c->xattr_data_len : 0,
		};
		char why[160 + 320], q[320];

		err = fd_op(r, c, fe, &op, why, sizeof(why));
		if (!err)
			return 0;
		return recv_fail(r, c, c->path, err, "%s '%s'", what,
				 recv_quote(q, sizeof(q), xname));
	}
	/*
	 * There is no setxattrat(): without a descriptor of the inode, make
	 * the directory the working directory and name the last component
	 * alone, never following it (l*xattr).
	 */
	if (fchdir(dfd))
		return recv_fail(r, c, c->path, errno, "cannot enter parent directory");
	for (int tries = 0;; tries++) {
		ret = set ? lsetxattr(name, xname, c->xattr_data, c->xattr_data_len, 0)
			  : lremovexattr(name, xname);
		err = ret ? errno : 0;
		if (!err || tries || !unlocked(r, err, fd, dfd, name))
			break;
	}
	if (err) {
		char q[320];

		return recv_fail(r, c, c->path, err, "%s '%s'", what,
				 recv_quote(q, sizeof(q), xname));
	}
	return 0;
}

int recv_set_xattr(void *user, const struct bstream_cmd *c)
{
	return xattr_common(user, c, true);
}

int recv_remove_xattr(void *user, const struct bstream_cmd *c)
{
	return xattr_common(user, c, false);
}

/* ---------------------------------------------------------------------- */
/* Inode flags                                                             */

/* Bits of the btrfs inode item's flags (spec 5.9). */
enum {
	BT_NODATACOW = 1u << 1,
	BT_NOCOMPRESS = 1u << 3,
	BT_SYNC = 1u << 5,
	BT_IMMUTABLE = 1u << 6,
	BT_APPEND = 1u << 7,
	BT_NODUMP = 1u << 8,
	BT_NOATIME = 1u << 9,
	BT_DIRSYNC = 1u << 10,
	BT_COMPRESS = 1u << 11,
};

#define MANAGED_FL RECV_MANAGED_FL
#define LATE_FL (FS_IMMUTABLE_FL | FS_APPEND_FL)

unsigned int recv_btrfs_to_fsflags(uint64_t f)
{
	static const struct { uint32_t bt, fs; } map[] = {
		{ BT_NODATACOW, FS_NOCOW_FL },
		{ BT_NOCOMPRESS, FS_NOCOMP_FL },
		{ BT_SYNC, FS_SYNC_FL },
		{ BT_IMMUTABLE, FS_IMMUTABLE_FL },
		{ BT_APPEND, FS_APPEND_FL },
		{ BT_NODUMP, FS_NODUMP_FL },
		{ BT_NOATIME, FS_NOATIME_FL },
		{ BT_DIRSYNC, FS_DIRSYNC_FL },
		{ BT_COMPRESS, FS_COMPR_FL },
	};
	unsigned int fs = 0;

	/*
	 * NODATASUM, READONLY, PREALLOC and ROOT_ITEM_INIT have no FS_*_FL
	 * counterpart (NODATASUM follows NODATACOW); RO_VERITY comes with
	 * ENABLE_VERITY.
	 */
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (f & map[i].bt)
			fs |= map[i].fs;
	return fs;
}

static struct late_flags *late_find(struct recv_subvol *sv, uint64_t ino)
{
	for (size_t i = 0; i < sv->nlate; i++)
		if (sv->late[i].ino == ino)
			return &sv->late[i];
	return NULL;
}

/*
 * Remember that fd's inode gets flags at the end (flags 0: forget it),
 * as FILEATTR command c asked (NULL: flags it had before).
 */
static int late_set(struct recv_subvol *sv, int fd, uint64_t ino,
		    unsigned int flags, const struct bstream_cmd *c)
{
	struct late_flags *l = late_find(sv, ino);
	struct file_handle *h;
	char *path = NULL;
	int mnt;

	if (c && flags) {
		path = strdup(c->path);
		if (!path)
			return -ENOMEM;
	}
	if (l) {
		l->flags = flags;
		if (c) {
			free(l->path);
			l->path = path;
			l->index = c->index;
			l->offset = c->offset;
		}
		return 0;
	}
	if (!flags)
		return 0;
	if (sv->nlate == sv->late_cap) {
		size_t cap = sv->late_cap ? 2 * sv->late_cap : 16;
		struct late_flags *n = realloc(sv->late, cap * sizeof(*n));

		if (!n) {
			free(path);
			return -ENOMEM;
		}
		sv->late = n;
		sv->late_cap = cap;
	}
	h = malloc(sizeof(*h) + MAX_HANDLE_SZ);
	if (!h) {
		free(path);
		return -ENOMEM;
	}
	h->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", h, &mnt, AT_EMPTY_PATH)) {
		int err = errno;

		free(h);
		free(path);
		return -err;
	}
	l = &sv->late[sv->nlate++];
	l->ino = ino;
	l->flags = flags;
	l->handle = h;
	l->path = path;
	l->index = c ? c->index : 0;
	l->offset = c ? c->offset : 0;
	return 0;
}

void recv_free_late_flags(struct recv_subvol *sv)
{
	for (size_t i = 0; i < sv->nlate; i++) {
		free(sv->late[i].handle);
		free(sv->late[i].path);
	}
	free(sv->late);
	sv->late = NULL;
	sv->nlate = sv->late_cap = 0;
}

static int set_flags(int fd, unsigned int clear, unsigned int set)
{
	int old, new;

	if (ioctl(fd, FS_IOC_GETFLAGS, &old))
		return -errno;
	new = (int)(((unsigned int)old & ~clear) | set);
	if (new != old && ioctl(fd, FS_IOC_SETFLAGS, &new))
		return -errno;
	return 0;
}

/*
 * On a plain destination, after ret = set_flags(fd, MANAGED_FL, want):
 * make the inode hold as many of the flags in want as its filesystem does.  Some
 * filesystems refuse the whole set for one flag they lack (XFS and tmpfs:
 * EOPNOTSUPP), others drop such a flag silently (ext4: NOCOMP): so the
 * flags are set one at a time when the set was refused, then read back.
 * The flags in want that did not hold are left in *lost.
 */
static int set_flags_held(int fd, unsigned int want, int ret, unsigned int *lost)
{
	int got;

	if (ret) {
		unsigned int held = 0;

		ret = set_flags(fd, MANAGED_FL, 0);
		for (unsigned int bit = 1; !ret && bit && bit <= want; bit <<= 1) {
			if (!(want & bit))
				continue;
			ret = set_flags(fd, 0, bit);
			if (!ret)
				held |= bit;
			else if (ret == -EOPNOTSUPP || ret == -ENOTTY || ret == -EINVAL)
				ret = 0;
		}
		if (ret)
			return ret;
	}
	if (ioctl(fd, FS_IOC_GETFLAGS, &got))
		return errno == ENOTTY || errno == EOPNOTSUPP ? (*lost = want, 0) : -errno;
	*lost = want & ~(unsigned int)got;
	return 0;
}

int recv_apply_late_flags(struct recv *r)
{
	struct recv_subvol *sv = &r->sv;
	int ret = 0;

	for (size_t i = 0; i < sv->nlate; i++) {
		struct late_flags *l = &sv->late[i];
		int fd, err;

		if (!l->flags)
			continue;
		fd = open_by_handle_at(sv->root_fd, l->handle,
				       O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ESTALE)	/* deleted later in the stream */
				continue;
			err = -errno;
		} else {
			err = set_flags(fd, 0, l->flags);
			close(fd);
		}
		if (err && l->path) {
			/* Unprivileged, these flags are what a plain DEST skips. */
			if (recv_fail_at(r, BTRFS_SEND_C_FILEATTR, l->index, l->offset, l->path, -err,
					 "cannot set immutable/append-only flags") < 0 || sv->failed)
				ret = -1;
		} else if (err) {
			recv_error(r, "subvolume '%s': cannot set immutable/append-only flags of inode %" PRIu64 ": %s",
				   sv->name, l->ino, strerror(-err));
			sv->failed = true;
			r->errors++;
			ret = -1;
		}
	}
	return ret;
}

bool recv_unlock(struct recv *r, int dfd, const char *name)
{
	struct stat st;
	int fd = dfd, flags;
	bool done = false;

	if (*name) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
		    (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
			return false;
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return false;
	} else if (fstat(fd, &st)) {
		return false;
	}
	if (!ioctl(fd, FS_IOC_GETFLAGS, &flags) && (flags & LATE_FL)) {
		/* An entry exists if a FILEATTR already decided the end state. */
		if ((late_find(&r->sv, st.st_ino) ||
		     !late_set(&r->sv, fd, st.st_ino, flags & LATE_FL, NULL)) &&
		    !set_flags(fd, LATE_FL, 0)) {
			recv_info(r, 2, "inode %llu: immutable/append-only cleared until the subvolume is done",
				  (unsigned long long)st.st_ino);
			done = true;
		}
	}
	if (fd != dfd)
		close(fd);
	return done;
}

int recv_fileattr(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	unsigned int fs = recv_btrfs_to_fsflags(c->fileattr), lost = 0;
	struct fcache_ent *fe;
	const char *name;
	struct stat st;
	int ret, fd, dfd, own = -1;

	ret = target(r, c, &fd, &dfd, &name, &fe);
	if (ret <= 0)
		return ret;
	if (fe && recv_jobs_drain(r) < 0)
		return -1;
	if (fd < 0) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
			return recv_fail(r, c, c->path, errno, "cannot find inode");
		/* Flags exist for files and directories; never open anything else. */
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			recv_info(r, 2, "fileattr of '%s' ignored: not a file or directory", c->path);
			return 0;
		}
		own = fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return recv_fail(r, c, c->path, errno, "cannot open");
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	ret = set_flags(fd, MANAGED_FL, fs & ~LATE_FL);
	if (recv_may_skip(r) && (!ret || ret == -EOPNOTSUPP || ret == -ENOTTY || ret == -EINVAL))
		ret = set_flags_held(fd, fs & ~LATE_FL, ret, &lost);
	if (!ret)
		ret = late_set(&r->sv, fd, st.st_ino, fs & LATE_FL, c);
out:
	if (own >= 0)
		close(own);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot set inode flags %#" PRIx64 " (FS_*_FL %#x)",
				 c->fileattr, fs);
	if (lost)
		return recv_fail(r, c, c->path, EOPNOTSUPP, "cannot set inode flags FS_*_FL %#x of %#x",
				 lost, fs & ~LATE_FL);
	return 0;
}

/* ---------------------------------------------------------------------- */

int recv_enable_verity(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	struct fsverity_enable_arg arg = { .version = 1 };
	const char *name;
	int ret, dfd, fd;

	/* Verity refuses files open for writing: ours included. */
	fcache_close_all(&r->files);
	if (recv_jobs_drain(r) < 0)
		return -1;
	ret = recv_locate(r, c->path, c->attr[BTRFS_SEND_A_PATH].len, &dfd, &name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory");
	fd = recv_open_regular(dfd, name, O_RDONLY);
	if (fd < 0)
		return recv_fail(r, c, c->path, -fd, "cannot open");
	arg.hash_algorithm = c->verity_algorithm;
	arg.block_size = c->verity_block_size;
	arg.salt_size = c->verity_salt_len;
	arg.salt_ptr = (uintptr_t)c->verity_salt;
	arg.sig_size = c->verity_sig_len;
	arg.sig_ptr = (uintptr_t)c->verity_sig;
	ret = ioctl(fd, FS_IOC_ENABLE_VERITY, &arg);
	if (ret)
		ret = errno;
	close(fd);
	if (ret)
		return recv_fail(r, c, c->path, ret,
				 "cannot enable fs-verity (algorithm %u, block size %" PRIu32 ")",
				 c->verity_algorithm, c->verity_block_size);
	return 0;
}
