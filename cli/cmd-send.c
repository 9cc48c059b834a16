// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs-stream send: drive the kernel's BTRFS_IOC_SEND like btrfs-progs 6.2
 * `btrfs send` does, so the bytes are the same, and show how far a long
 * send has come.  The pieces live in cli/send/ (see send.h); this file
 * parses options, checks them in the order progs does, plans every ioctl
 * and runs them.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <linux/btrfs.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <btrfs-stream/send-wire.h>
#include "cli.h"
#include "send/send.h"

static const char *const send_usage[] = {
	"send [options] SUBVOL...",
	"",
	"Write a send stream of each read-only subvolume SUBVOL to stdout or to",
	"a file: a full stream, or with -p (or -c alone) an incremental one.",
	"The options and the stream are those of btrfs-progs 6.2 'btrfs send'.",
	"",
	"-e                     one stream for all SUBVOLs: no END between them",
	"-p PARENT              incremental from the snapshot PARENT",
	"-c CLONE_SRC           also clone from CLONE_SRC (repeatable); without -p",
	"                       the parent is chosen among the clone sources",
	"-f FILE                write to FILE instead of stdout",
	"--no-data              send UPDATE_EXTENT instead of file data (no",
	"                       stream to receive, but fast: shows what changed)",
	"--proto N              protocol version N, 0 for the highest the kernel",
	"                       sends (default 1)",
	"--compressed-data      send compressed extents as they are (implies",
	"                       --proto 2 unless --proto is given)",
	"--resume TOKEN         continue an interrupted transfer: write what follows",
	"                       the point of TOKEN ('receive --resume-token'), after",
	"                       checking that SUBVOL (and -p PARENT) give the stream",
	"                       received so far; protocol and flags come from TOKEN",
	"--stream FILE          with --resume: continue the stored stream FILE",
	"                       instead of sending a subvolume",
	"--verify-prefix        with --resume: regenerate the whole stream and check",
	"                       its prefix checksum, even where the kernel could start",
	"                       at the resume point by itself",
	"--progress             show progress even when stderr is no terminal",
	"-q, --quiet            print errors only (no progress either)",
	"-v, --verbose          say more about what is done",
	"",
	"Progress (shown when stderr is a terminal): bytes sent, rate, elapsed",
	"time and an ETA, from a NO_FILE_DATA pass run beside the send that",
	"measures the stream (see docs/send-cli.md).",
	NULL,
};

struct send_cfg {
	const struct cli_command *cmd;
	bool single_stream;		/* -e */
	const char *parent_arg;
	const char **clone_args;
	size_t nclone_args;
	const char *outfile;
	uint64_t flags;			/* NO_FILE_DATA, COMPRESSED */
	uint32_t proto;
	bool proto_given;
	int verbose;			/* 0 quiet, 1 default, 2+ verbose */
	bool progress_forced;
	const char *estimate_from;	/* hidden: estimate a stored stream */
	const char *resume_arg;		/* --resume TOKEN */
	const char *stream_file;	/* --stream FILE */
	bool verify_prefix;		/* --verify-prefix */
	struct resume_token tok;
	bool kernel_resume;		/* the kernel starts at the token's point */
	struct btrfs_send_resume_point point;
};

/* One ioctl: which subvolume, against which parent, cloning from what. */
struct send_step {
	struct subvol *sv;
	uint64_t parent_root;
	uint64_t *clones;
	size_t nclones;
	uint64_t flags;
};

struct send_run {
	struct send_cfg cfg;
	struct subvol *subvols;
	size_t nsubvols;
	struct subvol *clones;
	size_t nclones;
	struct subvol parent;
	bool have_parent;
	struct send_step *steps;
	uint32_t supported;
	uint64_t version_flags;		/* FLAG_VERSION or 0 */
	bool big_pipe;
	int out_fd;
	struct progress *progress;
	struct send_err err;
};

