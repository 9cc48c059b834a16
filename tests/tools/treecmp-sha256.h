/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal SHA-256 (FIPS 180-4) for treecmp digests; no external libraries.
 */
#ifndef TREECMP_SHA256_H
#define TREECMP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32

struct sha256 {
	uint32_t state[8];
	uint64_t count;		/* bytes hashed so far */
	unsigned char block[64];
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, unsigned char out[SHA256_DIGEST_SIZE]);

/* Write the digest as 64 lowercase hex digits plus a NUL into @hex. */
void sha256_hex(const unsigned char digest[SHA256_DIGEST_SIZE], char hex[65]);

#endif
