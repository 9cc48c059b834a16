// SPDX-License-Identifier: GPL-2.0
/*
 * Compare the commit roots of two trees in key order.
 *
 * The walk keeps no tree state between steps, only a key: every step takes
 * the commit root semaphore, goes down both trees from their current commit
 * roots towards that key and either finds two nodes of one level pointing
 * to the same child block (everything below it is identical, so the key
 * jumps past it and past the shared children that follow it, none of them
 * read) or ends at two leaves, which are copied.  The semaphore is dropped
 * before the items of those copies are merged and handed to the callback.
 *
 * Because nothing but a key survives a step, commits, snapshots of the
 * compared roots and block group relocation may happen while the callback
 * runs (it writes to a pipe and may block for a long time) without leaving
 * us with references to blocks that were freed and reused meanwhile.  The
 * price is one descent per leaf, which is what a forward iteration over
 * commit roots costs anyway.
 *
 * A full send compares the send root against nothing.
 */

#include <linux/sched.h>
#include "ctree.h"
#include "disk-io.h"
#include "send-compare.h"
#include "send-stream.h"

/* Leaves whose neighbours are read ahead while we are at their parent. */
#define CMP_READAHEAD_LEAVES	8

/* A key, or "past the last key". */
struct cmp_bound {
	struct btrfs_key key;
	bool end;
};

struct cmp_side {
	struct btrfs_root *root;
	struct extent_buffer *eb;	/* referenced, unlocked; a copy at 0 */
	int slot;
	/* Every item of this tree in [pos, ub) is below eb. */
	struct cmp_bound ub;
};

/* Paths for searching commit roots without holding any lock afterwards. */
struct btrfs_path *send_alloc_path(void)
{
	struct btrfs_path *path = btrfs_alloc_path();

	if (!path)
		return NULL;
	path->search_commit_root = 1;
	path->skip_locking = 1;
	path->need_commit_sem = 1;
	return path;
}

/*
 * Search a commit root for a lookup that is done with the path before the
 * caller drops fs_info->commit_root_sem, which it holds for reading.  No
 * transaction commit can free the blocks of the commit roots meanwhile,
 * so the leaf is used where it is: btrfs_search_slot() copies it for a
 * path of send_alloc_path(), which the caller may keep past the commit.
 */
int send_search_held(struct btrfs_root *root, const struct btrfs_key *key,
		     struct btrfs_path *path)
{
	int ret;

	lockdep_assert_held_read(&root->fs_info->commit_root_sem);
	path->need_commit_sem = 0;
	ret = btrfs_search_slot(NULL, root, key, path, 0, 0);
	path->need_commit_sem = 1;
	return ret;
}

static int bound_cmp(const struct cmp_bound *a, const struct cmp_bound *b)
{
	if (a->end || b->end)
		return (int)a->end - (int)b->end;
	return btrfs_comp_cpu_keys(&a->key, &b->key);
}

static void bound_min(struct cmp_bound *dst, const struct cmp_bound *other)
{
	if (bound_cmp(other, dst) < 0)
		*dst = *other;
}

/* Lower @b to the key at @slot of @node, if @node has such a slot. */
static void bound_min_node_key(struct cmp_bound *b, struct extent_buffer *node,
			       int slot)
{
	struct cmp_bound key = { .end = false };

	if (slot >= btrfs_header_nritems(node))
		return;
	btrfs_node_key_to_cpu(node, &key.key, slot);
	bound_min(b, &key);
}

static bool key_below(const struct btrfs_key *key, const struct cmp_bound *b)
{
	return b->end || btrfs_comp_cpu_keys(key, &b->key) < 0;
}

static void side_release(struct cmp_side *side)
{
	free_extent_buffer(side->eb);
	side->eb = NULL;
}

static int side_level(const struct cmp_side *side)
{
	return side->eb ? btrfs_header_level(side->eb) : -1;
}

