// SPDX-License-Identifier: GPL-2.0
/*
 * Inodes of a full send: creation, names (references), xattrs and the
 * metadata that closes every inode, in the order the receiver needs:
 *
 *   MK* at the orphan name, RENAME/LINK to its names, UTIMES of parent
 *   directories already sent, SET_XATTR, file data, TRUNCATE, CHOWN, CHMOD,
 *   FILEATTR, security.capability, UTIMES.
 *
 * CHOWN comes before CHMOD because chown(2) clears setuid/setgid; the
 * capability comes after both and after the data because chown and writes
 * drop it; UTIMES comes last because everything before touches the times.
 *
 * Items arrive in key order, so for each inode: INODE_ITEM, then its
 * INODE_REF/INODE_EXTREF items, then xattrs, then extents.  Names are
 * collected until the first item that is not a name.
 */

#include <linux/slab.h>
#include <linux/xattr.h>
#include <linux/posix_acl_xattr.h>
#include <linux/kdev_t.h>
#include "ctree.h"
#include "send-internal.h"

/* Directories whose times are re-sent after the current inode's names. */
#define MAX_DIRTY_DIRS		16

static void fill_inode(struct send_inode *si,
		       const struct btrfs_inode_item *ii)
{
	si->gen = btrfs_stack_inode_generation(ii);
	si->size = btrfs_stack_inode_size(ii);
	si->mode = btrfs_stack_inode_mode(ii);
	si->uid = btrfs_stack_inode_uid(ii);
	si->gid = btrfs_stack_inode_gid(ii);
	si->rdev = btrfs_stack_inode_rdev(ii);
	si->flags = btrfs_stack_inode_flags(ii);
	si->nlink = btrfs_stack_inode_nlink(ii);
	si->atime = ii->atime;
	si->mtime = ii->mtime;
	si->ctime = ii->ctime;
	si->otime = ii->otime;
}

int send_lookup_inode(struct btrfs_root *root, u64 ino, struct send_inode *si)
{
	struct btrfs_inode_item ii;
	struct btrfs_path *path;
	struct btrfs_key key = {
		.objectid = ino,
		.type = BTRFS_INODE_ITEM_KEY,
	};
	int ret;

	path = send_alloc_path();
	if (!path)
		return -ENOMEM;
	down_read(&root->fs_info->commit_root_sem);
	ret = send_search_held(root, &key, path);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret)
		read_extent_buffer(path->nodes[0], &ii,
				   btrfs_item_ptr_offset(path->nodes[0],
							 path->slots[0]),
				   sizeof(ii));
	btrfs_release_path(path);
	up_read(&root->fs_info->commit_root_sem);
	btrfs_free_path(path);
	if (!ret)
		fill_inode(si, &ii);
	return ret;
}

static int put_times(struct send_stream *s, const struct send_inode *si)
{
	int ret;

	ret = send_put_attr(s, BTRFS_SEND_A_ATIME, &si->atime,
			    sizeof(si->atime));
	if (ret)
		return ret;
	ret = send_put_attr(s, BTRFS_SEND_A_MTIME, &si->mtime,
			    sizeof(si->mtime));
	if (ret)
		return ret;
	ret = send_put_attr(s, BTRFS_SEND_A_CTIME, &si->ctime,
			    sizeof(si->ctime));
	if (ret)
		return ret;
	if (s->proto < 2)
		return 0;
	return send_put_attr(s, BTRFS_SEND_A_OTIME, &si->otime,
			     sizeof(si->otime));
}

int send_utimes_at(struct send_ctx *sctx, const struct send_path *p,
		   const struct send_inode *si)
{
	struct send_stream *s = &sctx->stream;
	int ret;

	ret = send_cmd_begin(s, BTRFS_SEND_C_UTIMES);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, p);
	if (ret)
		return ret;
	ret = put_times(s, si);
	if (ret)
		return ret;
	return send_cmd_end(s);
}

/*
 * Send the times of a directory whose entries changed on the receiver.
 * Usually the directory of the previous call again (a full send sends
 * its times after each new entry), so the last one read is kept: the send
 * root is read-only.
 */
