// SPDX-License-Identifier: GPL-2.0
/*
 * Contents of an incremental send: with every inode at its final name
 * (send-rename.c ran first), what changed inside inodes: xattrs, owner,
 * mode, attributes, times and file data (docs/incremental-send.md).
 *
 * A second walk of the comparison of the send root with the parent.  Per
 * inode, in key order:
 *  - an inode the parent does not have with this generation was created by
 *    the names pass: it gets everything a full send sends after the names,
 *    read from the send root (items it shares with an older inode of the
 *    same number are not reported by the comparison);
 *  - an inode of both: SET_XATTR/REMOVE_XATTR per xattr that differs, the
 *    changed file extents, zeros where the parent had data and the send
 *    root has none, TRUNCATE, then CHOWN (and CHMOD of a setuid/setgid
 *    mode, which chown clears), CHMOD, FILEATTR if they changed,
 *    security.capability, UTIMES;
 *  - an inode only in the parent: nothing, the names pass removed it.
 */

#include <linux/slab.h>
#include <linux/xattr.h>
#include "ctree.h"
#include "disk-io.h"
#include "extent_io.h"
#include "send-internal.h"

struct contents_walk {
	struct send_ctx *sctx;
	/* The parent's version of the current inode. */
	struct send_inode old;
	/* Scratch for comparing xattrs. */
	char name[XATTR_NAME_MAX];
};

/* One xattr in an XATTR_ITEM (names whose hashes collide share an item). */
struct xattr_entry {
	unsigned long name_off;
	u32 name_len;
	u32 data_len;
};

static int next_xattr(const struct extent_buffer *leaf, unsigned long *ptr,
		      unsigned long end, struct xattr_entry *xe)
{
	struct btrfs_dir_item *di = (void *)*ptr;

	xe->name_len = btrfs_dir_name_len(leaf, di);
	xe->data_len = btrfs_dir_data_len(leaf, di);
	xe->name_off = (unsigned long)(di + 1);
	*ptr += sizeof(*di) + xe->name_len + xe->data_len;
	if (*ptr > end || xe->name_len > XATTR_NAME_MAX)
		return -EUCLEAN;
	return 0;
}

/* Find the xattr @name in item @slot of @leaf.  Returns 1 if found. */
static int find_xattr(const struct extent_buffer *leaf, int slot,
		      const char *name, u32 name_len, struct xattr_entry *xe)
{
	unsigned long ptr = btrfs_item_ptr_offset(leaf, slot);
	unsigned long end = ptr + btrfs_item_size(leaf, slot);
	int ret;

	while (ptr < end) {
		ret = next_xattr(leaf, &ptr, end, xe);
		if (ret)
			return ret;
		if (xe->name_len == name_len &&
		    !memcmp_extent_buffer(leaf, name, xe->name_off, name_len))
			return 1;
	}
	return 0;
}

