// SPDX-License-Identifier: GPL-2.0
/*
 * Name changes of an incremental send: the commands that turn the parent
 * snapshot's namespace on the receiver into the send snapshot's, before
 * any inode contents are sent (docs/incremental-send.md).
 *
 * Four steps:
 *
 *   collect  one walk of the comparison notes every inode whose names may
 *            have changed: new, deleted, reused, or with changed refs;
 *   place    in increasing inode number, each noted inode releases the
 *            names it loses and goes to its first new name if that is free
 *            and its parent exists (and, for a directory, the parent is not
 *            below it), else to its orphan name in the top directory;
 *   rmdir    deleted directories that were not empty when their turn came
 *            waited at their orphan names: every entry has left them now;
 *   finish   inodes left at orphan names go to their first name, and the
 *            new names that were taken when their turn came are linked.
 *
 * After "place" every directory edge on the receiver is one of the send
 * root or ends at an orphan in the top directory, so "finish" cannot move
 * a directory below itself: that would be a cycle in the send root.
 *
 * Memory: one small record per noted inode; names are read from the two
 * roots when an inode is handled and freed right after.
 */

#include <linux/slab.h>
#include "ctree.h"
#include "send-internal.h"

/* The parent root's inode of a number, on the receiver. */
enum old_state {
	OLD_NONE,	/* the parent root has no such inode */
	OLD_IN_PLACE,	/* at its names in the parent root */
	OLD_ORPHAN,	/* deleted directory waiting at its orphan name */
	OLD_GONE,	/* deleted and removed */
};

/* The send root's inode of a number, on the receiver. */
enum new_state {
	NEW_NONE,	/* the send root has no such inode */
	NEW_WAITING,	/* not created yet, or (shared) not handled yet */
	NEW_ORPHAN,	/* at its orphan name */
	NEW_KEEP,	/* at a name it keeps, its new names not there yet */
	NEW_FINAL,	/* at its first name in the send root */
};

/* A noted inode number. */
struct name_rec {
	u64 old_gen;
	u64 new_gen;
	u8 old_state;
	u8 new_state;
	bool shared;	/* one inode in both roots (same generation) */
	bool old_dir;
	bool new_dir;
	bool pending;	/* names left for the finish step */
	struct send_ref_name *keep;	/* where it is while NEW_KEEP */
};

struct send_names_pass {
	struct xarray recs;	/* ino -> struct name_rec */
	struct send_inode *si;	/* scratch for inode lookups */
	struct send_path from;
	struct send_path to;
};

/* One name of the inode being handled. */
struct name_ref {
	struct list_head list;
	u64 dir;
	bool keep;	/* the other root has it too */
	u32 name_len;
	char name[];
};

static struct name_rec *get_rec(struct send_ctx *sctx, u64 ino)
{
	return xa_load(&sctx->names_pass->recs, (unsigned long)ino);
}

/* Whether @dir names different inodes in the two roots (or only one). */
static bool dir_differs(struct send_ctx *sctx, u64 dir)
{
	struct name_rec *rec = get_rec(sctx, dir);

	return rec && !rec->shared;
}

/* ---- where inodes are ----------------------------------------------- */

static int names_locate(struct send_ctx *sctx, u64 ino, bool old,
			struct send_loc *loc)
{
	struct name_rec *rec = get_rec(sctx, ino);

	/* Not noted: the same names in both roots. */
	if (!rec) {
		loc->kind = SEND_LOC_SEND;
		return 0;
	}
	if (old && !rec->shared) {
		if (rec->old_state == OLD_IN_PLACE) {
			loc->kind = SEND_LOC_PARENT;
			return 0;
		}
		if (rec->old_state == OLD_ORPHAN) {
			loc->kind = SEND_LOC_ORPHAN;
			loc->gen = rec->old_gen;
			return 0;
		}
		return -EUCLEAN;
	}
	switch (rec->new_state) {
	case NEW_WAITING:
		if (!rec->shared)
			return -EUCLEAN;
		loc->kind = SEND_LOC_PARENT;
		return 0;
	case NEW_ORPHAN:
		loc->kind = SEND_LOC_ORPHAN;
		loc->gen = rec->new_gen;
		return 0;
	case NEW_KEEP:
		loc->kind = SEND_LOC_NAME;
		loc->name = rec->keep;
		return 0;
	case NEW_FINAL:
		loc->kind = SEND_LOC_SEND;
		return 0;
	}
	return -EUCLEAN;
}

