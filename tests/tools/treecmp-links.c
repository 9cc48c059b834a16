// SPDX-License-Identifier: GPL-2.0
/*
 * Hard-link structure of a tree.
 *
 * Inode numbers cannot be compared between two trees, but the groups of
 * names that share an inode can.  Each name is mapped to the first name of
 * its inode in walk order; two trees walked in the same order have the same
 * groups iff every common name maps to the same first name.  Only inodes
 * with more than one link are recorded, so memory grows with the number of
 * hard-linked files, not with the tree.
 */
#include <stdint.h>
#include <stdlib.h>

#include "treecmp.h"

struct tc_link {
	dev_t dev;
	ino_t ino;
	char *first;	/* NULL: slot unused */
};

static size_t slot_of(dev_t dev, ino_t ino, size_t cap)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev;

	h ^= h >> 29;
	return h & (cap - 1);
}

static void grow(struct tc_links *l)
{
	struct tc_link *old = l->slots;
	size_t oldcap = l->cap, i;

	l->cap = oldcap ? oldcap * 2 : 256;
	l->slots = tc_xmalloc(l->cap * sizeof(*l->slots));
	for (i = 0; i < l->cap; i++)
		l->slots[i].first = NULL;
	for (i = 0; i < oldcap; i++) {
		size_t s;

		if (!old[i].first)
			continue;
		s = slot_of(old[i].dev, old[i].ino, l->cap);
		while (l->slots[s].first)
			s = (s + 1) & (l->cap - 1);
		l->slots[s] = old[i];
	}
	free(old);
}

/* Return the first path recorded for (@dev, @ino), recording @path if none. */
const char *tc_links_first(struct tc_links *l, dev_t dev, ino_t ino,
			   const char *path)
{
	size_t s;

	if (2 * (l->nr + 1) > l->cap)
		grow(l);
	s = slot_of(dev, ino, l->cap);
	for (; l->slots[s].first; s = (s + 1) & (l->cap - 1)) {
		if (l->slots[s].dev == dev && l->slots[s].ino == ino)
			return l->slots[s].first;
	}
	l->slots[s].dev = dev;
	l->slots[s].ino = ino;
	l->slots[s].first = tc_xstrdup(path);
	l->nr++;
	return l->slots[s].first;
}

void tc_links_free(struct tc_links *l)
{
	size_t i;

	for (i = 0; i < l->cap; i++)
		free(l->slots[i].first);
	free(l->slots);
	l->slots = NULL;
	l->nr = l->cap = 0;
}
