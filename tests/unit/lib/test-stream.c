// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libbtrfs-stream (TAP).  Built twice: plain and with
 * ASan/UBSan; the memory-bound test only runs in the plain build.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <btrfs-stream/stream.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#include "tap.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---------------------------------------------------------------------- */
/* CRC                                                                     */

/* Whether this machine should offer an implementation. */
static bool impl_expected(int impl)
{
#if defined(__x86_64__)
	if (impl == BSTREAM_CRC_SSE42)
		return __builtin_cpu_supports("sse4.2");
	if (impl == BSTREAM_CRC_PCLMUL)
		return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul");
	return true;
#else
	return impl == BSTREAM_CRC_AUTO || impl == BSTREAM_CRC_TABLE;
#endif
}

static void test_crc(void)
{
	static const char *const names[] = { "auto", "table", "sse42", "pclmul" };
	static uint8_t buf[70000];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rnd();
	for (int impl = BSTREAM_CRC_AUTO; impl <= BSTREAM_CRC_PCLMUL; impl++) {
		bstream_crc_fn f = bstream_crc_get(impl);
		bool same = true;

		if (!ok(!f == !impl_expected(impl), "crc %s: %savailable, as cpuid says",
			names[impl], f ? "" : "not ") || !f)
			continue;
		ok(f(0, "123456789", 9) == 0x58E3FA20u,
		   "crc %s: check value 0x58E3FA20", names[impl]);
		ok(f(0, "", 0) == 0 && f(0x1234, "", 0) == 0x1234,
		   "crc %s: empty input keeps the register", names[impl]);
		/* Every length and alignment agrees with the table version. */
		for (size_t off = 0; off < 16 && same; off++)
			for (size_t len = 0; len < 40000 && same; len += 1 + len / 7)
				same = f(7, buf + off, len) ==
				       bstream_crc_get(BSTREAM_CRC_TABLE)(7, buf + off, len);
		ok(same, "crc %s: agrees with the table version on all lengths", names[impl]);
		same = true;
		for (int i = 0; i < 200 && same; i++) {
			size_t a = rnd() % 30000, b = rnd() % 30000;

			same = f(f(0, buf, a), buf + a, b) == f(0, buf, a + b);
		}
		ok(same, "crc %s: chains (crc(A||B) = upd(upd(0, A), B))", names[impl]);
	}
}

/* ---------------------------------------------------------------------- */
/* Spec section 7, byte for byte                                           */

static bool bytes_eq(const uint8_t *a, size_t alen, const char *hex)
{
	size_t n = strlen(hex) / 2;

	if (alen != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned int v;

		sscanf(hex + 2 * i, "%2x", &v);
		if (a[i] != v)
			return false;
	}
	return true;
}

static void test_spec_examples(void)
{
	struct bstream_writer *w = bstream_writer_new();
	uint8_t out[256];
	size_t n;

	bstream_writer_set_buf(w, out, sizeof(out));
	bstream_write_header(w, 1);
	ok(bytes_eq(out, bstream_writer_offset(w), "6274726673" "2d73747265616d00" "01000000"),
	   "spec 7.1: version 1 header");
	bstream_writer_set_buf(w, out, sizeof(out));
	bstream_write_header(w, 2);
	ok(bytes_eq(out, bstream_writer_offset(w), "6274726673" "2d73747265616d00" "02000000"),
	   "spec 7.1: version 2 header");

	bstream_writer_set_buf(w, out, sizeof(out));
	bstream_cmd_begin(w, BTRFS_SEND_C_MKDIR);
	bstream_put_string(w, BTRFS_SEND_A_PATH, "a");
	bstream_put_u64(w, BTRFS_SEND_A_INO, 257);
	bstream_cmd_end(w, NULL);
	ok(bytes_eq(out, bstream_writer_offset(w),
		    "11000000" "0400" "ad83dc7a" "0f00010061" "030008000101000000000000"),
	   "spec 7.2: MKDIR a 257, crc 0x7ADC83AD");

	bstream_writer_set_buf(w, out, sizeof(out));
	bstream_cmd_begin(w, BTRFS_SEND_C_END);
	bstream_cmd_end(w, NULL);
	ok(bytes_eq(out, bstream_writer_offset(w), "00000000" "1500" "506cc99d"),
	   "spec 7.3: END, crc 0x9DC96C50");

	/* 7.4 in a v2 stream: DATA without length. */
	bstream_writer_set_buf(w, out, sizeof(out));
	bstream_write_header(w, 2);
	bstream_writer_set_buf(w, out, sizeof(out));
	bstream_cmd_begin(w, BTRFS_SEND_C_WRITE);
	bstream_put_string(w, BTRFS_SEND_A_PATH, "a");
	bstream_put_u64(w, BTRFS_SEND_A_FILE_OFFSET, 0);
	bstream_put_data(w, "hi", 2);
	bstream_cmd_end(w, NULL);
	ok(bytes_eq(out, bstream_writer_offset(w),
		    "15000000" "0f00" "672ad474" "0f00010061" "120008000000000000000000" "1300" "6869"),
	   "spec 7.4: WRITE in v2, crc 0x74D42A67");

	bstream_writer_set_buf(w, out, sizeof(out));
	bstream_write_header(w, 1);
	bstream_writer_set_buf(w, out, sizeof(out));
	bstream_cmd_begin(w, BTRFS_SEND_C_WRITE);
	bstream_put_string(w, BTRFS_SEND_A_PATH, "a");
	bstream_put_u64(w, BTRFS_SEND_A_FILE_OFFSET, 0);
	bstream_put_data(w, "hi", 2);
	bstream_cmd_end(w, NULL);
	n = bstream_writer_offset(w);
	ok(bytes_eq(out, n,
		    "17000000" "0f00" "421ab18f" "0f00010061" "120008000000000000000000" "13000200" "6869"),
	   "spec 7.4: WRITE in v1, crc 0x8FB11A42");

	/* The same CRCs straight from both implementations. */
	for (int impl = BSTREAM_CRC_TABLE; impl <= BSTREAM_CRC_PCLMUL; impl++) {
		static const char *const names[] = { "auto", "table", "sse42", "pclmul" };
		bstream_crc_fn f = bstream_crc_get(impl);
		uint8_t z[64];

		if (!f)
			continue;	/* availability is checked in test_crc() */
		memcpy(z, out, n);
		memset(z + 6, 0, 4);
		ok(f(0, z, n) == 0x8FB11A42u &&
		   f(0, "\x00\x00\x00\x00\x15\x00\x00\x00\x00\x00", 10) == 0x9DC96C50u,
		   "spec 7.3/7.4 CRCs with implementation %s", names[impl]);
	}
	bstream_writer_free(w);
}