/* ---- collect --------------------------------------------------------- */

static int note_inode(struct send_ctx *sctx, u64 ino)
{
	struct send_names_pass *np = sctx->names_pass;
	struct name_rec *rec;
	int ret;

	if (ino == BTRFS_FIRST_FREE_OBJECTID || get_rec(sctx, ino))
		return 0;
	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;

	/*
	 * An inode without links (unlinked but open when the snapshot was
	 * taken) was never sent: to the receiver that root has no such inode.
	 */
	ret = send_lookup_inode(sctx->send_root, ino, np->si);
	if (!ret && !np->si->nlink)
		ret = -ENOENT;
	if (!ret) {
		rec->new_gen = np->si->gen;
		rec->new_dir = S_ISDIR(np->si->mode);
		rec->new_state = NEW_WAITING;
	} else if (ret != -ENOENT) {
		goto out_free;
	}
	ret = send_lookup_inode(sctx->parent_root, ino, np->si);
	if (!ret && !np->si->nlink)
		ret = -ENOENT;
	if (!ret) {
		rec->old_gen = np->si->gen;
		rec->old_dir = S_ISDIR(np->si->mode);
		rec->old_state = OLD_IN_PLACE;
	} else if (ret != -ENOENT) {
		goto out_free;
	}
	rec->shared = rec->old_gen && rec->old_gen == rec->new_gen;

	ret = xa_insert(&np->recs, (unsigned long)ino, rec, GFP_KERNEL);
	if (!ret)
		return 0;
out_free:
	kfree(rec);
	return ret;
}

/* Note the inode an entry names (note_children()). */
static int note_child(void *ctx, const struct extent_buffer *leaf, int slot,
		      const struct btrfs_key *key)
{
	struct btrfs_dir_item *di = btrfs_item_ptr(leaf, slot,
						   struct btrfs_dir_item);
	struct btrfs_key loc;

	btrfs_dir_item_key_to_cpu(leaf, di, &loc);
	if (loc.type != BTRFS_INODE_ITEM_KEY)
		return 0;
	return note_inode(ctx, loc.objectid);
}

/*
 * The entries of a directory whose number is reused may be byte for byte
 * the same in both roots and still name different directories: note
 * every inode listed in @dir.
 */
static int note_children(struct send_ctx *sctx, struct btrfs_root *root,
			 u64 dir)
{
	return send_walk_items(root, dir, BTRFS_DIR_INDEX_KEY,
			       BTRFS_DIR_INDEX_KEY, note_child, sctx);
}

static int note_inode_item(struct send_ctx *sctx,
			   const struct send_cmp_item *item)
{
	u64 ino = item->key.objectid;
	struct name_rec *rec;
	int ret;

	if (item->result == SEND_CMP_CHANGED) {
		struct btrfs_inode_item *l, *r;

		l = btrfs_item_ptr(item->left, item->left_slot,
				   struct btrfs_inode_item);
		r = btrfs_item_ptr(item->right, item->right_slot,
				   struct btrfs_inode_item);
		if (btrfs_inode_generation(item->left, l) ==
		    btrfs_inode_generation(item->right, r))
			return 0;
	}
	ret = note_inode(sctx, ino);
	if (ret)
		return ret;
	rec = get_rec(sctx, ino);
	if (!rec || !rec->old_gen || !rec->new_gen || rec->shared)
		return 0;
	if (rec->old_dir) {
		ret = note_children(sctx, sctx->parent_root, ino);
		if (ret)
			return ret;
	}
	if (rec->new_dir)
		ret = note_children(sctx, sctx->send_root, ino);
	return ret;
}

static int note_item(void *ctx, const struct send_cmp_item *item)
{
	struct send_ctx *sctx = ctx;
	u64 ino = item->key.objectid;

	if (ino <= BTRFS_FIRST_FREE_OBJECTID || ino > BTRFS_LAST_FREE_OBJECTID)
		return 0;
	switch (item->key.type) {
	case BTRFS_INODE_ITEM_KEY:
		return note_inode_item(sctx, item);
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
		return note_inode(sctx, ino);
	default:
		return 0;
	}
}

