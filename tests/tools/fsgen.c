/*
 * fsgen: a deterministic, seeded generator of filesystem trees and of
 * operations on them, for randomized differential testing of incremental
 * send (tests/vm/guest/send-random.sh, docs/incremental-tests.md).
 *
 *   fsgen [--orphans] --seed N --populate DIR [--entries K]
 *   fsgen [--orphans] --seed N --mutate DIR [--ops K] [-v]
 *   fsgen --seed N --orphan-snapshot DIR
 *   ... --pause FILE ...
 *
 * Options act in order: each --populate or --mutate runs at once with the
 * last --seed, --entries and --ops given before it, so one process can
 * serve many seeds (`--seed 1 --mutate d1 --seed 2 --mutate d2`), which
 * saves a process start per seed in the VM.
 *
 * --orphans adds inodes without links: files, directories and symlinks
 * that lose their last name while fsgen holds them open, new files that
 * never get one.  They stay open until fsgen exits; later mutations of the
 * same tree write to them, clone from them and close some.  A snapshot
 * does not keep them (creating it removes the orphans it copied), so
 * --orphan-snapshot DIR makes orphans in a snapshot made writable for the
 * time: a few entries of DIR, some at the paths the seed's previous
 * --orphan-snapshot took (the same inode then has no links in both
 * snapshots, if it kept its name in between).  --pause FILE creates
 * FILE.ready and waits for FILE.go, all orphans still open: the caller
 * snapshots, or sends, in between.
 *
 * The same seed on the same starting tree performs the same operations:
 * the generator has its own PRNG (splitmix64), lists directories sorted
 * by name (never in readdir order) and takes no input from the clock,
 * inode numbers or the environment.  An operation that the kernel refuses
 * (a rename of a directory into itself, a rename over a non-empty
 * directory, a clone of overlapping ranges...) fails the same way every
 * time, is counted and skipped.  -v prints every operation and its result.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEPTH 6
#define BLOCK 4096

/* --- PRNG ------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* rnd(n): uniform in [0, n) for the small n used here. */
static uint64_t rnd(uint64_t n)
{
	return n ? rnd64() % n : 0;
}

static int chance(int percent)
{
	return (int)rnd(100) < percent;
}

/* --- the tree as a sorted list of entries ---------------------------------- */

struct entry {
	char *path;	/* relative to the root, "" for the root */
	mode_t mode;
	off_t size;
	int depth;
};

static struct entry *ents;
static size_t n_ents, cap_ents;
static int root_fd;
static int verbose;

static void add_entry(const char *path, const struct stat *st, int depth)
{
	if (n_ents == cap_ents) {
		cap_ents = cap_ents ? cap_ents * 2 : 256;
		ents = realloc(ents, cap_ents * sizeof(*ents));
		if (!ents) {
			perror("fsgen: realloc");
			exit(2);
		}
	}
	ents[n_ents].path = strdup(path);
	ents[n_ents].mode = st->st_mode;
	ents[n_ents].size = st->st_size;
	ents[n_ents].depth = depth;
	n_ents++;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s%s%s", dir, *dir ? "/" : "", name) < 0) {
		perror("fsgen: asprintf");
		exit(2);
	}
	return p;
}