/* ---------------------------------------------------------------------- */
/* A stream with every command and attribute                               */

static const uint8_t U1[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t U2[16] = { 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88,
				0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00 };
static uint8_t payload[150000];

#define S(a, v) bstream_put_string(w, BTRFS_SEND_A_##a, v)
#define Q(a, v) bstream_put_u64(w, BTRFS_SEND_A_##a, v)
#define D(a, v) bstream_put_u32(w, BTRFS_SEND_A_##a, v)
#define T(a, s, ns) bstream_put_timespec(w, BTRFS_SEND_A_##a, (struct bstream_timespec){ s, ns })
#define CMD(c) bstream_cmd_begin(w, BTRFS_SEND_C_##c)
#define END() bstream_cmd_end(w, NULL)

/* Emit one substream of the given version with every command. */
static void put_all(struct bstream_writer *w, uint32_t version)
{
	size_t big = version >= 2 ? sizeof(payload) : 60000;

	bstream_write_header(w, version);
	CMD(SUBVOL); S(PATH, "vol"); bstream_put_uuid(w, BTRFS_SEND_A_UUID, U1); Q(CTRANSID, 7); END();
	CMD(SNAPSHOT); S(PATH, "snap"); bstream_put_uuid(w, BTRFS_SEND_A_UUID, U1); Q(CTRANSID, 8);
	bstream_put_uuid(w, BTRFS_SEND_A_CLONE_UUID, U2); Q(CLONE_CTRANSID, 6); END();
	CMD(MKFILE); S(PATH, "o257-7-0"); Q(INO, 257); END();
	CMD(MKDIR); S(PATH, "o258-7-0"); Q(INO, 258); END();
	CMD(MKNOD); S(PATH, "n"); Q(INO, 259); Q(RDEV, 0x801); Q(MODE, 060600); END();
	CMD(MKFIFO); S(PATH, "p"); Q(INO, 260); Q(RDEV, 0); Q(MODE, 010600); END();
	CMD(MKSOCK); S(PATH, "s"); Q(INO, 261); Q(RDEV, 0); Q(MODE, 0140600); END();
	CMD(SYMLINK); S(PATH, "l"); Q(INO, 262); S(PATH_LINK, "target"); END();
	CMD(RENAME); S(PATH, "o257-7-0"); S(PATH_TO, "file"); END();
	CMD(LINK); S(PATH, "hard"); S(PATH_LINK, "file"); END();
	CMD(UNLINK); S(PATH, "hard"); END();
	CMD(RMDIR); S(PATH, "o258-7-0"); END();
	CMD(SET_XATTR); S(PATH, "file"); S(XATTR_NAME, "user.a");
	bstream_put_bytes(w, BTRFS_SEND_A_XATTR_DATA, "\0\1\2", 3); END();
	CMD(REMOVE_XATTR); S(PATH, "file"); S(XATTR_NAME, "user.a"); END();
	CMD(WRITE); S(PATH, "file"); Q(FILE_OFFSET, 0); bstream_put_data(w, payload, big); END();
	CMD(WRITE); S(PATH, "file"); Q(FILE_OFFSET, 5); bstream_put_data(w, "", 0); END();
	CMD(CLONE); Q(FILE_OFFSET, 4096); Q(CLONE_LEN, 8192); S(PATH, "file");
	bstream_put_uuid(w, BTRFS_SEND_A_CLONE_UUID, U2); Q(CLONE_CTRANSID, 6);
	S(CLONE_PATH, "src"); Q(CLONE_OFFSET, 0); END();
	CMD(TRUNCATE); S(PATH, "file"); Q(SIZE, 100); END();
	CMD(CHOWN); S(PATH, "file"); Q(UID, 1000); Q(GID, 100); END();
	CMD(CHMOD); S(PATH, "file"); Q(MODE, 0644); END();
	CMD(UTIMES); S(PATH, ""); T(ATIME, 1, 2); T(MTIME, -3, 4); T(CTIME, 5, 999999999);
	T(OTIME, 7, 8); END();
	CMD(UPDATE_EXTENT); S(PATH, "file"); Q(FILE_OFFSET, 0); Q(SIZE, 4096); END();
	CMD(FALLOCATE); S(PATH, "file"); D(FALLOCATE_MODE, 3); Q(FILE_OFFSET, 0); Q(SIZE, 8192); END();
	CMD(FILEATTR); S(PATH, "file"); Q(FILEATTR, 0x100000010ull); END();
	CMD(ENCODED_WRITE); S(PATH, "file"); Q(FILE_OFFSET, 0); Q(UNENCODED_FILE_LEN, 4096);
	Q(UNENCODED_LEN, 8192); Q(UNENCODED_OFFSET, 0); D(COMPRESSION, 2); D(ENCRYPTION, 0);
	bstream_put_data(w, payload, version >= 2 ? 131072 : 1000); END();
	CMD(ENABLE_VERITY); S(PATH, "file"); bstream_put_u8(w, BTRFS_SEND_A_VERITY_ALGORITHM, 1);
	D(VERITY_BLOCK_SIZE, 4096); bstream_put_bytes(w, BTRFS_SEND_A_VERITY_SALT_DATA, "salt", 4);
	bstream_put_bytes(w, BTRFS_SEND_A_VERITY_SIG_DATA, "", 0); END();
	bstream_cmd_begin(w, 99); S(PATH, "unknown"); END();
	bstream_cmd_begin(w, 0); END();
	CMD(END); END();
}

/* v1, v2 and v3 substreams concatenated, in a malloc'ed buffer. */
static uint8_t *make_all(size_t *len)
{
	size_t cap = 4 << 20;
	uint8_t *buf = malloc(cap);
	struct bstream_writer *w = bstream_writer_new();

	bstream_writer_set_buf(w, buf, cap);
	for (uint32_t v = 1; v <= 3; v++)
		put_all(w, v);
	*len = bstream_writer_offset(w);
	if (bstream_writer_errcode(w))
		fprintf(stderr, "writer: %s\n", bstream_writer_errmsg(w));
	bstream_writer_free(w);
	return buf;
}

/* Re-encode everything a reader yields; header versions included. */
static int reencode(struct bstream_reader *r, uint8_t *out, size_t cap,
		    size_t *len, uint64_t *attrs_seen, int *ncmds)
{
	struct bstream_writer *w = bstream_writer_new();
	const struct bstream_cmd *c;
	unsigned int sub = 0;
	int ret;

	bstream_writer_set_buf(w, out, cap);
	*ncmds = 0;
	while ((ret = bstream_next(r, &c)) > 0) {
		if (c->substream + 1 != sub) {
			sub = c->substream + 1;
			bstream_write_header(w, c->version);
		}
		if (attrs_seen)
			*attrs_seen |= c->present;
		bstream_write_cmd(w, c);
		(*ncmds)++;
	}
	*len = bstream_writer_offset(w);
	if (bstream_writer_errcode(w))
		ret = -bstream_writer_errcode(w);
	bstream_writer_free(w);
	return ret;
}

static void test_round_trip(void)
{
	struct bstream_reader *r = bstream_reader_new(NULL);
	const struct bstream_cmd *c;
	uint64_t seen = 0;
	size_t len, len2;
	uint8_t *in, *out;
	int ncmds, ret;
	bool zero_copy = true, fields = true;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)rnd();
	in = make_all(&len);
	out = malloc(len + 1000);
	bstream_reader_set_mem(r, in, len);
	ret = reencode(r, out, len + 1000, &len2, &seen, &ncmds);
	ok(ret == 0, "round trip: reader accepts v1+v2+v3 with every command (%s)",
	   bstream_reader_errmsg(r));
	ok(ncmds == 3 * 29, "round trip: %d commands read, 87 expected", ncmds);
	ok(seen == (((UINT64_C(1) << (BTRFS_SEND_A_MAX + 1)) - 1) & ~UINT64_C(1)),
	   "round trip: every attribute 1..35 was present (mask %#" PRIx64 ")", seen);
	ok(len2 == len && !memcmp(in, out, len),
	   "round trip: writer -> reader -> writer gives identical bytes (%zu/%zu)", len, len2);
	for (int impl = BSTREAM_CRC_TABLE; impl <= BSTREAM_CRC_PCLMUL; impl++) {
		struct bstream_reader_opts o = { .crc = impl };
		struct bstream_reader *ri = bstream_reader_new(&o);
		int n2 = 0;

		if (!ri)
			continue;	/* availability is checked in test_crc() */
		bstream_reader_set_mem(ri, in, len);
		while ((ret = bstream_next(ri, &c)) > 0)
			n2++;
		ok(ret == 0 && n2 == ncmds, "reader with crc implementation %d verifies every command", impl);
		bstream_reader_free(ri);
	}

	/* Decoded fields and zero copy of DATA. */
	bstream_reader_set_mem(r, in, len);
	while (bstream_next(r, &c) > 0) {
		if (c->data && (c->data < in || c->data + c->data_len > in + len))
			zero_copy = false;
		switch (c->cmd) {
		case BTRFS_SEND_C_WRITE:
			if (c->data_len && (c->data_len != (c->version >= 2 ? sizeof(payload) : 60000) ||
					    memcmp(c->data, payload, c->data_len)))
				fields = false;
			break;
		case BTRFS_SEND_C_SNAPSHOT:
			fields &= !strcmp(c->path, "snap") && !memcmp(c->uuid, U1, 16) &&
				  !memcmp(c->clone_uuid, U2, 16) && c->ctransid == 8 &&
				  c->clone_ctransid == 6;
			break;
		case BTRFS_SEND_C_UTIMES:
			fields &= !strcmp(c->path, "") && c->mtime.sec == -3 &&
				  c->ctime.nsec == 999999999 && c->otime.sec == 7;
			break;
		case BTRFS_SEND_C_FILEATTR:
			fields &= c->fileattr == 0x100000010ull;
			break;
		case BTRFS_SEND_C_ENABLE_VERITY:
			fields &= c->verity_algorithm == 1 && c->verity_block_size == 4096 &&
				  c->verity_salt_len == 4 && !memcmp(c->verity_salt, "salt", 4) &&
				  c->verity_sig_len == 0 && c->verity_sig;
			break;
		case BTRFS_SEND_C_SET_XATTR:
			fields &= c->xattr_data_len == 3 && !memcmp(c->xattr_data, "\0\1\2", 3);
			break;
		case BTRFS_SEND_C_MKNOD:
			fields &= c->mode == 060600 && c->rdev == 0x801 && c->ino == 259;
			break;
		case BTRFS_SEND_C_ENCODED_WRITE:
			fields &= c->compression == 2 && c->unencoded_len == 8192 &&
				  c->data_len == (c->version >= 2 ? 131072 : 1000);
			break;
		case 99:
			fields &= !c->known && !strcmp(c->path, "unknown");
			break;
		}
	}
	ok(zero_copy, "reader: DATA points into the input, not a copy");
	ok(fields, "reader: decoded fields match what was written");
	bstream_reader_free(r);
	free(in);
	free(out);
}

