/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface of `btrfs-stream send` (and of `diff`, which drives the
 * same ioctl): subvolume resolution, the ioctl-to-pipe pump, the size
 * estimate and the progress line.  One concern per file:
 *
 *   subvol.c    paths to subvolumes: root ids, UUIDs, read-only flag, the
 *               automatic choice of a parent among the clone sources
 *   pump.c      BTRFS_IOC_SEND in a thread writing a pipe, read here
 *   estimate.c  size of the real stream from a NO_FILE_DATA pass
 *   progress.c  the live line on stderr and the summary
 *   resume.c    send --resume: the continuation after a resume token's point
 *
 * Functions that can fail return 0 or -1 and leave a message (lowercase,
 * paths quoted, no final period) in a struct send_err; nothing here prints
 * except progress.c, whose job it is.
 */
#ifndef BTRFS_STREAM_CLI_SEND_H
#define BTRFS_STREAM_CLI_SEND_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <btrfs-stream/send-wire.h>
#include "../resume-token.h"

/*
 * What Linux builds a v2+ command in (16 KiB + 128 KiB, 4 KiB pages); like
 * btrfs-progs we size the pipe for it so one command fits in one go.
 */
#define SEND_PIPE_SIZE_V2	147456

struct send_err {
	char msg[PATH_MAX + 512];
};

