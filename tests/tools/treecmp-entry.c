// SPDX-License-Identifier: GPL-2.0
/*
 * The fields treecmp compares: their names, reading them for one directory
 * entry without disturbing it, and their text form.
 *
 * The text form is the single definition of equality: compare mode calls
 * two fields equal iff their strict texts are equal, and the digest hashes
 * the same strict texts, so two trees compare equal iff their digests do.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "treecmp.h"

const struct tc_field_info tc_fields[TC_NR_FIELDS] = {
	[TC_TYPE] = { "type", "file type: file, dir, symlink, chardev, blockdev, fifo, socket" },
	[TC_MODE] = { "mode", "permission bits, including setuid, setgid and sticky" },
	[TC_UID] = { "uid", "owner user id" },
	[TC_GID] = { "gid", "owner group id" },
	[TC_SIZE] = { "size", "size of regular files" },
	[TC_MTIME] = { "mtime", "modification time, to the nanosecond" },
	[TC_ATIME] = { "atime", "access time, to the nanosecond" },
	[TC_SYMLINK] = { "symlink", "target of symlinks" },
	[TC_RDEV] = { "rdev", "major:minor of character and block devices" },
	[TC_FLAGS] = { "flags", "chattr flags of files and directories, as lsattr letters" },
	[TC_LINKS] = { "links", "hard links: which paths in the tree share an inode" },
	[TC_XATTR] = { "xattr", "extended attributes (names, values; security.*, POSIX ACLs)" },
	[TC_DATA] = { "data", "content of regular files; holes, zeros and a missing tail are equal" },
};

int tc_parse_fields(const char *list, unsigned int *mask, const char **bad,
		    size_t *badlen)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		int f;

		if (n == 5 && !strncmp(p, "times", 5)) {
			*mask |= TC_BIT(TC_MTIME) | TC_BIT(TC_ATIME);
		} else {
			for (f = 0; f < TC_NR_FIELDS; f++) {
				if (strlen(tc_fields[f].name) == n &&
				    !strncmp(p, tc_fields[f].name, n))
					break;
			}
			if (f == TC_NR_FIELDS) {
				*bad = p;
				*badlen = n;
				return -1;
			}
			*mask |= TC_BIT(f);
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

void tc_error(const struct tc_tree *t, const char *rel, const char *what,
	      int err)
{
	struct tc_buf b = { 0 };

	tc_buf_add_quoted(&b, t->root, strlen(t->root), false);
	if (rel && strcmp(rel, ".")) {
		tc_buf_addstr(&b, "/");
		tc_buf_add_quoted(&b, rel, strlen(rel), false);
	}
	fprintf(stderr, "treecmp: cannot %s '%s': %s\n", what, b.p,
		strerror(err));
	tc_buf_free(&b);
}

static bool unsupported(int err)
{
	return err == ENOTSUP || err == ENOTTY || err == ENOSYS ||
	       err == EINVAL;
}

static int cmp_xattr(const void *a, const void *b)
{
	return strcmp(((const struct tc_xattr *)a)->name,
		      ((const struct tc_xattr *)b)->name);
}

/*
 * There is no llistxattrat(): the l*xattr() calls take a path, so run them
 * on the bare name from inside the parent directory.  The name is one
 * component, never a long path, and symlinks are not followed.
 */