/* ---------------------------------------------------------------------- */
/* Chunked input through a pipe                                            */

static pid_t feed_pipe(const uint8_t *buf, size_t len, size_t max_chunk, int *rfd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		for (size_t off = 0; off < len;) {
			size_t n = 1 + rnd() % max_chunk;
			ssize_t done;

			if (rnd() % 3 == 0)
				n = 1;
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

static void test_chunks(void)
{
	static const size_t chunks[] = { 1, 7, 100, 4096, 200000 };
	static const size_t bufs[] = { 0, 64, 4096 };
	size_t len, cap;
	uint8_t *in = make_all(&len), *ref, *out;
	struct bstream_reader *r;
	size_t rlen;
	int ncmds;

	cap = len + 1000;
	ref = malloc(cap);
	out = malloc(cap);
	r = bstream_reader_new(NULL);
	bstream_reader_set_mem(r, in, len);
	reencode(r, ref, cap, &rlen, NULL, &ncmds);
	bstream_reader_free(r);

	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		for (size_t b = 0; b < sizeof(bufs) / sizeof(bufs[0]); b++) {
			struct bstream_reader_opts o = { .buf_size = bufs[b] };
			size_t olen = 0;
			int fd = -1, st, ret;
			pid_t pid;

			if (chunks[i] == 1 && b == 2)
				continue;	/* slow and adds nothing */
			r = bstream_reader_new(&o);
			pid = feed_pipe(in, len, chunks[i], &fd);
			bstream_reader_set_fd(r, fd);
			ret = reencode(r, out, cap, &olen, NULL, &ncmds);
			close(fd);
			waitpid(pid, &st, 0);
			ok(ret == 0 && olen == rlen && !memcmp(out, ref, rlen),
			   "pipe in chunks of 1..%zu bytes, buffer %zu: same commands (%s)",
			   chunks[i], bufs[b], bstream_reader_errmsg(r));
			bstream_reader_free(r);
		}
	}
	free(in);
	free(ref);
	free(out);
}

static void test_mmap(void)
{
	char path[] = "/tmp/test-stream-XXXXXX";
	int fd = mkstemp(path);
	size_t len, total = 0, rlen, olen;
	uint8_t *in = make_all(&len), *ref, *out;
	struct bstream_reader_opts o = { .flags = BSTREAM_READ_MMAP };
	struct bstream_reader *r;
	int n1, n2, ret;

	if (fd < 0) {
		ok(false, "mmap: cannot create a temporary file");
		return;
	}
	unlink(path);
	/* 8 copies: more than one 4 MiB window, commands across its edge. */
	for (int i = 0; i < 8; i++)
		total += write(fd, in, len);
	ref = malloc(total + 1000);
	out = malloc(total + 1000);
	lseek(fd, 0, SEEK_SET);
	r = bstream_reader_new(NULL);
	bstream_reader_set_fd(r, fd);
	reencode(r, ref, total + 1000, &rlen, NULL, &n1);
	bstream_reader_free(r);

	lseek(fd, 0, SEEK_SET);
	r = bstream_reader_new(&o);
	bstream_reader_set_fd(r, fd);
	ret = reencode(r, out, total + 1000, &olen, NULL, &n2);
	ok(ret == 0 && n1 == n2 && n1 == 8 * 87 && olen == rlen && !memcmp(ref, out, rlen),
	   "mmap: same commands as read(2) over %zu bytes (%s)", total, bstream_reader_errmsg(r));
	bstream_reader_free(r);

	/* -e: stop after the first END and leave the file offset there. */
	{
		const struct bstream_cmd *c;
		uint64_t end_at = 0;

		o.flags |= BSTREAM_READ_STOP_AT_END;
		lseek(fd, 5, SEEK_SET);
		r = bstream_reader_new(&o);
		bstream_reader_set_fd(r, fd);
		ret = bstream_next(r, &c);
		ok(ret == -BSTREAM_E_BAD_MAGIC, "mmap: reading starts at the file offset (5)");
		bstream_reader_free(r);

		lseek(fd, len, SEEK_SET);
		r = bstream_reader_new(&o);
		bstream_reader_set_fd(r, fd);
		while ((ret = bstream_next(r, &c)) > 0)
			end_at = c->offset + 10;
		ok(ret == 0 && lseek(fd, 0, SEEK_CUR) == (off_t)(len + end_at) &&
		   bstream_reader_offset(r) == end_at,
		   "mmap -e: file offset left right after the first END (%" PRIu64 ")", end_at);
		bstream_reader_free(r);
	}
	close(fd);
	free(in);
	free(ref);
	free(out);
}

/* ---------------------------------------------------------------------- */
/* Hostile input                                                           */

struct craft {
	uint8_t buf[4096];
	struct bstream_writer *w;
};

static struct bstream_writer *craft_begin(struct craft *c, uint32_t version)
{
	c->w = bstream_writer_new();
	bstream_writer_set_buf(c->w, c->buf, sizeof(c->buf));
	if (version)
		bstream_write_header(c->w, version);
	return c->w;
}

/* Read everything; return the first error code (positive) or 0. */
static int read_all(const void *buf, size_t len, const struct bstream_reader_opts *o,
		    char *msg, size_t msglen, int *ncmds)
{
	struct bstream_reader *r = bstream_reader_new(o);
	const struct bstream_cmd *c;
	int ret, n = 0;

	bstream_reader_set_mem(r, buf, len);
	while ((ret = bstream_next(r, &c)) > 0)
		n++;
	if (msg)
		snprintf(msg, msglen, "%s", bstream_reader_errmsg(r));
	if (ncmds)
		*ncmds = n;
	bstream_reader_free(r);
	return -ret;
}

#define EXPECT(code, what) do {						\
	char m[512];							\
	int got = read_all(c.buf, bstream_writer_offset(w), NULL, m, sizeof(m), NULL); \
	ok(got == (code), "%s: error %d (%s), got %d: %s", what, code,	\
	   bstream_strerror(code), got, m);				\
	bstream_writer_free(w);						\
} while (0)