/* scan_dir: add DIR's entries, sorted by name, then descend. */
static void scan_dir(const char *dir, int depth)
{
	/* not dup(root_fd): a duplicate shares the directory offset */
	int fd = openat(root_fd, *dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		fprintf(stderr, "fsgen: cannot open '%s': %s\n", dir, strerror(errno));
		exit(2);
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			names = realloc(names, cap * sizeof(*names));
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char *p = join(dir, names[i]);
		struct stat st;

		if (fstatat(root_fd, p, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			add_entry(p, &st, depth + 1);
			if (S_ISDIR(st.st_mode))
				scan_dir(p, depth + 1);
		}
		free(p);
		free(names[i]);
	}
	free(names);
}

static void scan(void)
{
	struct stat st;

	for (size_t i = 0; i < n_ents; i++)
		free(ents[i].path);
	n_ents = 0;
	fstat(root_fd, &st);
	add_entry("", &st, 0);
	scan_dir("", 0);
}

/* pick: a random entry matching the filter, or NULL. */
enum pick { ANY, ANY_BUT_ROOT, DIRS, DIRS_BUT_ROOT, FILES };

static int matches(const struct entry *e, enum pick what)
{
	switch (what) {
	case ANY: return 1;
	case ANY_BUT_ROOT: return *e->path != 0;
	case DIRS: return S_ISDIR(e->mode);
	case DIRS_BUT_ROOT: return S_ISDIR(e->mode) && *e->path;
	case FILES: return S_ISREG(e->mode);
	}
	return 0;
}

static struct entry *pick(enum pick what)
{
	size_t n = 0, k;

	for (size_t i = 0; i < n_ents; i++)
		n += matches(&ents[i], what);
	if (!n)
		return NULL;
	k = rnd(n);
	for (size_t i = 0; i < n_ents; i++)
		if (matches(&ents[i], what) && k-- == 0)
			return &ents[i];
	return NULL;
}

/* --- names and data -------------------------------------------------------- */

/* new_name: mostly from a small pool, so that names collide and renames
 * land on existing names; sometimes long or with odd bytes. */
static char *new_name(void)
{
	static const char *odd[] = { "sp ace", "new\nline", "\xc3\xa9t\xc3\xa9", "-dash", "x\x01y" };
	char buf[256];
	int r = (int)rnd(100);

	if (r < 80) {
		snprintf(buf, sizeof(buf), "%c%s", 'a' + (int)rnd(16), chance(30) ? "x" : "");
	} else if (r < 95) {
		snprintf(buf, sizeof(buf), "n%llu", (unsigned long long)rnd(1000));
	} else if (r < 98) {
		size_t len = 100 + rnd(155);

		memset(buf, 'L', len);
		buf[len] = 0;
	} else {
		snprintf(buf, sizeof(buf), "%s", odd[rnd(5)]);
	}
	return strdup(buf);
}

static char *path_in(const struct entry *dir)
{
	char *name = new_name(), *p = join(dir->path, name);

	free(name);
	return p;
}

/* fill: LEN bytes, random or compressible, from the PRNG. */
static void fill(char *buf, size_t len)
{
	if (chance(30)) {
		char c = 'a' + (char)rnd(26);

		for (size_t i = 0; i < len; i++)
			buf[i] = (i % 61) ? c : '\n';
		return;
	}
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = rnd64();

		memcpy(buf + i, &v, len - i < 8 ? len - i : 8);
	}
}

static size_t data_len(void)
{
	int r = (int)rnd(100);

	if (r < 40)
		return rnd(3000);		/* inline-sized */
	if (r < 85)
		return 1 + rnd(64 * 1024);
	return 1 + rnd(512 * 1024);		/* some large */
}

