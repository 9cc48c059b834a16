// SPDX-License-Identifier: GPL-2.0
/*
 * extract: write the model's tree, or some subtrees of it, beneath a
 * directory, as plain files: what receive's plain backend would leave,
 * without a receive record.
 *
 * Confinement is receive's: every directory is opened beneath DIR with
 * recv_walk_dir() (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), and the
 * last component only ever goes to *at() calls that create it exclusively
 * or do not follow it.  The model's names were checked on the way in (no
 * '/', '.', '..'), so nothing can land outside DIR, even where DIR already
 * holds symlinks.
 *
 * Order: directories are written top-down, one at a time, with their
 * entries; a file gets its data, then xattrs, owner, mode, capability and
 * times (chown clears setuid and capabilities, as on the sender).
 * Directories get their metadata at the end, deepest first, so that a
 * read-only or timestamped directory is finished after its content;
 * inode flags come last of all (an immutable file refuses another name).
 *
 * What DIR cannot hold (owners and devices as an ordinary user, some
 * xattrs, inode flags) is counted and summed up per kind as receive's
 * plain backend does (cli/receive/skips.c), unless --strict.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "archive.h"
#include "../cli.h"
#include "../receive/receive.h"

/* The flags FILEATTR decides; others are left as the filesystem has them. */
#define MANAGED_FL (FS_NOCOW_FL | FS_NOCOMP_FL | FS_SYNC_FL | FS_IMMUTABLE_FL | \
		    FS_APPEND_FL | FS_NODUMP_FL | FS_NOATIME_FL | FS_DIRSYNC_FL | \
		    FS_COMPR_FL)

/* receive's kinds (SKIP_*), and device nodes, which receive does not skip. */
enum { SKIP_DEVICES = SKIP_KINDS, NKINDS };

/* Something to finish later: a directory's metadata, an inode's flags. */
struct later {
	struct ar_inode *ino;
	char *path;
};

struct later_list {
	struct later *v;
	size_t n, cap;
};

struct xt {
	struct ar *a;
	const struct ar_extract_opts *o;
	int dirfd;
	struct ar_reader rd;
	uint64_t errors;
	uint64_t nskip[NKINDS];
	char *first[NKINDS][SKIP_PATHS_SHOWN];
	struct later_list dirs, flags, marked;
	const char *cur_path;	/* for the data writer's messages */
	int cur_fd;
};

__attribute__((format(printf, 4, 5)))
static void fail(struct xt *x, const char *path, int err, const char *fmt, ...)
{
	char q[320], what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s %s: '%s': %s%s%s\n", PROG, x->a->cmd->name,
		ar_quote(q, sizeof(q), path), what, err ? ": " : "", err ? strerror(err) : "");
	x->errors++;
}

/* A failure DIR could not avoid: counted (true), or an error (false). */
static bool skip(struct xt *x, int kind, const char *path)
{
	if (x->o->strict || kind < 0)
		return false;
	if (x->nskip[kind] < SKIP_PATHS_SHOWN)
		x->first[kind][x->nskip[kind]] = strdup(path);
	x->nskip[kind]++;
	return true;
}

static void report_skips(struct xt *x)
{
	for (int k = 0; k < NKINDS; k++) {
		char paths[3 * 330] = "", q[320];
		size_t o = 0;

		if (!x->nskip[k])
			continue;
		for (uint64_t i = 0; i < x->nskip[k] && i < SKIP_PATHS_SHOWN; i++)
			o += snprintf(paths + o, sizeof(paths) - o, "%s'%s'", i ? ", " : "",
				      ar_quote(q, sizeof(q), x->first[k][i] ? x->first[k][i] : ""));
		fprintf(stderr, "%s %s: subvolume '%s': %s could not hold %" PRIu64 " %s (%s%s); "
			"--strict makes this an error\n", PROG, x->a->cmd->name, x->a->sv.name,
			x->o->dir, x->nskip[k],
			k == SKIP_DEVICES ? "device nodes" : recv_skip_kind_name(k), paths,
			x->nskip[k] > SKIP_PATHS_SHOWN ? ", ..." : "");
		for (int i = 0; i < SKIP_PATHS_SHOWN; i++)
			free(x->first[k][i]);
	}
}

