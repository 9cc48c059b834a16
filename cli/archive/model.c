// SPDX-License-Identifier: GPL-2.0
/*
 * The namespace of the archive model: inodes, and the names that point at
 * them, changed the way the stream's MK*, RENAME, LINK, UNLINK and RMDIR
 * change a real directory tree.  Names live in one hash table keyed by
 * (directory inode, name), so resolving a path costs one lookup per
 * component; each directory also lists its children for ls and extract.
 *
 * Each stream of a chain is one step.  An incremental stream may CLONE
 * from its parent subvolume, that is from the tree as the previous step
 * left it, by the parent's path, while the stream is already changing that
 * tree.  So during a step the model keeps what it needs to see the parent:
 * a name removed or replaced that the parent had is kept in a second table
 * (the parent's names), inodes are not freed before the step ends, and a
 * file's extents are saved the first time the step changes them.  The cost
 * is proportional to what the step changes, not to the tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "archive.h"

struct table {
	struct ar_dirent **b;
	size_t nb, n;
};

struct ar_model {
	struct ar_inode *root;
	struct ar_inode *inodes;	/* every inode, newest first */
	struct table names;		/* the names now */
	struct table old;		/* the parent's names this step replaced */
	uint32_t step;
	uint64_t ninodes;
};

/* ---------------------------------------------------------------------- */
/* Name tables                                                             */

static uint32_t hash_of(const struct ar_inode *dir, const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uintptr_t)dir;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 0x100000001b3ull;
	}
	return (uint32_t)(h ^ h >> 32);
}

static int table_grow(struct table *t)
{
	size_t nb = t->nb ? t->nb * 2 : 1024;
	struct ar_dirent **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < t->nb; i++) {
		struct ar_dirent *e = t->b[i], *next;

		for (; e; e = next) {
			next = e->hnext;
			e->hnext = b[e->hash & (nb - 1)];
			b[e->hash & (nb - 1)] = e;
		}
	}
	free(t->b);
	t->b = b;
	t->nb = nb;
	return 0;
}

static struct ar_dirent *table_find(const struct table *t, const struct ar_inode *dir,
				    const char *name, size_t len, uint32_t hash)
{
	if (!t->nb)
		return NULL;
	for (struct ar_dirent *e = t->b[hash & (t->nb - 1)]; e; e = e->hnext)
		if (e->hash == hash && e->dir == dir && e->len == len &&
		    !memcmp(e->name, name, len))
			return e;
	return NULL;
}

static int table_add(struct table *t, struct ar_dirent *e)
{
	if (t->n >= t->nb && table_grow(t))
		return -ENOMEM;
	e->hnext = t->b[e->hash & (t->nb - 1)];
	t->b[e->hash & (t->nb - 1)] = e;
	t->n++;
	return 0;
}

static void table_del(struct table *t, struct ar_dirent *e)
{
	struct ar_dirent **p = &t->b[e->hash & (t->nb - 1)];

	while (*p != e)
		p = &(*p)->hnext;
	*p = e->hnext;
	t->n--;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nb; i++) {
		struct ar_dirent *e = t->b[i], *next;

		for (; e; e = next) {
			next = e->hnext;
			free(e);
		}
	}
	free(t->b);
	t->b = NULL;
	t->nb = t->n = 0;
}

static struct ar_dirent *dirent_new(struct ar_inode *dir, const char *name,
				    size_t len, uint32_t hash)
{
	struct ar_dirent *e = calloc(1, sizeof(*e) + len + 1);

	if (!e)
		return NULL;
	e->dir = dir;
	e->hash = hash;
	e->len = (uint32_t)len;
	memcpy(e->name, name, len);
	return e;
}

/* ---------------------------------------------------------------------- */
/* Inodes                                                                  */

static struct ar_inode *inode_new(struct ar_model *m, uint32_t mode)
{
	struct ar_inode *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->mode = mode;
	n->gen = m->step;
	n->next = m->inodes;
	m->inodes = n;
	m->ninodes++;
	return n;
}

