// SPDX-License-Identifier: GPL-2.0
/*
 * Ask the old snapshot what the stream cannot say: which of the names the
 * stream touched are one inode, what type each inode is, and whether the
 * times a UTIMES carries are new.
 *
 * The stream names inodes only by path.  A file with two names that is
 * moved shows as "link x1 -> m1, link x2 -> m1, unlink m1, unlink m2": the
 * model sees m1 go to x1 and x2, and m2 removed, because nothing says m2
 * was m1.  One lstat() per inode the stream touched (not per inode of the
 * tree) answers it: names with the same inode number in the old snapshot
 * are joined into one node, and m1, m2 become renames to x1, x2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "diff.h"

struct slot {
	uint64_t ino;
	struct diff_node *node;
};

/* Open-addressing map from old inode number to the first node seen. */
struct ino_map {
	struct slot *v;
	size_t cap, n;
};

static struct slot *map_slot(struct ino_map *m, uint64_t ino)
{
	size_t i = (ino * 0x9e3779b97f4a7c15ull) & (m->cap - 1);

	while (m->v[i].node && m->v[i].ino != ino)
		i = (i + 1) & (m->cap - 1);
	return &m->v[i];
}

static int map_grow(struct ino_map *m)
{
	struct ino_map bigger = { .cap = m->cap ? m->cap * 2 : 256 };

	bigger.v = calloc(bigger.cap, sizeof(*bigger.v));
	if (!bigger.v)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->v[i].node)
			*map_slot(&bigger, m->v[i].ino) = m->v[i];
	bigger.n = m->n;
	free(m->v);
	*m = bigger;
	return 0;
}

/* lstat() the old name of n (relative to the old snapshot's top). */
static int stat_old(int old_fd, const struct diff_node *n, struct stat *st,
		    char *err, size_t errlen)
{
	char *path;
	size_t len;
	int ret;

	if (diff_entry_path(n->origs.v[0], true, &path, &len, err, errlen))
		return -1;
	ret = fstatat(old_fd, path + 1, st, AT_SYMLINK_NOFOLLOW);
	if (ret)
		snprintf(err, errlen, "'%s' is not in the old snapshot (%s): the stream does not compare these snapshots",
			 path, strerror(errno));
	free(path);
	return ret ? -1 : 0;
}

static bool same_time(const struct bstream_timespec *t,
		      const struct timespec *old)
{
	return t->sec == old->tv_sec && t->nsec == old->tv_nsec;
}

/*
 * Linux sends UTIMES for every inode whose inode item changed, and some
 * changes rewrite the item without touching a time (truncate(2) to the
 * size a file already has).  The old snapshot knows whether the times
 * really moved.
 */
static void drop_unchanged_times(struct diff_node *n, const struct stat *st)
{
	if (!(n->changes & DIFF_TIMES))
		return;
	if (same_time(&n->atime, &st->st_atim) &&
	    same_time(&n->mtime, &st->st_mtim) &&
	    same_time(&n->ctime, &st->st_ctim))
		n->changes &= ~DIFF_TIMES;
}

int diff_identify(struct diff_model *m, int old_fd, char *err, size_t errlen)
{
	struct ino_map map = { 0 };
	int ret = 0;

	for (struct diff_node *n = diff_model_nodes(m); n && !ret; n = n->next) {
		struct stat st;
		struct slot *s;

		if (n->created || n->root || n->merged || !n->origs.n)
			continue;
		ret = stat_old(old_fd, n, &st, err, errlen);
		if (ret)
			break;
		n->ino = st.st_ino;
		drop_unchanged_times(n, &st);
		if (n->type == DIFF_T_UNKNOWN || n->type == DIFF_T_NONDIR)
			n->type = diff_type_of_mode(st.st_mode);
		if (S_ISDIR(st.st_mode))
			continue;	/* one name each */
		if (2 * (map.n + 1) > map.cap && map_grow(&map)) {
			snprintf(err, errlen, "out of memory");
			ret = -1;
			break;
		}
		s = map_slot(&map, st.st_ino);
		if (!s->node) {
			s->ino = st.st_ino;
			s->node = n;
			map.n++;
		} else if (diff_model_merge(s->node, n)) {
			snprintf(err, errlen, "out of memory");
			ret = -1;
		}
	}
	free(map.v);
	return ret;
}