/* The slot of the child of @node whose key range holds @pos. */
static int node_slot(struct extent_buffer *node, const struct btrfs_key *pos)
{
	int slot;

	if (btrfs_bin_search(node, pos, &slot) && slot > 0)
		slot--;
	return slot;
}

/*
 * May the child at @slot of @node be a block the other tree holds too?  Such
 * a block is skipped without being read, so reading it ahead is wasted I/O;
 * in an incremental send nearly all leaves next to a changed one are shared.
 * Every block of the other tree is at most as new as its root, and a shared
 * child hangs under the same key in @peer, the other tree's node at the
 * same level, when we have it.
 */
static bool child_maybe_shared(const struct extent_buffer *node, int slot,
			       struct extent_buffer *peer, u64 other_gen)
{
	struct btrfs_key key;
	int peer_slot;

	if (btrfs_node_ptr_generation(node, slot) > other_gen)
		return false;
	if (!peer)
		return true;
	btrfs_node_key_to_cpu(node, &key, slot);
	if (btrfs_bin_search(peer, &key, &peer_slot))
		return false;
	return btrfs_node_blockptr(peer, peer_slot) ==
	       btrfs_node_blockptr(node, slot);
}

/* Start reading the leaves after @slot that the walk will have to read. */
static void side_readahead_leaves(const struct cmp_side *side, int slot,
				  const struct cmp_side *other,
				  struct extent_buffer *peer)
{
	struct extent_buffer *node = side->eb;
	int nritems = btrfs_header_nritems(node);
	u64 other_gen = 0;
	int i;

	if (other->root)
		other_gen = btrfs_header_generation(other->root->commit_root);
	for (i = slot + 1; i <= slot + CMP_READAHEAD_LEAVES && i < nritems; i++) {
		if (other->root &&
		    child_maybe_shared(node, i, peer, other_gen))
			continue;
		btrfs_readahead_node_child(node, i);
	}
}

/*
 * Step from a node to the child whose key range holds @pos.  @peer is the
 * other tree's node at the same level, if the walk is at one there.
 */
static int side_descend(struct cmp_side *side, const struct btrfs_key *pos,
			const struct cmp_side *other,
			struct extent_buffer *peer)
{
	struct extent_buffer *node = side->eb;
	struct extent_buffer *child;
	int nritems = btrfs_header_nritems(node);
	int slot;

	if (nritems == 0)
		return -EUCLEAN;
	slot = node_slot(node, pos);
	bound_min_node_key(&side->ub, node, slot + 1);
	if (btrfs_header_level(node) == 1)
		side_readahead_leaves(side, slot, other, peer);
	child = btrfs_read_node_slot(node, slot);
	if (IS_ERR(child))
		return PTR_ERR(child);
	free_extent_buffer(node);
	side->eb = child;
	return 0;
}

/* Replace the leaf by a private copy and find the first item >= @pos. */
static int side_copy_leaf(struct cmp_side *side, const struct btrfs_key *pos)
{
	struct extent_buffer *copy;

	if (!side->eb)
		return 0;
	copy = btrfs_clone_extent_buffer(side->eb);
	if (!copy)
		return -ENOMEM;
	free_extent_buffer(side->eb);
	side->eb = copy;
	btrfs_bin_search(copy, pos, &side->slot);
	return 0;
}

static bool same_child(struct extent_buffer *a, int aslot,
		       struct extent_buffer *b, int bslot)
{
	return btrfs_node_blockptr(a, aslot) == btrfs_node_blockptr(b, bslot) &&
	       btrfs_node_ptr_generation(a, aslot) ==
	       btrfs_node_ptr_generation(b, bslot);
}

/*
 * Both sides are at nodes of one level.  If the children holding @pos are
 * one block, the trees agree up to the end of it and of every following
 * child the two nodes also share; set @skip to that key without reading
 * any of those blocks.  Returns whether there was such a child.
 */
