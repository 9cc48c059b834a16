// SPDX-License-Identifier: GPL-2.0
/*
 * Content of regular files.
 *
 * Content is compared as if both files were padded with zeros to the longer
 * length, so holes, written zeros and a missing tail are all equal; the
 * size field tells files of different lengths apart.  Both compare and
 * digest read in 1 MiB blocks and use SEEK_DATA/SEEK_HOLE to skip ranges
 * that are holes, so huge sparse files cost little.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "treecmp.h"
#include "treecmp-sha256.h"

#define OFF_INF INT64_MAX

/* The next range [start, end) that may hold data at or after some offset. */
struct segment {
	off_t start;
	off_t end;
};

/* Make @s describe the data at or after @pos, asking lseek only when needed. */
static void find_data(int fd, off_t size, off_t pos, struct segment *s)
{
	off_t d, h;

	if (pos < s->end)
		return;
	if (pos >= size) {
		s->start = s->end = OFF_INF;
		return;
	}
	d = lseek(fd, pos, SEEK_DATA);
	if (d < 0 && errno == ENXIO) {
		s->start = s->end = OFF_INF;	/* only a hole up to EOF */
		return;
	}
	if (d < 0) {			/* no SEEK_DATA: all of it is data */
		s->start = pos;
		s->end = size;
		return;
	}
	h = lseek(fd, d, SEEK_HOLE);
	if (h < 0 || h > size)
		h = size;
	s->start = d < size ? d : OFF_INF;
	s->end = h > s->start ? h : s->start + 1;
	if (s->start == OFF_INF)
		s->end = OFF_INF;
}

/* Read [pos, pos + len) of a file of @size bytes, zeros past its end. */
static int read_block(int fd, off_t size, off_t pos, unsigned char *buf,
		      size_t len)
{
	size_t got = 0;

	while (got < len && pos + (off_t)got < size) {
		ssize_t n = pread(fd, buf + got, len - got, pos + got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)	/* shrank meanwhile */
			break;
		got += n;
	}
	memset(buf + got, 0, len - got);
	return 0;
}

static unsigned char *buffer(int which)
{
	static unsigned char *bufs[2];

	if (!bufs[which])
		bufs[which] = tc_xmalloc(TC_BLOCK_SIZE);
	return bufs[which];
}

int tc_data_compare(int fd1, off_t size1, int fd2, off_t size2,
		    struct tc_data_diff *diff, int *side)
{
	unsigned char *b1 = buffer(0), *b2 = buffer(1);
	struct segment s1 = { 0, 0 }, s2 = { 0, 0 };
	off_t end = size1 > size2 ? size1 : size2;
	off_t pos = 0;
	int ret;

	while (pos < end) {
		off_t zeros_until;
		size_t len, i;

		find_data(fd1, size1, pos, &s1);
		find_data(fd2, size2, pos, &s2);
		zeros_until = s1.start < s2.start ? s1.start : s2.start;
		if (zeros_until > pos) {
			pos = zeros_until;
			continue;
		}
		len = end - pos < TC_BLOCK_SIZE ? (size_t)(end - pos) :
						  TC_BLOCK_SIZE;
		ret = read_block(fd1, size1, pos, b1, len);
		if (ret) {
			*side = 0;
			return ret;
		}
		ret = read_block(fd2, size2, pos, b2, len);
		if (ret) {
			*side = 1;
			return ret;
		}
		if (memcmp(b1, b2, len)) {
			for (i = 0; b1[i] == b2[i]; i++)
				;
			diff->offset = pos + i;
			diff->byte1 = b1[i];
			diff->byte2 = b2[i];
			return 1;
		}
		pos += len;
	}
	return 0;
}

static void put_le64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

/*
 * Hash each 1 MiB-aligned block that is not all zeros as (block index,
 * length without trailing zeros, those bytes): equal iff tc_data_compare()
 * says equal, whatever the hole layout.
 */
int tc_data_digest(int fd, off_t size, char hex[65])
{
	unsigned char *b = buffer(0), head[16], md[SHA256_DIGEST_SIZE];
	struct segment s = { 0, 0 };
	struct sha256 ctx;
	off_t pos = 0;
	int ret;

	sha256_init(&ctx);
	while (pos < size) {
		off_t end = pos + TC_BLOCK_SIZE < size ? pos + TC_BLOCK_SIZE :
							  size;
		size_t len = end - pos;

		find_data(fd, size, pos, &s);
		if (s.start >= end) {
			if (s.start >= size)
				break;
			pos = s.start - s.start % TC_BLOCK_SIZE;
			continue;
		}
		ret = read_block(fd, size, pos, b, len);
		if (ret)
			return ret;
		while (len && !b[len - 1])
			len--;
		if (len) {
			put_le64(head, pos / TC_BLOCK_SIZE);
			put_le64(head + 8, len);
			sha256_update(&ctx, head, sizeof(head));
			sha256_update(&ctx, b, len);
		}
		pos = end;
	}
	sha256_final(&ctx, md);
	sha256_hex(md, hex);
	return 0;
}
