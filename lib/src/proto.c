// SPDX-License-Identifier: GPL-2.0
/*
 * Protocol tables: names, attribute types and the attributes each command
 * requires.  Adding a command or attribute means one line in each table.
 */
#include <stdio.h>
#include "internal.h"

#define A(x) (UINT64_C(1) << BTRFS_SEND_A_##x)

struct cmd_info {
	const char *name;
	uint64_t required;
};

static const struct cmd_info cmds[BTRFS_SEND_C_MAX + 1] = {
	[BTRFS_SEND_C_SUBVOL] = { "subvol", A(PATH) | A(UUID) | A(CTRANSID) },
	[BTRFS_SEND_C_SNAPSHOT] = { "snapshot", A(PATH) | A(UUID) | A(CTRANSID) |
				    A(CLONE_UUID) | A(CLONE_CTRANSID) },
	[BTRFS_SEND_C_MKFILE] = { "mkfile", A(PATH) | A(INO) },
	[BTRFS_SEND_C_MKDIR] = { "mkdir", A(PATH) | A(INO) },
	[BTRFS_SEND_C_MKNOD] = { "mknod", A(PATH) | A(INO) | A(MODE) | A(RDEV) },
	[BTRFS_SEND_C_MKFIFO] = { "mkfifo", A(PATH) | A(INO) },
	[BTRFS_SEND_C_MKSOCK] = { "mksock", A(PATH) | A(INO) },
	[BTRFS_SEND_C_SYMLINK] = { "symlink", A(PATH) | A(INO) | A(PATH_LINK) },
	[BTRFS_SEND_C_RENAME] = { "rename", A(PATH) | A(PATH_TO) },
	[BTRFS_SEND_C_LINK] = { "link", A(PATH) | A(PATH_LINK) },
	[BTRFS_SEND_C_UNLINK] = { "unlink", A(PATH) },
	[BTRFS_SEND_C_RMDIR] = { "rmdir", A(PATH) },
	[BTRFS_SEND_C_SET_XATTR] = { "set_xattr", A(PATH) | A(XATTR_NAME) |
				     A(XATTR_DATA) },
	[BTRFS_SEND_C_REMOVE_XATTR] = { "remove_xattr", A(PATH) | A(XATTR_NAME) },
	[BTRFS_SEND_C_WRITE] = { "write", A(PATH) | A(FILE_OFFSET) | A(DATA) },
	[BTRFS_SEND_C_CLONE] = { "clone", A(PATH) | A(FILE_OFFSET) | A(CLONE_LEN) |
				 A(CLONE_UUID) | A(CLONE_CTRANSID) |
				 A(CLONE_PATH) | A(CLONE_OFFSET) },
	[BTRFS_SEND_C_TRUNCATE] = { "truncate", A(PATH) | A(SIZE) },
	[BTRFS_SEND_C_CHMOD] = { "chmod", A(PATH) | A(MODE) },
	[BTRFS_SEND_C_CHOWN] = { "chown", A(PATH) | A(UID) | A(GID) },
	[BTRFS_SEND_C_UTIMES] = { "utimes", A(PATH) | A(ATIME) | A(MTIME) |
				  A(CTIME) },
	[BTRFS_SEND_C_END] = { "end", 0 },
	[BTRFS_SEND_C_UPDATE_EXTENT] = { "update_extent", A(PATH) |
					 A(FILE_OFFSET) | A(SIZE) },
	[BTRFS_SEND_C_FALLOCATE] = { "fallocate", A(PATH) | A(FALLOCATE_MODE) |
				     A(FILE_OFFSET) | A(SIZE) },
	[BTRFS_SEND_C_FILEATTR] = { "fileattr", A(PATH) | A(FILEATTR) },
	[BTRFS_SEND_C_ENCODED_WRITE] = { "encoded_write", A(PATH) |
					 A(FILE_OFFSET) | A(UNENCODED_FILE_LEN) |
					 A(UNENCODED_LEN) | A(UNENCODED_OFFSET) |
					 A(DATA) },
	[BTRFS_SEND_C_ENABLE_VERITY] = { "enable_verity", A(PATH) |
					 A(VERITY_ALGORITHM) |
					 A(VERITY_BLOCK_SIZE) |
					 A(VERITY_SALT_DATA) |
					 A(VERITY_SIG_DATA) },
};

