// SPDX-License-Identifier: GPL-2.0
/*
 * CRC32C with the send stream's conventions: the raw register update, start
 * at 0, no final inversion (spec 2.2).  Two implementations:
 *
 *  - portable slicing-by-8 tables;
 *  - carry-less multiplication folding (PCLMULQDQ), see crc_pclmul();
 *  - the SSE4.2 crc32 instruction, picked at run time with cpuid.  The
 *    instruction has a latency of three cycles but can start one per cycle,
 *    so long buffers are cut into three lanes computed side by side and
 *    merged with precomputed "append N zero bytes" operators (the register
 *    update is linear: crc(r, A || B) = zeros(crc(r, A), |B|) ^ crc(0, B)).
 */
#include <string.h>
#include "internal.h"
#include "crc32c-tables.h"

static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static uint32_t crc_table(uint32_t reg, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len && ((uintptr_t)p & 7)) {
		reg = (reg >> 8) ^ crc32c_slice8[0][(reg ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint64_t v = load_le64(p) ^ reg;

		reg = crc32c_slice8[7][v & 0xff] ^
		      crc32c_slice8[6][(v >> 8) & 0xff] ^
		      crc32c_slice8[5][(v >> 16) & 0xff] ^
		      crc32c_slice8[4][(v >> 24) & 0xff] ^
		      crc32c_slice8[3][(v >> 32) & 0xff] ^
		      crc32c_slice8[2][(v >> 40) & 0xff] ^
		      crc32c_slice8[1][(v >> 48) & 0xff] ^
		      crc32c_slice8[0][v >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		reg = (reg >> 8) ^ crc32c_slice8[0][(reg ^ *p++) & 0xff];
	return reg;
}

static inline uint32_t crc_zeros(const uint32_t t[4][256], uint32_t reg)
{
	return t[0][reg & 0xff] ^ t[1][(reg >> 8) & 0xff] ^
	       t[2][(reg >> 16) & 0xff] ^ t[3][reg >> 24];
}

#if defined(__x86_64__)
#include <nmmintrin.h>
#define HAVE_SSE42_IMPL 1

/* Three lanes of lane bytes each; returns the merged register. */
#define CRC_3WAY(lane, table)						\
	while (len >= 3 * (lane)) {					\
		uint64_t c0 = reg, c1 = 0, c2 = 0;			\
		const uint8_t *end = p + (lane);			\
									\
		do {							\
			c0 = _mm_crc32_u64(c0, load_le64(p));		\
			c1 = _mm_crc32_u64(c1, load_le64(p + (lane)));	\
			c2 = _mm_crc32_u64(c2, load_le64(p + 2 * (lane))); \
			p += 8;						\
		} while (p < end);					\
		reg = crc_zeros(table, (uint32_t)c0) ^ (uint32_t)c1;	\
		reg = crc_zeros(table, reg) ^ (uint32_t)c2;		\
		p += 2 * (lane);					\
		len -= 3 * (lane);					\
	}

__attribute__((target("sse4.2")))
static uint32_t crc_sse42(uint32_t reg, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len && ((uintptr_t)p & 7)) {
		reg = _mm_crc32_u8(reg, *p++);
		len--;
	}
	CRC_3WAY(4096, crc32c_zeros_4096);
	CRC_3WAY(256, crc32c_zeros_256);
	{
		uint64_t c = reg;

		while (len >= 8) {
			c = _mm_crc32_u64(c, load_le64(p));
			p += 8;
			len -= 8;
		}
		reg = (uint32_t)c;
	}
	while (len--)
		reg = _mm_crc32_u8(reg, *p++);
	return reg;
}

static bool have_sse42(void)
{
	return __builtin_cpu_supports("sse4.2");
}

#include <wmmintrin.h>

static bool have_pclmul(void)
{
	return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul");
}

/* Carry block x D bits forward (constants k = {L, H} from the generator). */
__attribute__((target("sse4.2,pclmul")))
static inline __m128i fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
			     _mm_clmulepi64_si128(x, k, 0x11));
}

