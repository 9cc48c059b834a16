// SPDX-License-Identifier: GPL-2.0
/*
 * BTRFS_IOC_SEND: argument checks, pinning of the roots involved, and the
 * outline of one send (stream header, SUBVOL or SNAPSHOT, the tree or the
 * changes against the parent, END).
 *
 * Every root taken part in a send (the send root, the parent, each clone
 * source) has its send_in_progress count raised for the whole operation.
 * The rest of btrfs relies on it: such a root cannot be made read-write
 * (ioctl.c), deleted (inode.c) or be the target of deduplication
 * (reflink.c); a root under deduplication cannot be sent (EAGAIN).
 */

#include <linux/fs.h>
#include <linux/file.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/math64.h>
#include "ctree.h"
#include "disk-io.h"
#include "transaction.h"
#include "ordered-data.h"
#include "send.h"
#include "send-internal.h"

static void warn_dedupe_in_progress(struct btrfs_root *root)
{
	btrfs_warn_rl(root->fs_info,
		      "cannot send root %llu while %d deduplications on it are in progress",
		      root->root_key.objectid, root->dedupe_in_progress);
}

/*
 * Take a reference in @root's send_in_progress count unless deduplication
 * runs on it.  Called with root_item_lock held.
 */
static int pin_root_locked(struct btrfs_root *root)
{
	if (root->dedupe_in_progress) {
		warn_dedupe_in_progress(root);
		return -EAGAIN;
	}
	root->send_in_progress++;
	return 0;
}

static void unpin_root(struct btrfs_root *root)
{
	spin_lock(&root->root_item_lock);
	root->send_in_progress--;
	WARN_ON_ONCE(root->send_in_progress < 0);
	spin_unlock(&root->root_item_lock);
}

/*
 * Look up and pin a parent or clone source: it must exist, be a read-only
 * subvolume and not be on its way out.
 */
static struct btrfs_root *get_source_root(struct btrfs_fs_info *fs_info,
					  u64 root_id)
{
	struct btrfs_root *root;
	int ret;

	root = btrfs_get_fs_root(fs_info, root_id, true);
	if (IS_ERR(root))
		return root;
	spin_lock(&root->root_item_lock);
	if (!btrfs_root_readonly(root) || btrfs_root_dead(root) ||
	    !is_fstree(root_id))
		ret = -EPERM;
	else
		ret = pin_root_locked(root);
	spin_unlock(&root->root_item_lock);
	if (ret) {
		btrfs_put_root(root);
		return ERR_PTR(ret);
	}
	return root;
}

static int clone_src_sort_cmp(const void *a, const void *b)
{
	const struct send_clone_src *x = a;
	const struct send_clone_src *y = b;

	if (x->root->root_key.objectid < y->root->root_key.objectid)
		return -1;
	if (x->root->root_key.objectid > y->root->root_key.objectid)
		return 1;
	return 0;
}

/*
 * Pin every clone source named by userspace.  On error the sources pinned
 * so far stay in sctx->clone_srcs for the caller to release.
 */