static int fail(struct send_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct send_run *r, const char *fmt, ...)
{
	char msg[sizeof(r->err.msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_error(r->cfg.cmd, "%s", msg);
	return 1;
}

static int parse_args(struct send_cfg *c, int argc, char **argv)
{
	enum { OPT_NO_DATA = 256, OPT_PROTO, OPT_COMPRESSED, OPT_PROGRESS,
	       OPT_ESTIMATE_FROM, OPT_RESUME, OPT_STREAM, OPT_VERIFY_PREFIX };
	static const struct option longopts[] = {
		{ "no-data", no_argument, NULL, OPT_NO_DATA },
		{ "proto", required_argument, NULL, OPT_PROTO },
		{ "compressed-data", no_argument, NULL, OPT_COMPRESSED },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "resume", required_argument, NULL, OPT_RESUME },
		{ "stream", required_argument, NULL, OPT_STREAM },
		{ "verify-prefix", no_argument, NULL, OPT_VERIFY_PREFIX },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		/* Hidden, for the unit tests of the estimate. */
		{ "estimate-from", required_argument, NULL, OPT_ESTIMATE_FROM },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	char *end;
	int opt;

	c->verbose = 1;
	c->proto = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":ep:c:f:qv", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			c->single_stream = true;
			break;
		case 'p':
			if (c->parent_arg)
				return cli_bad_usage(c->cmd, "only one parent (-p) is allowed");
			c->parent_arg = optarg;
			break;
		case 'c':
			c->clone_args[c->nclone_args++] = optarg;
			break;
		case 'f':
			c->outfile = optarg;
			break;
		case 'q':
			c->verbose = 0;
			break;
		case 'v':
			if (c->verbose)
				c->verbose++;
			break;
		case OPT_NO_DATA:
			c->flags |= BTRFS_SEND_FLAG_NO_FILE_DATA;
			break;
		case OPT_PROTO:
			errno = 0;
			v = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || *optarg == '-')
				return cli_bad_usage(c->cmd, "invalid protocol version '%s'", optarg);
			if (v > UINT32_MAX)
				return cli_bad_usage(c->cmd, "protocol version number too big %llu", v);
			c->proto = v;
			c->proto_given = true;
			break;
		case OPT_COMPRESSED:
			c->flags |= BTRFS_SEND_FLAG_COMPRESSED;
			break;
		case OPT_PROGRESS:
			c->progress_forced = true;
			break;
		case OPT_ESTIMATE_FROM:
			c->estimate_from = optarg;
			break;
		case OPT_RESUME:
			c->resume_arg = optarg;
			break;
		case OPT_STREAM:
			c->stream_file = optarg;
			break;
		case OPT_VERIFY_PREFIX:
			c->verify_prefix = true;
			break;
		default:
			return cli_bad_option(c->cmd, opt, argv);
		}
	}
	return 0;
}

/* Open every path; check read-only and one filesystem, as progs does. */
static int open_subvols(struct send_run *r, int nargs, char **args)
{
	struct send_cfg *c = &r->cfg;

	r->clones = calloc(c->nclone_args + 1, sizeof(*r->clones));
	r->subvols = calloc(nargs, sizeof(*r->subvols));
	if (!r->clones || !r->subvols)
		return fail(r, "out of memory");
	for (size_t i = 0; i < c->nclone_args; i++) {
		struct subvol *sv = &r->clones[r->nclones++];

		if (subvol_open(sv, c->clone_args[i], &r->err))
			return fail(r, "%s", r->err.msg);
		if (!sv->readonly)
			return fail(r, "clone source '%s' is not read-only", sv->path);
	}
	if (c->parent_arg) {
		r->have_parent = true;
		if (subvol_open(&r->parent, c->parent_arg, &r->err))
			return fail(r, "%s", r->err.msg);
		if (!r->parent.readonly)
			return fail(r, "parent subvolume '%s' is not read-only",
				    r->parent.path);
	}
	for (int i = 0; i < nargs; i++) {
		struct subvol *sv = &r->subvols[r->nsubvols++];

		if (subvol_open(sv, args[i], &r->err))
			return fail(r, "%s", r->err.msg);
		if (subvol_same_fs(&r->subvols[0], sv, &r->err))
			return fail(r, "all subvolumes must be from the same filesystem: %s",
				    r->err.msg);
		if (!sv->readonly)
			return fail(r, "subvolume '%s' is not read-only", sv->path);
	}
	for (size_t i = 0; i < r->nclones; i++)
		if (subvol_same_fs(&r->subvols[0], &r->clones[i], &r->err))
			return fail(r, "%s", r->err.msg);
	if (r->have_parent && subvol_same_fs(&r->subvols[0], &r->parent, &r->err))
		return fail(r, "%s", r->err.msg);
	return 0;
}

