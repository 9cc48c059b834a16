// SPDX-License-Identifier: GPL-2.0
/*
 * The btrfs destination: subvolumes made with the subvolume ioctls,
 * parents and clone sources found by UUID, received identity recorded
 * with SET_RECEIVED_SUBVOL.
 *
 * Lookups go through the filesystem's UUID tree (one TREE_SEARCH per UUID
 * and key type: RECEIVED_SUBVOL first, then SUBVOL), so they cost the same
 * with ten subvolumes or ten thousand.  The subvolume found is then placed
 * by its root back references and must lie beneath the search directory
 * (DEST, or -m ROOTMOUNT): a stream cannot make us snapshot or clone from
 * anywhere else on the filesystem.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/btrfs.h>
#include <linux/fs.h>
#include <linux/btrfs_tree.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "receive.h"


#define SEARCH_BUF (64 * 1024)

static uint64_t get_le64(const void *p)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}


/* ---------------------------------------------------------------------- */
/* Tree searches                                                           */

/*
 * The first item with this objectid and type and an offset in
 * [min_off, max_off] of tree: its data (at most cap bytes copied) and
 * offset.  Returns the item length, 0 if there is none, or -errno.
 */
static long search_item(int fd, uint64_t tree, uint64_t objectid, uint32_t type,
			uint64_t min_off, uint64_t max_off, void *data,
			size_t cap, uint64_t *offset)
{
	struct btrfs_ioctl_search_args_v2 *a;
	struct btrfs_ioctl_search_header sh;
	long ret = 0;

	a = calloc(1, sizeof(*a) + SEARCH_BUF);
	if (!a)
		return -ENOMEM;
	a->key.tree_id = tree;
	a->key.min_objectid = a->key.max_objectid = objectid;
	a->key.min_type = a->key.max_type = type;
	a->key.min_offset = min_off;
	a->key.max_offset = max_off;
	a->key.max_transid = UINT64_MAX;
	a->key.nr_items = 1;
	a->buf_size = SEARCH_BUF;
	if (ioctl(fd, BTRFS_IOC_TREE_SEARCH_V2, a)) {
		ret = -errno;
		goto out;
	}
	if (a->key.nr_items == 0)
		goto out;
	memcpy(&sh, a->buf, sizeof(sh));
	if (sh.objectid != objectid || sh.type != type || sh.len > SEARCH_BUF - sizeof(sh))
		goto out;
	memcpy(data, a->buf + sizeof(sh), sh.len < cap ? sh.len : cap);
	if (offset)
		*offset = sh.offset;
	ret = sh.len;
out:
	free(a);
	return ret;
}

/* Subvolume ids recorded under uuid with key type (251/252); count or -errno. */
static long uuid_lookup(int fd, const uint8_t *uuid, uint32_t type,
			uint64_t *ids, size_t max)
{
	uint8_t buf[8 * 256];
	long len = search_item(fd, BTRFS_UUID_TREE_OBJECTID, get_le64(uuid), type,
			       get_le64(uuid + 8), get_le64(uuid + 8), buf,
			       sizeof(buf), NULL);
	size_t n;

	if (len <= 0)
		return len;
	n = (size_t)len / 8;
	if (n > max)
		n = max;
	if (n > sizeof(buf) / 8)
		n = sizeof(buf) / 8;
	for (size_t i = 0; i < n; i++)
		ids[i] = get_le64(buf + 8 * i);
	return (long)n;
}

struct root_info {
	uint64_t flags;
	uint8_t uuid[16], received_uuid[16];
	uint64_t ctransid, stransid, rtransid;
};

