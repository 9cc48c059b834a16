// SPDX-License-Identifier: GPL-2.0
/*
 * write-paths: the CPU cost of the ways receive can put a checked WRITE's
 * data into the destination file (docs/data-path.md).  Writes SIZE MiB in
 * 128 KiB commands' worth from a user buffer (as the stream reader holds
 * checked data) into FILE, each way in turn, and prints user and system
 * CPU milliseconds per GiB:
 *
 *   pwrite          pwrite(2) from the buffer: one copy, into the page cache
 *   copy+pwrite     memcpy into a fresh job buffer first (what a queued
 *                   write to receive's worker thread costs), then pwrite
 *   vmsplice+splice the buffer's pages into a pipe by reference, spliced
 *                   into the file: still one copy, two system calls
 *
 * Usage: write-paths FILE [SIZE_MIB] [ROUNDS]
 * Build: cc -O2 -o build/bench/write-paths bench/write-paths.c
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK (128u << 10)

static double cpu_ms(int who_sys)
{
	struct rusage ru;
	struct timeval *tv = who_sys ? &ru.ru_stime : &ru.ru_utime;

	getrusage(RUSAGE_SELF, &ru);
	return tv->tv_sec * 1e3 + tv->tv_usec / 1e3;
}

static int write_pwrite(int fd, const char *buf, off_t off)
{
	return pwrite(fd, buf, CHUNK, off) == CHUNK ? 0 : -1;
}

static int write_copy_pwrite(int fd, const char *buf, off_t off)
{
	char *job = malloc(CHUNK);
	int ret;

	if (!job)
		return -1;
	memcpy(job, buf, CHUNK);
	ret = write_pwrite(fd, job, off);
	free(job);
	return ret;
}

static int pfd[2];

static int write_vmsplice(int fd, const char *buf, off_t off)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = CHUNK };
	size_t left = CHUNK;

	while (iov.iov_len) {
		ssize_t n = vmsplice(pfd[1], &iov, 1, 0);

		if (n <= 0)
			return -1;
		iov.iov_base = (char *)iov.iov_base + n;
		iov.iov_len -= n;
		while (left > iov.iov_len) {
			ssize_t m = splice(pfd[0], NULL, fd, &off, left - iov.iov_len, 0);

			if (m <= 0)
				return -1;
			left -= m;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, const char *, off_t);
	} ways[] = {
		{ "pwrite", write_pwrite },
		{ "copy+pwrite", write_copy_pwrite },
		{ "vmsplice+splice", write_vmsplice },
	};
	size_t mib = argc > 2 ? strtoul(argv[2], NULL, 0) : 1024;
	int rounds = argc > 3 ? atoi(argv[3]) : 3;
	size_t n = (mib << 20) / CHUNK;
	char *buf;

	if (argc < 2 || !n) {
		fprintf(stderr, "usage: write-paths FILE [SIZE_MIB] [ROUNDS]\n");
		return 2;
	}
	if (posix_memalign((void **)&buf, 4096, CHUNK) || pipe(pfd))
		return 1;
	fcntl(pfd[1], F_SETPIPE_SZ, CHUNK);
	for (size_t i = 0; i < CHUNK; i++)
		buf[i] = (char)(i * 7 + 1);
	printf("way\tround\tuser_ms_per_gib\tsys_ms_per_gib\n");
	for (int r = 1; r <= rounds; r++) {
		for (size_t w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
			int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
			double u0 = cpu_ms(0), s0 = cpu_ms(1), scale = 1024.0 / mib;

			if (fd < 0)
				return 1;
			for (size_t i = 0; i < n; i++) {
				/* A different page each time, as a stream's data is. */
				buf[(i * 4096) % CHUNK] = (char)i;
				if (ways[w].fn(fd, buf, (off_t)i * CHUNK)) {
					perror(ways[w].name);
					return 1;
				}
			}
			printf("%s\t%d\t%.0f\t%.0f\n", ways[w].name, r,
			       (cpu_ms(0) - u0) * scale, (cpu_ms(1) - s0) * scale);
			close(fd);
			unlink(argv[1]);
		}
	}
	return 0;
}