static int later_add(struct later_list *l, struct ar_inode *ino, const char *path)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct later *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].path = strdup(path);
	if (!l->v[l->n].path)
		return -1;
	l->v[l->n++].ino = ino;
	return 0;
}

static void later_free(struct later_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
}

/* ---------------------------------------------------------------------- */
/* Paths beneath DIR                                                       */

/* The directory holding path's last component: its fd (or dirfd) and name. */
static int open_parent(struct xt *x, const char *path, const char **name)
{
	size_t slash = recv_last_slash(path, strlen(path));
	int fd;

	if (!strchr(path, '/')) {
		*name = path;
		fd = fcntl(x->dirfd, F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	*name = path + slash + 1;
	fd = recv_walk_dir(x->dirfd, path, slash);
	return fd;
}

/* The directory at path ("" is DIR itself), or -errno. */
static int open_dir(struct xt *x, const char *path)
{
	if (!*path) {
		int fd = fcntl(x->dirfd, F_DUPFD_CLOEXEC, 0);

		return fd < 0 ? -errno : fd;
	}
	return recv_walk_dir(x->dirfd, path, strlen(path));
}

/*
 * The directories on the way to a selected path that DIR lacks are made
 * plainly (the selection does not hold them, as with tar).
 */
static int make_way(struct xt *x, const char *path)
{
	size_t len = recv_last_slash(path, strlen(path));
	int cur = -1, ret = 0;

	if (!strchr(path, '/'))
		return 0;
	for (size_t o = 0; o < len && !ret;) {
		const char *s = memchr(path + o, '/', len - o);
		size_t n = (s ? (size_t)(s - path) : len) - o;
		char *comp = strndup(path + o, n);
		int base = cur >= 0 ? cur : x->dirfd, fd;

		if (!comp)
			return -ENOMEM;
		if (mkdirat(base, comp, 0777) && errno != EEXIST)
			ret = -errno;
		fd = ret ? -1 : openat(base, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (!ret && fd < 0)
			ret = -errno;
		free(comp);
		if (cur >= 0)
			close(cur);
		cur = fd;
		o += n + 1;
	}
	if (cur >= 0)
		close(cur);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Metadata                                                                */

static bool is_capability(const struct ar_xattr *xa)
{
	return !strcmp(xa->name, "security.capability");
}

/*
 * Set the xattrs of an inode (fd >= 0, else name in dfd, never followed),
 * capability (last) or all others.
 */
static void set_xattrs(struct xt *x, const struct ar_inode *ino, int fd, int dfd,
		       const char *name, const char *path, bool capability)
{
	for (const struct ar_xattr *xa = ino->xattrs; xa; xa = xa->next) {
		int ret;

		if (is_capability(xa) != capability)
			continue;
		if (fd >= 0) {
			ret = fsetxattr(fd, xa->name, xa->value, xa->vlen, 0);
		} else {
			/* No lsetxattrat(): go to the directory instead. */
			ret = fchdir(dfd);
			if (!ret)
				ret = lsetxattr(name, xa->name, xa->value, xa->vlen, 0);
		}
		if (ret && !skip(x, recv_skip_kind(BTRFS_SEND_C_SET_XATTR, errno), path)) {
			char q[320];

			fail(x, path, errno, "cannot set xattr '%s'", ar_quote(q, sizeof(q), xa->name));
		}
	}
}

/*
 * Owner, xattrs, mode and times of an inode, by fd when there is one
 * (files, directories), else by name in dfd.  The top directory keeps
 * what the stream did not set, as receive leaves it.
 */
static void set_meta(struct xt *x, const struct ar_inode *ino, int fd, int dfd,
		     const char *name, const char *path, bool top)
{
	struct timespec ts[2];

	set_xattrs(x, ino, fd, dfd, name, path, false);
	if (ino->flags & AR_I_OWNER_SET) {
		int ret = fd >= 0 ? fchown(fd, ino->uid, ino->gid) :
			  fchownat(dfd, name, ino->uid, ino->gid, AT_SYMLINK_NOFOLLOW);

		if (ret && !skip(x, recv_skip_kind(BTRFS_SEND_C_CHOWN, errno), path))
			fail(x, path, errno, "cannot change owner to %" PRIu32 ":%" PRIu32,
			     ino->uid, ino->gid);
	}
	if (!S_ISLNK(ino->mode) && (!top || (ino->flags & AR_I_MODE_SET))) {
		/* fchmodat() follows symlinks: this is not one, we made it. */
		int ret = fd >= 0 ? fchmod(fd, ino->mode & 07777) :
			  fchmodat(dfd, name, ino->mode & 07777, 0);

		if (ret)
			fail(x, path, errno, "cannot change mode to %04o", ino->mode & 07777);
	}
	set_xattrs(x, ino, fd, dfd, name, path, true);
	if (ino->flags & AR_I_TIMES_SET) {
		int ret;

		ts[0].tv_sec = ino->atime_sec;
		ts[0].tv_nsec = ino->atime_nsec;
		ts[1].tv_sec = ino->mtime_sec;
		ts[1].tv_nsec = ino->mtime_nsec;
		ret = fd >= 0 ? futimens(fd, ts) : utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW);
		if (ret)
			fail(x, path, errno, "cannot set times");
	}
	if ((ino->flags & AR_I_FLAGS_SET) && (S_ISREG(ino->mode) || S_ISDIR(ino->mode)) &&
	    later_add(&x->flags, (struct ar_inode *)ino, path))
		fail(x, path, ENOMEM, "cannot remember inode flags");
}

static void set_flags(struct xt *x, const struct later *l)
{
	unsigned int want = recv_btrfs_to_fsflags(l->ino->fileattr);
	const char *name;
	int dfd, fd, ret = 0, old, new;

	dfd = *l->path ? open_parent(x, l->path, &name) : open_dir(x, "");
	if (dfd < 0) {
		fail(x, l->path, -dfd, "cannot open parent directory");
		return;
	}
	if (*l->path)
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	else
		fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		fail(x, l->path, errno, "cannot open");
		close(dfd);
		return;
	}
	if (ioctl(fd, FS_IOC_GETFLAGS, &old)) {
		ret = errno;
	} else {
		new = (int)(((unsigned int)old & ~MANAGED_FL) | want);
		if (new != old && ioctl(fd, FS_IOC_SETFLAGS, &new))
			ret = errno;
	}
	if (ret && !skip(x, recv_skip_kind(BTRFS_SEND_C_FILEATTR, ret), l->path))
		fail(x, l->path, ret, "cannot set inode flags %#" PRIx64 " (FS_*_FL %#x)",
		     l->ino->fileattr, want);
	close(fd);
	close(dfd);
}

/* ---------------------------------------------------------------------- */
/* Entries                                                                 */

static int out_pwrite(void *ctx, const void *buf, size_t len, uint64_t off)
{
	struct xt *x = ctx;

	while (len) {
		ssize_t n = pwrite(x->cur_fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			char q[320];

			snprintf(x->a->err, sizeof(x->a->err),
				 "'%s': cannot write %zu bytes at offset %" PRIu64 ": %s",
				 ar_quote(q, sizeof(q), x->cur_path), len, off, strerror(errno));
			return -1;
		}
		buf = (const uint8_t *)buf + n;
		off += n;
		len -= n;
	}
	return 0;
}

static void make_file(struct xt *x, struct ar_inode *ino, int dfd, const char *name,
		      const char *path)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0) {
		fail(x, path, errno, "cannot create");
		return;
	}
	x->cur_fd = fd;
	x->cur_path = path;
	if (ar_read_file(&x->rd, ino, false, out_pwrite, x)) {
		fprintf(stderr, "%s %s: %s\n", PROG, x->a->cmd->name, x->a->err);
		x->errors++;
	} else if (ftruncate(fd, (off_t)ino->size)) {
		fail(x, path, errno, "cannot set size %" PRIu64, ino->size);
	}
	set_meta(x, ino, fd, dfd, name, path, false);
	close(fd);
}

