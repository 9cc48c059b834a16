// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests (TAP) of the read-ahead advice given while the reader
 * passes over skipped data (lib/src/prefetch.c): replaying the commands
 * of a stream layout through prefetch_passed() as the reader would, in a
 * run of equal commands the header of every later command is asked for
 * before it is reached and none of the data between is; where lengths
 * vary, the file ahead is asked for whole, by windows; a break in a run
 * (another length, a command read in between) falls back to windows and
 * a new run takes over again; extents sent as equal WRITEs and a shorter
 * last one repeat with a period, which is learnt.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prefetch.h"

#include "tap.h"

/* One command of a layout: where it is, how long, what is read of it. */
struct cmd {
	uint64_t off, total, head;
	bool passed;		/* its data is skipped (else read whole) */
	uint64_t asked_at;	/* commands passed before its head was covered, +1 */
};

#define MAXCMDS 4000
#define PAGE 4096u

/* Bytes asked for, one bit per page of the input. */
struct asked {
	uint8_t *page;
	uint64_t npages;
};

static void mark(struct asked *a, const struct prefetch_range *r)
{
	for (uint64_t p = r->off / PAGE; p <= (r->off + r->len - 1) / PAGE && p < a->npages; p++)
		a->page[p] = 1;
}

static bool covered(const struct asked *a, uint64_t off, uint64_t len)
{
	for (uint64_t p = off / PAGE; p <= (off + len - 1) / PAGE; p++)
		if (p >= a->npages || !a->page[p])
			return false;
	return true;
}

/*
 * Pass over the layout as the reader does: every passed command is
 * reported; after each, note which later heads are covered and how far
 * ahead of the reader they were asked for.
 */
static void replay(struct cmd *c, size_t n, struct asked *a)
{
	struct prefetch p;
	struct prefetch_range r[PREFETCH_DEPTH];
	uint64_t end = c[n - 1].off + c[n - 1].total;

	memset(&p, 0, sizeof(p));
	a->npages = end / PAGE + 1 + PREFETCH_WINDOW / PAGE;
	a->page = calloc(a->npages, 1);
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (!c[i].passed)
			continue;
		k = prefetch_passed(&p, c[i].off, c[i].total, c[i].head, r);
		if (k > PREFETCH_DEPTH)
			k = PREFETCH_DEPTH;
		for (size_t j = 0; j < k; j++)
			mark(a, &r[j]);
		for (size_t j = i + 1; j < n; j++)
			if (!c[j].asked_at && covered(a, c[j].off, c[j].head))
				c[j].asked_at = i + 1;
	}
}

/* Append a command; its offset follows the last one. */
static void add(struct cmd *c, size_t *n, uint64_t total, uint64_t head, bool passed)
{
	c[*n].off = *n ? c[*n - 1].off + c[*n - 1].total : 17;
	c[*n].total = total;
	c[*n].head = head;
	c[*n].passed = passed;
	(*n)++;
}

/*
 * Pages of the layout asked for that hold neither a head nor a command
 * that is read.
 */
static uint64_t data_pages_asked(const struct cmd *c, size_t n, const struct asked *a)
{
	uint64_t end = (c[n - 1].off + c[n - 1].total + PAGE - 1) / PAGE;
	uint8_t *need = calloc(a->npages, 1);
	uint64_t extra = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t len = c[i].passed ? c[i].head : c[i].total;

		for (uint64_t p = c[i].off / PAGE; p <= (c[i].off + len - 1) / PAGE; p++)
			need[p] = 1;
	}
	for (uint64_t p = 0; p < end; p++)
		extra += a->page[p] && !need[p];
	free(need);
	return extra;
}

/*
 * A file sent as the kernel does: equal 48 KiB WRITEs (49152 bytes of
 * data behind a 40-byte head, as a v1 WRITE to "o257-7-0" has), and a
 * short last one.
 */
static void add_file(struct cmd *c, size_t *n, int writes, uint64_t head)
{
	for (int i = 0; i < writes; i++)
		add(c, n, 49152 + head, head, true);
	add(c, n, 20000 + head, head, true);
}

static void test_equal_run(void)
{
	struct cmd *c = calloc(MAXCMDS, sizeof(*c));
	struct asked a;
	size_t n = 0, late = 0, shallow = 0;
	uint64_t extra, window_pages = PREFETCH_WINDOW / PAGE + 1;

	add(c, &n, 60, 60, false);
	add_file(c, &n, 2000, 512);
	replay(c, n, &a);
	/* The first two start the run; from then on every head is asked early. */
	for (size_t i = 3; i < n; i++) {
		if (!c[i].asked_at || c[i].asked_at >= i)
			late++;
		else if (i >= PREFETCH_DEPTH + 3 && i - c[i].asked_at < PREFETCH_DEPTH / 2)
			shallow++;
	}
	ok(late == 0, "a run of 2000 equal WRITEs: every head after the second is asked "
	   "for before the reader reaches it (%zu late)", late);
	ok(shallow == 0, "each is asked for at least %u commands ahead (%zu not)",
	   PREFETCH_DEPTH / 2, shallow);
	extra = data_pages_asked(c, n, &a);
	ok(extra <= window_pages, "of the %" PRIu64 " pages of skipped data, only the first "
	   "window's are asked for (%" PRIu64 " pages, window %" PRIu64 ")",
	   (c[n - 1].off + c[n - 1].total) / PAGE, extra, window_pages);
	free(a.page);
	free(c);
}

