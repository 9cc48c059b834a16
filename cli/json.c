// SPDX-License-Identifier: GPL-2.0
/* JSON strings for dump and diff: see json.h. */
#include <stdbool.h>
#include "json.h"

/* Strict UTF-8: no overlong forms, surrogates or code points past U+10FFFF. */
static bool valid_utf8(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t b = s[i];
		uint32_t cp;
		size_t k;

		if (b < 0x80) {
			i++;
			continue;
		}
		if ((b & 0xe0) == 0xc0) {
			k = 1;
			cp = b & 0x1f;
		} else if ((b & 0xf0) == 0xe0) {
			k = 2;
			cp = b & 0x0f;
		} else if ((b & 0xf8) == 0xf0) {
			k = 3;
			cp = b & 0x07;
		} else {
			return false;
		}
		if (k >= n - i)		/* the sequence runs past the end */
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

void json_hex(FILE *out, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	putc_unlocked('"', out);
	for (size_t i = 0; i < n; i++) {
		putc_unlocked(hex[p[i] >> 4], out);
		putc_unlocked(hex[p[i] & 15], out);
	}
	putc_unlocked('"', out);
}

void json_member(FILE *out, const char *key, const void *value, size_t len)
{
	const uint8_t *p = value;

	if (!valid_utf8(p, len)) {
		fprintf(out, "\"%s_hex\":", key);
		json_hex(out, p, len);
		return;
	}
	fprintf(out, "\"%s\":\"", key);
	for (size_t i = 0; i < len; i++) {
		uint8_t ch = p[i];

		if (ch == '"' || ch == '\\') {
			putc_unlocked('\\', out);
			putc_unlocked(ch, out);
		} else if (ch == '\n') {
			fputs("\\n", out);
		} else if (ch == '\t') {
			fputs("\\t", out);
		} else if (ch < 0x20 || ch == 0x7f) {
			fprintf(out, "\\u%04x", ch);
		} else {
			putc_unlocked(ch, out);
		}
	}
	putc_unlocked('"', out);
}
