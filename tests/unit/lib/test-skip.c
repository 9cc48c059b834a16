// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests (TAP) of the reader's data filter and seeking
 * (bstream_reader_set_data_filter(), bstream_reader_seek()): on seeded
 * random streams, the commands a filtering reader hands out are those of
 * a full read, from memory, a regular file (small and big buffers) and a
 * pipe in random chunks; skipped data is not read from a file (rchar in
 * /proc/self/io) and its CRC not checked; wanted data is checked; a cut
 * inside skipped data is reported as truncation of that command; a seek
 * reads any command again with every check.  Built plain and with
 * ASan/UBSan.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <btrfs-stream/stream.h>

#include "tap.h"

/* splitmix64: every random choice comes from the seed. */
static uint64_t rng;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint8_t pool[1 << 18];

/* ---------------------------------------------------------------------- */
/* Seeded random streams                                                   */

#define Q(a, v) bstream_put_u64(w, BTRFS_SEND_A_##a, v)
#define S(a, v) bstream_put_string(w, BTRFS_SEND_A_##a, v)

static void put_data_cmd(struct bstream_writer *w, uint32_t version, const char *path)
{
	size_t max = version >= 2 ? 200000 : 65000;
	/* Mostly long (sought over), some short (read through), some empty. */
	size_t len = rnd() % 4 ? 16384 + rnd() % (max - 16384) : rnd() % 3000;
	const uint8_t *d = pool + rnd() % (sizeof(pool) - len);

	switch (rnd() % 5) {
	case 0:
		bstream_cmd_begin(w, BTRFS_SEND_C_ENCODED_WRITE);
		S(PATH, path);
		Q(FILE_OFFSET, rnd() % (1 << 30));
		Q(UNENCODED_FILE_LEN, 4096);
		Q(UNENCODED_LEN, 131072);
		Q(UNENCODED_OFFSET, 0);
		bstream_put_u32(w, BTRFS_SEND_A_COMPRESSION, 2);
		break;
	case 1:
		/* A command the library does not know, DATA last: asked too. */
		bstream_cmd_begin(w, 200);
		S(PATH, path);
		break;
	default:
		bstream_cmd_begin(w, BTRFS_SEND_C_WRITE);
		S(PATH, path);
		Q(FILE_OFFSET, rnd() % (1 << 30));
	}
	bstream_put_data(w, d, len);
	bstream_cmd_end(w, NULL);
}

/* A v1 WRITE whose DATA is not last: read and checked, never asked. */
static void put_v1_data_not_last(struct bstream_writer *w, const char *path)
{
	bstream_cmd_begin(w, BTRFS_SEND_C_WRITE);
	S(PATH, path);
	bstream_put_data(w, pool, 30000);
	Q(FILE_OFFSET, 0);
	bstream_cmd_end(w, NULL);
}

/* The stream's length once w is freed, 0 if writing it failed. */
static size_t writer_done(struct bstream_writer *w)
{
	size_t len = bstream_writer_offset(w);

	if (bstream_writer_errcode(w)) {
		fprintf(stderr, "writer: %s\n", bstream_writer_errmsg(w));
		len = 0;
	}
	bstream_writer_free(w);
	return len;
}