int send_utimes(struct send_ctx *sctx, u64 ino, u64 gen)
{
	struct send_inode *si = sctx->dir_times;
	int ret;

	if (sctx->dir_times_ino != ino) {
		sctx->dir_times_ino = 0;
		ret = send_lookup_inode(sctx->send_root, ino, si);
		if (ret)
			return ret;
		sctx->dir_times_ino = ino;
	}
	ret = send_cur_path(sctx, ino, gen, &sctx->path);
	if (ret)
		return ret;
	return send_utimes_at(sctx, &sctx->path, si);
}

/* A symlink's target is its only (inline, uncompressed) extent. */
static int put_symlink_target(struct send_ctx *sctx, u64 ino)
{
	struct btrfs_file_extent_item *fi;
	struct extent_buffer *leaf;
	struct btrfs_path *path;
	struct btrfs_key key = {
		.objectid = ino,
		.type = BTRFS_EXTENT_DATA_KEY,
	};
	int ret;

	path = send_alloc_path();
	if (!path)
		return -ENOMEM;
	ret = btrfs_search_slot(NULL, sctx->send_root, &key, path, 0, 0);
	if (ret > 0)
		ret = -EUCLEAN;
	if (ret)
		goto out;
	leaf = path->nodes[0];
	fi = btrfs_item_ptr(leaf, path->slots[0],
			    struct btrfs_file_extent_item);
	if (btrfs_file_extent_type(leaf, fi) != BTRFS_FILE_EXTENT_INLINE ||
	    btrfs_file_extent_compression(leaf, fi) != BTRFS_COMPRESS_NONE) {
		btrfs_err(sctx->fs_info,
			  "send: symlink %llu root %llu has an unexpected extent",
			  ino, sctx->send_root->root_key.objectid);
		ret = -EUCLEAN;
		goto out;
	}
	ret = send_put_eb(&sctx->stream, BTRFS_SEND_A_PATH_LINK, leaf,
			  btrfs_file_extent_inline_start(fi),
			  btrfs_file_extent_ram_bytes(leaf, fi));
out:
	btrfs_free_path(path);
	return ret;
}

/* Create inode @ino with @mode and @rdev at path @p. */
int send_create(struct send_ctx *sctx, u64 ino, u32 mode, u64 rdev,
		const struct send_path *p)
{
	struct send_stream *s = &sctx->stream;
	enum btrfs_send_cmd cmd;
	int ret;

	switch (mode & S_IFMT) {
	case S_IFREG:
		cmd = BTRFS_SEND_C_MKFILE;
		break;
	case S_IFDIR:
		cmd = BTRFS_SEND_C_MKDIR;
		break;
	case S_IFLNK:
		cmd = BTRFS_SEND_C_SYMLINK;
		break;
	case S_IFCHR:
	case S_IFBLK:
		cmd = BTRFS_SEND_C_MKNOD;
		break;
	case S_IFIFO:
		cmd = BTRFS_SEND_C_MKFIFO;
		break;
	case S_IFSOCK:
		cmd = BTRFS_SEND_C_MKSOCK;
		break;
	default:
		btrfs_err(sctx->fs_info,
			  "send: inode %llu root %llu has unknown mode %o",
			  ino, sctx->send_root->root_key.objectid, mode);
		return -EUCLEAN;
	}

	ret = send_cmd_begin(s, cmd);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, p);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_INO, ino);
	if (ret)
		return ret;
	if (cmd == BTRFS_SEND_C_SYMLINK) {
		ret = put_symlink_target(sctx, ino);
	} else if (cmd != BTRFS_SEND_C_MKFILE && cmd != BTRFS_SEND_C_MKDIR) {
		/* The stream carries the userspace encoding of dev_t. */
		ret = send_put_u64(s, BTRFS_SEND_A_RDEV,
				   new_encode_dev((dev_t)rdev));
		if (ret)
			return ret;
		ret = send_put_u64(s, BTRFS_SEND_A_MODE, mode);
	}
	if (ret)
		return ret;
	return send_cmd_end(s);
}

