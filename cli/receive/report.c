// SPDX-License-Identifier: GPL-2.0
/*
 * Messages of receive, in one format: a failed command is reported as
 * "command N (NAME) at offset O: 'PATH': what: reason", and marks the
 * subvolume it belongs to as failed, so that it is never marked received.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "../cli.h"
#include "receive.h"

const char *recv_quote(char *buf, size_t size, const char *path)
{
	static const size_t keep = 120;	/* bytes shown at each end of long paths */
	size_t len = strlen(path), o = 0;

	for (size_t i = 0; i < len && o + 8 < size; i++) {
		unsigned char ch = path[i];

		if (len > 2 * keep + 16 && i == keep) {
			o += snprintf(buf + o, size - o, "...");
			i = len - keep - 1;
			continue;
		}
		if (ch == '\\')
			o += snprintf(buf + o, size - o, "\\\\");
		else if (ch < 0x20 || ch >= 0x7f || ch == '\'')
			o += snprintf(buf + o, size - o, "\\%03o", ch);
		else
			buf[o++] = ch;
	}
	buf[o] = 0;
	return buf;
}

void recv_error(struct recv *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", PROG, r->cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void recv_info(struct recv *r, int level, const char *fmt, ...)
{
	va_list ap;

	if (r->verbose < level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A command's name for messages, unknown ones included. */
static const char *cmd_label(uint16_t cmd)
{
	const char *name = bstream_cmd_name(cmd);

	if (name)
		return name;
	return cmd == RESUME_CMD ? "resume" : "unknown";
}

static int vfail(struct recv *r, uint16_t cmd, uint64_t index, uint64_t offset,
		 const char *path, int err, const char *fmt, va_list ap)
{
	char q[320], what[512];

	vsnprintf(what, sizeof(what), fmt, ap);
	if (err && recv_skip(r, cmd, err, path)) {
		/*
		 * Counted for the subvolume's summary; -v lists each one, so
		 * that what the destination lacks can be told item by item.
		 */
		if (r->verbose >= 2)
			fprintf(stderr, "%s %s: subvolume '%s': skipped command %" PRIu64
				" (%s) at offset %" PRIu64 ": '%s': %s: %s\n",
				PROG, r->cmd->name, r->sv.name, index, cmd_label(cmd),
				offset, recv_quote(q, sizeof(q), path ? path : ""), what,
				strerror(err));
		return 0;
	}
	fprintf(stderr, "%s %s: command %" PRIu64 " (%s) at offset %" PRIu64 ": '%s': %s%s%s\n",
		PROG, r->cmd->name, index, cmd_label(cmd), offset,
		recv_quote(q, sizeof(q), path ? path : ""), what,
		err ? ": " : "", err ? strerror(err) : "");
	if (r->sv.active)
		r->sv.failed = true;
	r->errors++;
	return r->max_errors && r->errors >= r->max_errors ? -1 : 0;
}

int recv_fail(struct recv *r, const struct bstream_cmd *c, const char *path,
	      int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(r, c->cmd, c->index, c->offset, path, err, fmt, ap);
	va_end(ap);
	return ret;
}

int recv_fail_at(struct recv *r, uint16_t cmd, uint64_t index, uint64_t offset,
		 const char *path, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(r, cmd, index, offset, path, err, fmt, ap);
	va_end(ap);
	return ret;
}

void recv_dcache_error(void *user, const char *path, int err)
{
	struct recv *r = user;
	char q[320];

	recv_error(r, "subvolume '%s': cannot set times of directory '%s': %s",
		   r->sv.name, recv_quote(q, sizeof(q), path), strerror(err));
	r->sv.failed = true;
	r->errors++;
}
