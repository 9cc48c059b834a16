/* SPDX-License-Identifier: GPL-2.0 */
/*
 * btrfs-stream receive: private interfaces between the files of cli/receive/.
 *
 *   report.c    messages, in one format, and failure accounting
 *   path.c      validating stream paths and walking them beneath a directory
 *   cache.c     directory and file descriptor caches
 *   resolve.c   stream paths of the current subvolume to descriptors
 *   subvol.c    subvolumes of the stream: start, clone sources, finish
 *   backend-btrfs.c  the btrfs destination: subvolume ioctls, UUID tree lookups
 *   backend-plain.c  plain directories on any filesystem, with record files
 *   tree-copy.c the plain destination's snapshots: a tree copied, data shared
 *   skips.c     what a plain destination cannot hold: counted, summarised
 *   apply.c     the bstream_ops table and the preamble of every command
 *   pending.c   creations held back for one command
 *   names.c     rename, link, unlink, rmdir
 *   data.c      write, clone, truncate, fallocate, update_extent
 *   meta.c      owner, mode, times, xattrs, inode flags, fs-verity
 *   encoded.c   ENCODED_WRITE and its decompressing fallback
 *   fdop.c      operations on an open file, for the main thread and the worker
 *   jobs.c      the worker thread for work done through file descriptors
 *   resume.c    resumable receives: progress, checkpoints, interruption,
 *               continuation streams, --list-partial, --abort, tokens
 *   resume-state.c  the resume state file of a partial subvolume
 *   fingerprint.c   the layout digest that shows a partial one unchanged
 *   tree-remove.c   removing or emptying a received tree
 *
 * cli/cmd-receive.c parses the options and drives the reader.
 */
#ifndef BTRFS_STREAM_RECEIVE_H
#define BTRFS_STREAM_RECEIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <stdint.h>
#include <time.h>
#include <btrfs-stream/stream.h>
#include "../decompress.h"
#include "../resume-token.h"
#include "../uuid.h"

struct cli_command;

/* ---------------------------------------------------------------------- */
/* path.c                                                                  */

/*
 * Check a path attribute of the stream: relative, no empty, "." or ".."
 * component, no NUL byte (len is the attribute's length, path its
 * NUL-terminated copy).  The empty path (the subvolume root) is valid only
 * if allow_root.  Returns NULL if valid, else the reason.
 */
const char *recv_path_invalid(const char *path, size_t len, bool allow_root);

/* Check a single name (subvolume name): same rules, and no '/'. */
const char *recv_name_invalid(const char *name, size_t len);

/*
 * Open the directory at rel (len bytes, already validated, may be longer
 * than PATH_MAX) beneath base, never through a symlink, never above base.
 * Returns a new O_RDONLY|O_DIRECTORY descriptor or -errno.
 */
int recv_walk_dir(int base, const char *rel, size_t len);

/* Offset of the last component of path (0 if there is no '/'). */
size_t recv_last_slash(const char *path, size_t len);

/* ---------------------------------------------------------------------- */
/* cache.c                                                                 */

/*
 * Directory cache: directory path (relative to a subvolume root) to an open
 * descriptor, LRU-bounded.  It also carries deferred directory times: the
 * sender follows every change of a directory's entries with a UTIMES of
 * it, so only the last one matters; it is applied when the entry leaves the
 * cache or at the end.
 */
struct dcache;

typedef void (*dcache_err_fn)(void *user, const char *path, int err);

struct dcache *dcache_new(int root_fd, unsigned int cap, dcache_err_fn on_err,
			  void *user);
/* Apply pending times (if apply) and close everything; NULL is fine. */
void dcache_free(struct dcache *dc, bool apply);
/* Descriptor of directory dir (borrowed, valid until the next call), or -errno. */
int dcache_dir(struct dcache *dc, const char *dir, size_t len);
/* Descriptor of dir if it is cached, else -1 (no open). */
int dcache_peek(struct dcache *dc, const char *dir, size_t len);
/* Defer times for cached directory path; false if it is not cached. */
bool dcache_set_times(struct dcache *dc, const char *path, size_t len,
		      const struct timespec ts[2]);