static int write_at(const char *path, off_t off, size_t len)
{
	char *buf = malloc(len + 8);
	int fd = openat(root_fd, path, O_WRONLY | O_NOFOLLOW);
	int ret = -1;

	if (fd >= 0) {
		fill(buf, len);
		ret = pwrite(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
		close(fd);
	}
	free(buf);
	return ret;
}

/* --- operations ---------------------------------------------------------- */

static unsigned long n_done, n_failed;

/* what an operation returns when the entries it picked do not suit it */
#define NOT_APPLICABLE 1

static void report(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static int result(int ret)
{
	if (ret) {
		n_failed++;
		report(" -> %s\n", strerror(errno));
	} else {
		n_done++;
		report("\n");
	}
	return ret;
}

static struct entry *pick_dir_for_new(void)
{
	struct entry *d = pick(DIRS);

	return d && d->depth < MAX_DEPTH ? d : &ents[0];
}

static int op_create(void)
{
	struct entry *d = pick_dir_for_new();
	char *p = path_in(d);
	int r = (int)rnd(100), ret;

	report("create %s", p);
	if (r < 55) {
		int fd = openat(root_fd, p, O_WRONLY | O_CREAT | O_EXCL, 0644);

		ret = fd < 0 ? -1 : 0;
		if (fd >= 0) {
			close(fd);
			ret = write_at(p, chance(10) ? (off_t)rnd(1 << 20) : 0, data_len());
		}
	} else if (r < 80) {
		ret = mkdirat(root_fd, p, 0755);
	} else if (r < 92) {
		char *t = new_name();

		ret = symlinkat(t, root_fd, p);
		free(t);
	} else if (r < 96) {
		ret = mknodat(root_fd, p, S_IFIFO | 0644, 0);
	} else if (r < 98) {
		ret = mknodat(root_fd, p, S_IFCHR | 0600, makedev(1, 3 + rnd(4)));
	} else {
		ret = mknodat(root_fd, p, S_IFSOCK | 0755, 0);
	}
	free(p);
	return result(ret);
}

static int op_unlink(void)
{
	struct entry *e = pick(ANY_BUT_ROOT);

	if (!e || S_ISDIR(e->mode))
		return NOT_APPLICABLE;
	report("unlink %s", e->path);
	return result(unlinkat(root_fd, e->path, 0));
}

/* remove_tree: rm -r below the root descriptor, children first. */
static int remove_tree(const char *path)
{
	struct stat st;
	size_t len = strlen(path);
	int ret = 0;

	if (fstatat(root_fd, path, &st, AT_SYMLINK_NOFOLLOW))
		return -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(root_fd, path, 0);
	/* entries are sorted, so the subtree follows its directory */
	for (size_t i = 0; i < n_ents; i++) {
		const char *p = ents[n_ents - 1 - i].path;

		if (!strncmp(p, path, len) && p[len] == '/' && !S_ISDIR(ents[n_ents - 1 - i].mode))
			ret |= unlinkat(root_fd, p, 0);
	}
	for (size_t i = 0; i < n_ents; i++) {
		const char *p = ents[n_ents - 1 - i].path;

		if (!strncmp(p, path, len) && p[len] == '/' && S_ISDIR(ents[n_ents - 1 - i].mode))
			ret |= unlinkat(root_fd, p, AT_REMOVEDIR);
	}
	return ret | unlinkat(root_fd, path, AT_REMOVEDIR);
}

static int op_rmdir(void)
{
	struct entry *d = pick(DIRS_BUT_ROOT);

	if (!d)
		return NOT_APPLICABLE;
	if (chance(50)) {
		report("rmdir %s", d->path);
		return result(unlinkat(root_fd, d->path, AT_REMOVEDIR));
	}
	report("rm -r %s", d->path);
	return result(remove_tree(d->path));
}

/* sibling: a new name in PATH's directory. */
static char *sibling(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = strndup(path, slash ? (size_t)(slash - path) : 0), *name = new_name();
	char *p = join(dir, name);

	free(dir);
	free(name);
	return p;
}

/* op_rename: over an existing name (any type: the kernel refuses what
 * rename(2) refuses), into another directory, or within the same one;
 * sometimes as RENAME_EXCHANGE. */
static int op_rename(void)
{
	struct entry *e = pick(ANY_BUT_ROOT), *t;
	char *to;
	int ret;

	if (!e)
		return NOT_APPLICABLE;
	if (chance(35) && (t = pick(ANY_BUT_ROOT)))
		to = strdup(t->path);
	else if (chance(50))
		to = path_in(pick(DIRS));
	else
		to = sibling(e->path);
	if (chance(15)) {
		report("exchange %s %s", e->path, to);
		ret = renameat2(root_fd, e->path, root_fd, to, RENAME_EXCHANGE);
	} else {
		report("rename %s %s", e->path, to);
		ret = renameat(root_fd, e->path, root_fd, to);
	}
	free(to);
	return result(ret);
}

static int op_link(void)
{
	struct entry *f = pick(ANY_BUT_ROOT);
	char *to;
	int ret;

	if (!f || S_ISDIR(f->mode))
		return NOT_APPLICABLE;
	to = path_in(pick_dir_for_new());
	report("link %s %s", f->path, to);
	ret = linkat(root_fd, f->path, root_fd, to, 0);
	free(to);
	return result(ret);
}

static int op_write(void)
{
	struct entry *f = pick(FILES);
	off_t off;
	size_t len;

	if (!f)
		return NOT_APPLICABLE;
	len = data_len();
	switch (rnd(4)) {
	case 0: off = f->size; break;					/* append */
	case 1: off = f->size ? (off_t)rnd(f->size) : 0; break;		/* overwrite */
	case 2: off = (off_t)rnd((f->size + BLOCK) / BLOCK + 1) * BLOCK; break;
	default: off = f->size + (off_t)rnd(1 << 20); break;		/* leave a hole */
	}
	report("write %s %lld %zu", f->path, (long long)off, len);
	return result(write_at(f->path, off, len));
}

static int with_fd(const char *path, int flags)
{
	return openat(root_fd, path, flags | O_NOFOLLOW);
}

static int op_truncate(void)
{
	struct entry *f = pick(FILES);
	off_t to;
	int fd, ret;

	if (!f)
		return NOT_APPLICABLE;
	to = chance(60) && f->size ? (off_t)rnd(f->size) : f->size + (off_t)rnd(2 << 20);
	if (chance(30))
		to -= to % BLOCK;
	report("truncate %s %lld", f->path, (long long)to);
	fd = with_fd(f->path, O_WRONLY);
	if (fd < 0)
		return result(-1);
	ret = ftruncate(fd, to);
	close(fd);
	return result(ret);
}

static int op_punch(void)
{
	struct entry *f = pick(FILES);
	off_t off, len;
	int fd, ret;

	if (!f || !f->size)
		return NOT_APPLICABLE;
	off = (off_t)rnd(f->size);
	len = 1 + (off_t)rnd(f->size - off + BLOCK);
	if (chance(50)) {
		off -= off % BLOCK;
		len = (len + BLOCK - 1) / BLOCK * BLOCK;
	}
	report("punch %s %lld %lld", f->path, (long long)off, (long long)len);
	fd = with_fd(f->path, O_WRONLY);
	if (fd < 0)
		return result(-1);
	ret = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len);
	close(fd);
	return result(ret);
}

/* op_reflink: FICLONERANGE of 4 KiB-aligned ranges; a length of 0 clones
 * to the source's end, which may be unaligned. */
static int op_reflink(void)
{
	struct entry *s = pick(FILES), *d = pick(FILES);
	struct file_clone_range r;
	int sfd, dfd, ret;

	if (!s || !d || s->size < BLOCK)
		return NOT_APPLICABLE;
	r.src_offset = rnd(s->size / BLOCK) * BLOCK;
	r.src_length = chance(25) ? 0 : (1 + rnd((s->size - r.src_offset) / BLOCK)) * BLOCK;
	if (r.src_length && r.src_offset + r.src_length > (uint64_t)s->size)
		r.src_length = 0;
	r.dest_offset = rnd((d->size + 4 * BLOCK) / BLOCK) * BLOCK;
	report("reflink %s %llu %llu %s %llu", s->path, (unsigned long long)r.src_offset,
	       (unsigned long long)r.src_length, d->path, (unsigned long long)r.dest_offset);
	sfd = with_fd(s->path, O_RDONLY);
	dfd = with_fd(d->path, O_WRONLY);
	r.src_fd = sfd;
	ret = sfd < 0 || dfd < 0 ? -1 : ioctl(dfd, FICLONERANGE, &r);
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	return result(ret);
}

/* xattrs go on files and directories only: user.* is not allowed on
 * symlinks and special files. */
static int op_xattr(void)
{
	struct entry *e = pick(ANY);
	char name[32], val[2048];
	size_t len;
	int fd, ret;

	if (!e || !(S_ISREG(e->mode) || S_ISDIR(e->mode)))
		return NOT_APPLICABLE;
	snprintf(name, sizeof(name), "user.%c", 'a' + (int)rnd(6));
	fd = *e->path ? with_fd(e->path, O_RDONLY) : dup(root_fd);
	if (fd < 0)
		return result(-1);
	if (chance(30)) {
		report("removexattr %s %s", e->path, name);
		ret = fremovexattr(fd, name);
	} else {
		len = chance(10) ? rnd(sizeof(val)) : rnd(40);
		fill(val, len);
		report("setxattr %s %s %zu", e->path, name, len);
		ret = fsetxattr(fd, name, val, len, 0);
	}
	close(fd);
	return result(ret);
}

static int op_chmod(void)
{
	static const mode_t modes[] = { 0644, 0600, 0755, 0700, 04755, 02755, 06711, 01777, 0444, 0640 };
	struct entry *e = pick(ANY);
	mode_t m = modes[rnd(10)];

	if (!e || S_ISLNK(e->mode))
		return NOT_APPLICABLE;
	report("chmod %s %o", e->path, m);
	return result(fchmodat(root_fd, *e->path ? e->path : ".", m, 0));
}

static int op_chown(void)
{
	static const uid_t ids[] = { 0, 1000, 1001, 65534 };
	struct entry *e = pick(ANY);
	uid_t u = ids[rnd(4)];
	gid_t g = ids[rnd(4)];

	if (!e)
		return NOT_APPLICABLE;
	report("chown %s %u:%u", e->path, u, g);
	return result(fchownat(root_fd, *e->path ? e->path : ".", u, g, AT_SYMLINK_NOFOLLOW));
}

static int op_utimes(void)
{
	struct entry *e = pick(ANY);
	struct timespec ts[2];

	if (!e)
		return NOT_APPLICABLE;
	for (int i = 0; i < 2; i++) {
		ts[i].tv_sec = 946684800 + (time_t)rnd(946684800);
		ts[i].tv_nsec = chance(20) ? 0 : (long)rnd(1000000000);
	}
	report("utimes %s %lld", e->path, (long long)ts[1].tv_sec);
	return result(utimensat(root_fd, *e->path ? e->path : ".", ts, AT_SYMLINK_NOFOLLOW));
}

struct op {
	const char *name;
	int (*fn)(void);
	int weight;
};

/* --- orphans: inodes held open after their last name is gone ------------ */

struct orphan {
	int fd;
	mode_t mode;
	off_t size;
};

/* The orphans of one tree (one DIR argument), kept across actions. */
struct orphan_set {
	char *dir;
	struct orphan *v;
	size_t n, cap;
};

static struct orphan_set *orphan_sets;
static size_t n_orphan_sets;
static struct orphan_set *orphans;	/* of the tree being changed */
static int with_orphans;

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		perror("fsgen: realloc");
		exit(2);
	}
	return p;
}