static int root_info(int fd, uint64_t id, struct root_info *ri)
{
	struct btrfs_root_item item;
	long len;

	memset(&item, 0, sizeof(item));
	len = search_item(fd, BTRFS_ROOT_TREE_OBJECTID, id, BTRFS_ROOT_ITEM_KEY,
			  0, UINT64_MAX, &item, sizeof(item), NULL);
	if (len < 0)
		return (int)len;
	if (len < (long)offsetof(struct btrfs_root_item, flags) + 8)
		return -ENOENT;
	memset(ri, 0, sizeof(*ri));
	ri->flags = get_le64(&item.flags);
	/* Items of old kernels end before generation_v2: no UUIDs then. */
	if (len >= (long)sizeof(item)) {
		memcpy(ri->uuid, item.uuid, 16);
		memcpy(ri->received_uuid, item.received_uuid, 16);
		ri->ctransid = get_le64(&item.ctransid);
		ri->stransid = get_le64(&item.stransid);
		ri->rtransid = get_le64(&item.rtransid);
	}
	return 0;
}

static int subvol_id(int fd, uint64_t *id)
{
	struct btrfs_ioctl_ino_lookup_args a = {
		.treeid = 0,
		.objectid = BTRFS_FIRST_FREE_OBJECTID,
	};

	if (ioctl(fd, BTRFS_IOC_INO_LOOKUP, &a))
		return -errno;
	*id = a.treeid;
	return 0;
}

/* Path of directory dirid inside subvolume tree: "" or "a/b/". */
static int dir_path(int fd, uint64_t tree, uint64_t dirid, char *out, size_t size)
{
	struct btrfs_ioctl_ino_lookup_args a = { .treeid = tree, .objectid = dirid };

	if (ioctl(fd, BTRFS_IOC_INO_LOOKUP, &a))
		return -errno;
	a.name[sizeof(a.name) - 1] = 0;
	if (strlen(a.name) >= size)
		return -ENAMETOOLONG;
	strcpy(out, a.name);
	return 0;
}

/*
 * Path of subvolume id relative to the search directory, built from root
 * back references; -EXDEV if it is not beneath the search directory.
 */
static int locate_subvol(struct recv *r, uint64_t id, char **rel)
{
	char *path = strdup(""), dir[BTRFS_INO_LOOKUP_PATH_MAX];
	size_t plen = strlen(r->search_prefix);
	uint64_t cur = id;
	int ret = 0;

	for (int depth = 0; path && cur != r->search_root_id; depth++) {
		struct {
			struct btrfs_root_ref ref;
			char name[BTRFS_PATH_NAME_MAX + 1];
		} __attribute__((packed)) item;
		uint64_t parent, dirid;
		size_t nlen;
		long len;
		char *n;

		if (cur == BTRFS_FS_TREE_OBJECTID || depth > 4096) {
			ret = -EXDEV;
			break;
		}
		len = search_item(r->dest_fd, BTRFS_ROOT_TREE_OBJECTID, cur,
				  BTRFS_ROOT_BACKREF_KEY, 0, UINT64_MAX, &item,
				  sizeof(item), &parent);
		if (len <= 0) {
			ret = len ? (int)len : -ENOENT;
			break;
		}
		nlen = (size_t)((const uint8_t *)&item.ref.name_len)[0] |
		       (size_t)((const uint8_t *)&item.ref.name_len)[1] << 8;
		if (nlen > BTRFS_PATH_NAME_MAX || (long)(sizeof(item.ref) + nlen) > len) {
			ret = -EUCLEAN;
			break;
		}
		dirid = get_le64(&item.ref.dirid);
		ret = dir_path(r->dest_fd, parent, dirid, dir, sizeof(dir));
		if (ret)
			break;
		if (asprintf(&n, "%s%.*s%s%s", dir, (int)nlen, item.name,
			     *path ? "/" : "", path) < 0)
			n = NULL;
		free(path);
		path = n;
		cur = parent;
	}
	if (!path)
		return -ENOMEM;
	/* search_prefix is "" or ends with '/'. */
	if (!ret && strncmp(path, r->search_prefix, plen))
		ret = -EXDEV;
	if (ret) {
		free(path);
		return ret;
	}
	*rel = strdup(path + plen);
	free(path);
	return *rel ? 0 : -ENOMEM;
}

