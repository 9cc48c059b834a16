// SPDX-License-Identifier: GPL-2.0
/*
 * treecmp: prove that two directory trees are equal, in the spirit of
 * fstests' fssum.  Used by the VM tests to check a received snapshot
 * against its source.  This file only parses the command line; the walk
 * is in treecmp-walk.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "treecmp.h"

static const char usage_text[] =
	"usage: treecmp [options] DIR1 DIR2\n"
	"   or: treecmp --digest [--list] [options] DIR\n"
	"\n"
	"Compare two directory trees and print one line per difference,\n"
	"\"PATH: FIELD: VALUE1 != VALUE2\", or print one SHA-256 digest line\n"
	"of a tree: two trees compare equal iff their digests are equal.\n"
	"Exit status: 0 equal, 1 different, 2 usage or I/O error.\n"
	"\n"
	"Options:\n"
	"  -i, --ignore FIELD[,FIELD...]  do not compare these fields (may be\n"
	"                                 repeated); \"times\" means mtime,atime\n"
	"  -d, --digest                   print the digest of DIR\n"
	"  -l, --list                     with --digest, first print one line per\n"
	"                                 entry with its field values; the digest\n"
	"                                 is the SHA-256 of exactly these lines\n"
	"  -q, --quiet                    print no differences, stop at the first\n"
	"  -h, --help                     show this help\n"
	"\n"
	"Fields (ctime and inode numbers are never compared):\n";

static void usage(FILE *f)
{
	int i;

	fputs(usage_text, f);
	for (i = 0; i < TC_NR_FIELDS; i++)
		fprintf(f, "  %-8s  %s\n", tc_fields[i].name, tc_fields[i].help);
}

/* Print "treecmp: MESSAGE" unless @msg is NULL, then a hint; exit 2. */
static void __attribute__((noreturn)) bad_usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "treecmp: %s\n", msg);
	fputs("Try 'treecmp --help' for more information.\n", stderr);
	exit(2);
}

/* Deep trees keep one descriptor open per level and tree. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ignore", required_argument, NULL, 'i' },
		{ "digest", no_argument, NULL, 'd' },
		{ "list", no_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tc_opts o = { 0 };
	bool digest = false;
	const char *bad;
	size_t badlen;
	int c;

	while ((c = getopt_long(argc, argv, "i:dlqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (tc_parse_fields(optarg, &o.ignore, &bad, &badlen)) {
				fprintf(stderr, "treecmp: unknown field '%.*s'\n",
					(int)badlen, bad);
				bad_usage(NULL);
			}
			break;
		case 'd':
			digest = true;
			break;
		case 'l':
			digest = true;
			o.list = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return fflush(stdout) ? 2 : 0;
		default:
			bad_usage(NULL);
		}
	}
	if (argc - optind != (digest ? 1 : 2))
		bad_usage(digest ? "--digest takes one directory" :
				   "need two directories to compare");
	raise_fd_limit();
	if (digest)
		return tc_digest(argv[optind], &o);
	return tc_compare(argv[optind], argv[optind + 1], &o);
}