static struct orphan_set *orphan_set_of(const char *dir)
{
	for (size_t i = 0; i < n_orphan_sets; i++)
		if (!strcmp(orphan_sets[i].dir, dir))
			return &orphan_sets[i];
	orphan_sets = xrealloc(orphan_sets, (n_orphan_sets + 1) * sizeof(*orphan_sets));
	orphan_sets[n_orphan_sets] = (struct orphan_set){ .dir = strdup(dir) };
	return &orphan_sets[n_orphan_sets++];
}

static void orphan_add(int fd, mode_t mode, off_t size)
{
	if (orphans->n == orphans->cap) {
		orphans->cap = orphans->cap ? orphans->cap * 2 : 8;
		orphans->v = xrealloc(orphans->v, orphans->cap * sizeof(*orphans->v));
	}
	orphans->v[orphans->n++] = (struct orphan){ fd, mode, size };
}

/* pick_orphan: a held orphan, a regular file if @files, or NULL. */
static struct orphan *pick_orphan(int files)
{
	size_t n = 0, k;

	for (size_t i = 0; i < orphans->n; i++)
		n += !files || S_ISREG(orphans->v[i].mode);
	if (!n)
		return NULL;
	k = rnd(n);
	for (size_t i = 0; i < orphans->n; i++)
		if ((!files || S_ISREG(orphans->v[i].mode)) && k-- == 0)
			return &orphans->v[i];
	return NULL;
}

