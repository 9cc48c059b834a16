// SPDX-License-Identifier: GPL-2.0
/*
 * Subvolumes of the stream: starting one (SUBVOL or SNAPSHOT, through
 * the destination backend), the clone sources it names, and finishing it:
 * deferred times and flags applied, then marked received, or, after any
 * error, left as it is and reported incomplete.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "receive.h"


int recv_clone_source(struct recv *r, const struct bstream_cmd *c,
		      struct dcache **dc, char *why, size_t wlen)
{
	struct clone_src *s;
	uint64_t id;
	int fd;

	if (!memcmp(c->clone_uuid, r->sv.uuid, 16)) {
		*dc = r->sv.dc;
		return r->sv.root_fd;
	}
	for (s = r->srcs; s; s = s->next) {
		if (!memcmp(s->uuid, c->clone_uuid, 16) && s->ctransid == c->clone_ctransid) {
			*dc = s->dc;
			return s->fd;
		}
	}
	fd = r->backend->open_received(r, c->clone_uuid, c->clone_ctransid, &id, why, wlen);
	if (fd < 0)
		return fd;
	s = calloc(1, sizeof(*s));
	if (s)
		s->dc = dcache_new(fd, 16, NULL, NULL);
	if (!s || !s->dc) {
		free(s);
		close(fd);
		snprintf(why, wlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(s->uuid, c->clone_uuid, 16);
	s->ctransid = c->clone_ctransid;
	s->root_id = id;
	s->fd = fd;
	s->next = r->srcs;
	r->srcs = s;
	*dc = s->dc;
	return fd;
}

void recv_free_sources(struct recv *r)
{
	while (r->srcs) {
		struct clone_src *s = r->srcs;

		r->srcs = s->next;
		if (r->src_file_fd >= 0 && r->src_file_root == s->fd) {
			close(r->src_file_fd);
			r->src_file_fd = -1;
			free(r->src_file_path);
			r->src_file_path = NULL;
		}
		dcache_free(s->dc, false);
		close(s->fd);
		free(s);
	}
}

/* Start a subvolume: finish the previous one, check the name. 1 go on. */
static int begin(struct recv *r, const struct bstream_cmd *c)
{
	size_t len = c->attr[BTRFS_SEND_A_PATH].len;
	const char *why;

	r->n_cmds++;
	if (r->sv.active && recv_finish_subvol(r) < 0 &&
	    r->max_errors && r->errors >= r->max_errors)
		return -1;
	memset(&r->sv, 0, sizeof(r->sv));
	r->sv.root_fd = -1;
	r->sv.root_plain = -1;
	r->sv.active = true;
	r->sv.is_snapshot = c->cmd == BTRFS_SEND_C_SNAPSHOT;
	memcpy(r->sv.uuid, c->uuid, 16);
	r->sv.ctransid = c->ctransid;
	snprintf(r->sv.name, sizeof(r->sv.name), "%s", c->path);
	why = recv_name_invalid(c->path, len);
	if (!why && len > 255)
		why = "name longer than 255 bytes";
	if (why)
		return recv_fail(r, c, c->path, 0, "refusing subvolume name: %s", why) < 0 ? -1 : 0;
	recv_info(r, 1, "At %s %s", r->sv.is_snapshot ? "snapshot" : "subvol", c->path);
	return 1;
}

/* Open the new subvolume's root and set up its caches. */
static int open_root(struct recv *r, const struct bstream_cmd *c)
{
	struct stat st;
	int fd;

	fd = recv_walk_dir(r->dest_fd, c->path, strlen(c->path));
	if (fd < 0)
		return recv_fail(r, c, c->path, -fd, "cannot open the new subvolume");
	r->sv.root_fd = fd;
	r->sv.created = true;
	if (r->backend->check_new(r, fd, &r->sv.root_id))
		return recv_fail(r, c, c->path, 0, "is not a new subvolume");
	r->sv.dc = dcache_new(fd, 256, recv_dcache_error, r);
	if (!r->sv.dc) {
		r->sv.created = false;
		return recv_fail(r, c, c->path, ENOMEM, "cannot set up");
	}
	/*
	 * New inodes are created under orphan names in the root directory
	 * and moved away, which changes its times; the sender sends UTIMES
	 * for the root only if its own times changed.  Keep the times the
	 * root has now (a snapshot's are its parent's) unless one comes.
	 */
	if (!fstat(fd, &st)) {
		r->sv.root_times[0] = st.st_atim;
		r->sv.root_times[1] = st.st_mtim;
		r->sv.root_times_pending = true;
	}
	return 0;
}

int recv_subvol(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	int ret;

	ret = begin(r, c);
	if (ret <= 0)
		return ret;
	ret = r->backend->create(r, c->path);
	if (ret)
		return recv_fail(r, c, c->path, ret, "cannot create %s in '%s'",
				 r->backend->what, r->dest_name);
	ret = open_root(r, c);
	return ret || r->sv.failed ? ret : recv_resume_begin(r, c);
}

