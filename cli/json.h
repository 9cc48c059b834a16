/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON output shared by dump and diff.  Stream strings (paths, xattr
 * names) are bytes, not necessarily UTF-8: such a value is written as
 * hex under the key with "_hex" appended, so every output is valid JSON
 * and no byte is lost.
 */
#ifndef BTRFS_STREAM_CLI_JSON_H
#define BTRFS_STREAM_CLI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "key":"value" for UTF-8 without escapes lost, else "key_hex":"6869". */
void json_member(FILE *out, const char *key, const void *value, size_t len);
/* n bytes as a quoted string of lower-case hex digits. */
void json_hex(FILE *out, const uint8_t *p, size_t n);

#endif
