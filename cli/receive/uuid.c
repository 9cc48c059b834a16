// SPDX-License-Identifier: GPL-2.0
/* UUIDs as text: "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
#include <stdint.h>
#include <string.h>
#include "receive.h"

void recv_uuid_str(const uint8_t *u, char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
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

int recv_uuid_parse(const char *s, uint8_t *u)
{
	if (strlen(s) != 36)
		return -1;
	for (int i = 0; i < 16; i++) {
		int hi, lo;

		if (*s == '-' && (i == 4 || i == 6 || i == 8 || i == 10))
			s++;
		hi = hex_value(s[0]);
		lo = hex_value(s[1]);
		if (hi < 0 || lo < 0)
			return -1;
		u[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	return *s ? -1 : 0;
}