/* path was renamed to to: entries at and below it follow; to's are dropped. */
void dcache_renamed(struct dcache *dc, const char *from, size_t flen,
		    const char *to, size_t tlen);
/* path and everything below it no longer exist. */
void dcache_removed(struct dcache *dc, const char *path, size_t len);
/* Apply all pending times now (entries stay). Returns 0 or the first -errno. */
int dcache_flush(struct dcache *dc);

/*
 * Whether new inodes created in the directory fd inherit nothing from it:
 * no setgid bit, no NOCOW/compression flags, no default ACL, btrfs
 * property or security label.
 */
bool recv_dir_is_plain(int fd);
/* The same for directory dir (opened and cached if need be), or -errno. */
int dcache_plain(struct dcache *dc, const char *dir, size_t len);
/* A mode, xattr or flag of path changed: forget what dcache_plain() knew. */
void dcache_meta_changed(struct dcache *dc, const char *path, size_t len);

/*
 * File cache: a few regular files open for writing, by path, so that runs
 * of WRITE/CLONE/... on one file do not reopen it.
 */
#define FCACHE_SIZE 4

struct fcache_ent {
	char *path;
	size_t len;
	int fd;
	int mode;			/* permission bits if known, else -1 */
	uint64_t used;
};

struct fcache {
	struct fcache_ent e[FCACHE_SIZE];
	uint64_t clock;
	/* Closes a descriptor leaving the cache (NULL: close(2)). */
	void (*close_fd)(void *ctx, int fd);
	void *close_ctx;
};

int fcache_get(struct fcache *fc, const char *path, size_t len);
/* The entry of path, or NULL. */
struct fcache_ent *fcache_find(struct fcache *fc, const char *path, size_t len);
void fcache_put(struct fcache *fc, const char *path, size_t len, int fd);
void fcache_renamed(struct fcache *fc, const char *from, size_t flen,
		    const char *to, size_t tlen);
void fcache_removed(struct fcache *fc, const char *path, size_t len);
void fcache_close_all(struct fcache *fc);

/* ---------------------------------------------------------------------- */
/* Destinations (backend-btrfs.c, backend-plain.c)                         */

struct recv;

/*
 * What a destination provides beyond plain file operations.  Functions
 * return 0 or an errno unless said otherwise.
 */
struct recv_backend {
	const char *name;
	const char *what;		/* what a received subvolume is there */
	bool encoded_io;		/* ENCODED_WRITE may go to the kernel as is */
	/* Check DEST, set up where parents and clone sources may be: 0 or -1. */
	int (*init)(struct recv *r);
	/* Create DEST/name, empty. */
	int (*create)(struct recv *r, const char *name);
	/* Create DEST/name as a writable copy of the subvolume at parent_fd. */
	int (*snapshot)(struct recv *r, int parent_fd, const char *name);
	/* Check that fd is the root of a new subvolume; its id in *id. */
	int (*check_new)(struct recv *r, int fd, uint64_t *id);
	/*
	 * Open the subvolume received as (uuid, ctransid), or sent from
	 * here as it: a descriptor of its root, or -errno with why.
	 */
	int (*open_received)(struct recv *r, const uint8_t *uuid,
			     uint64_t ctransid, uint64_t *id, char *why,
			     size_t wlen);
	/* Make [doff, doff + len) of dst hold [soff, soff + len) of src. */
	int (*clone)(int dst, uint64_t doff, int src, uint64_t soff,
		     uint64_t len);
	/* Record the current subvolume as received and make it read-only. */
	int (*mark_received)(struct recv *r, char *why, size_t wlen);