struct attr_info {
	const char *name;
	enum bstream_attr_type type;
};

static const struct attr_info attrs[BTRFS_SEND_A_MAX + 1] = {
	[BTRFS_SEND_A_UUID] = { "uuid", BSTREAM_T_UUID },
	[BTRFS_SEND_A_CTRANSID] = { "ctransid", BSTREAM_T_U64 },
	[BTRFS_SEND_A_INO] = { "ino", BSTREAM_T_U64 },
	[BTRFS_SEND_A_SIZE] = { "size", BSTREAM_T_U64 },
	[BTRFS_SEND_A_MODE] = { "mode", BSTREAM_T_U64 },
	[BTRFS_SEND_A_UID] = { "uid", BSTREAM_T_U64 },
	[BTRFS_SEND_A_GID] = { "gid", BSTREAM_T_U64 },
	[BTRFS_SEND_A_RDEV] = { "rdev", BSTREAM_T_U64 },
	[BTRFS_SEND_A_CTIME] = { "ctime", BSTREAM_T_TIMESPEC },
	[BTRFS_SEND_A_MTIME] = { "mtime", BSTREAM_T_TIMESPEC },
	[BTRFS_SEND_A_ATIME] = { "atime", BSTREAM_T_TIMESPEC },
	[BTRFS_SEND_A_OTIME] = { "otime", BSTREAM_T_TIMESPEC },
	[BTRFS_SEND_A_XATTR_NAME] = { "xattr_name", BSTREAM_T_STRING },
	[BTRFS_SEND_A_XATTR_DATA] = { "xattr_data", BSTREAM_T_BINARY },
	[BTRFS_SEND_A_PATH] = { "path", BSTREAM_T_STRING },
	[BTRFS_SEND_A_PATH_TO] = { "path_to", BSTREAM_T_STRING },
	[BTRFS_SEND_A_PATH_LINK] = { "path_link", BSTREAM_T_STRING },
	[BTRFS_SEND_A_FILE_OFFSET] = { "file_offset", BSTREAM_T_U64 },
	[BTRFS_SEND_A_DATA] = { "data", BSTREAM_T_DATA },
	[BTRFS_SEND_A_CLONE_UUID] = { "clone_uuid", BSTREAM_T_UUID },
	[BTRFS_SEND_A_CLONE_CTRANSID] = { "clone_ctransid", BSTREAM_T_U64 },
	[BTRFS_SEND_A_CLONE_PATH] = { "clone_path", BSTREAM_T_STRING },
	[BTRFS_SEND_A_CLONE_OFFSET] = { "clone_offset", BSTREAM_T_U64 },
	[BTRFS_SEND_A_CLONE_LEN] = { "clone_len", BSTREAM_T_U64 },
	[BTRFS_SEND_A_FALLOCATE_MODE] = { "fallocate_mode", BSTREAM_T_U32 },
	[BTRFS_SEND_A_FILEATTR] = { "fileattr", BSTREAM_T_U64 },
	[BTRFS_SEND_A_UNENCODED_FILE_LEN] = { "unencoded_file_len", BSTREAM_T_U64 },
	[BTRFS_SEND_A_UNENCODED_LEN] = { "unencoded_len", BSTREAM_T_U64 },
	[BTRFS_SEND_A_UNENCODED_OFFSET] = { "unencoded_offset", BSTREAM_T_U64 },
	[BTRFS_SEND_A_COMPRESSION] = { "compression", BSTREAM_T_U32 },
	[BTRFS_SEND_A_ENCRYPTION] = { "encryption", BSTREAM_T_U32 },
	[BTRFS_SEND_A_VERITY_ALGORITHM] = { "verity_algorithm", BSTREAM_T_U8 },
	[BTRFS_SEND_A_VERITY_BLOCK_SIZE] = { "verity_block_size", BSTREAM_T_U32 },
	[BTRFS_SEND_A_VERITY_SALT_DATA] = { "verity_salt_data", BSTREAM_T_BINARY },
	[BTRFS_SEND_A_VERITY_SIG_DATA] = { "verity_sig_data", BSTREAM_T_BINARY },
};

