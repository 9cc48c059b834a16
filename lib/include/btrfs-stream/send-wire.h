/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire format of the btrfs send stream.
 *
 * The kernel's send code and libbtrfs-stream share this header verbatim, so
 * it may only rely on <linux/types.h> and must compile in both worlds.
 * Every number below is on the wire: never renumber.
 */

#ifndef BTRFS_SEND_WIRE_H
#define BTRFS_SEND_WIRE_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/compiler_attributes.h>
#else
#include <btrfs-stream/userspace-compat.h>
#endif

#define BTRFS_SEND_STREAM_MAGIC		"btrfs-stream"
#define BTRFS_SEND_STREAM_MAGIC_LEN	13	/* including the NUL */

/* Commands of a version 1 stream fit, header included, into this. */
#define BTRFS_SEND_V1_MAX_COMMAND	65536

/* Stream header: magic with its NUL, then the protocol version. */
struct btrfs_send_stream_header {
	char magic[BTRFS_SEND_STREAM_MAGIC_LEN];
	__le32 version;
} __packed;

/* Command header: payload length, command number, CRC32C (seed 0). */
struct btrfs_send_cmd_header {
	__le32 len;
	__le16 cmd;
	__le32 crc;
} __packed;

/* Attribute header; in v2+ DATA has only the type, see below. */
struct btrfs_send_tlv_header {
	__le16 tlv_type;
	__le16 tlv_len;
} __packed;

/* On-wire timespec: signed seconds, then nanoseconds. */
struct btrfs_send_timespec {
	__le64 sec;
	__le32 nsec;
} __packed;

static_assert(sizeof(struct btrfs_send_stream_header) == 17, "stream header");
static_assert(sizeof(struct btrfs_send_cmd_header) == 10, "command header");
static_assert(sizeof(struct btrfs_send_tlv_header) == 4, "tlv header");
static_assert(sizeof(struct btrfs_send_timespec) == 12, "timespec");

enum btrfs_send_cmd {
	BTRFS_SEND_C_UNSPEC		= 0,

	/* Protocol version 1 */
	BTRFS_SEND_C_SUBVOL		= 1,
	BTRFS_SEND_C_SNAPSHOT		= 2,
	BTRFS_SEND_C_MKFILE		= 3,
	BTRFS_SEND_C_MKDIR		= 4,
	BTRFS_SEND_C_MKNOD		= 5,
	BTRFS_SEND_C_MKFIFO		= 6,
	BTRFS_SEND_C_MKSOCK		= 7,
	BTRFS_SEND_C_SYMLINK		= 8,
	BTRFS_SEND_C_RENAME		= 9,
	BTRFS_SEND_C_LINK		= 10,
	BTRFS_SEND_C_UNLINK		= 11,
	BTRFS_SEND_C_RMDIR		= 12,
	BTRFS_SEND_C_SET_XATTR		= 13,
	BTRFS_SEND_C_REMOVE_XATTR	= 14,
	BTRFS_SEND_C_WRITE		= 15,
	BTRFS_SEND_C_CLONE		= 16,
	BTRFS_SEND_C_TRUNCATE		= 17,
	BTRFS_SEND_C_CHMOD		= 18,
	BTRFS_SEND_C_CHOWN		= 19,
	BTRFS_SEND_C_UTIMES		= 20,
	BTRFS_SEND_C_END		= 21,
	BTRFS_SEND_C_UPDATE_EXTENT	= 22,
	BTRFS_SEND_C_MAX_V1		= 22,

	/* Protocol version 2 */
	BTRFS_SEND_C_FALLOCATE		= 23,
	BTRFS_SEND_C_FILEATTR		= 24,
	BTRFS_SEND_C_ENCODED_WRITE	= 25,
	BTRFS_SEND_C_MAX_V2		= 25,

	/* Protocol version 3 */
	BTRFS_SEND_C_ENABLE_VERITY	= 26,
	BTRFS_SEND_C_MAX_V3		= 26,

	BTRFS_SEND_C_MAX		= 26,
};

enum btrfs_send_attr {
	BTRFS_SEND_A_UNSPEC		= 0,