static void subvol(struct bstream_writer *w)
{
	CMD(SUBVOL); S(PATH, "v"); bstream_put_uuid(w, BTRFS_SEND_A_UUID, U1); Q(CTRANSID, 1); END();
}

/* Pages of fd's file in the page cache from byte from on. */
static size_t cached_pages(int fd, size_t from, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t n = 0, pages = (len - from + pg - 1) / pg;
	unsigned char *vec = malloc(pages);
	void *m = mmap(NULL, len - from, PROT_READ, MAP_SHARED, fd, (off_t)from);

	if (m == MAP_FAILED || !vec || mincore(m, len - from, vec)) {
		n = (size_t)-1;
	} else {
		for (size_t i = 0; i < pages; i++)
			n += vec[i] & 1;
	}
	if (m != MAP_FAILED)
		munmap(m, len - from);
	free(vec);
	return n;
}

/*
 * BSTREAM_READ_DIRECT: a stream starting at an offset that is not
 * block-aligned, in 64 KiB slots, read with O_DIRECT gives the same
 * commands as read(2), and its file stays out of the page cache past the
 * first buffer (read with read(2) before the thread starts), where read(2)
 * leaves it in.  Given with
 * BSTREAM_READ_MMAP, direct reads win.  A stream already in the page
 * cache is read through it, to the same commands.  Needs a directory whose file
 * system takes O_DIRECT: TMPDIR, else /tmp.
 */
