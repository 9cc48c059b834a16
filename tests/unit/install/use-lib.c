// SPDX-License-Identifier: GPL-2.0
/*
 * A program outside the tree, built against the installed library
 * (tests/unit/install.t): write a small stream into memory with the writer,
 * read it back with the reader and print each command.
 */
#include <stdio.h>
#include <btrfs-stream/stream.h>

int main(void)
{
	static unsigned char buf[4096];
	const struct bstream_cmd *cmd;
	struct bstream_writer *w = bstream_writer_new();
	struct bstream_reader *r = bstream_reader_new(NULL);
	int ret;

	if (!w || !r)
		return 2;
	if (bstream_writer_set_buf(w, buf, sizeof(buf)) ||
	    bstream_write_header(w, 1) ||
	    bstream_cmd_begin(w, BTRFS_SEND_C_MKDIR) ||
	    bstream_put_string(w, BTRFS_SEND_A_PATH, "dir") ||
	    bstream_put_u64(w, BTRFS_SEND_A_INO, 257) ||
	    bstream_cmd_end(w, NULL) ||
	    bstream_cmd_begin(w, BTRFS_SEND_C_END) ||
	    bstream_cmd_end(w, NULL)) {
		fprintf(stderr, "write: %s\n", bstream_writer_errmsg(w));
		return 1;
	}
	if (bstream_reader_set_mem(r, buf, bstream_writer_offset(w)))
		return 1;
	while ((ret = bstream_next(r, &cmd)) > 0)
		printf("v%u %s %s %llu\n", bstream_reader_version(r),
		       bstream_cmd_name(cmd->cmd), cmd->path ? cmd->path : "-",
		       (unsigned long long)cmd->ino);
	if (ret < 0) {
		fprintf(stderr, "read: %s\n", bstream_reader_errmsg(r));
		return 1;
	}
	bstream_reader_free(r);
	bstream_writer_free(w);
	return 0;
}