/*
 * Carry-less multiplication folding: four 16-byte lanes are carried 64
 * bytes forward per step, so the work is two multiplications per 16 bytes
 * instead of two crc32 instructions, which some CPUs (AMD Zen) can only
 * issue one every three cycles.  The folded 16 bytes are congruent to the
 * whole prefix modulo P and so have the same CRC; the crc32 instruction
 * finishes them and the tail.
 */
__attribute__((target("sse4.2,pclmul")))
static uint32_t crc_pclmul(uint32_t reg, const void *buf, size_t len)
{
	const __m128i k512 = _mm_loadu_si128((const __m128i *)crc32c_fold512);
	const __m128i k128 = _mm_loadu_si128((const __m128i *)crc32c_fold128);
	const uint8_t *p = buf;
	__m128i x0, x1, x2, x3;
	uint8_t last[16];
	uint64_t c = 0;

	if (len < 256)
		return crc_sse42(reg, buf, len);
	x0 = _mm_loadu_si128((const __m128i *)p);
	x1 = _mm_loadu_si128((const __m128i *)(p + 16));
	x2 = _mm_loadu_si128((const __m128i *)(p + 32));
	x3 = _mm_loadu_si128((const __m128i *)(p + 48));
	/* Starting from reg is starting from 0 with reg xored into the data. */
	x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)reg));
	p += 64;
	len -= 64;
	while (len >= 64) {
		x0 = _mm_xor_si128(fold(x0, k512), _mm_loadu_si128((const __m128i *)p));
		x1 = _mm_xor_si128(fold(x1, k512), _mm_loadu_si128((const __m128i *)(p + 16)));
		x2 = _mm_xor_si128(fold(x2, k512), _mm_loadu_si128((const __m128i *)(p + 32)));
		x3 = _mm_xor_si128(fold(x3, k512), _mm_loadu_si128((const __m128i *)(p + 48)));
		p += 64;
		len -= 64;
	}
	x1 = _mm_xor_si128(x1, fold(x0, k128));
	x2 = _mm_xor_si128(x2, fold(x1, k128));
	x3 = _mm_xor_si128(x3, fold(x2, k128));
	while (len >= 16) {
		x3 = _mm_xor_si128(fold(x3, k128), _mm_loadu_si128((const __m128i *)p));
		p += 16;
		len -= 16;
	}
	_mm_storeu_si128((__m128i *)last, x3);
	c = _mm_crc32_u64(c, load_le64(last));
	c = _mm_crc32_u64(c, load_le64(last + 8));
	return crc_sse42((uint32_t)c, p, len);
}
#else
#define HAVE_SSE42_IMPL 0
#endif

bstream_crc_fn bstream_crc_get(enum bstream_crc_impl impl)
{
	switch (impl) {
	case BSTREAM_CRC_TABLE:
		return crc_table;
	case BSTREAM_CRC_SSE42:
#if HAVE_SSE42_IMPL
		if (have_sse42())
			return crc_sse42;
#endif
		return NULL;
	case BSTREAM_CRC_PCLMUL:
#if HAVE_SSE42_IMPL
		if (have_pclmul())
			return crc_pclmul;
#endif
		return NULL;
	case BSTREAM_CRC_AUTO:
	default:
#if HAVE_SSE42_IMPL
		/*
		 * The crc32 lanes measured as fast as or faster than folding
		 * on the machines tried (Zen, under load); folding stays
		 * available for CPUs where crc32 is slow.
		 */
		if (have_sse42())
			return crc_sse42;
#endif
		return crc_table;
	}
}

/*
 * Append BSTREAM_CRC_BLOCK zero bytes: three times 4096, the size one pass
 * of the three SSE4.2 lanes takes, so block CRCs run at full speed.
 */
uint32_t bstream_crc_zeros_block(uint32_t reg)
{
	_Static_assert(BSTREAM_CRC_BLOCK == 3 * 4096, "tables are for 4096 bytes");
	reg = crc_zeros(crc32c_zeros_4096, reg);
	reg = crc_zeros(crc32c_zeros_4096, reg);
	return crc_zeros(crc32c_zeros_4096, reg);
}

uint32_t bstream_crc32c(uint32_t reg, const void *buf, size_t len)
{
	return bstream_crc_get(BSTREAM_CRC_AUTO)(reg, buf, len);
}
