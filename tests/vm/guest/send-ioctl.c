// SPDX-License-Identifier: GPL-2.0
/*
 * send-ioctl: issue BTRFS_IOC_SEND with arguments btrfs-progs never
 * passes, to test the kernel's argument checks one by one.
 *
 * usage: send-ioctl [options] SUBVOL
 *   -o FILE       write the stream to FILE (default /dev/null)
 *   -P            write to a pipe whose reader is already closed
 *   -R            pass a read-only descriptor
 *   -p ID         parent root id
 *   -c ID         clone source root id (repeatable)
 *   -n COUNT      clone_sources_count to claim (with a NULL array)
 *   -f FLAGS      flags (number, any base)
 *   -v VERSION    version (sets BTRFS_SEND_FLAG_VERSION)
 *   -3            use the 32-bit compat layout (BTRFS_IOC_SEND_32)
 *   -B            write to a pipe that is never read (the send blocks)
 *   -A SECONDS    interrupt the ioctl with a handled SIGALRM after SECONDS
 *   -F FIRST-LAST systematic allocation failure: for N = FIRST..LAST, send
 *                 again (output truncated) with the Nth slab or page
 *                 allocation of this task inside the ioctl failing
 *                 (/proc/self/task/TID/fail-nth); stop after the first run
 *                 that ended before reaching its Nth allocation.  Each run
 *                 prints "nth N hit|miss errno=NAME bytes=SIZE[ same|
 *                 differs]" (a miss adds " allocations=COUNT", how many
 *                 the send made) and is announced in the kernel log as
 *                 "send-ioctl: nth N" (to attribute what the kernel logs)
 *   -r K,O,M      resume point in the reserved bytes (index, offset,
 *                 metadata checksum; BTRFS_SEND_FLAG_RESUME is -f 0x20)
 *   -X            a nonzero reserved byte (its last)
 *   -C FILE       with -F: compare the stream of every run that succeeded
 *                 with FILE (an allocation with a fallback must not change
 *                 a byte)
 *
 * Prints "errno=NAME" and exits 0 on success, 1 on failure, 2 on usage;
 * with -F, exits 0 when the last run missed its Nth allocation (every
 * allocation of the send was failed once) and no successful run differed,
 * 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/btrfs.h>

struct send_args_32 {
	int64_t send_fd;
	uint64_t clone_sources_count;
	uint32_t clone_sources;
	uint64_t parent_root;
	uint64_t flags;
	uint32_t version;
	uint8_t reserved[28];
} __attribute__((__packed__));

#define BTRFS_IOC_SEND_32 _IOW(BTRFS_IOCTL_MAGIC, 38, struct send_args_32)

static const char *errname(int e)
{
	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	case EEXIST: return "EEXIST";
	case ENOSPC: return "ENOSPC";
	case EROFS: return "EROFS";
	case EOVERFLOW: return "EOVERFLOW";
	case EUCLEAN: return "EUCLEAN";
	case EINTR: return "EINTR";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case EPIPE: return "EPIPE";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPROTO: return "EPROTO";
	case ENOTTY: return "ENOTTY";
	case ESTALE: return "ESTALE";
	default: return strerror(e);
	}
}

static void on_alarm(int sig)
{
	(void)sig;
}

static int do_send(int fd, struct btrfs_ioctl_send_args *args, int compat)
{
	struct send_args_32 a32;

	if (!compat)
		return ioctl(fd, BTRFS_IOC_SEND, args);
	memset(&a32, 0, sizeof(a32));
	a32.send_fd = args->send_fd;
	a32.clone_sources_count = args->clone_sources_count;
	a32.clone_sources = (uint32_t)(uintptr_t)args->clone_sources;
	a32.parent_root = args->parent_root;
	a32.flags = args->flags;
	a32.version = args->version;
	return ioctl(fd, BTRFS_IOC_SEND_32, &a32);
}

/* Same bytes as REF?  Both are small test streams, read whole. */
static int same_as(int outfd, const char *ref)
{
	char a[65536], b[65536];
	FILE *r = fopen(ref, "rb");
	off_t off = 0;
	ssize_t na;
	size_t nb;
	int same = 1;

	if (!r)
		return 0;
	for (;;) {
		na = pread(outfd, a, sizeof(a), off);
		nb = fread(b, 1, sizeof(b), r);
		if (na < 0 || (size_t)na != nb || memcmp(a, b, nb)) {
			same = 0;
			break;
		}
		if (na == 0)
			break;
		off += na;
	}
	fclose(r);
	return same;
}

static int write_str(int fd, const char *s)
{
	return pwrite(fd, s, strlen(s), 0) == (ssize_t)strlen(s) ? 0 : -1;
}

/*
 * Run the send once per N in [first, last] with the Nth allocation failing.
 * fail-nth counts down on every slab and page allocation the task makes
 * while it is set, and reads 0 once it has fired; a positive value after
 * the ioctl means the send made fewer than N allocations.
 */