/* ---- names of one inode ----------------------------------------------- */

static void free_names(struct list_head *names)
{
	struct name_ref *ref, *tmp;

	list_for_each_entry_safe(ref, tmp, names, list) {
		list_del(&ref->list);
		kfree(ref);
	}
}

static int add_name(void *ctx, u64 dir, const struct extent_buffer *leaf,
		    unsigned long name_off, u32 name_len)
{
	struct list_head *names = ctx;
	struct name_ref *ref;

	if (name_len > BTRFS_NAME_LEN)
		return -EUCLEAN;
	ref = kmalloc(struct_size(ref, name, name_len), GFP_KERNEL);
	if (!ref)
		return -ENOMEM;
	ref->dir = dir;
	ref->keep = false;
	ref->name_len = name_len;
	read_extent_buffer(leaf, ref->name, name_off, name_len);
	list_add_tail(&ref->list, names);
	return 0;
}

static int add_item_names(void *ctx, const struct extent_buffer *leaf,
			  int slot, const struct btrfs_key *key)
{
	return send_walk_refs(leaf, slot, key, add_name, ctx);
}

/*
 * Every name of @ino in @root, in key order: the first one is the name
 * send_first_ref() finds, where path building expects the inode.
 */
static int load_names(struct btrfs_root *root, u64 ino,
		      struct list_head *names)
{
	int ret;

	ret = send_walk_items(root, ino, BTRFS_INODE_REF_KEY,
			      BTRFS_INODE_EXTREF_KEY, add_item_names, names);
	if (ret)
		free_names(names);
	return ret;
}

/* Mark the names both lists have, in the same directory inode. */
static void mark_kept(struct send_ctx *sctx, struct list_head *old_names,
		      struct list_head *new_names)
{
	struct name_ref *o, *n;

	list_for_each_entry(o, old_names, list) {
		if (dir_differs(sctx, o->dir))
			continue;
		list_for_each_entry(n, new_names, list) {
			if (!n->keep && n->dir == o->dir &&
			    n->name_len == o->name_len &&
			    !memcmp(n->name, o->name, n->name_len)) {
				n->keep = true;
				o->keep = true;
				break;
			}
		}
	}
}

static struct name_ref *first_name(struct list_head *names)
{
	return list_first_entry_or_null(names, struct name_ref, list);
}

/* ---- commands ------------------------------------------------------------ */

/* Orphans live in the top directory: its times change with them. */
static void note_top_dir(struct send_ctx *sctx, const struct send_path *p)
{
	if (!memchr(send_path_str(p), '/', send_path_len(p)))
		sctx->top_dir_dirty = true;
}

static int send_path_cmd(struct send_ctx *sctx, enum btrfs_send_cmd cmd,
			 const struct send_path *p)
{
	struct send_stream *s = &sctx->stream;
	int ret;

	note_top_dir(sctx, p);
	ret = send_cmd_begin(s, cmd);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, p);
	if (ret)
		return ret;
	return send_cmd_end(s);
}

static int send_two_paths(struct send_ctx *sctx, enum btrfs_send_cmd cmd,
			  const struct send_path *from,
			  const struct send_path *to)
{
	note_top_dir(sctx, from);
	note_top_dir(sctx, to);
	return send_rename_or_link(sctx, cmd, from, to);
}

/* ---- where names go --------------------------------------------------- */

/*
 * Whether the send root's entry @name in @dir can be created now: no inode
 * still holds it on the receiver.  Only the parent root's entry of that
 * name can: if @dir is the same directory in both roots and that entry's
 * inode has not left it yet.
 */
static int name_is_free(struct send_ctx *sctx, u64 dir, const char *name,
			u32 name_len, bool *free)
{
	struct fscrypt_str fname = FSTR_INIT((char *)name, name_len);
	struct btrfs_dir_item *di;
	struct btrfs_path *path;
	struct name_rec *rec;
	struct btrfs_key loc;

	*free = true;
	if (dir_differs(sctx, dir))
		return 0;
	path = send_alloc_path();
	if (!path)
		return -ENOMEM;
	di = btrfs_lookup_dir_item(NULL, sctx->parent_root, path, dir, &fname,
				   0);
	if (IS_ERR_OR_NULL(di)) {
		btrfs_free_path(path);
		return PTR_ERR_OR_ZERO(di);
	}
	btrfs_dir_item_key_to_cpu(path->nodes[0], di, &loc);
	btrfs_free_path(path);
	/* Subvolumes are not sent: the receiver has no such entry. */
	if (loc.type != BTRFS_INODE_ITEM_KEY)
		return 0;
	rec = get_rec(sctx, loc.objectid);
	if (!rec)
		*free = false;
	else if (rec->shared)
		*free = rec->new_state != NEW_WAITING;
	else
		*free = rec->old_state != OLD_IN_PLACE;
	return 0;
}