/* op_orphan: hold an entry open, then remove its name (a directory with
 * everything below it). */
static int op_orphan_chosen(void);
static struct entry *chosen;

static int op_orphan(void)
{
	chosen = pick(ANY_BUT_ROOT);
	if (!chosen)
		return NOT_APPLICABLE;
	return op_orphan_chosen();
}

/* op_orphan_new: an inode that is an orphan from the start: a file
 * written and unlinked, an O_TMPFILE, or a directory removed at once. */
static int op_orphan_new(void)
{
	struct entry *d = pick_dir_for_new();
	char *p = path_in(d);
	int r = (int)rnd(100), fd = -1, ret = -1;
	mode_t mode = S_IFREG;
	size_t len = 0;

	report("orphan-new %s", p);
	if (r < 70) {
		fd = r < 40 ? openat(root_fd, p, O_RDWR | O_CREAT | O_EXCL, 0644) :
			      openat(root_fd, *d->path ? d->path : ".", O_RDWR | O_TMPFILE, 0644);
		if (fd >= 0) {
			char *buf;

			len = data_len();
			buf = malloc(len + 8);
			fill(buf, len);
			ret = pwrite(fd, buf, len, 0) == (ssize_t)len ? 0 : -1;
			free(buf);
			if (!ret && r < 40)
				ret = unlinkat(root_fd, p, 0);
		}
	} else if (!mkdirat(root_fd, p, 0755)) {
		mode = S_IFDIR;
		fd = with_fd(p, O_RDONLY | O_DIRECTORY);
		ret = fd < 0 ? -1 : unlinkat(root_fd, p, AT_REMOVEDIR);
	}
	free(p);
	if (ret) {
		if (fd >= 0)
			close(fd);
		return result(-1);
	}
	orphan_add(fd, mode, len);
	return result(0);
}

