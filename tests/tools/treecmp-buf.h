/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growable byte buffers and C-style quoting for treecmp.
 *
 * Allocation failure is not recoverable in a test tool: the helpers print
 * "out of memory" and exit with status 2, so callers need no checks.
 */
#ifndef TREECMP_BUF_H
#define TREECMP_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct tc_buf {
	char *p;	/* always NUL-terminated once anything was added */
	size_t len;
	size_t cap;
};

void *tc_xmalloc(size_t n);
void *tc_xrealloc(void *p, size_t n);
char *tc_xstrdup(const char *s);

void tc_buf_add(struct tc_buf *b, const void *data, size_t n);
void tc_buf_addstr(struct tc_buf *b, const char *s);
void tc_buf_addf(struct tc_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tc_buf_truncate(struct tc_buf *b, size_t len);
void tc_buf_free(struct tc_buf *b);

/*
 * Append @n bytes of @s quoted C-style: backslash, \n, \t, \r and every
 * byte outside printable ASCII become escapes (\\, \n, \t, \r, \ooo), so the
 * result is one line.  @strict also escapes space, '"', ',', ':' and '=',
 * which makes "name=value,..." lists unambiguous (used by --list/--digest).
 */
void tc_buf_add_quoted(struct tc_buf *b, const char *s, size_t n, bool strict);

#endif
