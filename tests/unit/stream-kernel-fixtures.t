#!/bin/bash
# The streams Debian's kernel sent (tests/fixtures/streams/kernel-*.stream,
# made by tests/fixtures/make-kernel-streams.sh) through the library:
#
#  - writer round trip: every command read and written again gives the
#    original bytes, whether the reader takes the stream from a file with
#    read(2), through mmap, from memory, or from a pipe fed in odd-sized
#    pieces (ASan/UBSan build);
#  - the set covers what issue 3 asks of it: v1 and v2, full and
#    incremental, compressed data, no-data, clones, several subvolumes,
#    every file type, xattrs and ACLs set and removed, hard links, renames,
#    truncation and hole punching.
#
# stream-dump.t compares their dumps with the committed .dump files and with
# btrfs receive --dump.
set -u
. "$(dirname "$0")/tap.sh"
fixtures=$root/tests/fixtures/streams
dump=$B/bin/btrfs-stream

# The round-trip driver: reads IN (MODE fd, mmap, mem or stdin) and writes
# every command again, with a stream header wherever the input had one.
cat > "$tmp/rt.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <btrfs-stream/stream.h>

int main(int argc, char **argv)
{
	struct bstream_reader_opts o = { 0 };
	struct bstream_reader *r;
	struct bstream_writer *w = bstream_writer_new();
	const struct bstream_cmd *c;
	const char *mode = argv[1];
	int in = STDIN_FILENO, out, ret;
	unsigned int substream = ~0u;
	struct stat st;
	void *map;

	if (argc != 4)
		return 2;
	if (!strcmp(mode, "mmap"))
		o.flags |= BSTREAM_READ_MMAP;
	if (strcmp(mode, "stdin") && (in = open(argv[2], O_RDONLY)) < 0)
		return perror(argv[2]), 1;
	out = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	r = bstream_reader_new(&o);
	if (out < 0 || !r || !w)
		return 1;
	bstream_writer_set_fd(w, out);
	if (!strcmp(mode, "mem")) {
		if (fstat(in, &st))
			return 1;
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, in, 0);
		if (map == MAP_FAILED)
			return 1;
		bstream_reader_set_mem(r, map, st.st_size);
	} else {
		bstream_reader_set_fd(r, in);
	}
	while ((ret = bstream_next(r, &c)) > 0) {
		if (c->substream != substream) {
			substream = c->substream;
			if (bstream_write_header(w, c->version) < 0)
				break;
		}
		if (bstream_write_cmd(w, c) < 0)
			break;
	}
	if (ret < 0) {
		fprintf(stderr, "read: %s\n", bstream_reader_errmsg(r));
		return 1;
	}
	if (bstream_writer_errcode(w)) {
		fprintf(stderr, "write: %s\n", bstream_writer_errmsg(w));
		return 1;
	}
	bstream_reader_free(r);
	bstream_writer_free(w);
	return close(out) ? 1 : 0;
}
C
if ${CC:-cc} -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I"$root/lib/include" -o "$tmp/rt" "$tmp/rt.c" "$B/asan/lib/libbtrfs-stream.a" 2> "$tmp/cc.err"; then
	ok "round-trip driver builds against the ASan library"
else
	not_ok "round-trip driver does not build"
	sed 's/^/# /' "$tmp/cc.err"
	finish
fi

# feed FILE: copy FILE to stdout in pieces of 1 to 997 bytes.
feed() {
	python3 - "$1" <<'PY'
import os, sys
data = open(sys.argv[1], 'rb').read()
pos, step = 0, 1
while pos < len(data):
    os.write(1, data[pos:pos + step])
    pos += step
    step = step * 7 % 997 + 1
PY
}

streams=("$fixtures"/kernel-*.stream)
if [ ! -e "${streams[0]}" ]; then
	not_ok "no kernel-*.stream fixtures"
	finish
