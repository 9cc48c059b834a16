/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbtrfs-stream: read and write btrfs send streams (protocol v1, v2, v3).
 *
 * This is the only public header of the library.  The format itself is
 * described in docs/stream-format.md and frozen in send-wire.h; the design of
 * the library in docs/stream-library.md.
 *
 * Conventions
 *  - Handles are opaque, created by *_new() and released by *_free(), which
 *    accept NULL.  There is no global state: two handles never interact, and
 *    one handle must not be used by two threads at once.
 *  - Fallible functions return a negative enum bstream_error (see errors.h)
 *    and store a message on the handle, retrievable with *_errmsg().  The
 *    library never prints, aborts or exits.
 *  - Pointers handed out by the reader stay valid until the next call that
 *    advances it (bstream_next(), bstream_process() returning) or until the
 *    handle is freed.
 */
#ifndef BTRFS_STREAM_STREAM_H
#define BTRFS_STREAM_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <btrfs-stream/send-wire.h>
#include <btrfs-stream/errors.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Highest protocol version this library reads and writes. */
#define BSTREAM_VERSION_MAX	3

/*
 * A header version with this bit set (plus the real version, 1 to
 * BSTREAM_VERSION_MAX) opens a continuation stream: the rest of an
 * interrupted stream, written by `btrfs-stream send --resume`
 * (docs/resume.md).  Receivers that do not know it (btrfs-progs) refuse
 * the version before doing anything.  The reader accepts it, reports the
 * real version and tells continuations by bstream_reader_continuation();
 * the writer takes it in bstream_write_header().
 */
#define BSTREAM_VERSION_CONTINUATION	0x10000u

/* ---------------------------------------------------------------------- */
/* Protocol tables                                                         */

/* Value type of an attribute, implied by its number (spec 3.1). */
enum bstream_attr_type {
	BSTREAM_T_NONE = 0,	/* attribute 0: invalid */
	BSTREAM_T_U8,
	BSTREAM_T_U32,
	BSTREAM_T_U64,
	BSTREAM_T_UUID,		/* 16 bytes */
	BSTREAM_T_TIMESPEC,	/* le64 sec + le32 nsec */
	BSTREAM_T_STRING,	/* bytes, no NUL on the wire */
	BSTREAM_T_BINARY,	/* bytes, may be empty */
	BSTREAM_T_DATA,		/* file data: length-less in v2+ (spec 2.3.2) */
};

/* Lowercase name as btrfs receive --dump prints it ("set_xattr"); NULL if unknown. */
const char *bstream_cmd_name(unsigned int cmd);
/* Lowercase attribute name ("path_to"); NULL if unknown. */
const char *bstream_attr_name(unsigned int attr);
/* Type of attribute number attr (BSTREAM_T_NONE if out of range). */
enum bstream_attr_type bstream_attr_type(unsigned int attr);
/* Wire size of a fixed-size attribute type, 0 for variable sizes. */
size_t bstream_attr_type_size(enum bstream_attr_type type);
/* Bit (1 << attr) set for each attribute the command requires (spec 4). */
uint64_t bstream_cmd_required(unsigned int cmd);
/* Lookup by name for tools; return -1 if unknown. */
int bstream_cmd_from_name(const char *name);
int bstream_attr_from_name(const char *name);

/* ---------------------------------------------------------------------- */
/* CRC32C as used by the stream: seed 0, no final xor (spec 2.2)           */

enum bstream_crc_impl {
	BSTREAM_CRC_AUTO = 0,	/* fastest available on this CPU */
	BSTREAM_CRC_TABLE,	/* portable slicing-by-8 tables */
	BSTREAM_CRC_SSE42,	/* x86 crc32 instruction, 3-way interleaved */
	BSTREAM_CRC_PCLMUL,	/* x86 carry-less multiply folding + crc32 */
};

/* Raw register update: returns the new register; start with reg = 0. */
typedef uint32_t (*bstream_crc_fn)(uint32_t reg, const void *buf, size_t len);

/*
 * Return the implementation impl, or NULL if this CPU or build lacks it.
 * BSTREAM_CRC_AUTO never returns NULL.
 */
bstream_crc_fn bstream_crc_get(enum bstream_crc_impl impl);
/* Convenience: bstream_crc_get(BSTREAM_CRC_AUTO)(reg, buf, len). */
uint32_t bstream_crc32c(uint32_t reg, const void *buf, size_t len);

/* ---------------------------------------------------------------------- */
/* Reader                                                                  */

struct bstream_timespec {
	int64_t sec;
	uint32_t nsec;
};