static bool cmp_shared_children(struct cmp_side *l, struct cmp_side *r,
				const struct btrfs_key *pos,
				struct cmp_bound *skip)
{
	int lnr = btrfs_header_nritems(l->eb);
	int rnr = btrfs_header_nritems(r->eb);
	int lslot;
	int rslot;
	int n = 0;

	if (lnr == 0 || rnr == 0)
		return false;
	lslot = node_slot(l->eb, pos);
	rslot = node_slot(r->eb, pos);
	while (lslot + n < lnr && rslot + n < rnr &&
	       same_child(l->eb, lslot + n, r->eb, rslot + n))
		n++;
	if (n == 0)
		return false;
	/*
	 * Each side's items from @pos up to the key of its next child (or
	 * its bound) all lie in the shared blocks, so both sides hold the
	 * same items below the nearer of the two keys.
	 */
	*skip = l->ub;
	bound_min(skip, &r->ub);
	bound_min_node_key(skip, l->eb, lslot + n);
	bound_min_node_key(skip, r->eb, rslot + n);
	return true;
}

/* Both sides are at nodes of one level: each is the other's peer. */
static int cmp_descend_both(struct cmp_side *l, struct cmp_side *r,
			    const struct btrfs_key *pos)
{
	struct extent_buffer *lnode = l->eb;
	int ret;

	/* Keep the left node for the right side's read-ahead choice. */
	atomic_inc(&lnode->refs);
	ret = side_descend(l, pos, r, r->eb);
	if (!ret)
		ret = side_descend(r, pos, l, lnode);
	free_extent_buffer(lnode);
	return ret;
}

/*
 * Go down both trees towards @pos.  Returns 1 with @skip set when both
 * paths meet in a shared block, 0 with both sides at (copied) leaves.
 * Called with the commit root semaphore held.
 */
static int cmp_descend(struct cmp_side *l, struct cmp_side *r,
		       const struct btrfs_key *pos, struct cmp_bound *skip)
{
	int ret;

	l->eb = l->root->commit_root;
	atomic_inc(&l->eb->refs);
	l->ub.end = true;
	if (r->root) {
		r->eb = r->root->commit_root;
		atomic_inc(&r->eb->refs);
		r->ub.end = true;
	}

	while (true) {
		int ll = side_level(l);
		int rl = side_level(r);

		if (r->eb && l->eb->start == r->eb->start &&
		    btrfs_header_generation(l->eb) ==
		    btrfs_header_generation(r->eb)) {
			/*
			 * Items of either tree in [pos, ub) are exactly this
			 * block's items, so nothing differs before the nearer
			 * of the two bounds.
			 */
			*skip = l->ub;
			bound_min(skip, &r->ub);
			return 1;
		}
		if (ll <= 0 && rl <= 0)
			break;
		if (ll == rl) {
			if (cmp_shared_children(l, r, pos, skip))
				return 1;
			ret = cmp_descend_both(l, r, pos);
			if (ret)
				return ret;
		} else if (ll > rl) {
			ret = side_descend(l, pos, r, NULL);
			if (ret)
				return ret;
		} else {
			ret = side_descend(r, pos, l, NULL);
			if (ret)
				return ret;
		}
	}

	ret = side_copy_leaf(l, pos);
	if (ret)
		return ret;
	return side_copy_leaf(r, pos);
}

static bool items_equal(const struct extent_buffer *a, int aslot,
			const struct extent_buffer *b, int bslot)
{
	u32 len = btrfs_item_size(a, aslot);
	unsigned long aoff = btrfs_item_ptr_offset(a, aslot);
	unsigned long boff = btrfs_item_ptr_offset(b, bslot);
	char abuf[128];
	char bbuf[128];

	if (len != btrfs_item_size(b, bslot))
		return false;
	while (len) {
		u32 n = min_t(u32, len, sizeof(abuf));

		read_extent_buffer(a, abuf, aoff, n);
		read_extent_buffer(b, bbuf, boff, n);
		if (memcmp(abuf, bbuf, n))
			return false;
		aoff += n;
		boff += n;
		len -= n;
	}
	return true;
}

