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

/* A growable array of entries. */
struct diff_entries {
	struct diff_entry **v;
	size_t n, cap;
};

/*
 * An inode.  Either created by the stream (MK*; ino is the stream's INO)
 * or one of the old snapshot, met the first time the stream named it:
 * its origin is then the entry it had in the old snapshot, which is where
 * the stream found it.  Two such nodes can turn out to be one inode with
 * two names (hard links); diff_model_merge() then joins them, and the
 * node has several origins.
 */
struct diff_node {
	struct diff_node *next;		/* all nodes in creation order */
	bool created;
	bool root;
	bool merged;			/* joined into another node: skip it */
	enum diff_type type;
	unsigned int changes;		/* DIFF_* of an old inode */
	uint64_t ino;			/* stream INO (created) or old st_ino, 0 unknown */
	uint64_t mode, uid, gid, fileattr;
	struct bstream_timespec atime, mtime, ctime;	/* of the last UTIMES */
	char **xattrs;			/* names set or removed */
	size_t nxattrs;
	struct diff_entries origs;	/* the old snapshot's entries (old inodes) */
	struct diff_entries links;	/* entries naming it now, oldest first */
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
/* The type of an st_mode. */
enum diff_type diff_type_of_mode(uint64_t mode);
/* Join node b into node a: they are one inode of the old snapshot. */
int diff_model_merge(struct diff_node *a, struct diff_node *b);

/*
 * The path of entry e from the top directory ("/d/f"), where the entries
 * are now (orig false) or were in the old snapshot (orig true).  *out is
 * malloc()ed.  Returns 0, or -1 with a message (a name left in a removed
 * directory, memory).
 */
int diff_entry_path(const struct diff_entry *e, bool orig, char **out,
		    size_t *len, char *err, size_t errlen);

/* ---------------------------------------------------------------------- */
/* identify.c                                                              */

/*
 * With the old snapshot at hand (old_fd, its top directory): lstat() the
 * old path of every inode of the old snapshot the stream touched, to learn
 * its type and to join the names that are one inode.  A stream alone
 * cannot tell (Linux moves a file with two names by linking both new names
 * to the first old one, then unlinking both old names).
 */
int diff_identify(struct diff_model *m, int old_fd, char *err, size_t errlen);

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