/* Store a message; returns -1 so callers can `return send_errf(...)`. */
int send_errf(struct send_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------------- */
/* subvol.c                                                                */

struct subvol {
	const char *arg;	/* as given on the command line */
	char *path;		/* realpath() of arg */
	int fd;			/* the subvolume's top directory, O_RDONLY */
	uint64_t root_id;	/* tree id (5 for the top level, 256+ else) */
	uint8_t fsid[16];	/* filesystem, to refuse mixing two of them */
	uint8_t uuid[16];
	uint8_t parent_uuid[16];	/* zero when not a snapshot */
	uint8_t received_uuid[16];
	uint64_t ctransid;
	bool readonly;
};

/*
 * Open arg as a subvolume: it must exist, be on btrfs and be the top
 * directory of a subvolume.  Fills every field.
 */
int subvol_open(struct subvol *sv, const char *arg, struct send_err *e);
void subvol_close(struct subvol *sv);
/* 0 if both are on one filesystem, else -1 with a message. */
int subvol_same_fs(const struct subvol *a, const struct subvol *b,
		   struct send_err *e);

/*
 * btrfs-progs' rule for `send -c ...` without -p: the parent is the
 * snapshot sv was taken from if that is a clone source, else the clone
 * source taken from that same snapshot whose ctransid is closest to it.
 * Returns 0 with *parent_id, or -1 (no such snapshot, no candidate).
 */
int subvol_find_parent(const struct subvol *sv, struct subvol *const *sources,
		       size_t nsources, uint64_t *parent_id, struct send_err *e);

/* Highest stream version the running kernel sends (sysfs; 1 if absent). */
uint32_t send_proto_supported(void);

/* ---------------------------------------------------------------------- */
/* pump.c                                                                  */

struct send_request {
	int subvol_fd;
	uint64_t parent_root;		/* 0: full send */
	const uint64_t *clone_sources;
	uint64_t clone_count;
	uint64_t flags;			/* BTRFS_SEND_FLAG_*, VERSION included */
	uint32_t version;		/* read by the kernel with FLAG_VERSION */
	/* With BTRFS_SEND_FLAG_RESUME: where the kernel starts (may be NULL). */
	const struct btrfs_send_resume_point *resume;
};

/*
 * A consumer reads the stream from rfd until end of file.  It returns 0,
 * or -1 with a message to stop early (the kernel then sees a broken pipe
 * and the ioctl returns).
 */
typedef int (*send_consumer)(void *ctx, int rfd, struct send_err *e);

/*
 * Run BTRFS_IOC_SEND for req in a second thread, writing into a pipe
 * (enlarged to SEND_PIPE_SIZE_V2 when big_pipe), and consume the pipe in
 * this thread.  Returns 0, or -1 with the first failure's message;
 * *ioctl_errno (may be NULL) gets the ioctl's errno or 0.
 */
int send_pump(const struct send_request *req, bool big_pipe,
	      send_consumer consume, void *ctx, int *ioctl_errno,
	      struct send_err *e);

/* Consumer copying the stream unchanged to out_fd (splice when possible). */
struct send_copy {
	int out_fd;
	bool big_pipe;
	_Atomic uint64_t *bytes;	/* added to as bytes are written; may be NULL */
};
int send_copy_consumer(void *ctx, int rfd, struct send_err *e);

/* ---------------------------------------------------------------------- */
/* resume.c                                                                */

/*
 * Consumer: read a whole stream from rfd, check its commands 1..index
 * against the token (stream, version, offset, prefix checksum) and write
 * the continuation to out_fd.  Nothing is written unless the prefix
 * matches.
 */
struct send_resume {
	const struct resume_token *tok;
	int out_fd;
	uint64_t commands;		/* written after the resume command */
};
int send_resume_consumer(void *ctx, int rfd, struct send_err *e);

/*
 * Resuming in the kernel (BTRFS_SEND_FLAG_RESUME): whether the running
 * kernel can (/sys/fs/btrfs/features/send_resume), the point it takes
 * from a token that has the metadata checksum, and the checks the kernel
 * cannot word: that sv (and parent, NULL for a full send) are the
 * stream's subvolumes, with the messages of the userspace path.
 */
bool send_resume_kernel_supported(void);
void send_resume_point_of(const struct resume_token *t,
			  struct btrfs_send_resume_point *pt);
int send_resume_check_subvols(const struct resume_token *t, const struct subvol *sv,
			      const struct subvol *parent, struct send_err *e);

/* ---------------------------------------------------------------------- */
/* estimate.c                                                              */

/*
 * The NO_FILE_DATA pass: the kernel runs the same tree comparison but
 * sends UPDATE_EXTENT (offset, length) where it would send WRITE commands.
 * Each UPDATE_EXTENT is replaced by the WRITE commands Linux would build
 * for that length; every other command is counted as it is.  Successive
 * passes (several subvolumes) add up in one struct; start it zeroed.
 */
struct send_estimate {
	_Atomic uint64_t bytes;		/* estimated size of the data stream */
	_Atomic uint64_t commands;	/* commands parsed so far */
	uint64_t nodata_bytes;		/* size of the NO_FILE_DATA streams */
	uint64_t data_bytes;		/* file bytes announced by UPDATE_EXTENT */
	uint64_t write_chunk;		/* 0: from the stream version and page size */
	_Atomic bool cancel;		/* set to stop the pass early */
};

/* Bytes of the WRITE commands Linux sends for len bytes at one path. */
uint64_t estimate_write_bytes(uint32_t version, uint64_t chunk,
			      size_t path_len, uint64_t len);
/* Largest WRITE payload Linux sends in version (48 KiB in v1). */
uint64_t estimate_write_chunk(uint32_t version);
/* Consumer: parse a NO_FILE_DATA stream from rfd into ctx (struct send_estimate). */
int estimate_consumer(void *ctx, int rfd, struct send_err *e);

/* ---------------------------------------------------------------------- */
/* progress.c                                                              */

struct progress;

/*
 * Draw on fd (stderr); tty decides between an in-place line with ANSI
 * erase and a plain carriage-return line.  NULL on ENOMEM.
 */
struct progress *progress_new(int fd, bool tty);
void progress_free(struct progress *p);
/* The counter the sending code adds to. */
_Atomic uint64_t *progress_counter(struct progress *p);
/*
 * Start the live line.  est (may be NULL) is an estimate pass running
 * meanwhile: its progress is shown until progress_estimated() is called.
 */
void progress_start(struct progress *p, struct send_estimate *est);
/* The estimate pass ended: total is the estimate, 0 if it failed. */
void progress_estimated(struct progress *p, uint64_t total);
/* Print a line of its own above the live line. */
void progress_message(struct progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Stop the live line and print the summary (ok: the send succeeded). */
void progress_finish(struct progress *p, bool ok);

#endif
