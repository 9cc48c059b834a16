// SPDX-License-Identifier: GPL-2.0
/*
 * A second thread for the work done through a file's open descriptor.
 *
 * Most of a stream is, per file: create it, move it into place, write its
 * data, chown, chmod, set its times, close it.  The first two change the
 * namespace and stay in the main thread (with parsing and everything else);
 * the rest only needs the descriptor, so the main thread queues it here
 * and goes on with the next file while this thread does the writing.
 * Both halves are kernel work on different inodes and run in parallel.
 *
 * Order is kept per descriptor (one FIFO, one worker), descriptors are
 * closed by the worker after their last job, and the main thread drains
 * the queue before anything that depends on those jobs having happened:
 * a clone (the source's data), any other use of a queued descriptor, an
 * operation on a file by path, the end of the subvolume.  Errors are
 * recorded with the command they belong to and reported by the main
 * thread, which then stops or goes on as -E says.
 *
 * Jobs cross between the threads in batches: the main thread collects a
 * few dozen before handing them over in one locked step, and the worker
 * takes everything queued at once.  Handing over each job alone cost a
 * lock round trip and usually a wake-up of an idle worker per job, about
 * six futex calls per received file on a tree of small files.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "receive.h"

#define QUEUE_BYTES (32u << 20)	/* data queued before the main thread waits */
#define BATCH_JOBS 64		/* jobs collected before they are handed over */
#define BATCH_BYTES (1u << 20)	/* or this much of their data */
#define FREED_BYTES (4u << 20)	/* data the worker has done with before it says so */

struct job {
	struct job *next;
	uint16_t cmd;
	uint64_t index, offset;
	char *path;			/* for messages */
	struct fdop op;			/* xname and data point into the job */
	char *xname;
	uint8_t data[];
};

struct job_err {
	struct job_err *next;
	uint16_t cmd;
	uint64_t index, offset;
	char *path;
	int err;
	char what[160];
};

struct jobs {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more;		/* worker: a job or stop */
	pthread_cond_t room;		/* main: room in the queue, or idle */
	struct job *head, *tail;
	size_t bytes;
	bool busy;			/* the worker is running jobs */
	bool stop;
	struct job_err *errs, **errs_tail;
	/* The main thread's batch, not yet handed over (no lock). */
	struct job *batch_head, *batch_tail;
	unsigned int batch_jobs;
	size_t batch_bytes;
};

static void record(struct jobs *q, const struct job *j, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void record(struct jobs *q, const struct job *j, int err, const char *fmt, ...)
{
	struct job_err *e = calloc(1, sizeof(*e));
	va_list ap;

	if (!e)
		return;
	e->cmd = j->cmd;
	e->index = j->index;
	e->offset = j->offset;
	e->path = j->path ? strdup(j->path) : NULL;
	e->err = err;
	va_start(ap, fmt);
	vsnprintf(e->what, sizeof(e->what), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&q->lock);
	*q->errs_tail = e;
	q->errs_tail = &e->next;
	pthread_mutex_unlock(&q->lock);
}

static void run(struct jobs *q, struct job *j)
{
	char why[160];
	int err = fdop_run(&j->op, why, sizeof(why));

	if (err)
		record(q, j, err, "%s", why);
}

/* Give back queue room for data the worker has written (lock held). */
static void freed(struct jobs *q, size_t bytes)
{
	q->bytes -= bytes;
	pthread_cond_signal(&q->room);
}

/*
 * Run the jobs taken from the queue, in order.  Their data's room is given
 * back every FREED_BYTES, so that a main thread waiting to queue more
 * large writes goes on while the rest of the batch is written.
 */
static void run_batch(struct jobs *q, struct job *j)
{
	size_t done = 0;

	while (j) {
		struct job *next = j->next;

		run(q, j);
		done += j->op.len;
		free(j->path);
		free(j->xname);
		free(j);
		j = next;
		if (done >= FREED_BYTES && j) {
			pthread_mutex_lock(&q->lock);
			freed(q, done);
			pthread_mutex_unlock(&q->lock);
			done = 0;
		}
	}
	pthread_mutex_lock(&q->lock);
	freed(q, done);
	q->busy = false;
	pthread_mutex_unlock(&q->lock);
}

static void *worker(void *arg)
{
	struct jobs *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct job *batch;

		while (!q->head && !q->stop)
			pthread_cond_wait(&q->more, &q->lock);
		if (!q->head)
			break;
		batch = q->head;
		q->head = q->tail = NULL;
		q->busy = true;
		pthread_mutex_unlock(&q->lock);
		run_batch(q, batch);
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int recv_jobs_start(struct recv *r)
{
	struct jobs *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->room, NULL);
	q->errs_tail = &q->errs;
	/*
	 * Jobs carry WRITE data (128 KiB each from a v2 stream) allocated
	 * here and freed by the worker.  With glibc's default thresholds
	 * such blocks are mmap'ed, or the heap is trimmed and grown again,
	 * so every copy into a job faults its pages in: measured 150,000
	 * faults and about 1.5x the CPU time per GiB received
	 * (docs/data-path.md).  Keep them in a heap the size of the queue.
	 */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 2 * QUEUE_BYTES);
	if (pthread_create(&q->thread, NULL, worker, q)) {
		free(q);
		return -EAGAIN;
	}
	r->jobs = q;
	return 0;
}