static void inode_free(struct ar_inode *n)
{
	struct ar_xattr *x, *next;

	for (x = n->xattrs; x; x = next) {
		next = x->next;
		free(x->name);
		free(x->value);
		free(x);
	}
	if (S_ISREG(n->mode))
		ar_ext_free(&n->u.ext);
	else if (S_ISLNK(n->mode))
		free(n->u.target);
	if (n->parent) {
		ar_ext_free(&n->parent->ext);
		free(n->parent);
	}
	free(n);
}

/* Free the inodes that lost their last name (nothing refers to them now). */
static void sweep(struct ar_model *m)
{
	struct ar_inode **p = &m->inodes;

	while (*p) {
		struct ar_inode *n = *p;

		if (n->flags & AR_I_ORPHANED) {
			*p = n->next;
			inode_free(n);
			m->ninodes--;
		} else {
			p = &n->next;
		}
	}
}

struct ar_model *ar_model_new(void)
{
	struct ar_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->root = inode_new(m, S_IFDIR | 0755);
	if (!m->root) {
		free(m);
		return NULL;
	}
	m->root->nlink = 1;
	return m;
}

void ar_model_free(struct ar_model *m)
{
	struct ar_inode *n, *next;

	if (!m)
		return;
	table_free(&m->names);
	table_free(&m->old);
	for (n = m->inodes; n; n = next) {
		next = n->next;
		inode_free(n);
	}
	free(m);
}

void ar_model_reset(struct ar_model *m)
{
	struct ar_inode *n, *next;

	table_free(&m->names);
	table_free(&m->old);
	for (n = m->inodes; n; n = next) {
		next = n->next;
		if (n != m->root)
			inode_free(n);
	}
	m->inodes = m->root;
	m->root->next = NULL;
	m->ninodes = 1;
	m->step++;
	/* A fresh root, as SUBVOL makes it. */
	for (struct ar_xattr *x = m->root->xattrs, *nx; x; x = nx) {
		nx = x->next;
		free(x->name);
		free(x->value);
		free(x);
	}
	memset(m->root, 0, sizeof(*m->root));
	m->root->mode = S_IFDIR | 0755;
	m->root->nlink = 1;
	m->root->gen = m->step;
}

void ar_model_next_step(struct ar_model *m)
{
	table_free(&m->old);
	sweep(m);
	m->step++;
}

uint32_t ar_model_step(const struct ar_model *m)
{
	return m->step;
}

struct ar_inode *ar_model_root(const struct ar_model *m)
{
	return m->root;
}

void ar_model_counts(const struct ar_model *m, uint64_t *inodes, uint64_t *entries)
{
	*inodes = m->ninodes;
	*entries = m->names.n;
}

/* ---------------------------------------------------------------------- */
/* Paths                                                                   */

struct ar_dirent *ar_lookup(struct ar_model *m, struct ar_inode *dir,
			    const char *name, size_t len)
{
	return table_find(&m->names, dir, name, len, hash_of(dir, name, len));
}

/* (dir, name) in the parent: what this step replaced, else what it kept. */
static struct ar_inode *lookup_parent(struct ar_model *m, struct ar_inode *dir,
				      const char *name, size_t len)
{
	uint32_t h = hash_of(dir, name, len);
	struct ar_dirent *e = table_find(&m->old, dir, name, len, h);

	if (e)
		return e->ino;
	e = table_find(&m->names, dir, name, len, h);
	return e && e->gen < m->step ? e->ino : NULL;
}

/*
 * Walk the directories of path (all but the last component); the last
 * component in *name, *nlen.  NULL with *why if a directory is missing.
 */
