// SPDX-License-Identifier: GPL-2.0
/*
 * File extents of the current inode: WRITE, CLONE, ENCODED_WRITE,
 * UPDATE_EXTENT, FALLOCATE and the final TRUNCATE.
 *
 * Holes are never sent as data: the receiver creates files empty, so a
 * later write or the final truncate leaves the gap as a hole.
 *
 * An extent is cloned where the receiver already holds its data, in
 * pieces if sources hold only parts of it; the rest goes out as data.
 * Clone sources are found cheaply first and by backref walking last:
 *  1. extents this send already transmitted (a bounded table keyed by disk
 *     address), which catches every extent shared inside the snapshot no
 *     matter how many files share it;
 *  2. the same inode and offset in each clone source, the usual layout
 *     when the clone source is an older snapshot of the same subvolume;
 *  3. a backref walk, only for extents with few references, so that an
 *     extent shared thousands of times cannot stall the send.
 * A source holding the whole extent ends the search.
 */

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/hashtable.h>
#include <linux/bsearch.h>
#include <linux/slab.h>
#include <linux/falloc.h>
#include "ctree.h"
#include "disk-io.h"
#include "backref.h"
#include "btrfs_inode.h"
#include "compression.h"
#include "send-internal.h"

#define EXTENT_CACHE_BITS	10
#define EXTENT_CACHE_MAX	8192
/* Extents with more references than this are not backref walked. */
#define BACKREF_MAX_REFS	64
/* Candidates taken from one backref walk, and clone sources tried. */
#define BACKREF_MAX_CANDIDATES	8
#define CLONE_SRCS_TRIED	16
/* Parts of one extent found, and file extent items read per source. */
#define CLONE_PIECES_MAX	16
#define SRC_ITEMS_READ		4

struct sent_extent {
	struct hlist_node hash;
	struct list_head fifo;
	u64 disk_bytenr;
	u64 ino;
	u64 file_off;		/* where the range starts in that file */
	u64 extent_off;		/* and where in the disk extent */
	u64 len;
	u64 isize;
};

/* The file extent being sent, decoded from its item. */
struct data_extent {
	u8 type;
	u8 compression;
	u64 off;		/* file offset */
	u64 len;		/* bytes to send, clamped to i_size */
	u64 disk_bytenr;
	u64 disk_num_bytes;
	u64 extent_off;
	u64 ram_bytes;
};

/* A place the receiver already holds the data of a range at. */
struct clone_src {
	struct btrfs_root *root;
	u64 ino;
	u64 offset;
};

/* File range [off, end) of the current inode, held at @src on. */
struct clone_piece {
	struct clone_src src;
	u64 off;
	u64 end;
};

/*
 * How the extent being sent splits into pieces to clone, the rest being
 * sent as data: a source may hold only part of it (a partial reflink, or
 * an extent later partly overwritten in the file sent before).
 */
struct clone_plan {
	const struct data_extent *ext;
	struct clone_piece pieces[CLONE_PIECES_MAX];
	u32 nr;
};

struct send_extent_cache {
	DECLARE_HASHTABLE(table, EXTENT_CACHE_BITS);
	struct list_head fifo;
	u32 nr;
	struct clone_plan plan;	/* of the extent being sent */
};

int send_extent_cache_init(struct send_ctx *sctx)
{
	struct send_extent_cache *cache;

	cache = kmalloc(sizeof(*cache), GFP_KERNEL);
	if (!cache)
		return -ENOMEM;
	hash_init(cache->table);
	INIT_LIST_HEAD(&cache->fifo);
	cache->nr = 0;
	sctx->extents = cache;
	return 0;
}

void send_extent_cache_free(struct send_ctx *sctx)
{
	struct send_extent_cache *cache = sctx->extents;
	struct sent_extent *e;
	struct sent_extent *tmp;

	if (!cache)
		return;
	list_for_each_entry_safe(e, tmp, &cache->fifo, fifo)
		kfree(e);
	kfree(cache);
	sctx->extents = NULL;
}

/* Remember that the receiver now has @ext's data in the current inode. */
static void extent_cache_add(struct send_ctx *sctx,
			     const struct data_extent *ext)
{
	struct send_extent_cache *cache = sctx->extents;
	struct sent_extent *e;

	if (cache->nr >= EXTENT_CACHE_MAX) {
		e = list_first_entry(&cache->fifo, struct sent_extent, fifo);
		hash_del(&e->hash);
		list_del(&e->fifo);
		cache->nr--;
	} else {
		/* The table is only a shortcut: no memory, no entry. */
		e = kmalloc(sizeof(*e), GFP_KERNEL | __GFP_NOWARN);
		if (!e)
			return;
	}
	e->disk_bytenr = ext->disk_bytenr;
	e->ino = sctx->cur.ino;
	e->file_off = ext->off;
	e->extent_off = ext->extent_off;
	e->len = ext->len;
	e->isize = sctx->cur.size;
	hash_add(cache->table, &e->hash, ext->disk_bytenr);
	list_add_tail(&e->fifo, &cache->fifo);
	cache->nr++;
}

/*
 * Size of inode @ino in @root, or -ENOENT if it has no links: such inodes
 * are not sent, so the receiver does not have them to clone from.
 */
static int inode_size_in(struct btrfs_root *root, struct btrfs_path *path,
			 u64 ino, u64 *size)
{
	struct btrfs_inode_item *ii;
	struct btrfs_key key = {
		.objectid = ino,
		.type = BTRFS_INODE_ITEM_KEY,
	};
	int ret;

	ret = btrfs_search_slot(NULL, root, &key, path, 0, 0);
	if (ret > 0)
		ret = -ENOENT;
	if (ret < 0)
		goto out;
	ii = btrfs_item_ptr(path->nodes[0], path->slots[0],
			    struct btrfs_inode_item);
	*size = btrfs_inode_size(path->nodes[0], ii);
	if (btrfs_inode_nlink(path->nodes[0], ii) == 0)
		ret = -ENOENT;
out:
	btrfs_release_path(path);
	return ret;
}