/* Protocol choice of progs 6.2 (spec 6.2). */
static int choose_proto(struct send_run *r)
{
	struct send_cfg *c = &r->cfg;

	r->supported = send_proto_supported();
	if (r->supported == 1 && c->proto > 1)
		return fail(r, "requested version %u but kernel supports only %u",
			    c->proto, r->supported);
	if (c->flags & BTRFS_SEND_FLAG_COMPRESSED) {
		if (c->proto == 1 && !c->proto_given)
			c->proto = 2;
		if (c->proto == 1)
			return fail(r, "--compressed-data requires protocol version >= 2 (requested 1)");
		if (c->proto == 0 && r->supported < 2)
			return fail(r, "kernel does not support --compressed-data");
	}
	if (r->supported > 1) {
		r->version_flags = BTRFS_SEND_FLAG_VERSION;
		r->big_pipe = true;
	}
	if (c->verbose > 1)
		fprintf(stderr, "Protocol version requested: %u (supported %u)\n",
			c->proto, r->supported);
	return 0;
}

/*
 * Decide every ioctl before the first one, with progs' rules: -p gives
 * one parent for all and is also a clone source; -c without -p chooses a
 * parent per subvolume among the clone sources, and each subvolume sent
 * becomes a clone source for the next.
 */
static int plan(struct send_run *r)
{
	struct send_cfg *c = &r->cfg;
	bool auto_parent = r->nclones && !r->have_parent;
	struct subvol **sources;
	size_t nsources = 0;

	r->steps = calloc(r->nsubvols, sizeof(*r->steps));
	sources = calloc(r->nclones + r->nsubvols + 1, sizeof(*sources));
	if (!r->steps || !sources) {
		free(sources);
		return fail(r, "out of memory");
	}
	for (size_t i = 0; i < r->nclones; i++)
		sources[nsources++] = &r->clones[i];
	if (r->have_parent)
		sources[nsources++] = &r->parent;
	for (size_t i = 0; i < r->nsubvols; i++) {
		struct send_step *s = &r->steps[i];

		s->sv = &r->subvols[i];
		s->flags = c->flags | r->version_flags;
		if (c->single_stream && i > 0)
			s->flags |= BTRFS_SEND_FLAG_OMIT_STREAM_HEADER;
		if (c->single_stream && i + 1 < r->nsubvols)
			s->flags |= BTRFS_SEND_FLAG_OMIT_END_CMD;
		if (r->have_parent)
			s->parent_root = r->parent.root_id;
		if (auto_parent &&
		    subvol_find_parent(s->sv, sources, nsources, &s->parent_root, &r->err)) {
			free(sources);
			return fail(r, "%s", r->err.msg);
		}
		s->clones = calloc(nsources + 1, sizeof(*s->clones));
		if (!s->clones) {
			free(sources);
			return fail(r, "out of memory");
		}
		for (size_t j = 0; j < nsources; j++)
			s->clones[j] = sources[j]->root_id;
		s->nclones = nsources;
		if (auto_parent)
			sources[nsources++] = s->sv;
		if (c->verbose > 1)
			fprintf(stderr, "'%s': root %" PRIu64 ", parent %" PRIu64 ", %zu clone sources\n",
				s->sv->path, s->sv->root_id, s->parent_root, s->nclones);
	}
	free(sources);
	return 0;
}

