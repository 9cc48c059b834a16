/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output for the library's C unit tests: ok() prints one numbered
 * "ok"/"not ok" line and counts failures; main() ends with
 * tap_plan_and_status().
 */
#ifndef TESTS_UNIT_LIB_TAP_H
#define TESTS_UNIT_LIB_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int test_no, test_failed;

__attribute__((format(printf, 2, 3), unused))
static bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		test_failed++;
	return cond;
}

#endif
