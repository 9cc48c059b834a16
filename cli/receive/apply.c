// SPDX-License-Identifier: GPL-2.0
/*
 * The commands that create, move and fill inodes, and the callback table
 * that receive hands to the stream reader.  Every path goes through
 * recv_path_invalid() and is then resolved with recv_locate() to a
 * directory descriptor (from the cache) and a last component, used with
 * *at() calls that never follow a symlink in that component.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../cli.h"
#include "receive.h"

/* ---------------------------------------------------------------------- */
/* Messages                                                                */

const char *recv_quote(char *buf, size_t size, const char *path)
{
	static const size_t keep = 120;	/* bytes shown at each end of long paths */
	size_t len = strlen(path), o = 0;

	for (size_t i = 0; i < len && o + 8 < size; i++) {
		unsigned char ch = path[i];

		if (len > 2 * keep + 16 && i == keep) {
			o += snprintf(buf + o, size - o, "...");
			i = len - keep - 1;
			continue;
		}
		if (ch == '\\')
			o += snprintf(buf + o, size - o, "\\\\");
		else if (ch < 0x20 || ch >= 0x7f || ch == '\'')
			o += snprintf(buf + o, size - o, "\\%03o", ch);
		else
			buf[o++] = ch;
	}
	buf[o] = 0;
	return buf;
}

