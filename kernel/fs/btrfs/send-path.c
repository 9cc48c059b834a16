// SPDX-License-Identifier: GPL-2.0
/*
 * Paths as the receiver sees them at the current point of the stream.
 *
 * A path is built from its last component towards the subvolume root, so
 * the buffer is filled from its end.  It grows as needed: PATH_MAX limits
 * system calls on the receiving side, not the depth of a tree we send, and
 * a path only has to fit the 16 bit length of a stream attribute.
 */

#include <linux/ctype.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "ctree.h"
#include "send-internal.h"

#define PATH_INITIAL_SIZE	256
/*
 * Bound the walk up a tree whose references form a loop (corruption): a
 * deeper path could not fit an attribute, each level takes two bytes.
 */
#define PATH_MAX_DEPTH		32768
/* Names kept of placed inodes, mostly directories high up in the tree. */
#define NAME_CACHE_MAX		1024

struct send_name_entry {
	struct list_head lru;
	u64 ino;
	u64 dir;
	u32 name_len;
	char name[];
};

int send_path_init(struct send_path *p)
{
	p->buf = kmalloc(PATH_INITIAL_SIZE, GFP_KERNEL);
	if (!p->buf)
		return -ENOMEM;
	p->cap = PATH_INITIAL_SIZE;
	p->start = p->cap;
	return 0;
}

void send_path_free(struct send_path *p)
{
	kvfree(p->buf);
	p->buf = NULL;
}

void send_path_reset(struct send_path *p)
{
	p->start = p->cap;
}

