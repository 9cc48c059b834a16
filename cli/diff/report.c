// SPDX-License-Identifier: GPL-2.0
/*
 * From the model to lines: one per path that was added (+), removed (-),
 * modified (M) or renamed (R), sorted by path, as text or JSON lines.
 *
 * For each inode of the old snapshot the stream touched, its origin (the
 * entry it had in the old snapshot) is compared with the entries naming it
 * now: none left is a removal; origin still naming it is a modification if
 * anything changed; otherwise the oldest new name is where it was renamed
 * to.  Further new names of an old inode are added hard links.  Inodes the
 * stream created are added under each of their names.  Paths are built by
 * walking up the directories, so a renamed directory shows once and its
 * children under their new paths.
 */
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "../json.h"

struct item {
	char kind;			/* '-', 'R', 'M', '+' */
	char *path;			/* new path ('-': the old one) */
	size_t len;
	char *old_path;			/* 'R' */
	const struct diff_node *node;
	bool new_link;			/* '+' of another name of an old inode */
	bool quiet;			/* the node's changes are on another line */
};

struct items {
	struct item *v;
	size_t n, cap;
};

static int add(struct items *it, char kind, const struct diff_node *n,
	       const struct diff_entry *e, bool orig,
	       const struct diff_entry *from, char *err, size_t errlen)
{
	char *path = NULL, *old_path = NULL;
	size_t len, old_len;
	struct item *x;

	if (it->n == it->cap) {
		size_t cap = it->cap ? it->cap * 2 : 64;
		struct item *v = realloc(it->v, cap * sizeof(*v));

		if (!v) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		it->v = v;
		it->cap = cap;
	}
	if (e ? diff_entry_path(e, orig, &path, &len, err, errlen) :
		!(path = strdup("/")) || !(len = 1))
		goto fail;
	if (from && diff_entry_path(from, true, &old_path, &old_len, err, errlen))
		goto fail;
	x = &it->v[it->n++];
	*x = (struct item){ .kind = kind, .path = path, .len = len,
			    .old_path = old_path, .node = n };
	return 0;
fail:
	if (!err[0])
		snprintf(err, errlen, "out of memory");
	free(path);
	free(old_path);
	return -1;
}

static bool in_origs(const struct diff_node *n, const struct diff_entry *e)
{
	for (size_t i = 0; i < n->origs.n; i++)
		if (n->origs.v[i] == e)
			return true;
	return false;
}

/*
 * The items of an inode of the old snapshot: its old names still naming
 * it are kept (the first carries the changes as M), old names gone and
 * new names made pair up as renames, in order; what is left over is
 * removed (-) or an added hard link (+).
 */
static int collect_old(struct items *it, const struct diff_node *n,
		       char *err, size_t errlen)
{
	const struct diff_entries *o = &n->origs, *l = &n->links;
	const struct diff_entry *kept = NULL;
	size_t ri = 0, ai = 0;
	bool told = false;	/* the changes are on a line already */

	for (size_t i = 0; i < o->n && !kept; i++)
		if (o->v[i]->node == n)
			kept = o->v[i];
	if (kept && n->changes) {
		if (add(it, 'M', n, kept, false, NULL, err, errlen))
			return -1;
		told = true;
	}
	/* Old names gone, new names made: renames, pairwise in order. */
	for (;;) {
		while (ri < o->n && o->v[ri]->node == n)
			ri++;
		while (ai < l->n && in_origs(n, l->v[ai]))
			ai++;
		if (ri == o->n || ai == l->n)
			break;
		if (add(it, 'R', n, l->v[ai], false, o->v[ri], err, errlen))
			return -1;
		it->v[it->n - 1].quiet = told;
		told = true;
		ri++;
		ai++;
	}
	for (; ri < o->n; ri++)
		if (o->v[ri]->node != n &&
		    add(it, '-', n, o->v[ri], true, NULL, err, errlen))
			return -1;
	for (; ai < l->n; ai++) {
		if (in_origs(n, l->v[ai]))
			continue;
		if (add(it, '+', n, l->v[ai], false, NULL, err, errlen))
			return -1;
		it->v[it->n - 1].new_link = true;
	}
	return 0;
}

/* The items of one node. */
static int collect(struct items *it, const struct diff_node *n, bool full,
		   char *err, size_t errlen)
{
	if (n->merged)
		return 0;
	if (n->root)
		return !full && n->changes ? add(it, 'M', n, NULL, false, NULL, err, errlen) : 0;
	if (n->created) {
		for (size_t i = 0; i < n->links.n; i++)
			if (add(it, '+', n, n->links.v[i], false, NULL, err, errlen))
				return -1;
		return 0;
	}
	return collect_old(it, n, err, errlen);
}

static int rank(char kind)
{
	switch (kind) {
	case '-': return 0;
	case 'R': return 1;
	case 'M': return 2;
	}
	return 3;
}

/* Tree order: '/' sorts before every other byte, so a directory's
 * children follow it directly ("/d", "/d/f", "/d-x"). */
static int by_path(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;

	for (size_t i = 0; i < n; i++) {
		int cx = x->path[i] == '/' ? 0 : (unsigned char)x->path[i] + 1;
		int cy = y->path[i] == '/' ? 0 : (unsigned char)y->path[i] + 1;

		if (cx != cy)
			return cx - cy;
	}
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return rank(x->kind) - rank(y->kind);
}

