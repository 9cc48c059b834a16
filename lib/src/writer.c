// SPDX-License-Identifier: GPL-2.0
/*
 * Stream writer: encodes a stream header and commands, to a file descriptor
 * or into a caller buffer.  A command is assembled in an internal buffer
 * (header and attributes); a DATA attribute is only referenced and emitted
 * with writev(), so file data is not copied on its way to a descriptor.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
#include "internal.h"

struct bstream_writer {
	int fd;
	uint8_t *out;		/* caller buffer mode */
	size_t out_cap;
	uint64_t offset;	/* bytes produced */
	uint32_t version;
	bstream_crc_fn crc;

	bool in_cmd;
	bool data_last;		/* v2+ DATA put: no more attributes */
	uint8_t *cbuf;		/* command header + attributes */
	size_t cbuf_cap, clen;
	const uint8_t *ext;	/* referenced DATA bytes following cbuf */
	size_t ext_len;

	int err;
	char msg[BSTREAM_MSG_LEN];
};

struct bstream_writer *bstream_writer_new(void)
{
	struct bstream_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = -1;
	w->crc = bstream_crc_get(BSTREAM_CRC_AUTO);
	return w;
}

void bstream_writer_free(struct bstream_writer *w)
{
	if (!w)
		return;
	free(w->cbuf);
	free(w);
}

__attribute__((format(printf, 3, 4)))
static int wfail(struct bstream_writer *w, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
	va_end(ap);
	w->err = code;
	return -code;
}

int bstream_writer_set_fd(struct bstream_writer *w, int fd)
{
	if (!w || fd < 0)
		return -BSTREAM_E_INVAL;
	w->fd = fd;
	w->out = NULL;
	w->offset = 0;
	return 0;
}

int bstream_writer_set_buf(struct bstream_writer *w, void *buf, size_t cap)
{
	if (!w || (!buf && cap))
		return -BSTREAM_E_INVAL;
	w->fd = -1;
	w->out = buf;
	w->out_cap = cap;
	w->offset = 0;
	return 0;
}

uint64_t bstream_writer_offset(const struct bstream_writer *w)
{
	return w->offset;
}

int bstream_writer_errcode(const struct bstream_writer *w)
{
	return w->err;
}

const char *bstream_writer_errmsg(const struct bstream_writer *w)
{
	return w->msg;
}

/* Emit iov[0..n) in order, completely. */
static int emit(struct bstream_writer *w, struct iovec *iov, int n)
{
	size_t total = 0;

	for (int i = 0; i < n; i++)
		total += iov[i].iov_len;
	if (w->out) {
		if (total > w->out_cap - w->offset)
			return wfail(w, BSTREAM_E_NOSPACE,
				     "output buffer full at offset %" PRIu64 ": %zu more bytes needed",
				     w->offset, total);
		for (int i = 0; i < n; i++) {
			memcpy(w->out + w->offset, iov[i].iov_base, iov[i].iov_len);
			w->offset += iov[i].iov_len;
		}
		return 0;
	}
	if (w->fd < 0)
		return wfail(w, BSTREAM_E_INVAL, "no output set");
	while (n > 0) {
		ssize_t done = writev(w->fd, iov, n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return wfail(w, BSTREAM_E_IO, "write failed at offset %" PRIu64 ": %s",
				     w->offset, strerror(errno));
		}
		w->offset += done;
		while (n > 0 && (size_t)done >= iov->iov_len) {
			done -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= done;
		}
	}
	return 0;
}

int bstream_write_header(struct bstream_writer *w, uint32_t version)
{
	uint8_t hdr[BSTREAM_HDR_LEN];
	struct iovec iov = { hdr, sizeof(hdr) };

	if (w->in_cmd)
		return wfail(w, BSTREAM_E_INVAL, "stream header inside a command");
	memcpy(hdr, BTRFS_SEND_STREAM_MAGIC, BTRFS_SEND_STREAM_MAGIC_LEN);
	put_le32(hdr + BTRFS_SEND_STREAM_MAGIC_LEN, version);
	/* A continuation's commands follow the rules of its real version. */
	w->version = version & ~BSTREAM_VERSION_CONTINUATION;
	return emit(w, &iov, 1);
}