static struct ar_inode *walk(struct ar_model *m, const char *path, size_t len,
			     bool parent_view, const char **name, size_t *nlen,
			     const char **why)
{
	struct ar_inode *dir = m->root;
	const char *p = path, *end = path + len;

	if (parent_view && dir->gen == m->step) {
		*why = "the parent subvolume is not known";
		return NULL;
	}
	for (;;) {
		const char *slash = memchr(p, '/', end - p);
		struct ar_dirent *e;
		struct ar_inode *next;

		if (!slash) {
			*name = p;
			*nlen = end - p;
			return dir;
		}
		if (parent_view) {
			next = lookup_parent(m, dir, p, slash - p);
		} else {
			e = ar_lookup(m, dir, p, slash - p);
			next = e ? e->ino : NULL;
		}
		if (!next) {
			*why = "no such directory on the way";
			return NULL;
		}
		if (!S_ISDIR(next->mode)) {
			*why = "a component on the way is not a directory";
			return NULL;
		}
		dir = next;
		p = slash + 1;
	}
}

struct ar_inode *ar_resolve(struct ar_model *m, const char *path, size_t len,
			    struct ar_dirent **dirent, const char **why)
{
	struct ar_inode *dir;
	struct ar_dirent *e;
	const char *name;
	size_t nlen;

	if (dirent)
		*dirent = NULL;
	if (!len)
		return m->root;
	dir = walk(m, path, len, false, &name, &nlen, why);
	if (!dir)
		return NULL;
	e = ar_lookup(m, dir, name, nlen);
	if (!e) {
		*why = "no such file or directory";
		return NULL;
	}
	if (dirent)
		*dirent = e;
	return e->ino;
}

struct ar_inode *ar_resolve_parent(struct ar_model *m, const char *path,
				   size_t len, const char **why)
{
	struct ar_inode *dir, *ino;
	const char *name;
	size_t nlen;

	if (!len)
		return m->root;
	dir = walk(m, path, len, true, &name, &nlen, why);
	if (!dir)
		return NULL;
	ino = lookup_parent(m, dir, name, nlen);
	if (!ino)
		*why = "no such file or directory in the parent subvolume";
	return ino;
}

/* ---------------------------------------------------------------------- */
/* Changes                                                                 */

/* Link a new entry (dir, name) to ino. */
static struct ar_dirent *add_name(struct ar_model *m, struct ar_inode *dir,
				  const char *name, size_t len, struct ar_inode *ino)
{
	struct ar_dirent *e = dirent_new(dir, name, len, hash_of(dir, name, len));

	if (!e)
		return NULL;
	if (table_add(&m->names, e)) {
		free(e);
		return NULL;
	}
	e->ino = ino;
	e->gen = m->step;
	e->next = dir->u.dir.children;
	if (e->next)
		e->next->prev = e;
	dir->u.dir.children = e;
	dir->u.dir.nchildren++;
	ino->nlink++;
	if (S_ISDIR(ino->mode))
		ino->u.dir.up = e;
	return e;
}

/*
 * Take entry e away.  If the parent had it, it goes to the parent's table
 * (the first time: later changes of this step are not the parent's).
 */
static int drop_name(struct ar_model *m, struct ar_dirent *e)
{
	struct ar_inode *dir = e->dir, *ino = e->ino;

	table_del(&m->names, e);
	if (e->prev)
		e->prev->next = e->next;
	else
		dir->u.dir.children = e->next;
	if (e->next)
		e->next->prev = e->prev;
	dir->u.dir.nchildren--;
	if (--ino->nlink == 0)
		ino->flags |= AR_I_ORPHANED;
	if (S_ISDIR(ino->mode) && ino->u.dir.up == e)
		ino->u.dir.up = NULL;
	if (e->gen < m->step && !table_find(&m->old, dir, e->name, e->len, e->hash)) {
		e->next = e->prev = NULL;
		if (table_add(&m->old, e)) {
			free(e);
			return -ENOMEM;
		}
		return 0;
	}
	free(e);
	return 0;
}

/* The directory that is to hold the last component of path. */
static struct ar_inode *parent_dir(struct ar_model *m, const char *path, size_t len,
				   const char **name, size_t *nlen, const char **why)
{
	struct ar_inode *dir = walk(m, path, len, false, name, nlen, why);

	if (dir && !S_ISDIR(dir->mode)) {
		*why = "parent is not a directory";
		return NULL;
	}
	return dir;
}