/* Another name of an inode written before: a hard link to its first name. */
static void make_link(struct xt *x, struct ar_inode *ino, int dfd, const char *name,
		      const char *path)
{
	const char *first = ino->mark, *fname;
	int fdir = open_parent(x, first, &fname);

	if (fdir < 0) {
		fail(x, path, -fdir, "cannot open the directory of '%s'", first);
		return;
	}
	if (linkat(fdir, fname, dfd, name, 0))
		fail(x, path, errno, "cannot link to '%s'", first);
	close(fdir);
}

static void make_special(struct xt *x, struct ar_inode *ino, int dfd, const char *name,
			 const char *path)
{
	int ret;

	if (S_ISLNK(ino->mode))
		ret = symlinkat(ino->u.target, dfd, name);
	else
		ret = mknodat(dfd, name, (ino->mode & S_IFMT) | 0600, (dev_t)ino->rdev);
	if (ret) {
		bool dev = S_ISCHR(ino->mode) || S_ISBLK(ino->mode);

		if (!(dev && errno == EPERM && skip(x, SKIP_DEVICES, path)))
			fail(x, path, errno, "cannot create");
		return;
	}
	set_meta(x, ino, -1, dfd, name, path, false);
}

/*
 * Write entry (dfd, name) of ino at path; a directory is made and put on
 * the queue.  Returns -1 only when out of memory.
 */
