/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Send streams read like archives (btrfs-stream ls, cat, extract): private
 * interfaces between the files of cli/archive/.  docs/archive.md describes
 * the model and what it costs.
 *
 *   extents.c  a file's data as a sorted list of references into the streams
 *   model.c    inodes and names: the namespace the commands act on
 *   replay.c   the callback table that replays a stream onto the model
 *   streams.c  the stream files of a chain, read once and kept open for data
 *   data.c     a file's content, read back from the streams
 *   list.c     ls: one line or JSON object per entry
 *   extract.c  extract: the tree written beneath a directory
 *
 * cli/cmd-ls.c, cmd-cat.c and cmd-extract.c parse options and call these.
 */
#ifndef BTRFS_STREAM_CLI_ARCHIVE_H
#define BTRFS_STREAM_CLI_ARCHIVE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <btrfs-stream/stream.h>
#include "../decompress.h"

struct cli_command;

/* ---------------------------------------------------------------------- */
/* extents.c                                                               */

enum ar_ext_kind {
	AR_EXT_RAW,	/* bytes of a WRITE, as they are in a stream file */
	AR_EXT_ENC,	/* a piece of a compressed extent of an ENCODED_WRITE */
};

/*
 * len bytes of a file at off, from the DATA of the command at byte pos of
 * stream file `stream` (its index, version and substream as the reader
 * reported them, to read it again fully checked: bstream_reader_seek()).
 * enc_len is that DATA's length.  RAW: these are its bytes from dec_off
 * on.  ENC: the DATA is a compressed extent decoding to dec_len bytes, of
 * which these are the ones from dec_off on.  Where no extent covers a
 * byte, the file has a hole (zeros) there.
 */
struct ar_extent {
	uint64_t off;
	uint64_t len;
	uint64_t pos;
	uint64_t index;
	uint32_t enc_len;
	uint32_t dec_len;
	uint32_t dec_off;
	uint32_t substream;
	uint16_t stream;
	uint8_t kind;
	uint8_t compression;
	uint8_t version;
};

/* A file's extents, sorted by off, never overlapping. */
struct ar_extents {
	struct ar_extent *v;
	uint32_t n, cap;
};

/* Make [off, off + len) a hole.  0 or -ENOMEM. */
int ar_ext_punch(struct ar_extents *x, uint64_t off, uint64_t len);
/* Put e in place of what was in its range.  0 or -ENOMEM. */
int ar_ext_put(struct ar_extents *x, const struct ar_extent *e);
/*
 * Make [doff, doff + len) of dst what [soff, soff + len) of src is (holes
 * included).  src may be dst, ranges may overlap.  0 or -ENOMEM.
 */
int ar_ext_clone(struct ar_extents *dst, uint64_t doff,
		 const struct ar_extents *src, uint64_t soff, uint64_t len);
/* A copy of src in dst (dst empty).  0 or -ENOMEM. */
int ar_ext_copy(struct ar_extents *dst, const struct ar_extents *src);
void ar_ext_free(struct ar_extents *x);
/* Index of the first extent that ends after off (n if none). */
uint32_t ar_ext_find(const struct ar_extents *x, uint64_t off);

/* ---------------------------------------------------------------------- */
/* model.c                                                                 */

struct ar_inode;

/*
 * A name in a directory.  Live entries are in the name table and in their
 * directory's list of children.
 */
struct ar_dirent {
	struct ar_dirent *hnext;		/* name table chain */
	struct ar_dirent *next, *prev;		/* the directory's children */
	struct ar_inode *dir;
	struct ar_inode *ino;
	uint32_t hash;
	uint32_t gen;				/* chain step that made it */
	uint32_t len;
	char name[];				/* len bytes, NUL-terminated */
};

/* Saved data of an inode as the parent subvolume had it. */
struct ar_parent_data {
	struct ar_extents ext;
	uint64_t size;
};

struct ar_xattr {
	struct ar_xattr *next;
	uint32_t nlen, vlen;
	char *name;				/* NUL-terminated */
	uint8_t *value;
};