static int get_clone_sources(struct send_ctx *sctx,
			     const struct btrfs_ioctl_send_args *arg)
{
	u64 count = arg->clone_sources_count;
	u64 *ids;
	u64 i;
	int ret = 0;

	sctx->clone_srcs = kvcalloc(count + 1, sizeof(*sctx->clone_srcs),
				    GFP_KERNEL);
	if (!sctx->clone_srcs)
		return -ENOMEM;
	if (!count)
		return 0;

	ids = kvmalloc_array(count, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	if (copy_from_user(ids, arg->clone_sources, count * sizeof(*ids))) {
		ret = -EFAULT;
		goto out_free_ids;
	}
	for (i = 0; i < count; i++) {
		struct btrfs_root *root = get_source_root(sctx->fs_info,
							  ids[i]);

		if (IS_ERR(root)) {
			ret = PTR_ERR(root);
			break;
		}
		sctx->clone_srcs[sctx->nr_clone_srcs++].root = root;
	}
out_free_ids:
	kvfree(ids);
	return ret;
}

/*
 * Data written before the subvolume became read-only may still be in
 * delalloc or ordered extents, and the commit roots we read may lag behind
 * the trees: write everything out and commit if needed.
 */
static int sync_roots(struct send_ctx *sctx)
{
	struct btrfs_root *roots[2] = { sctx->send_root, sctx->parent_root };
	struct btrfs_trans_handle *trans;
	bool need_commit = false;
	u32 i;
	int ret;

	for (i = 0; i < sctx->nr_clone_srcs + ARRAY_SIZE(roots); i++) {
		struct btrfs_root *root = i < ARRAY_SIZE(roots) ? roots[i] :
			sctx->clone_srcs[i - ARRAY_SIZE(roots)].root;

		if (!root)
			continue;
		ret = btrfs_start_delalloc_snapshot(root, false);
		if (ret)
			return ret;
		btrfs_wait_ordered_extents(root, U64_MAX, 0, U64_MAX);
		if (READ_ONCE(root->node) != READ_ONCE(root->commit_root))
			need_commit = true;
	}
	if (!need_commit)
		return 0;
	trans = btrfs_join_transaction(sctx->send_root);
	if (IS_ERR(trans))
		return PTR_ERR(trans);
	return btrfs_commit_transaction(trans);
}

/* The UUID a receiver knows a subvolume by (see the stream spec, 5.2). */
static u8 *stream_uuid(struct btrfs_root *root)
{
	if (!btrfs_is_empty_uuid(root->root_item.received_uuid))
		return root->root_item.received_uuid;
	return root->root_item.uuid;
}

/*
 * SUBVOL with the name the send root has in its parent directory, or for
 * an incremental send SNAPSHOT, which also names the parent the receiver
 * must start from.
 */
static int send_subvol_begin(struct send_ctx *sctx)
{
	struct btrfs_root *parent = sctx->parent_root;
	struct btrfs_root *root = sctx->send_root;
	struct send_stream *s = &sctx->stream;
	struct btrfs_root_ref *ref;
	struct extent_buffer *leaf;
	struct btrfs_path *path;
	struct btrfs_key key = {
		.objectid = root->root_key.objectid,
		.type = BTRFS_ROOT_BACKREF_KEY,
	};
	int ret;

	path = btrfs_alloc_path();
	if (!path)
		return -ENOMEM;
	ret = btrfs_search_slot_for_read(sctx->fs_info->tree_root, &key, path,
					 1, 0);
	if (ret > 0)
		ret = -ENOENT;
	if (ret)
		goto out;
	leaf = path->nodes[0];
	btrfs_item_key_to_cpu(leaf, &key, path->slots[0]);
	if (key.objectid != root->root_key.objectid ||
	    key.type != BTRFS_ROOT_BACKREF_KEY) {
		ret = -ENOENT;
		goto out;
	}
	ref = btrfs_item_ptr(leaf, path->slots[0], struct btrfs_root_ref);

	ret = send_cmd_begin(s, parent ? BTRFS_SEND_C_SNAPSHOT :
					 BTRFS_SEND_C_SUBVOL);
	if (ret)
		goto out;
	ret = send_put_eb(s, BTRFS_SEND_A_PATH, leaf, (unsigned long)(ref + 1),
			  btrfs_root_ref_name_len(leaf, ref));
	if (ret)
		goto out;
	btrfs_release_path(path);
	ret = send_put_attr(s, BTRFS_SEND_A_UUID, stream_uuid(root),
			    BTRFS_UUID_SIZE);
	if (ret)
		goto out;
	ret = send_put_u64(s, BTRFS_SEND_A_CTRANSID,
			   btrfs_root_ctransid(&root->root_item));
	if (ret)
		goto out;
	if (parent) {
		ret = send_put_attr(s, BTRFS_SEND_A_CLONE_UUID,
				    stream_uuid(parent), BTRFS_UUID_SIZE);
		if (ret)
			goto out;
		ret = send_put_u64(s, BTRFS_SEND_A_CLONE_CTRANSID,
				   btrfs_root_ctransid(&parent->root_item));
		if (ret)
			goto out;
	}
	ret = send_cmd_end(s);
out:
	btrfs_free_path(path);
	return ret;
}

/*
 * Two walks of the changed items: names first, so that the contents pass
 * finds every inode at its final name.  Moving orphans through the top
 * directory changes its times after any UTIMES sent for it.
 */
static int send_incremental(struct send_ctx *sctx)
{
	int ret;

	ret = send_changed_names(sctx);
	if (ret)
		return ret;
	ret = send_changed_contents(sctx);
	if (ret)
		return ret;
	if (!sctx->top_dir_dirty)
		return 0;
	return send_utimes(sctx, BTRFS_FIRST_FREE_OBJECTID, 0);
}

/* The accepted flags: those of 6.1 and our own. */
#define SEND_FLAGS_SUPPORTED	(BTRFS_SEND_FLAG_MASK | BTRFS_SEND_FLAG_RESUME)

/*
 * BTRFS_SEND_FLAG_RESUME: the point in the reserved bytes must name a
 * command (K >= 1) that ends at least where K empty commands after the
 * stream header would, and the stream must have its header and END, from
 * which the offsets count.  Without the flag the bytes are ignored, as
 * 6.1 ignores them: a caller that left them unset works on both kernels.
 */
static int check_resume_point(const struct btrfs_ioctl_send_args *arg,
			      struct btrfs_send_resume_point *pt)
{
	u64 min_len = sizeof(struct btrfs_send_cmd_header);

	if (!(arg->flags & BTRFS_SEND_FLAG_RESUME))
		return 0;
	if (arg->flags & (BTRFS_SEND_FLAG_OMIT_STREAM_HEADER |
			  BTRFS_SEND_FLAG_OMIT_END_CMD))
		return -EINVAL;
	BUILD_BUG_ON(sizeof(*pt) > sizeof(arg->reserved));
	memcpy(pt, arg->reserved, sizeof(*pt));
	if (!pt->index ||
	    pt->index > div64_u64(U64_MAX - sizeof(struct btrfs_send_stream_header),
				  min_len) ||
	    pt->offset < sizeof(struct btrfs_send_stream_header) +
			 pt->index * min_len)
		return -EINVAL;
	return 0;
}

/* Measure commands up to the point of a resumed send instead of writing. */
static void start_resume(struct send_ctx *sctx,
			 const struct btrfs_send_resume_point *pt)
{
	struct send_resume *r = &sctx->resume;
	struct btrfs_root *parent = sctx->parent_root;

	if (!(sctx->flags & BTRFS_SEND_FLAG_RESUME))
		return;
	r->point = *pt;
	r->uuid = stream_uuid(sctx->send_root);
	r->ctransid = btrfs_root_ctransid(&sctx->send_root->root_item);
	if (parent) {
		r->parent_uuid = stream_uuid(parent);
		r->parent_ctransid = btrfs_root_ctransid(&parent->root_item);
	}
	sctx->stream.resume = r;
}

static int send_emit_stream(struct send_ctx *sctx)
{
	struct btrfs_fs_info *fs_info = sctx->fs_info;
	struct send_stream *s = &sctx->stream;
	int ret;

	down_read(&fs_info->commit_root_sem);
	sctx->last_reloc_trans = fs_info->last_reloc_trans;
	up_read(&fs_info->commit_root_sem);

	if (!(sctx->flags & BTRFS_SEND_FLAG_OMIT_STREAM_HEADER)) {
		ret = send_stream_write_header(s);
		if (ret)
			return ret;
	}
	ret = send_subvol_begin(sctx);
	if (ret)
		return ret;
	if (sctx->parent_root)
		ret = send_incremental(sctx);
	else
		ret = send_full_tree(sctx);
	if (ret)
		return ret;
	if (!(sctx->flags & BTRFS_SEND_FLAG_OMIT_END_CMD)) {
		ret = send_cmd_begin(s, BTRFS_SEND_C_END);
		if (ret)
			return ret;
		ret = send_cmd_end(s);
	}
	if (ret)
		return ret;
	return send_resume_check_end(s);
}

static int send_run(struct send_ctx *sctx)
{
	int ret = send_emit_stream(sctx);
	/* Commands built before an error go out too, as if not gathered. */
	int flushed = send_stream_flush(&sctx->stream);

	return ret ?: flushed;
}

static struct send_ctx *send_ctx_alloc(void)
{
	struct send_ctx *sctx;

	sctx = kzalloc(sizeof(*sctx), GFP_KERNEL);
	if (!sctx)
		return NULL;
	xa_init(&sctx->early_dirs);
	xa_init(&sctx->names);
	INIT_LIST_HEAD(&sctx->names_lru);
	INIT_LIST_HEAD(&sctx->cur.refs);
	return sctx;
}

static int send_ctx_init(struct send_ctx *sctx)
{
	int ret;

	ret = send_path_init(&sctx->cur_path);
	if (ret)
		return ret;
	ret = send_path_init(&sctx->path);
	if (ret)
		return ret;
	ret = send_path_init(&sctx->path_to);
	if (ret)
		return ret;
	ret = send_path_init(&sctx->orphan);
	if (ret)
		return ret;
	sctx->dir_times = kzalloc(sizeof(*sctx->dir_times), GFP_KERNEL);
	if (!sctx->dir_times)
		return -ENOMEM;
	return send_extent_cache_init(sctx);
}

static void send_ctx_free(struct send_ctx *sctx)
{
	u32 i;

	for (i = 0; i < sctx->nr_clone_srcs; i++) {
		unpin_root(sctx->clone_srcs[i].root);
		btrfs_put_root(sctx->clone_srcs[i].root);
	}
	kvfree(sctx->clone_srcs);
	if (sctx->parent_root) {
		unpin_root(sctx->parent_root);
		btrfs_put_root(sctx->parent_root);
	}
	if (sctx->stream.out)
		fput(sctx->stream.out);
	send_stream_release(&sctx->stream);
	send_extent_cache_free(sctx);
	send_name_cache_free(sctx);
	xa_destroy(&sctx->early_dirs);
	send_path_free(&sctx->cur_path);
	send_path_free(&sctx->path);
	send_path_free(&sctx->path_to);
	send_path_free(&sctx->orphan);
	kfree(sctx->dir_times);
	kfree(sctx);
}

/**
 * btrfs_ioctl_send - write a send stream of the subvolume of @inode
 * @inode:	any inode of the (read-only) subvolume to send
 * @arg:	the ioctl arguments, already copied from userspace
 *
 * The checks and their errors are those of Linux 6.1, in the same order,
 * so that a caller sees the same errno for the same mistake.
 */
long btrfs_ioctl_send(struct inode *inode, struct btrfs_ioctl_send_args *arg)
{
	struct btrfs_root *send_root = BTRFS_I(inode)->root;
	struct btrfs_fs_info *fs_info = send_root->fs_info;
	struct send_ctx *sctx = NULL;
	struct btrfs_send_resume_point point;
	struct file *out;
	u32 proto = 1;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	/* Keeps the send root read-only and alive while we read it. */
	spin_lock(&send_root->root_item_lock);
	if (btrfs_root_readonly(send_root) && send_root->dedupe_in_progress) {
		warn_dedupe_in_progress(send_root);
		spin_unlock(&send_root->root_item_lock);
		return -EAGAIN;
	}
	send_root->send_in_progress++;
	spin_unlock(&send_root->root_item_lock);

	if (!btrfs_root_readonly(send_root)) {
		ret = -EPERM;
		goto out_unpin_send_root;
	}
	/* The kernel allocates per clone source: bound the count first. */
	if (arg->clone_sources_count > SEND_MAX_CLONE_SOURCES) {
		ret = -EINVAL;
		goto out_unpin_send_root;
	}
	if (arg->flags & ~SEND_FLAGS_SUPPORTED) {
		ret = -EOPNOTSUPP;
		goto out_unpin_send_root;
	}
	if (arg->flags & BTRFS_SEND_FLAG_VERSION) {
		if (arg->version > BTRFS_SEND_STREAM_VERSION) {
			ret = -EPROTO;
			goto out_unpin_send_root;
		}
		proto = arg->version ?: BTRFS_SEND_STREAM_VERSION;
	}
	if ((arg->flags & BTRFS_SEND_FLAG_COMPRESSED) && proto < 2) {
		ret = -EINVAL;
		goto out_unpin_send_root;
	}
	ret = check_resume_point(arg, &point);
	if (ret)
		goto out_unpin_send_root;

	out = fget(arg->send_fd);
	if (!out || !(out->f_mode & FMODE_WRITE)) {
		if (out)
			fput(out);
		ret = -EBADF;
		goto out_unpin_send_root;
	}

	sctx = send_ctx_alloc();
	if (!sctx) {
		fput(out);
		ret = -ENOMEM;
		goto out_unpin_send_root;
	}
	/* From here on send_ctx_free() releases what sctx holds. */
	sctx->fs_info = fs_info;
	sctx->send_root = send_root;
	sctx->flags = arg->flags;
	ret = send_stream_init(&sctx->stream, out, proto);
	sctx->stream.out = out;
	if (ret)
		goto out_free_ctx;

	/* Marked for deletion but its directory entry is still there. */
	if (btrfs_root_dead(send_root)) {
		ret = -EPERM;
		goto out_free_ctx;
	}

	ret = send_ctx_init(sctx);
	if (ret)
		goto out_free_ctx;
	ret = get_clone_sources(sctx, arg);
	if (ret)
		goto out_free_ctx;

	if (arg->parent_root) {
		struct btrfs_root *parent;

		parent = get_source_root(fs_info, arg->parent_root);
		if (IS_ERR(parent)) {
			ret = PTR_ERR(parent);
			goto out_free_ctx;
		}
		sctx->parent_root = parent;
	}

	/*
	 * The send root is always a clone source, for extents shared inside
	 * it; the array was sized for it.  Sorted for bsearch().
	 */
	spin_lock(&send_root->root_item_lock);
	send_root->send_in_progress++;
	spin_unlock(&send_root->root_item_lock);
	sctx->clone_srcs[sctx->nr_clone_srcs++].root =
		btrfs_grab_root(send_root);
	sort(sctx->clone_srcs, sctx->nr_clone_srcs, sizeof(*sctx->clone_srcs),
	     clone_src_sort_cmp, NULL);

	ret = sync_roots(sctx);
	if (ret)
		goto out_free_ctx;

	start_resume(sctx, &point);
	ret = send_run(sctx);

out_free_ctx:
	send_ctx_free(sctx);
out_unpin_send_root:
	unpin_root(send_root);
	return ret;
}