static int send_path_grow(struct send_path *p, u32 need)
{
	u32 len = send_path_len(p);
	u32 cap = p->cap;
	char *buf;

	while (cap - len < need) {
		if (cap > U32_MAX / 2)
			return -ENAMETOOLONG;
		cap *= 2;
	}
	buf = kvmalloc(cap, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memcpy(buf + cap - len, p->buf + p->start, len);
	kvfree(p->buf);
	p->buf = buf;
	p->cap = cap;
	p->start = cap - len;
	return 0;
}

/* Put the component @name in front of the path. */
int send_path_prepend(struct send_path *p, const char *name, u32 len)
{
	bool slash = send_path_len(p) != 0;
	int ret;

	if (p->start < len + slash) {
		ret = send_path_grow(p, len + slash);
		if (ret)
			return ret;
	}
	if (slash)
		p->buf[--p->start] = '/';
	p->start -= len;
	memcpy(p->buf + p->start, name, len);
	return 0;
}

int send_path_copy(struct send_path *dst, const struct send_path *src)
{
	send_path_reset(dst);
	if (!send_path_len(src))
		return 0;
	return send_path_prepend(dst, send_path_str(src), send_path_len(src));
}

/*
 * A path longer than an attribute can carry cannot be sent; say so rather
 * than truncate it.  Every shorter path goes out whole.
 */
int send_put_path(struct send_stream *s, enum btrfs_send_attr type,
		  const struct send_path *p)
{
	int ret;

	if (send_path_len(p) > U16_MAX)
		return -ENAMETOOLONG;
	ret = send_put_attr(s, type, send_path_str(p), send_path_len(p));
	/* Paths are what can outgrow a command (64KiB in version 1). */
	if (ret == -EOVERFLOW)
		ret = -ENAMETOOLONG;
	return ret;
}

/*
 * Find the first name of @ino in @root: its lowest INODE_REF, else its
 * lowest INODE_EXTREF.  Any name works once all names of an inode exist on
 * the receiver, but always taking the same one keeps the stream stable.
 */
int send_first_ref(struct btrfs_root *root, u64 ino,
		   struct send_ref_name *ref)
{
	struct btrfs_path *path;
	struct extent_buffer *leaf;
	struct btrfs_key key;
	unsigned long name_off;
	int ret;

	path = send_alloc_path();
	if (!path)
		return -ENOMEM;

	key.objectid = ino;
	key.type = BTRFS_INODE_REF_KEY;
	key.offset = 0;
	ret = btrfs_search_slot(NULL, root, &key, path, 0, 0);
	if (ret < 0)
		goto out;
	if (path->slots[0] >= btrfs_header_nritems(path->nodes[0])) {
		ret = btrfs_next_leaf(root, path);
		if (ret < 0)
			goto out;
		if (ret > 0) {
			ret = -ENOENT;
			goto out;
		}
	}
	leaf = path->nodes[0];
	btrfs_item_key_to_cpu(leaf, &key, path->slots[0]);
	if (key.objectid != ino) {
		ret = -ENOENT;
		goto out;
	}
	if (key.type == BTRFS_INODE_REF_KEY) {
		struct btrfs_inode_ref *iref;

		iref = btrfs_item_ptr(leaf, path->slots[0],
				      struct btrfs_inode_ref);
		ref->dir = key.offset;
		ref->name_len = btrfs_inode_ref_name_len(leaf, iref);
		name_off = (unsigned long)(iref + 1);
	} else if (key.type == BTRFS_INODE_EXTREF_KEY) {
		struct btrfs_inode_extref *extref;

		extref = btrfs_item_ptr(leaf, path->slots[0],
					struct btrfs_inode_extref);
		ref->dir = btrfs_inode_extref_parent(leaf, extref);
		ref->name_len = btrfs_inode_extref_name_len(leaf, extref);
		name_off = (unsigned long)&extref->name;
	} else {
		ret = -ENOENT;
		goto out;
	}
	/* The tree checker has validated the item, names are bounded. */
	if (ref->name_len > BTRFS_NAME_LEN) {
		ret = -EUCLEAN;
		goto out;
	}
	read_extent_buffer(leaf, ref->name, name_off, ref->name_len);
	ret = 0;
out:
	btrfs_free_path(path);
	return ret;
}

/*
 * Call @fn for every name in the INODE_REF or INODE_EXTREF item at @slot:
 * the parent directory, and where the name lies in @leaf.
 */
int send_walk_refs(const struct extent_buffer *leaf, int slot,
		   const struct btrfs_key *key,
		   int (*fn)(void *ctx, u64 dir,
			     const struct extent_buffer *leaf,
			     unsigned long name_off, u32 name_len),
		   void *ctx)
{
	unsigned long ptr = btrfs_item_ptr_offset(leaf, slot);
	unsigned long end = ptr + btrfs_item_size(leaf, slot);
	int ret;

	while (ptr < end) {
		u32 len;

		if (key->type == BTRFS_INODE_REF_KEY) {
			struct btrfs_inode_ref *iref = (void *)ptr;

			len = btrfs_inode_ref_name_len(leaf, iref);
			ret = fn(ctx, key->offset, leaf,
				 (unsigned long)(iref + 1), len);
			ptr += sizeof(*iref) + len;
		} else {
			struct btrfs_inode_extref *extref = (void *)ptr;

			len = btrfs_inode_extref_name_len(leaf, extref);
			ret = fn(ctx, btrfs_inode_extref_parent(leaf, extref),
				 leaf, (unsigned long)&extref->name, len);
			ptr += sizeof(*extref) + len;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Call @fn for every item of @objectid in @root whose type is within
 * [@min_type, @max_type], in key order, until it returns non-zero; a
 * positive value ends the walk early and is not an error.
 */
int send_walk_items(struct btrfs_root *root, u64 objectid, u8 min_type,
		    u8 max_type, send_item_fn fn, void *ctx)
{
	struct btrfs_key key = {
		.objectid = objectid,
		.type = min_type,
	};
	struct btrfs_path *path;
	int ret;

	path = send_alloc_path();
	if (!path)
		return -ENOMEM;
	ret = btrfs_search_slot(NULL, root, &key, path, 0, 0);
	while (ret >= 0) {
		struct extent_buffer *leaf = path->nodes[0];

		if (path->slots[0] >= btrfs_header_nritems(leaf)) {
			ret = btrfs_next_leaf(root, path);
			if (ret)
				break;
			continue;
		}
		btrfs_item_key_to_cpu(leaf, &key, path->slots[0]);
		if (key.objectid != objectid || key.type > max_type)
			break;
		ret = fn(ctx, leaf, path->slots[0], &key);
		if (ret)
			break;
		path->slots[0]++;
	}
	btrfs_free_path(path);
	return ret < 0 ? ret : 0;
}

/* An entry whose name starts like an orphan name, 'o' and a digit. */
static int orphan_like_name(void *ctx, const struct extent_buffer *leaf,
			    int slot, const struct btrfs_key *key)
{
	struct btrfs_dir_item *di = btrfs_item_ptr(leaf, slot,
						   struct btrfs_dir_item);
	bool *found = ctx;
	char start[2];

	if (btrfs_dir_name_len(leaf, di) < sizeof(start))
		return 0;
	read_extent_buffer(leaf, start, (unsigned long)(di + 1), sizeof(start));
	*found = start[0] == 'o' && isdigit(start[1]);
	return *found;
}

/*
 * Whether orphan names need looking up: only if the top directory of the
 * send or the parent snapshot has a name like one.  Almost never, and
 * then every orphan name is free at index 0.  Both roots are read-only,
 * so one look holds for the whole send.
 */
static int orphan_names_need_lookup(struct send_ctx *sctx, bool *lookup)
{
	struct btrfs_root *roots[2] = { sctx->send_root, sctx->parent_root };
	bool found = false;
	int ret = 0;
	int i;

	if (sctx->orphan_names == SEND_ORPHAN_NAMES_UNKNOWN) {
		for (i = 0; i < ARRAY_SIZE(roots) && roots[i] && !found; i++) {
			ret = send_walk_items(roots[i], BTRFS_FIRST_FREE_OBJECTID,
					      BTRFS_DIR_INDEX_KEY,
					      BTRFS_DIR_INDEX_KEY,
					      orphan_like_name, &found);
			if (ret)
				return ret;
		}
		sctx->orphan_names = found ? SEND_ORPHAN_NAMES_LOOKUP :
					     SEND_ORPHAN_NAMES_FREE;
	}
	*lookup = sctx->orphan_names == SEND_ORPHAN_NAMES_LOOKUP;
	return 0;
}

/*
 * New inodes are created under a temporary name in the top directory,
 * o<ino>-<gen>-<idx>, with the smallest index that no entry of the top
 * directory of the send or the parent snapshot uses.  The name can thus be
 * recomputed at any time without remembering it.
 */
int send_orphan_path(struct send_ctx *sctx, u64 ino, u64 gen,
		     struct send_path *p)
{
	struct btrfs_root *roots[2] = { sctx->send_root, sctx->parent_root };
	struct btrfs_path *path;
	char name[64];
	bool lookup;
	u32 idx;
	int len;
	int ret;
	int i;

	ret = orphan_names_need_lookup(sctx, &lookup);
	if (ret)
		return ret;
	if (!lookup) {
		len = snprintf(name, sizeof(name), "o%llu-%llu-0", ino, gen);
		send_path_reset(p);
		return send_path_prepend(p, name, len);
	}
	path = send_alloc_path();
	if (!path)
		return -ENOMEM;

	for (idx = 0;; idx++) {
		struct fscrypt_str fname;
		bool used = false;

		len = snprintf(name, sizeof(name), "o%llu-%llu-%u", ino, gen,
			       idx);
		fname = (struct fscrypt_str)FSTR_INIT(name, len);
		for (i = 0; i < ARRAY_SIZE(roots) && roots[i]; i++) {
			struct btrfs_dir_item *di;

			di = btrfs_lookup_dir_item(NULL, roots[i], path,
						   BTRFS_FIRST_FREE_OBJECTID,
						   &fname, 0);
			btrfs_release_path(path);
			if (IS_ERR(di)) {
				ret = PTR_ERR(di);
				goto out;
			}
			if (di)
				used = true;
		}
		if (!used)
			break;
		ret = send_check_interrupt();
		if (ret)
			goto out;
	}
	send_path_reset(p);
	ret = send_path_prepend(p, name, len);
out:
	btrfs_free_path(path);
	return ret;
}

/*
 * Whether @ino sits at its final name(s) on the receiver.  A full send
 * processes inodes in increasing order and places each one when its
 * references are processed; anything later is still at its orphan name.
 */
static bool send_is_placed(const struct send_ctx *sctx, u64 ino)
{
	if (ino == sctx->cur.ino && sctx->cur.active)
		return sctx->cur.refs_done;
	return ino < sctx->progress;
}

static struct send_name_entry *name_cache_get(struct send_ctx *sctx, u64 ino)
{
	struct send_name_entry *e;

	e = xa_load(&sctx->names, (unsigned long)ino);
	if (!e || e->ino != ino)
		return NULL;
	list_move_tail(&e->lru, &sctx->names_lru);
	return e;
}

static void name_cache_drop(struct send_ctx *sctx, struct send_name_entry *e)
{
	xa_erase(&sctx->names, (unsigned long)e->ino);
	list_del(&e->lru);
	sctx->nr_names--;
	kfree(e);
}

static struct send_name_entry *name_cache_add(struct send_ctx *sctx, u64 ino,
					      const struct send_ref_name *ref)
{
	struct send_name_entry *e;
	struct send_name_entry *old;
	int ret;

	e = kmalloc(struct_size(e, name, ref->name_len), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->ino = ino;
	e->dir = ref->dir;
	e->name_len = ref->name_len;
	memcpy(e->name, ref->name, ref->name_len);

	/* Indexes collide on 32 bit; the newer entry wins. */
	old = xa_load(&sctx->names, (unsigned long)ino);
	if (old)
		name_cache_drop(sctx, old);
	ret = xa_insert(&sctx->names, (unsigned long)ino, e, GFP_KERNEL);
	if (ret) {
		kfree(e);
		return ERR_PTR(ret);
	}
	list_add_tail(&e->lru, &sctx->names_lru);
	if (++sctx->nr_names > NAME_CACHE_MAX)
		name_cache_drop(sctx, list_first_entry(&sctx->names_lru,
						       struct send_name_entry,
						       lru));
	return e;
}

void send_name_cache_free(struct send_ctx *sctx)
{
	while (!list_empty(&sctx->names_lru))
		name_cache_drop(sctx, list_first_entry(&sctx->names_lru,
						       struct send_name_entry,
						       lru));
	xa_destroy(&sctx->names);
}

/* Generation of a directory created ahead of its turn, 0 if none. */
static u64 early_dir_gen(struct send_ctx *sctx, u64 ino)
{
	void *entry = xa_load(&sctx->early_dirs, (unsigned long)ino);

	return entry ? xa_to_value(entry) : 0;
}

/*
 * Where @ino is on the receiver in a full send: placed inodes at their first
 * name in the send root, the current inode before its names and
 * directories created early at their orphan names.  @gen is the generation
 * of @ino if known, else 0.
 */
static int full_send_locate(struct send_ctx *sctx, u64 ino, u64 gen,
			    struct send_loc *loc)
{
	if (send_is_placed(sctx, ino)) {
		loc->kind = SEND_LOC_SEND;
		return 0;
	}
	if (ino == sctx->cur.ino && sctx->cur.active)
		gen = sctx->cur.gen;
	else if (!gen)
		gen = early_dir_gen(sctx, ino);
	if (!gen)
		return -EUCLEAN;
	loc->kind = SEND_LOC_ORPHAN;
	loc->gen = gen;
	return 0;
}

/* One step up: the entry @ino (the parent root's if @old) is at. */
struct path_step {
	const char *name;
	u32 name_len;
	u64 dir;		/* the directory it is in, if !orphan */
	bool old;		/* @dir is an inode of the parent root */
	bool orphan;		/* @name is the orphan name in the top directory */
};

static int path_step(struct send_ctx *sctx, u64 ino, u64 gen, bool old,
		     struct send_ref_name **ref, struct path_step *step)
{
	struct send_name_entry *e;
	struct send_loc loc;
	int ret;

	if (sctx->locate)
		ret = sctx->locate(sctx, ino, old, &loc);
	else
		ret = full_send_locate(sctx, ino, gen, &loc);
	if (ret)
		return ret;

	step->orphan = false;
	step->old = false;
	switch (loc.kind) {
	case SEND_LOC_ORPHAN:
		ret = send_orphan_path(sctx, ino, loc.gen, &sctx->orphan);
		step->name = send_path_str(&sctx->orphan);
		step->name_len = send_path_len(&sctx->orphan);
		step->orphan = true;
		return ret;
	case SEND_LOC_NAME:
		step->name = loc.name->name;
		step->name_len = loc.name->name_len;
		step->dir = loc.name->dir;
		return 0;
	case SEND_LOC_PARENT:
	case SEND_LOC_SEND:
		break;
	}

	if (!*ref) {
		*ref = kmalloc(sizeof(**ref), GFP_KERNEL);
		if (!*ref)
			return -ENOMEM;
	}
	if (loc.kind == SEND_LOC_PARENT) {
		/* Not cached: the cache holds send-root names only. */
		ret = send_first_ref(sctx->parent_root, ino, *ref);
		if (ret)
			return ret;
		step->name = (*ref)->name;
		step->name_len = (*ref)->name_len;
		step->dir = (*ref)->dir;
		step->old = true;
		return 0;
	}
	e = name_cache_get(sctx, ino);
	if (!e) {
		ret = send_first_ref(sctx->send_root, ino, *ref);
		if (ret)
			return ret;
		e = name_cache_add(sctx, ino, *ref);
		if (IS_ERR(e))
			return PTR_ERR(e);
	}
	step->name = e->name;
	step->name_len = e->name_len;
	step->dir = e->dir;
	return 0;
}

/*
 * Put the path of @ino in front of @p, as it is on the receiver at this
 * point of the stream: the names of the inodes on the way up to the top
 * directory, or to the first one that sits at its orphan name there.
 * @gen is the generation of @ino if known, else 0; @old says @ino is an
 * inode of the parent root (it may differ from the send root's inode of
 * that number, which the number names otherwise).
 */
static int path_walk(struct send_ctx *sctx, u64 ino, u64 gen, bool old,
		     struct send_path *p)
{
	struct send_ref_name *ref = NULL;
	struct path_step step;
	u32 depth = 0;
	int ret = 0;

	while (ino != BTRFS_FIRST_FREE_OBJECTID) {
		if (++depth > PATH_MAX_DEPTH) {
			ret = -EUCLEAN;
			break;
		}
		ret = path_step(sctx, ino, gen, old, &ref, &step);
		if (ret)
			break;
		ret = send_path_prepend(p, step.name, step.name_len);
		if (ret || step.orphan)
			break;
		ino = step.dir;
		old = step.old;
		gen = 0;
	}
	kfree(ref);
	return ret;
}

/*
 * Whether directory @dir (the send root's) currently lies below @anc on the
 * receiver, or is @anc.  @anc must be an inode both roots share, so its
 * number names it on either side.
 */
int send_loc_is_below(struct send_ctx *sctx, u64 dir, u64 anc, bool *below)
{
	struct send_ref_name *ref = NULL;
	struct path_step step;
	bool old = false;
	u32 depth = 0;
	int ret = 0;

	*below = false;
	while (dir != BTRFS_FIRST_FREE_OBJECTID) {
		if (dir == anc) {
			*below = true;
			break;
		}
		if (++depth > PATH_MAX_DEPTH) {
			ret = -EUCLEAN;
			break;
		}
		ret = path_step(sctx, dir, 0, old, &ref, &step);
		if (ret || step.orphan)
			break;
		dir = step.dir;
		old = step.old;
	}
	kfree(ref);
	return ret;
}

/* Path on the receiver of @ino, of the parent root if @old. */
int send_loc_path(struct send_ctx *sctx, u64 ino, bool old,
		  struct send_path *p)
{
	send_path_reset(p);
	return path_walk(sctx, ino, 0, old, p);
}

/* Path of the entry @name in @dir (of the parent root if @old). */
int send_loc_ref_path(struct send_ctx *sctx, u64 dir, bool old,
		      const char *name, u32 name_len, struct send_path *p)
{
	int ret;

	send_path_reset(p);
	ret = send_path_prepend(p, name, name_len);
	if (ret)
		return ret;
	return path_walk(sctx, dir, 0, old, p);
}

/* Path of inode @ino (generation @gen, or 0) on the receiver. */
int send_cur_path(struct send_ctx *sctx, u64 ino, u64 gen,
		  struct send_path *p)
{
	send_path_reset(p);
	return path_walk(sctx, ino, gen, false, p);
}

/* Path of the entry @name in directory @dir on the receiver. */
int send_ref_path(struct send_ctx *sctx, u64 dir, const char *name,
		  u32 name_len, struct send_path *p)
{
	int ret;

	send_path_reset(p);
	ret = send_path_prepend(p, name, name_len);
	if (ret)
		return ret;
	return path_walk(sctx, dir, 0, false, p);
}

/*
 * Path of @ino in a tree that does not change while we send, such as a
 * clone source: its first names up to the top directory.
 */
int send_tree_path(struct btrfs_root *root, u64 ino, struct send_path *p)
{
	struct send_ref_name *ref;
	u32 depth = 0;
	int ret = 0;

	ref = kmalloc(sizeof(*ref), GFP_KERNEL);
	if (!ref)
		return -ENOMEM;
	send_path_reset(p);
	while (ino != BTRFS_FIRST_FREE_OBJECTID) {
		if (++depth > PATH_MAX_DEPTH) {
			ret = -EUCLEAN;
			break;
		}
		ret = send_first_ref(root, ino, ref);
		if (ret)
			break;
		ret = send_path_prepend(p, ref->name, ref->name_len);
		if (ret)
			break;
		ino = ref->dir;
	}
	kfree(ref);
	return ret;
}
