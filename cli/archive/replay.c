// SPDX-License-Identifier: GPL-2.0
/*
 * Replaying a stream onto the archive model: one callback per command,
 * doing to the model what receive does to a directory, but for data only
 * noting where the bytes are in the stream.
 *
 * The checks are receive's: paths are validated by recv_path_invalid()
 * (cli/receive/path.c), a command outside a subvolume or on a missing or
 * wrong-typed path fails, an ENCODED_WRITE must be decodable in principle
 * (no encryption, its file range inside the decoded extent, a decoded
 * size receive would decompress).  A failure stops the replay: unlike
 * receive, whose -E can leave a partial subvolume behind, nothing useful
 * can be listed from a model with a hole in its history.
 *
 * A SNAPSHOT continues the chain only from the subvolume replayed just
 * before it, and only if the stream names it as its parent (UUID and
 * ctransid); a CLONE may read from the subvolume being replayed or from
 * that parent, the two sources the model holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include "archive.h"
#include "../receive/receive.h"

#define FALLOC_KEEP_SIZE	0x01
#define FALLOC_PUNCH_HOLE	0x02
#define FALLOC_ZERO_RANGE	0x10
#define FALLOC_UNSHARE		0x40

/* File offsets end below 2^63, as in the kernel (loff_t). */
#define OFF_MAX ((uint64_t)INT64_MAX)

