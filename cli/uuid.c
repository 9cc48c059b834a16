// SPDX-License-Identifier: GPL-2.0
/* UUIDs as text (uuid.h). */
#include "uuid.h"

static const int dash_before[16] = { [4] = 1, [6] = 1, [8] = 1, [10] = 1 };

void cli_uuid_str(const uint8_t *u, char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < 16; i++) {
		if (dash_before[i])
			*s++ = '-';
		*s++ = hex[u[i] >> 4];
		*s++ = hex[u[i] & 15];
	}
	*s = 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int cli_uuid_parse(const char *s, size_t len, uint8_t *u)
{
	if (len != CLI_UUID_STR_SIZE - 1)
		return -1;
	for (int i = 0; i < 16; i++) {
		int hi, lo;

		if (dash_before[i] && *s++ != '-')
			return -1;
		hi = hex_value(s[0]);
		lo = hex_value(s[1]);
		if (hi < 0 || lo < 0)
			return -1;
		u[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	return 0;
}