static int read_xattrs(struct tc_entry *e, const struct tc_tree *t, int dirfd,
		       const char *name, const char *path)
{
	char *names = NULL, *p;
	ssize_t len;
	size_t cap = 0;

	if (fchdir(dirfd)) {
		tc_error(t, path, "enter the directory of", errno);
		return -1;
	}
	for (;;) {
		len = llistxattr(name, names, cap);
		if (len >= 0 && (cap || !len))
			break;
		if (len < 0 && errno != ERANGE) {
			if (unsupported(errno))
				len = 0;
			else
				tc_error(t, path, "list xattrs of", errno);
			goto out;
		}
		cap = len > 0 ? (size_t)len : cap * 2;
		names = tc_xrealloc(names, cap);
	}
	for (p = names; p < names + len; p += strlen(p) + 1) {
		struct tc_xattr x = { .name = p };
		ssize_t vlen;
		size_t vcap = 0;

		for (;;) {
			vlen = lgetxattr(name, p, x.value, vcap);
			if (vlen >= 0 && (vcap || !vlen))
				break;
			if (vlen < 0 && errno != ERANGE)
				break;
			vcap = vlen > 0 ? (size_t)vlen : vcap * 2;
			x.value = tc_xrealloc(x.value, vcap);
		}
		if (vlen < 0 && errno == ENODATA) {	/* removed meanwhile */
			free(x.value);
			continue;
		}
		if (vlen < 0) {
			tc_error(t, path, "read xattrs of", errno);
			free(x.value);
			len = -1;
			goto out;
		}
		x.name = tc_xstrdup(p);
		x.size = vlen;
		e->xattrs = tc_xrealloc(e->xattrs,
					(e->nr_xattrs + 1) * sizeof(x));
		e->xattrs[e->nr_xattrs++] = x;
	}
	qsort(e->xattrs, e->nr_xattrs, sizeof(*e->xattrs), cmp_xattr);
out:
	free(names);
	return len < 0 ? -1 : 0;
}

/*
 * readlink() updates a symlink's atime (there is no O_NOATIME for it), so
 * put the atime seen by lstat back if it moved.  Only ctime changes, which
 * is never compared; a read-only snapshot does not move atime at all.
 */
static int read_target(struct tc_entry *e, const struct tc_tree *t, int dirfd,
		       const char *name, const char *path)
{
	size_t cap = e->st.st_size > 0 ? (size_t)e->st.st_size + 1 : 256;
	struct stat after;
	ssize_t n;

	for (;;) {
		e->target = tc_xrealloc(e->target, cap);
		n = readlinkat(dirfd, name, e->target, cap);
		if (n < 0) {
			tc_error(t, path, "read symlink", errno);
			return -1;
		}
		if ((size_t)n < cap)
			break;
		cap *= 2;
	}
	e->target[n] = '\0';
	e->target_len = n;

	if (!fstatat(dirfd, name, &after, AT_SYMLINK_NOFOLLOW) &&
	    (after.st_atim.tv_sec != e->st.st_atim.tv_sec ||
	     after.st_atim.tv_nsec != e->st.st_atim.tv_nsec)) {
		struct timespec ts[2] = {
			e->st.st_atim, { .tv_nsec = UTIME_OMIT },
		};

		utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
	}
	return 0;
}

/* Open without updating atime; O_NOATIME needs ownership or CAP_FOWNER. */
static int open_noatime(int dirfd, const char *name, int flags)
{
	int fd;

	flags |= O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	fd = openat(dirfd, name, flags | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, flags);
	return fd;
}

/*
 * Flags that record how a filesystem stores an inode rather than anything
 * a user set: ext4's extents 'e', htree index 'I', inline data 'N', huge
 * file 'h', xattr inode, and obsolete compression bits.  Dropping them lets
 * an ext4 source compare equal to a btrfs copy.
 */
#define LAYOUT_FLAGS 0x902c3300u

static const struct {
	unsigned int bit;
	char letter;
} flag_letters[] = {	/* lsattr's order */
	{ 0x00000001, 's' }, { 0x00000002, 'u' }, { 0x00000008, 'S' },
	{ 0x00010000, 'D' }, { 0x00000010, 'i' }, { 0x00000020, 'a' },
	{ 0x00000040, 'd' }, { 0x00000080, 'A' }, { 0x00000004, 'c' },
	{ 0x00000800, 'E' }, { 0x00004000, 'j' }, { 0x00008000, 't' },
	{ 0x00020000, 'T' }, { 0x00800000, 'C' }, { 0x02000000, 'x' },
	{ 0x40000000, 'F' }, { 0x20000000, 'P' }, { 0x00100000, 'V' },
	{ 0x00000400, 'm' },
};

static int read_flags(struct tc_entry *e, const struct tc_tree *t,
		      const char *path)
{
	int flags = 0;

	if (ioctl(e->fd, FS_IOC_GETFLAGS, &flags)) {
		if (!unsupported(errno)) {
			tc_error(t, path, "read flags of", errno);
			return -1;
		}
		flags = 0;
	}
	e->flags = (unsigned int)flags & ~LAYOUT_FLAGS;
	return 0;
}