	/*
	 * Resumable receives (resume.c, docs/resume.md).  These return 0 or
	 * an errno with what failed in why.
	 *
	 * checkpoint: keep the current subvolume, as it is now, as name
	 * beneath dir, durably (it survives a power loss once this returns).
	 */
	int (*checkpoint)(struct recv *r, int dir, const char *name, char *why,
			  size_t wlen);
	/*
	 * restore: make the partial subvolume at root hold exactly what src
	 * holds (a checkpoint, or the parent; -1: nothing), keeping the
	 * subvolume itself (its UUID and parent UUID on btrfs); durable.
	 */
	int (*restore)(struct recv *r, int root, int src, char *why, size_t wlen);
	/* remove: delete name beneath dir, a checkpoint or a partial subvolume. */
	int (*remove)(struct recv *r, int dir, const char *name, char *why,
		      size_t wlen);
};

extern const struct recv_backend recv_btrfs_backend;
extern const struct recv_backend recv_plain_backend;

/* ---------------------------------------------------------------------- */
/* The receive context                                                     */

/* A subvolume found by UUID and opened, used as a clone source. */
struct clone_src {
	uint8_t uuid[16];
	uint64_t ctransid;
	uint64_t root_id;
	int fd;
	struct dcache *dc;
	struct clone_src *next;
};

/* Immutable/append-only bits applied when the subvolume is finished. */
struct late_flags {
	uint64_t ino;
	unsigned int flags;		/* FS_IMMUTABLE_FL | FS_APPEND_FL */
	void *handle;			/* struct file_handle */
	/* The FILEATTR that asked for them, for messages (path NULL if none). */
	uint64_t index, offset;
	char *path;
};

/*
 * A creation (MKFILE, MKDIR, ...) held back for one command: new inodes
 * arrive under an orphan name in the root directory and are usually moved
 * to their place by the very next command; then the inode is created
 * there directly, saving the root directory an insertion and a removal.
 */
struct recv_pending {
	bool active;
	uint16_t cmd;
	uint64_t index, offset;
	char *path, *link;
	size_t len;
	uint64_t mode, rdev;
};

/* Failures a plain destination could not avoid, skipped (skips.c). */
enum { SKIP_OWNER, SKIP_DEVICE, SKIP_XATTR, SKIP_FLAGS, SKIP_VERITY, SKIP_KINDS };
#define SKIP_PATHS_SHOWN 3

struct recv_skips {
	uint64_t n[SKIP_KINDS];
	char *first[SKIP_KINDS][SKIP_PATHS_SHOWN];
};

/* Modes held back while an unprivileged user receives (modes.c). */
struct held_mode;
struct recv_held {
	struct held_mode *v;
	size_t n, cap;
};

struct recv_subvol {
	bool active;			/* between SUBVOL/SNAPSHOT and finalisation */
	bool failed;			/* an error happened: never mark as received */
	bool created;			/* the subvolume exists on disk */
	bool is_snapshot;
	char name[256];
	uint8_t uuid[16];
	uint64_t ctransid;
	int root_fd;
	uint64_t root_id;
	struct dcache *dc;
	struct timespec root_times[2];
	bool root_times_pending;
	signed char root_plain;		/* recv_dir_is_plain() of the root, -1 unknown */
	struct late_flags *late;
	size_t nlate, late_cap;
	struct recv_skips skips;
	struct recv_held held;
};

/* The resume state of a partial subvolume (resume-state.c). */
#define RESUME_DIR ".btrfs-stream-resume"

enum resume_at {
	RESUME_AT_START,		/* nothing kept yet: roll back to the start */
	RESUME_AT_CHECKPOINT,		/* roll back to the checkpoint */
	RESUME_AT_SUBVOL,		/* the subvolume itself, if unchanged */
};

struct resume_state {
	char name[256];
	struct resume_token tok;	/* the stream and the resume point */
	enum resume_at at;
	char ckpt[300];			/* checkpoint name in RESUME_DIR, "" if none */
	uint64_t digest;		/* layout digest (at == RESUME_AT_SUBVOL) */
	bool root_times_pending;
	struct timespec root_times[2];
};