/* The file extent item of an inode covering, or else following, an offset. */
struct extent_span {
	bool found;		/* false: no item at or after the offset */
	u8 type;
	u64 start;		/* file range of the item */
	u64 end;
	u64 disk_bytenr;	/* 0 for holes and inline extents */
	u64 extent_off;
};

static void fill_span(const struct extent_buffer *leaf, int slot, u64 start,
		      struct extent_span *sp)
{
	struct btrfs_file_extent_item *fi;

	fi = btrfs_item_ptr(leaf, slot, struct btrfs_file_extent_item);
	sp->found = true;
	sp->type = btrfs_file_extent_type(leaf, fi);
	sp->start = start;
	if (sp->type == BTRFS_FILE_EXTENT_INLINE) {
		sp->end = start + btrfs_file_extent_ram_bytes(leaf, fi);
		sp->disk_bytenr = 0;
		sp->extent_off = 0;
		return;
	}
	sp->end = start + btrfs_file_extent_num_bytes(leaf, fi);
	sp->disk_bytenr = btrfs_file_extent_disk_bytenr(leaf, fi);
	sp->extent_off = btrfs_file_extent_offset(leaf, fi);
}

static bool is_extent_key(const struct btrfs_key *key, u64 ino)
{
	return key->objectid == ino && key->type == BTRFS_EXTENT_DATA_KEY;
}

static int lookup_extent_span(struct btrfs_root *root, u64 ino, u64 off,
			      struct extent_span *sp)
{
	struct btrfs_path *path;
	struct btrfs_key key = {
		.objectid = ino,
		.type = BTRFS_EXTENT_DATA_KEY,
		.offset = off,
	};
	int ret;

	sp->found = false;
	path = send_alloc_path();
	if (!path)
		return -ENOMEM;
	ret = btrfs_search_slot(NULL, root, &key, path, 0, 0);
	if (ret < 0)
		goto out;
	if (ret > 0 && path->slots[0] > 0) {
		/* The item covering @off may start before it. */
		btrfs_item_key_to_cpu(path->nodes[0], &key, path->slots[0] - 1);
		if (is_extent_key(&key, ino)) {
			fill_span(path->nodes[0], path->slots[0] - 1,
				  key.offset, sp);
			if (sp->end > off) {
				ret = 0;
				goto out;
			}
			sp->found = false;
		}
	}
	if (path->slots[0] >= btrfs_header_nritems(path->nodes[0])) {
		ret = btrfs_next_leaf(root, path);
		if (ret)
			goto out_none;
	}
	btrfs_item_key_to_cpu(path->nodes[0], &key, path->slots[0]);
	if (is_extent_key(&key, ino))
		fill_span(path->nodes[0], path->slots[0], key.offset, sp);
	ret = 0;
out_none:
	if (ret > 0)
		ret = 0;
out:
	btrfs_free_path(path);
	return ret;
}

/* Whether @sp covers [off, off + ext->len) with the very bytes of @ext. */
static bool span_maps(const struct extent_span *sp,
		      const struct data_extent *ext, u64 off)
{
	return sp->found && sp->type == ext->type &&
	       sp->disk_bytenr == ext->disk_bytenr && sp->start <= off &&
	       off + ext->len <= sp->end &&
	       sp->extent_off + (off - sp->start) == ext->extent_off;
}

/*
 * Incremental send: whether the receiver already holds @ext where it goes,
 * because the parent's version of the inode has the same bytes there.
 * Returns 1 if so, 0 if not.
 */
static int on_receiver_already(struct send_ctx *sctx,
			       const struct data_extent *ext)
{
	struct extent_span sp;
	int ret;

	if (!sctx->cur.in_parent ||
	    ext->off + ext->len > sctx->cur.parent_size)
		return 0;
	ret = lookup_extent_span(sctx->parent_root, sctx->cur.ino, ext->off,
				 &sp);
	if (ret)
		return ret;
	return span_maps(&sp, ext, ext->off) ? 1 : 0;
}

/* ---- where the receiver already holds the data ------------------------ */

/*
 * Note that inode @ino of @root (of size @src_isize) holds the bytes
 * [x, x_end) of the current extent's disk extent from file offset @src_off
 * on.  What the current extent has of them becomes a piece, cut to what
 * clone accepts: ranges within the source's size, sector aligned except
 * for a tail that ends both files.
 */
static void plan_add(struct send_ctx *sctx, struct clone_plan *plan,
		     struct btrfs_root *root, u64 ino, u64 src_isize,
		     u64 x, u64 x_end, u64 src_off)
{
	const struct data_extent *ext = plan->ext;
	u32 bs = sctx->fs_info->sectorsize;
	u64 lo = max(x, ext->extent_off);
	u64 hi = min(x_end, ext->extent_off + ext->len);
	struct clone_piece *p;
	u64 off;
	u64 end;
	u32 i;

	if (lo >= hi)
		return;
	src_off += lo - x;
	off = ext->off + (lo - ext->extent_off);
	end = off + (hi - lo);
	if (!IS_ALIGNED(off, bs) || !IS_ALIGNED(src_off, bs) ||
	    src_off >= src_isize)
		return;
	/*
	 * A file of at most one sector may be inline on the receiver, and
	 * inline extents cannot be cloned to other offsets.
	 */
	if (src_off == 0 && src_isize <= bs)
		return;
	end = min(end, off + (src_isize - src_off));
	/* In the current inode, only what went out before this extent. */
	if (root == sctx->send_root && ino == sctx->cur.ino) {
		if (src_off >= ext->off)
			return;
		end = min(end, off + (ext->off - src_off));
	}
	if (!IS_ALIGNED(end, bs) &&
	    (src_off + (end - off) != src_isize || end != sctx->cur.size))
		end = round_down(end, bs);
	if (end <= off)
		return;

	/* A continuation of a piece from the same file extends it. */
	for (i = 0; i < plan->nr; i++) {
		p = &plan->pieces[i];
		if (p->src.root != root || p->src.ino != ino)
			continue;
		if (p->end == off && p->src.offset + (off - p->off) == src_off) {
			p->end = end;
			return;
		}
		if (end == p->off && src_off + (end - off) == p->src.offset) {
			p->off = off;
			p->src.offset = src_off;
			return;
		}
	}
	if (plan->nr == CLONE_PIECES_MAX)
		return;
	p = &plan->pieces[plan->nr++];
	p->src.root = root;
	p->src.ino = ino;
	p->src.offset = src_off;
	p->off = off;
	p->end = end;
}

