/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error codes of libbtrfs-stream.
 *
 * Every fallible library function returns 0 (or a positive count) on
 * success and the negated code below on failure; the handle then also
 * holds a message with the context (byte offset, command, attribute).
 * The numbers are stable: tests and scripts may rely on them.
 */
#ifndef BTRFS_STREAM_ERRORS_H
#define BTRFS_STREAM_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

enum bstream_error {
	BSTREAM_OK = 0,
	/* Environment */
	BSTREAM_E_IO = 1,		/* read(2)/write(2) failed, see errno */
	BSTREAM_E_NOMEM = 2,		/* allocation failed */
	BSTREAM_E_INVAL = 3,		/* bad argument or call order (API misuse) */
	BSTREAM_E_NOSPACE = 4,		/* writer: caller buffer too small */
	BSTREAM_E_CALLBACK = 5,		/* a consumer callback returned an error */
	/* Stream header */
	BSTREAM_E_EMPTY = 10,		/* no byte at all where a stream was expected */
	BSTREAM_E_HEADER_TRUNC = 11,	/* EOF inside the 17-byte stream header */
	BSTREAM_E_BAD_MAGIC = 12,	/* header magic is not "btrfs-stream\0" */
	BSTREAM_E_VERSION = 13,		/* header version not supported */
	/* Command framing */
	BSTREAM_E_NO_END = 20,		/* EOF where a command was expected (no END) */
	BSTREAM_E_CMD_TRUNC = 21,	/* EOF inside a command header or payload */
	BSTREAM_E_CMD_TOO_BIG = 22,	/* command length above the reader's limit */
	BSTREAM_E_CRC = 23,		/* CRC32C of the command does not match */
	/* Attributes */
	BSTREAM_E_TLV_TRUNC = 30,	/* attribute header or value past the command end */
	BSTREAM_E_ATTR_TYPE = 31,	/* attribute number 0 or above the maximum */
	BSTREAM_E_ATTR_SIZE = 32,	/* fixed-size attribute with the wrong length */
	BSTREAM_E_ATTR_MISSING = 33,	/* attribute required by the command is absent */
	BSTREAM_E_CMD_VERSION = 34,	/* strict mode: command/attribute newer than the header */

	BSTREAM_E_MAX = 34,
};

/* Short fixed description of a code ("crc mismatch"); never NULL. */
const char *bstream_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif
