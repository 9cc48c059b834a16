// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming reader: pulls one command at a time from a file descriptor or a
 * memory buffer and validates it completely (framing, CRC, attribute types,
 * sizes, required attributes) before a consumer sees it.
 *
 * Input is read in big chunks into one buffer; a command is handed out in
 * place, so DATA is never copied.  Only the tail of a command that straddles
 * the end of the buffer is moved to its start, and the buffer only grows
 * for a single command larger than itself (bounded by max_cmd_size).
 *
 * Once a regular file (or block device) has filled the buffer once, so it
 * is not a small stream, a read-ahead thread shares the reading with the
 * consumer: copying from the page cache costs about twice what the CRC
 * does, so the thread and the consumer each copy every other slot of input
 * with pread(2) and CRC it in blocks while the data is in their CPU's
 * cache; the consumer merges block CRCs into command CRCs and parses.
 * Each slot has headroom in front of its data where the consumer copies
 * the unconsumed tail of the previous slot, so commands stay contiguous and
 * are still handed out in place.  With BSTREAM_READ_DIRECT the thread reads
 * every slot itself, with O_DIRECT where the file system allows it: the
 * stream then never enters the page cache, which costs the CPU nothing to
 * fill (the device writes into the slot) and pushes nothing else out of
 * memory.  A file the page cache already holds (nearly) whole, such as a
 * stream just written, is read through it as without the flag: a copy
 * from memory is several times faster than reading the device again.
 * The thread is the reader's own: started
 * and joined inside the handle's calls, never running after
 * bstream_reader_free() or a new input is set (a process that forks while
 * a reader reads ahead must not use that reader in the child).  Pipes are
 * read synchronously: a thread blocked on a pipe, or holding it open,
 * would change when the writer sees EPIPE.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "prefetch.h"
#include "residency.h"

#define DEFAULT_BUF_SIZE	(1u << 20)
#define DEFAULT_MAX_CMD		(64u << 20)
/* mmap window: big enough to amortise the mapping, small for RSS. */
#define MAP_WINDOW		(4u << 20)
/*
 * Read-ahead: slots in flight (a multiple of 2: the thread uses the even
 * ones), the headroom in front of each (Linux's commands are at most
 * 192 KiB; the tail of a longer one goes through the reader's own buffer)
 * and the smallest buffer worth a thread.
 */
#define RA_SLOTS		4
#define RA_HEADROOM		(256u << 10)
#define RA_MIN_BUF		(64u << 10)
#define RA_STACK		(256u << 10)
/* O_DIRECT reads: offset, length and memory aligned to this. */
#define DIRECT_ALIGN		4096u
/*
 * Skipping data (bstream_reader_set_data_filter()): after a skip or a
 * seek, a read asks for the rest of the page it starts in (plus a page if
 * that is under SPARSE_MIN_READ bytes), then each read doubles up to the
 * buffer size.  Data shorter than SKIP_SEEK_MIN is read through (a seek
 * saves nothing on a page or two); longer data not yet read is sought
 * over.
 */
#define SPARSE_PAGE		4096u
#define SPARSE_MIN_READ		512u
#define SKIP_SEEK_MIN		(16u << 10)
/* Read-ahead advice (prefetch.c) goes to the kernel in pieces of this size. */
#define ADVISE_CHUNK		(128u << 10)

struct ra_slot {
	uint8_t *mem;		/* RA_HEADROOM bytes and more, then the data */
	uint8_t *data;		/* where the data starts in mem */
	uint64_t index;		/* which slot of the input it holds */
	bool ready;		/* index is filled: len, err, eof are set */
	size_t len;		/* bytes of data */
	int err;		/* errno of the read that failed after them */
	bool eof;		/* input ended after them */
	uint32_t *bcrc;		/* crc(0, block) of each BSTREAM_CRC_BLOCK */
};

/*
 * State shared with the read-ahead thread; the lock guards freed, done,
 * stop and the ready flags.  Slot i of the input goes to slot[i % RA_SLOTS].
 */
struct readahead {
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int fd;				/* our dup of the reader's fd */
	int dfd;			/* the file opened O_DIRECT, or -1 */
	unsigned int stride;		/* the thread reads every stride-th slot */
	size_t delta;			/* start % DIRECT_ALIGN when dfd is open */
	off_t start;			/* slot i is read at start + i * cap */
	size_t cap;			/* data bytes per slot */
	bstream_crc_fn crc;		/* for block CRCs, NULL: none */
	struct ra_slot slot[RA_SLOTS];
	uint64_t freed;			/* slots given back by the consumer */
	bool done;			/* end of input or error seen */
	bool stop;
};

enum reader_state {
	ST_HEADER,	/* a stream header (or clean EOF after END) comes next */
	ST_CMDS,	/* commands of a substream */
	ST_DONE,	/* regular end reached */
	ST_FAILED,	/* sticky error */
};

struct bstream_reader {
	unsigned int flags;
	uint32_t max_version;
	size_t max_cmd;
	size_t buf_size;	/* as configured (cap grows for big commands) */
	bstream_crc_fn crc;

	/* Input */
	int fd;
	bool have_input;
	bool mem;		/* base is the caller's memory */
	bool seekable;		/* fd can be repositioned after END with -e */
	bool exact;		/* read no byte beyond the command (pipe with -e) */
	bool mapped;		/* regular file read through an mmap window */
	uint8_t *map;		/* current window (mapped mode) */
	size_t map_len;
	uint64_t file_size;	/* as last seen by fstat (mapped mode) */
	uint64_t map_start;	/* file offset where reading started */
	off_t fd_start;		/* file offset of the fd when set (seekable) */
	bool regular;		/* fd is a regular file */
	uint64_t reg_size;	/* its size as last seen by fstat */
	bool seeked;		/* bstream_reader_seek() was used on this input */
	size_t next_read;	/* size of the next read(2) when reading sparsely */
	struct prefetch prefetch;	/* read-ahead advice while passing over data */
	bool eof;
	/* Read-ahead (fd mode, see fill_ra()) */
	struct readahead *ra;	/* allocated once, kept for the next input */
	bool ra_running;	/* the thread was started for this input */
	bool ra_failed;		/* it could not be: read synchronously */
	uint64_t ra_taken;	/* slots taken by the consumer */
	bool ra_held;		/* base points into the last slot taken */
	int ra_err;		/* errno of the thread's failed read */
	/* Block CRCs of the slot base points into, for base[bcrc_lo, bcrc_hi) */
	const uint32_t *bcrc;
	size_t bcrc_lo, bcrc_hi;
	uint8_t *buf;		/* owned buffer (fd mode) */
	size_t cap;
	const uint8_t *base;	/* window: buf or the caller's memory */
	size_t pos, end;	/* unconsumed bytes are base[pos, end) */
	uint64_t base_off;	/* input offset of base[0] */

	/* Parser */
	enum reader_state state;
	uint32_t version;
	unsigned int substream;	/* substreams started so far */
	uint64_t hdr_offset;
	bool continuation;		/* the current header marks a continuation */
	uint64_t index;
	int err;
	bool recoverable;
	char msg[BSTREAM_MSG_LEN];

	/* Data filter */
	bstream_want_data_fn want;
	void *want_user;

	struct bstream_cmd cmd;
	char *strings;		/* NUL-terminated copies of string attributes */
	size_t strings_cap;
};

struct bstream_reader *bstream_reader_new(const struct bstream_reader_opts *opts)
{
	struct bstream_reader_opts def = { 0 };
	struct bstream_reader *r;