/* Whether one piece covers the whole current extent. */
static bool plan_covers(const struct clone_plan *plan)
{
	const struct data_extent *ext = plan->ext;
	u32 i;

	for (i = 0; i < plan->nr; i++) {
		if (plan->pieces[i].off == ext->off &&
		    plan->pieces[i].end == ext->off + ext->len)
			return true;
	}
	return false;
}

/* Ranges this send already gave the receiver (extent_cache_add()). */
static void plan_from_cache(struct send_ctx *sctx, struct clone_plan *plan)
{
	const struct data_extent *ext = plan->ext;
	struct sent_extent *e;

	hash_for_each_possible(sctx->extents->table, e, hash,
			       ext->disk_bytenr) {
		if (e->disk_bytenr != ext->disk_bytenr)
			continue;
		plan_add(sctx, plan, sctx->send_root, e->ino, e->isize,
			 e->extent_off, e->extent_off + e->len, e->file_off);
		if (plan_covers(plan) || plan->nr == CLONE_PIECES_MAX)
			return;
	}
}

/*
 * The file extent items of inode @ino in @root from file offset @hint on
 * (the item covering it first) that refer to the current extent's disk
 * extent: a few items, those that can hold its bytes from @hint on.
 */
static int plan_from_file(struct send_ctx *sctx, struct clone_plan *plan,
			  struct btrfs_root *root, u64 ino, u64 hint)
{
	const struct data_extent *ext = plan->ext;
	struct btrfs_path *path;
	struct extent_span sp;
	bool have_size = false;
	u64 isize = 0;
	u64 pos = hint;
	int ret = 0;
	u32 i;

	path = send_alloc_path();
	if (!path)
		return -ENOMEM;
	for (i = 0; i < SRC_ITEMS_READ; i++) {
		ret = lookup_extent_span(root, ino, pos, &sp);
		if (ret || !sp.found || (i > 0 && sp.start >= hint + ext->len))
			break;
		if (sp.type == BTRFS_FILE_EXTENT_REG &&
		    sp.disk_bytenr == ext->disk_bytenr) {
			if (!have_size) {
				ret = inode_size_in(root, path, ino, &isize);
				if (ret)
					break;
				have_size = true;
			}
			plan_add(sctx, plan, root, ino, isize, sp.extent_off,
				 sp.extent_off + (sp.end - sp.start), sp.start);
		}
		if (sp.end >= hint + ext->len)
			break;
		pos = sp.end;
	}
	btrfs_free_path(path);
	/* Without links the receiver has no such file. */
	return ret == -ENOENT ? 0 : ret;
}

/* The same inode at the same offset in a clone source (an older snapshot). */
static int plan_from_same_place(struct send_ctx *sctx,
				struct clone_plan *plan)
{
	u32 tried = 0;
	u32 i;

	/*
	 * The parent first: the receiver holds it unchanged, and an incremental
	 * send of the same subvolume finds most moved data there.
	 */
	for (i = 0; i <= sctx->nr_clone_srcs && tried < CLONE_SRCS_TRIED; i++) {
		struct btrfs_root *root;
		int ret;

		if (i == 0)
			root = sctx->parent_root;
		else
			root = sctx->clone_srcs[i - 1].root;
		if (!root || root == sctx->send_root ||
		    (i > 0 && root == sctx->parent_root))
			continue;
		tried++;
		ret = plan_from_file(sctx, plan, root, sctx->cur.ino,
				     plan->ext->off);
		if (ret)
			return ret;
		if (plan_covers(plan))
			return 0;
	}
	return 0;
}

struct backref_walk {
	struct send_ctx *sctx;
	const struct data_extent *ext;
	struct clone_src cands[BACKREF_MAX_CANDIDATES];
	u32 nr;
};

static int clone_src_cmp(const void *key, const void *elt)
{
	u64 id = *(const u64 *)key;
	const struct send_clone_src *src = elt;

	if (id < src->root->root_key.objectid)
		return -1;
	if (id > src->root->root_key.objectid)
		return 1;
	return 0;
}

/*
 * Called by the backref walk with the commit root semaphore held: only
 * note candidates here, they are read after the walk.
 */
static int backref_walk_cb(u64 ino, u64 offset, u64 root_id, void *ctx)
{
	struct backref_walk *bw = ctx;
	struct send_ctx *sctx = bw->sctx;
	struct send_clone_src *src;
	struct btrfs_root *root;

	if (sctx->parent_root &&
	    root_id == sctx->parent_root->root_key.objectid) {
		/* The receiver holds the parent as it is. */
		root = sctx->parent_root;
	} else {
		src = bsearch(&root_id, sctx->clone_srcs, sctx->nr_clone_srcs,
			      sizeof(*sctx->clone_srcs), clone_src_cmp);
		if (!src)
			return 0;
		root = src->root;
	}
	/*
	 * Within the send root only what the receiver already has: inodes
	 * done before this one (in an incremental send, lower inodes are
	 * either done or the same as in the parent) and ranges of the
	 * current inode before the current extent.
	 */
	if (root == sctx->send_root &&
	    (ino > sctx->cur.ino ||
	     (ino == sctx->cur.ino && offset >= bw->ext->off)))
		return 0;
	bw->cands[bw->nr].root = root;
	bw->cands[bw->nr].ino = ino;
	bw->cands[bw->nr].offset = offset;
	bw->nr++;
	return bw->nr == BACKREF_MAX_CANDIDATES ? 1 : 0;
}

