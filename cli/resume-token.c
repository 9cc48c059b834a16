// SPDX-License-Identifier: GPL-2.0
/*
 * Resume tokens: formatting, parsing, and the prefix checksum that both
 * ends of a resumed transfer compute the same way (resume-token.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "resume-token.h"
#include "uuid.h"

void resume_token_format(const struct resume_token *t, char *buf, size_t size)
{
	char us[37], ps[37];

	cli_uuid_str(t->uuid, us);
	if (t->has_parent)
		cli_uuid_str(t->parent_uuid, ps);
	else
		strcpy(ps, "none");
	snprintf(buf, size, RESUME_TOKEN_MAGIC ",uuid=%s,ctransid=%" PRIu64 ",parent=%s,"
		 "parent_ctransid=%" PRIu64 ",version=%" PRIu32 ",flags=%#" PRIx64 ","
		 "index=%" PRIu64 ",offset=%" PRIu64 ",prefix=%#010" PRIx32 "%s",
		 us, t->ctransid, ps, t->has_parent ? t->parent_ctransid : 0,
		 t->version, t->flags, t->index, t->offset, t->prefix, "");
	if (t->has_meta) {
		size_t len = strlen(buf);

		if (len < size)
			snprintf(buf + len, size - len, ",meta=%#010" PRIx32, t->meta);
	}
}

/*
 * The fields of a token, in the order they are written.  The optional
 * ones (from F_OPTIONAL on) came later: older tokens end before them.
 */
enum { F_UUID, F_CTRANSID, F_PARENT, F_PARENT_CTRANSID, F_VERSION, F_FLAGS,
       F_INDEX, F_OFFSET, F_PREFIX, F_META, F_COUNT };
#define F_OPTIONAL F_META
static const char *const field_names[F_COUNT] = {
	"uuid", "ctransid", "parent", "parent_ctransid", "version", "flags",
	"index", "offset", "prefix", "meta",
};

static int parse_u64(const char *v, size_t len, uint64_t max, uint64_t *out)
{
	char buf[32], *end;

	if (!len || len >= sizeof(buf) || *v == '-' || *v == '+')
		return -1;
	memcpy(buf, v, len);
	buf[len] = 0;
	errno = 0;
	*out = strtoull(buf, &end, 0);
	return errno || *end || *out > max ? -1 : 0;
}

static int parse_field(struct resume_token *t, int f, const char *v, size_t len)
{
	uint64_t x;

	switch (f) {
	case F_UUID:
		return cli_uuid_parse(v, len, t->uuid);
	case F_PARENT:
		if (len == 4 && !memcmp(v, "none", 4)) {
			t->has_parent = false;
			return 0;
		}
		t->has_parent = true;
		return cli_uuid_parse(v, len, t->parent_uuid);
	case F_VERSION:
		if (parse_u64(v, len, BSTREAM_VERSION_MAX, &x) || !x)
			return -1;
		t->version = (uint32_t)x;
		return 0;
	case F_PREFIX:
	case F_META:
		if (parse_u64(v, len, UINT32_MAX, &x))
			return -1;
		if (f == F_PREFIX)
			t->prefix = (uint32_t)x;
		else
			t->meta = (uint32_t)x;
		t->has_meta |= f == F_META;
		return 0;
	}
	if (parse_u64(v, len, UINT64_MAX, &x))
		return -1;
	if (f == F_CTRANSID)
		t->ctransid = x;
	else if (f == F_PARENT_CTRANSID)
		t->parent_ctransid = x;
	else if (f == F_FLAGS)
		t->flags = x;
	else if (f == F_INDEX)
		t->index = x;
	else
		t->offset = x;
	return 0;
}