static int make_entry(struct xt *x, struct ar_inode *ino, int dfd, const char *name,
		      const char *path, struct later_list *queue)
{
	if (S_ISDIR(ino->mode)) {
		struct stat st;

		/* A directory made on the way to a selected path is reused. */
		if (mkdirat(dfd, name, 0700) &&
		    (errno != EEXIST || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
		     !S_ISDIR(st.st_mode))) {
			fail(x, path, errno, "cannot create directory");
			return 0;
		}
		return later_add(queue, ino, path);
	}
	if (ino->flags & AR_I_SEEN) {
		make_link(x, ino, dfd, name, path);
		return 0;
	}
	if (S_ISREG(ino->mode))
		make_file(x, ino, dfd, name, path);
	else
		make_special(x, ino, dfd, name, path);
	if (ino->nlink > 1) {
		ino->mark = strdup(path);
		if (!ino->mark || later_add(&x->marked, ino, path))
			return -1;
		ino->flags |= AR_I_SEEN;
	}
	return 0;
}

/* The entries of the directories queued, breadth first; their own metadata later. */
static int fill(struct xt *x, struct later_list *queue)
{
	char *path = NULL;
	size_t cap = 0;
	int ret = 0;

	for (size_t qi = 0; qi < queue->n && !ret; qi++) {
		struct later d = queue->v[qi];
		struct ar_dirent **kids;
		uint64_t n;
		bool nomem;
		int fd;

		if (later_add(&x->dirs, d.ino, d.path)) {
			ret = -1;
			break;
		}
		fd = open_dir(x, d.path);
		if (fd < 0) {
			fail(x, *d.path ? d.path : ".", -fd, "cannot open directory");
			continue;
		}
		kids = ar_sorted_children(d.ino, &n, &nomem);
		for (uint64_t i = 0; i < n && !ret; i++) {
			if (ar_path_of(kids[i], &path, &cap) < 0)
				ret = -1;
			else
				ret = make_entry(x, kids[i]->ino, fd, kids[i]->name, path, queue);
		}
		if (nomem)
			ret = -1;
		free(kids);
		close(fd);
	}
	free(path);
	return ret;
}