/* One attribute as found in the current command. */
struct bstream_attr {
	const uint8_t *data;	/* value bytes (NULL if absent) */
	uint32_t len;		/* value length */
	uint32_t pos;		/* offset of the TLV header within the payload */
};

/*
 * A parsed, validated command.  Every attribute present has passed the TLV,
 * type and size checks; every attribute the command requires is present.
 * Fields of attributes that are absent are zero / NULL.
 */
struct bstream_cmd {
	uint16_t cmd;		/* command number (may be unknown, see known) */
	bool known;		/* cmd is a command this library knows */
	uint32_t len;		/* payload length (after the 10-byte header) */
	uint32_t crc;		/* CRC as stored (verified, see data_skipped) */
	uint32_t version;	/* protocol version of the enclosing substream */
	uint64_t offset;	/* byte offset of the command header in the input */
	uint64_t index;		/* 1-based command number in the input */
	unsigned int substream;	/* 0-based substream (stream header) number */
	const uint8_t *raw;	/* payload bytes (len of them, see data_skipped) */

	uint64_t present;	/* bit (1 << attr) for each attribute present */
	struct bstream_attr attr[BTRFS_SEND_A_MAX + 1];

	/* Decoded values; strings are NUL-terminated copies (len in attr[]). */
	const char *path, *path_to, *path_link, *clone_path, *xattr_name;
	const uint8_t *uuid, *clone_uuid;	/* 16 bytes each */
	uint64_t ctransid, clone_ctransid, ino, size, mode, uid, gid, rdev;
	uint64_t file_offset, clone_offset, clone_len, fileattr;
	uint64_t unencoded_file_len, unencoded_len, unencoded_offset;
	uint32_t fallocate_mode, compression, encryption, verity_block_size;
	uint8_t verity_algorithm;
	struct bstream_timespec atime, mtime, ctime, otime;
	/* DATA: points into the reader's buffer, no copy. */
	const uint8_t *data;
	uint32_t data_len;
	const uint8_t *xattr_data, *verity_salt, *verity_sig;
	uint32_t xattr_data_len, verity_salt_len, verity_sig_len;

	/* Input offset of the DATA bytes (0 if the command has no DATA). */
	uint64_t data_offset;
	/*
	 * The data filter (bstream_reader_set_data_filter()) declined the
	 * data: data is NULL, attr[BTRFS_SEND_A_DATA].data too, data_len
	 * and data_offset say where the bytes are, raw holds only the
	 * payload before them, and crc was not verified.
	 */
	bool data_skipped;
};

/* Reader flags. */
enum {
	/* Stop after the first END, reading nothing more (btrfs receive -e). */
	BSTREAM_READ_STOP_AT_END = 1u << 0,
	/* Reject commands and attributes above the header version's maximum. */
	BSTREAM_READ_STRICT_VERSION = 1u << 1,
	/* Skip CRC verification (never use on untrusted input). */
	BSTREAM_READ_NO_CRC = 1u << 2,
	/*
	 * Read a regular file through a sliding mmap window instead of
	 * read(2): no copy at all, RSS stays bounded.  The file must not
	 * shrink while it is read (that would raise SIGBUS); a growing file
	 * is fine.  Ignored for pipes and other descriptors.
	 */
	BSTREAM_READ_MMAP = 1u << 3,
	/*
	 * Read a regular file with O_DIRECT, where its file system allows
	 * it, by a read-ahead thread once the stream is larger than the read
	 * buffer: the stream does not go through the page cache, so reading
	 * it costs no CPU for copies and pushes no other file out of memory.
	 * Preferred to BSTREAM_READ_MMAP when both are given.  A file whose
	 * rest the page cache holds (7/8 of its pages or more, such as a
	 * stream just written) is read as if the flag were not given: from
	 * memory, not from the device again.
	 */
	BSTREAM_READ_DIRECT = 1u << 4,
};

struct bstream_reader_opts {
	unsigned int flags;		/* BSTREAM_READ_* */
	uint32_t max_version;		/* highest header version accepted, 0 = BSTREAM_VERSION_MAX */
	size_t buf_size;		/* read buffer, 0 = 1 MiB */
	size_t max_cmd_size;		/* largest command accepted, 0 = 64 MiB */
	enum bstream_crc_impl crc;	/* CRC implementation, AUTO by default */
};

struct bstream_reader;

/* Create a reader; opts may be NULL for defaults.  NULL on ENOMEM or bad opts. */
struct bstream_reader *bstream_reader_new(const struct bstream_reader_opts *opts);
void bstream_reader_free(struct bstream_reader *r);

/* Read from fd (not closed by the library). */
int bstream_reader_set_fd(struct bstream_reader *r, int fd);
/* Read from memory (must outlive the reader); commands point into it. */
int bstream_reader_set_mem(struct bstream_reader *r, const void *buf, size_t len);