/* Open subvolume id beneath the search directory and check it is that one. */
static int open_subvol(struct recv *r, uint64_t id, char *why, size_t wlen)
{
	uint64_t got;
	struct stat st;
	char *rel = NULL;
	int ret, fd;

	ret = locate_subvol(r, id, &rel);
	if (ret == -EXDEV) {
		snprintf(why, wlen, "subvolume %" PRIu64 " is outside '%s', refusing it",
			 id, r->search_name);
		return ret;
	}
	if (ret) {
		snprintf(why, wlen, "cannot find the path of subvolume %" PRIu64 ": %s",
			 id, strerror(-ret));
		return ret;
	}
	if (*rel) {
		fd = recv_walk_dir(r->search_fd, rel, strlen(rel));
	} else {
		fd = openat(r->search_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0) {
		snprintf(why, wlen, "cannot open subvolume %" PRIu64 " at '%s': %s",
			 id, rel, strerror(-fd));
		free(rel);
		return fd;
	}
	if (fstat(fd, &st) || st.st_ino != BTRFS_FIRST_FREE_OBJECTID ||
	    subvol_id(fd, &got) || got != id) {
		snprintf(why, wlen, "'%s' is not subvolume %" PRIu64 " any more", rel, id);
		free(rel);
		close(fd);
		return -ESTALE;
	}
	free(rel);
	return fd;
}

/*
 * Find and open the subvolume a stream calls (uuid, ctransid): one whose
 * received UUID is uuid, received from that transid and still read-only,
 * else one whose own UUID is uuid (a send back to where the data came
 * from) that is unchanged or read-only.
 */
static int find_subvol(struct recv *r, const uint8_t *uuid, uint64_t ctransid,
		       uint64_t *idp, char *why, size_t wlen)
{
	uint64_t ids[256];
	char us[37];
	bool any = false;
	int fd = -ENOENT;

	cli_uuid_str(uuid, us);
	why[0] = 0;
	for (int pass = 0; pass < 2; pass++) {
		uint32_t type = pass ? BTRFS_UUID_KEY_SUBVOL : BTRFS_UUID_KEY_RECEIVED_SUBVOL;
		long n = uuid_lookup(r->dest_fd, uuid, type, ids, 256);

		if (n < 0) {
			snprintf(why, wlen, "cannot search the UUID tree: %s", strerror((int)-n));
			return (int)n;
		}
		for (long i = 0; i < n; i++) {
			struct root_info ri;

			if (root_info(r->dest_fd, ids[i], &ri))
				continue;	/* deleted, not yet cleaned */
			any = true;
			if (!pass && ri.stransid != ctransid) {
				snprintf(why, wlen,
					 "subvolume %" PRIu64 " with received UUID %s was received from transid %" PRIu64
					 ", the stream needs transid %" PRIu64 ": it has changed since it was received",
					 ids[i], us, ri.stransid, ctransid);
				continue;
			}
			/*
			 * A received subvolume that is writable again may
			 * differ from what was received.  (Its ctransid says
			 * nothing reliable: data written back after the
			 * receive was marked raises it too.)
			 */
			if (!pass && !(ri.flags & BTRFS_ROOT_SUBVOL_RDONLY)) {
				snprintf(why, wlen,
					 "subvolume %" PRIu64 " with received UUID %s was made writable after it was received"
					 " and may have changed since (ctransid %" PRIu64 ", rtransid %" PRIu64 ")",
					 ids[i], us, ri.ctransid, ri.rtransid);
				continue;
			}
			if (pass && ri.ctransid != ctransid &&
			    !(ri.flags & BTRFS_ROOT_SUBVOL_RDONLY)) {
				snprintf(why, wlen,
					 "subvolume %" PRIu64 " with UUID %s has changed since it was sent"
					 " (ctransid %" PRIu64 ", the stream needs %" PRIu64 ") and is writable",
					 ids[i], us, ri.ctransid, ctransid);
				continue;
			}
			fd = open_subvol(r, ids[i], why, wlen);
			if (fd >= 0) {
				*idp = ids[i];
				return fd;
			}
		}
	}
	if (!any)
		snprintf(why, wlen, "no subvolume with UUID or received UUID %s on this filesystem",
			 us);
	return fd < 0 && fd != -ENOENT ? fd : -ENOENT;
}

/* ---------------------------------------------------------------------- */

static int btrfs_init(struct recv *r)
{
	struct statfs sfs;
	struct stat st;
	char dir[BTRFS_INO_LOOKUP_PATH_MAX];
	int ret;

	if (fstatfs(r->dest_fd, &sfs) || sfs.f_type != BTRFS_SUPER_MAGIC) {
		recv_error(r, "'%s' is not on a btrfs filesystem", r->dest_name);
		return -1;
	}
	if (r->search_fd != r->dest_fd) {
		struct btrfs_ioctl_fs_info_args a, b;

		if (ioctl(r->dest_fd, BTRFS_IOC_FS_INFO, &a) ||
		    ioctl(r->search_fd, BTRFS_IOC_FS_INFO, &b) ||
		    memcmp(a.fsid, b.fsid, sizeof(a.fsid))) {
			recv_error(r, "'%s' is not on the filesystem of '%s'",
				   r->search_name, r->dest_name);
			return -1;
		}
	}
	ret = subvol_id(r->search_fd, &r->search_root_id);
	if (!ret && fstat(r->search_fd, &st))
		ret = -errno;
	if (!ret) {
		if (st.st_ino == BTRFS_FIRST_FREE_OBJECTID)
			dir[0] = 0;
		else
			ret = dir_path(r->dest_fd, r->search_root_id, st.st_ino, dir, sizeof(dir));
	}
	if (ret) {
		recv_error(r, "cannot find where '%s' is in its subvolume: %s",
			   r->search_name, strerror(-ret));
		return -1;
	}
	r->search_prefix = strdup(dir);
	if (!r->search_prefix) {
		recv_error(r, "out of memory");
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The backend operations                                                  */

static int btrfs_create(struct recv *r, const char *name)
{
	struct btrfs_ioctl_vol_args args;

	memset(&args, 0, sizeof(args));
	strcpy(args.name, name);
	return ioctl(r->dest_fd, BTRFS_IOC_SUBVOL_CREATE, &args) ? errno : 0;
}

static int btrfs_snapshot(struct recv *r, int parent_fd, const char *name)
{
	struct btrfs_ioctl_vol_args_v2 args;

	memset(&args, 0, sizeof(args));
	args.fd = parent_fd;
	strcpy(args.name, name);
	return ioctl(r->dest_fd, BTRFS_IOC_SNAP_CREATE_V2, &args) ? errno : 0;
}

static int btrfs_check_new(struct recv *r, int fd, uint64_t *id)
{
	struct stat st;

	if (fstat(fd, &st) || st.st_ino != BTRFS_FIRST_FREE_OBJECTID)
		return -EINVAL;
	return subvol_id(fd, id);
}

static int btrfs_open_received(struct recv *r, const uint8_t *uuid,
			       uint64_t ctransid, uint64_t *id, char *why,
			       size_t wlen)
{
	return find_subvol(r, uuid, ctransid, id, why, wlen);
}

static int btrfs_clone(int dst, uint64_t doff, int src, uint64_t soff, uint64_t len)
{
	struct file_clone_range range = {
		.src_fd = src, .src_offset = soff, .src_length = len, .dest_offset = doff,
	};

	return ioctl(dst, FICLONERANGE, &range) ? errno : 0;
}

static int btrfs_mark_received(struct recv *r, char *why, size_t wlen)
{
	struct recv_subvol *sv = &r->sv;
	struct btrfs_ioctl_received_subvol_args rs;
	uint64_t flags;
	char us[37];

	/*
	 * The mark vouches for the data, and committing it does not write the
	 * data back: do that first, so a write error (which syncfs reports
	 * since Linux 5.8) fails the receive instead of marking a subvolume
	 * whose files lost their data.
	 */
	if (syncfs(sv->root_fd)) {
		snprintf(why, wlen, "cannot write the received data to disk");
		return errno;
	}
	memset(&rs, 0, sizeof(rs));
	memcpy(rs.uuid, sv->uuid, 16);
	rs.stransid = sv->ctransid;
	if (ioctl(sv->root_fd, BTRFS_IOC_SET_RECEIVED_SUBVOL, &rs)) {
		snprintf(why, wlen, "cannot set the received UUID");
		return errno;
	}
	if (ioctl(sv->root_fd, BTRFS_IOC_SUBVOL_GETFLAGS, &flags) ||
	    (flags |= BTRFS_SUBVOL_RDONLY,
	     ioctl(sv->root_fd, BTRFS_IOC_SUBVOL_SETFLAGS, &flags))) {
		snprintf(why, wlen, "cannot make it read-only");
		return errno;
	}
	cli_uuid_str(sv->uuid, us);
	recv_info(r, 2, "%s: received UUID %s, stransid %" PRIu64 ", rtransid %" PRIu64,
		  sv->name, us, sv->ctransid, (uint64_t)rs.rtransid);
	return 0;
}

/*
 * A checkpoint is a read-only snapshot: it costs one transaction commit,
 * which also makes it durable, and the data the receive wrote is flushed
 * into it by the snapshot ioctl itself.
 */
static int btrfs_checkpoint(struct recv *r, int dir, const char *name, char *why,
			    size_t wlen)
{
	struct btrfs_ioctl_vol_args_v2 args;

	memset(&args, 0, sizeof(args));
	args.fd = r->sv.root_fd;
	args.flags = BTRFS_SUBVOL_RDONLY;
	snprintf(args.name, sizeof(args.name), "%s", name);
	if (ioctl(dir, BTRFS_IOC_SNAP_CREATE_V2, &args)) {
		snprintf(why, wlen, "cannot snapshot it as '%s/%s'", RESUME_DIR, name);
		return errno;
	}
	return 0;
}

/*
 * Rolling back copies the checkpoint into the partial subvolume, sharing
 * its data (reflinks), rather than replacing the subvolume with a
 * snapshot of the checkpoint: a snapshot would get a new UUID and the
 * checkpoint's as its parent UUID, which is then deleted.
 */
static int btrfs_restore(struct recv *r, int root, int src, char *why, size_t wlen)
{
	return recv_tree_rollback(root, src, why, wlen);
}

static int btrfs_remove(struct recv *r, int dir, const char *name, char *why, size_t wlen)
{
	struct btrfs_ioctl_vol_args args;
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW)) {
		snprintf(why, wlen, "cannot find '%s'", name);
		return errno;
	}
	/* A partial subvolume's checkpoint or itself; anything else is a plain tree. */
	if (st.st_ino != BTRFS_FIRST_FREE_OBJECTID || !S_ISDIR(st.st_mode))
		return recv_tree_remove(dir, name, why, wlen);
	memset(&args, 0, sizeof(args));
	snprintf(args.name, sizeof(args.name), "%s", name);
	if (ioctl(dir, BTRFS_IOC_SNAP_DESTROY, &args)) {
		snprintf(why, wlen, "cannot delete subvolume '%s'", name);
		return errno;
	}
	return 0;
}

const struct recv_backend recv_btrfs_backend = {
	.name = "btrfs",
	.what = "subvolume",
	.encoded_io = true,
	.init = btrfs_init,
	.create = btrfs_create,
	.snapshot = btrfs_snapshot,
	.check_new = btrfs_check_new,
	.open_received = btrfs_open_received,
	.clone = btrfs_clone,
	.mark_received = btrfs_mark_received,
	.checkpoint = btrfs_checkpoint,
	.restore = btrfs_restore,
	.remove = btrfs_remove,
};