static void test_direct(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	size_t len, total = 0, rlen, olen, cached;
	uint8_t *in = make_all(&len), *ref, *out;
	struct bstream_reader_opts o = { .buf_size = 64 << 10 };
	struct bstream_reader *r;
	int fd, dfd, n1, n2, ret;
	const size_t prefix = 1000;
	char junk[1000];

	snprintf(path, sizeof(path), "%s/test-stream-direct-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		ok(false, "direct: cannot create a temporary file in %s", dir);
		free(in);
		return;
	}
	dfd = open(path, O_RDONLY | O_DIRECT);
	unlink(path);
	if (dfd < 0) {
		ok(false, "direct: %s does not take O_DIRECT: set TMPDIR", dir);
		close(fd);
		free(in);
		return;
	}
	close(dfd);
	memset(junk, 'x', sizeof(junk));
	total += write(fd, junk, prefix);
	for (int i = 0; i < 16; i++)
		total += write(fd, in, len);
	fsync(fd);
	ref = malloc(total);
	out = malloc(total);

	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	lseek(fd, prefix, SEEK_SET);
	r = bstream_reader_new(NULL);
	bstream_reader_set_fd(r, fd);
	reencode(r, ref, total, &rlen, NULL, &n1);
	bstream_reader_free(r);
	cached = cached_pages(fd, 2 << 20, total);
	ok(cached > 0 && cached != (size_t)-1,
	   "direct: read(2) leaves the stream in the page cache (%zu pages past 2 MiB)", cached);

	for (int mmap_too = 0; mmap_too < 2; mmap_too++) {
		o.flags = BSTREAM_READ_DIRECT | (mmap_too ? BSTREAM_READ_MMAP : 0);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		lseek(fd, prefix, SEEK_SET);
		r = bstream_reader_new(&o);
		bstream_reader_set_fd(r, fd);
		ret = reencode(r, out, total, &olen, NULL, &n2);
		ok(ret == 0 && n1 == n2 && n1 == 16 * 87 && olen == rlen && !memcmp(ref, out, rlen),
		   "direct%s: same commands as read(2) over %zu bytes from offset %zu (%s)",
		   mmap_too ? " and mmap" : "", total - prefix, prefix, bstream_reader_errmsg(r));
		bstream_reader_free(r);
		/*
		 * Past the first buffer and what the kernel read ahead of the
		 * read(2) that filled it (a window of some 100 KiB).
		 */
		cached = cached_pages(fd, 2 << 20, total);
		ok(cached == 0, "direct%s: the stream past its first buffer stayed out of the page cache (%zu pages in it)",
		   mmap_too ? " and mmap" : "", cached);
	}

	/*
	 * A stream the page cache holds is read through it (residency.c
	 * decides), with the copies shared by the thread and the consumer:
	 * the same commands.
	 */
	ok(pread(fd, out, total, 0) == (ssize_t)total &&
	   cached_pages(fd, 0, total) == (total + 4095) / 4096,
	   "direct, stream in the page cache: all its pages are there");
	o.flags = BSTREAM_READ_DIRECT;
	lseek(fd, prefix, SEEK_SET);
	r = bstream_reader_new(&o);
	bstream_reader_set_fd(r, fd);
	memset(out, 0, total);
	ret = reencode(r, out, total, &olen, NULL, &n2);
	ok(ret == 0 && n1 == n2 && olen == rlen && !memcmp(ref, out, rlen),
	   "direct, stream in the page cache: same commands as read(2) (%s)",
	   bstream_reader_errmsg(r));
	bstream_reader_free(r);
	close(fd);
	free(in);
	free(ref);
	free(out);
}