/* op_orphan_write: data written to a held orphan, or its size changed. */
static int op_orphan_write(void)
{
	struct orphan *o = pick_orphan(1);
	off_t off;
	size_t len;
	char *buf;
	int ret;

	if (!o)
		return NOT_APPLICABLE;
	if (chance(25)) {
		off = rnd(o->size + 2 * BLOCK);
		report("orphan-truncate %d %lld", o->fd, (long long)off);
		ret = ftruncate(o->fd, off);
		if (!ret)
			o->size = off;
		return result(ret);
	}
	off = rnd(o->size + BLOCK);
	len = data_len();
	buf = malloc(len + 8);
	fill(buf, len);
	report("orphan-write %d %lld %zu", o->fd, (long long)off, len);
	ret = pwrite(o->fd, buf, len, off) == (ssize_t)len ? 0 : -1;
	free(buf);
	if (!ret && off + (off_t)len > o->size)
		o->size = off + len;
	return result(ret);
}

/* op_orphan_clone: a held orphan is the source of a reflink into a file
 * with a name, or (sometimes) its destination. */
static int op_orphan_clone(void)
{
	struct orphan *o = pick_orphan(1);
	struct entry *f = pick(FILES);
	struct file_clone_range r;
	int fd, ret, into_orphan = chance(20);
	off_t ssize;

	if (!o || !f)
		return NOT_APPLICABLE;
	ssize = into_orphan ? f->size : o->size;
	if (ssize < BLOCK)
		return NOT_APPLICABLE;
	r.src_offset = rnd(ssize / BLOCK) * BLOCK;
	r.src_length = chance(25) ? 0 : (1 + rnd((ssize - r.src_offset) / BLOCK)) * BLOCK;
	r.dest_offset = rnd(((into_orphan ? o->size : f->size) + 4 * BLOCK) / BLOCK) * BLOCK;
	report("orphan-clone %s %d %s %llu %llu %llu", into_orphan ? "into" : "from", o->fd,
	       f->path, (unsigned long long)r.src_offset, (unsigned long long)r.src_length,
	       (unsigned long long)r.dest_offset);
	fd = with_fd(f->path, into_orphan ? O_RDONLY : O_WRONLY);
	if (fd < 0)
		return result(-1);
	r.src_fd = into_orphan ? fd : o->fd;
	ret = ioctl(into_orphan ? o->fd : fd, FICLONERANGE, &r);
	close(fd);
	if (!ret && into_orphan) {
		struct stat st;

		if (!fstat(o->fd, &st))
			o->size = st.st_size;
	}
	return result(ret);
}

/* op_orphan_close: the last holder goes; the inode is gone. */
static int op_orphan_close(void)
{
	struct orphan *o = pick_orphan(0);

	if (!o)
		return NOT_APPLICABLE;
	report("orphan-close %d", o->fd);
	close(o->fd);
	*o = orphans->v[--orphans->n];
	return result(0);
}

static const struct op orphan_ops[] = {
	{ "orphan", op_orphan, 4 }, { "orphan-new", op_orphan_new, 3 },
	{ "orphan-write", op_orphan_write, 3 }, { "orphan-clone", op_orphan_clone, 3 },
	{ "orphan-close", op_orphan_close, 2 },
};

/* Paths a seed's --orphan-snapshot took, for its next one to take again. */
struct seed_paths {
	unsigned long long seed;
	char **paths;
	size_t n;
	unsigned int actions;
};

