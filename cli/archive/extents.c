// SPDX-License-Identifier: GPL-2.0
/*
 * A file's data as a sorted array of extents, each a reference to bytes
 * that stay in the stream files (see archive.h).  WRITE and ENCODED_WRITE
 * put one; TRUNCATE and FALLOCATE's hole punching take ranges away; CLONE
 * copies the references of another range, so nothing is ever copied in
 * memory but these 56-byte records.
 *
 * Offsets are checked to stay below 2^63 where they enter (replay.c), so
 * off + len never wraps here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "archive.h"

static uint64_t ext_end(const struct ar_extent *e)
{
	return e->off + e->len;
}

/* Drop the first d bytes of e: the data it refers to moves along. */
static void advance(struct ar_extent *e, uint64_t d)
{
	e->off += d;
	e->len -= d;
	e->dec_off += (uint32_t)d;
}

static int reserve(struct ar_extents *x, uint32_t more)
{
	uint32_t cap;
	struct ar_extent *v;

	if (x->n + (uint64_t)more <= x->cap)
		return 0;
	if ((uint64_t)x->n + more > UINT32_MAX / 2)
		return -ENOMEM;
	/* Most files have one extent: start with room for exactly that. */
	cap = x->cap ? x->cap : 1;
	while (cap < x->n + more)
		cap *= 2;
	v = realloc(x->v, (size_t)cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	x->v = v;
	x->cap = cap;
	return 0;
}

uint32_t ar_ext_find(const struct ar_extents *x, uint64_t off)
{
	uint32_t lo = 0, hi = x->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ext_end(&x->v[mid]) > off)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int ar_ext_punch(struct ar_extents *x, uint64_t off, uint64_t len)
{
	uint64_t end = off + len;
	uint32_t i, j;

	if (!len || !x->n)
		return 0;
	i = ar_ext_find(x, off);
	if (i < x->n && x->v[i].off < off && ext_end(&x->v[i]) > end) {
		/* The hole is inside one extent: it becomes two. */
		if (reserve(x, 1))
			return -ENOMEM;
		memmove(&x->v[i + 2], &x->v[i + 1], (x->n - i - 1) * sizeof(x->v[0]));
		x->v[i + 1] = x->v[i];
		advance(&x->v[i + 1], end - x->v[i].off);
		x->v[i].len = off - x->v[i].off;
		x->n++;
		return 0;
	}
	if (i < x->n && x->v[i].off < off) {
		x->v[i].len = off - x->v[i].off;
		i++;
	}
	for (j = i; j < x->n && ext_end(&x->v[j]) <= end; j++)
		;
	if (j < x->n && x->v[j].off < end)
		advance(&x->v[j], end - x->v[j].off);
	memmove(&x->v[i], &x->v[j], (x->n - j) * sizeof(x->v[0]));
	x->n -= j - i;
	return 0;
}

/* Insert n extents, sorted, into a hole of x that holds them all. */
static int insert(struct ar_extents *x, const struct ar_extent *e, uint32_t n)
{
	uint32_t i;

	if (!n)
		return 0;
	if (reserve(x, n))
		return -ENOMEM;
	i = ar_ext_find(x, e[0].off);
	memmove(&x->v[i + n], &x->v[i], (x->n - i) * sizeof(x->v[0]));
	memcpy(&x->v[i], e, n * sizeof(*e));
	x->n += n;
	return 0;
}

int ar_ext_put(struct ar_extents *x, const struct ar_extent *e)
{
	if (!e->len)
		return 0;
	/* Files are mostly written in order: append without searching. */
	if (!x->n || ext_end(&x->v[x->n - 1]) <= e->off) {
		if (reserve(x, 1))
			return -ENOMEM;
		x->v[x->n++] = *e;
		return 0;
	}
	if (ar_ext_punch(x, e->off, e->len))
		return -ENOMEM;
	return insert(x, e, 1);
}

int ar_ext_clone(struct ar_extents *dst, uint64_t doff,
		 const struct ar_extents *src, uint64_t soff, uint64_t len)
{
	uint64_t send = soff + len;
	struct ar_extent *tmp = NULL;
	uint32_t n = 0, i;
	int ret;

	if (!len)
		return 0;
	/* Taken aside first: src may be dst. */
	i = ar_ext_find(src, soff);
	for (uint32_t j = i; j < src->n && src->v[j].off < send; j++)
		n++;
	if (n) {
		tmp = malloc((size_t)n * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		memcpy(tmp, &src->v[i], (size_t)n * sizeof(*tmp));
		if (tmp[0].off < soff)
			advance(&tmp[0], soff - tmp[0].off);
		if (ext_end(&tmp[n - 1]) > send)
			tmp[n - 1].len = send - tmp[n - 1].off;
		for (i = 0; i < n; i++)
			tmp[i].off = tmp[i].off - soff + doff;
	}
	ret = ar_ext_punch(dst, doff, len);
	if (!ret)
		ret = insert(dst, tmp, n);
	free(tmp);
	return ret;
}

int ar_ext_copy(struct ar_extents *dst, const struct ar_extents *src)
{
	dst->n = 0;
	if (!src->n)
		return 0;
	if (reserve(dst, src->n))
		return -ENOMEM;
	memcpy(dst->v, src->v, (size_t)src->n * sizeof(src->v[0]));
	dst->n = src->n;
	return 0;
}

void ar_ext_free(struct ar_extents *x)
{
	free(x->v);
	x->v = NULL;
	x->n = x->cap = 0;
}