static int extent_refs(struct send_ctx *sctx, const struct data_extent *ext,
		       u64 *refs)
{
	struct btrfs_root *extent_root;
	struct btrfs_extent_item *ei;
	struct btrfs_path *path;
	struct btrfs_key key = {
		.objectid = ext->disk_bytenr,
		.type = BTRFS_EXTENT_ITEM_KEY,
		.offset = ext->disk_num_bytes,
	};
	int ret;

	extent_root = btrfs_extent_root(sctx->fs_info, ext->disk_bytenr);
	path = send_alloc_path();
	if (!path)
		return -ENOMEM;
	down_read(&sctx->fs_info->commit_root_sem);
	ret = send_search_held(extent_root, &key, path);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret) {
		ei = btrfs_item_ptr(path->nodes[0], path->slots[0],
				    struct btrfs_extent_item);
		*refs = btrfs_extent_refs(path->nodes[0], ei);
	}
	btrfs_release_path(path);
	up_read(&sctx->fs_info->commit_root_sem);
	btrfs_free_path(path);
	return ret;
}

static int plan_from_backrefs(struct send_ctx *sctx, struct clone_plan *plan)
{
	const struct data_extent *ext = plan->ext;
	struct backref_walk *bw;
	u64 refs;
	u32 i;
	int ret;

	ret = extent_refs(sctx, ext, &refs);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	if (refs > BACKREF_MAX_REFS)
		return 0;
	/*
	 * One reference is the item being sent.  Other roots hold it only by
	 * sharing its leaf, so at the same inode and offset, where
	 * plan_from_same_place() looked if it tried every root.
	 */
	if (refs == 1 && sctx->nr_clone_srcs < CLONE_SRCS_TRIED)
		return 0;

	bw = kzalloc(sizeof(*bw), GFP_KERNEL);
	if (!bw)
		return -ENOMEM;
	bw->sctx = sctx;
	bw->ext = ext;
	/*
	 * Every item that refers to the extent, at its first file offset: an
	 * item holding only later bytes of the extent holds a piece too.
	 */
	ret = iterate_extent_inodes(sctx->fs_info, ext->disk_bytenr,
				    ext->extent_off, 1, backref_walk_cb, bw,
				    true);
	if (ret < 0)
		goto out;
	ret = 0;
	for (i = 0; i < bw->nr && !plan_covers(plan); i++) {
		struct clone_src *c = &bw->cands[i];

		ret = plan_from_file(sctx, plan, c->root, c->ino, c->offset);
		if (ret)
			break;
	}
out:
	kfree(bw);
	return ret;
}

/*
 * Find where the receiver already holds parts of @ext: the pieces of
 * sctx's plan.  Cheap sources first; a source that has it all ends the
 * search.
 */
static int plan_clones(struct send_ctx *sctx, const struct data_extent *ext,
		       struct clone_plan **planp)
{
	struct clone_plan *plan = &sctx->extents->plan;
	int ret;

	plan->ext = ext;
	plan->nr = 0;
	*planp = plan;
	if (ext->type != BTRFS_FILE_EXTENT_REG)
		return 0;
	plan_from_cache(sctx, plan);
	if (plan_covers(plan))
		return 0;
	ret = plan_from_same_place(sctx, plan);
	if (ret || plan_covers(plan))
		return ret;
	return plan_from_backrefs(sctx, plan);
}

/* The piece holding @pos that reaches furthest, or NULL. */
static const struct clone_piece *plan_piece_at(const struct clone_plan *plan,
					       u64 pos)
{
	const struct clone_piece *best = NULL;
	u32 i;

	for (i = 0; i < plan->nr; i++) {
		const struct clone_piece *p = &plan->pieces[i];

		if (p->off <= pos && pos < p->end && (!best || p->end > best->end))
			best = p;
	}
	return best;
}

/* Where the first piece after @pos starts, or @end. */
static u64 plan_next_start(const struct clone_plan *plan, u64 pos, u64 end)
{
	u32 i;

	for (i = 0; i < plan->nr; i++) {
		if (plan->pieces[i].off > pos)
			end = min(end, plan->pieces[i].off);
	}
	return end;
}

static int send_open_inode(struct send_ctx *sctx)
{
	struct inode *inode;

	if (sctx->cur.vfs)
		return 0;
	inode = btrfs_iget(sctx->fs_info->sb, sctx->cur.ino, sctx->send_root);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	sctx->cur.vfs = inode;
	file_ra_state_init(&sctx->cur.ra, inode->i_mapping);
	sctx->cur.drop_read_pages = inode->i_mapping->nrpages == 0;
	sctx->cur.read_first = (pgoff_t)-1;
	return 0;
}

void send_data_close_inode(struct send_ctx *sctx)
{
	struct send_inode *cur = &sctx->cur;

	if (!cur->vfs)
		return;
	/*
	 * Clean pages of a read-only root: dropping them loses nothing.  From
	 * the first page read to the end, as read-ahead goes past the last;
	 * unlike invalidate_mapping_pages() this also drops pages still held
	 * by the LRU's per-CPU batches, and unmaps pages mapped meanwhile.
	 */
	if (cur->drop_read_pages && cur->read_first != (pgoff_t)-1)
		invalidate_inode_pages2_range(cur->vfs->i_mapping,
					      cur->read_first, (pgoff_t)-1);
	iput(cur->vfs);
	cur->vfs = NULL;
}

/*
 * The up to date page cache page @index of the current inode, with a
 * reference, reading ahead up to @last.  Reading through the page cache
 * also decompresses.
 */
static struct page *get_file_page(struct send_ctx *sctx, pgoff_t index,
				  pgoff_t last)
{
	struct address_space *mapping = sctx->cur.vfs->i_mapping;
	struct page *page;

	page = find_get_page(mapping, index);
	if (!page) {
		page_cache_sync_readahead(mapping, &sctx->cur.ra, NULL,
					  index, last + 1 - index);
	} else {
		if (PageReadahead(page))
			page_cache_async_readahead(mapping, &sctx->cur.ra,
						   NULL, page_folio(page),
						   index, last + 1 - index);
		/* The usual case: no second lookup. */
		if (PageUptodate(page))
			return page;
		put_page(page);
	}
	page = read_mapping_page(mapping, index, NULL);
	if (IS_ERR(page))
		btrfs_err(sctx->fs_info,
			  "send: cannot read offset %llu of inode %llu root %llu: %ld",
			  (u64)index << PAGE_SHIFT, sctx->cur.ino,
			  sctx->send_root->root_key.objectid, PTR_ERR(page));
	return page;
}