	if (!opts)
		opts = &def;
	if (opts->max_version > BSTREAM_VERSION_MAX)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->flags = opts->flags;
	r->max_version = opts->max_version ? opts->max_version : BSTREAM_VERSION_MAX;
	r->cap = opts->buf_size ? opts->buf_size : DEFAULT_BUF_SIZE;
	if (r->cap < 64)
		r->cap = 64;
	r->buf_size = r->cap;
	r->max_cmd = opts->max_cmd_size ? opts->max_cmd_size : DEFAULT_MAX_CMD;
	if (r->max_cmd < BSTREAM_CMD_HDR_LEN)
		r->max_cmd = BSTREAM_CMD_HDR_LEN;
	if (r->max_cmd > (size_t)UINT32_MAX + BSTREAM_CMD_HDR_LEN)
		r->max_cmd = (size_t)UINT32_MAX + BSTREAM_CMD_HDR_LEN;
	r->crc = bstream_crc_get(opts->crc);
	if (!r->crc) {
		free(r);
		return NULL;
	}
	r->fd = -1;
	r->ra_held = false;
	return r;
}

/* ---------------------------------------------------------------------- */
/* Read-ahead thread                                                       */

/*
 * Read a slot's worth at off into s->data with O_DIRECT: the aligned
 * blocks around it land delta bytes in front of the data (in the
 * headroom) and up to a block after it.  A read that stops short of a
 * block boundary (the end of the file, or a file system that reads less)
 * is finished through the page cache, where only the end of the file is
 * short.  -1 with errno on error.
 */
