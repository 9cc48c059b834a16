/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Comparing two trees' commit roots in key order (send-compare.c).
 */

#ifndef BTRFS_SEND_COMPARE_H
#define BTRFS_SEND_COMPARE_H

#include <linux/types.h>
#include "ctree.h"

enum send_cmp_result {
	SEND_CMP_NEW,		/* only in the left (send) tree */
	SEND_CMP_DELETED,	/* only in the right (parent) tree */
	SEND_CMP_CHANGED,	/* in both, contents differ */
	SEND_CMP_SAME,		/* in both, identical (only if asked for) */
};

/*
 * One reported item: @left/@right are private copies of the leaves the
 * item was found in (NULL on the side it is missing from), so the callback
 * may sleep, search other trees and write to the stream.
 */
struct send_cmp_item {
	struct btrfs_key key;
	enum send_cmp_result result;
	struct extent_buffer *left;
	int left_slot;
	struct extent_buffer *right;
	int right_slot;
	/* fs_info->last_reloc_trans when the leaves were copied */
	u64 reloc_trans;
};

typedef int (*send_cmp_fn)(void *ctx, const struct send_cmp_item *item);

int send_compare_trees(struct btrfs_root *left, struct btrfs_root *right,
		       bool report_same, send_cmp_fn fn, void *ctx);
struct btrfs_path *send_alloc_path(void);
int send_search_held(struct btrfs_root *root, const struct btrfs_key *key,
		     struct btrfs_path *path);

#endif