/*
 * Take references to the @nr pages holding [off, off + len) of the
 * current inode.  On error none are left taken.
 */
static int get_file_pages(struct send_ctx *sctx, u64 off, u32 len,
			  struct page **pages, u32 *nr)
{
	pgoff_t first = off >> PAGE_SHIFT;
	pgoff_t last = (off + len - 1) >> PAGE_SHIFT;
	pgoff_t index;
	int ret;

	*nr = 0;
	ret = send_open_inode(sctx);
	if (ret)
		return ret;
	sctx->cur.read_first = min(sctx->cur.read_first, first);
	for (index = first; index <= last; index++) {
		struct page *page = get_file_page(sctx, index, last);

		if (IS_ERR(page)) {
			while (*nr)
				put_page(pages[--*nr]);
			return PTR_ERR(page);
		}
		pages[(*nr)++] = page;
	}
	return 0;
}

/* Copy file data out of the page cache. */
static int read_file_data(struct send_ctx *sctx, u64 off, u32 len, char *dst)
{
	pgoff_t index = off >> PAGE_SHIFT;
	pgoff_t last = (off + len - 1) >> PAGE_SHIFT;
	u32 pg_off = offset_in_page(off);
	int ret;

	ret = send_open_inode(sctx);
	if (ret)
		return ret;
	sctx->cur.read_first = min(sctx->cur.read_first, index);

	while (len) {
		u32 n = min_t(u32, len, PAGE_SIZE - pg_off);
		struct page *page = get_file_page(sctx, index, last);

		if (IS_ERR(page))
			return PTR_ERR(page);
		memcpy_from_page(dst, page, pg_off, n);
		put_page(page);
		dst += n;
		len -= n;
		pg_off = 0;
		index++;
	}
	return 0;
}

/*
 * Finish a WRITE whose DATA attribute is next: its @len bytes at @off go
 * into a pipe output by reference to their pages, else they are copied.
 */
static int send_write_data(struct send_ctx *sctx, u64 off, u32 len)
{
	struct send_stream *s = &sctx->stream;
	struct page *pages[SEND_REF_PAGES_MAX];
	void *dst;
	u32 nr;
	int ret;

	/* Before the resume point only the length counts: read nothing. */
	if (send_measuring(s)) {
		dst = send_put_data_begin(s, len);
		if (IS_ERR(dst))
			return PTR_ERR(dst);
		return send_cmd_end(s);
	}
	if (s->pipe && DIV_ROUND_UP(offset_in_page(off) + len, PAGE_SIZE) <=
		       ARRAY_SIZE(pages)) {
		ret = send_put_data_ref(s, len);
		if (ret)
			return ret;
		ret = get_file_pages(sctx, off, len, pages, &nr);
		if (ret)
			return ret;
		return send_cmd_end_pages(s, pages, nr, offset_in_page(off));
	}
	dst = send_put_data_begin(s, len);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	ret = read_file_data(sctx, off, len, dst);
	if (ret)
		return ret;
	return send_cmd_end(s);
}

static void note_written(struct send_ctx *sctx, u64 end)
{
	if (end > sctx->cur.recv_size)
		sctx->cur.recv_size = end;
}

/* WRITE [off, off + len) of the current inode, or zeros if @zeros. */
static int send_write_range(struct send_ctx *sctx, u64 off, u64 len,
			    bool zeros)
{
	struct send_stream *s = &sctx->stream;
	u32 chunk = s->buf_size - SEND_DATA_HEADROOM;
	int ret;

	while (len) {
		u32 n;
		void *dst;

		ret = send_cmd_begin(s, BTRFS_SEND_C_WRITE);
		if (ret)
			return ret;
		ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
		if (ret)
			return ret;
		ret = send_put_u64(s, BTRFS_SEND_A_FILE_OFFSET, off);
		if (ret)
			return ret;
		/* A very long path leaves less room for data. */
		n = min_t(u64, len, min(chunk, send_data_room(s)));
		if (!n)
			return -ENAMETOOLONG;
		if (zeros) {
			dst = send_put_data_begin(s, n);
			if (IS_ERR(dst))
				return PTR_ERR(dst);
			memset(dst, 0, n);
			ret = send_cmd_end(s);
		} else {
			ret = send_write_data(sctx, off, n);
		}
		if (ret)
			return ret;
		off += n;
		len -= n;
		note_written(sctx, off);
	}
	return 0;
}

static int send_write(struct send_ctx *sctx, u64 off, u64 len)
{
	return send_write_range(sctx, off, len, false);
}

/* Uncompressed inline data is copied straight from the leaf. */
static int send_inline_write(struct send_ctx *sctx, struct extent_buffer *leaf,
			     struct btrfs_file_extent_item *fi,
			     const struct data_extent *ext)
{
	struct send_stream *s = &sctx->stream;
	void *dst;
	int ret;

	ret = send_cmd_begin(s, BTRFS_SEND_C_WRITE);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_FILE_OFFSET, ext->off);
	if (ret)
		return ret;
	dst = send_put_data_begin(s, ext->len);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	read_extent_buffer(leaf, dst, btrfs_file_extent_inline_start(fi),
			   ext->len);
	ret = send_cmd_end(s);
	if (ret)
		return ret;
	note_written(sctx, ext->off + ext->len);
	return 0;
}

static int send_update_extent(struct send_ctx *sctx,
			      const struct data_extent *ext)
{
	struct send_stream *s = &sctx->stream;
	int ret;

	ret = send_cmd_begin(s, BTRFS_SEND_C_UPDATE_EXTENT);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_FILE_OFFSET, ext->off);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_SIZE, ext->len);
	if (ret)
		return ret;
	ret = send_cmd_end(s);
	if (ret)
		return ret;
	note_written(sctx, ext->off + ext->len);
	return 0;
}