/* Hand the main thread's batch to the worker in one locked step. */
static void hand_over(struct jobs *q)
{
	if (!q->batch_head)
		return;
	pthread_mutex_lock(&q->lock);
	while (q->bytes && q->bytes + q->batch_bytes > QUEUE_BYTES)
		pthread_cond_wait(&q->room, &q->lock);
	q->bytes += q->batch_bytes;
	if (q->tail)
		q->tail->next = q->batch_head;
	else
		q->head = q->batch_head;
	q->tail = q->batch_tail;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	q->batch_head = q->batch_tail = NULL;
	q->batch_jobs = 0;
	q->batch_bytes = 0;
}

/* Wait until every queued job has run (main thread). */
static void wait_idle(struct jobs *q)
{
	hand_over(q);
	pthread_mutex_lock(&q->lock);
	while (q->head || q->busy)
		pthread_cond_wait(&q->room, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

void recv_jobs_stop(struct recv *r)
{
	struct jobs *q = r->jobs;

	if (!q)
		return;
	hand_over(q);
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	recv_jobs_report(r);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->more);
	pthread_cond_destroy(&q->room);
	free(q);
	r->jobs = NULL;
}

int recv_jobs_report(struct recv *r)
{
	struct jobs *q = r->jobs;
	struct job_err *e;
	int ret = 0;

	if (!q)
		return 0;
	pthread_mutex_lock(&q->lock);
	e = q->errs;
	q->errs = NULL;
	q->errs_tail = &q->errs;
	pthread_mutex_unlock(&q->lock);
	while (e) {
		struct job_err *next = e->next;

		if (recv_fail_at(r, e->cmd, e->index, e->offset, e->path, e->err, "%s", e->what) < 0)
			ret = -1;
		free(e->path);
		free(e);
		e = next;
	}
	return ret;
}

int recv_jobs_drain(struct recv *r)
{
	if (!r->jobs)
		return 0;
	wait_idle(r->jobs);
	return recv_jobs_report(r);
}

/* A job for op on behalf of command c (NULL: none), owning copies of its data. */
static struct job *job_new(const struct bstream_cmd *c, const struct fdop *op)
{
	struct job *j = malloc(sizeof(*j) + op->len);

	if (!j)
		return NULL;
	memset(j, 0, sizeof(*j));
	j->op = *op;
	if (op->len)
		memcpy(j->data, op->data, op->len);
	j->op.data = j->data;
	if (op->xname) {
		j->xname = strdup(op->xname);
		j->op.xname = j->xname;
	}
	if (c) {
		j->cmd = c->cmd;
		j->index = c->index;
		j->offset = c->offset;
		j->path = c->path ? strdup(c->path) : NULL;
	}
	if ((op->xname && !j->xname) || (c && c->path && !j->path)) {
		free(j->xname);
		free(j->path);
		free(j);
		return NULL;
	}
	return j;
}

/* Add j to the main thread's batch; hand the batch over once it is full. */
static void push(struct jobs *q, struct job *j)
{
	if (q->batch_tail)
		q->batch_tail->next = j;
	else
		q->batch_head = j;
	q->batch_tail = j;
	q->batch_bytes += j->op.len;
	if (++q->batch_jobs >= BATCH_JOBS || q->batch_bytes >= BATCH_BYTES)
		hand_over(q);
}

bool recv_job_queue(struct recv *r, const struct bstream_cmd *c,
		    const struct fdop *op)
{
	struct job *j;

	if (!r->jobs || !(j = job_new(c, op)))
		return false;
	push(r->jobs, j);
	return true;
}

/* fcache's close hook: a descriptor may still have jobs, close it after them. */
void recv_jobs_close(void *user, int fd)
{
	struct recv *r = user;
	struct fdop op = { .type = FDOP_CLOSE, .fd = fd };

	if (recv_job_queue(r, NULL, &op))
		return;
	recv_jobs_drain(r);
	close(fd);
}
