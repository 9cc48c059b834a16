// SPDX-License-Identifier: GPL-2.0
/*
 * ls: the tree of the model, depth first with each directory's names in
 * byte order, one line per name like `tar tv` (type and permissions,
 * uid/gid, size or device numbers, mtime, path), or one JSON object per
 * line.  Owners are numbers: names would be this machine's, not the
 * sender's.  A name of an inode met before says which name it shares
 * the inode with ("link to"), as tar does.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include "archive.h"
#include "../json.h"

struct frame {
	struct ar_dirent **v;
	uint64_t n, i;
};

struct lister {
	struct ar *a;
	FILE *out;
	bool json;
	char *path, *path2;
	size_t cap, cap2;
	struct ar_inode **marked;
	size_t nmarked, capmarked;
};

static char type_char(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return 'd';
	case S_IFLNK: return 'l';
	case S_IFCHR: return 'c';
	case S_IFBLK: return 'b';
	case S_IFIFO: return 'p';
	case S_IFSOCK: return 's';
	default: return '-';
	}
}

static const char *type_name(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return "dir";
	case S_IFLNK: return "symlink";
	case S_IFCHR: return "chardev";
	case S_IFBLK: return "blockdev";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	default: return "file";
	}
}

static void mode_string(uint32_t mode, char s[11])
{
	static const char rwx[] = "rwxrwxrwx";

	s[0] = type_char(mode);
	for (int i = 0; i < 9; i++)
		s[1 + i] = mode & (0400 >> i) ? rwx[i] : '-';
	if (mode & S_ISUID)
		s[3] = mode & 0100 ? 's' : 'S';
	if (mode & S_ISGID)
		s[6] = mode & 0010 ? 's' : 'S';
	if (mode & S_ISVTX)
		s[9] = mode & 0001 ? 't' : 'T';
	s[10] = 0;
}

/* Bytes outside printable ASCII, and backslash, as \ooo: one entry, one line. */
static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '\\')
			fputs("\\\\", out);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(out, "\\%03o", ch);
		else
			putc_unlocked(ch, out);
	}
}

static void print_text(struct lister *l, const struct ar_inode *ino, const char *path,
		       const char *link_to)
{
	char mode[11], owner[32], size[48], when[32];
	time_t t = (time_t)ino->mtime_sec;
	struct tm tm;

	mode_string(ino->mode, mode);
	snprintf(owner, sizeof(owner), "%" PRIu32 "/%" PRIu32, ino->uid, ino->gid);
	if (S_ISCHR(ino->mode) || S_ISBLK(ino->mode))
		snprintf(size, sizeof(size), "%u,%u", major(ino->rdev), minor(ino->rdev));
	else
		snprintf(size, sizeof(size), "%" PRIu64, S_ISDIR(ino->mode) ? 0 : ino->size);
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	else
		snprintf(when, sizeof(when), "%" PRId64, ino->mtime_sec);
	fprintf(l->out, "%s %-11s %12s %s ", mode, owner, size, when);
	put_escaped(l->out, path);
	if (link_to) {
		fputs(" link to ", l->out);
		put_escaped(l->out, link_to);
	} else if (S_ISLNK(ino->mode)) {
		fputs(" -> ", l->out);
		put_escaped(l->out, ino->u.target);
	}
	putc_unlocked('\n', l->out);
}

