// SPDX-License-Identifier: GPL-2.0
/*
 * Descriptor caches.  Streams name every inode by a path from the subvolume
 * root, and consecutive commands mostly share their directory (all of one
 * inode's commands, the files of one directory in a full send).  Resolving
 * each path from the root again would cost a walk per command; instead the
 * directory part maps to an open descriptor here, kept valid across
 * renames by re-keying, and dropped when the directory goes away.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "receive.h"

struct dent {
	char *path;
	size_t len;
	uint64_t hash;
	int fd;
	bool pending;			/* times to apply before closing */
	signed char plain;		/* recv_dir_is_plain(), -1 if not known yet */
	struct timespec ts[2];
	struct dent *hnext;		/* hash chain */
	struct dent *prev, *next;	/* LRU list, most recent first */
};

struct dcache {
	int root_fd;
	unsigned int cap, count;
	unsigned int nbuckets;		/* power of two */
	struct dent **buckets;
	struct dent *head, *tail;
	dcache_err_fn on_err;
	void *user;
};

static uint64_t hash_path(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--) {
		h ^= (unsigned char)*p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

struct dcache *dcache_new(int root_fd, unsigned int cap, dcache_err_fn on_err,
			  void *user)
{
	struct dcache *dc = calloc(1, sizeof(*dc));

	if (!dc)
		return NULL;
	dc->root_fd = root_fd;
	dc->cap = cap < 4 ? 4 : cap;
	dc->nbuckets = 16;
	while (dc->nbuckets < 2 * dc->cap)
		dc->nbuckets *= 2;
	dc->buckets = calloc(dc->nbuckets, sizeof(*dc->buckets));
	if (!dc->buckets) {
		free(dc);
		return NULL;
	}
	dc->on_err = on_err;
	dc->user = user;
	return dc;
}

static struct dent **bucket(struct dcache *dc, uint64_t hash)
{
	return &dc->buckets[hash & (dc->nbuckets - 1)];
}

static void lru_unlink(struct dcache *dc, struct dent *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		dc->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		dc->tail = e->prev;
	e->prev = e->next = NULL;
}

static void lru_push(struct dcache *dc, struct dent *e)
{
	e->prev = NULL;
	e->next = dc->head;
	if (dc->head)
		dc->head->prev = e;
	dc->head = e;
	if (!dc->tail)
		dc->tail = e;
}

static void hash_unlink(struct dcache *dc, struct dent *e)
{
	struct dent **pp = bucket(dc, e->hash);

	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
	e->hnext = NULL;
}

static void hash_link(struct dcache *dc, struct dent *e)
{
	struct dent **pp = bucket(dc, e->hash);

	e->hnext = *pp;
	*pp = e;
}

static int apply_times(struct dcache *dc, struct dent *e)
{
	if (!e->pending)
		return 0;
	e->pending = false;
	if (futimens(e->fd, e->ts) == 0)
		return 0;
	if (dc->on_err)
		dc->on_err(dc->user, e->path, errno);
	return -errno;
}

/* Remove e; apply its pending times first if apply. */
static void drop(struct dcache *dc, struct dent *e, bool apply)
{
	if (apply)
		apply_times(dc, e);
	hash_unlink(dc, e);
	lru_unlink(dc, e);
	close(e->fd);
	free(e->path);
	free(e);
	dc->count--;
}

void dcache_free(struct dcache *dc, bool apply)
{
	if (!dc)
		return;
	while (dc->head)
		drop(dc, dc->head, apply);
	free(dc->buckets);
	free(dc);
}

static struct dent *find(struct dcache *dc, const char *path, size_t len)
{
	uint64_t h = hash_path(path, len);

	for (struct dent *e = *bucket(dc, h); e; e = e->hnext)
		if (e->hash == h && e->len == len && !memcmp(e->path, path, len))
			return e;
	return NULL;
}

static struct dent *touch(struct dcache *dc, struct dent *e)
{
	if (dc->head != e) {
		lru_unlink(dc, e);
		lru_push(dc, e);
	}
	return e;
}

int dcache_peek(struct dcache *dc, const char *dir, size_t len)
{
	struct dent *e;

	if (!len)
		return dc->root_fd;
	e = find(dc, dir, len);
	return e ? touch(dc, e)->fd : -1;
}

int dcache_dir(struct dcache *dc, const char *dir, size_t len)
{
	struct dent *e;
	size_t plen;
	int base, fd;

	if (!len)
		return dc->root_fd;
	e = find(dc, dir, len);
	if (e)
		return touch(dc, e)->fd;

	/* Start from the longest cached ancestor. */
	base = dc->root_fd;
	plen = len;
	for (;;) {
		const char *s = memrchr(dir, '/', plen);

		if (!s) {
			plen = 0;
			break;
		}
		plen = s - dir;
		e = find(dc, dir, plen);
		if (e) {
			base = touch(dc, e)->fd;
			break;
		}
	}
	if (plen)
		fd = recv_walk_dir(base, dir + plen + 1, len - plen - 1);
	else
		fd = recv_walk_dir(base, dir, len);
	if (fd < 0)
		return fd;

	e = calloc(1, sizeof(*e));
	if (e)
		e->path = malloc(len + 1);
	if (!e || !e->path) {
		free(e);
		close(fd);
		return -ENOMEM;
	}
	memcpy(e->path, dir, len);
	e->path[len] = 0;
	e->len = len;
	e->plain = -1;
	e->hash = hash_path(dir, len);
	e->fd = fd;
	/*
	 * Evict before linking the new entry: the least recently used entry
	 * is never the ancestor just used (it was touched) nor a directory
	 * the caller resolved just before (it is second most recent).
	 */
	if (dc->count >= dc->cap)
		drop(dc, dc->tail, true);
	hash_link(dc, e);
	lru_push(dc, e);
	dc->count++;
	return fd;
}

bool dcache_set_times(struct dcache *dc, const char *path, size_t len,
		      const struct timespec ts[2])
{
	struct dent *e = len ? find(dc, path, len) : NULL;

	if (!e)
		return false;
	e->ts[0] = ts[0];
	e->ts[1] = ts[1];
	e->pending = true;
	return true;
}

bool recv_dir_is_plain(int fd)
{
	char names[4096], *p;
	struct stat st;
	ssize_t n;
	int flags;

	if (fstat(fd, &st) || (st.st_mode & S_ISGID))
		return false;
	if (!ioctl(fd, FS_IOC_GETFLAGS, &flags) &&
	    (flags & (FS_NOCOW_FL | FS_COMPR_FL | FS_NOCOMP_FL)))
		return false;
	n = flistxattr(fd, names, sizeof(names));
	if (n < 0)
		return errno == ENOTSUP;
	for (p = names; p < names + n; p += strlen(p) + 1)
		if (!strcmp(p, "system.posix_acl_default") || !strncmp(p, "btrfs.", 6) ||
		    !strncmp(p, "security.", 9))
			return false;
	return true;
}

int dcache_plain(struct dcache *dc, const char *dir, size_t len)
{
	struct dent *e;
	int fd = dcache_dir(dc, dir, len);

	if (fd < 0)
		return fd;
	e = find(dc, dir, len);
	if (!e)
		return 0;
	if (e->plain < 0)
		e->plain = recv_dir_is_plain(fd);
	return e->plain;
}

void dcache_meta_changed(struct dcache *dc, const char *path, size_t len)
{
	struct dent *e = len ? find(dc, path, len) : NULL;

	if (e)
		e->plain = -1;
}

/* Is e->path equal to p or below it? */
static bool below(const struct dent *e, const char *p, size_t len)
{
	return e->len >= len && !memcmp(e->path, p, len) &&
	       (e->len == len || e->path[len] == '/');
}

void dcache_removed(struct dcache *dc, const char *path, size_t len)
{
	struct dent *e = dc->head, *next;

	if (!len)
		return;
	for (; e; e = next) {
		next = e->next;
		if (below(e, path, len))
			drop(dc, e, false);
	}
}

void dcache_renamed(struct dcache *dc, const char *from, size_t flen,
		    const char *to, size_t tlen)
{
	struct dent *e, *next;

	if (!flen || !tlen)
		return;
	/* Whatever was at the destination has been replaced. */
	dcache_removed(dc, to, tlen);
	for (e = dc->head; e; e = next) {
		size_t nlen;
		char *np;

		next = e->next;
		if (!below(e, from, flen))
			continue;
		nlen = tlen + (e->len - flen);
		np = malloc(nlen + 1);
		if (!np) {
			drop(dc, e, true);
			continue;
		}
		memcpy(np, to, tlen);
		memcpy(np + tlen, e->path + flen, e->len - flen);
		np[nlen] = 0;
		hash_unlink(dc, e);
		free(e->path);
		e->path = np;
		e->len = nlen;
		e->hash = hash_path(np, nlen);
		hash_link(dc, e);
	}
}

int dcache_flush(struct dcache *dc)
{
	int ret = 0;

	if (!dc)
		return 0;
	for (struct dent *e = dc->head; e; e = e->next) {
		int r = apply_times(dc, e);

		if (r && !ret)
			ret = r;
	}
	return ret;
}

/* ---------------------------------------------------------------------- */

static bool fbelow(const struct fcache_ent *e, const char *p, size_t len)
{
	return e->path && e->len >= len && !memcmp(e->path, p, len) &&
	       (e->len == len || e->path[len] == '/');
}

struct fcache_ent *fcache_find(struct fcache *fc, const char *path, size_t len)
{
	for (int i = 0; i < FCACHE_SIZE; i++) {
		struct fcache_ent *e = &fc->e[i];

		if (e->path && e->len == len && !memcmp(e->path, path, len)) {
			e->used = ++fc->clock;
			return e;
		}
	}
	return NULL;
}

int fcache_get(struct fcache *fc, const char *path, size_t len)
{
	struct fcache_ent *e = fcache_find(fc, path, len);

	return e ? e->fd : -1;
}

static void fclose_ent(struct fcache *fc, struct fcache_ent *e)
{
	if (!e->path)
		return;
	if (fc->close_fd)
		fc->close_fd(fc->close_ctx, e->fd);
	else
		close(e->fd);
	free(e->path);
	e->path = NULL;
	e->fd = -1;
}

void fcache_put(struct fcache *fc, const char *path, size_t len, int fd)
{
	struct fcache_ent *victim = &fc->e[0];
	char *p = malloc(len + 1);

	if (!p) {
		close(fd);
		return;
	}
	memcpy(p, path, len);
	p[len] = 0;
	for (int i = 0; i < FCACHE_SIZE; i++) {
		struct fcache_ent *e = &fc->e[i];

		if (!e->path) {
			victim = e;
			break;
		}
		if (e->used < victim->used)
			victim = e;
	}
	fclose_ent(fc, victim);
	victim->path = p;
	victim->len = len;
	victim->fd = fd;
	victim->mode = -1;
	victim->used = ++fc->clock;
}

void fcache_removed(struct fcache *fc, const char *path, size_t len)
{
	for (int i = 0; i < FCACHE_SIZE; i++)
		if (fbelow(&fc->e[i], path, len))
			fclose_ent(fc, &fc->e[i]);
}

void fcache_renamed(struct fcache *fc, const char *from, size_t flen,
		    const char *to, size_t tlen)
{
	fcache_removed(fc, to, tlen);
	for (int i = 0; i < FCACHE_SIZE; i++) {
		struct fcache_ent *e = &fc->e[i];
		size_t nlen;
		char *np;

		if (!fbelow(e, from, flen))
			continue;
		nlen = tlen + (e->len - flen);
		np = malloc(nlen + 1);
		if (!np) {
			fclose_ent(fc, e);
			continue;
		}
		memcpy(np, to, tlen);
		memcpy(np + tlen, e->path + flen, e->len - flen);
		np[nlen] = 0;
		free(e->path);
		e->path = np;
		e->len = nlen;
	}
}

void fcache_close_all(struct fcache *fc)
{
	for (int i = 0; i < FCACHE_SIZE; i++)
		fclose_ent(fc, &fc->e[i]);
}
