// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests (TAP) of residency_mostly_cached() (lib/src/residency.c),
 * which decides whether the reader reads a stream file with O_DIRECT.
 * Pages written and not yet written back are in the page cache on any
 * file system, and the holes of a sparse file are not, so the files here
 * are made of both: a hole only, data only, half and half, 15/16 data,
 * and data over more than one window of the look; plus an empty range, a
 * range that starts inside a page and a descriptor that cannot be mapped.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "residency.h"

#include "tap.h"

#define MIB (1 << 20)

static const char *dir_name(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp ? tmp : "/tmp";
}

/* A new file of size bytes (a hole) whose [from, to) is written. */
static int make_file(off_t size, off_t from, off_t to)
{
	static char block[MIB];
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/test-residency-XXXXXX", dir_name());
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	memset(block, 'r', sizeof(block));
	if (ftruncate(fd, size))
		goto fail;
	for (off_t at = from; at < to; at += MIB) {
		size_t n = to - at < MIB ? (size_t)(to - at) : MIB;

		if (pwrite(fd, block, n, at) != (ssize_t)n)
			goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

static void check(const char *what, off_t size, off_t from, off_t to,
		  off_t start, off_t end, bool want)
{
	int fd = make_file(size, from, to);

	if (!ok(fd >= 0, "%s: file made in %s", what, dir_name()))
		return;
	ok(residency_mostly_cached(fd, start, end) == want,
	   "%s: [%lld, %lld) %s", what, (long long)start, (long long)end,
	   want ? "mostly cached" : "not mostly cached");
	close(fd);
}

int main(void)
{
	int pipefd[2];

	check("a hole only", 8 * MIB, 0, 0, 0, 8 * MIB, false);
	check("data only", 8 * MIB, 0, 8 * MIB, 0, 8 * MIB, true);
	check("data, then a hole", 8 * MIB, 0, 4 * MIB, 0, 8 * MIB, false);
	check("data, then a hole: the data", 8 * MIB, 0, 4 * MIB, 0, 4 * MIB, true);
	check("data, then a hole: the hole", 8 * MIB, 0, 4 * MIB, 4 * MIB, 8 * MIB, false);
	check("15/16 data", 16 * MIB, MIB, 16 * MIB, 0, 16 * MIB, true);
	check("3/4 data", 16 * MIB, 4 * MIB, 16 * MIB, 0, 16 * MIB, false);
	check("data over several windows", 40 * MIB, 0, 40 * MIB, 0, 40 * MIB, true);
	check("a hole after several windows of data", 48 * MIB, 0, 40 * MIB, 0, 48 * MIB, false);
	check("from inside a page", 8 * MIB, 0, 8 * MIB, 1000, 8 * MIB - 5, true);
	check("an empty range", 8 * MIB, 0, 8 * MIB, 4 * MIB, 4 * MIB, false);
	if (ok(pipe(pipefd) == 0, "a pipe made")) {
		ok(!residency_mostly_cached(pipefd[0], 0, MIB), "a pipe: not mostly cached");
		close(pipefd[0]);
		close(pipefd[1]);
	}
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
