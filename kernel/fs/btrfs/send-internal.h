/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interfaces between the parts of btrfs send: stream encoding
 * (send-stream.c), tree comparison (send-compare.c), path building
 * (send-path.c), inode processing (send-inode.c), extent and data emission
 * (send-data.c) and the ioctl entry (send-ioctl.c).
 */

#ifndef BTRFS_SEND_INTERNAL_H
#define BTRFS_SEND_INTERNAL_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/xarray.h>
#include <linux/fs.h>
#include "send-stream.h"
#include "send-compare.h"

struct btrfs_root;
struct btrfs_fs_info;
struct extent_buffer;
struct btrfs_key;

/*
 * The same bound on clone sources as 6.1 (8MiB worth of its 32 byte
 * per-source records), so a huge count fails early with EINVAL.
 */
#define SEND_MAX_CLONE_SOURCES		(SZ_8M / 32)

/* ---- paths (send-path.c) ---------------------------------------------- */

/* A path relative to the subvolume root, built from its last component. */
struct send_path {
	char *buf;
	u32 cap;
	u32 start;		/* the path is buf[start, cap) */
};

typedef int (*send_item_fn)(void *ctx, const struct extent_buffer *leaf,
			    int slot, const struct btrfs_key *key);
int send_walk_items(struct btrfs_root *root, u64 objectid, u8 min_type,
		    u8 max_type, send_item_fn fn, void *ctx);
int send_path_init(struct send_path *p);
void send_path_free(struct send_path *p);
void send_path_reset(struct send_path *p);
int send_path_prepend(struct send_path *p, const char *name, u32 len);
int send_path_copy(struct send_path *dst, const struct send_path *src);
static inline u32 send_path_len(const struct send_path *p)
{
	return p->cap - p->start;
}

static inline const char *send_path_str(const struct send_path *p)
{
	return p->buf + p->start;
}

int send_put_path(struct send_stream *s, enum btrfs_send_attr type,
		  const struct send_path *p);

struct send_ctx;

/* First name of @ino in @root: parent directory and name. */
struct send_ref_name {
	u64 dir;
	u32 name_len;
	char name[BTRFS_NAME_LEN];
};

int send_first_ref(struct btrfs_root *root, u64 ino,
		   struct send_ref_name *ref);
int send_walk_refs(const struct extent_buffer *leaf, int slot,
		   const struct btrfs_key *key,
		   int (*fn)(void *ctx, u64 dir,
			     const struct extent_buffer *leaf,
			     unsigned long name_off, u32 name_len),
		   void *ctx);
int send_orphan_path(struct send_ctx *sctx, u64 ino, u64 gen,
		     struct send_path *p);
int send_cur_path(struct send_ctx *sctx, u64 ino, u64 gen,
		  struct send_path *p);
int send_ref_path(struct send_ctx *sctx, u64 dir, const char *name,
		  u32 name_len, struct send_path *p);
int send_tree_path(struct btrfs_root *root, u64 ino, struct send_path *p);
void send_name_cache_free(struct send_ctx *sctx);

/*
 * Where an inode is on the receiver while an incremental send changes
 * names (send-rename.c decides, path building follows).
 */
enum send_loc_kind {
	SEND_LOC_SEND,		/* at its first name in the send root */
	SEND_LOC_PARENT,	/* at its first name in the parent root */
	SEND_LOC_ORPHAN,	/* at its orphan name for generation @gen */
	SEND_LOC_NAME,		/* at @name, which both roots have */
};

struct send_loc {
	enum send_loc_kind kind;
	u64 gen;
	const struct send_ref_name *name;
};

/* @old: the parent root's inode @ino, else the send root's. */
typedef int (*send_locate_fn)(struct send_ctx *sctx, u64 ino, bool old,
			      struct send_loc *loc);

int send_loc_path(struct send_ctx *sctx, u64 ino, bool old,
		  struct send_path *p);
int send_loc_ref_path(struct send_ctx *sctx, u64 dir, bool old,
		      const char *name, u32 name_len, struct send_path *p);
int send_loc_is_below(struct send_ctx *sctx, u64 dir, u64 anc, bool *below);

/* ---- per send state ---------------------------------------------------- */

struct send_clone_src {
	struct btrfs_root *root;
};

/* A name of the current inode, recorded until all its refs have been seen. */
struct send_ref {
	struct list_head list;
	u64 dir;
	u32 name_len;
	char name[];
};

struct send_inode {
	u64 ino;
	u64 gen;
	u64 size;
	u32 mode;
	u32 uid;
	u32 gid;
	u64 rdev;
	u64 flags;
	u32 nlink;
	struct btrfs_timespec atime;
	struct btrfs_timespec mtime;
	struct btrfs_timespec ctime;
	struct btrfs_timespec otime;