/* Substreams of random versions with random commands; its length. */
static size_t make_stream(uint8_t *buf, size_t cap, uint64_t seed, int ncmds)
{
	struct bstream_writer *w = bstream_writer_new();
	uint8_t uuid[16] = { 1, 2, 3 };

	rng = seed;
	bstream_writer_set_buf(w, buf, cap);
	for (int sub = 0; sub < 3; sub++) {
		uint32_t version = 1 + rnd() % 3;

		bstream_write_header(w, version);
		bstream_cmd_begin(w, BTRFS_SEND_C_SUBVOL);
		S(PATH, "vol");
		bstream_put_uuid(w, BTRFS_SEND_A_UUID, uuid);
		Q(CTRANSID, 7);
		bstream_cmd_end(w, NULL);
		for (int i = 0; i < ncmds; i++) {
			char path[64];

			snprintf(path, sizeof(path), "dir%02d/file-%" PRIu64, i % 7, rnd() % 100000);
			switch (rnd() % 6) {
			case 0:
				bstream_cmd_begin(w, BTRFS_SEND_C_MKFILE);
				S(PATH, path);
				Q(INO, 257 + i);
				bstream_cmd_end(w, NULL);
				break;
			case 1:
				bstream_cmd_begin(w, BTRFS_SEND_C_CHOWN);
				S(PATH, path);
				Q(UID, rnd() % 2000);
				Q(GID, rnd() % 2000);
				bstream_cmd_end(w, NULL);
				break;
			case 2:
				if (version == 1 && rnd() % 4 == 0) {
					put_v1_data_not_last(w, path);
					break;
				}
				/* fall through */
			default:
				put_data_cmd(w, version, path);
			}
		}
		bstream_cmd_begin(w, BTRFS_SEND_C_END);
		bstream_cmd_end(w, NULL);
	}
	return writer_done(w);
}

/*
 * Files as the kernel sends them: runs of WRITEs of one length (48 KiB)
 * each ended by a shorter one, then a command that is read whole.
 */
static size_t make_run_stream(uint8_t *buf, size_t cap)
{
	struct bstream_writer *w = bstream_writer_new();
	uint8_t uuid[16] = { 4, 5, 6 };

	bstream_writer_set_buf(w, buf, cap);
	bstream_write_header(w, 1);
	bstream_cmd_begin(w, BTRFS_SEND_C_SUBVOL);
	S(PATH, "vol");
	bstream_put_uuid(w, BTRFS_SEND_A_UUID, uuid);
	Q(CTRANSID, 7);
	bstream_cmd_end(w, NULL);
	for (int f = 0; f < 6; f++) {
		char path[32];
		int writes = 40 + f * 37;

		snprintf(path, sizeof(path), "o%d-7-0", 257 + f);
		bstream_cmd_begin(w, BTRFS_SEND_C_MKFILE);
		S(PATH, path);
		Q(INO, 257 + f);
		bstream_cmd_end(w, NULL);
		for (int i = 0; i <= writes; i++) {
			size_t n = i < writes ? 49152 : 1 + rnd() % 49151;

			bstream_cmd_begin(w, BTRFS_SEND_C_WRITE);
			S(PATH, path);
			Q(FILE_OFFSET, (uint64_t)i * 49152);
			bstream_put_data(w, pool + rnd() % (sizeof(pool) - n), n);
			bstream_cmd_end(w, NULL);
		}
		bstream_cmd_begin(w, BTRFS_SEND_C_CHOWN);
		S(PATH, path);
		Q(UID, f);
		Q(GID, f);
		bstream_cmd_end(w, NULL);
	}
	bstream_cmd_begin(w, BTRFS_SEND_C_END);
	bstream_cmd_end(w, NULL);
	return writer_done(w);
}

/* ---------------------------------------------------------------------- */
/* What a reader hands out                                                 */

struct seen {
	uint64_t offset, index, data_offset, hash;
	uint32_t data_len, version, substream;
	uint16_t cmd;
	bool skipped, asked;
	char path[64];
};