static ssize_t ra_read_direct(struct readahead *ra, struct ra_slot *s, off_t off)
{
	uint8_t *dst = s->data - ra->delta;
	off_t at = off - (off_t)ra->delta;
	size_t want = (ra->delta + ra->cap + DIRECT_ALIGN - 1) / DIRECT_ALIGN * DIRECT_ALIGN;
	size_t got = 0;

	while (got < want) {
		int fd = got % DIRECT_ALIGN ? ra->fd : ra->dfd;
		ssize_t n = pread(fd, dst + got, want - got, at + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got <= ra->delta)
		return 0;
	return got - ra->delta < ra->cap ? (ssize_t)(got - ra->delta) : (ssize_t)ra->cap;
}

/*
 * Read slot index into s: one pread(2) of a slot's worth (short: the end
 * of the file), then the CRC of each block while it is in this CPU's cache.
 * A file system that refuses O_DIRECT reads after all is read through the
 * page cache from then on.
 */
static void ra_fill_slot(struct readahead *ra, struct ra_slot *s, uint64_t index)
{
	uint8_t *data = s->data;
	off_t off = ra->start + (off_t)(index * ra->cap);
	ssize_t n = -1;

	if (ra->dfd >= 0) {
		n = ra_read_direct(ra, s, off);
		if (n < 0 && errno == EINVAL) {
			close(ra->dfd);
			ra->dfd = -1;
		}
	}
	if (ra->dfd < 0) {
		do {
			n = pread(ra->fd, data, ra->cap, off);
		} while (n < 0 && errno == EINTR);
	}
	s->len = n > 0 ? (size_t)n : 0;
	s->err = n < 0 ? errno : 0;
	s->eof = n >= 0 && (size_t)n < ra->cap;
	for (size_t off = 0; ra->crc && off < s->len; off += BSTREAM_CRC_BLOCK) {
		size_t l = s->len - off;

		s->bcrc[off / BSTREAM_CRC_BLOCK] =
			ra->crc(0, data + off, l < BSTREAM_CRC_BLOCK ? l : BSTREAM_CRC_BLOCK);
	}
}

/* Mark s filled, with the lock held. */
static void ra_publish(struct readahead *ra, struct ra_slot *s)
{
	s->ready = true;
	if (s->err || s->eof)
		ra->done = true;
	pthread_cond_broadcast(&ra->cond);
}

/*
 * The read-ahead thread reads the even slots, the consumer the odd ones
 * (see ra_take()): two threads on two CPUs share the copying without a
 * third one competing with them.  Direct reads copy nothing, so there the
 * thread reads every slot and the consumer never waits for a read.
 */
static void *ra_main(void *arg)
{
	struct readahead *ra = arg;

	pthread_mutex_lock(&ra->lock);
	for (uint64_t index = 0;; index += ra->stride) {
		struct ra_slot *s = &ra->slot[index % RA_SLOTS];

		while (!ra->stop && !ra->done && index - ra->freed >= RA_SLOTS)
			pthread_cond_wait(&ra->cond, &ra->lock);
		if (ra->stop || ra->done)
			break;
		s->index = index;
		s->ready = false;
		pthread_mutex_unlock(&ra->lock);
		ra_fill_slot(ra, s, index);
		pthread_mutex_lock(&ra->lock);
		ra_publish(ra, s);
	}
	pthread_mutex_unlock(&ra->lock);
	return NULL;
}

static void ra_free(struct readahead *ra)
{
	if (!ra)
		return;
	for (int i = 0; i < RA_SLOTS; i++) {
		free(ra->slot[i].mem);
		free(ra->slot[i].bcrc);
	}
	pthread_mutex_destroy(&ra->lock);
	pthread_cond_destroy(&ra->cond);
	free(ra);
}

static struct readahead *ra_alloc(size_t cap)
{
	struct readahead *ra = calloc(1, sizeof(*ra));

	if (!ra)
		return NULL;
	pthread_mutex_init(&ra->lock, NULL);
	pthread_cond_init(&ra->cond, NULL);
	ra->cap = cap;
	ra->dfd = -1;
	for (int i = 0; i < RA_SLOTS; i++) {
		/*
		 * Page-aligned: copying from the page cache to a destination
		 * off by 16 bytes (plain malloc) measured 1.5x slower.  A
		 * direct read puts the data up to a block in and ends up to a
		 * block after it.
		 */
		if (posix_memalign((void **)&ra->slot[i].mem, DIRECT_ALIGN,
				   RA_HEADROOM + cap + 2 * DIRECT_ALIGN))
			ra->slot[i].mem = NULL;
		ra->slot[i].bcrc = malloc((cap / BSTREAM_CRC_BLOCK + 1) * sizeof(uint32_t));
		if (!ra->slot[i].mem || !ra->slot[i].bcrc) {
			ra_free(ra);
			return NULL;
		}
	}
	return ra;
}

static void ra_join(struct readahead *ra)
{
	pthread_mutex_lock(&ra->lock);
	ra->stop = true;
	pthread_cond_broadcast(&ra->cond);
	pthread_mutex_unlock(&ra->lock);
	if (ra->running)
		pthread_join(ra->thread, NULL);
	ra->running = false;
	if (ra->dfd >= 0)
		close(ra->dfd);
	ra->dfd = -1;
}

/*
 * The file behind fd opened anew with O_DIRECT (a flag of the open file,
 * so not set on the caller's), or -1 where that is refused.
 */
static int open_direct(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
}

/*
 * Start reading ahead of the consumer, from where the synchronous reads
 * stopped, if the input is a regular file or a block device.  Reads go
 * through our own dup of the fd, so a caller that closes its fd before
 * freeing the reader cannot make the thread read some other file that got
 * the number; the thread blocks every signal, which stay with the caller's
 * threads.  On any failure the reader simply goes on reading synchronously.
 */
static bool ra_start(struct bstream_reader *r)
{
	struct readahead *ra = r->ra;
	pthread_attr_t attr;
	sigset_t all, old;
	struct stat st;

	if (fstat(r->fd, &st) || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
		r->ra_failed = true;
		return false;
	}
	if (!ra)
		ra = r->ra = ra_alloc(r->buf_size);
	if (!ra || pthread_attr_init(&attr)) {
		r->ra_failed = true;
		return false;
	}
	ra->fd = fcntl(r->fd, F_DUPFD_CLOEXEC, 0);
	ra->start = r->fd_start + (off_t)(r->base_off + r->end);
	ra->dfd = -1;
	if ((r->flags & BSTREAM_READ_DIRECT) && S_ISREG(st.st_mode) &&
	    ra->cap % DIRECT_ALIGN == 0 &&
	    !residency_mostly_cached(r->fd, ra->start, st.st_size))
		ra->dfd = open_direct(r->fd);
	ra->delta = ra->dfd >= 0 ? (size_t)(ra->start % DIRECT_ALIGN) : 0;
	ra->stride = ra->dfd >= 0 ? 1 : 2;
	/* Direct: the data sits where the aligned block read puts it. */
	for (int i = 0; i < RA_SLOTS; i++)
		ra->slot[i].data = ra->slot[i].mem + RA_HEADROOM + ra->delta;
	ra->crc = r->flags & BSTREAM_READ_NO_CRC ? NULL : r->crc;
	ra->freed = 0;
	ra->done = ra->stop = false;
	for (int i = 0; i < RA_SLOTS; i++)
		ra->slot[i].ready = false;
	pthread_attr_setstacksize(&attr, RA_STACK);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ra->running = ra->fd >= 0 && !pthread_create(&ra->thread, &attr, ra_main, ra);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (!ra->running) {
		if (ra->fd >= 0)
			close(ra->fd);
		if (ra->dfd >= 0)
			close(ra->dfd);
		ra->dfd = -1;
		r->ra_failed = true;
		return false;
	}
	r->ra_running = true;
	r->ra_taken = 0;
	r->ra_held = false;
	return true;
}

/*
 * Stop and join the thread (the slots stay allocated for the next
 * input).  The fd is left where read(2) would have left it: after the
 * bytes taken into the window.
 */
static void ra_stop(struct bstream_reader *r)
{
	struct readahead *ra = r->ra;

	if (!r->ra_running)
		return;
	ra_join(ra);
	lseek(ra->fd, r->fd_start + (off_t)(r->base_off + r->end), SEEK_SET);
	close(ra->fd);
	r->ra_running = false;
	r->ra_held = false;
}

/*
 * Next slot in input order: an even one from the thread (waiting for it),
 * an odd one read here.  Its position in slot[] is free: the consumer
 * holds at most the slot before it, the thread only even positions.
 */
static struct ra_slot *ra_take(struct bstream_reader *r)
{
	struct readahead *ra = r->ra;
	uint64_t index = r->ra_taken++;
	struct ra_slot *s = &ra->slot[index % RA_SLOTS];

	if (index % ra->stride) {
		s->index = index;
		ra_fill_slot(ra, s, index);
		pthread_mutex_lock(&ra->lock);
		ra_publish(ra, s);
		pthread_mutex_unlock(&ra->lock);
		return s;
	}
	pthread_mutex_lock(&ra->lock);
	while (!s->ready || s->index != index)
		pthread_cond_wait(&ra->cond, &ra->lock);
	pthread_mutex_unlock(&ra->lock);
	return s;
}

/* Give back the oldest slot taken (slots are given back in order). */
static void ra_give_back(struct bstream_reader *r)
{
	struct readahead *ra = r->ra;

	pthread_mutex_lock(&ra->lock);
	ra->freed++;
	pthread_cond_broadcast(&ra->cond);
	pthread_mutex_unlock(&ra->lock);
}

static void unmap(struct bstream_reader *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
	r->map_len = 0;
}

void bstream_reader_free(struct bstream_reader *r)
{
	if (!r)
		return;
	ra_stop(r);
	ra_free(r->ra);
	unmap(r);
	free(r->buf);
	free(r->strings);
	free(r);
}

static void reset_input(struct bstream_reader *r)
{
	ra_stop(r);
	r->ra_failed = false;
	r->ra_err = 0;
	r->bcrc = NULL;
	unmap(r);
	r->mapped = false;
	r->have_input = true;
	r->eof = false;
	r->pos = r->end = 0;
	r->base_off = 0;
	r->state = ST_HEADER;
	r->version = 0;
	r->substream = 0;
	r->index = 0;
	r->err = 0;
	r->msg[0] = 0;
	r->seeked = false;
	r->regular = false;
	r->reg_size = 0;
	memset(&r->prefetch, 0, sizeof(r->prefetch));
}

/* The rest of the page at input offset at, at least SPARSE_MIN_READ bytes. */
static size_t page_rest(const struct bstream_reader *r, uint64_t at)
{
	size_t n = SPARSE_PAGE - (size_t)((r->fd_start + at) % SPARSE_PAGE);

	return n < SPARSE_MIN_READ ? n + SPARSE_PAGE : n;
}

/*
 * Whether direct reads are asked for, pay (the page cache does not hold
 * the rest of the file already) and the file can be opened for them.
 */
static bool direct_accepted(const struct bstream_reader *r, int fd)
{
	int dfd;

	if (!(r->flags & BSTREAM_READ_DIRECT) || !r->regular || r->buf_size % DIRECT_ALIGN)
		return false;
	if (residency_mostly_cached(fd, r->fd_start, (off_t)r->reg_size))
		return false;
	dfd = open_direct(fd);
	if (dfd < 0)
		return false;
	close(dfd);
	return true;
}

int bstream_reader_set_fd(struct bstream_reader *r, int fd)
{
	if (!r || fd < 0)
		return -BSTREAM_E_INVAL;
	if (!r->buf) {
		/* Aligned, so that reads from the page cache copy fast. */
		if (posix_memalign((void **)&r->buf, 4096, r->cap))
			r->buf = NULL;
		if (!r->buf)
			return bstream_set_error(r->msg, BSTREAM_E_NOMEM,
						 "cannot allocate %zu byte read buffer",
						 r->cap);
	}
	reset_input(r);
	r->fd = fd;
	r->mem = false;
	r->base = r->buf;
	r->fd_start = lseek(fd, 0, SEEK_CUR);
	r->seekable = r->fd_start != (off_t)-1;
	r->exact = (r->flags & BSTREAM_READ_STOP_AT_END) && !r->seekable;
	if (r->seekable) {
		struct stat st;

		r->regular = !fstat(fd, &st) && S_ISREG(st.st_mode);
		r->reg_size = r->regular ? (uint64_t)st.st_size : 0;
		r->next_read = page_rest(r, 0);
	} else {
		r->fd_start = 0;
	}
	/*
	 * Mapping would read what the data filter skips; direct reads, where
	 * the file takes them and is not in the page cache already, are
	 * preferred to a mapping.
	 */
	if ((r->flags & BSTREAM_READ_MMAP) && !r->want && !direct_accepted(r, fd)) {
		struct stat st;
		off_t start = lseek(fd, 0, SEEK_CUR);

		if (start != (off_t)-1 && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
			r->mapped = true;
			r->map_start = start;
			r->file_size = st.st_size;
		}
	}
	return 0;
}

int bstream_reader_set_mem(struct bstream_reader *r, const void *buf, size_t len)
{
	if (!r || (!buf && len))
		return -BSTREAM_E_INVAL;
	reset_input(r);
	r->fd = -1;
	r->mem = true;
	r->base = buf;
	r->end = len;
	r->eof = true;
	return 0;
}

uint32_t bstream_reader_version(const struct bstream_reader *r)
{
	return r->version;
}

bool bstream_reader_continuation(const struct bstream_reader *r)
{
	return r->continuation;
}

uint64_t bstream_reader_offset(const struct bstream_reader *r)
{
	return r->base_off + r->pos;
}

int bstream_reader_errcode(const struct bstream_reader *r)
{
	return r->err;
}

const char *bstream_reader_errmsg(const struct bstream_reader *r)
{
	return r->msg;
}

__attribute__((format(printf, 4, 5)))
static int fail(struct bstream_reader *r, int code, bool recoverable,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->err = code;
	r->recoverable = recoverable;
	if (!recoverable)
		r->state = ST_FAILED;
	return -code;
}

/* An API misuse: reported, but the reader stays as it was. */
static int misuse(struct bstream_reader *r, const char *what)
{
	r->err = BSTREAM_E_INVAL;
	return bstream_set_error(r->msg, BSTREAM_E_INVAL, "%s", what);
}

/*
 * Reposition on a command read before.  A mark inside or at the end of
 * the window just moves pos; else the window is dropped and the fd (or
 * the mapping) moved.
 */
int bstream_reader_seek(struct bstream_reader *r, const struct bstream_mark *m)
{
	uint64_t off;

	if (!r || !m)
		return -BSTREAM_E_INVAL;
	if (!r->have_input)
		return misuse(r, "cannot seek: no input set");
	if (!r->mem && !r->seekable)
		return misuse(r, "cannot seek: the input is not seekable");
	if (!m->index || m->version > r->max_version || m->substream == UINT32_MAX)
		return misuse(r, "cannot seek: invalid mark");
	off = m->offset;
	if (r->mem) {
		if (off > r->end)
			return misuse(r, "cannot seek: offset beyond the input");
		r->pos = off;
	} else if (!r->mapped && !r->ra_running && r->base == r->buf &&
		   off >= r->base_off && off <= r->base_off + r->end) {
		r->pos = off - r->base_off;
	} else {
		ra_stop(r);
		unmap(r);
		if (!r->mapped && lseek(r->fd, r->fd_start + (off_t)off, SEEK_SET) == (off_t)-1)
			return fail(r, BSTREAM_E_IO, false, "cannot seek to offset %" PRIu64 ": %s",
				    off, strerror(errno));
		r->base = r->mapped ? NULL : r->buf;
		r->base_off = off;
		r->pos = r->end = 0;
		r->eof = false;
		r->bcrc = NULL;
		r->next_read = page_rest(r, off);
	}
	r->seeked = true;
	r->state = ST_CMDS;
	r->version = m->version;
	r->substream = m->substream + 1;
	r->index = m->index - 1;
	r->err = 0;
	r->msg[0] = 0;
	return 0;
}

/*
 * Make need bytes available contiguously at base + pos.  Returns the number
 * of bytes available (less than need only at end of input), or an error.
 */
/* Mapped mode: map a window holding [pos, pos + need) if the file has it. */
static ssize_t fill_mapped(struct bstream_reader *r, size_t need)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	uint64_t consumed = r->base_off + r->pos;
	uint64_t cur = r->map_start + consumed;		/* file offset */
	uint64_t aoff = cur & ~(uint64_t)(pagesz - 1);
	size_t delta = cur - aoff;
	size_t len = need + delta > MAP_WINDOW ? need + delta : MAP_WINDOW;
	void *m;

	if (cur + need > r->file_size) {
		struct stat st;

		/* The file may still be growing (a send writing to it). */
		if (!fstat(r->fd, &st))
			r->file_size = st.st_size;
	}
	if (aoff + len > r->file_size)
		len = r->file_size > aoff ? r->file_size - aoff : 0;
	unmap(r);
	r->base = NULL;
	/* May wrap below zero for an unaligned start; base_off + pos is exact. */
	r->base_off = consumed - delta;
	r->pos = r->end = delta;
	if (len <= delta)
		return 0;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, r->fd, aoff);
	if (m == MAP_FAILED)
		return fail(r, BSTREAM_E_IO, false, "mmap failed at offset %" PRIu64 ": %s",
			    aoff, strerror(errno));
	madvise(m, len, MADV_SEQUENTIAL);
	r->map = m;
	r->map_len = len;
	r->base = m;
	r->end = len;
	return len - delta < need ? (ssize_t)(len - delta) : (ssize_t)need;
}

