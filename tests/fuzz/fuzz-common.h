/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the fuzz targets. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <btrfs-stream/stream.h>

/*
 * Return a copy of data with the CRC of every command that fits recomputed,
 * so mutations get past the CRC check and reach the attribute parser.
 */
static inline uint8_t *fuzz_fix_crcs(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	size_t pos = 0;

	if (!buf)
		return NULL;
	memcpy(buf, data, size);
	while (size - pos >= 17 && !memcmp(buf + pos, "btrfs-stream", 13)) {
		pos += 17;
		while (size - pos >= 10) {
			uint32_t len = buf[pos] | buf[pos + 1] << 8 |
				       buf[pos + 2] << 16 | (uint32_t)buf[pos + 3] << 24;
			uint16_t cmd = buf[pos + 4] | buf[pos + 5] << 8;
			uint32_t crc;

			if (len > size - pos - 10)
				return buf;
			memset(buf + pos + 6, 0, 4);
			crc = bstream_crc32c(0, buf + pos, 10 + (size_t)len);
			for (int i = 0; i < 4; i++)
				buf[pos + 6 + i] = (uint8_t)(crc >> (8 * i));
			pos += 10 + (size_t)len;
			if (cmd == BTRFS_SEND_C_END)
				break;
		}
	}
	return buf;
}

#endif
