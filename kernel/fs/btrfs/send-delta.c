// SPDX-License-Identifier: GPL-2.0
/*
 * Contents of an incremental send: with every inode at its final name
 * (send-rename.c ran first), what changed inside inodes: xattrs, owner,
 * mode, attributes, times and file data (docs/incremental-send.md).
 */

#include "ctree.h"
#include "send-internal.h"

int send_changed_contents(struct send_ctx *sctx)
{
	/* Reached only once the ioctl routes parent sends here. */
	return -EOPNOTSUPP;
}
