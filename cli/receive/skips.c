// SPDX-License-Identifier: GPL-2.0
/*
 * What a plain destination cannot hold.  Received as an ordinary user, or
 * onto a filesystem without some feature, some commands cannot be applied
 * there: ownership (chown needs privilege), device nodes (privilege: an
 * empty file stands in, so that later commands naming it still apply),
 * trusted. and security. xattrs (privilege), user. xattrs (tmpfs of Linux
 * 6.1 has none), inode flags (the immutable and append-only ones need
 * privilege, the others filesystem support) and fs-verity.  Those failures are skipped and
 * counted, and each subvolume ends with one line per kind: how many and
 * the first paths.  Anything else is an error as usual, and so is
 * everything with --strict, or on btrfs, which can hold all of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "receive.h"

static const char *const kind_names[] = {
	[SKIP_OWNER] = "owners",
	[SKIP_DEVICE] = "device nodes (empty files stand in for them)",
	[SKIP_XATTR] = "xattrs",
	[SKIP_FLAGS] = "inode flags",
	[SKIP_VERITY] = "fs-verity",
};

int recv_skip_kind(uint16_t cmd, int err)
{
	bool unsupported = err == EOPNOTSUPP || err == ENOTTY || err == EINVAL;

	switch (cmd) {
	case BTRFS_SEND_C_CHOWN:
		return err == EPERM || err == EINVAL ? SKIP_OWNER : -1;
	case BTRFS_SEND_C_MKNOD:
		return err == EPERM ? SKIP_DEVICE : -1;
	case BTRFS_SEND_C_SET_XATTR:
	case BTRFS_SEND_C_REMOVE_XATTR:
		return err == EPERM || err == EOPNOTSUPP ? SKIP_XATTR : -1;
	case BTRFS_SEND_C_FILEATTR:
		return unsupported || err == EPERM ? SKIP_FLAGS : -1;
	case BTRFS_SEND_C_ENABLE_VERITY:
		return unsupported ? SKIP_VERITY : -1;
	default:
		return -1;
	}
}

bool recv_may_skip(const struct recv *r)
{
	return !r->strict && r->backend == &recv_plain_backend && r->sv.active;
}

bool recv_skip(struct recv *r, uint16_t cmd, int err, const char *path)
{
	struct recv_skips *s = &r->sv.skips;
	int kind;

	if (!recv_may_skip(r))
		return false;
	kind = recv_skip_kind(cmd, err);
	if (kind < 0)
		return false;
	if (s->n[kind] < SKIP_PATHS_SHOWN && path)
		s->first[kind][s->n[kind]] = strdup(path);
	s->n[kind]++;
	return true;
}

const char *recv_skip_kind_name(int kind)
{
	return kind_names[kind];
}

void recv_skips_free(struct recv_skips *s)
{
	for (int k = 0; k < SKIP_KINDS; k++)
		for (int i = 0; i < SKIP_PATHS_SHOWN; i++)
			free(s->first[k][i]);
	memset(s, 0, sizeof(*s));
}