struct ar_inode *ar_make(struct ar_model *m, const char *path, size_t len,
			 uint32_t mode, const char **why)
{
	struct ar_inode *dir, *ino;
	const char *name;
	size_t nlen;

	dir = parent_dir(m, path, len, &name, &nlen, why);
	if (!dir)
		return NULL;
	if (ar_lookup(m, dir, name, nlen)) {
		*why = "already exists";
		return NULL;
	}
	ino = inode_new(m, mode);
	if (!ino || !add_name(m, dir, name, nlen, ino)) {
		if (ino)
			ino->flags |= AR_I_ORPHANED;
		*why = "out of memory";
		return NULL;
	}
	return ino;
}

int ar_rename(struct ar_model *m, const char *from, size_t flen,
	      const char *to, size_t tlen, const char **why)
{
	struct ar_dirent *src, *dst;
	struct ar_inode *ino, *dir;
	const char *name;
	size_t nlen;

	ino = ar_resolve(m, from, flen, &src, why);
	if (!ino)
		return -1;
	if (!src) {
		*why = "cannot rename the top directory";
		return -1;
	}
	dir = parent_dir(m, to, tlen, &name, &nlen, why);
	if (!dir)
		return -1;
	dst = ar_lookup(m, dir, name, nlen);
	if (dst == src)
		return 0;
	if (dst && dst->ino == ino)	/* two names of one inode: rename(2) does nothing */
		return 0;
	if (S_ISDIR(ino->mode)) {
		/* Not into itself: that would cut the subtree off the tree. */
		for (struct ar_inode *d = dir; d; d = d->u.dir.up ? d->u.dir.up->dir : NULL)
			if (d == ino) {
				*why = "cannot move a directory beneath itself";
				return -1;
			}
	}
	if (dst) {
		if (S_ISDIR(ino->mode) != S_ISDIR(dst->ino->mode)) {
			*why = S_ISDIR(ino->mode) ? "target exists and is not a directory" :
						    "target is a directory";
			return -1;
		}
		if (S_ISDIR(dst->ino->mode) && dst->ino->u.dir.nchildren) {
			*why = "target directory is not empty";
			return -1;
		}
	}
	/* The new name first: dropping the old one may orphan nothing then. */
	ino->nlink++;
	if (dst && drop_name(m, dst))
		goto nomem;
	if (drop_name(m, src))
		goto nomem;
	ino->nlink--;
	ino->flags &= ~AR_I_ORPHANED;
	if (!add_name(m, dir, name, nlen, ino))
		goto nomem;
	return 0;
nomem:
	*why = "out of memory";
	return -1;
}

int ar_link(struct ar_model *m, const char *path, size_t len,
	    const char *existing, size_t elen, const char **why)
{
	struct ar_inode *ino, *dir;
	const char *name;
	size_t nlen;

	ino = ar_resolve(m, existing, elen, NULL, why);
	if (!ino)
		return -1;
	if (S_ISDIR(ino->mode)) {
		*why = "cannot hard link a directory";
		return -1;
	}
	dir = parent_dir(m, path, len, &name, &nlen, why);
	if (!dir)
		return -1;
	if (ar_lookup(m, dir, name, nlen)) {
		*why = "already exists";
		return -1;
	}
	if (!add_name(m, dir, name, nlen, ino)) {
		*why = "out of memory";
		return -1;
	}
	return 0;
}

int ar_unlink(struct ar_model *m, const char *path, size_t len, bool dir,
	      const char **why)
{
	struct ar_dirent *e;
	struct ar_inode *ino = ar_resolve(m, path, len, &e, why);

	if (!ino)
		return -1;
	if (!e) {
		*why = "cannot remove the top directory";
		return -1;
	}
	if (dir && !S_ISDIR(ino->mode)) {
		*why = "not a directory";
		return -1;
	}
	if (!dir && S_ISDIR(ino->mode)) {
		*why = "is a directory";
		return -1;
	}
	if (dir && ino->u.dir.nchildren) {
		*why = "directory not empty";
		return -1;
	}
	if (drop_name(m, e)) {
		*why = "out of memory";
		return -1;
	}
	return 0;
}