/* Whether the send root's directory @dir exists on the receiver now. */
static bool dir_exists(struct send_ctx *sctx, u64 dir)
{
	struct name_rec *rec = get_rec(sctx, dir);

	if (!rec || rec->shared)
		return true;
	return rec->new_state != NEW_WAITING && rec->new_state != NEW_NONE;
}

/* Whether the name can be taken now. */
static int name_ready(struct send_ctx *sctx, const struct name_ref *ref,
		      bool *ready)
{
	int ret;

	*ready = dir_exists(sctx, ref->dir);
	if (!*ready)
		return 0;
	ret = name_is_free(sctx, ref->dir, ref->name, ref->name_len, ready);
	return ret;
}

/* Whether every new name of @names but @skip can be taken now. */
static int new_names_ready(struct send_ctx *sctx, struct list_head *names,
			   const struct name_ref *skip, bool *ready)
{
	struct name_ref *ref;
	int ret;

	*ready = true;
	list_for_each_entry(ref, names, list) {
		if (ref == skip || ref->keep)
			continue;
		ret = name_ready(sctx, ref, ready);
		if (ret || !*ready)
			return ret;
	}
	return 0;
}

/* LINK every new name of inode @ino in @names but @skip. */
static int link_new_names(struct send_ctx *sctx, u64 ino,
			  struct list_head *names, const struct name_ref *skip)
{
	struct send_names_pass *np = sctx->names_pass;
	struct name_ref *ref;
	int ret;

	list_for_each_entry(ref, names, list) {
		if (ref == skip || ref->keep)
			continue;
		ret = send_loc_path(sctx, ino, false, &np->from);
		if (ret)
			return ret;
		ret = send_loc_ref_path(sctx, ref->dir, false, ref->name,
					ref->name_len, &np->to);
		if (ret)
			return ret;
		ret = send_two_paths(sctx, BTRFS_SEND_C_LINK, &np->from,
				     &np->to);
		if (ret)
			return ret;
	}
	return 0;
}

/* UNLINK every name of @names (the parent root's) that goes, but @skip. */
static int unlink_old_names(struct send_ctx *sctx, struct list_head *names,
			    const struct name_ref *skip)
{
	struct send_names_pass *np = sctx->names_pass;
	struct name_ref *ref;
	int ret;

	list_for_each_entry(ref, names, list) {
		if (ref == skip || ref->keep)
			continue;
		ret = send_loc_ref_path(sctx, ref->dir, true, ref->name,
					ref->name_len, &np->to);
		if (ret)
			return ret;
		ret = send_path_cmd(sctx, BTRFS_SEND_C_UNLINK, &np->to);
		if (ret)
			return ret;
	}
	return 0;
}

struct empty_check {
	struct send_ctx *sctx;
	bool empty;
};

/* Stop at an entry whose inode is still there on the receiver. */
static int entry_still_there(void *ctx, const struct extent_buffer *leaf,
			     int slot, const struct btrfs_key *key)
{
	struct btrfs_dir_item *di = btrfs_item_ptr(leaf, slot,
						   struct btrfs_dir_item);
	struct empty_check *ec = ctx;
	struct name_rec *rec;
	struct btrfs_key loc;

	btrfs_dir_item_key_to_cpu(leaf, di, &loc);
	if (loc.type != BTRFS_INODE_ITEM_KEY)
		return 0;
	rec = get_rec(ec->sctx, loc.objectid);
	if (!rec || (rec->shared && rec->new_state == NEW_WAITING) ||
	    (!rec->shared && rec->old_state == OLD_IN_PLACE)) {
		ec->empty = false;
		return 1;
	}
	return 0;
}

/*
 * Whether every entry of the parent root's directory @dir has left it on
 * the receiver (each entry's inode is noted: its name there is gone).
 */