static void test_hostile(void)
{
	struct bstream_cmd_fixup fix = { 0 };
	struct bstream_writer *w;
	struct craft c;

	w = craft_begin(&c, 0);
	EXPECT(BSTREAM_E_EMPTY, "empty input");

	w = craft_begin(&c, 0);
	bstream_put_raw(w, "btrfs-stream", 12);
	EXPECT(BSTREAM_E_HEADER_TRUNC, "truncated header");

	{
		/* Exactly sized, so ASan sees any read past the input. */
		char *b = malloc(12);
		int got;

		memcpy(b, "btrfs-stream", 12);
		got = read_all(b, 12, NULL, NULL, 0, NULL);
		ok(got == BSTREAM_E_HEADER_TRUNC, "12-byte input: truncated header (%d)", got);
		memcpy(b, "xy", 2);
		got = read_all(b, 2, NULL, NULL, 0, NULL);
		ok(got == BSTREAM_E_BAD_MAGIC, "2-byte input not starting like the magic: bad magic (%d)", got);
		free(b);
	}

	w = craft_begin(&c, 0);
	bstream_put_raw(w, "btrfs-streaX\0\1\0\0\0", 17);
	EXPECT(BSTREAM_E_BAD_MAGIC, "bad magic");

	w = craft_begin(&c, 0);
	bstream_put_raw(w, "btrfs-stream\0\1\0\0\0", 17);
	bstream_put_raw(w, "\0\0\0\0\x15\0\x50\x6c\xc9\x9d", 10);
	EXPECT(0, "hand-made v1 header and END");

	w = craft_begin(&c, 4);
	CMD(END); END();
	EXPECT(BSTREAM_E_VERSION, "unsupported version 4");

	w = craft_begin(&c, 0xffffffff);
	EXPECT(BSTREAM_E_VERSION, "unsupported version 0xffffffff");

	w = craft_begin(&c, 1);
	subvol(w);
	fix.flags = BSTREAM_FIX_CRC;
	fix.crc = 0xdeadbeef;
	CMD(MKFILE); S(PATH, "f"); Q(INO, 5); bstream_cmd_end(w, &fix);
	CMD(END); END();
	EXPECT(BSTREAM_E_CRC, "crc mismatch");

	w = craft_begin(&c, 1);
	fix.flags = BSTREAM_FIX_LEN;
	fix.len = 1000;
	CMD(MKFILE); S(PATH, "f"); Q(INO, 5); bstream_cmd_end(w, &fix);
	EXPECT(BSTREAM_E_CMD_TRUNC, "command length past end of input");

	w = craft_begin(&c, 1);
	bstream_put_raw(w, "\1\0\0\0\3", 5);
	EXPECT(BSTREAM_E_CMD_TRUNC, "command header cut");

	w = craft_begin(&c, 1);
	CMD(MKFILE); S(PATH, "f"); bstream_put_raw(w, "\3\0\x08\0\1\1", 6); END();
	EXPECT(BSTREAM_E_TLV_TRUNC, "TLV value overrun");

	w = craft_begin(&c, 1);
	CMD(MKFILE); S(PATH, "f"); bstream_put_raw(w, "\3", 1); END();
	EXPECT(BSTREAM_E_TLV_TRUNC, "TLV header overrun");

	w = craft_begin(&c, 1);
	CMD(MKFILE); S(PATH, "f"); Q(INO, 5); bstream_put_bytes(w, 0, "", 0); END();
	EXPECT(BSTREAM_E_ATTR_TYPE, "attribute type 0");

	w = craft_begin(&c, 3);
	CMD(MKFILE); S(PATH, "f"); Q(INO, 5); bstream_put_bytes(w, 36, "x", 1); END();
	EXPECT(BSTREAM_E_ATTR_TYPE, "attribute type 36");

	w = craft_begin(&c, 1);
	CMD(MKFILE); S(PATH, "f"); END();
	EXPECT(BSTREAM_E_ATTR_MISSING, "missing INO");

	w = craft_begin(&c, 2);
	CMD(SET_XATTR); S(PATH, "f"); S(XATTR_NAME, "user.x"); END();
	EXPECT(BSTREAM_E_ATTR_MISSING, "missing XATTR_DATA");

	w = craft_begin(&c, 1);
	CMD(MKFILE); S(PATH, "f"); bstream_put_bytes(w, BTRFS_SEND_A_INO, "1234567", 7); END();
	EXPECT(BSTREAM_E_ATTR_SIZE, "u64 of 7 bytes");

	w = craft_begin(&c, 1);
	CMD(UTIMES); S(PATH, "f"); T(ATIME, 0, 0); T(MTIME, 0, 0);
	bstream_put_bytes(w, BTRFS_SEND_A_CTIME, "12345678", 8); END();
	EXPECT(BSTREAM_E_ATTR_SIZE, "timespec of 8 bytes");

	w = craft_begin(&c, 1);
	subvol(w);
	EXPECT(BSTREAM_E_NO_END, "no END");

	w = craft_begin(&c, 1);
	CMD(END); END();
	bstream_put_raw(w, "junk", 4);
	EXPECT(BSTREAM_E_BAD_MAGIC, "short junk after END");

	w = craft_begin(&c, 1);
	CMD(END); END();
	bstream_put_raw(w, "junk that is long enough", 24);
	EXPECT(BSTREAM_E_BAD_MAGIC, "junk after END");

	/* What must be accepted. */
	w = craft_begin(&c, 2);
	subvol(w);
	bstream_cmd_begin(w, 0); END();
	bstream_cmd_begin(w, 27); Q(INO, 5); END();
	bstream_cmd_begin(w, 65535); bstream_put_data(w, "xyz", 3); END();
	CMD(END); END();
	EXPECT(0, "unknown commands 0, 27, 65535 are skipped, not errors");

	w = craft_begin(&c, 0);
	bstream_put_raw(w, "btrfs-stream\0\0\0\0\0", 17);
	CMD(END); END();
	EXPECT(0, "version 0 is read like version 1 (as progs does)");

	w = craft_begin(&c, 1);
	CMD(FALLOCATE); S(PATH, "f"); D(FALLOCATE_MODE, 1); Q(FILE_OFFSET, 0); Q(SIZE, 1); END();
	CMD(END); END();
	EXPECT(0, "v2 command in a v1 stream is accepted by default");

	w = craft_begin(&c, 1);
	CMD(MKFILE); S(PATH, "a"); S(PATH, "b"); Q(INO, 1); Q(INO, 2); END();
	CMD(END); END();
	EXPECT(0, "duplicate attributes: the later one wins");

	w = craft_begin(&c, 2);
	CMD(WRITE); S(PATH, "f"); Q(FILE_OFFSET, 0);
	bstream_put_data(w, "\x0f\x00\x01\x00x", 5); END();
	CMD(END); END();
	{
		const struct bstream_cmd *cmd;
		struct bstream_reader *r = bstream_reader_new(NULL);

		bstream_reader_set_mem(r, c.buf, bstream_writer_offset(w));
		bstream_next(r, &cmd);
		ok(cmd && cmd->data_len == 5 && !strcmp(cmd->path, "f"),
		   "v2 DATA swallows the rest of the command, TLV look-alikes included");
		bstream_reader_free(r);
		bstream_writer_free(w);
	}

	/* Strict version mode. */
	{
		struct bstream_reader_opts o = { .flags = BSTREAM_READ_STRICT_VERSION };
		int got;

		w = craft_begin(&c, 1);
		CMD(FALLOCATE); S(PATH, "f"); D(FALLOCATE_MODE, 1); Q(FILE_OFFSET, 0); Q(SIZE, 1); END();
		CMD(END); END();
		got = read_all(c.buf, bstream_writer_offset(w), &o, NULL, 0, NULL);
		ok(got == BSTREAM_E_CMD_VERSION, "strict: v2 command in v1 stream rejected (%d)", got);
		bstream_writer_free(w);

		w = craft_begin(&c, 2);
		CMD(MKFILE); S(PATH, "f"); Q(INO, 1); bstream_put_u8(w, BTRFS_SEND_A_VERITY_ALGORITHM, 1); END();
		CMD(END); END();
		got = read_all(c.buf, bstream_writer_offset(w), &o, NULL, 0, NULL);
		ok(got == BSTREAM_E_CMD_VERSION, "strict: v3 attribute in v2 stream rejected (%d)", got);
		bstream_writer_free(w);

		o.flags = 0;
		o.max_version = 2;
		w = craft_begin(&c, 3);
		CMD(END); END();
		got = read_all(c.buf, bstream_writer_offset(w), &o, NULL, 0, NULL);
		ok(got == BSTREAM_E_VERSION, "max_version 2 rejects a v3 header (%d)", got);
		bstream_writer_free(w);
	}

	/* Size limit. */
	{
		struct bstream_reader_opts o = { .max_cmd_size = 1000 };
		static uint8_t big[2000];
		char m[512];
		int got;

		w = craft_begin(&c, 2);
		CMD(WRITE); S(PATH, "f"); Q(FILE_OFFSET, 0); bstream_put_data(w, big, 1500); END();
		got = read_all(c.buf, bstream_writer_offset(w), &o, m, sizeof(m), NULL);
		ok(got == BSTREAM_E_CMD_TOO_BIG, "command above max_cmd_size rejected: %s", m);
		bstream_writer_free(w);
	}

	/* Recoverable errors: the next call goes on with the next command. */
	{
		const struct bstream_cmd *cmd;
		struct bstream_reader *r = bstream_reader_new(NULL);
		int r1, r2, r3, r4;

		w = craft_begin(&c, 1);
		fix.flags = BSTREAM_FIX_CRC;
		fix.crc = 1;
		CMD(MKDIR); S(PATH, "a"); Q(INO, 1); bstream_cmd_end(w, &fix);
		CMD(MKDIR); S(PATH, "b"); END();
		CMD(MKDIR); S(PATH, "c"); Q(INO, 3); END();
		CMD(END); END();
		bstream_reader_set_mem(r, c.buf, bstream_writer_offset(w));
		r1 = bstream_next(r, &cmd);
		r2 = bstream_next(r, &cmd);
		r3 = bstream_next(r, &cmd);
		ok(r1 == -BSTREAM_E_CRC && r2 == -BSTREAM_E_ATTR_MISSING && r3 == 1 &&
		   !strcmp(cmd->path, "c") && cmd->index == 3,
		   "errors confined to a command let the reader go on (%d %d %d)", r1, r2, r3);
		r4 = bstream_next(r, &cmd);
		ok(r4 == 1 && cmd->cmd == BTRFS_SEND_C_END && bstream_next(r, &cmd) == 0,
		   "... up to the regular end");
		bstream_reader_free(r);
		bstream_writer_free(w);
	}

	/* Message format: command index, name, offset, attribute. */
	{
		char m[512];

		w = craft_begin(&c, 1);
		subvol(w);
		CMD(RENAME); S(PATH, "a"); bstream_put_raw(w, "\x10\x00\x70\x11", 4); END();
		read_all(c.buf, bstream_writer_offset(w), NULL, m, sizeof(m), NULL);
		ok(!strcmp(m, "command 2 (rename) at offset 64: attribute path_to: length 4464 exceeds command (0 bytes left)"),
		   "message names index, command, offset and attribute: %s", m);
		bstream_writer_free(w);
	}
}