int ar_before_data_change(struct ar_model *m, struct ar_inode *ino)
{
	struct ar_parent_data *p;

	/* New in this step, or saved already: the parent's copy is safe. */
	if (ino->gen == m->step || ino->parent_gen == m->step)
		return 0;
	p = ino->parent;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		ino->parent = p;
	}
	if (ar_ext_copy(&p->ext, &ino->u.ext))
		return -ENOMEM;
	p->size = ino->size;
	ino->parent_gen = m->step;
	return 0;
}

const struct ar_extents *ar_parent_extents(const struct ar_model *m,
					   const struct ar_inode *ino,
					   uint64_t *size)
{
	if (ino->parent && ino->parent_gen == m->step) {
		*size = ino->parent->size;
		return &ino->parent->ext;
	}
	*size = ino->size;
	return &ino->u.ext;
}

int ar_xattr_set(struct ar_inode *ino, const char *name, size_t nlen,
		 const uint8_t *value, size_t vlen)
{
	struct ar_xattr *x, **p = &ino->xattrs;
	uint8_t *v = malloc(vlen ? vlen : 1);

	if (!v)
		return -ENOMEM;
	memcpy(v, value, vlen);
	for (; (x = *p); p = &x->next)
		if (x->nlen == nlen && !memcmp(x->name, name, nlen))
			break;
	if (!x) {
		x = calloc(1, sizeof(*x));
		if (x)
			x->name = strndup(name, nlen);
		if (!x || !x->name) {
			free(x);
			free(v);
			return -ENOMEM;
		}
		x->nlen = (uint32_t)nlen;
		*p = x;
	}
	free(x->value);
	x->value = v;
	x->vlen = (uint32_t)vlen;
	return 0;
}

int ar_xattr_remove(struct ar_inode *ino, const char *name, size_t nlen)
{
	for (struct ar_xattr *x, **p = &ino->xattrs; (x = *p); p = &x->next)
		if (x->nlen == nlen && !memcmp(x->name, name, nlen)) {
			*p = x->next;
			free(x->name);
			free(x->value);
			free(x);
			return 0;
		}
	return -ENODATA;
}

/* ---------------------------------------------------------------------- */
/* Reading the tree                                                        */

ssize_t ar_path_of(const struct ar_dirent *e, char **buf, size_t *cap)
{
	size_t len = 0, o;

	for (const struct ar_dirent *d = e; d; d = d->dir->u.dir.up)
		len += d->len + 1;
	if (!len)
		len = 1;
	if (len > *cap) {
		char *nb = realloc(*buf, len);

		if (!nb)
			return -1;
		*buf = nb;
		*cap = len;
	}
	o = len - 1;
	(*buf)[o] = 0;
	for (const struct ar_dirent *d = e; d; d = d->dir->u.dir.up) {
		o -= d->len;
		memcpy(*buf + o, d->name, d->len);
		if (o)
			(*buf)[--o] = '/';
	}
	return e ? (ssize_t)(len - 1) : 0;
}

static int by_name(const void *a, const void *b)
{
	const struct ar_dirent *x = *(const struct ar_dirent *const *)a;
	const struct ar_dirent *y = *(const struct ar_dirent *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

struct ar_dirent **ar_sorted_children(const struct ar_inode *dir, uint64_t *n,
				      bool *nomem)
{
	struct ar_dirent **v;
	uint64_t i = 0;

	*n = dir->u.dir.nchildren;
	*nomem = false;
	if (!*n)
		return NULL;
	v = malloc(*n * sizeof(*v));
	if (!v) {
		*nomem = true;
		return NULL;
	}
	for (struct ar_dirent *e = dir->u.dir.children; e; e = e->next)
		v[i++] = e;
	qsort(v, *n, sizeof(*v), by_name);
	return v;
}