static int dir_is_empty_now(struct send_ctx *sctx, u64 dir, bool *empty)
{
	struct empty_check ec = { .sctx = sctx, .empty = true };
	int ret;

	ret = send_walk_items(sctx->parent_root, dir, BTRFS_DIR_INDEX_KEY,
			      BTRFS_DIR_INDEX_KEY, entry_still_there, &ec);
	*empty = ec.empty;
	return ret;
}

/* ---- place -------------------------------------------------------------- */

/*
 * The parent root's inode @ino is gone from the send root: unlink its
 * names, remove it if a directory that is empty now, else park it at its
 * orphan name until its entries have left.
 */
static int release_old(struct send_ctx *sctx, u64 ino, struct name_rec *rec)
{
	struct send_names_pass *np = sctx->names_pass;
	LIST_HEAD(names);
	bool empty;
	int ret;

	if (!rec->old_dir) {
		ret = load_names(sctx->parent_root, ino, &names);
		if (ret)
			return ret;
		ret = unlink_old_names(sctx, &names, NULL);
		free_names(&names);
		if (!ret)
			rec->old_state = OLD_GONE;
		return ret;
	}

	ret = dir_is_empty_now(sctx, ino, &empty);
	if (ret)
		return ret;
	ret = send_loc_path(sctx, ino, true, &np->from);
	if (ret)
		return ret;
	if (empty) {
		ret = send_path_cmd(sctx, BTRFS_SEND_C_RMDIR, &np->from);
		if (!ret)
			rec->old_state = OLD_GONE;
		return ret;
	}
	ret = send_orphan_path(sctx, ino, rec->old_gen, &np->to);
	if (ret)
		return ret;
	ret = send_two_paths(sctx, BTRFS_SEND_C_RENAME, &np->from, &np->to);
	if (!ret)
		rec->old_state = OLD_ORPHAN;
	return ret;
}

/* Create the send root's new inode @ino at its first name or orphan name. */
static int create_new(struct send_ctx *sctx, u64 ino, struct name_rec *rec)
{
	struct send_names_pass *np = sctx->names_pass;
	struct send_inode *si = np->si;
	struct name_ref *first;
	LIST_HEAD(names);
	bool ready;
	int ret;

	ret = load_names(sctx->send_root, ino, &names);
	if (ret)
		return ret;
	first = first_name(&names);
	/* Unlinked but open when the snapshot was taken: not sent. */
	if (!first) {
		rec->new_state = NEW_FINAL;
		return 0;
	}
	ret = send_lookup_inode(sctx->send_root, ino, si);
	if (ret)
		goto out;
	ret = name_ready(sctx, first, &ready);
	if (ret)
		goto out;
	if (ready)
		ret = send_loc_ref_path(sctx, first->dir, false, first->name,
					first->name_len, &np->to);
	else
		ret = send_orphan_path(sctx, ino, rec->new_gen, &np->to);
	if (ret)
		goto out;
	note_top_dir(sctx, &np->to);
	ret = send_create(sctx, ino, si->mode, si->rdev, &np->to);
	if (ret)
		goto out;
	if (!ready) {
		rec->new_state = NEW_ORPHAN;
		rec->pending = true;
		goto out;
	}
	rec->new_state = NEW_FINAL;
	ret = new_names_ready(sctx, &names, first, &ready);
	if (ret)
		goto out;
	if (ready)
		ret = link_new_names(sctx, ino, &names, first);
	else
		rec->pending = true;
out:
	free_names(&names);
	return ret;
}

/*
 * An inode of both roots that keeps some of its names: link the new ones
 * (all at once when all are free, else all in the finish step) and unlink
 * those it loses.  Until then it is reached through a kept name.
 */
static int rename_keeping(struct send_ctx *sctx, u64 ino,
			  struct name_rec *rec, struct list_head *old_names,
			  struct list_head *new_names)
{
	struct name_ref *kept = NULL;
	struct name_ref *ref;
	bool ready;
	int ret;

	list_for_each_entry(ref, new_names, list) {
		if (ref->keep) {
			kept = ref;
			break;
		}
	}
	rec->keep = kmalloc(sizeof(*rec->keep), GFP_KERNEL);
	if (!rec->keep)
		return -ENOMEM;
	rec->keep->dir = kept->dir;
	rec->keep->name_len = kept->name_len;
	memcpy(rec->keep->name, kept->name, kept->name_len);
	rec->new_state = NEW_KEEP;

