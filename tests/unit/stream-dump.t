#!/bin/bash
# btrfs-stream dump against fixtures and against btrfs receive --dump.
#
# Fixtures live in tests/fixtures/streams/:
#   NAME.txt     a mkstream description, or
#   NAME.stream  raw stream bytes (e.g. made by the kernel in the VM),
#   NAME.dump    the expected text output (TZ=UTC), required unless NAME
#                starts with "bad-".
# Adding a golden stream is dropping NAME.stream and NAME.dump there.
#
# Every stream is also given to btrfs receive --dump (btrfs-progs, installed
# by scripts/deps.sh): its output must equal ours, or for bad-* it must
# fail too.  Directives in comment lines of a .txt (or in NAME.notes next to
# a .stream) adjust that:
#   # error: TEXT          bad-* only: our stderr must contain TEXT
#   # progs: rejects (why) btrfs receive --dump must fail on it
#   # progs-args: ARGS     compare progs' output with btrfs-stream dump ARGS
#   # progs-version: N     .txt only: also give progs the stream with its
#                          headers set to version N, and compare
#
# Hostile streams run through the ASan/UBSan build; every one must exit 1
# (never crash) with the library's message.
set -u
. "$(dirname "$0")/tap.sh"
dump=$B/asan/bin/btrfs-stream
plain=$B/bin/btrfs-stream
fixtures=$root/tests/fixtures/streams
export TZ=UTC

if command -v btrfs >/dev/null && btrfs receive --help 2>&1 | grep -q -- --dump; then
	ok "btrfs-progs is installed: btrfs receive --dump is the oracle"
else
	not_ok "btrfs receive --dump not found: run scripts/deps.sh"
	echo "1..$n"
	exit 1
fi

directive() {	# directive FILE KEY -> value(s) of "# KEY: value"
	[ -f "$1" ] || return 0
	sed -n "s/^# $2: //p" "$1"
}

for src in "$fixtures"/*.txt "$fixtures"/*.stream; do
	[ -e "$src" ] || continue
	name=$(basename "${src%.*}")
	notes=$src
	[ "${src##*.}" = stream ] && notes=$fixtures/$name.notes
	stream=$tmp/$name.stream
	if [ "${src##*.}" = txt ]; then
		if ! "$mkstream" -o "$stream" "$src"; then
			not_ok "$name: mkstream"
			continue
		fi
	else
		stream=$src
	fi
	progs_rejects=$(directive "$notes" progs)
	progs_args=$(directive "$notes" progs-args)
	read -ra pargs <<< "$progs_args"

	if [[ $name == bad-* ]]; then
		"$dump" dump -f "$stream" > "$tmp/out" 2> "$tmp/err"
		rc=$?
		check "$name: exit status 1 (got $rc)" test "$rc" -eq 1
		want=$(directive "$notes" error)
		if grep -qF -- "$want" "$tmp/err"; then
			ok "$name: error message"
		else
			not_ok "$name: error message: want '$want', got '$(cat "$tmp/err")'"
		fi
		if [ -z "$progs_args" ]; then
			btrfs receive --dump -f "$stream" > /dev/null 2>&1
			check "$name: btrfs receive --dump rejects it too" test $? -ne 0
			continue
		fi
		btrfs receive --dump -f "$stream" > "$tmp/progs" 2>&1
		"$dump" dump "${pargs[@]}" -f "$stream" > "$tmp/ours" 2>&1
		check "$name: btrfs receive --dump equals dump ${pargs[*]}" cmp -s "$tmp/progs" "$tmp/ours"
		continue
	fi

	if ! "$dump" dump -f "$stream" > "$tmp/out" 2> "$tmp/err"; then
		not_ok "$name: dump failed: $(cat "$tmp/err")"
		continue
	fi
	if [ -f "$fixtures/$name.dump" ]; then
		if cmp -s "$tmp/out" "$fixtures/$name.dump"; then
			ok "$name: output equals $name.dump"
		else
			not_ok "$name: output differs from $name.dump"
			diff -u "$fixtures/$name.dump" "$tmp/out" | head -20 | sed 's/^/# /'
		fi
	else
		not_ok "$name: $name.dump missing"
	fi
	if "$dump" dump --json -f "$stream" > "$tmp/json" 2> "$tmp/err"; then
		check "$name: --json is one valid object per line" \
			python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/json"
	else
		not_ok "$name: --json failed: $(cat "$tmp/err")"
	fi
	if [ -n "$progs_rejects" ]; then
		btrfs receive --dump -f "$stream" > /dev/null 2>&1
		check "$name: btrfs receive --dump $progs_rejects" test $? -ne 0
		pver=$(directive "$notes" progs-version)
		if [ -n "$pver" ]; then
			sed "s/^stream version=[0-9]*/stream version=$pver/" "$src" |
				"$mkstream" > "$tmp/as-v$pver"
			btrfs receive --dump -f "$tmp/as-v$pver" > "$tmp/progs" 2>&1
			check "$name: same output as btrfs receive --dump of it as version $pver" \
				cmp -s "$tmp/progs" "$tmp/out"
		fi
	else
		btrfs receive --dump -f "$stream" > "$tmp/progs" 2> "$tmp/err"
		"$dump" dump "${pargs[@]}" -f "$stream" > "$tmp/ours" 2>&1
		if cmp -s "$tmp/progs" "$tmp/ours"; then
			ok "$name: identical to btrfs receive --dump ${pargs[*]}"
		else
			not_ok "$name: differs from btrfs receive --dump"
			diff -u "$tmp/progs" "$tmp/ours" | head -20 | sed 's/^/# /'
		fi
	fi