/*
 * Put the have unconsumed bytes at tail and the len bytes of data after
 * each other in the reader's own buffer, growing it if needed (for commands
 * whose tail does not fit a slot's headroom).
 */
static int gather(struct bstream_reader *r, const uint8_t *tail, size_t have,
		  const uint8_t *data, size_t len)
{
	if (have + len > r->cap) {
		size_t ncap = r->cap;
		uint8_t *nbuf;

		while (ncap < have + len)
			ncap = ncap > SIZE_MAX / 2 ? have + len : ncap * 2;
		nbuf = malloc(ncap);
		if (!nbuf)
			return fail(r, BSTREAM_E_NOMEM, false,
				    "cannot allocate %zu byte buffer for command at offset %" PRIu64,
				    ncap, r->base_off + r->pos);
		memcpy(nbuf, tail, have);
		free(r->buf);
		r->buf = nbuf;
		r->cap = ncap;
	} else {
		memmove(r->buf, tail, have);
	}
	memcpy(r->buf + have, data, len);
	return 0;
}

/*
 * fill() with the read-ahead thread: take slots until need bytes are
 * contiguous.  The unconsumed tail moves into the headroom in front of the
 * next slot's data (or, if longer, everything into the reader's buffer), so
 * a slot is given back as soon as the window leaves it.
 */
static ssize_t fill_ra(struct bstream_reader *r, size_t need)
{
	size_t have = r->end - r->pos;

	while (have < need && !r->eof) {
		struct ra_slot *s = ra_take(r);
		const uint8_t *tail = r->base + r->pos;
		uint8_t *data = s->data;
		bool held = r->ra_held;

		if (s->err || s->eof) {
			r->eof = true;
			r->ra_err = s->err;
		}
		r->base_off += r->pos;
		r->pos = 0;
		if (have <= RA_HEADROOM) {
			memcpy(data - have, tail, have);
			r->base = data - have;
			r->end = have + s->len;
			r->bcrc = r->ra->crc ? s->bcrc : NULL;
			r->bcrc_lo = have;
			r->bcrc_hi = r->end;
			if (held)
				ra_give_back(r);
			r->ra_held = true;
		} else {
			int ret = gather(r, tail, have, data, s->len);

			if (ret)
				return ret;
			r->base = r->buf;
			r->end = have + s->len;
			r->bcrc = NULL;
			if (held)
				ra_give_back(r);
			ra_give_back(r);
			r->ra_held = false;
		}
		have = r->end;
	}
	if (have < need && r->ra_err)
		return fail(r, BSTREAM_E_IO, false,
			    "read failed at offset %" PRIu64 ": %s",
			    r->base_off + r->end, strerror(r->ra_err));
	return have < need ? (ssize_t)have : (ssize_t)need;
}

/*
 * Whether reads are sized to what the consumer needs: a regular file read
 * by a consumer that skips data or seeks.
 */
static bool sparse(const struct bstream_reader *r)
{
	return r->regular && (r->want || r->seeked);
}

/*
 * Whether to try reading ahead: a seekable fd that filled the buffer once,
 * unless read sparsely (the thread would read everything).
 */
static bool ra_wanted(const struct bstream_reader *r)
{
	return r->seekable && !r->ra_failed && r->buf_size >= RA_MIN_BUF &&
	       r->base_off + r->end >= r->buf_size && !sparse(r);
}

