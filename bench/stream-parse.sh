#!/bin/bash
# Throughput of the stream reader and of btrfs-stream dump, host side.
#
#   bench/stream-parse.sh [SIZE_MIB]      (default 1024; run `make userspace` first)
#
# Makes a data-heavy v2 stream with mkstream (128 KiB WRITE commands, as
# Linux sends them), warms it into the page cache, then runs each of these
# RUNS times (default 5), interleaved:
#
#   cat FILE > /dev/null                    the floor: reading the file
#   btrfs-stream dump --parse-only -f FILE  parse with CRC, print nothing
#   btrfs-stream dump -f FILE > /dev/null
#   btrfs receive --dump -f FILE > /dev/null   (btrfs-progs, if installed)
#
# and reports the best and the median wall time, and the CPU time (user +
# system, all threads) of the best run.  Goals: parse >= 0.5x cat, dump
# >= 2x btrfs receive --dump, in wall time.
#
# The reader copies a regular file with a read-ahead thread next to the
# consumer, so it needs a second CPU that is free.  When other work keeps
# every CPU busy (the load average is shown), wall times mostly measure the
# scheduler: compare the CPU times then, or set BENCH_RT=1 (root) to run
# every measured command at real-time priority (chrt -f 50), which on a
# shared machine is the nearest to an idle one and treats all commands
# alike.  It also measures the CRC32C implementations on their own.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$root/build}
size_mib=${1:-1024}
runs=${RUNS:-5}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}}
file=$dir/bench-stream-$size_mib.v2
tool=$B/bin/btrfs-stream
mkstream=$B/bin/mkstream
rt=()
[ "${BENCH_RT:-0}" = 1 ] && rt=(chrt -f 50)

[ -x "$tool" ] && [ -x "$mkstream" ] || { echo "run 'make userspace' first" >&2; exit 1; }

if [ ! -s "$file" ]; then
	echo "making $size_mib MiB stream in '$file'"
	count=$((size_mib * 8))
	{
		echo "stream version=2"
		echo "subvol path=bench uuid=01234567-89ab-cdef-0123-456789abcdef ctransid=1"
		echo "mkfile path=o257-1-0 ino=257"
		awk -v n="$count" 'BEGIN {
			for (i = 0; i < n; i++)
				printf "write path=o257-1-0 file_offset=%d data=random:131072:%d\n", i * 131072, i % 16
		}'
		echo "end"
	} | "$mkstream" -o "$file.tmp"
	mv "$file.tmp" "$file"
fi
bytes=$(stat -c %s "$file")
cat "$file" > /dev/null
cat "$file" > /dev/null
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; [ -n "${KEEP:-}" ] || rm -f "$file"' EXIT

# CRC32C on its own, through the library: in cache and from memory.
cat > "$scratch/crc.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <btrfs-stream/stream.h>

static double cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void)
{
	static const char *const names[] = { "auto", "table", "sse42", "pclmul" };
	static const size_t sizes[] = { 128 << 10, 256 << 20 };
	uint32_t sink = 0;

	for (int s = 0; s < 2; s++) {
		size_t n = sizes[s];
		unsigned char *b = malloc(n);

		for (size_t i = 0; i < n; i++)
			b[i] = (unsigned char)(i * 7 + (i >> 9));
		for (int impl = 1; impl < 4; impl++) {
			bstream_crc_fn f = bstream_crc_get(impl);
			size_t total = impl == 1 ? 256u << 20 : 2048u << 20;
			double best = 1e9;

			if (!f)
				continue;
			for (int rep = 0; rep < 3; rep++) {
				double t = cpu();

				for (size_t done = 0; done < total; done += n)
					sink ^= f(sink, b, n);
				t = cpu() - t;
				best = t < best ? t : best;
			}
			printf("crc32c %-6s %-18s %6.1f GB/s\n", names[impl],
			       s ? "(256 MiB buffer)" : "(128 KiB buffer)", total / best / 1e9);
		}
		free(b);
	}
	return sink == 1;	/* keep the work */
}
C
if ${CC:-cc} -O2 -I"$root/lib/include" -o "$scratch/crc" "$scratch/crc.c" \
	"$B/lib/libbtrfs-stream.a" 2> /dev/null; then
	"$scratch/crc"
	echo
fi

# measure NAME CMD...: one run; appends "wall_ns cpu_s" to $scratch/NAME
measure() {
	local name=$1 t0 t1 cpu
	shift
	TIMEFORMAT='%U %S'
	t0=$(date +%s%N)
	cpu=$( { time "${rt[@]}" "$@" > /dev/null 2>&1; } 2>&1 )
	t1=$(date +%s%N)
	echo "$((t1 - t0)) $(awk '{ print $1 + $2 }' <<< "$cpu")" >> "$scratch/$name"
}

names=(cat parse dump)
command -v btrfs > /dev/null && names+=(progs)
for ((i = 0; i < runs; i++)); do
	measure cat cat "$file"
	measure parse "$tool" dump --parse-only -f "$file"
	measure dump "$tool" dump -f "$file"
	[ "${names[3]:-}" = progs ] && measure progs btrfs receive --dump -f "$file"
done

# stat NAME -> "best_ns median_ns cpu_of_best"
stat() {
	sort -n "$scratch/$1" | awk '{ w[NR] = $1; c[NR] = $2 }
		END { printf "%d %d %.3f\n", w[1], w[int((NR + 1) / 2)], c[1] }'
}
declare -A best median cpu
for n in "${names[@]}"; do
	read -r best[$n] median[$n] cpu[$n] < <(stat "$n")
done

label() {
	case $1 in
	cat) echo "cat > /dev/null" ;;
	parse) echo "btrfs-stream --parse-only" ;;
	dump) echo "btrfs-stream dump" ;;
	progs) echo "btrfs receive --dump" ;;
	esac
}
echo "stream: $bytes bytes, $runs runs, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)${rt[*]:+, under ${rt[*]}}"
printf '%-28s %9s %9s %9s %8s\n' "" "best ms" "MiB/s" "median ms" "CPU s"
for n in "${names[@]}"; do
	awk -v l="$(label "$n")" -v b="${best[$n]}" -v m="${median[$n]}" -v c="${cpu[$n]}" -v s="$bytes" \
		'BEGIN { printf "%-28s %9.1f %9.0f %9.1f %8.3f\n", l, b / 1e6, s / 1048576 / (b / 1e9), m / 1e6, c }'
done
echo
ratio() {	# ratio LABEL NUM DEN GOAL: throughput of NUM over DEN, best and median
	awk -v l="$1" -v a="${best[$2]}" -v b="${best[$3]}" -v am="${median[$2]}" \
		-v bm="${median[$3]}" -v g="$4" \
		'BEGIN { r = b / a; printf "%-40s %5.2fx (median %.2fx, goal >= %sx) %s\n",
			 l, r, bm / am, g, (r >= g ? "ok" : "MISSED") }'
}
ratio "parse throughput / cat throughput" parse cat 0.5
if [ -n "${best[progs]:-}" ]; then
	ratio "dump throughput / progs dump throughput" dump progs 2
	awk -v a="${cpu[dump]}" -v b="${cpu[progs]}" \
		'BEGIN { printf "%-40s %5.2fx\n", "dump CPU time / progs CPU time", a / b }'
fi