static void print_json(struct lister *l, const struct ar_inode *ino, const char *path,
		       const char *link_to)
{
	FILE *out = l->out;

	putc_unlocked('{', out);
	json_member(out, "path", path, strlen(path));
	fprintf(out, ",\"type\":\"%s\",\"mode\":\"%04o\",\"uid\":%" PRIu32 ",\"gid\":%" PRIu32,
		type_name(ino->mode), ino->mode & 07777, ino->uid, ino->gid);
	if (S_ISREG(ino->mode) || S_ISLNK(ino->mode))
		fprintf(out, ",\"size\":%" PRIu64, ino->size);
	if (S_ISCHR(ino->mode) || S_ISBLK(ino->mode))
		fprintf(out, ",\"rdev\":{\"major\":%u,\"minor\":%u}",
			major(ino->rdev), minor(ino->rdev));
	fprintf(out, ",\"nlink\":%" PRIu32 ",\"mtime\":{\"sec\":%" PRId64 ",\"nsec\":%" PRIu32 "}"
		",\"atime\":{\"sec\":%" PRId64 ",\"nsec\":%" PRIu32 "}",
		S_ISDIR(ino->mode) ? 1 : ino->nlink, ino->mtime_sec, ino->mtime_nsec,
		ino->atime_sec, ino->atime_nsec);
	if (S_ISLNK(ino->mode)) {
		putc_unlocked(',', out);
		json_member(out, "target", ino->u.target, strlen(ino->u.target));
	}
	if (link_to) {
		putc_unlocked(',', out);
		json_member(out, "link_to", link_to, strlen(link_to));
	}
	if (ino->fileattr)
		fprintf(out, ",\"fileattr\":%" PRIu64, ino->fileattr);
	if (ino->xattrs) {
		fputs(",\"xattrs\":[", out);
		for (const struct ar_xattr *x = ino->xattrs; x; x = x->next) {
			putc_unlocked('{', out);
			json_member(out, "name", x->name, x->nlen);
			fputs(",\"value_hex\":", out);
			json_hex(out, x->value, x->vlen);
			fputs(x->next ? "}," : "}", out);
		}
		putc_unlocked(']', out);
	}
	fputs("}\n", out);
}

/* One name: remember the first name of an inode with several. */
static int entry(struct lister *l, const struct ar_dirent *e, struct ar_inode *ino)
{
	const char *link_to = NULL;
	const char *path = ".";

	if (e) {
		if (ar_path_of(e, &l->path, &l->cap) < 0)
			return -1;
		path = l->path;
	}
	if (!S_ISDIR(ino->mode) && ino->nlink > 1) {
		if (ino->flags & AR_I_SEEN) {
			link_to = ino->mark;
		} else {
			if (l->nmarked == l->capmarked) {
				size_t cap = l->capmarked ? l->capmarked * 2 : 64;
				struct ar_inode **v = realloc(l->marked, cap * sizeof(*v));

				if (!v)
					return -1;
				l->marked = v;
				l->capmarked = cap;
			}
			ino->mark = strdup(path);
			if (!ino->mark)
				return -1;
			ino->flags |= AR_I_SEEN;
			l->marked[l->nmarked++] = ino;
		}
	}
	if (l->json)
		print_json(l, ino, path, link_to);
	else
		print_text(l, ino, path, link_to);
	return 0;
}

static int walk(struct lister *l)
{
	struct frame *st = NULL;
	size_t depth = 0, cap = 0;
	struct ar_inode *root = ar_model_root(l->a->model);
	int ret = -1;
	bool nomem;

	if (entry(l, NULL, root))
		return -1;
	for (struct ar_inode *dir = root;;) {
		if (dir) {
			if (depth == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				struct frame *n = realloc(st, ncap * sizeof(*n));

				if (!n)
					goto out;
				st = n;
				cap = ncap;
			}
			st[depth].v = ar_sorted_children(dir, &st[depth].n, &nomem);
			st[depth].i = 0;
			if (nomem)
				goto out;
			depth++;
			dir = NULL;
		}
		if (!depth)
			break;
		if (st[depth - 1].i == st[depth - 1].n) {
			free(st[--depth].v);
			continue;
		}
		struct ar_dirent *e = st[depth - 1].v[st[depth - 1].i++];

		if (entry(l, e, e->ino))
			goto out;
		if (S_ISDIR(e->ino->mode))
			dir = e->ino;
	}
	ret = 0;
out:
	while (depth)
		free(st[--depth].v);
	free(st);
	return ret;
}

int ar_list(struct ar *a, FILE *out, bool json)
{
	struct lister l = { .a = a, .out = out, .json = json };
	int ret = walk(&l);

	if (ret)
		snprintf(a->err, sizeof(a->err), "out of memory");
	for (size_t i = 0; i < l.nmarked; i++) {
		free(l.marked[i]->mark);
		l.marked[i]->mark = NULL;
		l.marked[i]->flags &= ~AR_I_SEEN;
	}
	free(l.marked);
	free(l.path);
	free(l.path2);
	return ret;
}
