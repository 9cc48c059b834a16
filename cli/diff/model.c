// SPDX-License-Identifier: GPL-2.0
/*
 * The diff model: replay a send stream's path operations onto inodes.
 *
 * The stream names inodes by path, and a path is only valid at that point
 * of the stream: the kernel parks inodes under temporary names
 * (o<ino>-<gen>-<idx>) in the top directory, renames whole directories,
 * and moves regular files with link + unlink.  Replaying those operations
 * on a tree of nodes undoes all of it: what the stream touched is known as
 * (inode, where it was, where it is now), and nothing else changed.
 *
 * The tree is built lazily.  A name looked up in a directory of the old
 * snapshot that the stream never touched is the old snapshot's entry: a
 * node is made for it, remembering that entry as its origin.  Names the
 * stream removed stay behind as empty entries, so they are never looked
 * up in the old snapshot again.  Directories the stream created start
 * empty.  Memory is thus proportional to the changes, not to the tree.
 * docs/diff.md has the argument for why this is exact for kernel streams.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "diff.h"

/* Deepest directory nesting accepted (a hostile stream could go on). */
#define MAX_DEPTH	8192

struct diff_model {
	struct diff_node *root;
	struct diff_node *nodes, **tail;
	struct diff_entry **buckets;
	size_t nbuckets, nentries;
	uint64_t seq;
	bool started, full, ended;
	char err[PATH_MAX + 256];
};

/* ---------------------------------------------------------------------- */
/* Errors                                                                  */

/* Print s into buf with non-printable bytes as \ooo, cut to fit. */
static void quote(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		unsigned char ch = *s;

		if (ch < 0x20 || ch >= 0x7f || ch == '\\')
			o += snprintf(buf + o, len - o, "\\%03o", ch);
		else
			buf[o++] = ch;
	}
	buf[o] = 0;
}