	ret = new_names_ready(sctx, new_names, NULL, &ready);
	if (ret)
		return ret;
	if (ready) {
		ret = link_new_names(sctx, ino, new_names, NULL);
		if (ret)
			return ret;
	}
	ret = unlink_old_names(sctx, old_names, NULL);
	if (ret)
		return ret;
	if (!ready) {
		rec->pending = true;
		return 0;
	}
	rec->new_state = NEW_FINAL;
	kfree(rec->keep);
	rec->keep = NULL;
	return 0;
}

/*
 * An inode of both roots whose names all change: RENAME it from its first
 * old name to its first new name, or to its orphan name if that is taken,
 * its parent does not exist yet or (a directory) lies below it now.
 */
static int rename_moving(struct send_ctx *sctx, u64 ino, struct name_rec *rec,
			 struct list_head *old_names,
			 struct list_head *new_names)
{
	struct send_names_pass *np = sctx->names_pass;
	struct name_ref *first = first_name(new_names);
	bool ready;
	int ret;

	ret = name_ready(sctx, first, &ready);
	if (ret)
		return ret;
	if (ready && rec->new_dir) {
		bool below;

		ret = send_loc_is_below(sctx, first->dir, ino, &below);
		if (ret)
			return ret;
		ready = !below;
	}
	ret = send_loc_path(sctx, ino, true, &np->from);
	if (ret)
		return ret;
	if (ready)
		ret = send_loc_ref_path(sctx, first->dir, false, first->name,
					first->name_len, &np->to);
	else
		ret = send_orphan_path(sctx, ino, rec->new_gen, &np->to);
	if (ret)
		return ret;
	ret = send_two_paths(sctx, BTRFS_SEND_C_RENAME, &np->from, &np->to);
	if (ret)
		return ret;
	/* The first old name went with the RENAME. */
	ret = unlink_old_names(sctx, old_names, first_name(old_names));
	if (ret)
		return ret;
	if (!ready) {
		rec->new_state = NEW_ORPHAN;
		rec->pending = true;
		return 0;
	}
	rec->new_state = NEW_FINAL;
	ret = new_names_ready(sctx, new_names, first, &ready);
	if (ret)
		return ret;
	if (!ready) {
		rec->pending = true;
		return 0;
	}
	return link_new_names(sctx, ino, new_names, first);
}

/* An inode of both roots, some of whose names may have changed. */
static int rename_shared(struct send_ctx *sctx, u64 ino, struct name_rec *rec)
{
	LIST_HEAD(old_names);
	LIST_HEAD(new_names);
	struct name_ref *ref;
	bool keeps = false;
	int ret;

	ret = load_names(sctx->parent_root, ino, &old_names);
	if (ret)
		return ret;
	ret = load_names(sctx->send_root, ino, &new_names);
	if (ret)
		goto out;
	mark_kept(sctx, &old_names, &new_names);
	list_for_each_entry(ref, &new_names, list)
		keeps |= ref->keep;

	/* Both have links (note_inode()): an inode without refs is corrupt. */
	if (list_empty(&old_names) || list_empty(&new_names))
		ret = -EUCLEAN;
	else if (keeps)
		ret = rename_keeping(sctx, ino, rec, &old_names, &new_names);
	else
		ret = rename_moving(sctx, ino, rec, &old_names, &new_names);
out:
	free_names(&old_names);
	free_names(&new_names);
	return ret;
}

static int place_inode(struct send_ctx *sctx, u64 ino, struct name_rec *rec)
{
	int ret;

	if (rec->shared)
		return rename_shared(sctx, ino, rec);
	if (rec->old_state == OLD_IN_PLACE) {
		ret = release_old(sctx, ino, rec);
		if (ret)
			return ret;
	}
	if (rec->new_state == NEW_WAITING)
		return create_new(sctx, ino, rec);
	return 0;
}

/* ---- rmdir and finish ------------------------------------------------- */