const char *bstream_cmd_name(unsigned int cmd)
{
	return cmd <= BTRFS_SEND_C_MAX ? cmds[cmd].name : NULL;
}

uint64_t bstream_cmd_required(unsigned int cmd)
{
	return cmd <= BTRFS_SEND_C_MAX ? cmds[cmd].required : 0;
}

const char *bstream_attr_name(unsigned int attr)
{
	return attr <= BTRFS_SEND_A_MAX ? attrs[attr].name : NULL;
}

enum bstream_attr_type bstream_attr_type(unsigned int attr)
{
	return attr <= BTRFS_SEND_A_MAX ? attrs[attr].type : BSTREAM_T_NONE;
}

size_t bstream_attr_type_size(enum bstream_attr_type type)
{
	switch (type) {
	case BSTREAM_T_U8:
		return 1;
	case BSTREAM_T_U32:
		return 4;
	case BSTREAM_T_U64:
		return 8;
	case BSTREAM_T_UUID:
		return 16;
	case BSTREAM_T_TIMESPEC:
		return 12;
	default:
		return 0;
	}
}

int bstream_cmd_from_name(const char *name)
{
	for (int i = 0; i <= BTRFS_SEND_C_MAX; i++)
		if (cmds[i].name && !strcmp(cmds[i].name, name))
			return i;
	return -1;
}

int bstream_attr_from_name(const char *name)
{
	for (int i = 0; i <= BTRFS_SEND_A_MAX; i++)
		if (attrs[i].name && !strcmp(attrs[i].name, name))
			return i;
	return -1;
}

static const char *const errstr[BSTREAM_E_MAX + 1] = {
	[BSTREAM_OK] = "success",
	[BSTREAM_E_IO] = "i/o error",
	[BSTREAM_E_NOMEM] = "out of memory",
	[BSTREAM_E_INVAL] = "invalid argument",
	[BSTREAM_E_NOSPACE] = "output buffer full",
	[BSTREAM_E_CALLBACK] = "consumer callback failed",
	[BSTREAM_E_EMPTY] = "empty stream",
	[BSTREAM_E_HEADER_TRUNC] = "truncated stream header",
	[BSTREAM_E_BAD_MAGIC] = "bad stream magic",
	[BSTREAM_E_VERSION] = "unsupported stream version",
	[BSTREAM_E_NO_END] = "unexpected end of stream",
	[BSTREAM_E_CMD_TRUNC] = "truncated command",
	[BSTREAM_E_CMD_TOO_BIG] = "command too large",
	[BSTREAM_E_CRC] = "crc mismatch",
	[BSTREAM_E_TLV_TRUNC] = "attribute overruns command",
	[BSTREAM_E_ATTR_TYPE] = "invalid attribute type",
	[BSTREAM_E_ATTR_SIZE] = "invalid attribute size",
	[BSTREAM_E_ATTR_MISSING] = "missing attribute",
	[BSTREAM_E_CMD_VERSION] = "command or attribute not in stream version",
};

const char *bstream_strerror(int code)
{
	if (code < 0)
		code = -code;
	if (code > BSTREAM_E_MAX || !errstr[code])
		return "unknown error";
	return errstr[code];
}

int bstream_set_error(char *msgbuf, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msgbuf, BSTREAM_MSG_LEN, fmt, ap);
	va_end(ap);
	return -code;
}
