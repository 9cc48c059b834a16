// SPDX-License-Identifier: GPL-2.0
/*
 * Resumable receives (docs/resume.md): a receive that stops before the end
 * of a subvolume -- end of input, an error, a signal, a crash or a power
 * loss -- leaves the partial subvolume writable, not marked as received,
 * with a state file that says which commands of its stream it holds.
 *
 * While commands are applied, the state file names the last checkpoint:
 * a copy of the partial subvolume kept by the destination backend at a
 * quiescent point (the held-back creation made, the worker drained,
 * deferred directory times and late inode flags applied).  A receive
 * that dies without a word is rolled back to that checkpoint.  A receive
 * that stops cleanly brings the subvolume to the exact end of the last
 * command it applied and records that point, with the layout digest that
 * shows later that nobody changed the subvolume meanwhile.
 *
 * A continuation stream (btrfs-stream send --resume) starts with the
 * private command RESUME_CMD, which names the stream and the resume
 * point; the partial subvolume is found by the stream's UUID and must be
 * at exactly that point.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "receive.h"

#define CMD_END(c) ((c)->offset + 10 + (c)->len)

/* ---------------------------------------------------------------------- */
/* Signals                                                                 */

static volatile sig_atomic_t interrupted;
static int signal_input_fd = -1, signal_null_fd = -1;

/*
 * Stop at the next command boundary: the flag is checked before each
 * command, and the input is replaced by /dev/null so that a read waiting
 * on a quiet pipe ends at once.
 */
static void on_signal(int sig)
{
	interrupted = sig;
	if (signal_null_fd >= 0)
		dup2(signal_null_fd, signal_input_fd);
}

void recv_resume_signals(int input_fd)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	signal_input_fd = input_fd;
	signal_null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

int recv_resume_interrupted(void)
{
	return interrupted;
}

int recv_resume_before(struct recv *r, const struct bstream_cmd *c)
{
	struct recv_resume *rs = &r->resume;

	rs->last_index = c->index;
	if (rs->hdr_continuation && c->index - rs->hdr_index == 1 && c->cmd != RESUME_CMD) {
		recv_fail(r, c, c->path, 0, "a continuation stream must open with its resume command");
		return -1;
	}
	if (!interrupted)
		return 0;
	recv_error(r, "interrupted by signal %d (%s) before command %" PRIu64 " at offset %" PRIu64,
		   (int)interrupted, strsignal(interrupted), c->index, c->offset);
	return -1;
}