/* Whether two xattr values are the same bytes. */
static int xattr_data_equal(const struct extent_buffer *a,
			    const struct xattr_entry *xa,
			    const struct extent_buffer *b,
			    const struct xattr_entry *xb)
{
	char *buf;
	int ret;

	if (xa->data_len != xb->data_len)
		return 0;
	if (!xa->data_len)
		return 1;
	buf = kvmalloc(xa->data_len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	read_extent_buffer(a, buf, xa->name_off + xa->name_len, xa->data_len);
	ret = !memcmp_extent_buffer(b, buf, xb->name_off + xb->name_len,
				    xb->data_len);
	kvfree(buf);
	return ret;
}

static int send_remove_xattr(struct send_ctx *sctx,
			     const struct extent_buffer *leaf,
			     const struct xattr_entry *xe)
{
	struct send_stream *s = &sctx->stream;
	int ret;

	ret = send_cmd_begin(s, BTRFS_SEND_C_REMOVE_XATTR);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_eb(s, BTRFS_SEND_A_XATTR_NAME, leaf, xe->name_off,
			  xe->name_len);
	if (ret)
		return ret;
	return send_cmd_end(s);
}

/*
 * SET_XATTR for every xattr of @leaf's item that @other's item (may be
 * NULL) lacks or holds with another value; with @remove, REMOVE_XATTR for
 * every xattr of @leaf's item that @other's item lacks.
 */
static int xattrs_not_in(struct contents_walk *w,
			 const struct extent_buffer *leaf, int slot,
			 const struct extent_buffer *other, int other_slot,
			 bool remove)
{
	struct send_ctx *sctx = w->sctx;
	unsigned long ptr = btrfs_item_ptr_offset(leaf, slot);
	unsigned long end = ptr + btrfs_item_size(leaf, slot);
	struct xattr_entry xe;
	struct xattr_entry oxe;
	int found = 0;
	int ret;

	while (ptr < end) {
		ret = next_xattr(leaf, &ptr, end, &xe);
		if (ret)
			return ret;
		if (other) {
			read_extent_buffer(leaf, w->name, xe.name_off,
					   xe.name_len);
			found = find_xattr(other, other_slot, w->name,
					   xe.name_len, &oxe);
			if (found < 0)
				return found;
		}
		if (remove) {
			if (!found)
				ret = send_remove_xattr(sctx, leaf, &xe);
		} else {
			if (found) {
				found = xattr_data_equal(leaf, &xe, other,
							 &oxe);
				if (found < 0)
					return found;
			}
			if (!found)
				ret = send_set_xattr(sctx, leaf, xe.name_off,
						     xe.name_len, xe.data_len);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int xattr_changes(struct contents_walk *w,
			 const struct send_cmp_item *item)
{
	int ret = 0;

	/* Removals first: a name may move between items of colliding hash. */
	if (item->right)
		ret = xattrs_not_in(w, item->right, item->right_slot,
				    item->left, item->left_slot, true);
	if (!ret && item->left)
		ret = xattrs_not_in(w, item->left, item->left_slot,
				    item->right, item->right_slot, false);
	return ret;
}

/* Note the send root's security.capability of the current inode, if any. */
static int load_caps(struct send_ctx *sctx)
{
	struct send_inode *cur = &sctx->cur;
	struct btrfs_dir_item *di;
	struct btrfs_path *path;
	u32 len;
	int ret = 0;

	kfree(cur->caps);
	cur->caps = NULL;
	path = send_alloc_path();
	if (!path)
		return -ENOMEM;
	di = btrfs_lookup_xattr(NULL, sctx->send_root, path, cur->ino,
				XATTR_NAME_CAPS, strlen(XATTR_NAME_CAPS), 0);
	if (IS_ERR_OR_NULL(di)) {
		ret = PTR_ERR_OR_ZERO(di);
		goto out;
	}
	len = btrfs_dir_data_len(path->nodes[0], di);
	cur->caps = kmalloc(max(len, 1U), GFP_KERNEL);
	if (!cur->caps) {
		ret = -ENOMEM;
		goto out;
	}
	read_extent_buffer(path->nodes[0], cur->caps,
			   (unsigned long)(di + 1) +
			   btrfs_dir_name_len(path->nodes[0], di), len);
	cur->caps_len = len;
out:
	btrfs_free_path(path);
	return ret;
}

/*
 * The end of an inode both snapshots have: size, owner, mode, attributes
 * where they changed, then the capability (chown and writes on the
 * receiver drop it) and the times, exactly once.
 */
static int finish_changed_inode(struct contents_walk *w)
{
	struct send_ctx *sctx = w->sctx;
	struct send_inode *cur = &sctx->cur;
	struct send_inode *old = &w->old;
	bool chowned = cur->uid != old->uid || cur->gid != old->gid;
	int ret;

	if (S_ISREG(cur->mode)) {
		ret = send_data_finish(sctx);
		if (ret)
			return ret;
	}
	if (chowned) {
		ret = send_chown(sctx);
		if (ret)
			return ret;
	}
	/*
	 * chown(2) on the receiver clears only setuid and setgid: resend an
	 * unchanged mode only when it has one of them, so the stream says
	 * "mode changed" only where it may have.
	 */
	if (cur->mode != old->mode ||
	    (chowned && (cur->mode & (S_ISUID | S_ISGID)))) {
		ret = send_chmod(sctx);
		if (ret)
			return ret;
	}
	if ((cur->flags ^ old->flags) & SEND_FILEATTR_MASK) {
		ret = send_fileattr(sctx);
		if (ret)
			return ret;
	}
	ret = load_caps(sctx);
	if (ret)
		return ret;
	ret = send_caps(sctx);
	if (ret)
		return ret;
	ret = send_utimes_at(sctx, &sctx->cur_path, cur);
	if (ret)
		return ret;
	if (cur->ino == BTRFS_FIRST_FREE_OBJECTID)
		sctx->top_dir_dirty = false;
	return 0;
}

static int finish_inode(struct contents_walk *w)
{
	struct send_ctx *sctx = w->sctx;
	int ret = 0;

	if (!sctx->cur.active)
		return 0;
	if (!sctx->cur.skip)
		ret = finish_changed_inode(w);
	send_release_inode(sctx);
	return ret;
}

/* One item of an inode the names pass created: as in a full send. */
static int new_inode_item(struct send_ctx *sctx, struct extent_buffer *leaf,
			  int slot, const struct btrfs_key *key,
			  u64 reloc_trans)
{
	struct send_cmp_item item = {
		.key = *key,
		.result = SEND_CMP_NEW,
		.left = leaf,
		.left_slot = slot,
		.reloc_trans = reloc_trans,
	};
	unsigned long ptr = btrfs_item_ptr_offset(leaf, slot);
	unsigned long end = ptr + btrfs_item_size(leaf, slot);
	struct xattr_entry xe;
	int ret;

	if (key->type == BTRFS_EXTENT_DATA_KEY && S_ISREG(sctx->cur.mode))
		return send_data_extent(sctx, &item);
	if (key->type != BTRFS_XATTR_ITEM_KEY)
		return 0;
	while (ptr < end) {
		ret = next_xattr(leaf, &ptr, end, &xe);
		if (ret)
			return ret;
		ret = send_set_xattr(sctx, leaf, xe.name_off, xe.name_len,
				     xe.data_len);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Send the xattrs and data of the new inode sctx->cur from the send root.
 * Each leaf is copied and released before sending, so that no tree block
 * is held while the stream blocks.
 */
static int send_new_inode_items(struct send_ctx *sctx)
{
	struct btrfs_fs_info *fs_info = sctx->fs_info;
	u64 ino = sctx->cur.ino;
	struct btrfs_key key = {
		.objectid = ino,
		.type = BTRFS_XATTR_ITEM_KEY,
	};
	struct btrfs_path *path;
	bool done = false;
	int ret;

	path = send_alloc_path();
	if (!path)
		return -ENOMEM;
	while (!done) {
		struct extent_buffer *leaf;
		u64 reloc_trans;
		int slot;

		down_read(&fs_info->commit_root_sem);
		reloc_trans = fs_info->last_reloc_trans;
		up_read(&fs_info->commit_root_sem);

		ret = btrfs_search_slot(NULL, sctx->send_root, &key, path, 0, 0);
		if (ret < 0)
			break;
		if (path->slots[0] >= btrfs_header_nritems(path->nodes[0])) {
			ret = btrfs_next_leaf(sctx->send_root, path);
			if (ret) {
				ret = ret < 0 ? ret : 0;
				break;
			}
		}
		leaf = btrfs_clone_extent_buffer(path->nodes[0]);
		slot = path->slots[0];
		btrfs_release_path(path);
		if (!leaf) {
			ret = -ENOMEM;
			break;
		}
		ret = 0;
		for (; slot < btrfs_header_nritems(leaf); slot++) {
			btrfs_item_key_to_cpu(leaf, &key, slot);
			if (key.objectid != ino) {
				done = true;
				break;
			}
			ret = new_inode_item(sctx, leaf, slot, &key,
					     reloc_trans);
			if (ret)
				break;
		}
		free_extent_buffer(leaf);
		if (ret)
			break;
		/* Continue after the last key of the copied leaf. */
		if (key.offset == (u64)-1) {
			key.type++;
			key.offset = 0;
		} else {
			key.offset++;
		}
	}
	btrfs_free_path(path);
	return ret;
}

static int send_new_inode(struct send_ctx *sctx)
{
	int ret;

	ret = send_new_inode_items(sctx);
	if (ret)
		return ret;
	if (S_ISREG(sctx->cur.mode)) {
		ret = send_data_finish(sctx);
		if (ret)
			return ret;
	}
	ret = send_owner_and_mode(sctx);
	if (ret)
		return ret;
	return send_utimes_at(sctx, &sctx->cur_path, &sctx->cur);
}

/*
 * The first reported item of inode @ino: decide what it is.  New inodes
 * are sent whole here and the rest of their items skipped.
 */
static int begin_inode(struct contents_walk *w, u64 ino)
{
	struct send_ctx *sctx = w->sctx;
	struct send_inode *cur = &sctx->cur;
	struct send_inode *old = &w->old;
	int ret;

	cur->ino = ino;
	cur->active = true;
	cur->skip = true;
	cur->refs_done = true;
	cur->recv_size = 0;
	cur->in_parent = false;
	cur->parent_size = 0;
	cur->zero_start = 0;
	cur->zero_end = 0;

	ret = send_lookup_inode(sctx->send_root, ino, cur);
	if (ret == -ENOENT)
		return 0;	/* deleted: the names pass removed it */
	if (ret)
		return ret;
	/* Unlinked but still open when the snapshot was taken. */
	if (cur->nlink == 0 && ino != BTRFS_FIRST_FREE_OBJECTID)
		return 0;

	ret = send_lookup_inode(sctx->parent_root, ino, old);
	if (ret && ret != -ENOENT)
		return ret;
	cur->in_parent = !ret && old->gen == cur->gen &&
			 (old->nlink || ino == BTRFS_FIRST_FREE_OBJECTID);
	ret = send_cur_path(sctx, ino, cur->gen, &sctx->cur_path);
	if (ret)
		return ret;
	if (!cur->in_parent)
		return send_new_inode(sctx);

	cur->skip = false;
	cur->parent_size = old->size;
	cur->recv_size = old->size;
	return 0;
}

static int contents_item(void *ctx, const struct send_cmp_item *item)
{
	struct contents_walk *w = ctx;
	struct send_ctx *sctx = w->sctx;
	struct send_inode *cur = &sctx->cur;
	const struct btrfs_key *key = &item->key;
	int ret;

	/* Only inodes: no orphan items, no free space cache leftovers. */
	if (key->objectid < BTRFS_FIRST_FREE_OBJECTID ||
	    key->objectid > BTRFS_LAST_FREE_OBJECTID)
		return 0;

	if (!cur->active || key->objectid != cur->ino) {
		ret = finish_inode(w);
		if (ret)
			return ret;
		ret = begin_inode(w, key->objectid);
		if (ret)
			return ret;
	}
	if (cur->skip)
		return 0;

	switch (key->type) {
	case BTRFS_XATTR_ITEM_KEY:
		return xattr_changes(w, item);
	case BTRFS_EXTENT_DATA_KEY:
		if (!S_ISREG(cur->mode))
			return 0;
		/* The parent's side first: it only adds ranges to zero. */
		if (item->right) {
			ret = send_data_parent_extent(sctx, item);
			if (ret)
				return ret;
		}
		if (item->left)
			return send_data_extent(sctx, item);
		return 0;
	default:
		return 0;
	}
}

/* The second pass of an incremental send, after send_changed_names(). */
int send_changed_contents(struct send_ctx *sctx)
{
	struct contents_walk *w;
	int ret;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->sctx = sctx;
	INIT_LIST_HEAD(&w->old.refs);
	/* Every inode is at its final names: paths are send-root paths. */
	sctx->progress = U64_MAX;
	send_name_cache_free(sctx);
	ret = send_compare_trees(sctx->send_root, sctx->parent_root, false,
				 contents_item, w);
	if (!ret)
		ret = finish_inode(w);
	send_release_inode(sctx);
	kfree(w);
	return ret;
}
