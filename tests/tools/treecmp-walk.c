// SPDX-License-Identifier: GPL-2.0
/*
 * Walking one tree (digest) or two trees side by side (compare).
 *
 * Directories are read whole and their names sorted bytewise, so entries
 * are visited in the same order in any tree and the output is stable.
 * Every system call is relative to a directory file descriptor; the
 * relative path is kept only as text for output.
 *
 * When an entry exists on one side only, its subtree is still walked on
 * that side ("lonely"), silently, so hard links into it are recorded and
 * link groups stay comparable.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "treecmp.h"
#include "treecmp-sha256.h"

struct walk {
	const struct tc_opts *o;
	unsigned int want;	/* fields to read and compare */
	int nr_trees;		/* 1: digest, 2: compare */
	struct tc_tree tree[2];
	struct tc_buf path;	/* relative path of the current entry */
	bool differ;
	bool stop;		/* quiet compare found a difference */
	struct sha256 sha;	/* digest of all --list lines */
	struct tc_buf line;
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int read_names(struct walk *w, int side, int fd, char ***names,
		      size_t *nr)
{
	size_t cap = 0;
	struct dirent *de;
	DIR *dir;
	int dfd;

	*names = NULL;
	*nr = 0;
	dfd = dup(fd);
	dir = dfd < 0 ? NULL : fdopendir(dfd);
	if (!dir) {
		tc_error(&w->tree[side], w->path.p, "read directory", errno);
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de)
			break;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (*nr == cap) {
			cap = cap ? cap * 2 : 64;
			*names = tc_xrealloc(*names, cap * sizeof(**names));
		}
		(*names)[(*nr)++] = tc_xstrdup(de->d_name);
	}
	if (errno) {
		tc_error(&w->tree[side], w->path.p, "read directory", errno);
		closedir(dir);
		return -1;
	}
	closedir(dir);
	qsort(*names, *nr, sizeof(**names), cmp_names);
	return 0;
}

static void free_names(char **names, size_t nr)
{
	while (nr)
		free(names[--nr]);
	free(names);
}

/* Print "PATH: LABEL: V1 != V2" and remember that the trees differ. */
static void report(struct walk *w, const char *label, const char *v1,
		   const char *v2)
{
	struct tc_buf p = { 0 };

	w->differ = true;
	if (w->o->quiet) {
		w->stop = true;
		return;
	}
	tc_buf_add_quoted(&p, w->path.p, w->path.len, false);
	printf("%s: %s: %s != %s\n", p.p, label, v1, v2);
	tc_buf_free(&p);
}

static void field_text(struct tc_buf *b, const struct tc_entry *e,
		       const char *path, enum tc_field f, bool strict)
{
	tc_buf_truncate(b, 0);
	if (tc_field_applies(e, f))
		tc_entry_format(b, e, path, f, strict);
	else
		tc_buf_addstr(b, "(none)");
}

static void compare_xattrs(struct walk *w, const struct tc_entry e[2])
{
	struct tc_buf label = { 0 }, v1 = { 0 }, v2 = { 0 };
	size_t i = 0, j = 0;

	while (!w->stop && (i < e[0].nr_xattrs || j < e[1].nr_xattrs)) {
		const struct tc_xattr *x = &e[0].xattrs[i];
		const struct tc_xattr *y = &e[1].xattrs[j];
		int c = i == e[0].nr_xattrs ? 1 : j == e[1].nr_xattrs ? -1 :
			strcmp(x->name, y->name);

		tc_buf_truncate(&label, 0);
		tc_buf_truncate(&v1, 0);
		tc_buf_truncate(&v2, 0);
		tc_buf_addstr(&label, "xattr ");
		tc_buf_add_quoted(&label, c > 0 ? y->name : x->name,
				  strlen(c > 0 ? y->name : x->name), false);
		if (c <= 0)
			tc_xattr_format(&v1, x, false, false);
		else
			tc_buf_addstr(&v1, "(none)");
		if (c >= 0)
			tc_xattr_format(&v2, y, false, false);
		else
			tc_buf_addstr(&v2, "(none)");
		if (c || x->size != y->size ||
		    (x->size && memcmp(x->value, y->value, x->size)))
			report(w, label.p, v1.p, v2.p);
		i += c <= 0;
		j += c >= 0;
	}
	tc_buf_free(&label);
	tc_buf_free(&v1);
	tc_buf_free(&v2);
}

