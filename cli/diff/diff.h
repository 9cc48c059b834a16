/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface of `btrfs-stream diff`: the model that replays a send
 * stream's path operations onto inodes (model.c) and the report built from
 * it (report.c).  docs/diff.md describes the model and why it is right.
 */
#ifndef BTRFS_STREAM_CLI_DIFF_H
#define BTRFS_STREAM_CLI_DIFF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <btrfs-stream/stream.h>

/* What is known of an inode's type. */
enum diff_type {
	DIFF_T_UNKNOWN = 0,
	DIFF_T_NONDIR,		/* unlinked or hard-linked: not a directory */
	DIFF_T_FILE,
	DIFF_T_DIR,
	DIFF_T_SYMLINK,
	DIFF_T_FIFO,
	DIFF_T_SOCK,
	DIFF_T_CHR,
	DIFF_T_BLK,
};

/* What changed in an inode that exists on both sides. */
enum {
	DIFF_DATA = 1u << 0,	/* write, clone, truncate, update_extent, ... */
	DIFF_MODE = 1u << 1,	/* chmod */
	DIFF_OWNER = 1u << 2,	/* chown */
	DIFF_TIMES = 1u << 3,	/* utimes */
	DIFF_XATTRS = 1u << 4,	/* set_xattr, remove_xattr */
	DIFF_FLAGS = 1u << 5,	/* fileattr, enable_verity */
	DIFF_NCHANGES = 6,
};

struct diff_node;

/*
 * A name in a directory.  Entries are never freed while the model lives:
 * an entry whose node is NULL records that the name is known to be free
 * now (it was unlinked or renamed away), which stops the name from being
 * looked up in the old snapshot again.
 */
struct diff_entry {
	struct diff_entry *hnext;	/* hash chain */
	struct diff_node *dir;
	struct diff_node *node;		/* NULL: no such name now */
	uint64_t seq;			/* when node was put here */
	uint32_t hash;
	uint32_t len;
	char name[];			/* len bytes, NUL-terminated */
};

/*
 * An inode.  Either created by the stream (MK*; ino is the stream's INO)
 * or one of the old snapshot, met the first time the stream named it:
 * orig_dir/orig_name is then where it was in the old snapshot, which is
 * also where the stream found it.
 */
struct diff_node {
	struct diff_node *next;		/* all nodes in creation order */
	bool created;
	bool root;
	enum diff_type type;
	unsigned int changes;		/* DIFF_* of an old inode */
	uint64_t ino;
	uint64_t mode, uid, gid, fileattr;
	char **xattrs;			/* names set or removed */
	size_t nxattrs;
	struct diff_node *orig_dir;
	struct diff_entry *orig;	/* the old snapshot's entry (old inodes) */
	struct diff_entry **links;	/* entries naming it now, oldest first */
	size_t nlinks, cap;
	uint64_t live_children;		/* directories: names in use now */
};

struct diff_model;

struct diff_model *diff_model_new(void);
void diff_model_free(struct diff_model *m);
/* The callback table that feeds the model from bstream_process(). */
extern const struct bstream_ops diff_model_ops;
/* Why a callback failed ("" if none). */
const char *diff_model_errmsg(const struct diff_model *m);
/* After the stream: 0 if a whole subvolume was read, else -1 and a message. */
int diff_model_finish(struct diff_model *m);
/* Every node, in creation order (the root first). */
struct diff_node *diff_model_nodes(const struct diff_model *m);
/* True when the stream was a full one (SUBVOL: everything is new). */
bool diff_model_full(const struct diff_model *m);
/* The entry (dir, name) if the model has one. */
struct diff_entry *diff_model_entry(const struct diff_model *m,
				    const struct diff_node *dir,
				    const char *name, size_t len);

/* ---------------------------------------------------------------------- */
/* report.c                                                                */

enum diff_format { DIFF_TEXT, DIFF_JSON };

/*
 * Print the changes the model holds, sorted by path.  Returns 0, or -1
 * with a message in err (a path that cannot be built, memory).
 */
int diff_report(const struct diff_model *m, FILE *out, enum diff_format fmt,
		char *err, size_t errlen);

#endif
