// SPDX-License-Identifier: GPL-2.0
/*
 * From paths to subvolumes: what the send ioctl needs (tree ids) and what
 * the choice of a parent needs (UUIDs, ctransid), read with
 * BTRFS_IOC_GET_SUBVOL_INFO, BTRFS_IOC_SUBVOL_GETFLAGS and, for subvolumes
 * known only by UUID, BTRFS_IOC_TREE_SEARCH in the UUID and root trees.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "send.h"

int send_errf(struct send_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static bool uuid_is_zero(const uint8_t u[16])
{
	static const uint8_t zero[16];

	return !memcmp(u, zero, 16);
}

int subvol_open(struct subvol *sv, const char *arg, struct send_err *e)
{
	struct btrfs_ioctl_get_subvol_info_args info;
	struct btrfs_ioctl_fs_info_args fsinfo;
	struct statfs sfs;
	struct stat st;
	uint64_t flags;

	memset(sv, 0, sizeof(*sv));
	sv->fd = -1;
	sv->arg = arg;
	sv->path = realpath(arg, NULL);
	if (!sv->path)
		return send_errf(e, "cannot resolve '%s': %s", arg, strerror(errno));
	sv->fd = open(sv->path, O_RDONLY | O_DIRECTORY | O_NOATIME | O_CLOEXEC);
	if (sv->fd < 0 && errno == EPERM)	/* O_NOATIME on a file not ours */
		sv->fd = open(sv->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sv->fd < 0)
		return send_errf(e, "cannot open '%s': %s", sv->path, strerror(errno));
	if (fstatfs(sv->fd, &sfs) || fstat(sv->fd, &st))
		return send_errf(e, "cannot stat '%s': %s", sv->path, strerror(errno));
	if (sfs.f_type != BTRFS_SUPER_MAGIC)
		return send_errf(e, "'%s' is not on a btrfs filesystem", sv->path);
	if (st.st_ino != BTRFS_FIRST_FREE_OBJECTID)
		return send_errf(e, "'%s' is not a subvolume", sv->path);

	/* Linux 6.1 returns 1 on success (left over from a tree search). */
	memset(&info, 0, sizeof(info));
	if (ioctl(sv->fd, BTRFS_IOC_GET_SUBVOL_INFO, &info) < 0)
		return send_errf(e, "cannot read subvolume information of '%s': %s",
				 sv->path, strerror(errno));
	if (ioctl(sv->fd, BTRFS_IOC_SUBVOL_GETFLAGS, &flags) < 0)
		return send_errf(e, "cannot read the flags of '%s': %s", sv->path,
				 strerror(errno));
	memset(&fsinfo, 0, sizeof(fsinfo));
	if (ioctl(sv->fd, BTRFS_IOC_FS_INFO, &fsinfo) < 0)
		return send_errf(e, "cannot read the filesystem of '%s': %s",
				 sv->path, strerror(errno));
	sv->root_id = info.treeid;
	memcpy(sv->uuid, info.uuid, 16);
	memcpy(sv->parent_uuid, info.parent_uuid, 16);
	memcpy(sv->received_uuid, info.received_uuid, 16);
	memcpy(sv->fsid, fsinfo.fsid, 16);
	sv->ctransid = info.ctransid;
	sv->readonly = flags & BTRFS_SUBVOL_RDONLY;
	return 0;
}

void subvol_close(struct subvol *sv)
{
	if (sv->fd >= 0)
		close(sv->fd);
	free(sv->path);
	sv->fd = -1;
	sv->path = NULL;
}

int subvol_same_fs(const struct subvol *a, const struct subvol *b,
		   struct send_err *e)
{
	if (!memcmp(a->fsid, b->fsid, 16))
		return 0;
	return send_errf(e, "'%s' and '%s' are not on the same filesystem",
			 a->path, b->path);
}

/*
 * One TREE_SEARCH for the items with key (objectid, type, any offset in
 * [min_off, max_off]) of tree tree_id; calls found() for each item.
 * Stops at the first found() returning non-zero.
 */
static int tree_search(int fd, uint64_t tree_id, uint64_t objectid,
		       uint32_t type, uint64_t min_off, uint64_t max_off,
		       int (*found)(void *ctx, const void *item, uint32_t len),
		       void *ctx)
{
	struct btrfs_ioctl_search_args args;
	struct btrfs_ioctl_search_key *sk = &args.key;

	memset(&args, 0, sizeof(args));
	sk->tree_id = tree_id;
	sk->min_objectid = sk->max_objectid = objectid;
	sk->min_type = sk->max_type = type;
	sk->min_offset = min_off;
	sk->max_offset = max_off;
	sk->max_transid = UINT64_MAX;
	for (;;) {
		size_t off = 0;
		struct btrfs_ioctl_search_header sh;

		sk->nr_items = 4096;
		if (ioctl(fd, BTRFS_IOC_TREE_SEARCH, &args) < 0)
			return -errno;
		if (!sk->nr_items)
			return 0;
		for (uint32_t i = 0; i < sk->nr_items; i++) {
			int ret;

			memcpy(&sh, args.buf + off, sizeof(sh));
			off += sizeof(sh);
			if (off + sh.len > sizeof(args.buf))
				return -EIO;
			if (sh.objectid == objectid && sh.type == type) {
				ret = found(ctx, args.buf + off, sh.len);
				if (ret)
					return ret;
			}
			off += sh.len;
			sk->min_offset = sh.offset;
		}
		if (sk->min_offset == UINT64_MAX || sk->min_offset >= max_off)
			return 0;
		sk->min_offset++;
	}
}

