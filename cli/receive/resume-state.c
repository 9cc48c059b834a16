// SPDX-License-Identifier: GPL-2.0
/*
 * The resume state of a partial subvolume: DEST/.btrfs-stream-resume/NAME.state,
 * a small text file replaced atomically and durably (written to a
 * temporary name, synced, renamed, directory synced), so that after a
 * crash or power loss it says either the old thing or the new one.  Its
 * lines:
 *
 *   btrfs-stream-resume-state 1
 *   name=NAME
 *   token=<resume token: the stream and the resume point>
 *   at=start|checkpoint|subvol
 *   checkpoint=<name in the state directory>|-
 *   digest=<layout digest of the partial subvolume, hex>|-
 *   root_times=<atime sec.nsec> <mtime sec.nsec>|-
 *
 * "at" says where the resume point is held: in the partial subvolume
 * itself (a receive stopped cleanly, digest vouches it is unchanged), in
 * the checkpoint (a receive was running: the subvolume is rolled back to
 * it), or nowhere yet (a receive was running before its first
 * checkpoint: the subvolume is rolled back to its start).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "receive.h"

#define STATE_MAGIC "btrfs-stream-resume-state 1"

static const char *const at_names[] = {
	[RESUME_AT_START] = "start",
	[RESUME_AT_CHECKPOINT] = "checkpoint",
	[RESUME_AT_SUBVOL] = "subvol",
};

const char *resume_at_name(enum resume_at at)
{
	return at_names[at];
}

int resume_state_write(int dir, const struct resume_state *s, char *why, size_t wlen)
{
	char tok[RESUME_TOKEN_MAX], text[2048], tmp[300], file[300];
	int fd, len, err = 0;

	resume_token_format(&s->tok, tok, sizeof(tok));
	len = snprintf(text, sizeof(text), STATE_MAGIC "\nname=%s\ntoken=%s\nat=%s\ncheckpoint=%s\n",
		       s->name, tok, at_names[s->at], s->ckpt[0] ? s->ckpt : "-");
	if (s->at == RESUME_AT_SUBVOL)
		len += snprintf(text + len, sizeof(text) - len, "digest=%016" PRIx64 "\n", s->digest);
	else
		len += snprintf(text + len, sizeof(text) - len, "digest=-\n");
	if (s->root_times_pending)
		len += snprintf(text + len, sizeof(text) - len, "root_times=%lld.%09ld %lld.%09ld\n",
				(long long)s->root_times[0].tv_sec, s->root_times[0].tv_nsec,
				(long long)s->root_times[1].tv_sec, s->root_times[1].tv_nsec);
	else
		len += snprintf(text + len, sizeof(text) - len, "root_times=-\n");
	snprintf(tmp, sizeof(tmp), ".%s.state.tmp", s->name);
	snprintf(file, sizeof(file), "%s.state", s->name);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, len) != len || fsync(fd) ||
	    renameat(dir, tmp, dir, file) || fsync(dir))
		err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (err)
		snprintf(why, wlen, "cannot write the resume state '%s/%s'", RESUME_DIR, file);
	return err;
}

/* The value of "key=" on its own line of text, copied into out. */
static int field(const char *text, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *end;

		if (strncmp(p, key, klen) || p[klen] != '=')
			continue;
		p += klen + 1;
		end = strchr(p, '\n');
		if (!end || (size_t)(end - p) >= size)
			return -1;
		memcpy(out, p, end - p);
		out[end - p] = 0;
		return 0;
	}
	return -1;
}

static int parse_times(const char *v, struct resume_state *s)
{
	long long a, m;
	long an, mn;

	if (!strcmp(v, "-")) {
		s->root_times_pending = false;
		return 0;
	}
	if (sscanf(v, "%lld.%ld %lld.%ld", &a, &an, &m, &mn) != 4 ||
	    an < 0 || an > 999999999 || mn < 0 || mn > 999999999)
		return -1;
	s->root_times_pending = true;
	s->root_times[0] = (struct timespec){ .tv_sec = a, .tv_nsec = an };
	s->root_times[1] = (struct timespec){ .tv_sec = m, .tv_nsec = mn };
	return 0;
}

static int parse_state(const char *text, struct resume_state *s, char *why, size_t wlen)
{
	char v[RESUME_TOKEN_MAX];
	const char *bad = NULL;
	char *end;

	memset(s, 0, sizeof(*s));
	if (strncmp(text, STATE_MAGIC "\n", strlen(STATE_MAGIC) + 1))
		bad = "first line";
	else if (field(text, "name", s->name, sizeof(s->name)) || !s->name[0] ||
		 recv_name_invalid(s->name, strlen(s->name)))
		bad = "name";
	else if (field(text, "token", v, sizeof(v)) ||
		 resume_token_parse(v, &s->tok, why, wlen))
		bad = "token";
	else if (field(text, "at", v, sizeof(v)))
		bad = "at";
	else if (field(text, "checkpoint", s->ckpt, sizeof(s->ckpt)) ||
		 recv_name_invalid(s->ckpt, strlen(s->ckpt)))
		bad = "checkpoint";
	if (bad)
		goto out;
	if (!strcmp(v, "start"))
		s->at = RESUME_AT_START;
	else if (!strcmp(v, "checkpoint"))
		s->at = RESUME_AT_CHECKPOINT;
	else if (!strcmp(v, "subvol"))
		s->at = RESUME_AT_SUBVOL;
	else
		bad = "at";
	if (!strcmp(s->ckpt, "-"))
		s->ckpt[0] = 0;
	if (!bad && s->at == RESUME_AT_CHECKPOINT && !s->ckpt[0])
		bad = "checkpoint";
	if (!bad && (field(text, "digest", v, sizeof(v)) ||
		     (s->at == RESUME_AT_SUBVOL &&
		      (s->digest = strtoull(v, &end, 16), *end || end == v))))
		bad = "digest";
	if (!bad && (field(text, "root_times", v, sizeof(v)) || parse_times(v, s)))
		bad = "root_times";
out:
	if (bad && strcmp(bad, "token"))
		snprintf(why, wlen, "line '%s' missing or malformed", bad);
	return bad ? -1 : 0;
}

int resume_state_read(int dir, const char *file, struct resume_state *s, char *why,
		      size_t wlen)
{
	char text[4096], reason[300];
	ssize_t len;
	int fd;

	fd = openat(dir, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, wlen, "cannot open '%s/%s': %s", RESUME_DIR, file, strerror(errno));
		return -1;
	}
	len = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (len < 0) {
		snprintf(why, wlen, "cannot read '%s/%s': %s", RESUME_DIR, file, strerror(errno));
		return -1;
	}
	text[len] = 0;
	if (parse_state(text, s, reason, sizeof(reason))) {
		snprintf(why, wlen, "'%s/%s' is no resume state: %s", RESUME_DIR, file, reason);
		return -1;
	}
	return 0;
}