done

# stdin is the default input, and concatenated streams are all read.
"$mkstream" "$fixtures/multi.txt" | "$dump" dump > "$tmp/out"
# One usable CPU: regular files are read another way (O_DIRECT, or a
# mapping); same output.
same=yes
for src in "$fixtures"/*.stream; do
	"$plain" dump -f "$src" > "$tmp/a" 2>&1
	taskset -c 0 "$plain" dump -f "$src" > "$tmp/b" 2>&1
	cmp -s "$tmp/a" "$tmp/b" || { same="no: $(basename "$src")"; break; }
done
check "dump on one CPU prints what it prints on two: $same" test "$same" = yes
# On one CPU a stream file goes through a mapping only where its file
# system refuses O_DIRECT, which this one (the checkout's) takes, or
# where the page cache holds it already (dd's nocache drops it from there,
# once written back: a fresh checkout's files may not be yet).
sync "$src"
dd if="$src" iflag=nocache count=0 status=none
strace -f -e trace=mmap,openat -o "$tmp/trace" taskset -c 0 "$plain" dump -f "$src" > /dev/null 2>&1
check "dump on one CPU reads the stream file with O_DIRECT where it can, not mapped" \
	sh -c "grep -q '\"/proc/self/fd/3\", O_RDONLY|O_DIRECT' '$tmp/trace' && ! grep -q 'MAP_POPULATE, 3, 0' '$tmp/trace'"
cat "$src" > /dev/null
strace -f -e trace=mmap,openat -o "$tmp/trace" taskset -c 0 "$plain" dump -f "$src" > /dev/null 2>&1
check "dump on one CPU maps a stream file that is in the page cache, no O_DIRECT" \
	sh -c "grep -q 'PROT_READ, MAP_PRIVATE|MAP_POPULATE, 3, 0' '$tmp/trace' && ! grep -q 'O_DIRECT' '$tmp/trace'"
strace -f -e trace=mmap -o "$tmp/trace" taskset -c 0 "$plain" dump --mmap -f "$src" > /dev/null 2>&1
check "dump --mmap on one CPU maps the stream file" grep -q 'PROT_READ, MAP_PRIVATE|MAP_POPULATE, 3, 0' "$tmp/trace"
strace -f -e trace=mmap -o "$tmp/trace" "$plain" dump -f "$src" > /dev/null 2>&1
check "dump on two CPUs reads it" test "$(nproc)" -lt 2 -o -z "$(grep 'MAP_POPULATE, 3, 0' "$tmp/trace")"
check "dump reads stdin and every substream" test "$(grep -c '^' "$tmp/out")" -eq 5

# A mapped stream file that shrinks under the reader raises SIGBUS on the
# next page; the handler turns it into a message and exit 1, not a core.
# The output goes to a FIFO read one line (dump has started and mapped the
# file) and then left full, so dump is stopped mid-stream at the truncate.
{ echo "stream version=1"; echo "repeat 20000 mkdir path=some/directory ino=7"; echo end; } |
	"$mkstream" > "$tmp/shrink"
mkfifo "$tmp/shrink.out"
"$plain" dump --mmap -f "$tmp/shrink" > "$tmp/shrink.out" 2> "$tmp/shrink.err" &
pid=$!
exec 3< "$tmp/shrink.out"
read -r first_line <&3
truncate -s 4096 "$tmp/shrink"
cat <&3 > /dev/null
exec 3<&-
wait $pid
rc=$?
check "dump of a stream file shrinking under its map started: $first_line" test -n "$first_line"
check "dump of a stream file shrinking under its map exits 1 (got $rc)" test $rc -eq 1
check "dump of a stream file shrinking under its map says so" \
	grep -q 'the stream file shrank while it was being read' "$tmp/shrink.err"

# -e stops at the first END without consuming what follows (pipe).
"$mkstream" -o "$tmp/multi" "$fixtures/multi.txt"
size=$(stat -c %s "$tmp/multi")
( "$plain" dump -e > /dev/null; cat > "$tmp/rest" ) < "$tmp/multi"
first=$("$plain" dump -e --json -f "$tmp/multi" | sed -n 's/.*"cmd":"end".*"offset":\([0-9]*\).*/\1/p')
check "dump -e leaves the rest of a regular file unread" test "$(stat -c %s "$tmp/rest")" -eq $((size - first - 10))
( taskset -c 0 "$plain" dump --mmap -e > /dev/null; cat > "$tmp/rest" ) < "$tmp/multi"
check "dump --mmap -e on one CPU (mapped input) leaves the rest unread" \
	test "$(stat -c %s "$tmp/rest")" -eq $((size - first - 10))