/* ---------------------------------------------------------------------- */
/* Text                                                                    */

static const char *const change_names[DIFF_NCHANGES] = {
	"data", "mode", "owner", "times", "xattrs", "flags",
};

/* The escaping of btrfs receive --dump: the separators stay unambiguous. */
static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = *s;
		const char *esc = NULL;

		switch (ch) {
		case '\a': esc = "\\a"; break;
		case '\b': esc = "\\b"; break;
		case 0x1b: esc = "\\e"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\v': esc = "\\v"; break;
		case ' ': esc = "\\ "; break;
		case '\\': esc = "\\\\"; break;
		}
		if (esc)
			fputs(esc, out);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(out, "\\%o%o%o", ch >> 6, (ch >> 3) & 7, ch & 7);
		else
			putc_unlocked(ch, out);
	}
}

static void text_item(FILE *out, const struct item *x)
{
	unsigned int ch = x->kind == '+' || x->kind == '-' || x->quiet ? 0 :
			  x->node->changes;
	const char *sep = "\t";

	putc_unlocked(x->kind, out);
	putc_unlocked('\t', out);
	if (x->old_path) {
		put_escaped(out, x->old_path);
		fputs(" -> ", out);
	}
	put_escaped(out, x->path);
	for (int i = 0; i < DIFF_NCHANGES; i++) {
		if (ch & (1u << i)) {
			fputs(sep, out);
			fputs(change_names[i], out);
			sep = ",";
		}
	}
	putc_unlocked('\n', out);
}

/* ---------------------------------------------------------------------- */
/* JSON                                                                    */

static const char *type_name(enum diff_type t)
{
	switch (t) {
	case DIFF_T_FILE: return "file";
	case DIFF_T_DIR: return "dir";
	case DIFF_T_SYMLINK: return "symlink";
	case DIFF_T_FIFO: return "fifo";
	case DIFF_T_SOCK: return "socket";
	case DIFF_T_CHR: return "chardev";
	case DIFF_T_BLK: return "blockdev";
	default: return NULL;
	}
}

static void json_item(FILE *out, const struct item *x)
{
	const struct diff_node *n = x->node;
	const char *change = x->kind == '+' ? "added" : x->kind == '-' ? "removed" :
			     x->kind == 'R' ? "renamed" : "modified";
	unsigned int ch = x->kind == '+' || x->kind == '-' || x->quiet ? 0 :
			  n->changes;
	const char *type = type_name(n->type);
	const char *sep = "";

	fprintf(out, "{\"change\":\"%s\",", change);
	json_member(out, "path", x->path, strlen(x->path));
	if (x->old_path) {
		putc_unlocked(',', out);
		json_member(out, "old_path", x->old_path, strlen(x->old_path));
	}
	if (type)
		fprintf(out, ",\"type\":\"%s\"", type);
	if (n->ino)
		fprintf(out, ",\"ino\":%llu", (unsigned long long)n->ino);
	if (x->new_link)
		fputs(",\"hardlink\":true", out);
	if (ch) {
		fputs(",\"changes\":[", out);
		for (int i = 0; i < DIFF_NCHANGES; i++) {
			if (ch & (1u << i)) {
				fprintf(out, "%s\"%s\"", sep, change_names[i]);
				sep = ",";
			}
		}
		putc_unlocked(']', out);
	}
	if (ch & DIFF_MODE)
		fprintf(out, ",\"mode\":\"%04llo\"", (unsigned long long)n->mode);
	if (ch & DIFF_OWNER)
		fprintf(out, ",\"uid\":%llu,\"gid\":%llu", (unsigned long long)n->uid,
			(unsigned long long)n->gid);
	if (ch & DIFF_XATTRS) {
		fputs(",\"xattrs\":[", out);
		for (size_t i = 0; i < n->nxattrs; i++) {
			/* An object each, so a non-UTF-8 name can be name_hex. */
			if (i)
				putc_unlocked(',', out);
			putc_unlocked('{', out);
			json_member(out, "name", n->xattrs[i], strlen(n->xattrs[i]));
			putc_unlocked('}', out);
		}
		putc_unlocked(']', out);
	}
	fputs("}\n", out);
}

int diff_report(const struct diff_model *m, FILE *out, enum diff_format fmt,
		char *err, size_t errlen)
{
	struct items it = { 0 };
	int ret = 0;

	err[0] = 0;
	for (const struct diff_node *n = diff_model_nodes(m); n; n = n->next) {
		ret = collect(&it, n, diff_model_full(m), err, errlen);
		if (ret)
			goto out;
	}
	if (it.n)
		qsort(it.v, it.n, sizeof(*it.v), by_path);
	for (size_t i = 0; i < it.n; i++) {
		if (fmt == DIFF_JSON)
			json_item(out, &it.v[i]);
		else
			text_item(out, &it.v[i]);
	}
out:
	for (size_t i = 0; i < it.n; i++) {
		free(it.v[i].path);
		free(it.v[i].old_path);
	}
	free(it.v);
	return ret;
}