__attribute__((format(printf, 4, 5)))
static int fail(struct ar *a, const struct bstream_cmd *c, const char *path,
		const char *fmt, ...)
{
	char q[320];
	va_list ap;
	int n;

	n = snprintf(a->err, sizeof(a->err), "command %" PRIu64 " (%s) at offset %" PRIu64 ": ",
		     c->index, bstream_cmd_name(c->cmd), c->offset);
	if (path)
		n += snprintf(a->err + n, sizeof(a->err) - n, "'%s': ",
			      recv_quote(q, sizeof(q), path));
	va_start(ap, fmt);
	vsnprintf(a->err + n, sizeof(a->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Common preamble: inside a subvolume, path attribute attr valid. */
static int check_path(struct ar *a, const struct bstream_cmd *c, unsigned int attr,
		      const char *path, bool allow_root)
{
	const char *why;

	if (!a->in_subvol)
		return fail(a, c, NULL, "not inside a subvolume (no SUBVOL or SNAPSHOT before it)");
	why = recv_path_invalid(path, c->attr[attr].len, allow_root);
	if (why)
		return fail(a, c, path, "invalid path: %s", why);
	return 0;
}

static size_t plen(const struct bstream_cmd *c, unsigned int attr)
{
	return c->attr[attr].len;
}

/* The inode at PATH (root allowed if allow_root), or NULL after fail(). */
static struct ar_inode *inode_at(struct ar *a, const struct bstream_cmd *c,
				 bool allow_root)
{
	struct ar_inode *ino;
	const char *why;

	if (check_path(a, c, BTRFS_SEND_A_PATH, c->path, allow_root))
		return NULL;
	ino = ar_resolve(a->model, c->path, plen(c, BTRFS_SEND_A_PATH), NULL, &why);
	if (!ino)
		fail(a, c, c->path, "%s", why);
	return ino;
}

/* The regular file at PATH, or NULL after fail(). */
static struct ar_inode *file_at(struct ar *a, const struct bstream_cmd *c)
{
	struct ar_inode *ino = inode_at(a, c, false);

	if (ino && !S_ISREG(ino->mode)) {
		fail(a, c, c->path, "not a regular file");
		return NULL;
	}
	return ino;
}

static int nomem(struct ar *a, const struct bstream_cmd *c)
{
	return fail(a, c, c->path, "out of memory");
}

/* ---------------------------------------------------------------------- */
/* Subvolumes                                                              */

/* The wanted subvolume is complete: stop reading (a positive return). */
static int finish(struct ar *a)
{
	a->in_subvol = false;
	if (a->want_subvol && a->have_subvol && !strcmp(a->sv.name, a->want_subvol)) {
		a->done = true;
		return 1;
	}
	return 0;
}

static int start(struct ar *a, const struct bstream_cmd *c)
{
	const char *why = recv_name_invalid(c->path, plen(c, BTRFS_SEND_A_PATH));

	if (why)
		return fail(a, c, c->path, "invalid subvolume name: %s", why);
	if (plen(c, BTRFS_SEND_A_PATH) >= sizeof(a->sv.name))
		return fail(a, c, c->path, "subvolume name longer than 255 bytes");
	return 0;
}

static int on_subvol(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;

	if (a->in_subvol && finish(a))
		return 1;
	if (start(a, c))
		return -1;
	/* A full stream: whatever came before is not its history. */
	ar_model_reset(a->model);
	memset(&a->sv, 0, sizeof(a->sv));
	strcpy(a->sv.name, c->path);
	memcpy(a->sv.uuid, c->uuid, 16);
	a->sv.ctransid = c->ctransid;
	a->in_subvol = a->have_subvol = true;
	return 0;
}

static int on_snapshot(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	char want[37], have[37];

	if (a->in_subvol && finish(a))
		return 1;
	if (start(a, c))
		return -1;
	cli_uuid_str(c->clone_uuid, want);
	if (!a->have_subvol)
		return fail(a, c, c->path,
			    "incremental stream: its parent (UUID %s, ctransid %" PRIu64 ") must come "
			    "first, as the stream or chain of streams that made it",
			    want, c->clone_ctransid);
	if (memcmp(c->clone_uuid, a->sv.uuid, 16) || c->clone_ctransid != a->sv.ctransid) {
		cli_uuid_str(a->sv.uuid, have);
		return fail(a, c, c->path,
			    "broken chain: sent from parent UUID %s ctransid %" PRIu64 ", but the "
			    "subvolume before it, '%s', is UUID %s ctransid %" PRIu64,
			    want, c->clone_ctransid, a->sv.name, have, a->sv.ctransid);
	}
	ar_model_next_step(a->model);
	memcpy(a->sv.parent_uuid, a->sv.uuid, 16);
	a->sv.parent_ctransid = a->sv.ctransid;
	strcpy(a->sv.name, c->path);
	memcpy(a->sv.uuid, c->uuid, 16);
	a->sv.ctransid = c->ctransid;
	a->sv.snapshot = true;
	a->in_subvol = true;
	return 0;
}

static int on_end(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;

	return a->in_subvol ? finish(a) : 0;
}

/* ---------------------------------------------------------------------- */
/* Names                                                                   */

static int make(struct ar *a, const struct bstream_cmd *c, uint32_t mode)
{
	struct ar_inode *ino;
	const char *why;

	if (check_path(a, c, BTRFS_SEND_A_PATH, c->path, false))
		return -1;
	if (S_ISLNK(mode) && strlen(c->path_link) != plen(c, BTRFS_SEND_A_PATH_LINK))
		return fail(a, c, c->path, "symlink target contains a NUL byte");
	ino = ar_make(a->model, c->path, plen(c, BTRFS_SEND_A_PATH), mode, &why);
	if (!ino)
		return fail(a, c, c->path, "cannot create: %s", why);
	if (S_ISLNK(mode)) {
		ino->u.target = strdup(c->path_link);
		if (!ino->u.target)
			return nomem(a, c);
		ino->size = plen(c, BTRFS_SEND_A_PATH_LINK);
	} else if (S_ISCHR(mode) || S_ISBLK(mode)) {
		ino->rdev = c->rdev;
	}
	return 0;
}

/* The modes receive creates with (cli/receive/pending.c). */
static int on_mkfile(void *user, const struct bstream_cmd *c)
{
	return make(user, c, S_IFREG | 0600);
}

static int on_mkdir(void *user, const struct bstream_cmd *c)
{
	return make(user, c, S_IFDIR | 0700);
}

static int on_mknod(void *user, const struct bstream_cmd *c)
{
	uint32_t type = c->mode & S_IFMT;

	if (type != S_IFCHR && type != S_IFBLK && type != S_IFIFO && type != S_IFSOCK) {
		struct ar *a = user;

		return fail(a, c, c->path, "mode %#" PRIo64 " is not a device, fifo or socket",
			    c->mode);
	}
	return make(user, c, type);
}

static int on_mkfifo(void *user, const struct bstream_cmd *c)
{
	return make(user, c, S_IFIFO | 0600);
}

static int on_mksock(void *user, const struct bstream_cmd *c)
{
	return make(user, c, S_IFSOCK | 0600);
}

static int on_symlink(void *user, const struct bstream_cmd *c)
{
	return make(user, c, S_IFLNK | 0777);
}

static int on_rename(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	const char *why;

	if (check_path(a, c, BTRFS_SEND_A_PATH, c->path, false) ||
	    check_path(a, c, BTRFS_SEND_A_PATH_TO, c->path_to, false))
		return -1;
	if (ar_rename(a->model, c->path, plen(c, BTRFS_SEND_A_PATH), c->path_to,
		      plen(c, BTRFS_SEND_A_PATH_TO), &why)) {
		char q[320];

		return fail(a, c, c->path, "cannot rename to '%s': %s",
			    recv_quote(q, sizeof(q), c->path_to), why);
	}
	return 0;
}

static int on_link(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	const char *why;

	if (check_path(a, c, BTRFS_SEND_A_PATH, c->path, false) ||
	    check_path(a, c, BTRFS_SEND_A_PATH_LINK, c->path_link, false))
		return -1;
	if (ar_link(a->model, c->path, plen(c, BTRFS_SEND_A_PATH), c->path_link,
		    plen(c, BTRFS_SEND_A_PATH_LINK), &why)) {
		char q[320];

		return fail(a, c, c->path, "cannot link to '%s': %s",
			    recv_quote(q, sizeof(q), c->path_link), why);
	}
	return 0;
}

static int remove_name(void *user, const struct bstream_cmd *c, bool dir)
{
	struct ar *a = user;
	const char *why;

	if (check_path(a, c, BTRFS_SEND_A_PATH, c->path, false))
		return -1;
	if (ar_unlink(a->model, c->path, plen(c, BTRFS_SEND_A_PATH), dir, &why))
		return fail(a, c, c->path, "cannot remove: %s", why);
	return 0;
}

static int on_unlink(void *user, const struct bstream_cmd *c)
{
	return remove_name(user, c, false);
}

static int on_rmdir(void *user, const struct bstream_cmd *c)
{
	return remove_name(user, c, true);
}

/* ---------------------------------------------------------------------- */
/* Data                                                                    */

/*
 * Where the DATA of c is: the command itself, to be read again whole and
 * checked when the bytes are wanted (the replay skips them).
 */
static void note_cmd(struct ar *a, struct ar_extent *e, const struct bstream_cmd *c)
{
	e->pos = c->offset;
	e->index = c->index;
	e->version = (uint8_t)c->version;
	e->substream = c->substream;
	e->enc_len = c->data_len;
	e->stream = a->cur_stream;
}

static int grow(struct ar_inode *ino, uint64_t end)
{
	if (end > ino->size)
		ino->size = end;
	return 0;
}

static int on_write(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *ino = file_at(a, c);
	struct ar_extent e = { 0 };

	if (!ino)
		return -1;
	if (c->file_offset > OFF_MAX - c->data_len)
		return fail(a, c, c->path, "offset %" PRIu64 " out of range", c->file_offset);
	if (!c->data_len)
		return 0;
	e.off = c->file_offset;
	e.len = c->data_len;
	note_cmd(a, &e, c);
	e.kind = AR_EXT_RAW;
	if (ar_before_data_change(a->model, ino) || ar_ext_put(&ino->u.ext, &e))
		return nomem(a, c);
	return grow(ino, e.off + e.len);
}

static int on_encoded_write(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *ino = file_at(a, c);
	struct ar_extent e = { 0 };

	if (!ino)
		return -1;
	/* The checks of cli/receive/encoded.c, before any data is needed. */
	if (c->encryption)
		return fail(a, c, c->path, "encryption %" PRIu32 " not supported", c->encryption);
	if (c->unencoded_offset > c->unencoded_len ||
	    c->unencoded_file_len > c->unencoded_len - c->unencoded_offset ||
	    c->file_offset > OFF_MAX || c->unencoded_file_len > OFF_MAX - c->file_offset)
		return fail(a, c, c->path,
			    "inconsistent lengths: offset %" PRIu64 " unencoded_file_len %" PRIu64
			    " unencoded_len %" PRIu64 " unencoded_offset %" PRIu64,
			    c->file_offset, c->unencoded_file_len, c->unencoded_len,
			    c->unencoded_offset);
	if (c->unencoded_len > CLI_DECOMP_MAX)
		return fail(a, c, c->path, "cannot decompress (compression %" PRIu32 "): %s",
			    c->compression, "unencoded_len too large to decompress");
	if (c->compression > CLI_COMP_LZO_64K)
		return fail(a, c, c->path, "cannot decompress (compression %" PRIu32 "): %s",
			    c->compression, "unknown compression");
	if (!c->unencoded_file_len)
		return 0;
	e.off = c->file_offset;
	e.len = c->unencoded_file_len;
	note_cmd(a, &e, c);
	e.dec_len = (uint32_t)c->unencoded_len;
	e.dec_off = (uint32_t)c->unencoded_offset;
	e.kind = AR_EXT_ENC;
	e.compression = (uint8_t)c->compression;
	if (ar_before_data_change(a->model, ino) || ar_ext_put(&ino->u.ext, &e))
		return nomem(a, c);
	return grow(ino, e.off + e.len);
}

static int on_clone(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *dst = file_at(a, c), *src;
	const struct ar_extents *from;
	uint64_t src_size;
	const char *why;
	bool here, parent;

	if (!dst || check_path(a, c, BTRFS_SEND_A_CLONE_PATH, c->clone_path, false))
		return -1;
	if (c->file_offset > OFF_MAX - c->clone_len || c->clone_offset > OFF_MAX - c->clone_len)
		return fail(a, c, c->path, "clone range out of range");
	here = !memcmp(c->clone_uuid, a->sv.uuid, 16);
	parent = a->sv.snapshot && !memcmp(c->clone_uuid, a->sv.parent_uuid, 16) &&
		 c->clone_ctransid == a->sv.parent_ctransid;
	if (!here && !parent) {
		char u[37];

		cli_uuid_str(c->clone_uuid, u);
		return fail(a, c, c->path,
			    "clone source UUID %s ctransid %" PRIu64 " is neither this subvolume "
			    "nor its parent", u, c->clone_ctransid);
	}
	if (here)
		src = ar_resolve(a->model, c->clone_path, plen(c, BTRFS_SEND_A_CLONE_PATH),
				 NULL, &why);
	else
		src = ar_resolve_parent(a->model, c->clone_path,
					plen(c, BTRFS_SEND_A_CLONE_PATH), &why);
	if (!src) {
		char q[320];

		return fail(a, c, c->path, "clone source '%s': %s",
			    recv_quote(q, sizeof(q), c->clone_path), why);
	}
	if (!S_ISREG(src->mode))
		return fail(a, c, c->path, "clone source is not a regular file");
	/* Save dst's parent data first: src may be dst as the parent had it. */
	if (ar_before_data_change(a->model, dst))
		return nomem(a, c);
	from = here ? &src->u.ext : ar_parent_extents(a->model, src, &src_size);
	if (ar_ext_clone(&dst->u.ext, c->file_offset, from, c->clone_offset, c->clone_len))
		return nomem(a, c);
	return grow(dst, c->file_offset + c->clone_len);
}

static int on_truncate(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *ino = file_at(a, c);

	if (!ino)
		return -1;
	if (c->size > OFF_MAX)
		return fail(a, c, c->path, "size %" PRIu64 " out of range", c->size);
	if (ar_before_data_change(a->model, ino))
		return nomem(a, c);
	if (c->size < ino->size && ar_ext_punch(&ino->u.ext, c->size, OFF_MAX - c->size))
		return nomem(a, c);
	ino->size = c->size;
	return 0;
}

static int on_fallocate(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *ino = file_at(a, c);
	uint32_t known = FALLOC_KEEP_SIZE | FALLOC_PUNCH_HOLE | FALLOC_ZERO_RANGE | FALLOC_UNSHARE;

	if (!ino)
		return -1;
	if (c->fallocate_mode & ~known)
		return fail(a, c, c->path, "fallocate mode %#" PRIx32 " not supported",
			    c->fallocate_mode);
	if (c->file_offset > OFF_MAX - c->size)
		return fail(a, c, c->path, "range out of range");
	if (ar_before_data_change(a->model, ino))
		return nomem(a, c);
	/* Punched or zeroed, the range reads as zeros: a hole here. */
	if ((c->fallocate_mode & (FALLOC_PUNCH_HOLE | FALLOC_ZERO_RANGE)) &&
	    ar_ext_punch(&ino->u.ext, c->file_offset, c->size))
		return nomem(a, c);
	if (!(c->fallocate_mode & FALLOC_KEEP_SIZE))
		grow(ino, c->file_offset + c->size);
	return 0;
}

static int on_update_extent(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;

	if (!file_at(a, c))
		return -1;
	/* Sent with --no-data: the bytes are not in the stream. */
	a->no_data = true;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Metadata                                                                */

static int on_chmod(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *ino = inode_at(a, c, true);

	if (!ino)
		return -1;
	if (S_ISLNK(ino->mode))
		return fail(a, c, c->path, "cannot change the mode of a symlink");
	ino->mode = (ino->mode & S_IFMT) | (c->mode & 07777);
	ino->flags |= AR_I_MODE_SET;
	return 0;
}

static int on_chown(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *ino = inode_at(a, c, true);

	if (!ino)
		return -1;
	if (c->uid > UINT32_MAX - 1 || c->gid > UINT32_MAX - 1)
		return fail(a, c, c->path, "owner %" PRIu64 ":%" PRIu64 " out of range",
			    c->uid, c->gid);
	ino->uid = (uint32_t)c->uid;
	ino->gid = (uint32_t)c->gid;
	ino->flags |= AR_I_OWNER_SET;
	return 0;
}

static int on_utimes(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *ino = inode_at(a, c, true);

	if (!ino)
		return -1;
	if (c->atime.nsec >= 1000000000 || c->mtime.nsec >= 1000000000)
		return fail(a, c, c->path, "nanoseconds out of range");
	ino->atime_sec = c->atime.sec;
	ino->atime_nsec = c->atime.nsec;
	ino->mtime_sec = c->mtime.sec;
	ino->mtime_nsec = c->mtime.nsec;
	ino->flags |= AR_I_TIMES_SET;
	return 0;
}

static int xattr_name_ok(struct ar *a, const struct bstream_cmd *c)
{
	size_t n = plen(c, BTRFS_SEND_A_XATTR_NAME);

	if (!n || strlen(c->xattr_name) != n)
		return fail(a, c, c->path, "invalid xattr name");
	return 0;
}

static int on_set_xattr(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *ino = inode_at(a, c, true);

	if (!ino || xattr_name_ok(a, c))
		return -1;
	if (ar_xattr_set(ino, c->xattr_name, plen(c, BTRFS_SEND_A_XATTR_NAME),
			 c->xattr_data, c->xattr_data_len))
		return nomem(a, c);
	return 0;
}

static int on_remove_xattr(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *ino = inode_at(a, c, true);
	char q[320];

	if (!ino || xattr_name_ok(a, c))
		return -1;
	if (ar_xattr_remove(ino, c->xattr_name, plen(c, BTRFS_SEND_A_XATTR_NAME)))
		return fail(a, c, c->path, "no xattr '%s' to remove",
			    recv_quote(q, sizeof(q), c->xattr_name));
	return 0;
}

static int on_fileattr(void *user, const struct bstream_cmd *c)
{
	struct ar *a = user;
	struct ar_inode *ino = inode_at(a, c, true);

	if (!ino)
		return -1;
	ino->fileattr = c->fileattr;
	ino->flags |= AR_I_FLAGS_SET;
	return 0;
}

static int on_enable_verity(void *user, const struct bstream_cmd *c)
{
	/* Nothing to hold: fs-verity is a property of a filesystem. */
	return file_at(user, c) ? 0 : -1;
}

const struct bstream_ops ar_replay_ops = {
	.subvol = on_subvol,
	.snapshot = on_snapshot,
	.mkfile = on_mkfile,
	.mkdir = on_mkdir,
	.mknod = on_mknod,
	.mkfifo = on_mkfifo,
	.mksock = on_mksock,
	.symlink = on_symlink,
	.rename = on_rename,
	.link = on_link,
	.unlink = on_unlink,
	.rmdir = on_rmdir,
	.set_xattr = on_set_xattr,
	.remove_xattr = on_remove_xattr,
	.write = on_write,
	.clone = on_clone,
	.truncate = on_truncate,
	.chmod = on_chmod,
	.chown = on_chown,
	.utimes = on_utimes,
	.end = on_end,
	.update_extent = on_update_extent,
	.fallocate = on_fallocate,
	.fileattr = on_fileattr,
	.encoded_write = on_encoded_write,
	.enable_verity = on_enable_verity,
};