cat "$tmp/multi" | ( "$plain" dump -e > /dev/null; cat > "$tmp/rest" )
check "dump -e leaves the rest of a pipe unread" test "$(stat -c %s "$tmp/rest")" -eq $((size - first - 10))

# -E 0 goes on after bad commands, still exiting 1.
printf '%s\n' "stream version=1" "mkdir path=a ino=1 crc=1" "mkdir path=b ino=2" "end" |
	"$mkstream" > "$tmp/crc"
"$dump" dump -E 0 -f "$tmp/crc" > "$tmp/out" 2> "$tmp/err"
rc=$?
check "-E 0: exit 1 after a bad command" test $rc -eq 1
check "-E 0: later commands still printed" grep -q '^mkdir  *\./b$' "$tmp/out"

# A flood of zero-length commands (memory is checked in test-stream).
{ echo "stream version=2"; echo "repeat 2000000 cmd:0"; echo end; } | "$mkstream" > "$tmp/flood"
"$plain" dump -v -f "$tmp/flood" > "$tmp/out" 2> "$tmp/err"
check "2M zero-length commands: exit 0" test $? -eq 0
check "2M zero-length commands: all listed by -v" test "$(grep -c '^unknown' "$tmp/out")" -eq 2000000
"$dump" dump --json -f "$tmp/flood" > /dev/null 2>&1
check "2M zero-length commands under ASan" test $? -eq 0

# Command line conventions.
"$plain" dump --no-such-option > "$tmp/out" 2> "$tmp/err"
rc=$?
check "unknown option: exit 1" test $rc -eq 1
check "unknown option: hint" grep -qF "Try 'btrfs-stream dump --help'" "$tmp/err"
"$plain" dump -f > "$tmp/out" 2> "$tmp/err"
check "missing option argument: exit 1" test $? -eq 1
check "missing option argument: message and hint" \
	grep -qF "option '-f' requires an argument" "$tmp/err"
"$plain" dump --help > "$tmp/out" 2>&1
check "--help: exit 0 with usage" grep -q '^usage: btrfs-stream dump' "$tmp/out"
"$plain" dump -f "$tmp/does-not-exist" 2> "$tmp/err"
check "missing file: exit 1" test $? -eq 1
check "missing file: path in quotes" grep -qF "'$tmp/does-not-exist'" "$tmp/err"
"$plain" nosuchcmd 2> "$tmp/err"
check "unknown subcommand: exit 1" test $? -eq 1

# Reading a stream needs only read permission: no O_NOATIME, which only
# the file's owner may use (btrfs-progs 6.2's receive --dump fails here,
# fstests btrfs/339).  A root-owned, world-readable stream, read by nobody.
if [ "$(id -u)" = 0 ]; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	mkdir -m 755 "$tmp/shared" && mkdir "$tmp/shared/dest" &&
		chown 65534:65534 "$tmp/shared/dest" && chmod 755 "$tmp" &&
		"$mkstream" < "$fixtures/all-v2.txt" > "$tmp/shared/s.stream" &&
		chmod 644 "$tmp/shared/s.stream"
	check "unprivileged: set up a root-owned stream" test $? -eq 0
	as_nobody "$plain" dump -f "$tmp/shared/s.stream" > "$tmp/out" 2> "$tmp/err"
	check "unprivileged: dump -f of a root-owned stream" test $? -eq 0
	as_nobody "$plain" receive --dump -f "$tmp/shared/s.stream" > "$tmp/out2" 2> "$tmp/err"
	check "unprivileged: receive --dump -f of a root-owned stream" \
		eval 'test -s "$tmp/out2" && cmp -s "$tmp/out" "$tmp/out2"'
	as_nobody "$plain" receive --backend btrfs -f "$tmp/shared/s.stream" "$tmp/shared/dest" 2> "$tmp/err"
	check "unprivileged: receive fails on the destination, not the stream" \
		grep -qF "is not on a btrfs filesystem" "$tmp/err"
else
	not_ok "unprivileged reading: run as root, to make a root-owned stream"
fi

finish
