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
 *
 * Prints "errno=NAME" and exits 0 on success, 1 on failure, 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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
	default: return strerror(e);
	}
}

static void on_alarm(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	struct btrfs_ioctl_send_args args;
	__u64 clones[64];
	const char *out = "/dev/null";
	int nclones = 0, compat = 0, closed_pipe = 0, rdonly = 0, blocked = 0;
	int alarm_secs = 0;
	long long claimed = -1;
	int opt, fd, outfd, ret;

	memset(&args, 0, sizeof(args));
	while ((opt = getopt(argc, argv, "o:PRBA:p:c:n:f:v:3")) != -1) {
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
		outfd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
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
	if (compat) {
		struct send_args_32 a32;

		memset(&a32, 0, sizeof(a32));
		a32.send_fd = args.send_fd;
		a32.clone_sources_count = args.clone_sources_count;
		a32.clone_sources = (uint32_t)(uintptr_t)args.clone_sources;
		a32.parent_root = args.parent_root;
		a32.flags = args.flags;
		a32.version = args.version;
		ret = ioctl(fd, BTRFS_IOC_SEND_32, &a32);
	} else {
		ret = ioctl(fd, BTRFS_IOC_SEND, &args);
	}
	printf("errno=%s\n", errname(ret < 0 ? errno : 0));
	return ret < 0 ? 1 : 0;
}