static int rmdir_orphans(struct send_ctx *sctx)
{
	struct send_names_pass *np = sctx->names_pass;
	struct name_rec *rec;
	unsigned long ino;
	int ret;

	xa_for_each(&np->recs, ino, rec) {
		if (rec->old_state != OLD_ORPHAN)
			continue;
		ret = send_orphan_path(sctx, ino, rec->old_gen, &np->to);
		if (ret)
			return ret;
		ret = send_path_cmd(sctx, BTRFS_SEND_C_RMDIR, &np->to);
		if (ret)
			return ret;
		rec->old_state = OLD_GONE;
	}
	return 0;
}

/* Give @ino the names it could not take when its turn came. */
static int finish_inode(struct send_ctx *sctx, u64 ino, struct name_rec *rec)
{
	struct send_names_pass *np = sctx->names_pass;
	LIST_HEAD(old_names);
	LIST_HEAD(new_names);
	struct name_ref *first;
	int ret;

	if (rec->shared) {
		ret = load_names(sctx->parent_root, ino, &old_names);
		if (ret)
			return ret;
	}
	ret = load_names(sctx->send_root, ino, &new_names);
	if (ret)
		goto out;
	mark_kept(sctx, &old_names, &new_names);
	first = first_name(&new_names);

	if (rec->new_state == NEW_ORPHAN) {
		ret = send_orphan_path(sctx, ino, rec->new_gen, &np->from);
		if (ret)
			goto out;
		ret = send_loc_ref_path(sctx, first->dir, false, first->name,
					first->name_len, &np->to);
		if (ret)
			goto out;
		ret = send_two_paths(sctx, BTRFS_SEND_C_RENAME, &np->from,
				     &np->to);
		if (ret)
			goto out;
	}
	if (rec->new_state == NEW_KEEP) {
		ret = link_new_names(sctx, ino, &new_names, NULL);
		kfree(rec->keep);
		rec->keep = NULL;
	} else {
		rec->new_state = NEW_FINAL;
		ret = link_new_names(sctx, ino, &new_names, first);
	}
	rec->new_state = NEW_FINAL;
	rec->pending = false;
out:
	free_names(&old_names);
	free_names(&new_names);
	return ret;
}

/* ---- the pass ------------------------------------------------------------ */

static int run_pass(struct send_ctx *sctx)
{
	struct send_names_pass *np = sctx->names_pass;
	struct name_rec *rec;
	unsigned long ino;
	int ret;

	ret = send_compare_trees(sctx->send_root, sctx->parent_root, false,
				 note_item, sctx);
	if (ret)
		return ret;

	xa_for_each(&np->recs, ino, rec) {
		ret = place_inode(sctx, ino, rec);
		if (ret)
			return ret;
		ret = send_check_interrupt();
		if (ret)
			return ret;
	}
	ret = rmdir_orphans(sctx);
	if (ret)
		return ret;
	xa_for_each(&np->recs, ino, rec) {
		if (!rec->pending)
			continue;
		ret = finish_inode(sctx, ino, rec);
		if (ret)
			return ret;
	}
	return 0;
}

static void free_pass(struct send_ctx *sctx)
{
	struct send_names_pass *np = sctx->names_pass;
	struct name_rec *rec;
	unsigned long ino;

	sctx->locate = NULL;
	sctx->names_pass = NULL;
	/* Names cached while inodes moved; later passes start afresh. */
	send_name_cache_free(sctx);
	if (!np)
		return;
	xa_for_each(&np->recs, ino, rec) {
		kfree(rec->keep);
		kfree(rec);
	}
	xa_destroy(&np->recs);
	send_path_free(&np->from);
	send_path_free(&np->to);
	kfree(np->si);
	kfree(np);
}

static int init_pass(struct send_ctx *sctx)
{
	struct send_names_pass *np;
	int ret;

	np = kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return -ENOMEM;
	xa_init(&np->recs);
	sctx->names_pass = np;
	sctx->locate = names_locate;
	np->si = kzalloc(sizeof(*np->si), GFP_KERNEL);
	if (!np->si)
		return -ENOMEM;
	ret = send_path_init(&np->from);
	if (ret)
		return ret;
	return send_path_init(&np->to);
}

int send_changed_names(struct send_ctx *sctx)
{
	int ret;

	send_name_cache_free(sctx);
	ret = init_pass(sctx);
	if (!ret)
		ret = run_pass(sctx);
	free_pass(sctx);
	return ret;
}
