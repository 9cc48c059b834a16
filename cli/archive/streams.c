// SPDX-License-Identifier: GPL-2.0
/*
 * The stream files of a chain: each is replayed onto the model in the
 * order given, through the library's reader, and stays open so that cat
 * and extract can read file data back from it later.  The replay needs no
 * file data, so its reader skips the data of every WRITE and
 * ENCODED_WRITE (a data filter that always declines): on a regular file
 * it seeks over it and reads only the commands' headers and attributes,
 * which are checked as usual, but not their CRC.  Every other command is
 * checked whole, and data.c reads again, fully checked, each command
 * whose data it gives out.
 *
 * Data is read back, so a stream that cannot be read twice (a pipe) is
 * first copied to an unnamed temporary file when data is needed; ls,
 * which needs none, reads a pipe as it comes.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "archive.h"
#include "../cli.h"
#include "../receive/receive.h"

const char *ar_quote(char *buf, size_t size, const char *path)
{
	return recv_quote(buf, size, path);
}

const char *ar_user_path(const char *arg, char *out, size_t outlen)
{
	size_t len = strlen(arg);
	const char *why;

	/* "./a", "a/", "." and "" are how people name a and the top. */
	while (len >= 2 && arg[0] == '.' && arg[1] == '/') {
		arg += 2;
		len -= 2;
		while (len && *arg == '/') {
			arg++;
			len--;
		}
	}
	while (len && arg[len - 1] == '/' && len > 1)
		len--;
	if (len == 1 && arg[0] == '.')
		len = 0;
	if (len >= outlen)
		return "path too long";
	memcpy(out, arg, len);
	out[len] = 0;
	why = recv_path_invalid(out, len, true);
	return why;
}

/* Copy what fd gives into an unnamed temporary file; its descriptor or -errno. */
static int spool(int fd)
{
	const char *dir = getenv("TMPDIR");
	char buf[1 << 16];
	int tmp;

	if (!dir || !*dir)
		dir = "/tmp";
	tmp = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (tmp < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf)), w;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(tmp);
			return (int)n;
		}
		if (!n)
			break;
		for (ssize_t o = 0; o < n; o += w) {
			w = write(tmp, buf + o, n - o);
			if (w < 0) {
				w = -errno;
				close(tmp);
				return (int)w;
			}
		}
	}
	if (lseek(tmp, 0, SEEK_SET) < 0) {
		close(tmp);
		return -errno;
	}
	return tmp;
}

static int open_stream(struct ar *a, const char *name)
{
	struct stat st;
	int fd, tmp;

	if (!strcmp(name, "-"))
		fd = dup(STDIN_FILENO);
	else
		fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(a->err, sizeof(a->err), "cannot open '%s': %s", name, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(a->err, sizeof(a->err), "cannot stat '%s': %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(a->err, sizeof(a->err), "'%s' is a directory, not a stream", name);
		close(fd);
		return -1;
	}
	if (!a->need_data || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
		return fd;
	tmp = spool(fd);
	close(fd);
	if (tmp < 0) {
		snprintf(a->err, sizeof(a->err), "cannot copy '%s' to a temporary file: %s",
			 name, strerror(-tmp));
		return -1;
	}
	return tmp;
}

static bool no_data(void *user, const struct bstream_cmd *c)
{
	return false;
}

/* Replay one stream file; 0, or -1 with a->err set. */
static int replay(struct ar *a, struct ar_stream *s)
{
	struct bstream_reader *r;
	char q[320];
	int ret;

	/* Neither mapped nor read ahead: both would read the skipped data. */
	r = bstream_reader_new(NULL);
	if (!r) {
		snprintf(a->err, sizeof(a->err), "cannot create the stream reader");
		return -1;
	}
	s->start = lseek(s->fd, 0, SEEK_CUR);
	if (s->start < 0)
		s->start = 0;
	ret = bstream_reader_set_data_filter(r, no_data, a);
	if (!ret)
		ret = bstream_reader_set_fd(r, s->fd);
	if (!ret)
		ret = bstream_process(r, &ar_replay_ops, a);
	if (ret < 0) {
		char msg[sizeof(a->err)];

		snprintf(msg, sizeof(msg), "%s", bstream_reader_errcode(r) == BSTREAM_E_CALLBACK ?
			 a->err : bstream_reader_errmsg(r));
		snprintf(a->err, sizeof(a->err), "'%s': %.*s", ar_quote(q, sizeof(q), s->name),
			 (int)(sizeof(a->err) - sizeof(q) - 8), msg);
	}
	bstream_reader_free(r);
	return ret < 0 ? -1 : 0;
}

int ar_load(struct ar *a, char **files, int nfiles)
{
	if (nfiles > UINT16_MAX) {
		snprintf(a->err, sizeof(a->err), "too many streams (at most %u)", UINT16_MAX);
		return -1;
	}
	a->model = ar_model_new();
	a->streams = calloc(nfiles, sizeof(*a->streams));
	if (!a->model || !a->streams) {
		snprintf(a->err, sizeof(a->err), "out of memory");
		return -1;
	}
	for (int i = 0; i < nfiles; i++)
		a->streams[i].fd = -1;
	for (int i = 0; i < nfiles && !a->done; i++) {
		struct ar_stream *s = &a->streams[i];

		s->name = files[i];
		a->nstreams = i + 1;
		s->fd = open_stream(a, files[i]);
		if (s->fd < 0)
			return -1;
		a->cur_stream = (uint16_t)i;
		if (replay(a, s))
			return -1;
	}
	if (!a->have_subvol) {
		snprintf(a->err, sizeof(a->err), "the stream holds no subvolume");
		return -1;
	}
	if (a->want_subvol && !a->done) {
		char q[320];

		snprintf(a->err, sizeof(a->err), "no subvolume '%s' in the streams",
			 ar_quote(q, sizeof(q), a->want_subvol));
		return -1;
	}
	if (a->verbose > 1) {
		uint64_t ni, ne;

		ar_model_counts(a->model, &ni, &ne);
		fprintf(stderr, "%s %s: subvolume '%s': %" PRIu64 " inodes, %" PRIu64 " names\n",
			PROG, a->cmd->name, a->sv.name, ni, ne);
	}
	return 0;
}

void ar_unload(struct ar *a)
{
	for (size_t i = 0; i < a->nstreams; i++)
		if (a->streams[i].fd >= 0)
			close(a->streams[i].fd);
	free(a->streams);
	ar_model_free(a->model);
	a->streams = NULL;
	a->model = NULL;
	a->nstreams = 0;
}
