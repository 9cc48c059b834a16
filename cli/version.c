// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs-stream --version: the release and the stream protocol versions the
 * tool reads and writes, so a user can tell whether two machines' tools and
 * kernels can exchange streams.
 */
#include <stdio.h>
#include <btrfs-stream/stream.h>
#include "cli.h"

/* The build defines it from the top-level VERSION file (cli/build.mk). */
#ifndef BTRFS_STREAM_VERSION
#error "BTRFS_STREAM_VERSION is defined by the build from VERSION"
#endif

int cli_print_version(void)
{
	printf("%s %s (stream protocol: reads 1-%d, writes 1-%d)\n", PROG,
	       BTRFS_STREAM_VERSION, BSTREAM_VERSION_MAX, CLI_SEND_PROTO_MAX);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