/*
 * Skipping file data.  A consumer that needs the DATA of only some
 * commands, or of none (ls and cat of a stored stream replay its commands
 * first and read wanted data back later), installs a filter.  For each
 * command whose last attribute is DATA (WRITE and ENCODED_WRITE as Linux
 * sends them, in every protocol version), the reader reads the command
 * header and the attributes before DATA, checks them as it checks any
 * command (TLV bounds, attribute numbers and sizes, required attributes,
 * strict version), and calls want(user, cmd) with them decoded, cmd->data
 * NULL and cmd->data_len and cmd->data_offset set.  want returning true
 * reads the command as usual, CRC included.  Returning false skips its
 * data: the command is handed out with data_skipped set, and
 *  - its CRC is not verified: neither the data nor the attributes before
 *    it are protected by a checksum (they still passed the checks above),
 *    and a corrupted byte in the skipped data goes unnoticed;
 *  - the length in its header is trusted to find the next command, which
 *    is checked as every command is; a skipped command that runs past the
 *    end of the input is reported as truncated
 *    (BSTREAM_E_CMD_TRUNC), as when it is read;
 *  - on a regular file the data is not read at all when it is longer
 *    than a few pages (lseek(2) over it); other inputs read it and throw
 *    it away.
 * A consumer that needs the bytes later reads the command again with
 * bstream_reader_seek(), fully checked.  Commands without DATA, or whose
 * DATA is not the last attribute, and commands with an error are read and
 * checked as usual (a command whose prefix fails a check is reported with
 * its CRC checked first, as without a filter).
 *
 * Install the filter before bstream_reader_set_fd(): with one, a regular
 * file is read with read(2) in pieces sized to what the reader needs, not
 * mapped (BSTREAM_READ_MMAP is ignored) nor read ahead by a thread, since
 * both would read the data that is skipped.  want NULL removes the
 * filter.  The filter stays for later inputs.
 */
typedef bool (*bstream_want_data_fn)(void *user, const struct bstream_cmd *cmd);
int bstream_reader_set_data_filter(struct bstream_reader *r,
				   bstream_want_data_fn want, void *user);

/* Where a command is in the input, to read it again. */
struct bstream_mark {
	uint64_t offset;	/* cmd->offset */
	uint64_t index;		/* cmd->index */
	uint32_t version;	/* cmd->version */
	uint32_t substream;	/* cmd->substream */
};

/*
 * Go back (or forward) to the command described by mark, as an earlier
 * pass over the same input reported it: the next bstream_next() reads that
 * command with every check (CRC included, unless the data filter skips its
 * data) and reports it with mark's index, version and substream; reading
 * goes on with the commands after it.  The input must be memory or a
 * seekable fd, and must not have changed since the pass that made the
 * mark: a command that is not there any more shows as a framing, CRC or
 * attribute error at that offset.  Clears a sticky error.  A mark inside
 * or at the end of what the reader holds costs no system call; otherwise
 * the reader reads only what the command needs, growing its reads while
 * the consumer reads on.  After a seek a regular file is no longer read
 * ahead by a thread.  Returns 0 or a negative error (BSTREAM_E_INVAL: not
 * seekable, or mark out of range).
 */
int bstream_reader_seek(struct bstream_reader *r, const struct bstream_mark *mark);

/*
 * Pull the next command.  Returns 1 and sets *cmd when a command is
 * available (END included; unknown commands too, with known == false),
 * 0 at the regular end of input, or a negative error.  Stream headers are
 * consumed transparently (see bstream_reader_version()).
 *
 * Errors confined to one command (CRC, attribute errors) leave the reader
 * positioned after that command: calling again continues with the next
 * command (this is how btrfs receive -E N counts errors).  Other errors are
 * sticky: every further call returns the same error.
 */
int bstream_next(struct bstream_reader *r, const struct bstream_cmd **cmd);

/* Version of the current substream, 0 before the first header. */
uint32_t bstream_reader_version(const struct bstream_reader *r);
/* Whether the current substream's header marks a continuation stream. */
bool bstream_reader_continuation(const struct bstream_reader *r);
/* Bytes consumed from the input so far. */
uint64_t bstream_reader_offset(const struct bstream_reader *r);
/* Last error code (positive) and its message ("" if none). */
int bstream_reader_errcode(const struct bstream_reader *r);
const char *bstream_reader_errmsg(const struct bstream_reader *r);