enum {
	AR_I_SEEN = 1u << 0,		/* ls, extract: met once (first name in ->mark) */
	AR_I_ORPHANED = 1u << 1,	/* no name left: freed when the step ends */
	/* Set by the stream, else what receive would leave (creation's). */
	AR_I_MODE_SET = 1u << 2,
	AR_I_OWNER_SET = 1u << 3,
	AR_I_TIMES_SET = 1u << 4,
	AR_I_FLAGS_SET = 1u << 5,
};

struct ar_inode {
	struct ar_inode *next;		/* every inode, for freeing */
	struct ar_xattr *xattrs;
	union {
		struct ar_extents ext;	/* regular files */
		char *target;		/* symlinks */
		struct {		/* directories */
			struct ar_dirent *children;
			struct ar_dirent *up;	/* its own entry, NULL at the root */
			uint64_t nchildren;
		} dir;
	} u;
	struct ar_parent_data *parent;	/* data before this step changed it */
	uint64_t size;
	uint64_t rdev;
	uint64_t fileattr;
	int64_t atime_sec, mtime_sec;
	uint32_t atime_nsec, mtime_nsec;
	uint32_t mode, uid, gid, nlink;
	uint32_t gen;			/* chain step that made it */
	uint32_t parent_gen;		/* step whose parent ->parent holds */
	uint32_t flags;			/* AR_I_* */
	void *mark;			/* extract's bookkeeping */
};

struct ar_model;

struct ar_model *ar_model_new(void);
void ar_model_free(struct ar_model *m);
struct ar_inode *ar_model_root(const struct ar_model *m);
/* Drop everything: a new full stream starts over. */
void ar_model_reset(struct ar_model *m);
/* Start the next step of the chain: its changes can see the parent. */
void ar_model_next_step(struct ar_model *m);
uint32_t ar_model_step(const struct ar_model *m);
/* Inodes and entries alive, for -v. */
void ar_model_counts(const struct ar_model *m, uint64_t *inodes, uint64_t *entries);

/* Entry (dir, name) now, or NULL. */
struct ar_dirent *ar_lookup(struct ar_model *m, struct ar_inode *dir,
			    const char *name, size_t len);
/*
 * The inode at a validated path now ("" is the root); NULL with *why set
 * if there is none.  *dirent gets its entry (NULL for the root) when
 * dirent is not NULL.
 */
struct ar_inode *ar_resolve(struct ar_model *m, const char *path, size_t len,
			    struct ar_dirent **dirent, const char **why);
/* The same in the parent subvolume as it was before this step. */
struct ar_inode *ar_resolve_parent(struct ar_model *m, const char *path,
				   size_t len, const char **why);
/*
 * Make a new inode of type mode at path (parent must be a directory, the
 * name free).  NULL with *why set.
 */
struct ar_inode *ar_make(struct ar_model *m, const char *path, size_t len,
			 uint32_t mode, const char **why);
/* Namespace changes: 0, or -1 with *why set. */
int ar_rename(struct ar_model *m, const char *from, size_t flen,
	      const char *to, size_t tlen, const char **why);
int ar_link(struct ar_model *m, const char *path, size_t len,
	    const char *existing, size_t elen, const char **why);
int ar_unlink(struct ar_model *m, const char *path, size_t len, bool dir,
	      const char **why);
/*
 * Before the data of ino changes in this step: keep what the parent had,
 * for clones from the parent.  0 or -ENOMEM.
 */
int ar_before_data_change(struct ar_model *m, struct ar_inode *ino);
/* The data ino had in the parent subvolume (or now, if unchanged). */
const struct ar_extents *ar_parent_extents(const struct ar_model *m,
					   const struct ar_inode *ino,
					   uint64_t *size);
/* Set an xattr (replacing) or remove one: 0, -ENOMEM or -ENODATA. */
int ar_xattr_set(struct ar_inode *ino, const char *name, size_t nlen,
		 const uint8_t *value, size_t vlen);
int ar_xattr_remove(struct ar_inode *ino, const char *name, size_t nlen);

/*
 * The path of an entry from the root, into buf (malloc()ed, grown as
 * needed, *cap its size); its length, or -1 without memory.
 */