static struct seed_paths *seed_paths;
static size_t n_seed_paths;

static struct seed_paths *seed_paths_of(unsigned long long seed)
{
	for (size_t i = 0; i < n_seed_paths; i++)
		if (seed_paths[i].seed == seed)
			return &seed_paths[i];
	seed_paths = xrealloc(seed_paths, (n_seed_paths + 1) * sizeof(*seed_paths));
	seed_paths[n_seed_paths] = (struct seed_paths){ .seed = seed };
	return &seed_paths[n_seed_paths++];
}

static struct entry *find_entry(const char *path)
{
	for (size_t i = 0; i < n_ents; i++)
		if (!strcmp(ents[i].path, path))
			return &ents[i];
	return NULL;
}

/* op_orphan_chosen: hold entry @chosen open, then remove its name. */
static int op_orphan_chosen(void)
{
	struct entry *e = chosen;
	int flags = O_PATH, fd, ret;

	if (S_ISREG(e->mode))
		flags = O_RDWR;
	else if (S_ISDIR(e->mode))
		flags = O_RDONLY | O_DIRECTORY;
	report("orphan %s", e->path);
	fd = with_fd(e->path, flags);
	if (fd < 0)
		return result(-1);
	ret = S_ISDIR(e->mode) ? remove_tree(e->path) : unlinkat(root_fd, e->path, 0);
	if (ret) {
		close(fd);
		return result(ret);
	}
	orphan_add(fd, e->mode, e->size);
	return result(0);
}

/* orphan_snapshot: 1-3 orphans in a snapshot, the seed's earlier paths
 * first when they are still there. */
static void orphan_snapshot(struct seed_paths *sp)
{
	char **taken = NULL;
	size_t n_taken = 0;

	for (int n = 1 + (int)rnd(3); n > 0; n--) {
		struct entry *e = NULL;

		scan();
		for (size_t i = 0; i < sp->n && !e; i++)
			if (chance(60))
				e = find_entry(sp->paths[i]);
		if (!e)
			e = pick(ANY_BUT_ROOT);
		if (!e)
			break;
		chosen = e;
		taken = xrealloc(taken, (n_taken + 1) * sizeof(*taken));
		taken[n_taken++] = strdup(e->path);
		op_orphan_chosen();
	}
	for (size_t i = 0; i < sp->n; i++)
		free(sp->paths[i]);
	free(sp->paths);
	sp->paths = taken;
	sp->n = n_taken;
}

/* pause: FILE.ready, then wait for FILE.go (orphans stay open). */
static int pause_at(const char *file)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	char *ready, *go;
	int fd, ret = 0;

	if (asprintf(&ready, "%s.ready", file) < 0 || asprintf(&go, "%s.go", file) < 0) {
		perror("fsgen: asprintf");
		exit(2);
	}
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "fsgen: cannot create '%s': %s\n", ready, strerror(errno));
		ret = 2;
	} else {
		close(fd);
		while (access(go, F_OK))
			nanosleep(&tick, NULL);
	}
	free(ready);
	free(go);
	return ret;
}

static const struct op mutate_ops[] = {
	{ "create", op_create, 14 }, { "unlink", op_unlink, 8 }, { "rmdir", op_rmdir, 3 },
	{ "rename", op_rename, 16 }, { "link", op_link, 6 }, { "write", op_write, 12 },
	{ "truncate", op_truncate, 5 }, { "punch", op_punch, 5 }, { "reflink", op_reflink, 6 },
	{ "xattr", op_xattr, 6 }, { "chmod", op_chmod, 5 }, { "chown", op_chown, 5 },
	{ "utimes", op_utimes, 5 },
};

/* run_op: one operation drawn by weight; the next draw if what it
 * picked does not apply (an unlink that picked a directory...). */
static void run_op(const struct op *ops, size_t n)
{
	int total = 0, r;

	for (size_t i = 0; i < n; i++)
		total += ops[i].weight;
	for (int tries = 0; tries < 100; tries++) {
		r = (int)rnd(total);
		for (size_t i = 0; i < n; i++) {
			if (r < ops[i].weight) {
				if (ops[i].fn() != NOT_APPLICABLE)
					return;
				break;
			}
			r -= ops[i].weight;
		}
	}
}