void recv_error(struct recv *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", PROG, r->cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void recv_info(struct recv *r, int level, const char *fmt, ...)
{
	va_list ap;

	if (r->verbose < level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int vfail(struct recv *r, uint16_t cmd, uint64_t index, uint64_t offset,
		 const char *path, int err, const char *fmt, va_list ap)
{
	char q[320], what[512];

	vsnprintf(what, sizeof(what), fmt, ap);
	fprintf(stderr, "%s %s: command %" PRIu64 " (%s) at offset %" PRIu64 ": '%s': %s%s%s\n",
		PROG, r->cmd->name, index, bstream_cmd_name(cmd), offset,
		recv_quote(q, sizeof(q), path ? path : ""), what,
		err ? ": " : "", err ? strerror(err) : "");
	if (r->sv.active)
		r->sv.failed = true;
	r->errors++;
	return r->max_errors && r->errors >= r->max_errors ? -1 : 0;
}

int recv_fail(struct recv *r, const struct bstream_cmd *c, const char *path,
	      int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(r, c->cmd, c->index, c->offset, path, err, fmt, ap);
	va_end(ap);
	return ret;
}

int recv_fail_at(struct recv *r, uint16_t cmd, uint64_t index, uint64_t offset,
		 const char *path, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(r, cmd, index, offset, path, err, fmt, ap);
	va_end(ap);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Helpers                                                                 */

/*
 * Whether a command of a subvolume can run: 1 yes, 0 skip it (its
 * subvolume could not be created, already reported), -1 stop.
 */
int recv_in_subvol(struct recv *r, const struct bstream_cmd *c)
{
	r->n_cmds++;
	if (r->verbose >= 3)
		fprintf(stderr, "%s %s\n", bstream_cmd_name(c->cmd),
			c->path ? c->path : "");
	/* Errors of queued jobs (jobs.c) count from now. */
	if (r->jobs && recv_jobs_report(r) < 0)
		return -1;
	/* A held-back creation happens first, unless this moves it (do_rename). */
	if (r->pend.active &&
	    !(c->cmd == BTRFS_SEND_C_RENAME && r->pend.len == c->attr[BTRFS_SEND_A_PATH].len &&
	      !memcmp(r->pend.path, c->path, r->pend.len)) &&
	    recv_flush_pending(r) < 0)
		return -1;
	if (r->sv.active)
		return r->sv.created ? 1 : 0;
	return recv_fail(r, c, c->path, 0, "command outside of a subvolume (no subvol or snapshot command before it)") < 0 ? -1 : 0;
}

/* Validate attribute attr of c as a path; on failure report and return <= 0. */
int recv_check_path(struct recv *r, const struct bstream_cmd *c,
		      unsigned int attr, const char *path, bool allow_root)
{
	const char *why = recv_path_invalid(path, c->attr[attr].len, allow_root);

	if (!why)
		return 1;
	return recv_fail(r, c, path, 0, "refusing %s: %s", bstream_attr_name(attr), why) < 0 ? -1 : 0;
}

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

static const char *open_what(int err)
{
	switch (err) {
	case -ELOOP: return "cannot open: not a regular file (symlink)";
	case -EISDIR: return "cannot open: not a regular file (directory)";
	case -EINVAL: return "cannot open: not a regular file";
	default: return "cannot open";
	}
}

/* The clone source file, if it lies in the current subvolume, may have moved. */
static void src_file_forget(struct recv *r, const char *path, size_t len)
{
	size_t l;

	if (r->src_file_fd < 0 || r->src_file_root != r->sv.root_fd)
		return;
	l = strlen(r->src_file_path);
	if (l >= len && !memcmp(r->src_file_path, path, len) &&
	    (l == len || r->src_file_path[len] == '/')) {
		close(r->src_file_fd);
		free(r->src_file_path);
		r->src_file_fd = -1;
		r->src_file_path = NULL;
	}
}

/* ---------------------------------------------------------------------- */
/* Creating inodes                                                         */

/* Create the inode of c at name beneath dfd: 0 or errno, *what on failure. */
static int create(struct recv *r, const struct bstream_cmd *c, int dfd,
		  const char *name, const char **what)
{
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	int fd;

	switch (c->cmd) {
	case BTRFS_SEND_C_MKFILE:
		*what = "cannot create file";
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return errno;
		fcache_put(&r->files, c->path, len, fd);
		fcache_find(&r->files, c->path, len)->mode = 0600;
		return 0;
	case BTRFS_SEND_C_MKDIR:
		*what = "cannot create directory";
		return mkdirat(dfd, name, 0700) ? errno : 0;
	case BTRFS_SEND_C_MKNOD:
		*what = "cannot create device node";
		return mknodat(dfd, name, c->mode & S_IFMT, (dev_t)c->rdev) ? errno : 0;
	case BTRFS_SEND_C_MKFIFO:
		*what = "cannot create fifo";
		return mknodat(dfd, name, S_IFIFO | 0600, 0) ? errno : 0;
	case BTRFS_SEND_C_MKSOCK:
		*what = "cannot create socket";
		return mknodat(dfd, name, S_IFSOCK | 0600, 0) ? errno : 0;
	default:
		*what = "cannot create symlink";
		return symlinkat(c->path_link, dfd, name) ? errno : 0;
	}
}

void recv_drop_pending(struct recv *r)
{
	free(r->pend.path);
	free(r->pend.link);
	memset(&r->pend, 0, sizeof(r->pend));
}

/* A command like the held-back one, creating at path (len bytes). */
static void pending_cmd(const struct recv_pending *p, struct bstream_cmd *c,
			const char *path, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->cmd = p->cmd;
	c->known = true;
	c->index = p->index;
	c->offset = p->offset;
	c->path = path;
	c->attr[BTRFS_SEND_A_PATH].len = len;
	c->path_link = p->link;
	c->mode = p->mode;
	c->rdev = p->rdev;
}

static const char no_parent[] = "cannot open parent directory";

/* Create c's inode at c->path; 0, or errno with *what. */
static int create_at(struct recv *r, const struct bstream_cmd *c, const char **what)
{
	const char *name;
	int ret, dfd, err;

	ret = recv_locate(r, c->path, c->attr[BTRFS_SEND_A_PATH].len, &dfd, &name);
	if (ret) {
		*what = no_parent;
		return -ret;
	}
	for (int tries = 0;; tries++) {
		err = create(r, c, dfd, name, what);
		if (!err || tries || err != EPERM || !recv_unlock(r, dfd, ""))
			break;
	}
	return err;
}

int recv_flush_pending(struct recv *r)
{
	struct bstream_cmd c;
	const char *what;
	int err;

	if (!r->pend.active)
		return 0;
	pending_cmd(&r->pend, &c, r->pend.path, r->pend.len);
	err = create_at(r, &c, &what);
	r->pend.active = false;
	err = err ? recv_fail(r, &c, c.path, err, "%s", what) : 0;
	recv_drop_pending(r);
	return err;
}

/*
 * Whether creating an inode in directory path_to's parent gives the same
 * inode as creating it in the root and moving it there: yes for the root
 * itself, and where neither directory passes anything on to new inodes
 * (ACLs, setgid group, flags, properties).
 */
static bool same_as_moved(struct recv *r, const char *path, size_t len)
{
	size_t slash = recv_last_slash(path, len);

	if (!slash)
		return true;
	if (r->sv.root_plain < 0)
		r->sv.root_plain = recv_dir_is_plain(r->sv.root_fd);
	return r->sv.root_plain && dcache_plain(r->sv.dc, path, slash) > 0;
}

/*
 * RENAME of the held-back inode: create it at the new name, or, if that
 * name exists (a rename would replace it) or the new directory would give
 * it something the root does not, at its own name and let the rename go
 * on.  Returns 1 when done, 0 to rename, -1 to stop.
 */
static int rename_pending(struct recv *r, const struct bstream_cmd *c)
{
	size_t tlen = c->attr[BTRFS_SEND_A_PATH_TO].len;
	struct bstream_cmd nc;
	const char *what;
	int err;

	if (!same_as_moved(r, c->path_to, tlen))
		return recv_flush_pending(r) < 0 ? -1 : 0;
	pending_cmd(&r->pend, &nc, c->path_to, tlen);
	err = create_at(r, &nc, &what);
	if (err == EEXIST)
		return recv_flush_pending(r) < 0 ? -1 : 0;
	recv_drop_pending(r);
	if (err)
		return recv_fail(r, c, c->path_to, err, "%s",
				 what == no_parent ? "cannot open parent directory of the new name" : what) < 0 ? -1 : 1;
	return 1;
}

static int make_inode(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	struct recv_pending *p = &r->pend;
	int ret;

	ret = recv_in_subvol(r, c);
	if (ret <= 0)
		return ret;
	ret = recv_check_path(r, c, BTRFS_SEND_A_PATH, c->path, false);
	if (ret <= 0)
		return ret;
	if (c->cmd == BTRFS_SEND_C_SYMLINK &&
	    strlen(c->path_link) != c->attr[BTRFS_SEND_A_PATH_LINK].len)
		return recv_fail(r, c, c->path, 0, "refusing symlink target: contains a NUL byte");
	p->path = malloc(len + 1);
	p->link = c->path_link ? strdup(c->path_link) : NULL;
	if (!p->path || (c->path_link && !p->link)) {
		recv_drop_pending(r);
		return recv_fail(r, c, c->path, ENOMEM, "cannot create");
	}
	memcpy(p->path, c->path, len + 1);
	p->len = len;
	p->cmd = c->cmd;
	p->index = c->index;
	p->offset = c->offset;
	p->mode = c->mode;
	p->rdev = c->rdev;
	p->active = true;
	return 0;
}

/* After EPERM on a namespace change: unlock both directories and inodes. */
static bool unlock_names(struct recv *r, int err, int d1, const char *n1,
			 int d2, const char *n2)
{
	bool any = false;

	if (err != EPERM)
		return false;
	any |= recv_unlock(r, d1, "");
	any |= d2 != d1 && recv_unlock(r, d2, "");
	any |= n1 && recv_unlock(r, d1, n1);
	any |= n2 && recv_unlock(r, d2, n2);
	return any;
}

/* ---------------------------------------------------------------------- */
/* Names                                                                   */

static int do_rename(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t flen = c->attr[BTRFS_SEND_A_PATH].len;
	size_t tlen = c->attr[BTRFS_SEND_A_PATH_TO].len;
	const char *fname, *tname;
	int ret, fdfd, tdfd, err;

	ret = recv_in_subvol(r, c);
	if (ret <= 0)
		return ret;
	ret = recv_check_path(r, c, BTRFS_SEND_A_PATH, c->path, false);
	if (ret > 0)
		ret = recv_check_path(r, c, BTRFS_SEND_A_PATH_TO, c->path_to, false);
	if (ret <= 0) {
		/* The creation held back for this name is valid on its own. */
		if (recv_flush_pending(r) < 0)
			return -1;
		return ret;
	}
	/* Still held back here only if it is this command's PATH. */
	if (r->pend.active) {
		ret = rename_pending(r, c);
		if (ret)
			return ret < 0 ? -1 : 0;
	}
	ret = recv_locate(r, c->path, flen, &fdfd, &fname);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory");
	ret = recv_locate(r, c->path_to, tlen, &tdfd, &tname);
	if (ret)
		return recv_fail(r, c, c->path_to, -ret, "cannot open parent directory of the new name");
	for (int tries = 0;; tries++) {
		err = renameat(fdfd, fname, tdfd, tname) ? errno : 0;
		if (!err || tries || !unlock_names(r, err, fdfd, fname, tdfd, tname))
			break;
	}
	if (err) {
		char q[320];

		return recv_fail(r, c, c->path, err, "cannot rename to '%s'",
				 recv_quote(q, sizeof(q), c->path_to));
	}
	dcache_renamed(r->sv.dc, c->path, flen, c->path_to, tlen);
	fcache_renamed(&r->files, c->path, flen, c->path_to, tlen);
	src_file_forget(r, c->path, flen);
	src_file_forget(r, c->path_to, tlen);
	return 0;
}

static int do_link(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	size_t olen = c->attr[BTRFS_SEND_A_PATH_LINK].len;
	const char *name, *oname;
	int ret, dfd, odfd, err;

	ret = recv_in_subvol(r, c);
	if (ret <= 0)
		return ret;
	ret = recv_check_path(r, c, BTRFS_SEND_A_PATH, c->path, false);
	if (ret > 0)
		ret = recv_check_path(r, c, BTRFS_SEND_A_PATH_LINK, c->path_link, false);
	if (ret <= 0)
		return ret;
	ret = recv_locate(r, c->path_link, olen, &odfd, &oname);
	if (ret)
		return recv_fail(r, c, c->path_link, -ret, "cannot open parent directory of the link target");
	ret = recv_locate(r, c->path, len, &dfd, &name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory");
	/* Flags 0: a symlink target is linked itself, never followed. */
	for (int tries = 0;; tries++) {
		err = linkat(odfd, oname, dfd, name, 0) ? errno : 0;
		if (!err || tries || !unlock_names(r, err, dfd, NULL, odfd, oname))
			break;
	}
	if (err) {
		char q[320];

		return recv_fail(r, c, c->path, err, "cannot link to '%s'",
				 recv_quote(q, sizeof(q), c->path_link));
	}
	return 0;
}

static int do_remove(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	bool dir = c->cmd == BTRFS_SEND_C_RMDIR;
	const char *name;
	int ret, dfd, err;

	ret = recv_in_subvol(r, c);
	if (ret <= 0)
		return ret;
	ret = recv_check_path(r, c, BTRFS_SEND_A_PATH, c->path, false);
	if (ret <= 0)
		return ret;
	ret = recv_locate(r, c->path, len, &dfd, &name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory");
	for (int tries = 0;; tries++) {
		err = unlinkat(dfd, name, dir ? AT_REMOVEDIR : 0) ? errno : 0;
		if (!err || tries || !unlock_names(r, err, dfd, name, dfd, NULL))
			break;
	}
	if (err)
		return recv_fail(r, c, c->path, err, dir ? "cannot remove directory" : "cannot unlink");
	if (dir)
		dcache_removed(r->sv.dc, c->path, len);
	else
		fcache_removed(&r->files, c->path, len);
	src_file_forget(r, c->path, len);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Data                                                                    */

/* pwrite all of buf; 0 or -errno. */
static int write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	if (off > INT64_MAX || len > INT64_MAX - off)
		return -EFBIG;
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* Open the file of c->path for writing, reporting failures. */
int recv_data_fd(struct recv *r, const struct bstream_cmd *c, int *fd)
{
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	const char *name;
	int dfd, ret = recv_in_subvol(r, c);

	if (ret <= 0)
		return ret;
	ret = recv_check_path(r, c, BTRFS_SEND_A_PATH, c->path, false);
	if (ret <= 0)
		return ret;
	*fd = fcache_get(&r->files, c->path, len);
	if (*fd >= 0)
		return 1;
	ret = recv_locate(r, c->path, len, &dfd, &name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory") < 0 ? -1 : 0;
	*fd = recv_open_regular(dfd, name, O_WRONLY);
	if (*fd == -EPERM && recv_unlock(r, dfd, name))
		*fd = recv_open_regular(dfd, name, O_WRONLY);
	if (*fd < 0)
		return recv_fail(r, c, c->path, -*fd, "%s", open_what(*fd)) < 0 ? -1 : 0;
	fcache_put(&r->files, c->path, len, *fd);
	return 1;
}

int recv_write_data(struct recv *r, const struct bstream_cmd *c, int fd,
		    const void *buf, size_t len, uint64_t off)
{
	int ret = write_all(fd, buf, len, off);

	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot write %zu bytes at offset %" PRIu64, len, off);
	return 0;
}

static int do_write(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	int fd, ret;

	ret = recv_data_fd(r, c, &fd);
	if (ret <= 0)
		return ret;
	r->n_writes++;
	if (r->jobs && c->file_offset <= INT64_MAX && c->data_len <= INT64_MAX - c->file_offset) {
		struct job *j = recv_job_new(c, J_WRITE, fd, c->data_len);

		if (j) {
			recv_job_set(j, c->file_offset, 0, -1, NULL, NULL, c->data);
			recv_job_push(r, j);
			return 0;
		}
	}
	return recv_write_data(r, c, fd, c->data, c->data_len, c->file_offset);
}

/* Plain-directory test mode: copy where the filesystem cannot clone. */
static int copy_range(int dst, uint64_t doff, int src, uint64_t soff, uint64_t len)
{
	loff_t in = soff, out = doff;

	while (len) {
		ssize_t n = copy_file_range(src, &in, dst, &out, len > (1 << 30) ? (1 << 30) : len, 0);

		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len -= n;
	}
	return 0;
}

static int do_clone(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	size_t slen = c->attr[BTRFS_SEND_A_CLONE_PATH].len;
	struct file_clone_range range;
	struct dcache *sdc = NULL;
	char why[512], q[320];
	int fd, ret, root, sfd;

	ret = recv_data_fd(r, c, &fd);
	if (ret <= 0)
		return ret;
	ret = recv_check_path(r, c, BTRFS_SEND_A_CLONE_PATH, c->clone_path, false);
	if (ret <= 0)
		return ret;
	r->n_clones++;
	/* Both files' queued writes must be on disk first. */
	if (recv_jobs_drain(r) < 0)
		return -1;
	root = recv_clone_source(r, c, &sdc, why, sizeof(why));
	if (root < 0)
		return recv_fail(r, c, c->path, -root, "clone source: %s", why);

	if (r->src_file_fd >= 0 && r->src_file_root == root &&
	    !strcmp(r->src_file_path, c->clone_path)) {
		sfd = r->src_file_fd;
	} else {
		size_t slash = recv_last_slash(c->clone_path, slen);
		const char *name = slash ? c->clone_path + slash + 1 : c->clone_path;
		int dfd = slash ? dcache_dir(sdc, c->clone_path, slash) : root;
		char *copy;

		if (dfd < 0)
			return recv_fail(r, c, c->path, -dfd, "cannot open directory of clone source '%s'",
					 recv_quote(q, sizeof(q), c->clone_path));
		/* Reading a clone source must not change its atime. */
		sfd = recv_open_regular(dfd, name, O_RDONLY | O_NOATIME);
		if (sfd == -EPERM)
			sfd = recv_open_regular(dfd, name, O_RDONLY);
		if (sfd < 0)
			return recv_fail(r, c, c->path, -sfd, "clone source '%s': %s",
					 recv_quote(q, sizeof(q), c->clone_path), open_what(sfd));
		copy = strdup(c->clone_path);
		if (!copy) {
			close(sfd);
			return recv_fail(r, c, c->path, ENOMEM, "clone");
		}
		if (r->src_file_fd >= 0)
			close(r->src_file_fd);
		free(r->src_file_path);
		r->src_file_fd = sfd;
		r->src_file_root = root;
		r->src_file_path = copy;
	}

	range.src_fd = sfd;
	range.src_offset = c->clone_offset;
	range.src_length = c->clone_len;
	range.dest_offset = c->file_offset;
	if (!ioctl(fd, FICLONERANGE, &range))
		return 0;
	ret = -errno;
	if (r->plain && (ret == -EOPNOTSUPP || ret == -EXDEV || ret == -EINVAL ||
			 ret == -ENOTTY))
		ret = copy_range(fd, c->file_offset, sfd, c->clone_offset, c->clone_len);
	if (!ret)
		return 0;
	return recv_fail(r, c, c->path, -ret,
			 "cannot clone %" PRIu64 " bytes at offset %" PRIu64 " from '%s' offset %" PRIu64,
			 c->clone_len, c->file_offset,
			 recv_quote(q, sizeof(q), c->clone_path), c->clone_offset);
}

static int do_truncate(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	int fd, ret;

	ret = recv_data_fd(r, c, &fd);
	if (ret <= 0)
		return ret;
	if (c->size > INT64_MAX)
		return recv_fail(r, c, c->path, EFBIG, "cannot truncate to %" PRIu64, c->size);
	if (r->jobs) {
		struct job *j = recv_job_new(c, J_TRUNCATE, fd, 0);

		if (j) {
			recv_job_set(j, c->size, 0, -1, NULL, NULL, NULL);
			recv_job_push(r, j);
			return 0;
		}
		if (recv_jobs_drain(r) < 0)
			return -1;
	}
	if (ftruncate(fd, (off_t)c->size))
		return recv_fail(r, c, c->path, errno, "cannot truncate to %" PRIu64, c->size);
	return 0;
}

static int do_fallocate(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	int fd, ret;

	ret = recv_data_fd(r, c, &fd);
	if (ret <= 0)
		return ret;
	if (c->file_offset > INT64_MAX || c->size > INT64_MAX - c->file_offset)
		return recv_fail(r, c, c->path, EFBIG, "fallocate range out of bounds");
	if (recv_jobs_drain(r) < 0)
		return -1;
	if (fallocate(fd, (int)c->fallocate_mode, (off_t)c->file_offset, (off_t)c->size))
		return recv_fail(r, c, c->path, errno,
				 "cannot fallocate (mode %#x) %" PRIu64 " bytes at offset %" PRIu64,
				 c->fallocate_mode, c->size, c->file_offset);
	return 0;
}

/* No data to write: only check that the command names a regular file. */
static int do_update_extent(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	const char *name;
	struct stat st;
	int ret, dfd;

	ret = recv_in_subvol(r, c);
	if (ret <= 0)
		return ret;
	ret = recv_check_path(r, c, BTRFS_SEND_A_PATH, c->path, false);
	if (ret <= 0)
		return ret;
	if (c->file_offset > INT64_MAX || c->size > INT64_MAX - c->file_offset)
		return recv_fail(r, c, c->path, EFBIG, "extent range out of bounds");
	ret = recv_locate(r, c->path, c->attr[BTRFS_SEND_A_PATH].len, &dfd, &name);
	if (ret)
		return recv_fail(r, c, c->path, -ret, "cannot open parent directory");
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return recv_fail(r, c, c->path, errno, "cannot find file");
	if (!S_ISREG(st.st_mode))
		return recv_fail(r, c, c->path, 0, "not a regular file");
	return 0;
}

static int do_unknown(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;

	recv_info(r, 2, "skipping unknown command %u at offset %" PRIu64, c->cmd, c->offset);
	return 0;
}

const struct bstream_ops recv_ops = {
	.subvol = recv_subvol,
	.snapshot = recv_snapshot,
	.mkfile = make_inode,
	.mkdir = make_inode,
	.mknod = make_inode,
	.mkfifo = make_inode,
	.mksock = make_inode,
	.symlink = make_inode,
	.rename = do_rename,
	.link = do_link,
	.unlink = do_remove,
	.rmdir = do_remove,
	.set_xattr = recv_set_xattr,
	.remove_xattr = recv_remove_xattr,
	.write = do_write,
	.clone = do_clone,
	.truncate = do_truncate,
	.chmod = recv_chmod,
	.chown = recv_chown,
	.utimes = recv_utimes,
	.end = recv_end,
	.update_extent = do_update_extent,
	.fallocate = do_fallocate,
	.fileattr = recv_fileattr,
	.encoded_write = recv_encoded_write,
	.enable_verity = recv_enable_verity,
	.unknown = do_unknown,
};