/*
 * Preallocated space is sent as such (v2) instead of as a hole, so that
 * the receiver keeps the allocation a nodatacow or database file relies on.
 */
static int send_fallocate(struct send_ctx *sctx, u32 mode, u64 off, u64 len)
{
	struct send_stream *s = &sctx->stream;
	int ret;

	ret = send_cmd_begin(s, BTRFS_SEND_C_FALLOCATE);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_u32(s, BTRFS_SEND_A_FALLOCATE_MODE, mode);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_FILE_OFFSET, off);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_SIZE, len);
	if (ret)
		return ret;
	ret = send_cmd_end(s);
	if (ret)
		return ret;
	if (!(mode & FALLOC_FL_KEEP_SIZE))
		note_written(sctx, off + len);
	return 0;
}

/*
 * Incremental send: make the pending range read as zeros on the receiver,
 * where the parent had data and the send root has none.  Version 2 punches
 * a hole; version 1 has no other way than writing zeros.
 */
static int zero_range_flush(struct send_ctx *sctx)
{
	struct send_inode *cur = &sctx->cur;
	u64 off = cur->zero_start;
	u64 len = cur->zero_end - cur->zero_start;

	if (!len)
		return 0;
	cur->zero_start = 0;
	cur->zero_end = 0;
	if (send_no_data(sctx)) {
		struct data_extent ext = { .off = off, .len = len };

		return send_update_extent(sctx, &ext);
	}
	if (sctx->stream.proto >= 2)
		return send_fallocate(sctx, FALLOC_FL_PUNCH_HOLE |
				      FALLOC_FL_KEEP_SIZE, off, len);
	return send_write_range(sctx, off, len, true);
}

/*
 * Add [start, end) to the ranges to zero, clamped to where the receiver
 * has data (the parent's size) and to what survives the final truncate.
 * Adjacent ranges (one per parent extent) go out as one command.
 */
static int zero_range_add(struct send_ctx *sctx, u64 start, u64 end)
{
	struct send_inode *cur = &sctx->cur;
	int ret;

	end = min3(end, cur->parent_size, cur->size);
	if (start >= end)
		return 0;
	if (cur->zero_end != start) {
		ret = zero_range_flush(sctx);
		if (ret)
			return ret;
		cur->zero_start = start;
	}
	cur->zero_end = end;
	return 0;
}

/* TRUNCATE the current inode to its final size. */
static int send_truncate(struct send_ctx *sctx)
{
	struct send_stream *s = &sctx->stream;
	int ret;

	ret = send_cmd_begin(s, BTRFS_SEND_C_TRUNCATE);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_SIZE, sctx->cur.size);
	if (ret)
		return ret;
	ret = send_cmd_end(s);
	if (ret)
		return ret;
	sctx->cur.recv_size = sctx->cur.size;
	return 0;
}

static int send_clone(struct send_ctx *sctx, const struct data_extent *ext,
		      const struct clone_src *src)
{
	struct send_stream *s = &sctx->stream;
	struct btrfs_root_item *ri = &src->root->root_item;
	u8 *uuid = ri->uuid;
	int ret;

	/*
	 * An unaligned tail ends the file (plan_add()), and clone refuses it
	 * where the receiver's file goes on: in an incremental send the file
	 * may still be longer there.  Give it its final size first.
	 */
	if (!IS_ALIGNED(ext->off + ext->len, sctx->fs_info->sectorsize) &&
	    sctx->cur.recv_size > ext->off + ext->len) {
		ret = send_truncate(sctx);
		if (ret)
			return ret;
	}
	if (src->root == sctx->send_root)
		ret = send_cur_path(sctx, src->ino, 0, &sctx->path);
	else
		ret = send_tree_path(src->root, src->ino, &sctx->path);
	if (ret)
		return ret;
	if (!btrfs_is_empty_uuid(ri->received_uuid))
		uuid = ri->received_uuid;

	ret = send_cmd_begin(s, BTRFS_SEND_C_CLONE);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_FILE_OFFSET, ext->off);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_CLONE_LEN, ext->len);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_attr(s, BTRFS_SEND_A_CLONE_UUID, uuid, BTRFS_UUID_SIZE);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_CLONE_CTRANSID,
			   btrfs_root_ctransid(ri));
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_CLONE_PATH, &sctx->path);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_CLONE_OFFSET, src->offset);
	if (ret)
		return ret;
	ret = send_cmd_end(s);
	if (ret)
		return ret;
	note_written(sctx, ext->off + ext->len);
	return 0;
}

/*
 * End an ENCODED_WRITE whose payload is in @nr_pages @pages: into a pipe
 * output the pages go by reference (their own, freshly read, so nothing
 * can change them), else the payload is copied into the command.  The
 * caller keeps its references to the pages either way.
 */
static int send_encoded_pages(struct send_stream *s, struct page **pages,
			      u32 nr_pages, u32 data_len)
{
	char *dst;
	u32 done;
	u32 i;
	int ret;

	if (s->pipe) {
		ret = send_put_data_ref(s, data_len);
		if (ret)
			return ret;
		/* The pipe's references, consumed also on error. */
		for (i = 0; i < nr_pages; i++)
			get_page(pages[i]);
		return send_cmd_end_pages(s, pages, nr_pages, 0);
	}
	dst = send_put_data_begin(s, data_len);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	for (done = 0; done < data_len; done += PAGE_SIZE)
		memcpy_from_page(dst + done, pages[done >> PAGE_SHIFT], 0,
				 min_t(u32, PAGE_SIZE, data_len - done));
	return send_cmd_end(s);
}

/*
 * Send a compressed extent as it is on disk.  The payload was read from
 * disk into @pages for regular extents, from the leaf for inline ones;
 * before the resume point it was not read, both are NULL.
 */
static int send_encoded(struct send_ctx *sctx, const struct data_extent *ext,
			int compression, const void *inline_data,
			struct page **pages, u32 nr_pages)
{
	struct send_stream *s = &sctx->stream;
	u32 data_len = ext->disk_num_bytes;
	char *dst;
	int ret;

