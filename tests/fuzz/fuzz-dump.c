// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: btrfs-stream dump (text and --json) on arbitrary input,
 * with CRCs repaired so that the formatting code sees many commands.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz-common.h"
#include "../../cli/cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/*
	 * Output is not checked here, only that nothing goes wrong.  stderr
	 * stays for sanitizer reports (make fuzz runs with -close_fd_mask=2).
	 */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

static void run(const uint8_t *data, size_t size, const char *mode)
{
	char path[64];
	char *argv[] = { "dump", "-E", "0", "-f", path, (char *)mode, NULL };
	int argc = mode ? 6 : 5;
	int fd = memfd_create("fuzz-stream", 0);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	optind = 0;
	cmd_dump.run(&cmd_dump, argc, argv);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed = fuzz_fix_crcs(data, size);

	if (!fixed)
		return 0;
	run(fixed, size, NULL);
	run(fixed, size, "--json");
	run(fixed, size, "-v");
	free(fixed);
	return 0;
}
