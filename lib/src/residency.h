/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How much of a file the page cache holds: the reader reads a stream file
 * with O_DIRECT to keep a stream it reads once out of memory, which only
 * pays when the stream is not there already.
 */
#ifndef BSTREAM_RESIDENCY_H
#define BSTREAM_RESIDENCY_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Whether the page cache holds at least 7/8 of the pages of fd's file in
 * [start, end).  False where that cannot be told (the file cannot be
 * mapped) and for an empty range.
 */
bool residency_mostly_cached(int fd, off_t start, off_t end);

#endif
