// SPDX-License-Identifier: GPL-2.0
/*
 * Page cache residency of a file range, by mincore(2) on a mapping that
 * is never touched (so no page is read or faulted in).  The range is
 * looked at a window at a time, and the look stops as soon as the pages
 * found missing settle the answer, so a cold file costs one window.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "residency.h"

/* Pages looked at per mapping (16 MiB of 4 KiB pages), a vector on the stack. */
#define WINDOW_PAGES	4096u

bool residency_mostly_cached(int fd, off_t start, off_t end)
{
	unsigned char vec[WINDOW_PAGES];
	long page = sysconf(_SC_PAGESIZE);
	off_t from, total, missing = 0, allowed;

	if (page <= 0 || start < 0 || end <= start)
		return false;
	from = start / page * page;
	total = (end - from + page - 1) / page;
	allowed = total / 8;
	while (from < end) {
		off_t pages = (end - from + page - 1) / page;
		size_t len;
		void *map;

		if (pages > WINDOW_PAGES)
			pages = WINDOW_PAGES;
		len = (size_t)pages * (size_t)page;
		map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, from);
		if (map == MAP_FAILED)
			return false;
		if (mincore(map, len, vec)) {
			munmap(map, len);
			return false;
		}
		munmap(map, len);
		for (off_t i = 0; i < pages; i++)
			missing += !(vec[i] & 1);
		if (missing > allowed)
			return false;
		from += (off_t)len;
	}
	return true;
}
