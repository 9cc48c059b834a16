/* SPDX-License-Identifier: GPL-2.0 */
/*
 * treecmp: compare two directory trees, or print a digest of one.
 *
 * Shared declarations: the field table, per-tree state and one entry's
 * metadata.  Everything works relative to directory file descriptors, so
 * no full path is ever handed to a system call; full paths exist only as
 * text for messages.
 */
#ifndef TREECMP_H
#define TREECMP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "treecmp-buf.h"

/* Fields in the order --list prints them. */
enum tc_field {
	TC_TYPE,
	TC_MODE,
	TC_UID,
	TC_GID,
	TC_SIZE,
	TC_MTIME,
	TC_ATIME,
	TC_SYMLINK,
	TC_RDEV,
	TC_FLAGS,
	TC_LINKS,
	TC_XATTR,
	TC_DATA,
	TC_NR_FIELDS
};

#define TC_BIT(f)	(1u << (f))
#define TC_ALL_FIELDS	(TC_BIT(TC_NR_FIELDS) - 1)

struct tc_field_info {
	const char *name;
	const char *help;
};

extern const struct tc_field_info tc_fields[TC_NR_FIELDS];

/*
 * Parse a comma-separated list of field names ("times" means mtime,atime)
 * into a mask.  Return 0, or -1 with *@bad pointing at the unknown name
 * and *@badlen its length.
 */
int tc_parse_fields(const char *list, unsigned int *mask, const char **bad,
		    size_t *badlen);

/* Hard-link map of one tree: inode -> first relative path seen. */
struct tc_link;
struct tc_links {
	struct tc_link *slots;
	size_t nr;
	size_t cap;
};

const char *tc_links_first(struct tc_links *l, dev_t dev, ino_t ino,
			   const char *path);
void tc_links_free(struct tc_links *l);

/* One tree being walked. */
struct tc_tree {
	const char *root;	/* as given on the command line, for messages */
	struct tc_links links;
};

/* Print "treecmp: cannot WHAT 'ROOT/REL': strerror(err)" to stderr. */
void tc_error(const struct tc_tree *t, const char *rel, const char *what,
	      int err);

struct tc_xattr {
	char *name;
	char *value;
	size_t size;
};

/* What tc_entry_read() found out about one directory entry. */
struct tc_entry {
	struct stat st;
	char *target;		/* symlink target, NUL-terminated */
	size_t target_len;
	struct tc_xattr *xattrs; /* sorted by name */
	size_t nr_xattrs;
	unsigned int flags;	/* FS_IOC_GETFLAGS, masked to attributes */
	const char *first;	/* first path of this inode in the tree */
	int fd;			/* open file or directory, or -1 */
};

/*
 * Read the metadata of @name in @dirfd (never following a symlink), in an
 * order that does not disturb it: lstat, xattrs, symlink target, then
 * open (O_NOATIME) for flags.  Regular files are left open in e->fd when
 * @want has TC_DATA; directories are always left open for the walk.
 * @path is the entry's relative path, for link groups and messages.
 * Return 0, or -1 after printing an error.
 */
int tc_entry_read(struct tc_entry *e, struct tc_tree *t, int dirfd,
		  const char *name, const char *path, unsigned int want);
void tc_entry_release(struct tc_entry *e);

/* Whether @f means anything for an entry of this type. */
bool tc_field_applies(const struct tc_entry *e, enum tc_field f);

/*
 * Append the value of field @f (not TC_DATA) for entry @e at @path.
 * Two entries have equal fields iff the @strict texts are equal.
 */
void tc_entry_format(struct tc_buf *out, const struct tc_entry *e,
		     const char *path, enum tc_field f, bool strict);

/* Append one xattr as it appears in --list, or its value alone. */
void tc_xattr_format(struct tc_buf *out, const struct tc_xattr *x,
		     bool with_name, bool strict);

/* Content of regular files: see treecmp-data.c. */
#define TC_BLOCK_SIZE (1024 * 1024)

struct tc_data_diff {
	off_t offset;
	int byte1;
	int byte2;
};

/*
 * Compare two regular files' contents as if both were padded with zeros to
 * the longer length (holes, zeros and a missing tail compare equal).
 * Return 0 if equal, 1 if different (filling @diff), or -errno with
 * *@side = 0 or 1 naming the file that failed.
 */
int tc_data_compare(int fd1, off_t size1, int fd2, off_t size2,
		    struct tc_data_diff *diff, int *side);

/*
 * Hash a regular file's content with the same equality as tc_data_compare
 * into 64 hex digits.  Return 0 or -errno.
 */
int tc_data_digest(int fd, off_t size, char hex[65]);

/* The two modes of the tool. */
struct tc_opts {
	unsigned int ignore;	/* mask of TC_BIT()s */
	bool quiet;		/* compare: no output, stop at first difference */
	bool list;		/* digest: print one line per entry first */
};

/* Return 0 if equal, 1 if different, 2 on error. */
int tc_compare(const char *dir1, const char *dir2, const struct tc_opts *o);
/* Return 0, or 2 on error. */
int tc_digest(const char *dir, const struct tc_opts *o);

#endif
