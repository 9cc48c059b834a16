/* SPDX-License-Identifier: GPL-2.0 */
/* Private helpers shared by the files of libbtrfs-stream. */
#ifndef BSTREAM_INTERNAL_H
#define BSTREAM_INTERNAL_H

#include <endian.h>
#include <stdarg.h>
#include <string.h>
#include <btrfs-stream/stream.h>

#define BSTREAM_HDR_LEN		17
#define BSTREAM_CMD_HDR_LEN	10

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static inline uint64_t get_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/*
 * The CRC register is linear: crc(reg, A || B) = zeros(crc(reg, A), |B|) ^
 * crc(0, B).  The reader's read-ahead threads compute crc(0, block) of each
 * BSTREAM_CRC_BLOCK bytes they read, and the reader merges those into
 * command CRCs with bstream_crc_zeros_block() (append that many zeros).
 */
#define BSTREAM_CRC_BLOCK	12288
uint32_t bstream_crc_zeros_block(uint32_t reg);

/* Error message buffer kept on each handle. */
#define BSTREAM_MSG_LEN 512

__attribute__((format(printf, 3, 4)))
int bstream_set_error(char *msgbuf, int code, const char *fmt, ...);

#endif