/* Resume tracking of a receive (resume.c). */
struct recv_resume {
	bool enabled;			/* --resumable */
	uint64_t every;			/* stream bytes between checkpoints */
	int dir;			/* RESUME_DIR beneath DEST, -1 until needed */
	int lock_fd;			/* the tracked subvolume's lock file, -1 */
	bool tracking;			/* the current subvolume has resume state */
	bool broken;			/* a command failed: the state stays where it is */
	struct resume_state *st;	/* what the state file says */
	struct resume_token cur;	/* commands applied so far */
	uint32_t hdr_version;		/* the current substream's header */
	bool hdr_continuation;		/* ... marks a continuation stream */
	uint64_t hdr_offset, hdr_index;
	uint64_t last_index;		/* reader index of the last command seen */
	uint64_t idx_base, off_base;	/* reader index/offset minus the stream's */
	uint64_t ckpt_offset;		/* cur.offset at the last checkpoint */
	uint64_t checkpoints;		/* taken by this receive */
};


struct recv {
	const struct cli_command *cmd;

	/* Options. */
	int verbose;			/* 0 = -q, 1 = default, 2+ = -v */
	uint64_t max_errors;		/* 0 = unlimited */
	bool force_decompress;
	bool strict;			/* what the destination cannot hold is an error */
	const struct recv_backend *backend;	/* what DEST is */
	bool chrooted;
	bool hold_modes;		/* plain backend, unprivileged: modes.c */

	/* Destination, and where parents and clone sources may be. */
	const char *dest_name;		/* for messages */
	int dest_fd;
	int search_fd;
	const char *search_name;
	uint64_t search_root_id;	/* subvolume of search_fd */
	char *search_prefix;		/* its path inside that subvolume, "" or "a/b/" */

	/* Progress. */
	uint64_t errors;
	uint64_t subvols_done;
	struct recv_subvol sv;
	struct fcache files;
	struct recv_pending pend;
	struct clone_src *srcs;
	/* One clone source file kept open. */
	int src_file_fd;
	int src_file_root;
	char *src_file_path;

	/* Resume tracking (resume.c), and the reader, for its header. */
	struct recv_resume resume;
	const struct bstream_reader *rd;

	/* Decompression state (encoded.c). */
	struct cli_decomp dz;

	/* The worker thread (jobs.c), NULL when serial. */
	struct jobs *jobs;

	/* Statistics for -v and the tests. */
	uint64_t n_cmds, n_writes, n_clones, n_encoded_ioctl, n_encoded_plain;
};

/* ---------------------------------------------------------------------- */
/* report.c                                                                */

/*
 * Report a failed command: "command N (NAME) 'PATH': WHAT: strerror(err)".
 * Marks the current subvolume failed and counts the error.  Returns -1
 * when -E is reached (stop), 0 to go on with the next command.
 */