static int compare_data(struct walk *w, const struct tc_entry e[2])
{
	bool reg0 = S_ISREG(e[0].st.st_mode), reg1 = S_ISREG(e[1].st.st_mode);
	struct tc_data_diff d;
	char label[64], v1[8], v2[8];
	int ret, side = 0;

	if (!reg0 || !reg1) {
		report(w, "data", reg0 ? "(content)" : "(none)",
		       reg1 ? "(content)" : "(none)");
		return 0;
	}
	/* A size difference was reported already and implies this one. */
	if (!(w->o->ignore & TC_BIT(TC_SIZE)) &&
	    e[0].st.st_size != e[1].st.st_size)
		return 0;
	ret = tc_data_compare(e[0].fd, e[0].st.st_size, e[1].fd,
			      e[1].st.st_size, &d, &side);
	if (ret < 0) {
		tc_error(&w->tree[side], w->path.p, "read", -ret);
		return -1;
	}
	if (ret) {
		snprintf(label, sizeof(label), "data: differs at offset %lld",
			 (long long)d.offset);
		snprintf(v1, sizeof(v1), "0x%02x", d.byte1);
		snprintf(v2, sizeof(v2), "0x%02x", d.byte2);
		report(w, label, v1, v2);
	}
	return 0;
}

static int compare_entries(struct walk *w, const struct tc_entry e[2])
{
	bool type_differs = (e[0].st.st_mode & S_IFMT) !=
			    (e[1].st.st_mode & S_IFMT);
	bool explained = type_differs && (w->want & TC_BIT(TC_TYPE));
	struct tc_buf a = { 0 }, b = { 0 };
	int f, ret = 0;

	for (f = 0; f < TC_NR_FIELDS && !w->stop; f++) {
		bool a0 = tc_field_applies(&e[0], f);
		bool a1 = tc_field_applies(&e[1], f);

		if (!(w->want & TC_BIT(f)) || (!a0 && !a1))
			continue;
		/* Fields that only one type has are explained by the type. */
		if (explained && (!a0 || !a1))
			continue;
		if (f == TC_XATTR) {
			compare_xattrs(w, e);
			continue;
		}
		if (f == TC_DATA) {
			ret = compare_data(w, e);
			if (ret)
				break;
			continue;
		}
		field_text(&a, &e[0], w->path.p, f, true);
		field_text(&b, &e[1], w->path.p, f, true);
		if (a.len == b.len && !memcmp(a.p, b.p, a.len))
			continue;
		field_text(&a, &e[0], w->path.p, f, false);
		field_text(&b, &e[1], w->path.p, f, false);
		report(w, tc_fields[f].name, a.p, b.p);
	}
	tc_buf_free(&a);
	tc_buf_free(&b);
	return ret;
}

static void report_missing(struct walk *w, const struct tc_entry e[2],
			   const bool has[2])
{
	struct tc_buf a = { 0 }, b = { 0 };

	if (has[0])
		tc_entry_format(&a, &e[0], w->path.p, TC_TYPE, false);
	else
		tc_buf_addstr(&a, "(none)");
	if (has[1])
		tc_entry_format(&b, &e[1], w->path.p, TC_TYPE, false);
	else
		tc_buf_addstr(&b, "(none)");
	report(w, "entry", a.p, b.p);
	tc_buf_free(&a);
	tc_buf_free(&b);
}

/* Add the entry's --list line to the digest, and print it if asked. */
static int digest_entry(struct walk *w, const struct tc_entry *e)
{
	struct tc_buf *l = &w->line;
	int f, ret;

	tc_buf_truncate(l, 0);
	tc_buf_add_quoted(l, w->path.p, w->path.len, true);
	for (f = 0; f < TC_NR_FIELDS; f++) {
		char hex[65];

		if (!(w->want & TC_BIT(f)) || !tc_field_applies(e, f))
			continue;
		tc_buf_addf(l, " %s=", tc_fields[f].name);
		if (f != TC_DATA) {
			tc_entry_format(l, e, w->path.p, f, true);
			continue;
		}
		ret = tc_data_digest(e->fd, e->st.st_size, hex);
		if (ret) {
			tc_error(&w->tree[0], w->path.p, "read", -ret);
			return -1;
		}
		tc_buf_addstr(l, hex);
	}
	tc_buf_addstr(l, "\n");
	if (w->o->list)
		fwrite(l->p, 1, l->len, stdout);
	sha256_update(&w->sha, l->p, l->len);
	return 0;
}

static int walk_dir(struct walk *w, const int fd[2], bool lonely);

/*
 * Visit @name in the directories @fd (sides where @has is false lack it):
 * read, compare or digest, then descend.  w->path is its relative path.
 */
