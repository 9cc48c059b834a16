#!/bin/bash
# The reader's read-ahead threads (lib/src/reader.c), under ASan/UBSan: a
# file read by the threads must give exactly what the same bytes read from
# memory (no threads) give: the same commands re-encoded byte for
# byte, the same errors with the same messages (CRC mismatches with the
# same computed CRC, so the merged block CRCs are right), the same offsets;
# with -e the file offset is left right after the first END.  Pipes are
# read without threads; they are checked the same way.
#
# The streams mix commands around the CRC block size (12 KiB), typical
# 128 KiB WRITEs, commands longer than a slot's headroom (256 KiB) and than
# a whole slot, and are read with buffers (slot sizes) of 64 KiB, 100000
# bytes (not a multiple of the block size) and the default 1 MiB.  A
# mutation of the block CRC merge or of the slot hand-over fails it.
set -u
. "$(dirname "$0")/tap.sh"
dump=$B/bin/btrfs-stream

# rd MODE BUF_SIZE E IN OUT LOG: read IN (MODE file, stdin or mem; E is
# "e" for BSTREAM_READ_STOP_AT_END or "-"), re-encode every good command to
# OUT, log every error and how reading ended to LOG, and the most threads
# the process had while reading to LOG.threads.
cat > "$tmp/rd.c" <<'C'
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <btrfs-stream/stream.h>

static int threads(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	struct bstream_reader_opts o = { 0 };
	struct bstream_writer *w = bstream_writer_new();
	struct bstream_reader *r;
	const struct bstream_cmd *c;
	unsigned int substream = ~0u;
	int in = STDIN_FILENO, out, ret, most = 0;
	uint64_t count = 0;
	FILE *log, *tlog;
	char tname[4096];

	if (argc != 7)
		return 2;
	o.buf_size = strtoul(argv[2], NULL, 0);
	if (!strcmp(argv[3], "e"))
		o.flags |= BSTREAM_READ_STOP_AT_END;
	if (strcmp(argv[1], "stdin") && (in = open(argv[4], O_RDONLY)) < 0)
		return 2;
	out = open(argv[5], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	log = fopen(argv[6], "w");
	snprintf(tname, sizeof(tname), "%s.threads", argv[6]);
	tlog = fopen(tname, "w");
	r = bstream_reader_new(&o);
	if (out < 0 || !log || !tlog || !r || !w)
		return 2;
	bstream_writer_set_fd(w, out);
	if (!strcmp(argv[1], "mem")) {
		struct stat st;
		void *map;

		if (fstat(in, &st))
			return 2;
		map = mmap(NULL, st.st_size ? st.st_size : 1, PROT_READ, MAP_PRIVATE, in, 0);
		if (map == MAP_FAILED)
			return 2;
		bstream_reader_set_mem(r, map, st.st_size);
	} else {
		bstream_reader_set_fd(r, in);
	}
	for (;;) {
		ret = bstream_next(r, &c);
		if (++count % 16 == 0 && threads() > most)
			most = threads();
		if (ret == 0)
			break;
		if (ret < 0) {
			fprintf(log, "error %d at %" PRIu64 ": %s\n", -ret,
				bstream_reader_offset(r), bstream_reader_errmsg(r));
			/* Command-level errors: go on after the command (-E 0). */
			if (-ret == BSTREAM_E_CRC ||
			    (-ret >= BSTREAM_E_TLV_TRUNC && -ret <= BSTREAM_E_CMD_VERSION))
				continue;
			break;
		}
		if (c->substream != substream) {
			substream = c->substream;
			bstream_write_header(w, c->version);
		}
		if (bstream_write_cmd(w, c) < 0)
			return 3;
	}
	fprintf(log, "end %d offset %" PRIu64 "\n", ret, bstream_reader_offset(r));
	if (strcmp(argv[1], "mem") && strcmp(argv[1], "stdin"))
		fprintf(log, "file offset %jd\n", (intmax_t)lseek(in, 0, SEEK_CUR));
	fprintf(tlog, "%d\n", most);
	bstream_reader_free(r);
	bstream_writer_free(w);
	fclose(log);
	fclose(tlog);
	return close(out) ? 3 : 0;
}
C
if ${CC:-cc} -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I"$root/lib/include" -o "$tmp/rd" "$tmp/rd.c" "$B/asan/lib/libbtrfs-stream.a" 2> "$tmp/cc.err"; then
	ok "read-ahead driver builds against the ASan library"
else
	not_ok "read-ahead driver does not build"
	sed 's/^/# /' "$tmp/cc.err"
	finish
fi

# --- the streams ----------------------------------------------------------
sizes="1 12287 12288 12289 24575 24577 131072 131072 131072 300000 65536 3000000 4097 131072 1"
{
	echo "stream version=2"
	echo "subvol path=vol uuid=01234567-89ab-cdef-0123-456789abcdef ctransid=1"
	echo "mkfile path=f ino=257"
	for round in 1 2 3 4; do
		seed=0
		for s in $sizes; do
			seed=$((seed + 1))
			echo "write path=f file_offset=$((round * 1000000 + seed)) data=random:$s:$((round * 100 + seed))"
			echo "chmod path=f mode=0644"
		done
	done
	echo "end"
	echo "stream version=1"
	echo "subvol path=v1 uuid=01234567-89ab-cdef-0123-456789abcdef ctransid=2"
	for s in 1 4096 49152 65000 49152; do
		echo "write path=f file_offset=$s data=random:$s:$s"
	done
	echo "end"
} > "$tmp/mixed.txt"
"$mkstream" -o "$tmp/mixed" "$tmp/mixed.txt" || { not_ok "mkstream mixed"; finish; }
size=$(stat -c %s "$tmp/mixed")
ok "made a $size byte stream of mixed command sizes"

# Flip one byte inside the data of some big WRITEs (a data block's CRC must
# catch it) and cut the stream in the middle of a long command.
"$dump" dump --json -f "$tmp/mixed" > "$tmp/mixed.json"
python3 - "$tmp/mixed" "$tmp/mixed.json" "$tmp/corrupt" "$tmp/cut" <<'PY'
import json, sys
data = bytearray(open(sys.argv[1], 'rb').read())
cmds = [json.loads(l) for l in open(sys.argv[2])]
big = [c for c in cmds if c['cmd'] == 'write' and c['data_len'] >= 100000]
for k, c in enumerate(big[::2]):
    at = c['offset'] + 10 + c['len'] * (k % 5 + 1) // 7
    data[at] ^= 0x40
open(sys.argv[3], 'wb').write(data)
longest = max(big, key=lambda c: c['len'])
open(sys.argv[4], 'wb').write(data[:longest['offset'] + longest['len'] // 2])
PY

# A first substream long enough to start the threads, then another: -e.
{ cat "$tmp/mixed"; cat "$tmp/mixed"; } > "$tmp/twice"

# feed FILE: copy FILE to stdout in pieces of 1 to 65521 bytes.
feed() {
	python3 - "$1" <<'PY'
import os, sys
data = open(sys.argv[1], 'rb').read()
pos, step = 0, 1
while pos < len(data):
    os.write(1, data[pos:pos + step])
    pos += step
    step = step * 31 % 65521 + 1
PY
}

same_as_mem() {	# same_as_mem NAME MODE BUF E FILE
	local name=$1 mode=$2 buf=$3 e=$4 f=$5 rc
	"$tmp/rd" mem "$buf" "$e" "$f" "$tmp/ref.out" "$tmp/ref.log"
	case $mode in
	file) "$tmp/rd" file "$buf" "$e" "$f" "$tmp/out" "$tmp/log" ;;
	pipe) cat "$f" | "$tmp/rd" stdin "$buf" "$e" - "$tmp/out" "$tmp/log" ;;
	chunks) feed "$f" | "$tmp/rd" stdin "$buf" "$e" - "$tmp/out" "$tmp/log" ;;
	esac
	rc=$?
	if [ $rc -ne 0 ]; then
		not_ok "$name: $mode, buffer $buf: driver failed with status $rc"
		return
	fi
	grep -v '^file offset' "$tmp/log" > "$tmp/log.cmp"
	if cmp -s "$tmp/ref.out" "$tmp/out" && cmp -s "$tmp/ref.log" "$tmp/log.cmp"; then
		ok "$name: $mode, buffer $buf: same commands and errors as from memory"
	else
		not_ok "$name: $mode, buffer $buf: differs from memory"
		diff "$tmp/ref.log" "$tmp/log.cmp" | head -10 | sed 's/^/# /'
		cmp "$tmp/ref.out" "$tmp/out" | sed 's/^/# /'
	fi
}