int tc_entry_read(struct tc_entry *e, struct tc_tree *t, int dirfd,
		  const char *name, const char *path, unsigned int want)
{
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	if (fstatat(dirfd, name, &e->st, AT_SYMLINK_NOFOLLOW)) {
		tc_error(t, path, "stat", errno);
		return -1;
	}
	if ((want & TC_BIT(TC_XATTR)) &&
	    read_xattrs(e, t, dirfd, name, path))
		goto fail;
	if (S_ISLNK(e->st.st_mode) && (want & TC_BIT(TC_SYMLINK)) &&
	    read_target(e, t, dirfd, name, path))
		goto fail;
	if (S_ISDIR(e->st.st_mode) ||
	    (S_ISREG(e->st.st_mode) &&
	     (want & (TC_BIT(TC_DATA) | TC_BIT(TC_FLAGS))))) {
		e->fd = open_noatime(dirfd, name,
				     S_ISDIR(e->st.st_mode) ? O_DIRECTORY : 0);
		if (e->fd < 0) {
			tc_error(t, path, "open", errno);
			goto fail;
		}
		if ((want & TC_BIT(TC_FLAGS)) && read_flags(e, t, path))
			goto fail;
		if (S_ISREG(e->st.st_mode) && !(want & TC_BIT(TC_DATA))) {
			close(e->fd);
			e->fd = -1;
		}
	}
	if ((want & TC_BIT(TC_LINKS)) && !S_ISDIR(e->st.st_mode) &&
	    e->st.st_nlink > 1)
		e->first = tc_links_first(&t->links, e->st.st_dev,
					  e->st.st_ino, path);
	return 0;
fail:
	tc_entry_release(e);
	return -1;
}

void tc_entry_release(struct tc_entry *e)
{
	size_t i;

	for (i = 0; i < e->nr_xattrs; i++) {
		free(e->xattrs[i].name);
		free(e->xattrs[i].value);
	}
	free(e->xattrs);
	free(e->target);
	if (e->fd >= 0)
		close(e->fd);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

bool tc_field_applies(const struct tc_entry *e, enum tc_field f)
{
	mode_t m = e->st.st_mode;

	switch (f) {
	case TC_SIZE:
	case TC_DATA:
		return S_ISREG(m);
	case TC_SYMLINK:
		return S_ISLNK(m);
	case TC_RDEV:
		return S_ISCHR(m) || S_ISBLK(m);
	case TC_FLAGS:
		return S_ISREG(m) || S_ISDIR(m);
	case TC_LINKS:
		return !S_ISDIR(m);
	default:
		return true;
	}
}

static const char *type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:
		return "file";
	case S_IFDIR:
		return "dir";
	case S_IFLNK:
		return "symlink";
	case S_IFCHR:
		return "chardev";
	case S_IFBLK:
		return "blockdev";
	case S_IFIFO:
		return "fifo";
	case S_IFSOCK:
		return "socket";
	}
	return "unknown";
}

static void format_flags(struct tc_buf *out, unsigned int flags)
{
	size_t i;

	if (!flags) {
		tc_buf_addstr(out, "-");
		return;
	}
	for (i = 0; i < sizeof(flag_letters) / sizeof(flag_letters[0]); i++) {
		if (flags & flag_letters[i].bit) {
			tc_buf_add(out, &flag_letters[i].letter, 1);
			flags &= ~flag_letters[i].bit;
		}
	}
	if (flags)
		tc_buf_addf(out, "+0x%x", flags);
}

/*
 * Show a POSIX ACL xattr the way getfacl abbreviates it, e.g.
 * "u::rw-,u:1000:r--,g::r--,m::r--,o::---".  Return false if the value is
 * not a well-formed version 2 ACL, so the caller falls back to raw bytes.
 */