/* ---------------------------------------------------------------------- */
/* Callback table                                                          */

struct counts {
	int headers, subvol, write, end, unknown, errors;
	uint32_t versions[4];
	int stop_at, fail_at;
};

static int c_header(void *u, uint32_t version, uint64_t offset)
{
	struct counts *k = u;

	if (k->headers < 4)
		k->versions[k->headers] = version;
	k->headers++;
	return 0;
}

static int c_subvol(void *u, const struct bstream_cmd *c)
{
	((struct counts *)u)->subvol++;
	return 0;
}

static int c_write(void *u, const struct bstream_cmd *c)
{
	struct counts *k = u;

	k->write++;
	if (k->stop_at && k->write == k->stop_at)
		return 1;
	return k->fail_at && k->write == k->fail_at ? -1 : 0;
}

static int c_end(void *u, const struct bstream_cmd *c)
{
	((struct counts *)u)->end++;
	return 0;
}

static int c_unknown(void *u, const struct bstream_cmd *c)
{
	((struct counts *)u)->unknown++;
	return 0;
}

static int c_error(void *u, int code, const struct bstream_reader *r)
{
	((struct counts *)u)->errors++;
	return 0;
}

static void test_process(void)
{
	struct bstream_ops ops = {
		.header = c_header, .subvol = c_subvol, .write = c_write,
		.end = c_end, .unknown = c_unknown,
	};
	struct bstream_reader *r = bstream_reader_new(NULL);
	struct counts k = { 0 };
	size_t len;
	uint8_t *in = make_all(&len);
	int ret;

	bstream_reader_set_mem(r, in, len);
	ret = bstream_process(r, &ops, &k);
	ok(ret == 0 && k.headers == 3 && k.versions[0] == 1 && k.versions[1] == 2 &&
	   k.versions[2] == 3, "process: header callback once per substream with its version");
	ok(k.subvol == 3 && k.write == 6 && k.end == 3 && k.unknown == 6,
	   "process: callbacks dispatched per command (subvol %d write %d end %d unknown %d)",
	   k.subvol, k.write, k.end, k.unknown);

	memset(&k, 0, sizeof(k));
	k.stop_at = 2;
	bstream_reader_set_mem(r, in, len);
	ret = bstream_process(r, &ops, &k);
	ok(ret == 0 && k.write == 2 && k.end == 0, "process: a positive return stops successfully");

	memset(&k, 0, sizeof(k));
	k.fail_at = 2;
	bstream_reader_set_mem(r, in, len);
	ret = bstream_process(r, &ops, &k);
	ok(ret == -BSTREAM_E_CALLBACK && strstr(bstream_reader_errmsg(r), "command 16 (write)"),
	   "process: a negative return stops with BSTREAM_E_CALLBACK: %s", bstream_reader_errmsg(r));

	{
		struct bstream_cmd_fixup fix = { .flags = BSTREAM_FIX_CRC, .crc = 9 };
		struct bstream_writer *w;
		struct craft c;

		w = craft_begin(&c, 1);
		CMD(WRITE); S(PATH, "f"); Q(FILE_OFFSET, 0); bstream_put_data(w, "a", 1);
		bstream_cmd_end(w, &fix);
		CMD(WRITE); S(PATH, "f"); Q(FILE_OFFSET, 0); bstream_put_data(w, "a", 1); END();
		CMD(END); END();
		memset(&k, 0, sizeof(k));
		ops.error = c_error;
		bstream_reader_set_mem(r, c.buf, bstream_writer_offset(w));
		ret = bstream_process(r, &ops, &k);
		ok(ret == 0 && k.errors == 1 && k.write == 1,
		   "process: the error callback can skip a bad command and go on");
		ops.error = NULL;
		bstream_reader_set_mem(r, c.buf, bstream_writer_offset(w));
		ret = bstream_process(r, &ops, &k);
		ok(ret == -BSTREAM_E_CRC, "process: without an error callback the first error stops");
		bstream_writer_free(w);
	}
	bstream_reader_free(r);
	free(in);
}