ssize_t ar_path_of(const struct ar_dirent *e, char **buf, size_t *cap);
/* The children of dir sorted by name, malloc()ed (NULL if none or no memory). */
struct ar_dirent **ar_sorted_children(const struct ar_inode *dir, uint64_t *n,
				      bool *nomem);

/* ---------------------------------------------------------------------- */
/* streams.c, replay.c                                                     */

/* One stream file of the chain. */
struct ar_stream {
	const char *name;	/* as given, for messages */
	int fd;			/* kept open to read data back */
	off_t start;		/* where the stream starts in fd (offset 0 of marks) */
};

/* What a subvolume of the chain is. */
struct ar_subvol {
	char name[256];
	uint8_t uuid[16];
	uint64_t ctransid;
	bool snapshot;
	uint8_t parent_uuid[16];	/* SNAPSHOT: the parent it was sent from */
	uint64_t parent_ctransid;
};

struct ar {
	const struct cli_command *cmd;
	struct ar_model *model;
	struct ar_stream *streams;
	size_t nstreams;
	bool need_data;		/* cat, extract: data is read back later */
	const char *want_subvol;	/* --subvol NAME, or NULL for the last */
	int verbose;

	/* Replay state. */
	uint16_t cur_stream;
	bool in_subvol;		/* between SUBVOL/SNAPSHOT and END */
	bool have_subvol;	/* a subvolume was finished, or is open */
	bool done;		/* the wanted subvolume is complete */
	bool no_data;		/* UPDATE_EXTENT seen: the data is not there */
	struct ar_subvol sv;	/* the current (or last) subvolume */
	char err[PATH_MAX + 512];
};

/*
 * Open and replay every stream file of argv onto a new model.  Returns 0,
 * or -1 with the message in a->err (not yet printed).
 */
int ar_load(struct ar *a, char **files, int nfiles);
void ar_unload(struct ar *a);

extern const struct bstream_ops ar_replay_ops;

/* Escape path for a message (recv_quote's rules); returns buf. */
const char *ar_quote(char *buf, size_t size, const char *path);

/*
 * A path given on the command line, checked like a stream path ("." and a
 * trailing "/" allowed); its normalized form in *out (static until the
 * next call).  NULL if valid, else the reason.
 */
const char *ar_user_path(const char *arg, char *out, size_t outlen);

/* ---------------------------------------------------------------------- */
/* data.c                                                                  */

struct ar_reader {
	struct ar *a;
	struct cli_decomp dz;
	/* A reader per stream file, made when first needed. */
	struct bstream_reader **rd;
	/* The last command read back, kept for the next extent in it. */
	const struct bstream_cmd *cmd;
	uint16_t cmd_stream;
	/* The last extent decoded, kept for the next piece of it. */
	uint16_t dec_stream;
	uint64_t dec_pos;
	const uint8_t *dec;
};

/*
 * Call out(ctx, buf, len, off) for the content of regular file ino in
 * pieces, in order: data pieces, and, if holes, zero pieces for holes
 * (else holes are left out).  Every command whose data is given out is
 * read again from its stream file and checked whole (CRC included) first:
 * the replay skipped the data.  Returns 0, or -1 with the message in
 * r->a->err (out's own failure: out returns -1 and sets it).
 */
typedef int (*ar_out_fn)(void *ctx, const void *buf, size_t len, uint64_t off);
int ar_read_file(struct ar_reader *r, const struct ar_inode *ino, bool holes,
		 ar_out_fn out, void *ctx);
void ar_reader_free(struct ar_reader *r);

/* ---------------------------------------------------------------------- */
/* list.c                                                                  */

/* Print entry e (NULL: the root) of ino at path, in text or JSON. */
int ar_list(struct ar *a, FILE *out, bool json);

/* ---------------------------------------------------------------------- */
/* extract.c                                                               */

struct ar_extract_opts {
	const char *dir;	/* destination, as given */
	char **paths;		/* selected paths (normalized), or none: all */
	int npaths;
	bool strict;		/* what DIR cannot hold is an error */
};

/* Returns the exit status; messages printed. */
int ar_extract(struct ar *a, const struct ar_extract_opts *o);

#endif
