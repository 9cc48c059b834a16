// SPDX-License-Identifier: GPL-2.0
/*
 * Replays fuzz inputs without libFuzzer (built with gcc and ASan/UBSan for
 * the unit tests): one TAP line per file given on the command line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int main(int argc, char **argv)
{
	/* The target may silence stdout/stderr: keep our own stream for TAP. */
	FILE *tap = fdopen(dup(STDOUT_FILENO), "w");
	int n = 0;

	if (!tap)
		return 1;
	setvbuf(tap, NULL, _IONBF, 0);
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf = NULL;
		size_t len = 0, cap = 0, got;

		if (!f) {
			fprintf(tap, "not ok %d - cannot open '%s'\n", ++n, argv[i]);
			return 1;
		}
		do {
			if (len == cap) {
				cap = cap ? cap * 2 : 65536;
				buf = realloc(buf, cap);
				if (!buf)
					return 1;
			}
			got = fread(buf + len, 1, cap - len, f);
			len += got;
		} while (got);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		/* A crash never gets here; ASan ends the process. */
		fprintf(tap, "ok %d - replay %s\n", ++n, argv[i]);
	}
	return 0;
}