static u64 early_gen(struct send_ctx *sctx, u64 ino)
{
	void *entry = xa_load(&sctx->early_dirs, (unsigned long)ino);

	return entry ? xa_to_value(entry) : 0;
}

/*
 * A name of the current inode lies in a directory with a higher number,
 * which is processed later: create that directory now, at its orphan
 * name, and move it into place when its turn comes.
 */
static int create_early_dir(struct send_ctx *sctx, u64 dir)
{
	struct send_inode *si;
	int ret;

	si = kzalloc(sizeof(*si), GFP_KERNEL);
	if (!si)
		return -ENOMEM;
	ret = send_lookup_inode(sctx->send_root, dir, si);
	if (ret)
		goto out;
	if (!S_ISDIR(si->mode)) {
		ret = -EUCLEAN;
		goto out;
	}
	ret = send_orphan_path(sctx, dir, si->gen, &sctx->path_to);
	if (ret)
		goto out;
	ret = send_create(sctx, dir, si->mode, 0, &sctx->path_to);
	if (ret)
		goto out;
	sctx->top_dir_dirty = true;
	ret = xa_err(xa_store(&sctx->early_dirs, (unsigned long)dir,
			      xa_mk_value(si->gen), GFP_KERNEL));
out:
	kfree(si);
	return ret;
}

static int add_ref(void *ctx, u64 dir, const struct extent_buffer *leaf,
		   unsigned long name_off, u32 name_len)
{
	struct send_ctx *sctx = ctx;
	struct send_ref *ref;

	if (name_len > BTRFS_NAME_LEN)
		return -EUCLEAN;
	ref = kmalloc(struct_size(ref, name, name_len), GFP_KERNEL);
	if (!ref)
		return -ENOMEM;
	ref->dir = dir;
	ref->name_len = name_len;
	read_extent_buffer(leaf, ref->name, name_off, name_len);
	list_add_tail(&ref->list, &sctx->cur.refs);
	return 0;
}

/* Note every name in an INODE_REF or INODE_EXTREF item. */
static int record_refs(struct send_ctx *sctx, const struct extent_buffer *leaf,
		       int slot, const struct btrfs_key *key)
{
	return send_walk_refs(leaf, slot, key, add_ref, sctx);
}

int send_rename_or_link(struct send_ctx *sctx, enum btrfs_send_cmd cmd,
			const struct send_path *from, const struct send_path *to)
{
	struct send_stream *s = &sctx->stream;
	int ret;

	ret = send_cmd_begin(s, cmd);
	if (ret)
		return ret;
	if (cmd == BTRFS_SEND_C_RENAME) {
		ret = send_put_path(s, BTRFS_SEND_A_PATH, from);
		if (ret)
			return ret;
		ret = send_put_path(s, BTRFS_SEND_A_PATH_TO, to);
	} else {
		/* LINK creates PATH as a new name of PATH_LINK. */
		ret = send_put_path(s, BTRFS_SEND_A_PATH, to);
		if (ret)
			return ret;
		ret = send_put_path(s, BTRFS_SEND_A_PATH_LINK, from);
	}
	if (ret)
		return ret;
	return send_cmd_end(s);
}

/*
 * Move the current inode from its orphan name to its first name and link
 * the others, then resend the times of the directories that gained an
 * entry after their own UTIMES went out.
 */