static int open_output(struct send_run *r)
{
	const char *name = r->cfg.outfile;

	r->out_fd = STDOUT_FILENO;
	if (name) {
		/* A file that exists is reused: we may not be allowed to create one. */
		r->out_fd = open(name, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (r->out_fd < 0 && errno == ENOENT)
			r->out_fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (r->out_fd < 0)
			return fail(r, "cannot create '%s': %s", name, strerror(errno));
	}
	if (isatty(r->out_fd))
		return fail(r, "not writing a send stream to a terminal: redirect it or use -f FILE");
	return 0;
}

static struct send_request request_of(const struct send_run *r,
				      const struct send_step *s, uint64_t flags)
{
	return (struct send_request){
		.subvol_fd = s->sv->fd,
		.parent_root = s->parent_root,
		.clone_sources = s->clones,
		.clone_count = s->nclones,
		.flags = flags,
		.version = r->cfg.proto,	/* read only with FLAG_VERSION */
		.resume = flags & BTRFS_SEND_FLAG_RESUME ? &r->cfg.point : NULL,
	};
}

/*
 * The NO_FILE_DATA pass over every step, in a thread of its own beside the
 * real send, so the stream starts at once and the ETA appears when the
 * pass is done.  Each step runs with its own header and END so the library
 * can parse it; what -e omits is taken off after.
 */
struct estimate_job {
	struct send_run *r;
	struct send_estimate est;
	pthread_t thread;
	bool running;
};

static void *estimate_all(void *arg)
{
	struct estimate_job *j = arg;
	struct send_run *r = j->r;
	struct send_err err;
	uint64_t total;

	for (size_t i = 0; i < r->nsubvols; i++) {
		const struct send_step *s = &r->steps[i];
		uint64_t flags = (s->flags | BTRFS_SEND_FLAG_NO_FILE_DATA) &
				 ~(uint64_t)(BTRFS_SEND_FLAG_OMIT_STREAM_HEADER |
					     BTRFS_SEND_FLAG_OMIT_END_CMD);
		struct send_request req = request_of(r, s, flags);

		if (send_pump(&req, r->big_pipe, estimate_consumer, &j->est, NULL, &err)) {
			if (!atomic_load(&j->est.cancel))
				progress_message(r->progress, "%s %s: no estimate: %s",
						 PROG, r->cfg.cmd->name, err.msg);
			progress_estimated(r->progress, 0);
			return NULL;
		}
	}
	total = atomic_load(&j->est.bytes);
	for (size_t i = 0; i < r->nsubvols; i++) {
		if (r->steps[i].flags & BTRFS_SEND_FLAG_OMIT_STREAM_HEADER)
			total -= sizeof(struct btrfs_send_stream_header);
		if (r->steps[i].flags & BTRFS_SEND_FLAG_OMIT_END_CMD)
			total -= sizeof(struct btrfs_send_cmd_header);
	}
	progress_estimated(r->progress, total);
	return NULL;
}

static void say(struct send_run *r, const char *msg, const char *arg)
{
	if (r->progress)
		progress_message(r->progress, "%s%s", msg, arg);
	else
		fprintf(stderr, "%s%s\n", msg, arg);
}

/* Every ioctl in turn; -1 with r->err and *ioctl_err on failure. */
static int send_all(struct send_run *r, int *ioctl_err)
{
	struct send_copy copy = {
		.out_fd = r->out_fd,
		.big_pipe = r->big_pipe && r->cfg.proto > 1,
		.bytes = r->progress ? progress_counter(r->progress) : NULL,
	};

	struct send_resume cut = { .tok = &r->cfg.tok, .out_fd = r->out_fd };
	bool cutting = r->cfg.resume_arg && !r->cfg.kernel_resume;

	for (size_t i = 0; i < r->nsubvols; i++) {
		struct send_request req = request_of(r, &r->steps[i], r->steps[i].flags);

		if (r->cfg.verbose)
			say(r, "At subvol ", r->steps[i].sv->arg);
		if (cutting ?
		    send_pump(&req, r->big_pipe, send_resume_consumer, &cut, ioctl_err, &r->err) :
		    send_pump(&req, r->big_pipe, send_copy_consumer, &copy, ioctl_err, &r->err)) {
			if (r->cfg.kernel_resume && *ioctl_err == ESTALE)
				send_errf(&r->err, "the stream differs from the one received: its commands 1..%" PRIu64
					  " do not end at offset %" PRIu64 " with metadata checksum %#010" PRIx32
					  ", as the token says (the subvolume or the send options changed): nothing sent",
					  r->cfg.tok.index, r->cfg.tok.offset, r->cfg.tok.meta);
			else if (r->cfg.kernel_resume && *ioctl_err == EINVAL)
				send_errf(&r->err, "the kernel refused the resume point (command %" PRIu64
					  ", offset %" PRIu64 "): the stream ends before it, or it is malformed: nothing sent",
					  r->cfg.tok.index, r->cfg.tok.offset);
			return -1;
		}
		if (r->cfg.verbose > 1)
			say(r, "BTRFS_IOC_SEND returned 0 for ", r->steps[i].sv->path);
	}
	return 0;
}

/* The sends, with the progress line and the estimate beside them. */
static int run_steps(struct send_run *r)
{
	struct estimate_job job = { .r = r };
	int ioctl_err = 0, ret;

	if (r->progress) {
		progress_start(r->progress, &job.est);
		job.running = !pthread_create(&job.thread, NULL, estimate_all, &job);
		if (!job.running)
			progress_estimated(r->progress, 0);
	}
	ret = send_all(r, &ioctl_err);
	if (job.running) {
		/* On success the pass, which reads no data, is about done. */
		if (ret)
			atomic_store(&job.est.cancel, true);
		pthread_join(job.thread, NULL);
	}
	if (r->progress)
		progress_finish(r->progress, !ret);
	if (!ret)
		return 0;
	fail(r, "%s", r->err.msg);
	if (ioctl_err == EINVAL && r->cfg.single_stream && r->nsubvols > 1)
		fprintf(stderr, "Try upgrading your kernel or don't use -e.\n");
	return 1;
}

/* Hidden --estimate-from FILE: the estimate of a stored NO_FILE_DATA stream. */
static int estimate_file(struct send_run *r)
{
	struct send_estimate est = { 0 };
	int fd = open(r->cfg.estimate_from, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail(r, "cannot open '%s': %s", r->cfg.estimate_from, strerror(errno));
	if (estimate_consumer(&est, fd, &r->err)) {
		close(fd);
		return fail(r, "%s", r->err.msg);
	}
	close(fd);
	printf("estimate %" PRIu64 "\nnodata %" PRIu64 "\ndata %" PRIu64 "\ncommands %" PRIu64 "\n",
	       atomic_load(&est.bytes), est.nodata_bytes, est.data_bytes,
	       atomic_load(&est.commands));
	return 0;
}

/*
 * --resume TOKEN: the token decides the protocol and the flags that shape
 * the stream; what the user gives must agree with it.
 */
static int take_token(struct send_run *r)
{
	struct send_cfg *c = &r->cfg;
	char why[300];

	if (resume_token_parse(c->resume_arg, &c->tok, why, sizeof(why)))
		return fail(r, "%s", why);
	if (c->proto_given && c->proto != c->tok.version)
		return fail(r, "the token is for protocol version %u, not %u",
			    c->tok.version, c->proto);
	if (c->single_stream || c->nclone_args)
		return fail(r, "--resume takes one subvolume, without -e or -c");
	c->proto = c->tok.version;
	c->proto_given = true;
	if (c->tok.flags & RESUME_FL_COMPRESSED)
		c->flags |= BTRFS_SEND_FLAG_COMPRESSED;
	if (c->tok.flags & RESUME_FL_NO_DATA)
		c->flags |= BTRFS_SEND_FLAG_NO_FILE_DATA;
	c->progress_forced = false;
	return 0;
}

/* --resume TOKEN --stream FILE: the continuation of a stored stream. */
static int resume_file(struct send_run *r, int nargs)
{
	struct send_resume cut = { .tok = &r->cfg.tok };
	int fd, ret;

	if (nargs)
		return cli_bad_usage(r->cfg.cmd, "--stream takes no subvolume");
	if (open_output(r))
		return 1;
	cut.out_fd = r->out_fd;
	fd = open(r->cfg.stream_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(r, "cannot open '%s': %s", r->cfg.stream_file, strerror(errno));
	ret = send_resume_consumer(&cut, fd, &r->err);
	close(fd);
	return ret ? fail(r, "%s", r->err.msg) : 0;
}

/*
 * --resume on a subvolume: the kernel starts at the point by itself where
 * it can (our module, a token with the metadata checksum, no
 * --verify-prefix), reading no data before it; else the whole stream is
 * regenerated and its prefix checked and dropped here.  The kernel reports
 * a prefix that differs only as ESTALE, so the subvolumes are checked
 * against the token first, with the words of the userspace path.
 */
static int choose_resume(struct send_run *r)
{
	struct send_cfg *c = &r->cfg;
	struct send_step *s = &r->steps[0];

	if (!c->tok.has_meta || c->verify_prefix || !send_resume_kernel_supported()) {
		if (c->verbose > 1)
			fprintf(stderr, "resuming in userspace: %s\n",
				!c->tok.has_meta ? "the token has no metadata checksum" :
				c->verify_prefix ? "--verify-prefix" :
				"the kernel cannot start at a resume point");
		return 0;
	}
	if (send_resume_check_subvols(&c->tok, s->sv, r->have_parent ? &r->parent : NULL, &r->err))
		return fail(r, "%s", r->err.msg);
	c->kernel_resume = true;
	send_resume_point_of(&c->tok, &c->point);
	s->flags |= BTRFS_SEND_FLAG_RESUME;
	if (c->verbose > 1)
		fprintf(stderr, "resuming in the kernel after command %" PRIu64 "\n", c->tok.index);
	return 0;
}

static void cleanup(struct send_run *r)
{
	for (size_t i = 0; r->steps && i < r->nsubvols; i++)
		free(r->steps[i].clones);
	free(r->steps);
	for (size_t i = 0; i < r->nsubvols; i++)
		subvol_close(&r->subvols[i]);
	for (size_t i = 0; i < r->nclones; i++)
		subvol_close(&r->clones[i]);
	if (r->have_parent)
		subvol_close(&r->parent);
	free(r->subvols);
	free(r->clones);
	free(r->cfg.clone_args);
	progress_free(r->progress);
	if (r->cfg.outfile && r->out_fd > STDERR_FILENO)
		close(r->out_fd);
}

/* Everything before the first ioctl: checks, protocol, plan, output. */
static int prepare(struct send_run *r, int nargs, char **args)
{
	if (nargs < 1)
		return cli_bad_usage(r->cfg.cmd, "no subvolume given");
	if (!r->cfg.outfile && isatty(STDOUT_FILENO))
		return fail(r, "not writing a send stream to a terminal: redirect it or use -f FILE");
	if (open_subvols(r, nargs, args) || choose_proto(r) || plan(r) ||
	    open_output(r))
		return 1;
	if (r->cfg.verbose && !r->cfg.resume_arg &&
	    (r->cfg.progress_forced || isatty(STDERR_FILENO))) {
		r->progress = progress_new(STDERR_FILENO, isatty(STDERR_FILENO));
		if (!r->progress)
			return fail(r, "out of memory");
	}
	if (r->cfg.flags & BTRFS_SEND_FLAG_NO_FILE_DATA && r->cfg.verbose > 1)
		fprintf(stderr, "Mode NO_FILE_DATA enabled\n");
	return 0;
}

static int run_send(const struct cli_command *cmd, int argc, char **argv)
{
	struct send_run r = { .cfg.cmd = cmd, .out_fd = -1 };
	int ret;

	r.cfg.clone_args = calloc(argc, sizeof(*r.cfg.clone_args));
	if (!r.cfg.clone_args)
		return fail(&r, "out of memory");
	ret = parse_args(&r.cfg, argc, argv);
	if (!ret && r.cfg.stream_file && !r.cfg.resume_arg)
		ret = cli_bad_usage(cmd, "--stream goes with --resume");
	if (!ret && r.cfg.verify_prefix && !r.cfg.resume_arg)
		ret = cli_bad_usage(cmd, "--verify-prefix goes with --resume");
	if (!ret && r.cfg.resume_arg)
		ret = take_token(&r);
	if (!ret && r.cfg.estimate_from) {
		ret = estimate_file(&r);
	} else if (!ret && r.cfg.stream_file) {
		ret = resume_file(&r, argc - optind);
	} else if (!ret) {
		ret = prepare(&r, argc - optind, argv + optind);
		if (!ret && r.cfg.resume_arg && r.nsubvols != 1)
			ret = fail(&r, "--resume takes one subvolume");
		if (!ret && r.cfg.resume_arg)
			ret = choose_resume(&r);
		if (!ret)
			ret = run_steps(&r);
	}
	cleanup(&r);
	return ret;
}

const struct cli_command cmd_send = {
	.name = "send",
	.summary = "send subvolumes as a stream, with progress",
	.usage = send_usage,
	.run = run_send,
};