static void test_varying(void)
{
	struct cmd *c = calloc(MAXCMDS, sizeof(*c));
	struct asked a;
	uint64_t rng = 7, end;
	size_t n = 0;
	bool all;

	for (int i = 0; i < 1500; i++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		add(c, &n, 16384 + (rng >> 33) % 100000, 40 + (rng >> 20) % 100, true);
	}
	replay(c, n, &a);
	end = c[n - 1].off + c[n - 1].total;
	all = covered(&a, c[1].off, end - c[1].off);
	ok(all, "commands of varying length: everything after the first is asked for "
	   "(%" PRIu64 " bytes), by windows", end - c[1].off);
	free(a.page);
	free(c);
}

static void test_breaks(void)
{
	struct cmd *c = calloc(MAXCMDS, sizeof(*c));
	struct asked a;
	size_t n = 0, f2, f3, late = 0;
	uint64_t extra, window_pages = PREFETCH_WINDOW / PAGE + 1;

	add_file(c, &n, 400, 100);
	/* Commands read in between (a chown, a short write read through). */
	add(c, &n, 60, 60, false);
	add(c, &n, 3000, 3000, false);
	f2 = n;
	add_file(c, &n, 400, 120);
	/* A command passed over that matches the run, but after one that is read. */
	add(c, &n, 49152 + 120, 120, false);
	f3 = n;
	add_file(c, &n, 400, 120);
	replay(c, n, &a);
	for (size_t i = 0; i < n; i++) {
		bool run_start = i < 3 || (i >= f2 && i < f2 + 2) || (i >= f3 && i < f3 + 2);

		if (!run_start && c[i].passed && (!c[i].asked_at || c[i].asked_at >= i))
			late++;
	}
	ok(late == 0, "three runs broken by other lengths and by commands read: each "
	   "head but the first two of a run is asked for early (%zu late)", late);
	ok(covered(&a, c[f2 - 3].off + c[f2 - 3].total, c[f2 + 2].off - c[f2 - 3].off) &&
	   covered(&a, c[f3 - 2].off + c[f3 - 2].total, c[f3 + 2].off - c[f3 - 2].off),
	   "where a run breaks, the file ahead is asked for up to the next run");
	extra = data_pages_asked(c, n, &a);
	ok(extra <= 3 * window_pages + 2 * PREFETCH_DEPTH,
	   "no more skipped data asked for than three windows and the heads predicted past "
	   "the end of two runs (%" PRIu64 " pages)", extra);
	free(a.page);
	free(c);
}

/* 1 MiB extents as the kernel sends them: 21 WRITEs of 48 KiB and one of 16 KiB. */
static void test_extents(void)
{
	struct cmd *c = calloc(MAXCMDS, sizeof(*c));
	struct asked a;
	/* The period is known once two extents are passed over: the next head is late. */
	size_t n = 0, late = 0, shallow = 0, learn = 2 * 22 + 1;
	uint64_t extra, window_pages = PREFETCH_WINDOW / PAGE + 1;

	for (int e = 0; e < 120; e++) {
		for (int i = 0; i < 21; i++)
			add(c, &n, 49152 + 40, 40, true);
		add(c, &n, 16384 + 40, 40, true);
	}
	replay(c, n, &a);
	for (size_t i = learn; i < n; i++) {
		if (!c[i].asked_at || c[i].asked_at >= i)
			late++;
		else if (i >= learn + PREFETCH_DEPTH && i - c[i].asked_at < PREFETCH_DEPTH / 2)
			shallow++;
	}
	ok(late == 0 && shallow == 0, "1 MiB extents in 48 KiB WRITEs: once two extents are "
	   "seen, every head is asked for before it is reached (%zu not), soon %u or more "
	   "commands ahead (%zu not)", late, PREFETCH_DEPTH / 2, shallow);
	extra = data_pages_asked(c, n, &a);
	ok(extra <= window_pages, "of the %" PRIu64 " pages of skipped data, only the first "
	   "window's are asked for (%" PRIu64 " pages)",
	   (c[n - 1].off + c[n - 1].total) / PAGE, extra);
	free(a.page);
	free(c);
}

int main(void)
{
	test_equal_run();
	test_varying();
	test_breaks();
	test_extents();
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
