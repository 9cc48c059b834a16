/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UUIDs as text, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx": one spelling for
 * dump's lines, receive's records, archive messages and resume tokens.
 */
#ifndef BTRFS_STREAM_CLI_UUID_H
#define BTRFS_STREAM_CLI_UUID_H

#include <stddef.h>
#include <stdint.h>

#define CLI_UUID_STR_SIZE 37	/* 36 characters and the NUL */

/* Write the 16 bytes at u as text into s (CLI_UUID_STR_SIZE bytes). */
void cli_uuid_str(const uint8_t *u, char *s);

/* Parse the len characters at s into u: 0, or -1 if they are not a UUID. */
int cli_uuid_parse(const char *s, size_t len, uint8_t *u);

#endif