/* populate: creations until the tree has ENTRIES entries, with some data
 * changes and metadata on the way so that A has all of it. */
static void populate(unsigned long entries)
{
	static const struct op ops[] = {
		{ "create", op_create, 70 }, { "link", op_link, 4 }, { "write", op_write, 4 },
		{ "reflink", op_reflink, 4 }, { "punch", op_punch, 2 }, { "xattr", op_xattr, 6 },
		{ "chmod", op_chmod, 4 }, { "chown", op_chown, 4 }, { "utimes", op_utimes, 2 },
	};

	for (unsigned long i = 0; i < 20 * entries; i++) {
		scan();
		if (n_ents > entries)
			break;
		run_op(ops, sizeof(ops) / sizeof(ops[0]));
	}
}

static void mutate(unsigned long n_ops)
{
	for (unsigned long i = 0; i < n_ops; i++) {
		scan();
		/* drawn only with --orphans: seeds without keep their runs */
		if (with_orphans && chance(12))
			run_op(orphan_ops, sizeof(orphan_ops) / sizeof(orphan_ops[0]));
		else
			run_op(mutate_ops, sizeof(mutate_ops) / sizeof(mutate_ops[0]));
	}
}

/* populate_orphans: a few orphans for the first snapshot to have. */
static void populate_orphans(void)
{
	static const struct op ops[] = {
		{ "orphan", op_orphan, 1 }, { "orphan-new", op_orphan_new, 1 },
	};

	for (int n = 1 + (int)rnd(4); n > 0; n--) {
		scan();
		run_op(ops, sizeof(ops) / sizeof(ops[0]));
	}
}

/* run: one --populate or --mutate action on DIR. */
static int run(int mode, unsigned long long seed, const char *dir,
	       unsigned long entries, unsigned long n_ops)
{
	root_fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (root_fd < 0) {
		fprintf(stderr, "fsgen: cannot open '%s': %s\n", dir, strerror(errno));
		return 2;
	}
	/* each action of a seed draws from its own stream */
	rng_state = seed * 2 + (mode == 'm');
	if (mode == 'S')
		rng_state = ~(seed * 2 + seed_paths_of(seed)->actions++);
	rnd64();
	n_done = n_failed = 0;
	orphans = orphan_set_of(dir);
	if (mode == 'S') {
		orphan_snapshot(seed_paths_of(seed));
	} else if (mode == 'p') {
		populate(entries);
		if (with_orphans)
			populate_orphans();
	} else {
		mutate(n_ops);
	}
	if (verbose)
		fprintf(stderr, "fsgen: seed %llu: %lu operations done, %lu refused\n",
			seed, n_done, n_failed);
	close(root_fd);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fsgen [--orphans] --seed N --populate DIR [--entries K] [-v]\n"
		   "       fsgen [--orphans] --seed N --mutate DIR [--ops K] [-v]\n"
		   "       fsgen --seed N --orphan-snapshot DIR\n"
		   "       (actions run in order; --pause FILE between them waits for FILE.go)\n");
}

/* Orphans of every seed of a run stay open at once. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "populate", required_argument, NULL, 'p' },
		{ "mutate", required_argument, NULL, 'm' },
		{ "entries", required_argument, NULL, 'e' },
		{ "ops", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "orphans", no_argument, NULL, 'O' },
		{ "pause", required_argument, NULL, 'P' },
		{ "orphan-snapshot", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long seed = 0;
	unsigned long entries = 150, n_ops = 60;
	int c, actions = 0, have_seed = 0;

	while ((c = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); have_seed = 1; break;
		case 'p': case 'm': case 'S':
			if (!have_seed) {
				usage(stderr);
				return 2;
			}
			umask(0);
			if (run(c, seed, optarg, entries, n_ops))
				return 2;
			actions++;
			break;
		case 'e': entries = strtoul(optarg, NULL, 0); break;
		case 'o': n_ops = strtoul(optarg, NULL, 0); break;
		case 'v': verbose = 1; break;
		case 'O': with_orphans = 1; raise_fd_limit(); break;
		case 'P':
			if (pause_at(optarg))
				return 2;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!actions || optind != argc) {
		usage(stderr);
		return 2;
	}
	return 0;
}