/* Directories' metadata, deepest (last made) first; then inode flags. */
static void finish(struct xt *x)
{
	for (size_t i = x->dirs.n; i-- > 0;) {
		const struct later *d = &x->dirs.v[i];
		int fd = open_dir(x, d->path);

		if (fd < 0) {
			fail(x, *d->path ? d->path : ".", -fd, "cannot open directory");
			continue;
		}
		set_meta(x, d->ino, fd, -1, NULL, *d->path ? d->path : ".", !*d->path);
		close(fd);
	}
	for (size_t i = 0; i < x->flags.n; i++)
		set_flags(x, &x->flags.v[i]);
}

/* Whether entry e lies beneath one of the selected entries. */
static bool covered(struct ar_dirent *const *sel, int nsel, const struct ar_dirent *e)
{
	for (e = e->dir->u.dir.up; e; e = e->dir->u.dir.up)
		for (int i = 0; i < nsel; i++)
			if (sel[i] == e)
				return true;
	return false;
}

int ar_extract(struct ar *a, const struct ar_extract_opts *o)
{
	struct xt x = { .a = a, .o = o, .rd = { .a = a } };
	struct later_list queue = { 0 };
	struct ar_dirent **sel = NULL;
	bool root_selected = !o->npaths;
	char q[320];
	int nsel = o->npaths, ret = 0;

	x.dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x.dirfd < 0) {
		cli_error(a->cmd, "cannot open '%s': %s", o->dir, strerror(errno));
		return 1;
	}
	if (a->no_data)
		cli_error(a->cmd, "warning: the stream was sent without file data (--no-data): "
			  "what it changed is written as it was or as zeros");
	sel = calloc(nsel ? nsel : 1, sizeof(*sel));
	if (!sel)
		goto nomem;
	for (int i = 0; i < nsel; i++) {
		const char *why;
		struct ar_inode *ino = ar_resolve(a->model, o->paths[i], strlen(o->paths[i]),
						  &sel[i], &why);

		if (!ino) {
			cli_error(a->cmd, "'%s': %s in subvolume '%s'",
				  ar_quote(q, sizeof(q), o->paths[i]), why, a->sv.name);
			x.errors++;
		} else if (!sel[i]) {
			root_selected = true;
		}
	}
	if (root_selected) {
		if (later_add(&queue, ar_model_root(a->model), ""))
			goto nomem;
		nsel = 0;
	}
	for (int i = 0; i < nsel; i++) {
		char *path = NULL;
		size_t cap = 0;
		const char *name;
		int dfd;

		/* Repeated, or inside another selected directory: written once. */
		if (!sel[i] || covered(sel, nsel, sel[i]))
			continue;
		for (int j = 0; j < i; j++)
			if (sel[j] == sel[i])
				goto next;
		if (ar_path_of(sel[i], &path, &cap) < 0)
			goto nomem;
		ret = make_way(&x, path);
		dfd = ret ? ret : open_parent(&x, path, &name);
		if (dfd < 0) {
			fail(&x, path, -dfd, "cannot make its directory");
		} else {
			if (make_entry(&x, sel[i]->ino, dfd, name, path, &queue)) {
				free(path);
				close(dfd);
				goto nomem;
			}
			close(dfd);
		}
		free(path);
next:;
	}
	if (fill(&x, &queue))
		goto nomem;
	finish(&x);
	goto out;
nomem:
	cli_error(a->cmd, "out of memory");
	x.errors++;
out:
	report_skips(&x);
	for (size_t i = 0; i < x.marked.n; i++) {
		free(x.marked.v[i].ino->mark);
		x.marked.v[i].ino->mark = NULL;
		x.marked.v[i].ino->flags &= ~AR_I_SEEN;
	}
	later_free(&x.marked);
	later_free(&x.dirs);
	later_free(&x.flags);
	later_free(&queue);
	ar_reader_free(&x.rd);
	free(sel);
	close(x.dirfd);
	return x.errors ? 1 : 0;
}