__attribute__((format(printf, 3, 4)))
static int fail(struct diff_model *m, const struct bstream_cmd *c,
		const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (c)
		n = snprintf(m->err, sizeof(m->err),
			     "command %" PRIu64 " (%s) at offset %" PRIu64 ": ",
			     c->index, bstream_cmd_name(c->cmd), c->offset);
	va_start(ap, fmt);
	vsnprintf(m->err + n, sizeof(m->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int fail_path(struct diff_model *m, const struct bstream_cmd *c,
		     const char *path, const char *why)
{
	char q[512];

	quote(q, sizeof(q), path);
	return fail(m, c, "path '%s': %s", q, why);
}

/* ---------------------------------------------------------------------- */
/* Nodes and entries                                                       */

static struct diff_node *node_new(struct diff_model *m, bool created,
				  enum diff_type type)
{
	struct diff_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->created = created;
	n->type = type;
	*m->tail = n;
	m->tail = &n->next;
	return n;
}

static uint32_t hash_of(const struct diff_node *dir, const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uintptr_t)dir;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 0x100000001b3ull;
	}
	return (uint32_t)(h ^ h >> 32);
}

static int grow_table(struct diff_model *m)
{
	size_t n = m->nbuckets ? m->nbuckets * 2 : 1024;
	struct diff_entry **b = calloc(n, sizeof(*b));

	if (!b)
		return -1;
	for (size_t i = 0; i < m->nbuckets; i++) {
		struct diff_entry *e = m->buckets[i], *next;

		for (; e; e = next) {
			next = e->hnext;
			e->hnext = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = n;
	return 0;
}

struct diff_entry *diff_model_entry(const struct diff_model *m,
				    const struct diff_node *dir,
				    const char *name, size_t len)
{
	uint32_t h = hash_of(dir, name, len);
	struct diff_entry *e;

	if (!m->nbuckets)
		return NULL;
	for (e = m->buckets[h & (m->nbuckets - 1)]; e; e = e->hnext)
		if (e->hash == h && e->dir == dir && e->len == len &&
		    !memcmp(e->name, name, len))
			return e;
	return NULL;
}

static struct diff_entry *entry_add(struct diff_model *m, struct diff_node *dir,
				    const char *name, size_t len)
{
	struct diff_entry *e;

	if (m->nentries >= m->nbuckets && grow_table(m))
		return NULL;
	e = calloc(1, sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	e->dir = dir;
	e->hash = hash_of(dir, name, len);
	e->len = len;
	memcpy(e->name, name, len);
	e->hnext = m->buckets[e->hash & (m->nbuckets - 1)];
	m->buckets[e->hash & (m->nbuckets - 1)] = e;
	m->nentries++;
	return e;
}

static int entries_add(struct diff_entries *a, struct diff_entry *e)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 2;
		struct diff_entry **v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = e;
	return 0;
}

static void entries_del(struct diff_entries *a, struct diff_entry *e)
{
	for (size_t i = 0; i < a->n; i++) {
		if (a->v[i] == e) {
			memmove(a->v + i, a->v + i + 1, (a->n - i - 1) * sizeof(*a->v));
			a->n--;
			return;
		}
	}
}

/* Point the free entry e at node n. */
static int link_node(struct diff_model *m, struct diff_entry *e,
		     struct diff_node *n)
{
	if (entries_add(&n->links, e))
		return -1;
	e->node = n;
	e->seq = ++m->seq;
	e->dir->live_children++;
	return 0;
}

/* Free the entry e, which names e->node. */
static void unlink_entry(struct diff_entry *e)
{
	entries_del(&e->node->links, e);
	e->node = NULL;
	e->dir->live_children--;
}

/* Keep entries in the order they were made, oldest first. */
static void entries_merge(struct diff_entry **dst, struct diff_entry **a,
			  size_t na, struct diff_entry **b, size_t nb)
{
	while (na || nb) {
		if (!nb || (na && (*a)->seq <= (*b)->seq))
			*dst++ = *a++, na--;
		else
			*dst++ = *b++, nb--;
	}
}

static int entries_join(struct diff_entries *a, struct diff_entries *b)
{
	struct diff_entry **v;

	if (!b->n)
		return 0;
	v = malloc((a->n + b->n) * sizeof(*v));
	if (!v)
		return -1;
	entries_merge(v, a->v, a->n, b->v, b->n);
	free(a->v);
	a->v = v;
	a->n = a->cap = a->n + b->n;
	free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
	return 0;
}

int diff_model_merge(struct diff_node *a, struct diff_node *b)
{
	char **x;

	if (a == b || b->merged)
		return 0;
	for (size_t i = 0; i < b->links.n; i++)
		b->links.v[i]->node = a;
	if (entries_join(&a->links, &b->links) || entries_join(&a->origs, &b->origs))
		return -1;
	a->changes |= b->changes;
	if (b->changes & DIFF_MODE)
		a->mode = b->mode;
	if (b->changes & DIFF_OWNER) {
		a->uid = b->uid;
		a->gid = b->gid;
	}
	if (b->changes & DIFF_FLAGS)
		a->fileattr = b->fileattr;
	if (a->type == DIFF_T_UNKNOWN || a->type == DIFF_T_NONDIR)
		a->type = b->type;
	for (size_t i = 0; i < b->nxattrs; i++) {
		bool have = false;

		for (size_t j = 0; j < a->nxattrs && !have; j++)
			have = !strcmp(a->xattrs[j], b->xattrs[i]);
		if (have) {
			free(b->xattrs[i]);
			continue;
		}
		x = realloc(a->xattrs, (a->nxattrs + 1) * sizeof(*x));
		if (!x)
			return -1;
		a->xattrs = x;
		a->xattrs[a->nxattrs++] = b->xattrs[i];
	}
	b->nxattrs = 0;
	b->merged = true;
	return 0;
}

/*
 * The entry for name in dir.  An unknown name in a directory of the old
 * snapshot is, when materialize is set, that snapshot's entry: a node is
 * made for it.  Otherwise (or in a created directory) the name is free.
 * Returns NULL only when out of memory.
 */
static struct diff_entry *lookup(struct diff_model *m, struct diff_node *dir,
				 const char *name, size_t len, bool materialize)
{
	struct diff_entry *e = diff_model_entry(m, dir, name, len);
	struct diff_node *n;

	if (e)
		return e;
	e = entry_add(m, dir, name, len);
	if (!e || dir->created || !materialize)
		return e;
	n = node_new(m, false, DIFF_T_UNKNOWN);
	if (!n || link_node(m, e, n) || entries_add(&n->origs, e))
		return NULL;
	return e;
}

/* ---------------------------------------------------------------------- */
/* Paths                                                                   */

static bool bad_component(const char *s, size_t len)
{
	return !len || (len == 1 && s[0] == '.') ||
	       (len == 2 && s[0] == '.' && s[1] == '.');
}

/*
 * Resolve all but the last component of path to a directory; *name and
 * *len get the last component.  Components must be existing directories.
 */
static int resolve_parent(struct diff_model *m, const struct bstream_cmd *c,
			  const char *path, size_t plen, struct diff_node **dir,
			  const char **name, size_t *len)
{
	struct diff_node *d = m->root;
	const char *p = path, *end = path + plen, *slash;
	unsigned int depth = 0;

	if (strlen(path) != plen)
		return fail_path(m, c, path, "contains a NUL byte");
	for (;;) {
		struct diff_entry *e;

		slash = memchr(p, '/', end - p);
		if (!slash)
			break;
		if (bad_component(p, slash - p))
			return fail_path(m, c, path, "empty, '.' or '..' component");
		if (++depth > MAX_DEPTH)
			return fail_path(m, c, path, "too deep");
		e = lookup(m, d, p, slash - p, true);
		if (!e)
			return fail(m, c, "out of memory");
		if (!e->node)
			return fail_path(m, c, path, "a parent directory does not exist");
		if (e->node->type == DIFF_T_UNKNOWN)
			e->node->type = DIFF_T_DIR;
		if (e->node->type != DIFF_T_DIR)
			return fail_path(m, c, path, "a parent is not a directory");
		d = e->node;
		p = slash + 1;
	}
	if (bad_component(p, end - p))
		return fail_path(m, c, path, "empty, '.' or '..' component");
	*dir = d;
	*name = p;
	*len = end - p;
	return 0;
}

static size_t attr_len(const struct bstream_cmd *c, unsigned int attr)
{
	return c->attr[attr].len;
}

/* The entry path names; it must name an inode (never the root). */
static int existing_entry(struct diff_model *m, const struct bstream_cmd *c,
			  unsigned int attr, const char *path,
			  struct diff_entry **out)
{
	struct diff_node *dir;
	const char *name;
	size_t len;

	if (!*path)
		return fail(m, c, "the subvolume's top directory cannot be renamed, linked or removed");
	if (resolve_parent(m, c, path, attr_len(c, attr), &dir, &name, &len))
		return -1;
	*out = lookup(m, dir, name, len, true);
	if (!*out)
		return fail(m, c, "out of memory");
	if (!(*out)->node)
		return fail_path(m, c, path, "no such file or directory");
	return 0;
}

/* The free entry path names, to create a name in. */
static int free_entry(struct diff_model *m, const struct bstream_cmd *c,
		      unsigned int attr, const char *path,
		      struct diff_entry **out)
{
	struct diff_node *dir;
	const char *name;
	size_t len;

	if (!*path)
		return fail(m, c, "the subvolume's top directory already exists");
	if (resolve_parent(m, c, path, attr_len(c, attr), &dir, &name, &len))
		return -1;
	*out = lookup(m, dir, name, len, false);
	if (!*out)
		return fail(m, c, "out of memory");
	return 0;
}

/* The inode path names, the top directory included. */
static int existing_node(struct diff_model *m, const struct bstream_cmd *c,
			 struct diff_node **out)
{
	struct diff_entry *e;

	if (!*c->path) {
		*out = m->root;
		return 0;
	}
	if (existing_entry(m, c, BTRFS_SEND_A_PATH, c->path, &e))
		return -1;
	*out = e->node;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Commands                                                                */

static int started(struct diff_model *m, const struct bstream_cmd *c)
{
	if (!m->started)
		return fail(m, c, "command before the subvol or snapshot command");
	if (m->ended)
		return fail(m, c, "command after the end command");
	return 0;
}

static int on_subvolume(struct diff_model *m, const struct bstream_cmd *c,
			bool full)
{
	if (m->started)
		return fail(m, c, "a second subvolume: diff compares one subvolume at a time");
	m->started = true;
	m->full = full;
	m->root->created = full;
	return 0;
}

static int on_subvol(void *u, const struct bstream_cmd *c)
{
	return on_subvolume(u, c, true);
}

static int on_snapshot(void *u, const struct bstream_cmd *c)
{
	return on_subvolume(u, c, false);
}

enum diff_type diff_type_of_mode(uint64_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return DIFF_T_FILE;
	case S_IFDIR: return DIFF_T_DIR;
	case S_IFLNK: return DIFF_T_SYMLINK;
	case S_IFIFO: return DIFF_T_FIFO;
	case S_IFSOCK: return DIFF_T_SOCK;
	case S_IFCHR: return DIFF_T_CHR;
	case S_IFBLK: return DIFF_T_BLK;
	}
	return DIFF_T_NONDIR;
}

static int create(struct diff_model *m, const struct bstream_cmd *c,
		  enum diff_type type)
{
	struct diff_entry *e;
	struct diff_node *n;

	if (started(m, c) || free_entry(m, c, BTRFS_SEND_A_PATH, c->path, &e))
		return -1;
	if (e->node)
		return fail_path(m, c, c->path, "already exists");
	n = node_new(m, true, type);
	if (!n || link_node(m, e, n))
		return fail(m, c, "out of memory");
	n->ino = c->ino;
	return 0;
}

static int on_mkfile(void *u, const struct bstream_cmd *c)
{
	return create(u, c, DIFF_T_FILE);
}

static int on_mkdir(void *u, const struct bstream_cmd *c)
{
	return create(u, c, DIFF_T_DIR);
}

static int on_mknod(void *u, const struct bstream_cmd *c)
{
	return create(u, c, diff_type_of_mode(c->mode));
}

static int on_mkfifo(void *u, const struct bstream_cmd *c)
{
	return create(u, c, DIFF_T_FIFO);
}

static int on_mksock(void *u, const struct bstream_cmd *c)
{
	return create(u, c, DIFF_T_SOCK);
}

static int on_symlink(void *u, const struct bstream_cmd *c)
{
	return create(u, c, DIFF_T_SYMLINK);
}

/* Is dir the directory n or one below it (a rename would make a loop)? */
static bool inside(const struct diff_node *dir, const struct diff_node *n)
{
	for (unsigned int depth = 0; dir && depth <= MAX_DEPTH; depth++) {
		if (dir == n)
			return true;
		if (dir->root || dir->links.n != 1)
			return false;
		dir = dir->links.v[0]->dir;
	}
	return true;	/* deeper than any path: refuse */
}

static int on_rename(void *u, const struct bstream_cmd *c)
{
	struct diff_model *m = u;
	struct diff_entry *from, *to;
	struct diff_node *n;

	if (started(m, c) ||
	    existing_entry(m, c, BTRFS_SEND_A_PATH, c->path, &from) ||
	    free_entry(m, c, BTRFS_SEND_A_PATH_TO, c->path_to, &to))
		return -1;
	n = from->node;
	/* Two names of one inode: rename(2) does nothing. */
	if (from == to || to->node == n)
		return 0;
	if (n->type == DIFF_T_DIR && inside(to->dir, n))
		return fail_path(m, c, c->path_to, "would move a directory into itself");
	if (to->node) {
		/* rename(2) replaces the target; Linux never relies on it. */
		if (to->node->type == DIFF_T_DIR && to->node->live_children)
			return fail_path(m, c, c->path_to, "directory not empty");
		unlink_entry(to);
	}
	unlink_entry(from);
	if (link_node(m, to, n))
		return fail(m, c, "out of memory");
	return 0;
}

static int on_link(void *u, const struct bstream_cmd *c)
{
	struct diff_model *m = u;
	struct diff_entry *target, *e;

	if (started(m, c) ||
	    existing_entry(m, c, BTRFS_SEND_A_PATH_LINK, c->path_link, &target) ||
	    free_entry(m, c, BTRFS_SEND_A_PATH, c->path, &e))
		return -1;
	if (e->node)
		return fail_path(m, c, c->path, "already exists");
	if (target->node->type == DIFF_T_DIR)
		return fail_path(m, c, c->path_link, "is a directory");
	if (target->node->type == DIFF_T_UNKNOWN)
		target->node->type = DIFF_T_NONDIR;
	if (link_node(m, e, target->node))
		return fail(m, c, "out of memory");
	return 0;
}

static int on_unlink(void *u, const struct bstream_cmd *c)
{
	struct diff_model *m = u;
	struct diff_entry *e;

	if (started(m, c) || existing_entry(m, c, BTRFS_SEND_A_PATH, c->path, &e))
		return -1;
	if (e->node->type == DIFF_T_DIR)
		return fail_path(m, c, c->path, "is a directory");
	if (e->node->type == DIFF_T_UNKNOWN)
		e->node->type = DIFF_T_NONDIR;
	unlink_entry(e);
	return 0;
}

static int on_rmdir(void *u, const struct bstream_cmd *c)
{
	struct diff_model *m = u;
	struct diff_entry *e;

	if (started(m, c) || existing_entry(m, c, BTRFS_SEND_A_PATH, c->path, &e))
		return -1;
	if (e->node->type == DIFF_T_UNKNOWN)
		e->node->type = DIFF_T_DIR;
	if (e->node->type != DIFF_T_DIR)
		return fail_path(m, c, c->path, "not a directory");
	if (e->node->live_children)
		return fail_path(m, c, c->path, "directory not empty");
	unlink_entry(e);
	return 0;
}

/* Record a change of an inode that exists on both sides. */
static int change(struct diff_model *m, const struct bstream_cmd *c,
		  unsigned int what, struct diff_node **out)
{
	struct diff_node *n;

	if (started(m, c) || existing_node(m, c, &n))
		return -1;
	if (out)
		*out = n;
	if (what == DIFF_DATA) {
		if (n->type == DIFF_T_DIR)
			return fail_path(m, c, c->path, "is a directory");
		if (n->type == DIFF_T_UNKNOWN || n->type == DIFF_T_NONDIR)
			n->type = DIFF_T_FILE;
	}
	if (!n->created)
		n->changes |= what;
	return 0;
}

static int on_data(void *u, const struct bstream_cmd *c)
{
	return change(u, c, DIFF_DATA, NULL);
}

static int on_chmod(void *u, const struct bstream_cmd *c)
{
	struct diff_node *n;

	if (change(u, c, DIFF_MODE, &n))
		return -1;
	n->mode = c->mode;
	return 0;
}

static int on_chown(void *u, const struct bstream_cmd *c)
{
	struct diff_node *n;

	if (change(u, c, DIFF_OWNER, &n))
		return -1;
	n->uid = c->uid;
	n->gid = c->gid;
	return 0;
}

static int on_utimes(void *u, const struct bstream_cmd *c)
{
	struct diff_node *n;

	if (change(u, c, DIFF_TIMES, &n))
		return -1;
	n->atime = c->atime;
	n->mtime = c->mtime;
	n->ctime = c->ctime;
	return 0;
}

static int on_fileattr(void *u, const struct bstream_cmd *c)
{
	struct diff_node *n;

	if (change(u, c, DIFF_FLAGS, &n))
		return -1;
	n->fileattr = c->fileattr;
	return 0;
}

static int on_verity(void *u, const struct bstream_cmd *c)
{
	return change(u, c, DIFF_FLAGS, NULL);
}

static int on_xattr(void *u, const struct bstream_cmd *c)
{
	struct diff_model *m = u;
	struct diff_node *n;
	char **x;

	if (change(m, c, DIFF_XATTRS, &n))
		return -1;
	if (n->created)
		return 0;
	for (size_t i = 0; i < n->nxattrs; i++)
		if (!strcmp(n->xattrs[i], c->xattr_name))
			return 0;
	x = realloc(n->xattrs, (n->nxattrs + 1) * sizeof(*x));
	if (!x)
		return fail(m, c, "out of memory");
	n->xattrs = x;
	x[n->nxattrs] = strdup(c->xattr_name);
	if (!x[n->nxattrs])
		return fail(m, c, "out of memory");
	n->nxattrs++;
	return 0;
}

static int on_end(void *u, const struct bstream_cmd *c)
{
	struct diff_model *m = u;

	if (started(m, c))
		return -1;
	m->ended = true;
	return 0;
}

const struct bstream_ops diff_model_ops = {
	.subvol = on_subvol,
	.snapshot = on_snapshot,
	.mkfile = on_mkfile,
	.mkdir = on_mkdir,
	.mknod = on_mknod,
	.mkfifo = on_mkfifo,
	.mksock = on_mksock,
	.symlink = on_symlink,
	.rename = on_rename,
	.link = on_link,
	.unlink = on_unlink,
	.rmdir = on_rmdir,
	.set_xattr = on_xattr,
	.remove_xattr = on_xattr,
	.write = on_data,
	.clone = on_data,
	.truncate = on_data,
	.update_extent = on_data,
	.fallocate = on_data,
	.encoded_write = on_data,
	.chmod = on_chmod,
	.chown = on_chown,
	.utimes = on_utimes,
	.fileattr = on_fileattr,
	.enable_verity = on_verity,
	.end = on_end,
};

/* ---------------------------------------------------------------------- */
/* Life cycle                                                              */

struct diff_model *diff_model_new(void)
{
	struct diff_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->tail = &m->nodes;
	m->root = node_new(m, false, DIFF_T_DIR);
	if (!m->root || grow_table(m)) {
		diff_model_free(m);
		return NULL;
	}
	m->root->root = true;
	return m;
}

void diff_model_free(struct diff_model *m)
{
	struct diff_node *n, *next;

	if (!m)
		return;
	for (n = m->nodes; n; n = next) {
		next = n->next;
		for (size_t i = 0; i < n->nxattrs; i++)
			free(n->xattrs[i]);
		free(n->xattrs);
		free(n->links.v);
		free(n->origs.v);
		free(n);
	}
	for (size_t i = 0; i < m->nbuckets; i++) {
		struct diff_entry *e = m->buckets[i], *enext;

		for (; e; e = enext) {
			enext = e->hnext;
			free(e);
		}
	}
	free(m->buckets);
	free(m);
}

const char *diff_model_errmsg(const struct diff_model *m)
{
	return m->err;
}

int diff_model_finish(struct diff_model *m)
{
	if (!m->started)
		return fail(m, NULL, "the stream holds no subvolume");
	return 0;
}

struct diff_node *diff_model_nodes(const struct diff_model *m)
{
	return m->nodes;
}

bool diff_model_full(const struct diff_model *m)
{
	return m->full;
}

/* ---------------------------------------------------------------------- */
/* Paths of entries                                                        */

int diff_entry_path(const struct diff_entry *e, bool orig, char **out,
		    size_t *len, char *err, size_t errlen)
{
	const struct diff_entry *chain[64], **stack = chain;
	size_t depth = 0, cap = 64, total = 0;
	char *p;

	*out = NULL;
	while (e) {
		const struct diff_node *dir = e->dir;

		if (depth == cap) {
			const struct diff_entry **s;

			if (cap >= 2 * MAX_DEPTH)
				goto too_deep;
			s = malloc(2 * cap * sizeof(*s));
			if (!s)
				goto nomem;
			memcpy(s, stack, cap * sizeof(*s));
			if (stack != chain)
				free(stack);
			stack = s;
			cap *= 2;
		}
		stack[depth++] = e;
		total += 1 + e->len;
		if (dir->root)
			break;
		if (orig) {
			e = dir->origs.v[0];	/* directories have one */
		} else if (dir->links.n == 1) {
			e = dir->links.v[0];
		} else {
			char q[256];

			quote(q, sizeof(q), e->name);
			snprintf(err, errlen, "'%s' is left in a removed directory", q);
			goto fail;
		}
	}
	p = malloc(total + 1);
	if (!p)
		goto nomem;
	*out = p;
	*len = total;
	while (depth--) {
		*p++ = '/';
		memcpy(p, stack[depth]->name, stack[depth]->len);
		p += stack[depth]->len;
	}
	*p = 0;
	if (stack != chain)
		free(stack);
	return 0;
too_deep:
	snprintf(err, errlen, "a path is deeper than %d directories", MAX_DEPTH);
	goto fail;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	if (stack != chain)
		free(stack);
	return -1;
}