int recv_fail(struct recv *r, const struct bstream_cmd *c, const char *path,
	      int err, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The same for a command known by its number, index and offset. */
int recv_fail_at(struct recv *r, uint16_t cmd, uint64_t index, uint64_t offset,
		 const char *path, int err, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* A message about the receive as a whole, on stderr. */
void recv_error(struct recv *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void recv_info(struct recv *r, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* dcache error hook of a subvolume's cache: report, fail the subvolume. */
void recv_dcache_error(void *user, const char *path, int err);

/* Write path into buf escaped and shortened for a message. */
const char *recv_quote(char *buf, size_t size, const char *path);

/* ---------------------------------------------------------------------- */
/* skips.c                                                                 */

/*
 * Whether the failure err of command cmd on path is one the destination
 * could not avoid (plain backend, not --strict): then it is counted
 * for the subvolume's summary instead of being an error.
 */
bool recv_skip(struct recv *r, uint16_t cmd, int err, const char *path);
/*
 * The kind of skip (SKIP_*) that failure err of command cmd is on a plain
 * destination, or -1 if it is an error there (also used by extract).
 */
int recv_skip_kind(uint16_t cmd, int err);
/* Whether what the destination cannot hold is skipped (else an error). */
bool recv_may_skip(const struct recv *r);
/* What a kind of skip is called in the summary ("owners", ...). */
const char *recv_skip_kind_name(int kind);
void recv_skips_free(struct recv_skips *s);

/* ---------------------------------------------------------------------- */
/* tree-copy.c                                                             */

/*
 * Copy the tree beneath directory src into the empty directory dst, and
 * dst's own metadata from src: 0, or an errno with what failed in why.
 */
int recv_tree_copy(int src, int dst, struct recv_held *held, char *why, size_t wlen);

/* modes.c */
struct recv_held *recv_held_of(struct recv *r);
mode_t recv_hold_mode(struct recv_held *h, int fd, int dfd, const char *name,
		      const struct stat *st, mode_t mode);
/* Hold fd's setuid/setgid mode before receive changes its data (modes.c). */
void recv_hold_setid(struct recv_held *h, int fd);
int recv_apply_held_modes(struct recv_held *h, int root_fd, char *why, size_t wlen);
void recv_held_free(struct recv_held *h);
/*
 * Make the tree at root hold what src holds (src -1: nothing), keeping
 * root itself: everything beneath it removed, its xattrs too, then src
 * copied in and synced.  0, or an errno with what failed in why.
 */
int recv_tree_rollback(int root, int src, char *why, size_t wlen);

/* ---------------------------------------------------------------------- */
/* apply.c                                                                 */

extern const struct bstream_ops recv_ops;

/* ---------------------------------------------------------------------- */
/* resolve.c                                                               */

/*
 * Resolve a validated path of the current subvolume to (directory fd,
 * last component).  *name points into path; "" for the subvolume root,
 * with *dfd = the root descriptor.
 */
int recv_locate(struct recv *r, const char *path, size_t len, int *dfd,
		const char **name);
/* Open name beneath dfd if it is a regular file (never a device or link). */
int recv_open_regular(int dfd, const char *name, int flags);
/* What a failure of recv_open_regular() means, for a message. */
const char *recv_open_what(int err);

/* ---------------------------------------------------------------------- */
/* pending.c                                                               */

/* MKFILE, MKDIR, MKNOD, MKFIFO, MKSOCK, SYMLINK: held back one command. */
int recv_make_inode(void *user, const struct bstream_cmd *c);
/* Create the held-back inode now; returns like recv_fail(). */
int recv_flush_pending(struct recv *r);
/* Forget it (the subvolume is abandoned). */
void recv_drop_pending(struct recv *r);
/*
 * RENAME of the held-back inode: create it at the new name if that gives
 * the same inode.  Returns 1 when done, 0 to rename as usual, -1 to stop.
 */
int recv_rename_pending(struct recv *r, const struct bstream_cmd *c);

/* ---------------------------------------------------------------------- */
/* names.c                                                                 */

int recv_rename(void *user, const struct bstream_cmd *c);
int recv_link(void *user, const struct bstream_cmd *c);
/* UNLINK and RMDIR. */
int recv_remove(void *user, const struct bstream_cmd *c);

/* ---------------------------------------------------------------------- */
/* data.c                                                                  */

int recv_write(void *user, const struct bstream_cmd *c);
int recv_clone(void *user, const struct bstream_cmd *c);
int recv_truncate(void *user, const struct bstream_cmd *c);
int recv_fallocate(void *user, const struct bstream_cmd *c);
int recv_update_extent(void *user, const struct bstream_cmd *c);
/* Open the file of PATH for writing into *fd: 1, or 0/-1 as recv_fail(). */
int recv_data_fd(struct recv *r, const struct bstream_cmd *c, int *fd);
/* pwrite all of buf at off; reports failures (returns like recv_fail). */
int recv_write_data(struct recv *r, const struct bstream_cmd *c, int fd,
		    const void *buf, size_t len, uint64_t off);
/* The clone source file kept open is forgotten if path is (or holds) it. */
void recv_src_file_forget(struct recv *r, const char *path, size_t len);

/* ---------------------------------------------------------------------- */
/* meta.c                                                                  */

int recv_chown(void *user, const struct bstream_cmd *c);
int recv_chmod(void *user, const struct bstream_cmd *c);
int recv_utimes(void *user, const struct bstream_cmd *c);
int recv_set_xattr(void *user, const struct bstream_cmd *c);
int recv_remove_xattr(void *user, const struct bstream_cmd *c);
int recv_fileattr(void *user, const struct bstream_cmd *c);
int recv_enable_verity(void *user, const struct bstream_cmd *c);

/*
 * After EPERM: if inode name beneath dfd ("" for dfd itself) is immutable
 * or append-only -- flags a parent received by us can carry -- clear them
 * until the subvolume is finished (when they come back unless a FILEATTR
 * says otherwise).  True if they were cleared: retry the operation.
 */
bool recv_unlock(struct recv *r, int dfd, const char *name);
/* The FS_*_FL bits a FILEATTR command sets or clears. */
#define RECV_MANAGED_FL (FS_NOCOW_FL | FS_NOCOMP_FL | FS_SYNC_FL | FS_IMMUTABLE_FL | \
			 FS_APPEND_FL | FS_NODUMP_FL | FS_NOATIME_FL | FS_DIRSYNC_FL | \
			 FS_COMPR_FL)
/* Translate btrfs inode flags (FILEATTR) to FS_*_FL. */
unsigned int recv_btrfs_to_fsflags(uint64_t btrfs_flags);
/* Apply the deferred immutable/append-only flags of the subvolume. */
int recv_apply_late_flags(struct recv *r);
void recv_free_late_flags(struct recv_subvol *sv);

/* ---------------------------------------------------------------------- */
/* encoded.c                                                               */

int recv_encoded_write(void *user, const struct bstream_cmd *c);
/*
 * Decompress an encoded extent into a zero-filled buffer of unencoded_len
 * bytes; returns it (owned by r) or NULL with *err and *why set.
 */
const uint8_t *recv_decompress(struct recv *r, uint32_t compression,
			       const uint8_t *data, size_t len,
			       uint64_t unencoded_len, int *err,
			       const char **why);
void recv_encoded_cleanup(struct recv *r);

/* ---------------------------------------------------------------------- */
/* fdop.c                                                                  */

enum fdop_type {
	FDOP_WRITE,	/* a: offset, data, len */
	FDOP_CHOWN,	/* a: uid, b: gid, mode: known permission bits or -1 */
	FDOP_CHMOD,	/* a: mode */
	FDOP_UTIMES,	/* ts */
	FDOP_SETXATTR,	/* xname, data, len */
	FDOP_RMXATTR,	/* xname */
	FDOP_TRUNCATE,	/* a: size */
	FDOP_CLOSE,
};

/* One operation on an open file. */
struct fdop {
	enum fdop_type type;
	int fd;
	uint64_t a, b;
	int mode;
	struct timespec ts[2];
	const char *xname;
	const void *data;
	size_t len;
};

/* Run op: 0, or an errno with what failed written to why. */
int fdop_run(const struct fdop *op, char *why, size_t size);
/* pwrite all of buf at off: 0 or an errno. */
int fdop_write_all(int fd, const void *buf, size_t len, uint64_t off);

/* ---------------------------------------------------------------------- */
/* jobs.c                                                                  */

int recv_jobs_start(struct recv *r);
/* Run what is queued, report its errors, end the thread. */
void recv_jobs_stop(struct recv *r);
/* Wait for every queued job, then report errors: returns like recv_fail(). */
int recv_jobs_drain(struct recv *r);
/* Report the errors of jobs run so far (no waiting). */
int recv_jobs_report(struct recv *r);
/*
 * Hand op to the worker thread on behalf of command c (its data and xattr
 * name are copied; waits while too much data is queued).  False without a
 * worker, or without memory: the caller runs op itself.
 */
bool recv_job_queue(struct recv *r, const struct bstream_cmd *c,
		    const struct fdop *op);
/* fcache close hook: close fd after its queued jobs. */
void recv_jobs_close(void *user, int fd);

/* ---------------------------------------------------------------------- */
/* subvol.c                                                                */

int recv_subvol(void *user, const struct bstream_cmd *c);
int recv_snapshot(void *user, const struct bstream_cmd *c);
int recv_end(void *user, const struct bstream_cmd *c);
/*
 * Finish the current subvolume: flush caches and, unless it failed, mark
 * it received and read-only.  Returns 0 or -1 (error already reported).
 */
int recv_finish_subvol(struct recv *r);
/* Leave the current subvolume after a fatal stop (not marked received). */
void recv_abandon_subvol(struct recv *r);
/*
 * The root descriptor of the clone source subvolume named by c (and its
 * directory cache in *dc), or -errno with the reason in why.
 */
int recv_clone_source(struct recv *r, const struct bstream_cmd *c,
		      struct dcache **dc, char *why, size_t whylen);
void recv_free_sources(struct recv *r);

/* ---------------------------------------------------------------------- */
/* resume-state.c                                                          */

/* Replace the state file NAME.state in dir durably: 0 or an errno (why set). */
int resume_state_write(int dir, const struct resume_state *s, char *why, size_t wlen);
/* Read state file file of dir: 0, or -1 with why set. */
int resume_state_read(int dir, const char *file, struct resume_state *s, char *why,
		      size_t wlen);
const char *resume_at_name(enum resume_at at);

/* ---------------------------------------------------------------------- */
/* fingerprint.c                                                           */

/* The layout digest of the tree at root (see fingerprint.c): 0 or an errno. */
int recv_layout_digest(int root, uint64_t *digest, char *why, size_t wlen);

/* ---------------------------------------------------------------------- */
/* tree-remove.c                                                           */

/* Remove everything beneath dir: 0 or an errno with why set. */
int recv_tree_empty(int dir, char *why, size_t wlen);
/* Remove name beneath dir, and the tree beneath it. */
int recv_tree_remove(int dir, const char *name, char *why, size_t wlen);

/* ---------------------------------------------------------------------- */
/* resume.c                                                                */

/* Set up: SIGINT, SIGTERM and SIGHUP stop at the next command (input_fd ends). */
void recv_resume_signals(int input_fd);
/* The signal that stopped the receive, 0 if none. */
int recv_resume_interrupted(void);
/* The header callback: where the stream of the next subvolume starts. */
int recv_resume_header(void *user, uint32_t version, uint64_t offset);
/* Before a command: -1 to stop (a signal came), else 0. */
int recv_resume_before(struct recv *r, const struct bstream_cmd *c);
/* A subvolume was started by c: create its resume state (like recv_fail()). */
int recv_resume_begin(struct recv *r, const struct bstream_cmd *c);
/* Command c was applied: advance the resume point, checkpoint (like recv_fail()). */
int recv_resume_applied(struct recv *r, const struct bstream_cmd *c);
/* Unknown commands, the continuation's RESUME_CMD among them. */
int recv_resume_unknown(void *user, const struct bstream_cmd *c);
/* The receive stops before the end of the subvolume: keep what can be resumed. */
void recv_resume_stop(struct recv *r);
/* The subvolume was received: its resume state and checkpoint go. */
void recv_resume_done(struct recv *r);
void recv_resume_free(struct recv *r);
/* --list-partial, --abort PATH, --resume-token PATH: exit status. */
int recv_resume_list(struct recv *r);
int recv_resume_abort(struct recv *r, const char *name);
int recv_resume_print_token(struct recv *r, const char *name);

#endif