static int process_refs(struct send_ctx *sctx)
{
	struct send_inode *cur = &sctx->cur;
	u64 dirty[MAX_DIRTY_DIRS];
	u32 nr_dirty = 0;
	struct send_ref *ref;
	bool first = true;
	u32 i;
	int ret;

	if (cur->ino == BTRFS_FIRST_FREE_OBJECTID || list_empty(&cur->refs)) {
		ret = send_cur_path(sctx, cur->ino, cur->gen, &sctx->cur_path);
		cur->refs_done = true;
		return ret;
	}

	ret = send_orphan_path(sctx, cur->ino, cur->gen, &sctx->cur_path);
	if (ret)
		return ret;

	list_for_each_entry(ref, &cur->refs, list) {
		if (ref->dir > cur->ino && !early_gen(sctx, ref->dir)) {
			ret = create_early_dir(sctx, ref->dir);
			if (ret)
				return ret;
		}
		ret = send_ref_path(sctx, ref->dir, ref->name, ref->name_len,
				    &sctx->path_to);
		if (ret)
			return ret;
		if (first) {
			ret = send_rename_or_link(sctx, BTRFS_SEND_C_RENAME,
						  &sctx->cur_path,
						  &sctx->path_to);
			if (ret)
				return ret;
			cur->refs_done = true;
			sctx->top_dir_dirty = true;
			ret = send_path_copy(&sctx->cur_path, &sctx->path_to);
			first = false;
		} else {
			ret = send_rename_or_link(sctx, BTRFS_SEND_C_LINK,
						  &sctx->cur_path,
						  &sctx->path_to);
		}
		if (ret)
			return ret;

		/* Later directories get their times when they are done. */
		if (ref->dir > cur->ino)
			continue;
		for (i = 0; i < nr_dirty && dirty[i] != ref->dir; i++)
			;
		if (i < nr_dirty)
			continue;
		if (nr_dirty == MAX_DIRTY_DIRS) {
			ret = send_utimes(sctx, dirty[0], 0);
			if (ret)
				return ret;
			if (dirty[0] == BTRFS_FIRST_FREE_OBJECTID)
				sctx->top_dir_dirty = false;
			memmove(dirty, dirty + 1, sizeof(dirty[0]) * --nr_dirty);
		}
		dirty[nr_dirty++] = ref->dir;
	}

	for (i = 0; i < nr_dirty; i++) {
		ret = send_utimes(sctx, dirty[i], 0);
		if (ret)
			return ret;
		if (dirty[i] == BTRFS_FIRST_FREE_OBJECTID)
			sctx->top_dir_dirty = false;
	}
	return 0;
}

static bool name_is(const struct extent_buffer *leaf, unsigned long off,
		    u32 len, const char *name)
{
	return len == strlen(name) && !memcmp_extent_buffer(leaf, name, off, len);
}

/*
 * SET_XATTR of one xattr of the current inode; security.capability is only
 * noted here and sent last (see above).
 */
int send_set_xattr(struct send_ctx *sctx, const struct extent_buffer *leaf,
		   unsigned long name_off, u32 name_len, u32 data_len)
{
	struct send_stream *s = &sctx->stream;
	unsigned long data_off = name_off + name_len;
	int ret;

	if (name_is(leaf, name_off, name_len, XATTR_NAME_CAPS)) {
		kfree(sctx->cur.caps);
		sctx->cur.caps = kmalloc(max(data_len, 1U), GFP_KERNEL);
		if (!sctx->cur.caps)
			return -ENOMEM;
		read_extent_buffer(leaf, sctx->cur.caps, data_off, data_len);
		sctx->cur.caps_len = data_len;
		return 0;
	}

	ret = send_cmd_begin(s, BTRFS_SEND_C_SET_XATTR);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_eb(s, BTRFS_SEND_A_XATTR_NAME, leaf, name_off, name_len);
	if (ret)
		return ret;
	if (data_len == 0 &&
	    (name_is(leaf, name_off, name_len, XATTR_NAME_POSIX_ACL_ACCESS) ||
	     name_is(leaf, name_off, name_len, XATTR_NAME_POSIX_ACL_DEFAULT))) {
		/* setxattr refuses an empty ACL, send an empty list. */
		__le32 version = cpu_to_le32(POSIX_ACL_XATTR_VERSION);

		ret = send_put_attr(s, BTRFS_SEND_A_XATTR_DATA, &version,
				    sizeof(version));
	} else {
		ret = send_put_eb(s, BTRFS_SEND_A_XATTR_DATA, leaf, data_off,
				  data_len);
	}
	if (ret)
		return ret;
	return send_cmd_end(s);
}