/* Bytes the next read(2) asks for, to have need bytes from pos on. */
static size_t read_size(struct bstream_reader *r, size_t need)
{
	size_t missing = r->pos + need - r->end;
	size_t room = r->cap - r->end;
	size_t n;

	if (r->exact)
		return missing;
	if (!sparse(r))
		return room;
	n = r->next_read > missing ? r->next_read : missing;
	r->next_read = r->next_read < r->cap / 2 ? r->next_read * 2 : r->cap;
	return n < room ? n : room;
}

/*
 * Ask the kernel for the ranges (a hint: a failure changes nothing but
 * the speed).  One POSIX_FADV_WILLNEED reads at most the device's
 * read-ahead size (as little as 128 KiB), so windows go in pieces.
 */
static void advise(struct bstream_reader *r, const struct prefetch_range *rg, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (uint64_t o = 0; o < rg[i].len; o += ADVISE_CHUNK) {
			uint64_t len = rg[i].len - o < ADVISE_CHUNK ? rg[i].len - o : ADVISE_CHUNK;

			posix_fadvise(r->fd, r->fd_start + (off_t)(rg[i].off + o), (off_t)len,
				      POSIX_FADV_WILLNEED);
		}
}

static ssize_t fill(struct bstream_reader *r, size_t need)
{
	size_t have = r->end - r->pos;

	if (r->mapped && have < need)
		return fill_mapped(r, need);
	if (r->ra_running)
		return fill_ra(r, need);

	if (have >= need || r->mem || r->eof)
		return have < need ? (ssize_t)have : (ssize_t)need;
	if (ra_wanted(r) && ra_start(r))
		return fill_ra(r, need);

	if (r->pos + need > r->cap) {
		/* Move the partial command to the front, growing if needed. */
		if (need > r->cap) {
			size_t ncap = r->cap;
			uint8_t *nbuf;

			while (ncap < need)
				ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
			nbuf = malloc(ncap);
			if (!nbuf)
				return fail(r, BSTREAM_E_NOMEM, false,
					    "cannot allocate %zu byte buffer for command at offset %" PRIu64,
					    ncap, r->base_off + r->pos);
			memcpy(nbuf, r->buf + r->pos, have);
			free(r->buf);
			r->buf = nbuf;
			r->cap = ncap;
		} else if (have) {
			memmove(r->buf, r->buf + r->pos, have);
		}
		r->base = r->buf;
		r->base_off += r->pos;
		r->pos = 0;
		r->end = have;
	}

	while (r->end - r->pos < need) {
		size_t room = read_size(r, need);
		ssize_t n = read(r->fd, r->buf + r->end, room);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return fail(r, BSTREAM_E_IO, false,
				    "read failed at offset %" PRIu64 ": %s",
				    r->base_off + r->end, strerror(errno));
		}
		if (n == 0) {
			r->eof = true;
			break;
		}
		r->end += n;
	}
	have = r->end - r->pos;
	return have < need ? (ssize_t)have : (ssize_t)need;
}

/*
 * Continue reg over base[x, y).  Whole blocks of the current slot have
 * their CRC from the read-ahead thread that read them and are merged;
 * the rest (the tail copied in front of the slot, partial blocks at both
 * ends, or everything without read-ahead) is computed here.
 */
static uint32_t crc_window(const struct bstream_reader *r, uint32_t reg,
			   size_t x, size_t y)
{
	const size_t blk = BSTREAM_CRC_BLOCK;
	size_t j, at;

	if (!r->bcrc || y - x < 2 * blk || y <= r->bcrc_lo)
		return r->crc(reg, r->base + x, y - x);
	if (x < r->bcrc_lo) {
		reg = r->crc(reg, r->base + x, r->bcrc_lo - x);
		x = r->bcrc_lo;
	}
	j = (x - r->bcrc_lo + blk - 1) / blk;
	at = r->bcrc_lo + j * blk;
	if (at > y)
		at = y;
	reg = r->crc(reg, r->base + x, at - x);
	for (; at + blk <= y && at + blk <= r->bcrc_hi; at += blk)
		reg = bstream_crc_zeros_block(reg) ^ r->bcrc[j++];
	return r->crc(reg, r->base + at, y - at);
}

static const char *cmd_label(unsigned int cmd, char *tmp, size_t len)
{
	const char *name = bstream_cmd_name(cmd);

	if (name)
		return name;
	snprintf(tmp, len, "unknown command %u", cmd);
	return tmp;
}

#define CMD_FMT "command %" PRIu64 " (%s) at offset %" PRIu64 ": "
#define CMD_ARGS(r) (r)->cmd.index, cmd_label((r)->cmd.cmd, lbl, sizeof(lbl)), \
		    (r)->cmd.offset

static int read_header(struct bstream_reader *r)
{
	uint64_t off = r->base_off + r->pos;
	const uint8_t *p;
	ssize_t n;

	n = fill(r, BSTREAM_HDR_LEN);
	if (n < 0)
		return n;
	if (n == 0) {
		if (r->substream == 0)
			return fail(r, BSTREAM_E_EMPTY, false,
				    "no stream header: input is empty");
		r->state = ST_DONE;
		return 0;
	}
	p = r->base + r->pos;
	if ((size_t)n >= BTRFS_SEND_STREAM_MAGIC_LEN &&
	    memcmp(p, BTRFS_SEND_STREAM_MAGIC, BTRFS_SEND_STREAM_MAGIC_LEN))
		return fail(r, BSTREAM_E_BAD_MAGIC, false,
			    "%s at offset %" PRIu64 ": bad magic (not a btrfs send stream)",
			    r->substream ? "data after end command" : "stream header",
			    off);
	if (n < BSTREAM_HDR_LEN) {
		size_t cmp = n < BTRFS_SEND_STREAM_MAGIC_LEN ?
			     (size_t)n : BTRFS_SEND_STREAM_MAGIC_LEN;

		if (memcmp(p, BTRFS_SEND_STREAM_MAGIC, cmp))
			return fail(r, BSTREAM_E_BAD_MAGIC, false,
				    "%s at offset %" PRIu64 ": bad magic (not a btrfs send stream)",
				    r->substream ? "data after end command" : "stream header",
				    off);
		return fail(r, BSTREAM_E_HEADER_TRUNC, false,
			    "stream header at offset %" PRIu64 ": truncated, %zd of %d bytes",
			    off, n, BSTREAM_HDR_LEN);
	}
	r->version = get_le32(p + BTRFS_SEND_STREAM_MAGIC_LEN);
	r->continuation = r->version & BSTREAM_VERSION_CONTINUATION &&
			  (r->version & ~BSTREAM_VERSION_CONTINUATION) >= 1;
	if (r->continuation)
		r->version &= ~BSTREAM_VERSION_CONTINUATION;
	if (r->version > r->max_version)
		return fail(r, BSTREAM_E_VERSION, false,
			    "stream header at offset %" PRIu64 ": version %" PRIu32 " not supported (max %" PRIu32 ")",
			    off, r->version, r->max_version);
	r->pos += BSTREAM_HDR_LEN;
	r->hdr_offset = off;
	r->substream++;
	r->state = ST_CMDS;
	return 1;
}

static void clear_cmd(struct bstream_cmd *c)
{
	uint64_t present = c->present;

	while (present) {
		int a = __builtin_ctzll(present);

		c->attr[a].data = NULL;
		c->attr[a].len = 0;
		present &= present - 1;
	}
	c->present = 0;
	memset(&c->path, 0, sizeof(*c) - offsetof(struct bstream_cmd, path));
}

