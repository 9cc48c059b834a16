/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resume tokens and the stream prefix checksum, shared by receive (which
 * prints a token for a partial subvolume) and send (which continues the
 * stream from one).  Format and reasoning: docs/resume.md.
 *
 * A token is one line of text without spaces:
 *
 *   bsresume1,uuid=U,ctransid=N,parent=U|none,parent_ctransid=N,
 *   version=V,flags=0xF,index=K,offset=O,prefix=0xC[,meta=0xM]
 *
 * (one line, no line break): the stream (sent subvolume, its parent for an
 * incremental stream, protocol version, what the prefix showed of the send
 * flags) and the resume point: commands 1..K of the subvolume's stream,
 * O bytes from its stream header on, are applied; C is the prefix
 * checksum of those bytes, M their metadata checksum (the bytes without
 * file data, which a kernel that resumes by itself can check without
 * reading the data).  Tokens written before M existed lack it.
 */
#ifndef BTRFS_STREAM_CLI_RESUME_TOKEN_H
#define BTRFS_STREAM_CLI_RESUME_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <btrfs-stream/stream.h>

#define RESUME_TOKEN_MAGIC "bsresume1"
/* Longest token (with the NUL). */
#define RESUME_TOKEN_MAX 400

/*
 * The private command that opens a continuation stream, right after the
 * stream header.  Its number is above every protocol version's last
 * command, so a receiver that does not know it stops on it (docs/resume.md).
 * Attributes: UUID, CTRANSID (the stream), CLONE_UUID, CLONE_CTRANSID (the
 * parent, if any), SIZE (the index K), FILE_OFFSET (the offset O), INO (the
 * prefix checksum C), MODE (the flags of the token).
 */
#define RESUME_CMD BTRFS_SEND_C_RESUME

/* What the prefix showed of the send flags (token field "flags"). */
#define RESUME_FL_COMPRESSED	0x1	/* an ENCODED_WRITE was seen */
#define RESUME_FL_NO_DATA	0x2	/* an UPDATE_EXTENT was seen */

struct resume_token {
	uint8_t uuid[16];
	uint64_t ctransid;
	bool has_parent;
	uint8_t parent_uuid[16];
	uint64_t parent_ctransid;
	uint32_t version;
	uint64_t flags;			/* RESUME_FL_* */
	uint64_t index;			/* commands applied, 1..index */
	uint64_t offset;		/* their bytes, from the stream header on */
	uint32_t prefix;		/* resume_prefix_*() of those bytes */
	bool has_meta;			/* meta is known (token field "meta") */
	uint32_t meta;			/* resume_meta_*() of those bytes */
};

/* Write t as one line (no newline) into buf. */
void resume_token_format(const struct resume_token *t, char *buf, size_t size);
/*
 * Parse a token: 0, or -1 with the reason in why (which field is missing
 * or malformed).  Trailing whitespace (a newline) is accepted.
 */
int resume_token_parse(const char *s, struct resume_token *t, char *why, size_t wlen);


/*
 * The prefix checksum: CRC32C over the stream header and then over each
 * command's 10-byte header as it is on the wire.  A command header holds
 * the CRC32C of the whole command, so this covers every byte of the
 * prefix at the cost of 10 bytes per command (docs/resume.md).
 */
uint32_t resume_prefix_start(uint32_t version);
uint32_t resume_prefix_add(uint32_t sum, const struct bstream_cmd *c);

/*
 * The metadata checksum: CRC32C over the stream header, then over each
 * command as it is on the wire but with the CRC field of its header zero
 * and without the value bytes of its DATA attribute (WRITE and
 * ENCODED_WRITE).  It is what a sender knows of the prefix without
 * reading file data (docs/resume.md, "The metadata checksum").
 */
uint32_t resume_meta_start(uint32_t version);
uint32_t resume_meta_add(uint32_t sum, const struct bstream_cmd *c);

/*
 * Compare two tokens' streams: NULL if they name the same stream, else
 * what differs ("sent subvolume", "parent", "protocol version").
 */
const char *resume_token_stream_differs(const struct resume_token *a,
					const struct resume_token *b);

#endif