/* Send the xattrs of one XATTR_ITEM (names whose hashes collide share it). */
static int send_xattrs(struct send_ctx *sctx, const struct extent_buffer *leaf,
		       int slot)
{
	unsigned long ptr = btrfs_item_ptr_offset(leaf, slot);
	unsigned long end = ptr + btrfs_item_size(leaf, slot);
	int ret;

	while (ptr < end) {
		struct btrfs_dir_item *di = (void *)ptr;
		u32 name_len = btrfs_dir_name_len(leaf, di);
		u32 data_len = btrfs_dir_data_len(leaf, di);

		ptr += sizeof(*di) + name_len + data_len;
		if (ptr > end)
			return -EUCLEAN;
		ret = send_set_xattr(sctx, leaf, (unsigned long)(di + 1),
				     name_len, data_len);
		if (ret)
			return ret;
	}
	return 0;
}

int send_chown(struct send_ctx *sctx)
{
	struct send_stream *s = &sctx->stream;
	int ret;

	ret = send_cmd_begin(s, BTRFS_SEND_C_CHOWN);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_UID, sctx->cur.uid);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_GID, sctx->cur.gid);
	if (ret)
		return ret;
	return send_cmd_end(s);
}

int send_chmod(struct send_ctx *sctx)
{
	struct send_stream *s = &sctx->stream;
	int ret;

	/* Symlinks have no mode of their own (chmod would follow them). */
	if (S_ISLNK(sctx->cur.mode))
		return 0;
	ret = send_cmd_begin(s, BTRFS_SEND_C_CHMOD);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_MODE, sctx->cur.mode & 07777);
	if (ret)
		return ret;
	return send_cmd_end(s);
}

/* FILEATTR with the inode's flags; version 2 only. */
int send_fileattr(struct send_ctx *sctx)
{
	struct send_stream *s = &sctx->stream;
	int ret;

	if (s->proto < 2)
		return 0;
	ret = send_cmd_begin(s, BTRFS_SEND_C_FILEATTR);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_u64(s, BTRFS_SEND_A_FILEATTR, sctx->cur.flags);
	if (ret)
		return ret;
	return send_cmd_end(s);
}

/* security.capability, if the inode has one: after chown and data. */
int send_caps(struct send_ctx *sctx)
{
	struct send_stream *s = &sctx->stream;
	struct send_inode *cur = &sctx->cur;
	int ret;

	if (!cur->caps)
		return 0;
	ret = send_cmd_begin(s, BTRFS_SEND_C_SET_XATTR);
	if (ret)
		return ret;
	ret = send_put_path(s, BTRFS_SEND_A_PATH, &sctx->cur_path);
	if (ret)
		return ret;
	ret = send_put_attr(s, BTRFS_SEND_A_XATTR_NAME, XATTR_NAME_CAPS,
			    strlen(XATTR_NAME_CAPS));
	if (ret)
		return ret;
	ret = send_put_attr(s, BTRFS_SEND_A_XATTR_DATA, cur->caps,
			    cur->caps_len);
	if (ret)
		return ret;
	return send_cmd_end(s);
}

/* Everything a new inode gets after its data, except its times. */
int send_owner_and_mode(struct send_ctx *sctx)
{
	int ret;

	ret = send_chown(sctx);
	if (ret)
		return ret;
	ret = send_chmod(sctx);
	if (ret)
		return ret;
	if (sctx->cur.flags & SEND_FILEATTR_MASK) {
		ret = send_fileattr(sctx);
		if (ret)
			return ret;
	}
	return send_caps(sctx);
}

void send_release_inode(struct send_ctx *sctx)
{
	struct send_inode *cur = &sctx->cur;
	struct send_ref *ref;
	struct send_ref *tmp;

	list_for_each_entry_safe(ref, tmp, &cur->refs, list) {
		list_del(&ref->list);
		kfree(ref);
	}
	kfree(cur->caps);
	cur->caps = NULL;
	send_data_close_inode(sctx);
	cur->active = false;
}

static int finish_inode(struct send_ctx *sctx)
{
	struct send_inode *cur = &sctx->cur;
	int ret = 0;

	if (!cur->active)
		return 0;
	if (cur->skip)
		goto out;
	if (!cur->refs_done) {
		ret = process_refs(sctx);
		if (ret)
			goto out;
	}
	if (S_ISREG(cur->mode)) {
		ret = send_data_finish(sctx);
		if (ret)
			goto out;
	}
	ret = send_owner_and_mode(sctx);
	if (ret)
		goto out;
	ret = send_utimes_at(sctx, &sctx->cur_path, cur);
out:
	sctx->progress = cur->ino + 1;
	send_release_inode(sctx);
	return ret;
}

static int start_inode(struct send_ctx *sctx, const struct extent_buffer *leaf,
		       int slot, u64 ino)
{
	struct send_inode *cur = &sctx->cur;
	struct btrfs_inode_item ii;
	int ret;

	read_extent_buffer(leaf, &ii, btrfs_item_ptr_offset(leaf, slot),
			   sizeof(ii));
	fill_inode(cur, &ii);
	cur->ino = ino;
	cur->active = true;
	cur->refs_done = false;
	cur->recv_size = 0;
	sctx->progress = ino;

	/* Unlinked but still open when the snapshot was taken. */
	cur->skip = cur->nlink == 0 && ino != BTRFS_FIRST_FREE_OBJECTID;
	if (cur->skip || ino == BTRFS_FIRST_FREE_OBJECTID)
		return 0;

	/* Created when a lower inode needed it as its parent. */
	if (xa_erase(&sctx->early_dirs, (unsigned long)ino))
		return 0;
	ret = send_orphan_path(sctx, ino, cur->gen, &sctx->path_to);
	if (ret)
		return ret;
	return send_create(sctx, ino, cur->mode, cur->rdev, &sctx->path_to);
}

static int full_send_item(void *ctx, const struct send_cmp_item *item)
{
	struct send_ctx *sctx = ctx;
	struct send_inode *cur = &sctx->cur;
	const struct btrfs_key *key = &item->key;
	int ret;

	/* Only inodes: no orphan items, no free space cache leftovers. */
	if (key->objectid < BTRFS_FIRST_FREE_OBJECTID ||
	    key->objectid > BTRFS_LAST_FREE_OBJECTID)
		return 0;

	if (!cur->active || key->objectid != cur->ino) {
		ret = finish_inode(sctx);
		if (ret)
			return ret;
		if (key->type != BTRFS_INODE_ITEM_KEY) {
			btrfs_err(sctx->fs_info,
				  "send: item (%llu %u %llu) root %llu has no inode item",
				  key->objectid, key->type, key->offset,
				  sctx->send_root->root_key.objectid);
			return -EUCLEAN;
		}
	}

	switch (key->type) {
	case BTRFS_INODE_ITEM_KEY:
		return start_inode(sctx, item->left, item->left_slot,
				   key->objectid);
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
		if (cur->skip || cur->ino == BTRFS_FIRST_FREE_OBJECTID)
			return 0;
		return record_refs(sctx, item->left, item->left_slot, key);
	default:
		break;
	}

	if (cur->skip)
		return 0;
	if (!cur->refs_done) {
		ret = process_refs(sctx);
		if (ret)
			return ret;
	}
	if (key->type == BTRFS_XATTR_ITEM_KEY)
		return send_xattrs(sctx, item->left, item->left_slot);
	if (key->type == BTRFS_EXTENT_DATA_KEY && S_ISREG(cur->mode))
		return send_data_extent(sctx, item);
	return 0;
}

/* Send every inode of the send root, as a comparison against nothing. */
int send_full_tree(struct send_ctx *sctx)
{
	int ret;

	sctx->progress = BTRFS_FIRST_FREE_OBJECTID;
	INIT_LIST_HEAD(&sctx->cur.refs);
	ret = send_compare_trees(sctx->send_root, NULL, false, full_send_item,
				 sctx);
	if (!ret)
		ret = finish_inode(sctx);
	send_release_inode(sctx);
	/*
	 * Orphans were created in and moved out of the top directory after
	 * its times went out; 6.1 leaves the received top directory with the
	 * time of the last such move.
	 */
	if (!ret && sctx->top_dir_dirty)
		ret = send_utimes(sctx, BTRFS_FIRST_FREE_OBJECTID, 0);
	return ret;
}