	/* Protocol version 1 */
	BTRFS_SEND_A_UUID		= 1,
	BTRFS_SEND_A_CTRANSID		= 2,
	BTRFS_SEND_A_INO		= 3,
	BTRFS_SEND_A_SIZE		= 4,
	BTRFS_SEND_A_MODE		= 5,
	BTRFS_SEND_A_UID		= 6,
	BTRFS_SEND_A_GID		= 7,
	BTRFS_SEND_A_RDEV		= 8,
	BTRFS_SEND_A_CTIME		= 9,
	BTRFS_SEND_A_MTIME		= 10,
	BTRFS_SEND_A_ATIME		= 11,
	BTRFS_SEND_A_OTIME		= 12,
	BTRFS_SEND_A_XATTR_NAME		= 13,
	BTRFS_SEND_A_XATTR_DATA		= 14,
	BTRFS_SEND_A_PATH		= 15,
	BTRFS_SEND_A_PATH_TO		= 16,
	BTRFS_SEND_A_PATH_LINK		= 17,
	BTRFS_SEND_A_FILE_OFFSET	= 18,
	/*
	 * From version 2 on DATA carries no length: it is the last attribute
	 * and runs to the end of its command, which lifts the 64KiB limit.
	 */
	BTRFS_SEND_A_DATA		= 19,
	BTRFS_SEND_A_CLONE_UUID		= 20,
	BTRFS_SEND_A_CLONE_CTRANSID	= 21,
	BTRFS_SEND_A_CLONE_PATH		= 22,
	BTRFS_SEND_A_CLONE_OFFSET	= 23,
	BTRFS_SEND_A_CLONE_LEN		= 24,
	BTRFS_SEND_A_MAX_V1		= 24,

	/* Protocol version 2 */
	BTRFS_SEND_A_FALLOCATE_MODE	= 25,
	/* Raw btrfs inode item flags, not FS_*_FL. */
	BTRFS_SEND_A_FILEATTR		= 26,
	BTRFS_SEND_A_UNENCODED_FILE_LEN	= 27,
	BTRFS_SEND_A_UNENCODED_LEN	= 28,
	BTRFS_SEND_A_UNENCODED_OFFSET	= 29,
	/* Both default to none (0) when ENCODED_WRITE omits them. */
	BTRFS_SEND_A_COMPRESSION	= 30,
	BTRFS_SEND_A_ENCRYPTION		= 31,
	BTRFS_SEND_A_MAX_V2		= 31,

	/* Protocol version 3 */
	BTRFS_SEND_A_VERITY_ALGORITHM	= 32,
	BTRFS_SEND_A_VERITY_BLOCK_SIZE	= 33,
	BTRFS_SEND_A_VERITY_SALT_DATA	= 34,
	BTRFS_SEND_A_VERITY_SIG_DATA	= 35,
	BTRFS_SEND_A_MAX_V3		= 35,

	BTRFS_SEND_A_MAX		= 35,
};

/*
 * Resumable send (docs/resume.md).  A stream header whose version has this
 * bit set opens a continuation: the rest of an interrupted stream, which
 * other receivers refuse at the header.  Its first command is the private
 * BTRFS_SEND_C_RESUME, numbered above every protocol version's commands,
 * with the attributes UUID, CTRANSID (the stream), CLONE_UUID and
 * CLONE_CTRANSID (the parent, if any), SIZE (the index K of the last
 * command received), FILE_OFFSET (the offset O of its end, counted from
 * the stream header), INO (the prefix checksum of the token) and MODE
 * (the flags of the token).
 */
#define BTRFS_SEND_VERSION_CONTINUATION	0x10000u
#define BTRFS_SEND_C_RESUME		0x7201

/*
 * Send flag of our module: start the stream after command K of the stream
 * the send would write, with the continuation header and RESUME command,
 * reading no file data of commands 1..K.  The point travels in the 28
 * reserved bytes of struct btrfs_ioctl_send_args (native byte order, as
 * the rest of the argument); a kernel without the flag rejects it as an
 * unknown flag (EOPNOTSUPP).
 */
#define BTRFS_SEND_FLAG_RESUME		0x20

struct btrfs_send_resume_point {
	__u64 index;		/* K: commands 1..K are not written */
	__u64 offset;		/* O: where command K ends */
	__u32 meta;		/* M: metadata checksum of the prefix */
	__u32 prefix;		/* C: prefix checksum, echoed as INO */
	__u32 flags;		/* the token's flags, echoed as MODE */
} __packed;

static_assert(sizeof(struct btrfs_send_resume_point) == 28, "resume point");

/* Highest command and attribute number each protocol version may carry. */
static inline int btrfs_send_cmd_max(__u32 version)
{
	if (version <= 1)
		return BTRFS_SEND_C_MAX_V1;
	if (version == 2)
		return BTRFS_SEND_C_MAX_V2;
	return BTRFS_SEND_C_MAX_V3;
}

static inline int btrfs_send_attr_max(__u32 version)
{
	if (version <= 1)
		return BTRFS_SEND_A_MAX_V1;
	if (version == 2)
		return BTRFS_SEND_A_MAX_V2;
	return BTRFS_SEND_A_MAX_V3;
}

#endif