struct log {
	struct seen *v;
	size_t n, cap;
	size_t asked;
	unsigned int decline;	/* decline when index % decline != 0; 0: all */
};

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	while (n--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

static bool want(void *user, const struct bstream_cmd *c)
{
	struct log *l = user;

	l->asked++;
	if (l->n < l->cap)
		l->v[l->n].asked = true;
	return l->decline && c->index % l->decline == 0;
}

/* Read everything r gives into l; the return of the last bstream_next(). */
static int collect(struct bstream_reader *r, struct log *l)
{
	const struct bstream_cmd *c;
	int ret;

	l->n = 0;
	l->asked = 0;
	if (l->cap)
		memset(l->v, 0, l->cap * sizeof(*l->v));
	while ((ret = bstream_next(r, &c)) > 0 && l->n < l->cap) {
		struct seen *s = &l->v[l->n++];

		s->offset = c->offset;
		s->index = c->index;
		s->cmd = c->cmd;
		s->version = c->version;
		s->substream = c->substream;
		s->data_len = c->data_len;
		s->data_offset = c->data_offset;
		s->skipped = c->data_skipped;
		s->hash = c->data ? fnv(c->data, c->data_len) : 0;
		snprintf(s->path, sizeof(s->path), "%s", c->path ? c->path : "");
	}
	return ret;
}

/*
 * Whether b (filtered) hands out what a (unfiltered) does: the same
 * commands and attributes, the same data where b read it, none where it
 * skipped it, and skipped exactly what the filter declined.
 */
static bool same(const struct log *a, const struct log *b, const char **why)
{
	if (a->n != b->n) {
		*why = "different number of commands";
		return false;
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct seen *x = &a->v[i], *y = &b->v[i];
		bool declined = y->asked && !(b->decline && y->index % b->decline == 0);

		if (x->offset != y->offset || x->index != y->index || x->cmd != y->cmd ||
		    x->version != y->version || x->substream != y->substream ||
		    x->data_len != y->data_len || x->data_offset != y->data_offset ||
		    strcmp(x->path, y->path)) {
			*why = "a command differs";
			return false;
		}
		if (y->skipped != declined || (!y->skipped && x->hash != y->hash) ||
		    (y->skipped && y->hash)) {
			*why = "data differs, or skipped other than declined";
			return false;
		}
	}
	*why = "";
	return true;
}

/* Bytes this process has read(2) so far (rchar of /proc/self/io). */
static uint64_t rchar(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	uint64_t v = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %" SCNu64, &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static int temp_file(const uint8_t *buf, size_t len)
{
	char path[] = "/tmp/test-skip-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (write(fd, buf, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET)) {
		close(fd);
		return -1;
	}
	return fd;
}

static pid_t feed_pipe(const uint8_t *buf, size_t len, int *rfd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		for (size_t off = 0; off < len;) {
			size_t n = 1 + rnd() % 70000;
			ssize_t done;

			if (n > len - off)
				n = len - off;
			done = write(p[1], buf + off, n);
			if (done <= 0)
				_exit(1);
			off += done;
		}
		_exit(0);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

enum input { IN_MEM, IN_FILE, IN_PIPE };
static const char *const input_name[] = { "memory", "file", "pipe" };

/* Read buf through input with the filter of l (none if !filter). */
static int read_via(enum input in, const uint8_t *buf, size_t len, size_t buf_size,
		    bool filter, struct log *l, char *msg, size_t msglen)
{
	struct bstream_reader_opts o = { .buf_size = buf_size };
	struct bstream_reader *r = bstream_reader_new(&o);
	int fd = -1, st, ret;
	pid_t pid = -1;

	if (filter)
		bstream_reader_set_data_filter(r, want, l);
	if (in == IN_MEM) {
		bstream_reader_set_mem(r, buf, len);
	} else if (in == IN_FILE) {
		fd = temp_file(buf, len);
		bstream_reader_set_fd(r, fd);
	} else {
		pid = feed_pipe(buf, len, &fd);
		bstream_reader_set_fd(r, fd);
	}
	ret = collect(r, l);
	snprintf(msg, msglen, "%s", bstream_reader_errmsg(r));
	bstream_reader_free(r);
	if (fd >= 0)
		close(fd);
	if (pid > 0)
		waitpid(pid, &st, 0);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Tests                                                                   */

#define MAXCMDS 2000

static void test_random_streams(void)
{
	static const size_t bufs[] = { 0, 4096, 64 };
	size_t cap = 64 << 20;
	uint8_t *buf = malloc(cap);
	struct log full = { .cap = MAXCMDS }, part = { .cap = MAXCMDS };
	char msg[512];

	full.v = calloc(MAXCMDS, sizeof(*full.v));
	part.v = calloc(MAXCMDS, sizeof(*part.v));
	for (uint64_t seed = 1; seed <= 4; seed++) {
		size_t len = make_stream(buf, cap, seed, 120);
		int ret;

		ret = read_via(IN_MEM, buf, len, 0, false, &full, msg, sizeof(msg));
		ok(ret == 0 && len, "seed %" PRIu64 ": %zu commands, %zu bytes, read whole (%s)",
		   seed, full.n, len, msg);
		for (unsigned int decline = 0; decline <= 3; decline += 3) {
			for (int in = IN_MEM; in <= IN_PIPE; in++) {
				for (size_t b = 0; b < sizeof(bufs) / sizeof(bufs[0]); b++) {
					const char *why = "";

					if (in == IN_MEM && b)
						continue;
					part.decline = decline;
					ret = read_via(in, buf, len, bufs[b], true, &part, msg, sizeof(msg));
					ok(ret == 0 && same(&full, &part, &why),
					   "seed %" PRIu64 ", %s, buffer %zu, %s: the commands of a full read, "
					   "data where wanted %s%s", seed, input_name[in], bufs[b],
					   decline ? "one data command in 3 wanted" : "no data wanted",
					   why, msg);
				}
			}
		}
		/* Commands with DATA last: all but the v1 WRITEs with it first. */
		{
			size_t last = 0;

			for (size_t i = 0; i + 1 < full.n; i++)
				last += (full.v[i].cmd == BTRFS_SEND_C_WRITE ||
					 full.v[i].cmd == BTRFS_SEND_C_ENCODED_WRITE ||
					 full.v[i].cmd == 200) &&
					full.v[i].data_offset + full.v[i].data_len == full.v[i + 1].offset;
			part.decline = 0;
			read_via(IN_FILE, buf, len, 0, true, &part, msg, sizeof(msg));
			ok(part.asked == last && last > 0,
			   "seed %" PRIu64 ": the filter is asked about the %zu commands whose DATA "
			   "is last, no other (asked %zu)", seed, last, part.asked);
		}
	}
	free(full.v);
	free(part.v);
	free(buf);
}

/* Skipped data of a regular file is not read. */
static void test_not_read(void)
{
	size_t cap = 64 << 20, len;
	uint8_t *buf = malloc(cap);
	struct log l = { .cap = MAXCMDS };
	struct bstream_reader *r = bstream_reader_new(NULL);
	uint64_t before, after;
	int fd, ret;

	l.v = calloc(MAXCMDS, sizeof(*l.v));
	len = make_stream(buf, cap, 99, 300);
	fd = temp_file(buf, len);
	bstream_reader_set_data_filter(r, want, &l);
	bstream_reader_set_fd(r, fd);
	before = rchar();
	ret = collect(r, &l);
	after = rchar();
	ok(ret == 0 && after - before < len / 8,
	   "no data wanted from a regular file: %" PRIu64 " of %zu bytes read (%s)",
	   after - before, len, bstream_reader_errmsg(r));
	bstream_reader_free(r);
	close(fd);
	free(l.v);
	free(buf);
}

/*
 * Runs of equal WRITEs (where the reader predicts the next headers): a
 * filtering reader of a file hands out what a full read does, the data
 * it was asked for intact, and reads none of the data it skips.
 */
static void test_runs(void)
{
	size_t cap = 64 << 20, len;
	uint8_t *buf = malloc(cap);
	struct log full = { .cap = MAXCMDS }, part = { .cap = MAXCMDS };
	char msg[512];
	int ret;

	full.v = calloc(MAXCMDS, sizeof(*full.v));
	part.v = calloc(MAXCMDS, sizeof(*part.v));
	len = make_run_stream(buf, cap);
	ret = read_via(IN_MEM, buf, len, 0, false, &full, msg, sizeof(msg));
	ok(ret == 0 && len, "runs of equal WRITEs: %zu commands, %zu bytes, read whole (%s)",
	   full.n, len, msg);
	for (unsigned int decline = 0; decline <= 5; decline += 5) {
		const char *why = "";
		uint64_t before = rchar(), after;

		part.decline = decline;
		ret = read_via(IN_FILE, buf, len, 0, true, &part, msg, sizeof(msg));
		after = rchar();
		ok(ret == 0 && same(&full, &part, &why),
		   "runs of equal WRITEs, file, %s: the commands of a full read, data where "
		   "wanted %s%s", decline ? "one command in 5 wanted" : "no data wanted", why, msg);
		if (!decline)
			ok(after - before < len / 8, "runs of equal WRITEs, no data wanted: "
			   "%" PRIu64 " of %zu bytes read", after - before, len);
	}
	free(full.v);
	free(part.v);
	free(buf);
}

/* The first command of l at or after index from with cmd and long data. */
static const struct seen *find_write(const struct log *l, size_t from)
{
	for (size_t i = from; i < l->n; i++)
		if (l->v[i].cmd == BTRFS_SEND_C_WRITE && l->v[i].data_len > 20000)
			return &l->v[i];
	return NULL;
}

static struct bstream_mark mark_of(const struct seen *s)
{
	struct bstream_mark m = {
		.offset = s->offset, .index = s->index,
		.version = s->version, .substream = s->substream,
	};
	return m;
}

/* Corrupted data: unnoticed where skipped, a CRC error where read. */
static void test_corrupt(void)
{
	size_t cap = 64 << 20, len;
	uint8_t *buf = malloc(cap);
	struct log full = { .cap = MAXCMDS }, part = { .cap = MAXCMDS };
	const struct seen *bad;
	char msg[512], want_msg[512];
	int ret;

	full.v = calloc(MAXCMDS, sizeof(*full.v));
	part.v = calloc(MAXCMDS, sizeof(*part.v));
	len = make_stream(buf, cap, 7, 120);
	read_via(IN_MEM, buf, len, 0, false, &full, msg, sizeof(msg));
	bad = find_write(&full, full.n / 3);
	if (!ok(bad != NULL, "corrupt: the stream has a long WRITE"))
		goto out;
	buf[bad->data_offset + bad->data_len / 2] ^= 0x40;
	snprintf(want_msg, sizeof(want_msg), "command %" PRIu64 " (write) at offset %" PRIu64 ": crc mismatch",
		 bad->index, bad->offset);
	for (int in = IN_MEM; in <= IN_PIPE; in++) {
		ret = read_via(in, buf, len, 0, false, &part, msg, sizeof(msg));
		ok(ret == -BSTREAM_E_CRC && !strncmp(msg, want_msg, strlen(want_msg)),
		   "corrupt, %s, read whole: '%s'", input_name[in], msg);
		part.decline = 0;
		ret = read_via(in, buf, len, 0, true, &part, msg, sizeof(msg));
		ok(ret == 0 && part.n == full.n,
		   "corrupt, %s, its data skipped: all %zu commands, no error (%s)",
		   input_name[in], part.n, msg);
		part.decline = 1;
		ret = read_via(in, buf, len, 0, true, &part, msg, sizeof(msg));
		ok(ret == -BSTREAM_E_CRC && !strncmp(msg, want_msg, strlen(want_msg)),
		   "corrupt, %s, its data wanted: '%s'", input_name[in], msg);
	}
	/* Read again by seeking to it: checked whole. */
	{
		struct bstream_reader *r = bstream_reader_new(NULL);
		struct bstream_mark m = mark_of(bad);
		const struct bstream_cmd *c;
		int fd = temp_file(buf, len);

		bstream_reader_set_data_filter(r, want, &part);
		part.decline = 0;
		bstream_reader_set_fd(r, fd);
		while (bstream_next(r, &c) > 0)
			;
		bstream_reader_set_data_filter(r, NULL, NULL);
		ret = bstream_reader_seek(r, &m);
		if (!ret)
			ret = bstream_next(r, &c);
		ok(ret == -BSTREAM_E_CRC && !strncmp(bstream_reader_errmsg(r), want_msg, strlen(want_msg)),
		   "corrupt: sought to and read again, a CRC error: '%s'", bstream_reader_errmsg(r));
		bstream_reader_free(r);
		close(fd);
	}
out:
	free(full.v);
	free(part.v);
	free(buf);
}

/* A cut inside skipped data: that command is truncated, as without filter. */
static void test_truncated(void)
{
	size_t cap = 64 << 20, len;
	uint8_t *buf = malloc(cap);
	struct log full = { .cap = MAXCMDS }, part = { .cap = MAXCMDS };
	const struct seen *w;
	char msg[512], ref[512];
	int ret, ref_ret;

	full.v = calloc(MAXCMDS, sizeof(*full.v));
	part.v = calloc(MAXCMDS, sizeof(*part.v));
	len = make_stream(buf, cap, 11, 120);
	read_via(IN_MEM, buf, len, 0, false, &full, msg, sizeof(msg));
	w = find_write(&full, full.n / 2);
	if (!ok(w != NULL, "truncated: the stream has a long WRITE"))
		goto out;
	/* Cut in the middle of its data, then inside its header. */
	for (int cut = 0; cut < 2; cut++) {
		size_t at = cut ? w->offset + 5 : w->data_offset + w->data_len / 2;

		ref_ret = read_via(IN_MEM, buf, at, 0, false, &part, ref, sizeof(ref));
		ok(ref_ret == -BSTREAM_E_CMD_TRUNC && strstr(ref, "at offset"),
		   "truncated at %zu, read whole: '%s'", at, ref);
		for (int in = IN_MEM; in <= IN_PIPE; in++) {
			part.decline = 0;
			ret = read_via(in, buf, at, 0, true, &part, msg, sizeof(msg));
			ok(ret == ref_ret && !strcmp(msg, ref),
			   "truncated at %zu, %s, data skipped: the same error '%s'",
			   at, input_name[in], msg);
		}
	}
out:
	free(full.v);
	free(part.v);
	free(buf);
}

/* Seeking: any command again, in any order, from memory or a file. */
static void test_seek(void)
{
	size_t cap = 64 << 20, len;
	uint8_t *buf = malloc(cap);
	struct log full = { .cap = MAXCMDS };
	char msg[512];

	full.v = calloc(MAXCMDS, sizeof(*full.v));
	len = make_stream(buf, cap, 23, 150);
	read_via(IN_MEM, buf, len, 0, false, &full, msg, sizeof(msg));
	for (int in = IN_MEM; in <= IN_FILE; in++) {
		for (int b = 0; b < 2; b++) {
			struct bstream_reader_opts o = { .buf_size = b ? 4096 : 0 };
			struct bstream_reader *r = bstream_reader_new(&o);
			int fd = -1, bad = 0, ret = 0;
			uint64_t before;

			if (in == IN_MEM) {
				bstream_reader_set_mem(r, buf, len);
			} else {
				fd = temp_file(buf, len);
				bstream_reader_set_fd(r, fd);
			}
			rng = 5;
			for (int k = 0; k < 400 && !ret; k++) {
				/* Half random jumps, half the next command. */
				size_t i = k % 2 ? rnd() % full.n : (size_t)(k / 2 * 7) % full.n;
				const struct seen *s = &full.v[i];
				struct bstream_mark m = mark_of(s);
				const struct bstream_cmd *c;

				ret = bstream_reader_seek(r, &m);
				if (!ret && bstream_next(r, &c) == 1) {
					bad += c->offset != s->offset || c->index != s->index ||
					       c->cmd != s->cmd || c->data_skipped ||
					       (c->data ? fnv(c->data, c->data_len) : 0) != s->hash;
					if (i + 1 < full.n && bstream_next(r, &c) == 1)
						bad += c->offset != full.v[i + 1].offset ||
						       c->index != full.v[i + 1].index;
				} else {
					bad++;
				}
			}
			ok(!ret && !bad, "seek, %s, buffer %s: 400 commands read again, and the ones "
			   "after them, as first read (%d differ) %s", input_name[in],
			   b ? "4096" : "default", bad, bstream_reader_errmsg(r));
			if (in == IN_FILE) {
				/* A seek costs about the command, not the buffer. */
				const struct seen *s = find_write(&full, full.n / 2);
				struct bstream_mark m = mark_of(s);
				const struct bstream_cmd *c;

				struct bstream_mark first = mark_of(&full.v[0]);

				bstream_reader_seek(r, &first);
				bstream_next(r, &c);
				bstream_reader_seek(r, &m);
				before = rchar();
				ret = bstream_next(r, &c);
				ok(ret == 1 && rchar() - before < s->data_len + 3 * 4096 + 600,
				   "seek, file: reading the command sought reads %" PRIu64
				   " bytes for its %" PRIu32, rchar() - before, s->data_len);
			}
			bstream_reader_free(r);
			if (fd >= 0)
				close(fd);
		}
	}
	/* Refusals. */
	{
		struct bstream_reader *r = bstream_reader_new(NULL);
		struct bstream_mark m = mark_of(&full.v[3]), bogus = m;
		const struct bstream_cmd *c;
		int fd, st;
		pid_t pid;

		ok(bstream_reader_seek(r, &m) == -BSTREAM_E_INVAL, "seek: refused without input");
		pid = feed_pipe(buf, len, &fd);
		bstream_reader_set_fd(r, fd);
		ok(bstream_reader_seek(r, &m) == -BSTREAM_E_INVAL &&
		   strstr(bstream_reader_errmsg(r), "not seekable"),
		   "seek: refused on a pipe ('%s')", bstream_reader_errmsg(r));
		ok(bstream_next(r, &c) == 1 && c->offset == 0 + 17,
		   "seek: a refused seek leaves the reader as it was");
		close(fd);
		waitpid(pid, &st, 0);
		bstream_reader_set_mem(r, buf, len);
		bogus.index = 0;
		ok(bstream_reader_seek(r, &bogus) == -BSTREAM_E_INVAL, "seek: index 0 refused");
		bogus = m;
		bogus.offset = len + 1;
		ok(bstream_reader_seek(r, &bogus) == -BSTREAM_E_INVAL, "seek: offset past the end refused");
		/* A mark off a command boundary: an error at that offset. */
		bogus = m;
		bogus.offset = m.offset + 1;
		ok(!bstream_reader_seek(r, &bogus) && bstream_next(r, &c) < 0 &&
		   strstr(bstream_reader_errmsg(r), "at offset"),
		   "seek: a wrong mark gives an error with the offset ('%s')", bstream_reader_errmsg(r));
		ok(!bstream_reader_seek(r, &m) && bstream_next(r, &c) == 1 && c->offset == m.offset,
		   "seek: clears the error of a previous one");
		bstream_reader_free(r);
	}
	free(full.v);
	free(buf);
}

/* The writer refuses a command whose data was skipped. */
static void test_writer_refuses(void)
{
	size_t cap = 64 << 20, len;
	uint8_t *buf = malloc(cap), out[1 << 16];
	struct log l = { .cap = MAXCMDS };
	struct bstream_reader *r = bstream_reader_new(NULL);
	struct bstream_writer *w = bstream_writer_new();
	const struct bstream_cmd *c;
	int ret = 0, refused = 0, skipped = 0;

	l.v = calloc(MAXCMDS, sizeof(*l.v));
	len = make_stream(buf, cap, 31, 40);
	bstream_reader_set_data_filter(r, want, &l);
	bstream_reader_set_mem(r, buf, len);
	bstream_writer_set_buf(w, out, sizeof(out));
	while (bstream_next(r, &c) > 0) {
		if (!c->data_skipped)
			continue;
		skipped++;
		ret = bstream_write_cmd(w, c);
		refused += ret == -BSTREAM_E_INVAL;
	}
	ok(skipped > 0 && refused == skipped && bstream_writer_offset(w) == 0,
	   "writer: refuses the %d commands whose data was skipped (%s)", skipped,
	   bstream_writer_errmsg(w));
	bstream_writer_free(w);
	bstream_reader_free(r);
	free(l.v);
	free(buf);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	rng = 42;
	for (size_t i = 0; i < sizeof(pool); i++)
		pool[i] = (uint8_t)rnd();
	test_random_streams();
	test_not_read();
	test_runs();
	test_corrupt();
	test_truncated();
	test_seek();
	test_writer_refuses();
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
