// SPDX-License-Identifier: GPL-2.0
/*
 * Modes an unprivileged receive holds back.  Without CAP_DAC_OVERRIDE the
 * owner of a directory needs rwx on it to create, rename and remove its
 * entries and to open what it holds, and read and write on a file to write
 * it, clone from it or read its user. xattrs.  The sender sets an inode's
 * mode when it is done with that inode, not when the subvolume is done: a
 * full stream fills a directory of mode 0500 after its CHMOD (its entries
 * have higher inode numbers), and an incremental stream changes files and
 * directories whose modes come from the parent.  Root does not care; an
 * ordinary user receiving into plain directories would fail.  So, as tar
 * does, such a mode is applied with the owner's bits added, and put back
 * exactly when the subvolume is finished, after its last entry.  Inodes
 * are found again by a walk of the subvolume (post-order: a directory's
 * mode after its entries) and known by file handle, so an inode number
 * reused after a deletion is not mistaken for the held one.
 *
 * The same owner's write, truncation or clone into a file clears its
 * setuid bit, and setgid where the group may execute (no CAP_FSETID): an
 * incremental stream changes data without a CHMOD when the mode is the
 * parent's, so such a mode is held too, as found before the first change.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "receive.h"

#define HANDLE_BYTES 128

struct held_mode {
	uint64_t ino;
	mode_t mode;
	struct file_handle *handle;
};

/* The owner's bits an inode of this type needs while it is received. */
static mode_t needed(mode_t type)
{
	if (S_ISDIR(type))
		return S_IRWXU;
	return S_ISREG(type) ? S_IRUSR | S_IWUSR : 0;
}

struct recv_held *recv_held_of(struct recv *r)
{
	return r->hold_modes ? &r->sv.held : NULL;
}

/* fd's handle, or name's beneath dfd when fd < 0; NULL if it has none. */
static struct file_handle *handle_of(int fd, int dfd, const char *name)
{
	struct file_handle *h = malloc(sizeof(*h) + HANDLE_BYTES);
	int mnt;

	if (!h)
		return NULL;
	h->handle_bytes = HANDLE_BYTES;
	if (fd >= 0 ? name_to_handle_at(fd, "", h, &mnt, AT_EMPTY_PATH)
		    : name_to_handle_at(dfd, name, h, &mnt, 0)) {
		free(h);
		return NULL;
	}
	return h;
}

static bool same_handle(const struct file_handle *a, const struct file_handle *b)
{
	return a->handle_type == b->handle_type && a->handle_bytes == b->handle_bytes &&
	       !memcmp(a->f_handle, b->f_handle, a->handle_bytes);
}

static struct held_mode *find(struct recv_held *h, uint64_t ino, const struct file_handle *fh)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].ino == ino && same_handle(h->v[i].handle, fh))
			return &h->v[i];
	return NULL;
}

/*
 * Whether a write, truncation or clone by an owner without CAP_FSETID
 * clears bits of this mode of a file of this type: setuid, and setgid
 * where the group may execute (without, setgid marks mandatory locking
 * and stays).
 */
static bool cleared_by_writes(mode_t type, mode_t mode)
{
	if (!S_ISREG(type))
		return false;
	return (mode & S_ISUID) || (mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP);
}

/* Keep fh's inode's mode to put back; false (fh freed) without memory. */
static bool hold(struct recv_held *h, uint64_t ino, mode_t mode, struct file_handle *fh)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct held_mode *v = realloc(h->v, cap * sizeof(*v));

		if (!v) {
			free(fh);
			return false;
		}
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n++] = (struct held_mode){ .ino = ino, .mode = mode, .handle = fh };
	return true;
}

mode_t recv_hold_mode(struct recv_held *h, int fd, int dfd, const char *name,
		      const struct stat *st, mode_t mode)
{
	mode_t need = needed(st->st_mode);
	struct file_handle *fh;
	struct held_mode *m;

	if (!h || !need)
		return mode;
	fh = handle_of(fd, dfd, name);
	if (!fh)	/* no handles here: apply the mode as it is */
		return mode;
	m = find(h, st->st_ino, fh);
	if (m) {
		m->mode = mode;
		free(fh);
		return mode | need;
	}
	if ((mode & need) == need && !cleared_by_writes(st->st_mode, mode)) {
		free(fh);
		return mode;
	}
	if (!hold(h, st->st_ino, mode, fh))
		return mode;
	return mode | need;
}

void recv_hold_setid(struct recv_held *h, int fd)
{
	struct file_handle *fh;
	struct stat st;

	if (!h || fstat(fd, &st) || !cleared_by_writes(st.st_mode, st.st_mode))
		return;
	fh = handle_of(fd, -1, NULL);
	if (!fh)
		return;
	if (find(h, st.st_ino, fh)) {	/* held already, with the mode to restore */
		free(fh);
		return;
	}
	hold(h, st.st_ino, st.st_mode & 07777, fh);
}

/* Put back the held mode of dfd/name (name "" : dfd itself), if held. */
static int put_back(struct recv_held *h, int dfd, const char *name, const struct stat *st)
{
	struct file_handle *fh;
	struct held_mode *m;
	int ret = 0;

	if (!needed(st->st_mode))
		return 0;
	fh = *name ? handle_of(-1, dfd, name) : handle_of(dfd, -1, NULL);
	if (!fh)
		return 0;
	m = find(h, st->st_ino, fh);
	if (m && (*name ? fchmodat(dfd, name, m->mode, 0) : fchmod(dfd, m->mode)))
		ret = errno;
	free(fh);
	return ret;
}

/* A directory of the subvolume, without moving its access time. */
static int open_dir(int dir, const char *name)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(dir, name, flags | O_NOATIME);

	return fd < 0 && errno == EPERM ? openat(dir, name, flags) : fd;
}

/* Entries of dir first, then their modes, each directory after its own. */
static int walk(struct recv_held *h, int dir, char *why, size_t wlen)
{
	struct dirent *de;
	struct stat st;
	int fd, err = 0;
	DIR *d;

	fd = open_dir(dir, ".");
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		snprintf(why, wlen, "cannot list a directory");
		return errno;
	}
	while (!err && (errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			err = errno;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = open_dir(dir, de->d_name);

			if (sub < 0) {
				err = errno;
				break;
			}
			err = walk(h, sub, why, wlen);
			close(sub);
		}
		if (!err)
			err = put_back(h, dir, de->d_name, &st);
		if (err)
			snprintf(why, wlen, "cannot put back the mode of '%s'", de->d_name);
	}
	if (!err && errno)
		err = errno;
	closedir(d);
	return err;
}

int recv_apply_held_modes(struct recv_held *h, int root_fd, char *why, size_t wlen)
{
	struct stat st;
	int err;

	if (!h || !h->n)
		return 0;
	err = walk(h, root_fd, why, wlen);
	if (!err && fstat(root_fd, &st))
		err = errno;
	if (!err)
		err = put_back(h, root_fd, "", &st);
	if (err && !*why)
		snprintf(why, wlen, "cannot put back the mode of the root");
	return err;
}

void recv_held_free(struct recv_held *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->v[i].handle);
	free(h->v);
	memset(h, 0, sizeof(*h));
}