static int fail_nth_runs(int fd, struct btrfs_ioctl_send_args *args, int compat,
			 unsigned long first, unsigned long last, const char *ref)
{
	char path[64], buf[32], msg[64];
	int nth, kmsg, bad = 0, missed = 0;
	unsigned long n;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth", (long)syscall(SYS_gettid));
	nth = open(path, O_RDWR);
	kmsg = open("/dev/kmsg", O_WRONLY);
	if (nth < 0 || kmsg < 0) {
		perror("fail-nth or /dev/kmsg");
		return 2;
	}
	for (n = first; n <= last && !missed; n++) {
		unsigned long left;
		ssize_t len;
		int ret, err;
		off_t size;

		if (ftruncate(args->send_fd, 0) || lseek(args->send_fd, 0, SEEK_SET)) {
			perror("truncate the output");
			return 2;
		}
		snprintf(msg, sizeof(msg), "send-ioctl: nth %lu\n", n);
		write(kmsg, msg, strlen(msg));
		snprintf(buf, sizeof(buf), "%lu", n);
		if (write_str(nth, buf)) {
			perror(path);
			return 2;
		}
		ret = do_send(fd, args, compat);
		err = ret < 0 ? errno : 0;
		len = pread(nth, buf, sizeof(buf) - 1, 0);
		write_str(nth, "0");
		if (len <= 0) {
			perror(path);
			return 2;
		}
		buf[len] = 0;
		left = strtoul(buf, NULL, 10);
		missed = left != 0;
		size = lseek(args->send_fd, 0, SEEK_END);
		printf("nth %lu %s errno=%s bytes=%lld", n, missed ? "miss" : "hit",
		       errname(err), (long long)size);
		/* A miss tells how many allocations the send made: n - left. */
		if (missed)
			printf(" allocations=%lu", n - left);
		if (!err && ref) {
			int same = same_as(args->send_fd, ref);

			printf(" %s", same ? "same" : "differs");
			bad |= !same;
		}
		printf("\n");
		fflush(stdout);
	}
	close(kmsg);
	close(nth);
	return bad || !missed;
}

int main(int argc, char **argv)
{
	struct btrfs_ioctl_send_args args;
	__u64 clones[64];
	const char *out = "/dev/null";
	int nclones = 0, compat = 0, closed_pipe = 0, rdonly = 0, blocked = 0;
	int alarm_secs = 0;
	unsigned long nth_first = 0, nth_last = 0;
	const char *ref = NULL;
	long long claimed = -1;
	int opt, fd, outfd, ret;

	memset(&args, 0, sizeof(args));
	while ((opt = getopt(argc, argv, "o:PRBA:p:c:n:f:v:3F:C:r:X")) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'P': closed_pipe = 1; break;
		case 'R': rdonly = 1; break;
		case 'p': args.parent_root = strtoull(optarg, NULL, 0); break;
		case 'c':
			if (nclones < 64)
				clones[nclones++] = strtoull(optarg, NULL, 0);
			break;
		case 'n': claimed = strtoll(optarg, NULL, 0); break;
		case 'f': args.flags |= strtoull(optarg, NULL, 0); break;
		case 'v':
			args.flags |= BTRFS_SEND_FLAG_VERSION;
			args.version = strtoul(optarg, NULL, 0);
			break;
		case '3': compat = 1; break;
		case 'B': blocked = 1; break;
		case 'A': alarm_secs = atoi(optarg); break;
		case 'F':
			if (sscanf(optarg, "%lu-%lu", &nth_first, &nth_last) != 2 ||
			    !nth_first || nth_last < nth_first)
				return 2;
			break;
		case 'C': ref = optarg; break;
		case 'r': {
			/* struct btrfs_send_resume_point, native byte order */
			char *p = optarg;
			uint64_t k = strtoull(p, &p, 0), o = 0;
			uint32_t m = 0;

			if (*p == ',')
				o = strtoull(p + 1, &p, 0);
			if (*p == ',')
				m = (uint32_t)strtoull(p + 1, &p, 0);
			if (*p)
				return 2;
			memcpy(args.reserved, &k, 8);
			memcpy(args.reserved + 8, &o, 8);
			memcpy(args.reserved + 16, &m, 4);
			break;
		}
		case 'X': args.reserved[27] = 1; break;
		default: return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: send-ioctl [options] SUBVOL\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		perror(argv[optind]);
		return 2;
	}
	if (blocked) {
		int p[2];

		if (pipe(p))
			return 2;
		outfd = p[1];
	} else if (closed_pipe) {
		int p[2];

		signal(SIGPIPE, SIG_IGN);
		if (pipe(p))
			return 2;
		close(p[0]);
		outfd = p[1];
	} else if (rdonly) {
		outfd = open("/dev/null", O_RDONLY);
	} else {
		outfd = open(out, (nth_first ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC, 0600);
	}
	if (outfd < 0) {
		perror(out);
		return 2;
	}
	args.send_fd = outfd;
	args.clone_sources = nclones ? clones : NULL;
	args.clone_sources_count = claimed >= 0 ? (uint64_t)claimed : nclones;

	if (alarm_secs) {
		struct sigaction sa;

		/* A handled signal without SA_RESTART: the ioctl sees it. */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sigaction(SIGALRM, &sa, NULL);
		alarm(alarm_secs);
	}
	if (nth_first)
		return fail_nth_runs(fd, &args, compat, nth_first, nth_last, ref);
	ret = do_send(fd, &args, compat);
	printf("errno=%s\n", errname(ret < 0 ? errno : 0));
	return ret < 0 ? 1 : 0;
}