static int first_u64(void *ctx, const void *item, uint32_t len)
{
	uint64_t v;

	if (len < 8)
		return 0;
	memcpy(&v, item, 8);
	*(uint64_t *)ctx = le64toh(v);
	return 1;
}

/* The subvolume whose UUID is uuid (UUID tree, key type SUBVOL), or 0. */
static int root_by_uuid(int fd, const uint8_t uuid[16], uint64_t *root_id)
{
	uint64_t objectid, offset;
	int ret;

	memcpy(&objectid, uuid, 8);
	memcpy(&offset, uuid + 8, 8);
	objectid = le64toh(objectid);
	offset = le64toh(offset);
	*root_id = 0;
	ret = tree_search(fd, BTRFS_UUID_TREE_OBJECTID, objectid,
			  BTRFS_UUID_KEY_SUBVOL, offset, offset, first_u64, root_id);
	if (ret < 0)
		return ret;
	return *root_id ? 0 : -ENOENT;
}

/*
 * ctransid of a root item.  Items written by kernels that predate the
 * field are shorter, or have generation_v2 != generation: then it is 0.
 */
static int root_item_ctransid(void *ctx, const void *item, uint32_t len)
{
	struct btrfs_root_item ri;

	memset(&ri, 0, sizeof(ri));
	memcpy(&ri, item, len < sizeof(ri) ? len : sizeof(ri));
	*(uint64_t *)ctx = 0;
	if (len >= offsetof(struct btrfs_root_item, ctransid) + 8 &&
	    ri.generation == ri.generation_v2)
		*(uint64_t *)ctx = le64toh(ri.ctransid);
	return 0;	/* go on: the last ROOT_ITEM of the root wins */
}

int subvol_find_parent(const struct subvol *sv, struct subvol *const *sources,
		       size_t nsources, uint64_t *parent_id, struct send_err *e)
{
	uint64_t parent, parent_ctransid = 0, best_diff = UINT64_MAX;
	int ret;

	*parent_id = 0;
	if (uuid_is_zero(sv->parent_uuid))
		return send_errf(e, "cannot choose a parent for '%s': it is not a snapshot",
				 sv->path);
	ret = root_by_uuid(sv->fd, sv->parent_uuid, &parent);
	if (ret)
		return send_errf(e, "cannot choose a parent for '%s': the snapshot it was taken from is gone (%s)",
				 sv->path, strerror(-ret));
	for (size_t i = 0; i < nsources; i++) {
		if (sources[i]->root_id == parent) {
			*parent_id = parent;
			return 0;
		}
	}
	ret = tree_search(sv->fd, BTRFS_ROOT_TREE_OBJECTID, parent,
			  BTRFS_ROOT_ITEM_KEY, 0, UINT64_MAX,
			  root_item_ctransid, &parent_ctransid);
	if (ret < 0)
		return send_errf(e, "cannot read root item %llu: %s",
				 (unsigned long long)parent, strerror(-ret));
	/* Siblings: clone sources taken from the same snapshot. */
	for (size_t i = 0; i < nsources; i++) {
		uint64_t sib_parent, diff;

		if (uuid_is_zero(sources[i]->parent_uuid) ||
		    root_by_uuid(sources[i]->fd, sources[i]->parent_uuid, &sib_parent) ||
		    sib_parent != parent)
			continue;
		diff = sources[i]->ctransid > parent_ctransid ?
		       sources[i]->ctransid - parent_ctransid :
		       parent_ctransid - sources[i]->ctransid;
		if (diff < best_diff) {
			best_diff = diff;
			*parent_id = sources[i]->root_id;
		}
	}
	if (!*parent_id)
		return send_errf(e, "cannot choose a parent for '%s': no clone source is its parent or a sibling",
				 sv->path);
	return 0;
}

uint32_t send_proto_supported(void)
{
	char buf[32];
	unsigned long long v;
	char *end;
	ssize_t n;
	int fd;

	fd = open("/sys/fs/btrfs/features/send_stream_version", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || v == 0 || v > UINT32_MAX)
		return 1;
	return v;
}
