// SPDX-License-Identifier: GPL-2.0
/*
 * Growable buffers and quoting; see treecmp-buf.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treecmp-buf.h"

static void __attribute__((noreturn)) out_of_memory(void)
{
	fputs("treecmp: out of memory\n", stderr);
	exit(2);
}

void *tc_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		out_of_memory();
	return p;
}

void *tc_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

char *tc_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(tc_xmalloc(n), s, n);
}

static void grow(struct tc_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	b->cap = b->cap ? b->cap : 64;
	while (b->cap < need)
		b->cap *= 2;
	b->p = tc_xrealloc(b->p, b->cap);
}

void tc_buf_add(struct tc_buf *b, const void *data, size_t n)
{
	grow(b, n);
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void tc_buf_addstr(struct tc_buf *b, const char *s)
{
	tc_buf_add(b, s, strlen(s));
}

void tc_buf_addf(struct tc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory();
	grow(b, n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

void tc_buf_truncate(struct tc_buf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->p[len] = '\0';
	}
}

void tc_buf_free(struct tc_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void tc_buf_add_quoted(struct tc_buf *b, const char *s, size_t n, bool strict)
{
	size_t i;

	grow(b, n);
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];
		char esc[5];

		switch (c) {
		case '\\':
			tc_buf_add(b, "\\\\", 2);
			continue;
		case '\n':
			tc_buf_add(b, "\\n", 2);
			continue;
		case '\t':
			tc_buf_add(b, "\\t", 2);
			continue;
		case '\r':
			tc_buf_add(b, "\\r", 2);
			continue;
		}
		if (c < 0x20 || c >= 0x7f ||
		    (strict && strchr(" \",:=", c))) {
			snprintf(esc, sizeof(esc), "\\%03o", c);
			tc_buf_add(b, esc, 4);
		} else {
			tc_buf_add(b, &s[i], 1);
		}
	}
	if (!b->p)
		tc_buf_add(b, "", 0);
}