/* ---------------------------------------------------------------------- */
/* Writer                                                                  */

static void test_writer(void)
{
	struct bstream_writer *w = bstream_writer_new();
	uint8_t small[20];
	int ret;

	bstream_writer_set_buf(w, small, sizeof(small));
	bstream_write_header(w, 2);
	bstream_cmd_begin(w, BTRFS_SEND_C_MKFILE);
	bstream_put_string(w, BTRFS_SEND_A_PATH, "file");
	ret = bstream_cmd_end(w, NULL);
	ok(ret == -BSTREAM_E_NOSPACE, "writer: full caller buffer gives BSTREAM_E_NOSPACE");

	bstream_writer_set_buf(w, payload, sizeof(payload));
	bstream_write_header(w, 2);
	bstream_cmd_begin(w, BTRFS_SEND_C_WRITE);
	bstream_put_data(w, "x", 1);
	ret = bstream_put_string(w, BTRFS_SEND_A_PATH, "f");
	ok(ret == -BSTREAM_E_INVAL, "writer: attribute after v2 DATA rejected: %s",
	   bstream_writer_errmsg(w));
	bstream_cmd_end(w, NULL);

	bstream_cmd_begin(w, BTRFS_SEND_C_MKFILE);
	ok(bstream_put_u64(w, BTRFS_SEND_A_PATH, 1) == -BSTREAM_E_INVAL &&
	   bstream_put_string(w, BTRFS_SEND_A_INO, "x") == -BSTREAM_E_INVAL,
	   "writer: typed put with the wrong attribute type rejected");
	ok(bstream_put_bytes(w, BTRFS_SEND_A_PATH, payload, 65536) == -BSTREAM_E_INVAL,
	   "writer: TLV over 65535 bytes rejected");
	bstream_cmd_end(w, NULL);
	bstream_writer_free(w);
	bstream_writer_free(NULL);
	bstream_reader_free(NULL);

	ok(bstream_cmd_from_name("set_xattr") == BTRFS_SEND_C_SET_XATTR &&
	   bstream_attr_from_name("path_to") == BTRFS_SEND_A_PATH_TO &&
	   !strcmp(bstream_cmd_name(BTRFS_SEND_C_ENCODED_WRITE), "encoded_write") &&
	   bstream_cmd_name(27) == NULL && bstream_attr_name(36) == NULL,
	   "name tables");
}

/* ---------------------------------------------------------------------- */
/* Memory stays bounded on a long stream                                   */

static void test_bounded_memory(void)
{
	const size_t total = 512u << 20;
	struct bstream_writer *w;
	struct bstream_reader *r;
	const struct bstream_cmd *c;
	struct rusage ru;
	uint8_t *cmd;
	size_t clen, hlen;
	uint64_t bytes = 0, nzero = 0;
	int p[2], ret, st;
	pid_t pid;

	/* Only the plain build runs this: ASan's shadow memory hides RSS. */
	if (UNDER_ASAN)
		return;
	/* One 128 KiB WRITE command, sent over and over by a child. */
	cmd = malloc(200000);
	w = bstream_writer_new();
	bstream_writer_set_buf(w, cmd, 200000);
	bstream_write_header(w, 2);
	hlen = bstream_writer_offset(w);
	CMD(WRITE); S(PATH, "f"); Q(FILE_OFFSET, 0); bstream_put_data(w, payload, 131072); END();
	clen = bstream_writer_offset(w) - hlen;
	bstream_writer_free(w);

	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		static const uint8_t end[10] = { 0, 0, 0, 0, 0x15, 0, 0x50, 0x6c, 0xc9, 0x9d };

		static uint8_t zeros[10 * 4096];

		close(p[0]);
		if (write(p[1], cmd, hlen) != (ssize_t)hlen)
			_exit(1);
		/* First a flood of 2M zero-length commands (number 0, crc 0). */
		for (int i = 0; i < 2000000 / 4096; i++)
			if (write(p[1], zeros, sizeof(zeros)) != sizeof(zeros))
				_exit(1);
		for (size_t sent = 0; sent < total; sent += clen)
			for (size_t off = 0; off < clen;) {
				ssize_t n = write(p[1], cmd + hlen + off, clen - off);

				if (n <= 0)
					_exit(1);
				off += n;
			}
		_exit(write(p[1], end, 10) != 10);
	}
	close(p[1]);
	r = bstream_reader_new(NULL);
	bstream_reader_set_fd(r, p[0]);
	while ((ret = bstream_next(r, &c)) > 0) {
		bytes += c->data_len;
		nzero += c->cmd == 0;
	}
	close(p[0]);
	waitpid(pid, &st, 0);
	getrusage(RUSAGE_SELF, &ru);
	ok(ret == 0 && bytes >= total && nzero == 2000000 / 4096 * 4096,
	   "bounded memory: %" PRIu64 " zero-length commands and 512 MiB of WRITEs parsed (%s)",
	   nzero, bstream_reader_errmsg(r));
	ok(ru.ru_maxrss < 16 * 1024, "bounded memory: max RSS %ld KiB < 16 MiB", ru.ru_maxrss);
	bstream_reader_free(r);
	free(cmd);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	/* First, so that the peak RSS is the reader's alone. */
	test_bounded_memory();
	test_crc();
	test_spec_examples();
	test_round_trip();
	test_chunks();
	test_mmap();
	test_direct();
	test_hostile();
	test_process();
	test_writer();
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