/*
 * Callback table.  Each consumer (dump, receive, diff) fills the members it
 * handles; a NULL member means "ignore this command".  Every callback gets
 * the validated command with its decoded attributes.  Return 0 to go on, a
 * positive value to stop successfully, or a negative value to stop with
 * BSTREAM_E_CALLBACK (the consumer keeps its own error details).
 */
typedef int (*bstream_cb)(void *user, const struct bstream_cmd *cmd);

struct bstream_ops {
	/* A stream header was read (version as in the header). */
	int (*header)(void *user, uint32_t version, uint64_t offset);
	bstream_cb subvol, snapshot, mkfile, mkdir, mknod, mkfifo, mksock;
	bstream_cb symlink, rename, link, unlink, rmdir, set_xattr;
	bstream_cb remove_xattr, write, clone, truncate, chmod, chown, utimes;
	bstream_cb end, update_extent, fallocate, fileattr, encoded_write;
	bstream_cb enable_verity;
	/* A command number the library does not know (already CRC-checked). */
	bstream_cb unknown;
	/*
	 * A command-level error (code is positive, message in the reader).
	 * Return 0 to skip the command and go on, anything else to stop with
	 * that error.  NULL: stop at the first error.
	 */
	int (*error)(void *user, int code, const struct bstream_reader *r);
};

/*
 * Read the whole input, dispatching each command to ops.  Returns 0 at the
 * regular end (or when a callback returned > 0), or a negative error.
 */
int bstream_process(struct bstream_reader *r, const struct bstream_ops *ops,
		    void *user);

/* ---------------------------------------------------------------------- */
/* Writer                                                                  */

struct bstream_writer;

struct bstream_writer *bstream_writer_new(void);
void bstream_writer_free(struct bstream_writer *w);

/* Write to fd (not closed by the library); output is flushed per command. */
int bstream_writer_set_fd(struct bstream_writer *w, int fd);
/* Write into a caller buffer; BSTREAM_E_NOSPACE when it is full. */
int bstream_writer_set_buf(struct bstream_writer *w, void *buf, size_t cap);
/* Bytes produced so far. */
uint64_t bstream_writer_offset(const struct bstream_writer *w);
int bstream_writer_errcode(const struct bstream_writer *w);
const char *bstream_writer_errmsg(const struct bstream_writer *w);

/* Emit a stream header; later DATA attributes follow its version's rule. */
int bstream_write_header(struct bstream_writer *w, uint32_t version);

/* Start a command; attributes follow with bstream_put_*(). */
int bstream_cmd_begin(struct bstream_writer *w, unsigned int cmd);
/* Typed attributes; the attribute's type must match. */
int bstream_put_u8(struct bstream_writer *w, unsigned int attr, uint8_t v);
int bstream_put_u32(struct bstream_writer *w, unsigned int attr, uint32_t v);
int bstream_put_u64(struct bstream_writer *w, unsigned int attr, uint64_t v);
int bstream_put_uuid(struct bstream_writer *w, unsigned int attr, const uint8_t uuid[16]);
int bstream_put_timespec(struct bstream_writer *w, unsigned int attr,
			 struct bstream_timespec ts);
int bstream_put_string(struct bstream_writer *w, unsigned int attr, const char *s);
/* Any attribute with arbitrary bytes (at most 65535; no type check). */
int bstream_put_bytes(struct bstream_writer *w, unsigned int attr,
		      const void *buf, size_t len);
/*
 * The DATA attribute.  In v2+ it must be the last attribute and has no
 * length field; in v1 it is a normal TLV (len <= 65535).  The bytes are not
 * copied in fd mode: buf must stay valid until bstream_cmd_end().
 */
int bstream_put_data(struct bstream_writer *w, const void *buf, size_t len);
/* Raw bytes appended to the payload of the current command, or to the
 * stream between commands (for crafting malformed test streams). */
int bstream_put_raw(struct bstream_writer *w, const void *buf, size_t len);

/* Overrides for crafting malformed streams (tests only). */
struct bstream_cmd_fixup {
	unsigned int flags;	/* BSTREAM_FIX_* */
	uint32_t len;		/* stored instead of the real payload length */
	uint32_t crc;		/* stored instead of the real CRC */
};
enum {
	BSTREAM_FIX_LEN = 1u << 0,
	BSTREAM_FIX_CRC = 1u << 1,
};

/* Finish the command: fill length and CRC and emit it. fix may be NULL. */
int bstream_cmd_end(struct bstream_writer *w, const struct bstream_cmd_fixup *fix);

/*
 * Re-encode a command read by a reader (attributes in their original order,
 * same bytes).  Used for filtering and by the round-trip tests.
 */
int bstream_write_cmd(struct bstream_writer *w, const struct bstream_cmd *cmd);

#ifdef __cplusplus
}
#endif

#endif
