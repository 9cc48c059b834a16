// SPDX-License-Identifier: GPL-2.0
/*
 * Name changes of an incremental send: the commands that turn the parent
 * snapshot's namespace on the receiver into the send snapshot's, before
 * any inode contents are sent (docs/incremental-send.md).
 */

#include "ctree.h"
#include "send-internal.h"

int send_changed_names(struct send_ctx *sctx)
{
	/* Reached only once the ioctl routes parent sends here. */
	return -EOPNOTSUPP;
}