	bool active;
	bool skip;		/* no links: nothing to send */
	bool refs_done;
	u64 recv_size;		/* file size on the receiver so far */
	/*
	 * Incremental send: the receiver holds the parent's version of this
	 * inode (same generation), of size parent_size; parent data that the
	 * send root no longer has is made zeros, [zero_start, zero_end) is
	 * the pending range of that.
	 */
	bool in_parent;
	u64 parent_size;
	u64 zero_start;
	u64 zero_end;
	struct list_head refs;
	void *caps;		/* security.capability, sent last */
	u32 caps_len;
	struct inode *vfs;	/* for reading data through the page cache */
	struct file_ra_state ra;
	/*
	 * First page of vfs the send read, (pgoff_t)-1 for none; from it on
	 * the pages are dropped when the send is done if the inode had none
	 * cached before, so that sending a large snapshot does not push the
	 * page cache out.
	 */
	bool drop_read_pages;
	pgoff_t read_first;
};

struct send_extent_cache;
struct send_names_pass;

enum send_orphan_names {
	SEND_ORPHAN_NAMES_UNKNOWN,
	SEND_ORPHAN_NAMES_FREE,		/* no name like one: index 0 is free */
	SEND_ORPHAN_NAMES_LOOKUP,
};

struct send_ctx {
	struct btrfs_fs_info *fs_info;
	struct btrfs_root *send_root;
	struct btrfs_root *parent_root;
	struct send_clone_src *clone_srcs;	/* sorted by root id */
	u32 nr_clone_srcs;
	u64 flags;
	u64 last_reloc_trans;

	struct send_stream stream;
	struct send_resume resume;	/* BTRFS_SEND_FLAG_RESUME */
	struct send_inode cur;

	/* Inodes below this number are fully processed on the receiver. */
	u64 progress;
	/* Directories created ahead of their turn: ino -> xa_mk_value(gen) */
	struct xarray early_dirs;
	/* An orphan came or went in the top directory after its UTIMES. */
	bool top_dir_dirty;
	/* Whether orphan names must be looked up (send_orphan_path()). */
	enum send_orphan_names orphan_names;
	/* The directory whose times send_utimes() read last, 0 for none. */
	u64 dir_times_ino;
	struct send_inode *dir_times;

	/*
	 * Set while an incremental send changes names: where inodes are then
	 * (NULL: the full send's rule, by inode number).
	 */
	send_locate_fn locate;
	struct send_names_pass *names_pass;

	/* ino -> struct send_name_entry, first names of placed inodes */
	struct xarray names;
	struct list_head names_lru;
	u32 nr_names;

	struct send_extent_cache *extents;

	/* Where the current inode is on the receiver, once it is placed. */
	struct send_path cur_path;
	/* Scratch paths for building commands. */
	struct send_path path;
	struct send_path path_to;
	struct send_path orphan;
};

static inline bool send_no_data(const struct send_ctx *sctx)
{
	return sctx->flags & BTRFS_SEND_FLAG_NO_FILE_DATA;
}

/* ---- inodes and data (send-inode.c, send-data.c) ---------------------- */

/* Inode flags that chattr(1) shows; the others are btrfs bookkeeping. */
#define SEND_FILEATTR_MASK	(BTRFS_INODE_NODATACOW | BTRFS_INODE_SYNC | \
				 BTRFS_INODE_IMMUTABLE | BTRFS_INODE_APPEND | \
				 BTRFS_INODE_NODUMP | BTRFS_INODE_NOATIME | \
				 BTRFS_INODE_DIRSYNC | BTRFS_INODE_COMPRESS | \
				 BTRFS_INODE_NOCOMPRESS)

int send_full_tree(struct send_ctx *sctx);

/*
 * An incremental send in two walks of the changed items: first every name
 * change (send-rename.c), then with every inode at its final name the
 * contents of changed inodes (send-delta.c).
 */
int send_changed_names(struct send_ctx *sctx);
int send_changed_contents(struct send_ctx *sctx);
int send_utimes(struct send_ctx *sctx, u64 ino, u64 gen);
int send_lookup_inode(struct btrfs_root *root, u64 ino, struct send_inode *si);
int send_create(struct send_ctx *sctx, u64 ino, u32 mode, u64 rdev,
		const struct send_path *p);
int send_rename_or_link(struct send_ctx *sctx, enum btrfs_send_cmd cmd,
			const struct send_path *from,
			const struct send_path *to);

/* Emitters shared by the full send and the contents pass. */
int send_utimes_at(struct send_ctx *sctx, const struct send_path *p,
		   const struct send_inode *si);
int send_set_xattr(struct send_ctx *sctx, const struct extent_buffer *leaf,
		   unsigned long name_off, u32 name_len, u32 data_len);
int send_chown(struct send_ctx *sctx);
int send_chmod(struct send_ctx *sctx);
int send_fileattr(struct send_ctx *sctx);
int send_caps(struct send_ctx *sctx);
int send_owner_and_mode(struct send_ctx *sctx);
void send_release_inode(struct send_ctx *sctx);

int send_data_extent(struct send_ctx *sctx, const struct send_cmp_item *item);
int send_data_finish(struct send_ctx *sctx);
int send_data_parent_extent(struct send_ctx *sctx,
			    const struct send_cmp_item *item);
void send_data_close_inode(struct send_ctx *sctx);
int send_extent_cache_init(struct send_ctx *sctx);
void send_extent_cache_free(struct send_ctx *sctx);

#endif