	ret = send_cmd_begin(s, BTRFS_SEND_C_ENCODED_WRITE);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_FILE_OFFSET, ext->off);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_UNENCODED_FILE_LEN, ext->len);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_UNENCODED_LEN, ext->ram_bytes);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_UNENCODED_OFFSET, ext->extent_off);
	if (ret)
		return ret;
	ret = send_put_u32(s, BTRFS_SEND_A_COMPRESSION, compression);
	if (ret)
		return ret;
	/* No encryption exists; inline extents leave it out like 6.1. */
	if (ext->type != BTRFS_FILE_EXTENT_INLINE) {
		ret = send_put_u32(s, BTRFS_SEND_A_ENCRYPTION, 0);
		if (ret)
			return ret;
	}
	if (pages) {
		ret = send_encoded_pages(s, pages, nr_pages, data_len);
	} else {
		dst = send_put_data_begin(s, data_len);
		if (IS_ERR(dst))
			return PTR_ERR(dst);
		if (inline_data)
			memcpy(dst, inline_data, data_len);
		ret = send_cmd_end(s);
	}
	if (ret)
		return ret;
	note_written(sctx, ext->off + ext->len);
	return 0;
}

/* Returns 1 if the extent went out as ENCODED_WRITE, 0 to send it plainly. */
static int try_send_encoded(struct send_ctx *sctx, struct extent_buffer *leaf,
			    int slot, struct btrfs_file_extent_item *fi,
			    const struct data_extent *ext)
{
	struct page **pages = NULL;
	void *inline_data = NULL;
	u32 nr_pages = 0;
	int compression;
	u32 i;
	int ret;

	if (!(sctx->flags & BTRFS_SEND_FLAG_COMPRESSED) ||
	    ext->compression == BTRFS_COMPRESS_NONE)
		return 0;
	compression = btrfs_encoded_io_compression_from_extent(sctx->fs_info,
							       ext->compression);
	if (compression <= 0)
		return 0;
	/* The payload and the attributes in front of it must fit. */
	if (ext->disk_num_bytes + send_path_len(&sctx->cur_path) + 128 >
	    sctx->stream.buf_size)
		return 0;

	if (ext->type != BTRFS_FILE_EXTENT_INLINE &&
	    ext->disk_num_bytes > ext->len)
		return 0;
	/* Before the resume point only the length counts: read nothing. */
	if (send_measuring(&sctx->stream))
		goto encode;
	if (ext->type == BTRFS_FILE_EXTENT_INLINE) {
		inline_data = kmalloc(ext->disk_num_bytes, GFP_KERNEL);
		if (!inline_data)
			return -ENOMEM;
		read_extent_buffer(leaf, inline_data,
				   btrfs_file_extent_inline_start(fi),
				   ext->disk_num_bytes);
	} else {
		ret = send_open_inode(sctx);
		if (ret)
			return ret;
		nr_pages = DIV_ROUND_UP(ext->disk_num_bytes, PAGE_SIZE);
		pages = kcalloc(nr_pages, sizeof(*pages), GFP_KERNEL);
		if (!pages)
			return -ENOMEM;
		for (i = 0; i < nr_pages; i++) {
			pages[i] = alloc_page(GFP_KERNEL);
			if (!pages[i]) {
				ret = -ENOMEM;
				goto out_free_pages;
			}
		}
		ret = btrfs_encoded_read_regular_fill_pages(BTRFS_I(sctx->cur.vfs),
							    ext->off - ext->extent_off,
							    ext->disk_bytenr,
							    ext->disk_num_bytes, pages);
		if (ret)
			goto out_free_pages;
	}
encode:
	ret = send_encoded(sctx, ext, compression, inline_data, pages, nr_pages);
	if (!ret)
		ret = 1;
out_free_pages:
	for (i = 0; i < nr_pages && pages[i]; i++)
		__free_page(pages[i]);
	kfree(pages);
	kfree(inline_data);
	return ret;
}

/* Send range @seg of a regular extent as data. */
static int send_extent_data(struct send_ctx *sctx, struct extent_buffer *leaf,
			    int slot, struct btrfs_file_extent_item *fi,
			    const struct data_extent *seg)
{
	int ret;

	if (send_no_data(sctx))
		return send_update_extent(sctx, seg);
	ret = try_send_encoded(sctx, leaf, slot, fi, seg);
	if (ret)
		return ret < 0 ? ret : 0;
	return send_write(sctx, seg->off, seg->len);
}

/*
 * Send the extent of @plan in order: each piece as a clone, what lies
 * between them as data.  Written ranges, and the parts of an extent sent
 * in pieces, are remembered as clone sources for the files after this one.
 */
static int send_planned(struct send_ctx *sctx, struct extent_buffer *leaf,
			int slot, struct btrfs_file_extent_item *fi,
			const struct clone_plan *plan)
{
	const struct data_extent *ext = plan->ext;
	u64 end = ext->off + ext->len;
	u64 pos = ext->off;
	int ret;

	while (pos < end) {
		const struct clone_piece *p = plan_piece_at(plan, pos);
		struct data_extent seg = *ext;

		seg.off = pos;
		seg.extent_off = ext->extent_off + (pos - ext->off);
		seg.len = (p ? p->end : plan_next_start(plan, pos, end)) - pos;
		if (p) {
			struct clone_src src = p->src;

			src.offset += pos - p->off;
			ret = send_clone(sctx, &seg, &src);
		} else {
			ret = send_extent_data(sctx, leaf, slot, fi, &seg);
		}
		if (ret)
			return ret;
		if (!p || seg.len != ext->len)
			extent_cache_add(sctx, &seg);
		pos += seg.len;
	}
	return 0;
}

/*
 * Block group relocation moves extents and rewrites the items pointing at
 * them; a leaf copied before that may carry the old disk address, which
 * must not be used to read raw data or to look for clones.
 */
static bool item_is_stale(struct send_ctx *sctx, u64 reloc_trans)
{
	bool stale;

	down_read(&sctx->fs_info->commit_root_sem);
	stale = sctx->fs_info->last_reloc_trans != reloc_trans;
	up_read(&sctx->fs_info->commit_root_sem);
	return stale;
}