int recv_resume_header(void *user, uint32_t version, uint64_t offset)
{
	struct recv *r = user;

	r->resume.hdr_version = version;
	r->resume.hdr_continuation = r->rd && bstream_reader_continuation(r->rd);
	r->resume.hdr_offset = offset;
	r->resume.hdr_index = r->resume.last_index;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The state directory and lock files                                      */

static int open_dir(struct recv *r, bool create)
{
	if (r->resume.dir >= 0)
		return 0;
	if (create && mkdirat(r->dest_fd, RESUME_DIR, 0700) && errno != EEXIST)
		return -errno;
	r->resume.dir = openat(r->dest_fd, RESUME_DIR,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return r->resume.dir < 0 ? -errno : 0;
}

/* Lock NAME.lock: a descriptor, or -EBUSY while another receive holds it. */
static int lock_name(struct recv *r, const char *name, bool create)
{
	char file[300];
	int fd;

	snprintf(file, sizeof(file), "%s.lock", name);
	fd = openat(r->resume.dir, file, O_RDWR | O_NOFOLLOW | O_CLOEXEC |
		    (create ? O_CREAT : 0), 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno == EWOULDBLOCK ? EBUSY : errno;

		close(fd);
		return -err;
	}
	return fd;
}

static void unlock_name(struct recv *r)
{
	if (r->resume.lock_fd >= 0)
		close(r->resume.lock_fd);
	r->resume.lock_fd = -1;
}

/* Whether entry is a checkpoint of name: "NAME.ckpt-" and digits. */
static bool is_checkpoint_of(const char *entry, const char *name)
{
	size_t len = strlen(name);

	if (strncmp(entry, name, len) || strncmp(entry + len, ".ckpt-", 6) || !entry[len + 6])
		return false;
	return strspn(entry + len + 6, "0123456789") == strlen(entry + len + 6);
}

/*
 * Remove what a crash may have left of name beside its state: a
 * checkpoint taken but never recorded, a state file never renamed in
 * place.  keep (may be "") is the checkpoint the state names.
 */
static int sweep(struct recv *r, const char *name, const char *keep, char *why, size_t wlen)
{
	char tmp[300];
	struct dirent *de;
	int fd, err = 0;
	DIR *d;

	snprintf(tmp, sizeof(tmp), ".%s.state.tmp", name);
	unlinkat(r->resume.dir, tmp, 0);
	fd = openat(r->resume.dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		snprintf(why, wlen, "cannot list '%s'", RESUME_DIR);
		return errno;
	}
	while (!err && (de = readdir(d))) {
		if (!is_checkpoint_of(de->d_name, name) || !strcmp(de->d_name, keep))
			continue;
		err = r->backend->remove(r, r->resume.dir, de->d_name, why, wlen);
		if (!err)
			rewinddir(d);
	}
	closedir(d);
	return err;
}

/* Remove the state of name: state file, checkpoints, lock file. */
static int forget(struct recv *r, const struct resume_state *st, char *why, size_t wlen)
{
	char file[300];
	int err;

	err = sweep(r, st->name, "", why, wlen);
	if (err)
		return err;
	snprintf(file, sizeof(file), "%s.state", st->name);
	if (unlinkat(r->resume.dir, file, 0) && errno != ENOENT) {
		snprintf(why, wlen, "cannot remove '%s/%s'", RESUME_DIR, file);
		return errno;
	}
	snprintf(file, sizeof(file), "%s.lock", st->name);
	unlinkat(r->resume.dir, file, 0);
	fsync(r->resume.dir);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Tracking a subvolume being received                                     */

static void stop_tracking(struct recv *r)
{
	r->resume.tracking = false;
	free(r->resume.st);
	r->resume.st = NULL;
	unlock_name(r);
}

static int save(struct recv *r, const struct resume_state *st)
{
	char why[400];
	int err = resume_state_write(r->resume.dir, st, why, sizeof(why));

	if (err)
		recv_error(r, "subvolume '%s': %s: %s", st->name, why, strerror(err));
	return err;
}

int recv_resume_begin(struct recv *r, const struct bstream_cmd *c)
{
	struct recv_resume *rs = &r->resume;
	struct resume_state *st;
	int ret;

	if (!rs->enabled)
		return 0;
	if (c->index - rs->hdr_index != 1) {
		recv_error(r, "subvolume '%s' does not start its stream (command %" PRIu64 "): it cannot be resumed",
			   r->sv.name, c->index);
		return 0;
	}
	if (!strncmp(r->sv.name, ".btrfs-stream", 13))
		return recv_fail(r, c, c->path, 0, "refusing subvolume name: reserved for receive's own records");
	ret = open_dir(r, true);
	if (!ret)
		ret = lock_name(r, r->sv.name, true);
	if (ret < 0)
		return recv_fail(r, c, c->path, -ret, "cannot set up resume state in '%s/%s'",
				 r->dest_name, RESUME_DIR);
	rs->lock_fd = ret;
	st = calloc(1, sizeof(*st));
	if (!st) {
		unlock_name(r);
		return recv_fail(r, c, c->path, ENOMEM, "cannot set up resume state");
	}
	memset(&rs->cur, 0, sizeof(rs->cur));
	memcpy(rs->cur.uuid, c->uuid, 16);
	rs->cur.ctransid = c->ctransid;
	if (c->cmd == BTRFS_SEND_C_SNAPSHOT) {
		rs->cur.has_parent = true;
		memcpy(rs->cur.parent_uuid, c->clone_uuid, 16);
		rs->cur.parent_ctransid = c->clone_ctransid;
	}
	rs->cur.version = rs->hdr_version;
	rs->cur.index = 1;
	rs->cur.offset = CMD_END(c) - rs->hdr_offset;
	rs->cur.prefix = resume_prefix_add(resume_prefix_start(rs->hdr_version), c);
	rs->cur.has_meta = true;
	rs->cur.meta = resume_meta_add(resume_meta_start(rs->hdr_version), c);
	rs->idx_base = rs->hdr_index;
	rs->off_base = rs->hdr_offset;
	rs->ckpt_offset = rs->cur.offset;
	snprintf(st->name, sizeof(st->name), "%s", r->sv.name);
	st->tok = rs->cur;
	st->at = RESUME_AT_START;
	st->root_times_pending = r->sv.root_times_pending;
	memcpy(st->root_times, r->sv.root_times, sizeof(st->root_times));
	rs->st = st;
	rs->tracking = true;
	rs->broken = false;
	if (save(r, st)) {
		stop_tracking(r);
		r->sv.failed = true;
		r->errors++;
		return -1;
	}
	return 0;
}

/*
 * Bring the subvolume to a quiescent point: every command so far applied
 * in full, on disk as the next command would find it.  0, or -1 if that
 * failed (reported; the subvolume is failed).
 */
static int quiesce(struct recv *r)
{
	if (recv_flush_pending(r) < 0)
		return -1;
	fcache_close_all(&r->files);
	if (recv_jobs_drain(r) < 0 || r->sv.failed)
		return -1;
	dcache_flush(r->sv.dc);
	recv_apply_late_flags(r);
	return r->sv.failed ? -1 : 0;
}

/* Keep the subvolume as the checkpoint of the current point. */
static int checkpoint(struct recv *r)
{
	struct recv_resume *rs = &r->resume;
	struct resume_state st = *rs->st;
	char name[300], why[600];
	int err;

	if (quiesce(r)) {
		rs->broken = true;
		return r->max_errors && r->errors >= r->max_errors ? -1 : 0;
	}
	snprintf(name, sizeof(name), "%s.ckpt-%" PRIu64, r->sv.name, rs->cur.index);
	err = r->backend->checkpoint(r, rs->dir, name, why, sizeof(why));
	if (err) {
		recv_error(r, "subvolume '%s': no checkpoint after command %" PRIu64 ": %s: %s",
			   r->sv.name, rs->cur.index, why, strerror(err));
		rs->broken = true;
		return 0;
	}
	st.tok = rs->cur;
	st.at = RESUME_AT_CHECKPOINT;
	snprintf(st.ckpt, sizeof(st.ckpt), "%s", name);
	st.root_times_pending = r->sv.root_times_pending;
	memcpy(st.root_times, r->sv.root_times, sizeof(st.root_times));
	if (save(r, &st)) {
		r->backend->remove(r, rs->dir, name, why, sizeof(why));
		rs->broken = true;
		return 0;
	}
	if (rs->st->ckpt[0] && strcmp(rs->st->ckpt, name) &&
	    (err = r->backend->remove(r, rs->dir, rs->st->ckpt, why, sizeof(why))))
		recv_error(r, "subvolume '%s': old checkpoint stays: %s: %s",
			   r->sv.name, why, strerror(err));
	*rs->st = st;
	rs->ckpt_offset = rs->cur.offset;
	rs->checkpoints++;
	recv_info(r, 2, "%s: checkpoint after command %" PRIu64 " (offset %" PRIu64 ")",
		  r->sv.name, rs->cur.index, rs->cur.offset);
	return 0;
}

int recv_resume_applied(struct recv *r, const struct bstream_cmd *c)
{
	struct recv_resume *rs = &r->resume;

	if (!rs->tracking || rs->broken)
		return 0;
	/* The SUBVOL or SNAPSHOT that started it is counted already. */
	if (r->sv.active && !r->sv.failed && c->index - rs->idx_base == rs->cur.index)
		return 0;
	if (!r->sv.active || r->sv.failed || c->index - rs->idx_base != rs->cur.index + 1) {
		rs->broken = true;
		return 0;
	}
	rs->cur.index++;
	rs->cur.offset = CMD_END(c) - rs->off_base;
	rs->cur.prefix = resume_prefix_add(rs->cur.prefix, c);
	/* A state from before the metadata checksum goes on without it. */
	if (rs->cur.has_meta)
		rs->cur.meta = resume_meta_add(rs->cur.meta, c);
	if (c->cmd == BTRFS_SEND_C_ENCODED_WRITE)
		rs->cur.flags |= RESUME_FL_COMPRESSED;
	if (c->cmd == BTRFS_SEND_C_UPDATE_EXTENT)
		rs->cur.flags |= RESUME_FL_NO_DATA;
	if (rs->cur.offset - rs->ckpt_offset < rs->every)
		return 0;
	return checkpoint(r);
}

void recv_resume_stop(struct recv *r)
{
	struct recv_resume *rs = &r->resume;
	struct resume_state st;
	char why[600];
	int err;

	if (!rs->tracking)
		return;
	st = *rs->st;
	if (!rs->broken && r->sv.active && !quiesce(r)) {
		st.tok = rs->cur;
		st.at = RESUME_AT_SUBVOL;
		st.ckpt[0] = 0;
		st.root_times_pending = r->sv.root_times_pending;
		memcpy(st.root_times, r->sv.root_times, sizeof(st.root_times));
		/* What the state vouches for is on disk before the state. */
		err = syncfs(r->sv.root_fd) ? errno : 0;
		if (err)
			snprintf(why, sizeof(why), "cannot sync it");
		else
			err = recv_layout_digest(r->sv.root_fd, &st.digest, why, sizeof(why));
		if (err)
			recv_error(r, "subvolume '%s': %s: %s", r->sv.name, why, strerror(err));
		else if (!save(r, &st)) {
			if (rs->st->ckpt[0] &&
			    (err = r->backend->remove(r, rs->dir, rs->st->ckpt, why, sizeof(why))))
				recv_error(r, "subvolume '%s': old checkpoint stays: %s: %s",
					   r->sv.name, why, strerror(err));
			*rs->st = st;
		}
	}
	st = *rs->st;
	recv_error(r, "subvolume '%s/%s' can be resumed after command %" PRIu64 " (offset %" PRIu64 ")%s: "
		   "'btrfs-stream receive --resume-token %s/%s' prints the token for 'btrfs-stream send --resume'",
		   r->dest_name, st.name, st.tok.index, st.tok.offset,
		   st.at == RESUME_AT_SUBVOL ? "" :
		   st.at == RESUME_AT_CHECKPOINT ? ", its last checkpoint" : ", its start",
		   r->dest_name, st.name);
	stop_tracking(r);
}

void recv_resume_done(struct recv *r)
{
	char why[600];
	int err;

	if (!r->resume.tracking)
		return;
	err = forget(r, r->resume.st, why, sizeof(why));
	if (err)
		recv_error(r, "subvolume '%s' was received, but its resume state stays: %s: %s",
			   r->sv.name, why, strerror(err));
	stop_tracking(r);
}

void recv_resume_free(struct recv *r)
{
	stop_tracking(r);
	if (r->resume.dir >= 0)
		close(r->resume.dir);
	r->resume.dir = -1;
}

/* ---------------------------------------------------------------------- */
/* Continuation streams                                                    */

static uint64_t attr_u64(const struct bstream_cmd *c, unsigned int a, bool *ok)
{
	uint64_t v = 0;

	if (c->attr[a].len != 8) {
		*ok = false;
		return 0;
	}
	for (int i = 7; i >= 0; i--)
		v = v << 8 | c->attr[a].data[i];
	return v;
}

/* The token a RESUME_CMD carries: 0, or -1 if an attribute is missing. */
static int token_of(const struct bstream_cmd *c, uint32_t version, struct resume_token *t)
{
	bool ok = true;

	memset(t, 0, sizeof(*t));
	if (c->attr[BTRFS_SEND_A_UUID].len != 16)
		return -1;
	memcpy(t->uuid, c->attr[BTRFS_SEND_A_UUID].data, 16);
	t->ctransid = attr_u64(c, BTRFS_SEND_A_CTRANSID, &ok);
	if (c->attr[BTRFS_SEND_A_CLONE_UUID].len == 16) {
		t->has_parent = true;
		memcpy(t->parent_uuid, c->attr[BTRFS_SEND_A_CLONE_UUID].data, 16);
		t->parent_ctransid = attr_u64(c, BTRFS_SEND_A_CLONE_CTRANSID, &ok);
	}
	t->version = version;
	t->index = attr_u64(c, BTRFS_SEND_A_SIZE, &ok);
	t->offset = attr_u64(c, BTRFS_SEND_A_FILE_OFFSET, &ok);
	t->prefix = (uint32_t)attr_u64(c, BTRFS_SEND_A_INO, &ok);
	t->flags = attr_u64(c, BTRFS_SEND_A_MODE, &ok);
	return ok && t->index ? 0 : -1;
}

/* The state of the partial subvolume received from t's stream: 0, or -ENOENT. */
static int find_state(struct recv *r, const struct resume_token *t, struct resume_state *st)
{
	struct dirent *de;
	int fd, ret = -ENOENT;
	DIR *d;

	fd = openat(r->resume.dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char why[400];

		if (de->d_name[0] == '.' || len < 7 || strcmp(de->d_name + len - 6, ".state") ||
		    resume_state_read(r->resume.dir, de->d_name, st, why, sizeof(why)))
			continue;
		if (!memcmp(st->tok.uuid, t->uuid, 16) && st->tok.ctransid == t->ctransid) {
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}

static const char *point_str(char *buf, size_t size, const struct resume_token *t)
{
	snprintf(buf, size, "command %" PRIu64 ", offset %" PRIu64 ", prefix checksum %#010" PRIx32,
		 t->index, t->offset, t->prefix);
	return buf;
}

/* Check that the partial subvolume st fits the continuation t: NULL or why not. */
static const char *misfit(const struct resume_state *st, const struct resume_token *t,
			  char *buf, size_t size)
{
	const char *what = resume_token_stream_differs(&st->tok, t);
	char a[128], b[128];

	if (what) {
		snprintf(buf, size, "the %s differs from that of the stream it was received from", what);
		return buf;
	}
	if (t->index != st->tok.index || t->offset != st->tok.offset || t->prefix != st->tok.prefix) {
		snprintf(buf, size, "the continuation resumes after %s, the partial subvolume holds the stream up to %s%s",
			 point_str(a, sizeof(a), t), point_str(b, sizeof(b), &st->tok),
			 st->at == RESUME_AT_SUBVOL ? "" : " (its last checkpoint)");
		return buf;
	}
	return NULL;
}

/* Roll the partial subvolume back to where its state says, or check it is unchanged. */
static int prepare_partial(struct recv *r, const struct resume_state *st, int root,
			   char *why, size_t wlen)
{
	uint64_t digest;
	uint64_t id;
	int src = -1, err;

	if (st->at == RESUME_AT_SUBVOL) {
		err = recv_layout_digest(root, &digest, why, wlen);
		if (err)
			return err;
		if (digest != st->digest) {
			snprintf(why, wlen, "it was changed since the receive stopped (layout digest %016" PRIx64
				 ", recorded %016" PRIx64 "): refusing to resume it; --abort removes it",
				 digest, st->digest);
			return ESTALE;
		}
		return 0;
	}
	if (st->at == RESUME_AT_CHECKPOINT) {
		src = openat(r->resume.dir, st->ckpt, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (src < 0) {
			snprintf(why, wlen, "cannot open its checkpoint '%s/%s'", RESUME_DIR, st->ckpt);
			return errno;
		}
	} else if (st->tok.has_parent) {
		src = r->backend->open_received(r, st->tok.parent_uuid, st->tok.parent_ctransid,
						&id, why, wlen);
		if (src < 0)
			return -src;
	}
	recv_info(r, 1, "rolling '%s' back to %s", st->name,
		  st->at == RESUME_AT_CHECKPOINT ? "its last checkpoint" : "its start");
	err = r->backend->restore(r, root, src, why, wlen);
	if (src >= 0)
		close(src);
	return err;
}

/* The partial subvolume at root becomes the current subvolume. */
static int partial_open(struct recv *r, const char *name, int root,
		      const struct resume_state *st)
{
	struct recv_subvol *sv = &r->sv;

	memset(sv, 0, sizeof(*sv));
	sv->root_plain = -1;
	sv->active = true;
	sv->created = true;
	sv->is_snapshot = st->tok.has_parent;
	memcpy(sv->uuid, st->tok.uuid, 16);
	sv->ctransid = st->tok.ctransid;
	snprintf(sv->name, sizeof(sv->name), "%s", name);
	sv->root_fd = root;
	sv->root_times_pending = st->root_times_pending;
	memcpy(sv->root_times, st->root_times, sizeof(sv->root_times));
	sv->dc = dcache_new(root, 256, recv_dcache_error, r);
	if (r->backend->check_new(r, root, &sv->root_id) || !sv->dc) {
		recv_error(r, "cannot resume '%s/%s': %s", r->dest_name, name,
			   sv->dc ? "it is not a subvolume" : "out of memory");
		sv->failed = true;
		sv->created = false;
		r->errors++;
		return -1;
	}
	return 0;
}

/* RESUME_CMD: take over the partial subvolume the continuation names. */
static int resume_cmd(struct recv *r, const struct bstream_cmd *c)
{
	struct recv_resume *rs = &r->resume;
	struct resume_state st;
	struct resume_token t;
	char why[700], us[37];
	const char *bad;
	int ret, root;

	if (!rs->hdr_continuation || r->sv.active || c->index - rs->hdr_index != 1)
		return recv_fail(r, c, NULL, 0, "a resume command must open a continuation stream");
	if (token_of(c, rs->hdr_version, &t))
		return recv_fail(r, c, NULL, 0, "resume command: attribute missing or malformed");
	cli_uuid_str(t.uuid, us);
	ret = open_dir(r, false);
	if (!ret)
		ret = find_state(r, &t, &st);
	if (ret)
		return recv_fail(r, c, NULL, 0, "no partial subvolume in '%s' was received from subvolume %s transid %" PRIu64,
				 r->dest_name, us, t.ctransid);
	bad = misfit(&st, &t, why, sizeof(why));
	if (bad)
		return recv_fail(r, c, st.name, 0, "cannot resume: %s", bad);
	ret = lock_name(r, st.name, false);
	if (ret < 0)
		return recv_fail(r, c, st.name, -ret, "cannot resume: %s",
				 ret == -EBUSY ? "another receive is using it" : "cannot lock it");
	rs->lock_fd = ret;
	ret = sweep(r, st.name, st.ckpt, why, sizeof(why));
	if (ret) {
		unlock_name(r);
		return recv_fail(r, c, st.name, ret, "cannot resume: %s", why);
	}
	root = recv_walk_dir(r->dest_fd, st.name, strlen(st.name));
	if (root < 0) {
		unlock_name(r);
		return recv_fail(r, c, st.name, -root, "cannot open the partial subvolume");
	}
	ret = prepare_partial(r, &st, root, why, sizeof(why));
	if (ret) {
		close(root);
		unlock_name(r);
		/* ESTALE: the digest differs, and why says all. */
		return recv_fail(r, c, st.name, ret == ESTALE ? 0 : ret, "cannot resume: %s", why);
	}
	ret = partial_open(r, st.name, root, &st);
	if (ret) {
		unlock_name(r);
		return ret;
	}
	rs->st = malloc(sizeof(*rs->st));
	if (!rs->st) {
		unlock_name(r);
		return recv_fail(r, c, st.name, ENOMEM, "cannot resume");
	}
	*rs->st = st;
	rs->cur = st.tok;
	rs->idx_base = c->index - st.tok.index;
	rs->off_base = CMD_END(c) - st.tok.offset;
	rs->ckpt_offset = st.tok.offset;
	rs->tracking = true;
	rs->broken = false;
	recv_info(r, 1, "At %s %s, resuming after command %" PRIu64, st.tok.has_parent ? "snapshot" : "subvol",
		  st.name, st.tok.index);
	/* From here on commands change it: keep where it is now first. */
	if (st.at == RESUME_AT_SUBVOL)
		return checkpoint(r);
	return 0;
}

int recv_resume_unknown(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;

	if (recv_resume_before(r, c))
		return -1;
	if (c->cmd == RESUME_CMD)
		return resume_cmd(r, c);
	recv_info(r, 2, "skipping unknown command %u at offset %" PRIu64, c->cmd, c->offset);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* --list-partial, --abort, --resume-token                                 */

int recv_resume_list(struct recv *r)
{
	struct dirent *de;
	int fd, bad = 0;
	DIR *d;

	if (open_dir(r, false))
		return 0;
	fd = openat(r->resume.dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		recv_error(r, "cannot list '%s/%s': %s", r->dest_name, RESUME_DIR, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct resume_state st;
		char why[400];

		if (de->d_name[0] == '.' || len < 7 || strcmp(de->d_name + len - 6, ".state"))
			continue;
		if (resume_state_read(r->resume.dir, de->d_name, &st, why, sizeof(why))) {
			recv_error(r, "%s", why);
			bad = 1;
			continue;
		}
		printf("%s/%s index=%" PRIu64 " offset=%" PRIu64 " from=%s\n", r->dest_name,
		       st.name, st.tok.index, st.tok.offset, resume_at_name(st.at));
	}
	closedir(d);
	return bad;
}

/* The state of partial subvolume name, locked: 0, or 1 (reported). */
static int take(struct recv *r, const char *name, struct resume_state *st)
{
	char file[300], why[400];
	int ret;

	if (recv_name_invalid(name, strlen(name))) {
		recv_error(r, "'%s' is not a name in '%s'", name, r->dest_name);
		return 1;
	}
	snprintf(file, sizeof(file), "%s.state", name);
	if (open_dir(r, false) || faccessat(r->resume.dir, file, F_OK, AT_SYMLINK_NOFOLLOW)) {
		recv_error(r, "'%s/%s' is not a partial subvolume: no resume state in '%s/%s'",
			   r->dest_name, name, r->dest_name, RESUME_DIR);
		return 1;
	}
	ret = lock_name(r, name, true);
	if (ret < 0) {
		recv_error(r, "'%s/%s': %s", r->dest_name, name,
			   ret == -EBUSY ? "a receive into it is running" : strerror(-ret));
		return 1;
	}
	r->resume.lock_fd = ret;
	if (resume_state_read(r->resume.dir, file, st, why, sizeof(why))) {
		recv_error(r, "%s", why);
		unlock_name(r);
		return 1;
	}
	return 0;
}

int recv_resume_abort(struct recv *r, const char *name)
{
	struct resume_state st;
	char why[600];
	int err;

	if (take(r, name, &st))
		return 1;
	err = r->backend->remove(r, r->dest_fd, name, why, sizeof(why));
	if (err == ENOENT)
		err = 0;
	if (!err)
		err = forget(r, &st, why, sizeof(why));
	unlock_name(r);
	if (err) {
		recv_error(r, "cannot abort '%s/%s': %s: %s", r->dest_name, name, why, strerror(err));
		return 1;
	}
	recv_info(r, 1, "removed the partial subvolume '%s/%s' and its resume state", r->dest_name, name);
	return 0;
}

int recv_resume_print_token(struct recv *r, const char *name)
{
	struct resume_state st;
	char tok[RESUME_TOKEN_MAX];

	if (take(r, name, &st))
		return 1;
	unlock_name(r);
	resume_token_format(&st.tok, tok, sizeof(tok));
	printf("%s\n", tok);
	return 0;
}