/* Report the items of both leaves that lie in [pos, bound), in key order. */
static int cmp_merge(struct cmp_side *l, struct cmp_side *r,
		     const struct cmp_bound *bound, bool report_same,
		     u64 reloc_trans, send_cmp_fn fn, void *ctx)
{
	int lnr = l->eb ? btrfs_header_nritems(l->eb) : 0;
	int rnr = r->eb ? btrfs_header_nritems(r->eb) : 0;
	struct btrfs_key lkey;
	struct btrfs_key rkey;
	int ret;

	while (true) {
		struct send_cmp_item item = { .reloc_trans = reloc_trans };
		bool lhas = false;
		bool rhas = false;
		int cmp;

		if (l->slot < lnr) {
			btrfs_item_key_to_cpu(l->eb, &lkey, l->slot);
			lhas = key_below(&lkey, bound);
		}
		if (r->slot < rnr) {
			btrfs_item_key_to_cpu(r->eb, &rkey, r->slot);
			rhas = key_below(&rkey, bound);
		}
		if (!lhas && !rhas)
			return 0;

		if (!rhas)
			cmp = -1;
		else if (!lhas)
			cmp = 1;
		else
			cmp = btrfs_comp_cpu_keys(&lkey, &rkey);

		if (cmp < 0) {
			item.key = lkey;
			item.result = SEND_CMP_NEW;
			item.left = l->eb;
			item.left_slot = l->slot++;
		} else if (cmp > 0) {
			item.key = rkey;
			item.result = SEND_CMP_DELETED;
			item.right = r->eb;
			item.right_slot = r->slot++;
		} else {
			item.key = lkey;
			item.left = l->eb;
			item.left_slot = l->slot++;
			item.right = r->eb;
			item.right_slot = r->slot++;
			if (items_equal(l->eb, item.left_slot,
					r->eb, item.right_slot)) {
				if (!report_same)
					continue;
				item.result = SEND_CMP_SAME;
			} else {
				item.result = SEND_CMP_CHANGED;
			}
		}
		ret = fn(ctx, &item);
		if (ret)
			return ret;
		ret = send_check_interrupt();
		if (ret)
			return ret;
	}
}

/**
 * send_compare_trees - report the differences between two commit roots
 * @left:	the tree being sent
 * @right:	the tree it is compared against, NULL for "empty"
 * @report_same: also report items present and identical in both trees,
 *		unless they sit in a subtree both trees share
 * @fn:		called for every item in key order; non-zero stops the walk
 * @ctx:	passed to @fn
 *
 * Holds no lock and no transaction while @fn runs.
 */
int send_compare_trees(struct btrfs_root *left, struct btrfs_root *right,
		       bool report_same, send_cmp_fn fn, void *ctx)
{
	struct btrfs_fs_info *fs_info = left->fs_info;
	struct cmp_side l = { .root = left };
	struct cmp_side r = { .root = right };
	struct btrfs_key pos = { 0 };
	int ret = 0;

	while (true) {
		struct cmp_bound next;
		u64 reloc_trans;

		down_read(&fs_info->commit_root_sem);
		reloc_trans = fs_info->last_reloc_trans;
		ret = cmp_descend(&l, &r, &pos, &next);
		up_read(&fs_info->commit_root_sem);
		if (ret < 0)
			goto out_release;

		if (ret == 0) {
			next = l.ub;
			if (r.root)
				bound_min(&next, &r.ub);
			ret = cmp_merge(&l, &r, &next, report_same,
					reloc_trans, fn, ctx);
			if (ret)
				goto out_release;
		}
		side_release(&l);
		side_release(&r);
		ret = 0;
		if (next.end)
			break;
		pos = next.key;
		ret = send_check_interrupt();
		if (ret)
			break;
	}
	return ret;

out_release:
	side_release(&l);
	side_release(&r);
	return ret;
}