static int reserve(struct bstream_writer *w, size_t more)
{
	size_t need = w->clen + more;
	uint8_t *n;
	size_t cap;

	if (need <= w->cbuf_cap)
		return 0;
	cap = w->cbuf_cap ? w->cbuf_cap : 4096;
	while (cap < need)
		cap *= 2;
	n = realloc(w->cbuf, cap);
	if (!n)
		return wfail(w, BSTREAM_E_NOMEM, "cannot grow command buffer to %zu bytes", cap);
	w->cbuf = n;
	w->cbuf_cap = cap;
	return 0;
}

/* Pull referenced DATA into the command buffer before appending more. */
static int absorb_ext(struct bstream_writer *w)
{
	int ret;

	if (!w->ext_len)
		return 0;
	ret = reserve(w, w->ext_len);
	if (ret)
		return ret;
	memcpy(w->cbuf + w->clen, w->ext, w->ext_len);
	w->clen += w->ext_len;
	w->ext = NULL;
	w->ext_len = 0;
	return 0;
}

static int append(struct bstream_writer *w, const void *buf, size_t len)
{
	int ret = absorb_ext(w);

	if (!ret)
		ret = reserve(w, len);
	if (ret)
		return ret;
	if (len)
		memcpy(w->cbuf + w->clen, buf, len);
	w->clen += len;
	return 0;
}

int bstream_cmd_begin(struct bstream_writer *w, unsigned int cmd)
{
	uint8_t hdr[BSTREAM_CMD_HDR_LEN] = { 0 };

	if (w->in_cmd)
		return wfail(w, BSTREAM_E_INVAL, "command begun inside a command");
	if (cmd > UINT16_MAX)
		return wfail(w, BSTREAM_E_INVAL, "command number %u out of range", cmd);
	put_le16(hdr + 4, cmd);
	w->clen = 0;
	w->ext = NULL;
	w->ext_len = 0;
	w->data_last = false;
	w->in_cmd = true;
	return append(w, hdr, sizeof(hdr));
}

static int put_tlv(struct bstream_writer *w, unsigned int attr,
		   const void *buf, size_t len)
{
	uint8_t th[4];
	int ret;

	if (!w->in_cmd)
		return wfail(w, BSTREAM_E_INVAL, "attribute outside a command");
	if (w->data_last)
		return wfail(w, BSTREAM_E_INVAL,
			     "attribute %u after data: data must be last in version %" PRIu32,
			     attr, w->version);
	if (attr > UINT16_MAX || len > UINT16_MAX)
		return wfail(w, BSTREAM_E_INVAL, "attribute %u: length %zu too large",
			     attr, len);
	put_le16(th, attr);
	put_le16(th + 2, len);
	ret = append(w, th, sizeof(th));
	if (!ret)
		ret = append(w, buf, len);
	return ret;
}

static int check_type(struct bstream_writer *w, unsigned int attr,
		      enum bstream_attr_type want)
{
	if (bstream_attr_type(attr) != want)
		return wfail(w, BSTREAM_E_INVAL, "attribute %u has another type", attr);
	return 0;
}

int bstream_put_u8(struct bstream_writer *w, unsigned int attr, uint8_t v)
{
	return check_type(w, attr, BSTREAM_T_U8) ?: put_tlv(w, attr, &v, 1);
}

int bstream_put_u32(struct bstream_writer *w, unsigned int attr, uint32_t v)
{
	uint8_t b[4];

	put_le32(b, v);
	return check_type(w, attr, BSTREAM_T_U32) ?: put_tlv(w, attr, b, 4);
}

int bstream_put_u64(struct bstream_writer *w, unsigned int attr, uint64_t v)
{
	uint8_t b[8];

	put_le64(b, v);
	return check_type(w, attr, BSTREAM_T_U64) ?: put_tlv(w, attr, b, 8);
}

int bstream_put_uuid(struct bstream_writer *w, unsigned int attr, const uint8_t uuid[16])
{
	return check_type(w, attr, BSTREAM_T_UUID) ?: put_tlv(w, attr, uuid, 16);
}

int bstream_put_timespec(struct bstream_writer *w, unsigned int attr,
			 struct bstream_timespec ts)
{
	uint8_t b[12];