fi
for s in "${streams[@]}"; do
	name=$(basename "$s" .stream)
	for mode in fd mmap mem stdin; do
		if [ $mode = stdin ]; then
			feed "$s" | "$tmp/rt" stdin - "$tmp/out" 2> "$tmp/err"
			rc=${PIPESTATUS[1]}
		else
			"$tmp/rt" $mode "$s" "$tmp/out" 2> "$tmp/err"
			rc=$?
		fi
		if [ $rc -ne 0 ]; then
			not_ok "$name: round trip ($mode) failed, status $rc"
			sed 's/^/# /' "$tmp/err" | head -20
		elif cmp -s "$s" "$tmp/out"; then
			ok "$name: read ($mode) and written again, identical bytes"
		else
			not_ok "$name: round trip ($mode) changed the bytes"
			cmp "$s" "$tmp/out" | sed 's/^/# /'
		fi
	done
done

# What the set as a whole must contain.  facts lists, per stream, its
# header versions and "cmd attr=value" for the attributes that matter here.
for s in "${streams[@]}"; do
	"$dump" dump --json -f "$s" || echo "dump-failed $s"
done > "$tmp/json"
python3 - "$tmp/json" > "$tmp/facts" <<'PY'
import json, sys
here = ()
for line in open(sys.argv[1]):
    if line.startswith('dump-failed'):
        print(line.strip())
        continue
    o = json.loads(line)
    cmd = o['cmd']
    if cmd == 'header':
        print('header v%d' % o['version'])
        continue
    print(cmd)
    if 'mode' in o and cmd.startswith('mk'):
        print('%s type=%o' % (cmd, o['mode'] & 0o170000))
    if 'xattr_name' in o:
        print('%s %s' % (cmd, o['xattr_name']))
    if cmd == 'fallocate':
        print('fallocate mode=%d' % o['fallocate_mode'])
    if cmd == 'encoded_write':
        print('encoded_write compression=%d' % o.get('compression', 0))
        if o.get('unencoded_offset', 0):
            print('encoded_write unencoded_offset')
    if cmd in ('subvol', 'snapshot'):
        here = (o['uuid'], o.get('clone_uuid'))
    if cmd == 'clone' and o['clone_uuid'] not in here:
        print('clone from another subvolume')
PY
has() { grep -qxF -- "$1" "$tmp/facts"; }
check "every fixture dumps as JSON" sh -c "! grep -q '^dump-failed' '$tmp/facts'"
for fact in "header v1" "header v2" subvol snapshot \
	"mkfile" "mkdir" "mknod type=20000" "mknod type=60000" "mkfifo" "mksock" \
	symlink link unlink rmdir rename truncate chmod chown utimes write clone \
	update_extent "fallocate mode=3" \
	"encoded_write compression=1" "encoded_write compression=2" \
	"encoded_write unencoded_offset" \
	"set_xattr user.one" "set_xattr system.posix_acl_access" \
	"set_xattr system.posix_acl_default" "remove_xattr user.remove" \
	"remove_xattr system.posix_acl_default"; do
	check "the kernel fixtures contain: $fact" has "$fact"
done
# A clone from an extra clone source (-c): its clone_uuid is neither the
# subvolume being sent nor its parent.
check "the kernel fixtures contain: clone from another subvolume (-c)" \
	has "clone from another subvolume"
nheaders=$(grep -c '^{"cmd":"header"' < <("$dump" dump --json -f "$fixtures/kernel-multi-v1.stream"))
check "kernel-multi-v1: two substreams (btrfs send A B)" test "$nheaders" -eq 2
nsub=$(grep -c '"cmd":"subvol"' < <("$dump" dump --json -f "$fixtures/kernel-multi-e-v2.stream"))
nheaders=$(grep -c '^{"cmd":"header"' < <("$dump" dump --json -f "$fixtures/kernel-multi-e-v2.stream"))
check "kernel-multi-e-v2: one header, two subvolumes (btrfs send -e A B)" \
	test "$nheaders.$nsub" = 1.2
finish
