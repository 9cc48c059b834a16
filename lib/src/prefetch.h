/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What to ask the kernel to read ahead while the reader passes over data
 * it skips (bstream_reader_set_data_filter()).  Pure bookkeeping on input offsets, no I/O: the reader turns the
 * ranges into POSIX_FADV_WILLNEED.
 */
#ifndef BSTREAM_PREFETCH_H
#define BSTREAM_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Commands whose heads are asked for ahead of the one about to be read,
 * once the lengths of the commands passed over repeat with a period of at
 * most PREFETCH_PERIOD_MAX; without one, the window asked for ahead (the
 * next one once half of the last is passed), from PREFETCH_WINDOW_MIN
 * doubling up to PREFETCH_WINDOW.
 */
#define PREFETCH_DEPTH		96u
#define PREFETCH_PERIOD_MAX	32u
#define PREFETCH_WINDOW		(8u << 20)
#define PREFETCH_WINDOW_MIN	(256u << 10)
/* At most this many ranges come out of one call. */
#define PREFETCH_MAX_RANGES	PREFETCH_DEPTH

struct prefetch_range {
	uint64_t off;
	uint64_t len;
};

struct prefetch {
	/* Lengths of the last commands passed over, adjacent, of one head. */
	uint64_t len[2 * PREFETCH_PERIOD_MAX];
	uint64_t seen;		/* how many of them (the ring holds the last) */
	unsigned int period;	/* of len[], 0: none found */
	uint64_t next_cmd;	/* where the last command passed over ended */
	uint64_t head;		/* bytes read of each */
	uint64_t asked_cmd;	/* first predicted head not yet asked for */
	uint64_t window_to;	/* end of the last window asked for */
	uint64_t window;	/* size of the next one (0: PREFETCH_WINDOW_MIN) */
};

/*
 * The command at off, total bytes long, was passed over after reading
 * its first head bytes (the next command starts at off + total).  Stores
 * what to ask for in out (up to PREFETCH_MAX_RANGES ranges) and returns
 * how many.
 *
 * Where the lengths of adjacent commands repeat (the kernel sends each
 * extent as equal WRITEs and a shorter last one), the lengths ahead are
 * predicted to repeat too, and only the heads of the next PREFETCH_DEPTH
 * commands are asked for, not the data between them.  Otherwise the file
 * ahead is asked for whole, by windows.
 */
size_t prefetch_passed(struct prefetch *p, uint64_t off, uint64_t total,
		       uint64_t head, struct prefetch_range *out);

#endif