	put_le64(b, (uint64_t)ts.sec);
	put_le32(b + 8, ts.nsec);
	return check_type(w, attr, BSTREAM_T_TIMESPEC) ?: put_tlv(w, attr, b, 12);
}

int bstream_put_string(struct bstream_writer *w, unsigned int attr, const char *s)
{
	return check_type(w, attr, BSTREAM_T_STRING) ?: put_tlv(w, attr, s, strlen(s));
}

int bstream_put_bytes(struct bstream_writer *w, unsigned int attr,
		      const void *buf, size_t len)
{
	return put_tlv(w, attr, buf, len);
}

int bstream_put_data(struct bstream_writer *w, const void *buf, size_t len)
{
	uint8_t th[4];
	int ret;

	if (w->version < 2)
		return put_tlv(w, BTRFS_SEND_A_DATA, buf, len);
	if (!w->in_cmd)
		return wfail(w, BSTREAM_E_INVAL, "attribute outside a command");
	if (w->data_last)
		return wfail(w, BSTREAM_E_INVAL, "second data attribute");
	if (len > UINT32_MAX - w->clen)
		return wfail(w, BSTREAM_E_INVAL, "data of %zu bytes too large", len);
	put_le16(th, BTRFS_SEND_A_DATA);
	ret = append(w, th, 2);
	if (ret)
		return ret;
	w->ext = buf;
	w->ext_len = len;
	w->data_last = true;
	return 0;
}

int bstream_put_raw(struct bstream_writer *w, const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };

	if (!w->in_cmd)
		return emit(w, &iov, 1);
	return append(w, buf, len);
}

int bstream_cmd_end(struct bstream_writer *w, const struct bstream_cmd_fixup *fix)
{
	struct iovec iov[2];
	uint64_t len;
	uint32_t crc;
	int ret;

	if (!w->in_cmd)
		return wfail(w, BSTREAM_E_INVAL, "no command to end");
	w->in_cmd = false;
	len = w->clen - BSTREAM_CMD_HDR_LEN + w->ext_len;
	if (len > UINT32_MAX)
		return wfail(w, BSTREAM_E_INVAL, "command of %" PRIu64 " bytes too large", len);
	put_le32(w->cbuf, fix && (fix->flags & BSTREAM_FIX_LEN) ? fix->len : (uint32_t)len);
	put_le32(w->cbuf + 6, 0);
	if (fix && (fix->flags & BSTREAM_FIX_CRC)) {
		crc = fix->crc;
	} else {
		crc = w->crc(0, w->cbuf, w->clen);
		crc = w->crc(crc, w->ext, w->ext_len);
	}
	put_le32(w->cbuf + 6, crc);
	iov[0].iov_base = w->cbuf;
	iov[0].iov_len = w->clen;
	iov[1].iov_base = (void *)w->ext;
	iov[1].iov_len = w->ext_len;
	ret = emit(w, iov, w->ext_len ? 2 : 1);
	w->ext = NULL;
	w->ext_len = 0;
	return ret;
}

int bstream_write_cmd(struct bstream_writer *w, const struct bstream_cmd *cmd)
{
	int order[BTRFS_SEND_A_MAX + 1];
	int n = 0;
	int ret;

	if (cmd->data_skipped)
		return wfail(w, BSTREAM_E_INVAL,
			     "command %" PRIu64 " at offset %" PRIu64 ": its data was skipped, cannot re-encode it",
			     cmd->index, cmd->offset);
	for (uint64_t m = cmd->present; m; m &= m - 1) {
		int a = __builtin_ctzll(m);
		int i = n++;

		while (i > 0 && cmd->attr[order[i - 1]].pos > cmd->attr[a].pos) {
			order[i] = order[i - 1];
			i--;
		}
		order[i] = a;
	}
	ret = bstream_cmd_begin(w, cmd->cmd);
	for (int i = 0; i < n && !ret; i++) {
		const struct bstream_attr *at = &cmd->attr[order[i]];

		if (order[i] == BTRFS_SEND_A_DATA)
			ret = bstream_put_data(w, at->data, at->len);
		else
			ret = bstream_put_bytes(w, order[i], at->data, at->len);
	}
	if (ret) {
		w->in_cmd = false;
		return ret;
	}
	return bstream_cmd_end(w, NULL);
}
