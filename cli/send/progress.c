// SPDX-License-Identifier: GPL-2.0
/*
 * The live progress line of `btrfs-stream send` on stderr, while the
 * estimate pass still runs and then with its result:
 *
 *      20.31 MiB    40.62 MiB/s  0:00:00  (estimating: 8213 commands, ~310.02 MiB so far)
 *     612.40 MiB    41.25 MiB/s  0:00:14  ETA 0:00:11  58% of ~1.02 GiB
 *
 * and one summary line at the end.  A ticker thread redraws twice a second
 * from counters the copying thread bumps atomically, so drawing never slows
 * the data path.  On a terminal the line is redrawn in place with an ANSI
 * erase; elsewhere (--progress into a file) with a carriage return and
 * padding.  The stream itself never goes near stderr.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "send.h"

#define TICK_NS		500000000ull

struct progress {
	int fd;
	bool tty;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t ticker;
	bool ticking, stop, started;
	_Atomic uint64_t bytes;
	struct send_estimate *est;	/* the estimate pass, while it runs */
	uint64_t estimate;		/* its result, 0: none */
	uint64_t est_ns, start;
	size_t shown;		/* width of the line on screen, 0: none */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void progress_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f %s", v, unit[u]);
}

static void progress_fmt_duration(char *buf, size_t len, uint64_t s)
{
	snprintf(buf, len, "%llu:%02llu:%02llu", (unsigned long long)(s / 3600),
		 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
}

/* bytes, rate, elapsed time and, with an estimate, ETA and share done. */
static void progress_fmt_line(char *buf, size_t len, uint64_t bytes,
			      uint64_t elapsed_ns, uint64_t estimate)
{
	char b[32], r[32], t[32], eta[32], tot[32];
	double secs = elapsed_ns / 1e9;
	double rate = secs > 0 ? bytes / secs : 0;
	int n;

	progress_fmt_bytes(b, sizeof(b), bytes);
	progress_fmt_bytes(r, sizeof(r), (uint64_t)rate);
	progress_fmt_duration(t, sizeof(t), elapsed_ns / 1000000000ull);
	n = snprintf(buf, len, "%11s  %11s/s  %s", b, r, t);
	if (!estimate || n < 0 || (size_t)n >= len)
		return;
	progress_fmt_bytes(tot, sizeof(tot), estimate);
	if (bytes < estimate && rate > 0)
		progress_fmt_duration(eta, sizeof(eta),
				      (uint64_t)((estimate - bytes) / rate + 0.5));
	else
		snprintf(eta, sizeof(eta), bytes < estimate ? "-:--:--" : "0:00:00");
	snprintf(buf + n, len - n, "  ETA %s  %llu%% of ~%s", eta,
		 (unsigned long long)(bytes * 100 / estimate), tot);
}

/* Compose the current line; caller holds the lock. */
static void compose(struct progress *p, char *buf, size_t len)
{
	size_t n;
	char b[32];

	buf[0] = 0;
	if (!p->started)
		return;
	progress_fmt_line(buf, len, atomic_load(&p->bytes), now_ns() - p->start,
			  p->estimate);
	n = strlen(buf);
	if (!p->est || n >= len)
		return;
	progress_fmt_bytes(b, sizeof(b), atomic_load(&p->est->bytes));
	snprintf(buf + n, len - n, "  (estimating: %llu commands, ~%s so far)",
		 (unsigned long long)atomic_load(&p->est->commands), b);
}

static void put(struct progress *p, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(p->fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;		/* stderr is gone: nothing to report to */
		s += w;
		n -= w;
	}
}

/* Erase the live line, leaving the cursor at its start. */
static void clear_line(struct progress *p)
{
	char buf[400];
	size_t n;

	if (!p->shown)
		return;
	if (p->tty) {
		put(p, "\r\033[K", 4);
	} else {
		n = p->shown < sizeof(buf) - 2 ? p->shown : sizeof(buf) - 2;
		buf[0] = '\r';
		memset(buf + 1, ' ', n);
		buf[n + 1] = '\r';
		put(p, buf, n + 2);
	}
	p->shown = 0;
}

static void draw(struct progress *p)
{
	char line[320], buf[400];
	size_t n, pad = 0;

	compose(p, line, sizeof(line));
	if (!line[0])
		return;
	n = strlen(line);
	if (!p->tty && p->shown > n)
		pad = p->shown - n;
	snprintf(buf, sizeof(buf), "\r%s%*s%s", line, (int)pad, "",
		 p->tty ? "\033[K" : "");
	put(p, buf, strlen(buf));
	p->shown = n;
}

static void *tick(void *arg)
{
	struct progress *p = arg;
	struct timespec until;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		draw(p);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += TICK_NS;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &until);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct progress *progress_new(int fd, bool tty)
{
	struct progress *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->fd = fd;
	p->tty = tty;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	return p;
}

_Atomic uint64_t *progress_counter(struct progress *p)
{
	return &p->bytes;
}

/* Start the ticker once; caller holds the lock. */
static void start_ticker(struct progress *p)
{
	if (p->ticking)
		return;
	p->ticking = !pthread_create(&p->ticker, NULL, tick, p);
}

void progress_start(struct progress *p, struct send_estimate *est)
{
	pthread_mutex_lock(&p->lock);
	p->est = est;
	p->started = true;
	p->start = now_ns();
	draw(p);
	start_ticker(p);
	pthread_mutex_unlock(&p->lock);
}

void progress_estimated(struct progress *p, uint64_t total)
{
	pthread_mutex_lock(&p->lock);
	p->est = NULL;
	p->estimate = total;
	p->est_ns = now_ns() - p->start;
	draw(p);
	pthread_mutex_unlock(&p->lock);
}

void progress_message(struct progress *p, const char *fmt, ...)
{
	char buf[PATH_MAX + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	pthread_mutex_lock(&p->lock);
	clear_line(p);
	put(p, buf, n);
	draw(p);
	pthread_mutex_unlock(&p->lock);
}

void progress_finish(struct progress *p, bool ok)
{
	uint64_t bytes = atomic_load(&p->bytes), ns;
	char b[32], t[32], r[32], est[32], line[256];
	double secs;
	int n;

	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	if (p->ticking)
		pthread_join(p->ticker, NULL);
	p->ticking = false;

	ns = p->started ? now_ns() - p->start : 0;
	secs = ns / 1e9;
	progress_fmt_bytes(b, sizeof(b), bytes);
	progress_fmt_duration(t, sizeof(t), ns / 1000000000ull);
	progress_fmt_bytes(r, sizeof(r), secs > 0 ? (uint64_t)(bytes / secs) : bytes);
	n = snprintf(line, sizeof(line), "%s %s (%llu bytes) in %s, %s/s",
		     ok ? "sent" : "stopped after", b, (unsigned long long)bytes,
		     t, r);
	if (p->estimate && n > 0 && (size_t)n < sizeof(line)) {
		progress_fmt_bytes(est, sizeof(est), p->estimate);
		progress_fmt_duration(t, sizeof(t), (p->est_ns + 500000000ull) / 1000000000ull);
		n += snprintf(line + n, sizeof(line) - n,
			      "; estimated %s (%+.1f%%) in %s", est,
			      bytes ? ((double)p->estimate - bytes) * 100.0 / bytes : 0.0,
			      t);
	}
	if (n > 0 && (size_t)n < sizeof(line) - 1) {
		line[n++] = '\n';
		pthread_mutex_lock(&p->lock);
		clear_line(p);
		put(p, line, n);
		pthread_mutex_unlock(&p->lock);
	}
	p->started = false;
}

void progress_free(struct progress *p)
{
	if (!p)
		return;
	if (p->ticking) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->ticker, NULL);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	free(p);
}
