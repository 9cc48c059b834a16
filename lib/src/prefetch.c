// SPDX-License-Identifier: GPL-2.0
/*
 * Read-ahead advice for a reader that passes over data (see prefetch.h).
 *
 * A seek over skipped data defeats the kernel's own read-ahead, so
 * without advice each header after one is a small synchronous read.
 * Asking for the whole file ahead keeps the disk busy but reads all the
 * data that is skipped.  The kernel sends each extent of a file as WRITEs
 * of one size and a shorter last one, so the lengths of the commands
 * passed over repeat (period 22 for 1 MiB extents in 48 KiB WRITEs); from
 * the lengths seen the next headers are predicted and only their pages
 * are asked for: for 48 KiB WRITEs, about one page in twelve.
 */
#include <stdbool.h>
#include "prefetch.h"

#define HISTORY (2 * PREFETCH_PERIOD_MAX)

/* Length of the command back commands before the next one (1: the last). */
static uint64_t len_back(const struct prefetch *p, uint64_t back)
{
	return p->len[(p->seen - back) % HISTORY];
}

/* Whether the last 2 * period lengths repeat with that period. */
static bool has_period(const struct prefetch *p, unsigned int period)
{
	if (p->seen < 2 * (uint64_t)period)
		return false;
	for (unsigned int i = 1; i <= period; i++)
		if (len_back(p, i) != len_back(p, i + period))
			return false;
	return true;
}

/* The shortest period of the lengths seen, 0 if none; the last one first. */
static unsigned int find_period(const struct prefetch *p)
{
	if (p->period && has_period(p, p->period))
		return p->period;
	for (unsigned int period = 1; period <= PREFETCH_PERIOD_MAX; period++)
		if (has_period(p, period))
			return period;
	return 0;
}

/*
 * The window ahead of at, when the last one is half passed.  Windows grow
 * from PREFETCH_WINDOW_MIN while no period is found: the first commands
 * of a run are passed over before their period is known.
 */
static size_t ask_window(struct prefetch *p, uint64_t at, struct prefetch_range *out)
{
	uint64_t from = at > p->window_to ? at : p->window_to;

	if (!p->window)
		p->window = PREFETCH_WINDOW_MIN;
	if (at + p->window / 2 < p->window_to)
		return 0;
	if (at + p->window <= from)
		return 0;
	out->off = from;
	out->len = at + p->window - from;
	p->window_to = at + p->window;
	if (p->window < PREFETCH_WINDOW)
		p->window *= 2;
	return 1;
}

/*
 * The heads of the commands predicted from at on by repeating the last
 * period lengths, up to PREFETCH_DEPTH ahead, not asked for yet.
 */
static size_t ask_heads(struct prefetch *p, uint64_t at, struct prefetch_range *out)
{
	uint64_t pos = at;
	size_t n = 0;

	for (unsigned int k = 0; k < PREFETCH_DEPTH; k++) {
		/* A window asked for earlier may still cover it. */
		if (pos >= p->asked_cmd && pos + p->head > p->window_to) {
			out[n].off = pos;
			out[n].len = p->head;
			n++;
		}
		pos += len_back(p, p->period - k % p->period);
	}
	if (pos > p->asked_cmd)
		p->asked_cmd = pos;
	return n;
}

size_t prefetch_passed(struct prefetch *p, uint64_t off, uint64_t total,
		       uint64_t head, struct prefetch_range *out)
{
	uint64_t at = off + total;
	unsigned int period;

	/* Lengths repeat only among adjacent commands of one head. */
	if (!p->seen || off != p->next_cmd || head != p->head)
		p->seen = 0;
	p->len[p->seen % HISTORY] = total;
	p->seen++;
	p->next_cmd = at;
	p->head = head;
	period = find_period(p);
	if (period != p->period) {
		/* Heads predicted before do not count: ask again from here. */
		p->asked_cmd = at;
		p->period = period;
	}
	if (period)
		p->window = PREFETCH_WINDOW_MIN;
	if (!period || total <= head)
		return ask_window(p, at, out);
	return ask_heads(p, at, out);
}