static bool format_acl(struct tc_buf *out, const unsigned char *v, size_t n)
{
	static const struct {
		unsigned int tag;
		const char *prefix;
		bool has_id;
	} tags[] = {
		{ 0x01, "u:", false }, { 0x02, "u:", true },
		{ 0x04, "g:", false }, { 0x08, "g:", true },
		{ 0x10, "m:", false }, { 0x20, "o:", false },
	};
	size_t i, j;

	if (n < 4 || (n - 4) % 8 || v[0] != 2 || v[1] || v[2] || v[3])
		return false;
	for (i = 4; i < n; i += 8) {
		unsigned int tag = v[i] | v[i + 1] << 8;
		unsigned int perm = v[i + 2] | v[i + 3] << 8;
		unsigned int id = v[i + 4] | v[i + 5] << 8 | v[i + 6] << 16 |
				  (unsigned int)v[i + 7] << 24;

		for (j = 0; j < sizeof(tags) / sizeof(tags[0]); j++)
			if (tags[j].tag == tag)
				break;
		if (j == sizeof(tags) / sizeof(tags[0]) || perm > 7)
			return false;
		if (i > 4)
			tc_buf_addstr(out, ",");
		tc_buf_addstr(out, tags[j].prefix);
		if (tags[j].has_id)
			tc_buf_addf(out, "%u", id);
		tc_buf_addf(out, ":%c%c%c", perm & 4 ? 'r' : '-',
			    perm & 2 ? 'w' : '-', perm & 1 ? 'x' : '-');
	}
	return true;
}

void tc_xattr_format(struct tc_buf *out, const struct tc_xattr *x,
		     bool with_name, bool strict)
{
	if (with_name) {
		tc_buf_add_quoted(out, x->name, strlen(x->name), strict);
		tc_buf_addstr(out, "=");
	}
	if (!strict && !strncmp(x->name, "system.posix_acl_", 17)) {
		size_t len = out->len;

		if (format_acl(out, (const unsigned char *)x->value, x->size))
			return;
		tc_buf_truncate(out, len);
	}
	if (!strict)
		tc_buf_addstr(out, "\"");
	tc_buf_add_quoted(out, x->value ? x->value : "", x->size, strict);
	if (!strict)
		tc_buf_addstr(out, "\"");
}

void tc_entry_format(struct tc_buf *out, const struct tc_entry *e,
		     const char *path, enum tc_field f, bool strict)
{
	const struct stat *st = &e->st;
	const char *first;
	size_t i;

	switch (f) {
	case TC_TYPE:
		tc_buf_addstr(out, type_name(st->st_mode));
		break;
	case TC_MODE:
		tc_buf_addf(out, "%04o", (unsigned int)(st->st_mode & 07777));
		break;
	case TC_UID:
		tc_buf_addf(out, "%u", (unsigned int)st->st_uid);
		break;
	case TC_GID:
		tc_buf_addf(out, "%u", (unsigned int)st->st_gid);
		break;
	case TC_SIZE:
		tc_buf_addf(out, "%lld", (long long)st->st_size);
		break;
	case TC_MTIME:
		tc_buf_addf(out, "%lld.%09ld", (long long)st->st_mtim.tv_sec,
			    st->st_mtim.tv_nsec);
		break;
	case TC_ATIME:
		tc_buf_addf(out, "%lld.%09ld", (long long)st->st_atim.tv_sec,
			    st->st_atim.tv_nsec);
		break;
	case TC_SYMLINK:
		tc_buf_add_quoted(out, e->target ? e->target : "",
				  e->target_len, strict);
		break;
	case TC_RDEV:
		tc_buf_addf(out, "%u:%u", major(st->st_rdev),
			    minor(st->st_rdev));
		break;
	case TC_FLAGS:
		format_flags(out, e->flags);
		break;
	case TC_LINKS:
		first = e->first ? e->first : path;
		tc_buf_add_quoted(out, first, strlen(first), strict);
		break;
	case TC_XATTR:
		for (i = 0; i < e->nr_xattrs; i++) {
			if (i)
				tc_buf_addstr(out, ",");
			tc_xattr_format(out, &e->xattrs[i], true, strict);
		}
		break;
	case TC_DATA:
	case TC_NR_FIELDS:
		break;
	}
	if (!out->p)
		tc_buf_add(out, "", 0);
}