int resume_token_parse(const char *s, struct resume_token *t, char *why, size_t wlen)
{
	size_t len = strlen(s), mlen = strlen(RESUME_TOKEN_MAGIC);
	const char *p, *end;

	while (len && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\r'))
		len--;
	end = s + len;
	memset(t, 0, sizeof(*t));
	if (len < mlen || memcmp(s, RESUME_TOKEN_MAGIC, mlen) || (len > mlen && s[mlen] != ',')) {
		snprintf(why, wlen, "not a resume token (it does not start with '%s,')",
			 RESUME_TOKEN_MAGIC);
		return -1;
	}
	p = s + mlen;
	for (int f = 0; f < F_COUNT; f++) {
		size_t nlen = strlen(field_names[f]);
		const char *v, *next;

		if (f >= F_OPTIONAL && p == end)
			break;
		if (p >= end || *p != ',' || (size_t)(end - p - 1) < nlen + 1 ||
		    memcmp(p + 1, field_names[f], nlen) || p[1 + nlen] != '=') {
			snprintf(why, wlen, "resume token: field '%s' missing", field_names[f]);
			return -1;
		}
		v = p + 2 + nlen;
		next = memchr(v, ',', (size_t)(end - v));
		if (!next)
			next = end;
		if (parse_field(t, f, v, (size_t)(next - v))) {
			snprintf(why, wlen, "resume token: field '%s' is malformed: '%.*s'",
				 field_names[f], (int)(next - v > 64 ? 64 : next - v), v);
			return -1;
		}
		p = next;
	}
	if (p != end) {
		snprintf(why, wlen, "resume token: unexpected text after the last field: '%.*s'",
			 (int)(end - p > 64 ? 64 : end - p), p);
		return -1;
	}
	if (!t->index) {
		snprintf(why, wlen, "resume token: index 0 names no command");
		return -1;
	}
	return 0;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint32_t resume_prefix_start(uint32_t version)
{
	uint8_t hdr[sizeof(BTRFS_SEND_STREAM_MAGIC) + 4];

	memcpy(hdr, BTRFS_SEND_STREAM_MAGIC, sizeof(BTRFS_SEND_STREAM_MAGIC));
	put_le32(hdr + sizeof(BTRFS_SEND_STREAM_MAGIC), version);
	return bstream_crc32c(0, hdr, sizeof(hdr));
}

uint32_t resume_prefix_add(uint32_t sum, const struct bstream_cmd *c)
{
	uint8_t hdr[10];

	put_le32(hdr, c->len);
	hdr[4] = (uint8_t)c->cmd;
	hdr[5] = (uint8_t)(c->cmd >> 8);
	put_le32(hdr + 6, c->crc);
	return bstream_crc32c(sum, hdr, sizeof(hdr));
}

uint32_t resume_meta_start(uint32_t version)
{
	return resume_prefix_start(version);
}

uint32_t resume_meta_add(uint32_t sum, const struct bstream_cmd *c)
{
	uint8_t hdr[10];
	uint32_t data_pos = c->len;

	put_le32(hdr, c->len);
	hdr[4] = (uint8_t)c->cmd;
	hdr[5] = (uint8_t)(c->cmd >> 8);
	put_le32(hdr + 6, 0);
	sum = bstream_crc32c(sum, hdr, sizeof(hdr));
	/* The DATA bytes are left out; with them skipped raw ends there. */
	if (c->data_offset)
		data_pos = (uint32_t)(c->data_offset - c->offset - sizeof(hdr));
	sum = bstream_crc32c(sum, c->raw, data_pos);
	if (c->data_offset && !c->data_skipped && data_pos + c->data_len < c->len)
		sum = bstream_crc32c(sum, c->raw + data_pos + c->data_len,
				     c->len - data_pos - c->data_len);
	return sum;
}

const char *resume_token_stream_differs(const struct resume_token *a,
					const struct resume_token *b)
{
	if (memcmp(a->uuid, b->uuid, 16) || a->ctransid != b->ctransid)
		return "sent subvolume";
	if (a->has_parent != b->has_parent ||
	    (a->has_parent && (memcmp(a->parent_uuid, b->parent_uuid, 16) ||
			       a->parent_ctransid != b->parent_ctransid)))
		return "parent";
	if (a->version != b->version)
		return "protocol version";
	return NULL;
}