int recv_snapshot(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;
	char why[512], us[37];
	uint64_t id;
	int ret, pfd;

	ret = begin(r, c);
	if (ret <= 0)
		return ret;
	cli_uuid_str(c->clone_uuid, us);
	pfd = r->backend->open_received(r, c->clone_uuid, c->clone_ctransid, &id,
					why, sizeof(why));
	if (pfd < 0)
		return recv_fail(r, c, c->path, 0, "cannot use parent %s transid %" PRIu64 ": %s",
				 us, c->clone_ctransid, why);
	recv_info(r, 2, "snapshot %s of parent %" PRIu64, c->path, id);
	ret = r->backend->snapshot(r, pfd, c->path);
	close(pfd);
	if (ret)
		return recv_fail(r, c, c->path, ret, "cannot snapshot parent %" PRIu64 " in '%s'",
				 id, r->dest_name);
	ret = open_root(r, c);
	return ret || r->sv.failed ? ret : recv_resume_begin(r, c);
}

int recv_end(void *user, const struct bstream_cmd *c)
{
	struct recv *r = user;

	r->n_cmds++;
	if (r->sv.active && recv_finish_subvol(r) < 0 &&
	    r->max_errors && r->errors >= r->max_errors)
		return -1;
	return 0;
}

/* One line per kind of what the destination could not hold (skips.c). */
static void report_skips(struct recv *r)
{
	struct recv_skips *s = &r->sv.skips;

	for (int k = 0; k < SKIP_KINDS; k++) {
		char paths[3 * 330] = "", q[320];
		size_t o = 0;

		if (!s->n[k])
			continue;
		for (uint64_t i = 0; i < s->n[k] && i < SKIP_PATHS_SHOWN; i++)
			o += snprintf(paths + o, sizeof(paths) - o, "%s'%s'", i ? ", " : "",
				      recv_quote(q, sizeof(q), s->first[k][i] ? s->first[k][i] : ""));
		recv_error(r, "subvolume '%s': %s could not hold %" PRIu64 " %s (%s%s); "
			   "--strict makes this an error", r->sv.name, r->dest_name, s->n[k],
			   recv_skip_kind_name(k), paths, s->n[k] > SKIP_PATHS_SHOWN ? ", ..." : "");
	}
}

/* Close everything that refers to the current subvolume. */
static void close_subvol(struct recv *r)
{
	struct recv_subvol *sv = &r->sv;

	recv_drop_pending(r);
	fcache_close_all(&r->files);
	/* Nothing may run in the subvolume after we leave it. */
	recv_jobs_drain(r);
	if (r->src_file_fd >= 0 && r->src_file_root == sv->root_fd) {
		close(r->src_file_fd);
		free(r->src_file_path);
		r->src_file_fd = -1;
		r->src_file_path = NULL;
	}
	dcache_free(sv->dc, sv->created && !sv->failed);
	sv->dc = NULL;
	recv_free_late_flags(sv);
	report_skips(r);
	recv_skips_free(&sv->skips);
	recv_held_free(&sv->held);
	if (sv->root_fd >= 0)
		close(sv->root_fd);
	sv->root_fd = -1;
	sv->active = false;
}

static void report_incomplete(struct recv *r)
{
	if (r->sv.created)
		recv_error(r, "subvolume '%s/%s' is incomplete: it stays writable and is not marked as received",
			   r->dest_name, r->sv.name);
}

void recv_abandon_subvol(struct recv *r)
{
	if (!r->sv.active)
		return;
	report_incomplete(r);
	recv_resume_stop(r);
	close_subvol(r);
}

/* The modes an unprivileged receive held back (modes.c), once the tree is complete. */
static void apply_held_modes(struct recv *r)
{
	char why[160] = "";
	int err = recv_apply_held_modes(recv_held_of(r), r->sv.root_fd, why, sizeof(why));

	if (!err)
		return;
	recv_error(r, "subvolume '%s': %s: %s", r->sv.name, why, strerror(err));
	r->sv.failed = true;
	r->errors++;
}

int recv_finish_subvol(struct recv *r)
{
	struct recv_subvol *sv = &r->sv;
	char why[160];
	int ret;

	if (!sv->active)
		return 0;
	recv_flush_pending(r);
	fcache_close_all(&r->files);
	recv_jobs_drain(r);
	if (sv->created && !sv->failed) {
		dcache_flush(sv->dc);
		if (sv->root_times_pending && futimens(sv->root_fd, sv->root_times)) {
			recv_error(r, "subvolume '%s': cannot set times of its root: %s",
				   sv->name, strerror(errno));
			sv->failed = true;
			r->errors++;
		}
		apply_held_modes(r);
		recv_apply_late_flags(r);
	}
	if (!sv->created || sv->failed) {
		report_incomplete(r);
		recv_resume_stop(r);
		close_subvol(r);
		return -1;
	}
	ret = r->backend->mark_received(r, why, sizeof(why));
	if (ret) {
		recv_error(r, "subvolume '%s/%s': %s: %s", r->dest_name, sv->name,
			   why, strerror(ret));
		r->errors++;
		ret = -1;
		recv_resume_stop(r);
	} else {
		recv_resume_done(r);
	}
	recv_info(r, 2, "%s: %" PRIu64 " commands, %" PRIu64 " writes, %" PRIu64 " clones, "
		  "encoded writes: %" PRIu64 " by ioctl, %" PRIu64 " decompressed",
		  sv->name, r->n_cmds, r->n_writes, r->n_clones,
		  r->n_encoded_ioctl, r->n_encoded_plain);
	close_subvol(r);
	r->subvols_done++;
	return ret;
}