static int parse_tlvs(struct bstream_reader *r, const uint8_t *p, uint32_t len)
{
	struct bstream_cmd *c = &r->cmd;
	unsigned int amax = BTRFS_SEND_A_MAX;
	uint32_t pos = 0;
	char lbl[32];

	while (pos < len) {
		uint32_t start = pos;
		uint16_t type;
		uint32_t vlen;

		if (len - pos < 2)
			return fail(r, BSTREAM_E_TLV_TRUNC, true,
				    CMD_FMT "attribute header at payload offset %" PRIu32 " truncated",
				    CMD_ARGS(r), pos);
		type = get_le16(p + pos);
		if (type == 0 || type > amax)
			return fail(r, BSTREAM_E_ATTR_TYPE, true,
				    CMD_FMT "invalid attribute type %u at payload offset %" PRIu32,
				    CMD_ARGS(r), type, pos);
		pos += 2;
		if (type == BTRFS_SEND_A_DATA && c->version >= 2) {
			vlen = len - pos;
		} else {
			if (len - pos < 2)
				return fail(r, BSTREAM_E_TLV_TRUNC, true,
					    CMD_FMT "attribute %s: header truncated",
					    CMD_ARGS(r), bstream_attr_name(type));
			vlen = get_le16(p + pos);
			pos += 2;
			if (vlen > len - pos)
				return fail(r, BSTREAM_E_TLV_TRUNC, true,
					    CMD_FMT "attribute %s: length %" PRIu32 " exceeds command (%" PRIu32 " bytes left)",
					    CMD_ARGS(r), bstream_attr_name(type),
					    vlen, len - pos);
		}
		c->attr[type].data = p + pos;
		c->attr[type].len = vlen;
		c->attr[type].pos = start;
		c->present |= UINT64_C(1) << type;
		pos += vlen;
	}
	return 0;
}

static int reserve_strings(struct bstream_reader *r, size_t need)
{
	char *n;

	if (need <= r->strings_cap)
		return 0;
	n = realloc(r->strings, need);
	if (!n)
		return fail(r, BSTREAM_E_NOMEM, false,
			    "cannot allocate %zu bytes for strings", need);
	r->strings = n;
	r->strings_cap = need;
	return 0;
}

static struct bstream_timespec get_ts(const uint8_t *p)
{
	struct bstream_timespec ts = {
		.sec = (int64_t)get_le64(p),
		.nsec = get_le32(p + 8),
	};
	return ts;
}

/* Check sizes of all attributes present and fill the decoded fields. */
static int decode_attrs(struct bstream_reader *r)
{
	struct bstream_cmd *c = &r->cmd;
	uint64_t present = c->present;
	size_t strbytes = 0;
	char *s;
	char lbl[32];
	int ret;

	for (uint64_t m = present; m; m &= m - 1) {
		int a = __builtin_ctzll(m);
		enum bstream_attr_type t = bstream_attr_type(a);
		size_t want = bstream_attr_type_size(t);

		if (want && c->attr[a].len != want)
			return fail(r, BSTREAM_E_ATTR_SIZE, true,
				    CMD_FMT "attribute %s: size %" PRIu32 ", expected %zu",
				    CMD_ARGS(r), bstream_attr_name(a),
				    c->attr[a].len, want);
		if (t == BSTREAM_T_STRING)
			strbytes += c->attr[a].len + 1;
	}
	ret = reserve_strings(r, strbytes);
	if (ret)
		return ret;
	s = r->strings;

	for (uint64_t m = present; m; m &= m - 1) {
		int a = __builtin_ctzll(m);
		const uint8_t *d = c->attr[a].data;
		uint32_t l = c->attr[a].len;

		switch (bstream_attr_type(a)) {
		case BSTREAM_T_STRING:
			memcpy(s, d, l);
			s[l] = 0;
			switch (a) {
			case BTRFS_SEND_A_PATH: c->path = s; break;
			case BTRFS_SEND_A_PATH_TO: c->path_to = s; break;
			case BTRFS_SEND_A_PATH_LINK: c->path_link = s; break;
			case BTRFS_SEND_A_CLONE_PATH: c->clone_path = s; break;
			case BTRFS_SEND_A_XATTR_NAME: c->xattr_name = s; break;
			}
			s += l + 1;
			break;
		case BSTREAM_T_U64: {
			uint64_t v = get_le64(d);

			switch (a) {
			case BTRFS_SEND_A_CTRANSID: c->ctransid = v; break;
			case BTRFS_SEND_A_INO: c->ino = v; break;
			case BTRFS_SEND_A_SIZE: c->size = v; break;
			case BTRFS_SEND_A_MODE: c->mode = v; break;
			case BTRFS_SEND_A_UID: c->uid = v; break;
			case BTRFS_SEND_A_GID: c->gid = v; break;
			case BTRFS_SEND_A_RDEV: c->rdev = v; break;
			case BTRFS_SEND_A_FILE_OFFSET: c->file_offset = v; break;
			case BTRFS_SEND_A_CLONE_CTRANSID: c->clone_ctransid = v; break;
			case BTRFS_SEND_A_CLONE_OFFSET: c->clone_offset = v; break;
			case BTRFS_SEND_A_CLONE_LEN: c->clone_len = v; break;
			case BTRFS_SEND_A_FILEATTR: c->fileattr = v; break;
			case BTRFS_SEND_A_UNENCODED_FILE_LEN: c->unencoded_file_len = v; break;
			case BTRFS_SEND_A_UNENCODED_LEN: c->unencoded_len = v; break;
			case BTRFS_SEND_A_UNENCODED_OFFSET: c->unencoded_offset = v; break;
			}
			break;
		}
		case BSTREAM_T_U32: {
			uint32_t v = get_le32(d);

			switch (a) {
			case BTRFS_SEND_A_FALLOCATE_MODE: c->fallocate_mode = v; break;
			case BTRFS_SEND_A_COMPRESSION: c->compression = v; break;
			case BTRFS_SEND_A_ENCRYPTION: c->encryption = v; break;
			case BTRFS_SEND_A_VERITY_BLOCK_SIZE: c->verity_block_size = v; break;
			}
			break;
		}
		case BSTREAM_T_U8:
			c->verity_algorithm = d[0];
			break;
		case BSTREAM_T_UUID:
			if (a == BTRFS_SEND_A_UUID)
				c->uuid = d;
			else
				c->clone_uuid = d;
			break;
		case BSTREAM_T_TIMESPEC:
			switch (a) {
			case BTRFS_SEND_A_ATIME: c->atime = get_ts(d); break;
			case BTRFS_SEND_A_MTIME: c->mtime = get_ts(d); break;
			case BTRFS_SEND_A_CTIME: c->ctime = get_ts(d); break;
			case BTRFS_SEND_A_OTIME: c->otime = get_ts(d); break;
			}
			break;
		case BSTREAM_T_BINARY:
			if (a == BTRFS_SEND_A_XATTR_DATA) {
				c->xattr_data = d;
				c->xattr_data_len = l;
			} else if (a == BTRFS_SEND_A_VERITY_SALT_DATA) {
				c->verity_salt = d;
				c->verity_salt_len = l;
			} else {
				c->verity_sig = d;
				c->verity_sig_len = l;
			}
			break;
		case BSTREAM_T_DATA:
			c->data = d;
			c->data_len = l;
			break;
		case BSTREAM_T_NONE:
			break;
		}
	}
	return 0;
}