threads_seen() {	# threads_seen DESCRIPTION TEST-OP N: threads the driver saw
	local got
	got=$(cat "$tmp/log.threads")
	check "$1 ($got threads)" test "$got" "$2" "$3"
}

for buf in 65536 100000 0; do
	same_as_mem mixed file $buf - "$tmp/mixed"
	threads_seen "mixed: file, buffer $buf: read with a read-ahead thread" -eq 2
	same_as_mem mixed pipe $buf - "$tmp/mixed"
	threads_seen "mixed: pipe, buffer $buf: read without threads" -eq 1
	same_as_mem corrupt file $buf - "$tmp/corrupt"
	same_as_mem corrupt pipe $buf - "$tmp/corrupt"
	same_as_mem cut file $buf - "$tmp/cut"
	same_as_mem cut pipe $buf - "$tmp/cut"
	same_as_mem "twice -e" file $buf e "$tmp/twice"
	end=$(sed -n 's/^end 0 offset //p' "$tmp/log")
	check "twice -e: file, buffer $buf: file offset left after the first END ($end)" \
		grep -qx "file offset $end" "$tmp/log"
	same_as_mem twice file $buf - "$tmp/twice"
done
same_as_mem mixed chunks 65536 - "$tmp/mixed"
same_as_mem corrupt chunks 100000 - "$tmp/corrupt"
check "corrupt: the flipped bytes were caught as CRC mismatches" \
	test "$(grep -c 'crc mismatch' "$tmp/ref.log")" -ge 4

# The CLI reading ahead: the same output as btrfs-progs.
TZ=UTC "$dump" dump -e -f "$tmp/twice" > "$tmp/d1" 2>&1
TZ=UTC btrfs receive --dump -f "$tmp/twice" > "$tmp/d2" 2>&1
check "btrfs-stream dump -e equals btrfs receive --dump on the long stream" \
	cmp -s "$tmp/d1" "$tmp/d2"
finish