static int send_extent(struct send_ctx *sctx, struct extent_buffer *leaf,
		       int slot, const struct btrfs_key *key)
{
	struct btrfs_file_extent_item *fi;
	struct data_extent ext = { .off = key->offset };
	struct clone_plan *plan;
	u64 end;
	int ret;

	if (key->offset >= sctx->cur.size)
		return 0;
	fi = btrfs_item_ptr(leaf, slot, struct btrfs_file_extent_item);
	ext.type = btrfs_file_extent_type(leaf, fi);
	ext.compression = btrfs_file_extent_compression(leaf, fi);
	ext.ram_bytes = btrfs_file_extent_ram_bytes(leaf, fi);

	if (ext.type == BTRFS_FILE_EXTENT_INLINE) {
		if (key->offset != 0)
			return -EUCLEAN;
		ext.len = min(ext.ram_bytes, sctx->cur.size);
		ext.disk_num_bytes = btrfs_file_extent_inline_item_len(leaf,
								       slot);
		if (send_no_data(sctx))
			return send_update_extent(sctx, &ext);
		ret = try_send_encoded(sctx, leaf, slot, fi, &ext);
		if (ret)
			return ret < 0 ? ret : 0;
		if (ext.compression == BTRFS_COMPRESS_NONE)
			return send_inline_write(sctx, leaf, fi, &ext);
		return send_write(sctx, ext.off, ext.len);
	}
	if (ext.type != BTRFS_FILE_EXTENT_REG &&
	    ext.type != BTRFS_FILE_EXTENT_PREALLOC)
		return -EUCLEAN;

	ext.disk_bytenr = btrfs_file_extent_disk_bytenr(leaf, fi);
	ext.disk_num_bytes = btrfs_file_extent_disk_num_bytes(leaf, fi);
	ext.extent_off = btrfs_file_extent_offset(leaf, fi);
	end = min(key->offset + btrfs_file_extent_num_bytes(leaf, fi),
		  sctx->cur.size);
	ext.len = end - key->offset;
	if (ext.disk_bytenr == 0 || ext.len == 0)
		return 0;

	ret = on_receiver_already(sctx, &ext);
	if (ret)
		return ret < 0 ? ret : 0;

	if (ext.type == BTRFS_FILE_EXTENT_PREALLOC) {
		if (sctx->stream.proto < 2)
			return 0;
		/*
		 * Preallocating keeps what the receiver has there: punch the
		 * parent's data first (zeroing skips preallocated ranges).
		 */
		if (sctx->cur.in_parent) {
			ret = zero_range_add(sctx, ext.off, ext.off + ext.len);
			if (!ret)
				ret = zero_range_flush(sctx);
			if (ret)
				return ret;
		}
		return send_fallocate(sctx, 0, ext.off, ext.len);
	}

	ret = plan_clones(sctx, &ext, &plan);
	if (ret)
		return ret;
	return send_planned(sctx, leaf, slot, fi, plan);
}

/* Send one EXTENT_DATA item of the current (regular) inode. */
int send_data_extent(struct send_ctx *sctx, const struct send_cmp_item *item)
{
	struct btrfs_path *path;
	int ret;

	if (!item_is_stale(sctx, item->reloc_trans))
		return send_extent(sctx, item->left, item->left_slot,
				   &item->key);

	/* Look the item up again in the relocated tree. */
	path = send_alloc_path();
	if (!path)
		return -ENOMEM;
	ret = btrfs_search_slot(NULL, sctx->send_root, &item->key, path, 0, 0);
	if (ret > 0)
		ret = -EUCLEAN;
	if (!ret)
		ret = send_extent(sctx, path->nodes[0], path->slots[0],
				  &item->key);
	btrfs_free_path(path);
	return ret;
}

/*
 * Whether the send root has data for the current inode at @sp, as far as
 * the zeroing of parent data is concerned: preallocated ranges are punched
 * before their FALLOCATE in version 2, and are zeros to write in version 1.
 */
static bool span_has_data(const struct send_ctx *sctx,
			  const struct extent_span *sp)
{
	if (sp->type == BTRFS_FILE_EXTENT_INLINE)
		return true;
	if (sp->type == BTRFS_FILE_EXTENT_PREALLOC)
		return sctx->stream.proto >= 2;
	return sp->disk_bytenr != 0;
}

/*
 * Incremental send: the parent's extent item of a reported EXTENT_DATA key
 * (deleted, or changed).  Where it had data and the send root has a hole,
 * no item, or (version 1) preallocated space, the receiver gets zeros.
 */
int send_data_parent_extent(struct send_ctx *sctx,
			    const struct send_cmp_item *item)
{
	struct extent_span old;
	struct extent_span sp;
	u64 pos;
	u64 end;
	int ret;

	fill_span(item->right, item->right_slot, item->key.offset, &old);
	if (old.type != BTRFS_FILE_EXTENT_INLINE && !old.disk_bytenr)
		return 0;
	if (old.type == BTRFS_FILE_EXTENT_PREALLOC)
		return 0;
	end = min3(old.end, sctx->cur.parent_size, sctx->cur.size);

	for (pos = old.start; pos < end; pos = sp.end) {
		ret = lookup_extent_span(sctx->send_root, sctx->cur.ino, pos,
					 &sp);
		if (ret)
			return ret;
		if (!sp.found) {
			return zero_range_add(sctx, pos, end);
		} else if (sp.start > pos) {
			/* No item between pos and the next one. */
			ret = zero_range_add(sctx, pos, min(sp.start, end));
			sp.end = sp.start;
		} else if (!span_has_data(sctx, &sp)) {
			ret = zero_range_add(sctx, pos, min(sp.end, end));
		}
		if (ret)
			return ret;
		ret = send_check_interrupt();
		if (ret)
			return ret;
	}
	return 0;
}

/* Give the file its final size once all its extents went out. */
int send_data_finish(struct send_ctx *sctx)
{
	int ret;

	ret = zero_range_flush(sctx);
	if (ret)
		return ret;
	if (sctx->cur.recv_size == sctx->cur.size)
		return 0;
	return send_truncate(sctx);
}