static int check_cmd(struct bstream_reader *r)
{
	struct bstream_cmd *c = &r->cmd;
	uint64_t missing;
	char lbl[32];

	if (r->flags & BSTREAM_READ_STRICT_VERSION) {
		int cmax = btrfs_send_cmd_max(c->version);
		int amax = btrfs_send_attr_max(c->version);

		if (c->cmd > cmax)
			return fail(r, BSTREAM_E_CMD_VERSION, true,
				    CMD_FMT "command not defined in protocol version %" PRIu32,
				    CMD_ARGS(r), c->version);
		if (c->present >> (amax + 1))
			return fail(r, BSTREAM_E_CMD_VERSION, true,
				    CMD_FMT "attribute %s not defined in protocol version %" PRIu32,
				    CMD_ARGS(r),
				    bstream_attr_name(63 - __builtin_clzll(c->present)),
				    c->version);
	}
	if (!c->known)
		return 0;
	missing = bstream_cmd_required(c->cmd) & ~c->present;
	if (missing)
		return fail(r, BSTREAM_E_ATTR_MISSING, true,
			    CMD_FMT "attribute %s: missing",
			    CMD_ARGS(r), bstream_attr_name(__builtin_ctzll(missing)));
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Skipping data (bstream_reader_set_data_filter())                         */

/*
 * Find where the DATA bytes of the command at pos start, if DATA is its
 * last attribute, reading the attribute headers before it (their values
 * too, on the way).  Returns 1 with *tlv (the DATA attribute's offset in
 * the payload) and *at (its bytes'), 0 if the command has no DATA last or
 * is malformed or cut short (the usual path then reads it and says why),
 * or an error from reading.
 */
static int find_data(struct bstream_reader *r, uint32_t len, uint32_t *tlv,
		     uint32_t *at)
{
	uint32_t pos = 0;

	while (pos < len) {
		size_t want = len - pos < 4 ? len : pos + 4;
		ssize_t n = fill(r, BSTREAM_CMD_HDR_LEN + want);
		const uint8_t *p;
		uint16_t type, vlen;

		if (n < 0)
			return n;
		if ((size_t)n < BSTREAM_CMD_HDR_LEN + want || len - pos < 2)
			return 0;
		p = r->base + r->pos + BSTREAM_CMD_HDR_LEN;
		type = get_le16(p + pos);
		if (type == BTRFS_SEND_A_DATA && r->version >= 2) {
			*tlv = pos;
			*at = pos + 2;
			return 1;
		}
		if (type == 0 || type > BTRFS_SEND_A_MAX || len - pos < 4)
			return 0;
		vlen = get_le16(p + pos + 2);
		if (vlen > len - pos - 4)
			return 0;
		if (type == BTRFS_SEND_A_DATA) {
			*tlv = pos;
			*at = pos + 4;
			return pos + 4 + vlen == len;
		}
		pos += 4 + vlen;
	}
	return 0;
}

/*
 * Parse and check the attributes before DATA (tlv bytes of payload at
 * raw) and note DATA itself, without its bytes.  Returns 0, 1 if they
 * fail a check (the usual path reports it), or a fatal error.
 */
static int parse_prefix(struct bstream_reader *r, const uint8_t *raw,
			uint32_t tlv, uint32_t at)
{
	struct bstream_cmd *c = &r->cmd;
	int ret;

	c->raw = raw;
	ret = parse_tlvs(r, raw, tlv);
	if (!ret) {
		c->attr[BTRFS_SEND_A_DATA].data = NULL;
		c->attr[BTRFS_SEND_A_DATA].len = c->len - at;
		c->attr[BTRFS_SEND_A_DATA].pos = tlv;
		c->present |= UINT64_C(1) << BTRFS_SEND_A_DATA;
		ret = decode_attrs(r);
	}
	if (!ret)
		ret = check_cmd(r);
	if (ret && r->recoverable) {
		r->err = 0;
		r->msg[0] = 0;
		clear_cmd(c);
		return 1;
	}
	return ret;
}

/*
 * Ask for what comes after the command at off that is passed over (head:
 * the bytes read of it, up to its DATA), and size the read after the
 * seek: the rest of the page, and the next one too if the rest is short.
 * Where the next header is predicted, short means shorter than this
 * head, so that the read stays in the pages asked for; elsewhere, under
 * SPARSE_MIN_READ bytes.
 */
static void advise_passed(struct bstream_reader *r, uint64_t off, size_t total, size_t head)
{
	struct prefetch_range rg[PREFETCH_MAX_RANGES];
	size_t rest;

	advise(r, rg, prefetch_passed(&r->prefetch, off, total, head, rg));
	rest = SPARSE_PAGE - (size_t)((r->fd_start + off + total) % SPARSE_PAGE);
	if (rest < (r->prefetch.period ? head : SPARSE_MIN_READ))
		rest += SPARSE_PAGE;
	r->next_read = rest;
}

/*
 * Move past the command at pos (total bytes) without reading the rest of
 * it: within the buffer, or by seeking a regular file.  Returns 0, 1 if
 * the file is too short to hold it (the usual path reports the
 * truncation), or an error.
 */
static int pass_over(struct bstream_reader *r, size_t total, size_t head)
{
	uint64_t target = r->base_off + r->pos + total;
	struct stat st;

	if (total <= r->end - r->pos) {
		r->pos += total;
		return 0;
	}
	if (r->fd_start + target > r->reg_size) {
		/* The file may still be growing (a send writing to it). */
		if (!fstat(r->fd, &st))
			r->reg_size = st.st_size;
		if (r->fd_start + target > r->reg_size)
			return 1;
	}
	if (lseek(r->fd, r->fd_start + (off_t)target, SEEK_SET) == (off_t)-1)
		return fail(r, BSTREAM_E_IO, false, "cannot seek to offset %" PRIu64 ": %s",
			    target, strerror(errno));
	/* Nothing buffered is wanted any more; the next read lands at end. */
	r->base_off = target - r->end;
	r->pos = r->end;
	r->eof = false;
	advise_passed(r, target - total, total, head);
	return 0;
}

/*
 * With a data filter: read the command at pos up to its DATA, ask the
 * filter, and pass over the data if it declines.  Long data of a regular
 * file not yet in the buffer is not read; otherwise the command is read
 * whole (a pipe must be read anyway) and only its CRC is not computed.
 * Returns 1 with the command skipped, 0 to read it the usual way (wanted,
 * no DATA last, a failed check, cut short), or an error.
 */
static int try_skip(struct bstream_reader *r, uint32_t len)
{
	struct bstream_cmd *c = &r->cmd;
	size_t total = (size_t)len + BSTREAM_CMD_HDR_LEN;
	bool seek = r->regular && !r->mapped && !r->ra_running &&
		    len >= SKIP_SEEK_MIN && total > r->end - r->pos;
	uint32_t tlv = 0, at = 0;
	ssize_t n;
	int ret;

	if (!seek) {
		n = fill(r, total);
		if (n < 0)
			return n;
		if ((size_t)n < total)
			return 0;
	}
	ret = find_data(r, len, &tlv, &at);
	if (ret <= 0)
		return ret;
	ret = parse_prefix(r, r->base + r->pos + BSTREAM_CMD_HDR_LEN, tlv, at);
	if (ret)
		return ret < 0 ? ret : 0;
	c->data_offset = c->offset + BSTREAM_CMD_HDR_LEN + at;
	if (r->want(r->want_user, c)) {
		clear_cmd(c);
		return 0;
	}
	ret = pass_over(r, total, BSTREAM_CMD_HDR_LEN + at);
	if (ret) {
		clear_cmd(c);
		return ret < 0 ? ret : 0;
	}
	c->data_skipped = true;
	return 1;
}

int bstream_reader_set_data_filter(struct bstream_reader *r,
				   bstream_want_data_fn want, void *user)
{
	if (!r)
		return -BSTREAM_E_INVAL;
	r->want = want;
	r->want_user = user;
	return 0;
}

static int read_cmd(struct bstream_reader *r)
{
	static const uint8_t zero_crc[4];
	struct bstream_cmd *c = &r->cmd;
	uint64_t off = r->base_off + r->pos;
	const uint8_t *p;
	uint32_t len, crc;
	uint16_t cmd;
	ssize_t n;
	char lbl[32];
	int ret;

	n = fill(r, BSTREAM_CMD_HDR_LEN);
	if (n < 0)
		return n;
	if (n == 0)
		return fail(r, BSTREAM_E_NO_END, false,
			    "unexpected end of stream at offset %" PRIu64 " after command %" PRIu64 ": missing end command",
			    off, r->index);
	if (n < BSTREAM_CMD_HDR_LEN)
		return fail(r, BSTREAM_E_CMD_TRUNC, false,
			    "command %" PRIu64 " at offset %" PRIu64 ": header truncated, %zd of %d bytes",
			    r->index + 1, off, n, BSTREAM_CMD_HDR_LEN);
	p = r->base + r->pos;
	len = get_le32(p);
	cmd = get_le16(p + 4);
	crc = get_le32(p + 6);

	clear_cmd(c);
	c->cmd = cmd;
	c->known = cmd != BTRFS_SEND_C_UNSPEC && cmd <= BTRFS_SEND_C_MAX;
	c->len = len;
	c->crc = crc;
	c->version = r->version;
	c->offset = off;
	c->index = ++r->index;
	c->substream = r->substream - 1;

	if ((uint64_t)len + BSTREAM_CMD_HDR_LEN > r->max_cmd)
		return fail(r, BSTREAM_E_CMD_TOO_BIG, false,
			    CMD_FMT "length %" PRIu32 " exceeds the reader's limit of %zu bytes",
			    CMD_ARGS(r), len, r->max_cmd - BSTREAM_CMD_HDR_LEN);
	if (r->want) {
		ret = try_skip(r, len);
		if (ret)
			return ret;
	}
	n = fill(r, (size_t)len + BSTREAM_CMD_HDR_LEN);
	if (n < 0)
		return n;
	if ((size_t)n < (size_t)len + BSTREAM_CMD_HDR_LEN)
		return fail(r, BSTREAM_E_CMD_TRUNC, false,
			    CMD_FMT "length %" PRIu32 " runs past end of input (%zd bytes left)",
			    CMD_ARGS(r), len, n - BSTREAM_CMD_HDR_LEN);
	p = r->base + r->pos;
	r->pos += (size_t)len + BSTREAM_CMD_HDR_LEN;
	c->raw = p + BSTREAM_CMD_HDR_LEN;

	if (!(r->flags & BSTREAM_READ_NO_CRC)) {
		uint32_t calc = r->crc(0, p, 6);

		calc = r->crc(calc, zero_crc, 4);
		calc = crc_window(r, calc, r->pos - len, r->pos);
		if (calc != crc)
			return fail(r, BSTREAM_E_CRC, true,
				    CMD_FMT "crc mismatch: stored 0x%08" PRIx32 ", computed 0x%08" PRIx32,
				    CMD_ARGS(r), crc, calc);
	}
	ret = parse_tlvs(r, c->raw, len);
	if (ret)
		return ret;
	ret = decode_attrs(r);
	if (ret)
		return ret;
	ret = check_cmd(r);
	if (ret)
		return ret;
	if (c->data)
		c->data_offset = off + BSTREAM_CMD_HDR_LEN + (uint64_t)(c->data - c->raw);

	if (cmd == BTRFS_SEND_C_END) {
		if (r->flags & BSTREAM_READ_STOP_AT_END) {
			r->state = ST_DONE;
			/* Give back what was read beyond END. */
			if (r->mapped) {
				lseek(r->fd, r->map_start + r->base_off + r->pos, SEEK_SET);
			} else if (!r->mem && r->seekable) {
				ra_stop(r);
				lseek(r->fd, r->fd_start + r->base_off + r->pos, SEEK_SET);
			}
		} else {
			r->state = ST_HEADER;
		}
	}
	return 1;
}

int bstream_next(struct bstream_reader *r, const struct bstream_cmd **cmd)
{
	int ret;

	if (!r || !cmd)
		return -BSTREAM_E_INVAL;
	if (!r->have_input)
		return fail(r, BSTREAM_E_INVAL, false, "no input set");
	*cmd = NULL;
	for (;;) {
		switch (r->state) {
		case ST_HEADER:
			ret = read_header(r);
			if (ret <= 0)
				return ret;
			break;
		case ST_CMDS:
			r->err = 0;
			r->msg[0] = 0;
			ret = read_cmd(r);
			if (ret > 0)
				*cmd = &r->cmd;
			return ret;
		case ST_DONE:
			return 0;
		case ST_FAILED:
			return -r->err;
		}
	}
}

static const size_t cb_offset[BTRFS_SEND_C_MAX + 1] = {
#define CB(c, m) [BTRFS_SEND_C_##c] = offsetof(struct bstream_ops, m)
	CB(SUBVOL, subvol), CB(SNAPSHOT, snapshot), CB(MKFILE, mkfile),
	CB(MKDIR, mkdir), CB(MKNOD, mknod), CB(MKFIFO, mkfifo),
	CB(MKSOCK, mksock), CB(SYMLINK, symlink), CB(RENAME, rename),
	CB(LINK, link), CB(UNLINK, unlink), CB(RMDIR, rmdir),
	CB(SET_XATTR, set_xattr), CB(REMOVE_XATTR, remove_xattr),
	CB(WRITE, write), CB(CLONE, clone), CB(TRUNCATE, truncate),
	CB(CHMOD, chmod), CB(CHOWN, chown), CB(UTIMES, utimes), CB(END, end),
	CB(UPDATE_EXTENT, update_extent), CB(FALLOCATE, fallocate),
	CB(FILEATTR, fileattr), CB(ENCODED_WRITE, encoded_write),
	CB(ENABLE_VERITY, enable_verity),
#undef CB
};

int bstream_process(struct bstream_reader *r, const struct bstream_ops *ops,
		    void *user)
{
	unsigned int seen_sub = 0;
	const struct bstream_cmd *c;
	char lbl[32];
	int ret;

	if (!ops)
		return -BSTREAM_E_INVAL;
	for (;;) {
		bstream_cb cb;

		ret = bstream_next(r, &c);
		if (ret == 0)
			return 0;
		if (ret < 0) {
			if (r->recoverable && r->state != ST_FAILED &&
			    ops->error && ops->error(user, r->err, r) == 0)
				continue;
			return ret;
		}
		if (c->substream + 1 != seen_sub) {
			seen_sub = c->substream + 1;
			if (ops->header) {
				ret = ops->header(user, c->version, r->hdr_offset);
				if (ret > 0)
					return 0;
				if (ret < 0)
					return fail(r, BSTREAM_E_CALLBACK, false,
						    "stream header at offset %" PRIu64 ": consumer failed",
						    r->hdr_offset);
			}
		}
		if (c->known)
			cb = *(const bstream_cb *)((const char *)ops + cb_offset[c->cmd]);
		else
			cb = ops->unknown;
		if (!cb)
			continue;
		ret = cb(user, c);
		if (ret > 0)
			return 0;
		if (ret < 0)
			return fail(r, BSTREAM_E_CALLBACK, false,
				    CMD_FMT "consumer failed", CMD_ARGS(r));
	}
}
