#!/bin/bash
# Throughput of the stream reader and of btrfs-stream dump, host side.
#
#   bench/stream-parse.sh [SIZE_MIB]      (default 1024; run `make userspace` first)
#
# Makes a data-heavy v2 stream with mkstream (128 KiB WRITE commands, as
# Linux sends them), warms it into the page cache, then takes the best of
# RUNS (default 3) for each of:
#
#   cat FILE > /dev/null                    the floor: reading the file
#   btrfs-stream dump --parse-only -f FILE  parse with CRC, print nothing
#   btrfs-stream dump -f FILE > /dev/null
#   btrfs receive --dump -f FILE > /dev/null   (btrfs-progs, if installed)
#
# Goals: parse >= 0.5x cat, dump >= 2x btrfs receive --dump.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$root/build}
size_mib=${1:-1024}
runs=${RUNS:-3}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}}
file=$dir/bench-stream-$size_mib.v2
tool=$B/bin/btrfs-stream
mkstream=$B/bin/mkstream

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

# best_of CMD...: fastest wall time in ns over $runs runs
best_of() {
	local best= t0 t1 i
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s%N)
		"$@"
		t1=$(date +%s%N)
		if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then best=$((t1 - t0)); fi
	done
	echo "$best"
}
run_cat() { cat "$file" > /dev/null; }
run_parse() { "$tool" dump --parse-only -f "$file"; }
run_dump() { "$tool" dump -f "$file" > /dev/null; }
run_progs() { btrfs receive --dump -f "$file" > /dev/null; }

report() {	# report NAME NS
	awk -v name="$1" -v ns="$2" -v b="$bytes" \
		'BEGIN { printf "%-28s %8.1f ms %8.0f MiB/s\n", name, ns / 1e6, b / 1048576 / (ns / 1e9) }'
}
ratio() {	# ratio LABEL NUM_NS DEN_NS GOAL
	awk -v l="$1" -v a="$2" -v b="$3" -v g="$4" \
		'BEGIN { r = b / a; printf "%-40s %5.2fx (goal >= %sx) %s\n", l, r, g, (r >= g ? "ok" : "MISSED") }'
}

echo "stream: $bytes bytes, best of $runs runs, $(nproc) CPUs"
t_cat=$(best_of run_cat); report "cat > /dev/null" "$t_cat"
t_parse=$(best_of run_parse); report "btrfs-stream --parse-only" "$t_parse"
t_dump=$(best_of run_dump); report "btrfs-stream dump" "$t_dump"
if command -v btrfs > /dev/null; then
	t_progs=$(best_of run_progs); report "btrfs receive --dump" "$t_progs"
fi
echo
ratio "parse throughput / cat throughput" "$t_parse" "$t_cat" 0.5
if [ -n "${t_progs:-}" ]; then
	ratio "dump throughput / progs dump throughput" "$t_dump" "$t_progs" 2
fi
[ -n "${KEEP:-}" ] || rm -f "$file"