static int visit(struct walk *w, const int fd[2], const bool has[2],
		 const char *name, bool lonely)
{
	unsigned int want = lonely ? w->want & TC_BIT(TC_LINKS) : w->want;
	struct tc_entry e[2];
	int s, ret = 0, sub[2] = { -1, -1 };

	for (s = 0; s < 2; s++) {
		e[s].fd = -1;
		e[s].xattrs = NULL;
		e[s].nr_xattrs = 0;
		e[s].target = NULL;
	}
	for (s = 0; s < w->nr_trees; s++) {
		if (has[s] && tc_entry_read(&e[s], &w->tree[s], fd[s], name,
					    w->path.p, want)) {
			ret = -1;
			goto out;
		}
	}
	if (lonely)
		;
	else if (w->nr_trees == 1)
		ret = digest_entry(w, &e[0]);
	else if (has[0] && has[1])
		ret = compare_entries(w, e);
	else
		report_missing(w, e, has);
	if (ret || w->stop)
		goto out;

	/* Keep only the directory descriptors while descending. */
	for (s = 0; s < w->nr_trees; s++) {
		if (has[s] && S_ISDIR(e[s].st.st_mode)) {
			sub[s] = e[s].fd;
			e[s].fd = -1;
		}
		if (has[s])
			tc_entry_release(&e[s]);
	}
	if (w->nr_trees == 2 && (sub[0] < 0 || sub[1] < 0))
		lonely = true;
	if ((sub[0] >= 0 || sub[1] >= 0) &&
	    !(lonely && !(w->want & TC_BIT(TC_LINKS))))
		ret = walk_dir(w, sub, lonely);
	for (s = 0; s < 2; s++)
		if (sub[s] >= 0)
			close(sub[s]);
	return ret;
out:
	for (s = 0; s < w->nr_trees; s++)
		if (has[s])
			tc_entry_release(&e[s]);
	return ret;
}

static int walk_dir(struct walk *w, const int fd[2], bool lonely)
{
	char **names[2] = { NULL, NULL };
	size_t nr[2] = { 0, 0 }, i[2] = { 0, 0 }, base;
	bool top = !strcmp(w->path.p, ".");
	int s, ret = 0;

	for (s = 0; s < 2; s++) {
		if (fd[s] >= 0 && read_names(w, s, fd[s], &names[s], &nr[s])) {
			ret = -1;
			goto out;
		}
	}
	if (top)
		tc_buf_truncate(&w->path, 0);
	base = w->path.len;
	while (!ret && !w->stop && (i[0] < nr[0] || i[1] < nr[1])) {
		int c = i[0] == nr[0] ? 1 : i[1] == nr[1] ? -1 :
			strcmp(names[0][i[0]], names[1][i[1]]);
		bool has[2] = { c <= 0, c >= 0 };
		const char *name = has[0] ? names[0][i[0]] : names[1][i[1]];

		if (base)
			tc_buf_addstr(&w->path, "/");
		tc_buf_addstr(&w->path, name);
		ret = visit(w, fd, has, name, lonely);
		tc_buf_truncate(&w->path, base);
		i[0] += has[0];
		i[1] += has[1];
	}
	if (top)
		tc_buf_addstr(&w->path, ".");
out:
	for (s = 0; s < 2; s++)
		free_names(names[s], nr[s]);
	return ret;
}

static int open_root(struct tc_tree *t)
{
	int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
	int fd = open(t->root, flags | O_NOATIME);

	if (fd < 0 && errno == EPERM)
		fd = open(t->root, flags);
	if (fd < 0)
		tc_error(t, NULL, "open", errno);
	return fd;
}

/* Walk the trees from their roots; the root itself is the entry ".". */
static int walk_roots(struct walk *w)
{
	int fd[2] = { -1, -1 }, s, ret = 0;
	const bool has[2] = { true, true };

	for (s = 0; s < w->nr_trees && !ret; s++) {
		fd[s] = open_root(&w->tree[s]);
		if (fd[s] < 0)
			ret = -1;
	}
	if (!ret) {
		tc_buf_addstr(&w->path, ".");
		ret = visit(w, fd, has, ".", false);
	}
	for (s = 0; s < 2; s++) {
		if (fd[s] >= 0)
			close(fd[s]);
		tc_links_free(&w->tree[s].links);
	}
	tc_buf_free(&w->path);
	tc_buf_free(&w->line);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "treecmp: cannot write output: %s\n",
			strerror(errno));
		ret = -1;
	}
	return ret;
}

int tc_compare(const char *dir1, const char *dir2, const struct tc_opts *o)
{
	struct walk w = {
		.o = o,
		.want = TC_ALL_FIELDS & ~o->ignore,
		.nr_trees = 2,
		.tree = { { .root = dir1 }, { .root = dir2 } },
	};

	if (walk_roots(&w))
		return 2;
	return w.differ ? 1 : 0;
}

int tc_digest(const char *dir, const struct tc_opts *o)
{
	struct walk w = {
		.o = o,
		.want = TC_ALL_FIELDS & ~o->ignore,
		.nr_trees = 1,
		.tree = { { .root = dir } },
	};
	unsigned char md[SHA256_DIGEST_SIZE];
	char hex[65];

	sha256_init(&w.sha);
	if (walk_roots(&w))
		return 2;
	sha256_final(&w.sha, md);
	sha256_hex(md, hex);
	printf("%s\n", hex);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "treecmp: cannot write output: %s\n",
			strerror(errno));
		return 2;
	}
	return 0;
}
