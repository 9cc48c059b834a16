#!/bin/bash
# btrfs-stream ls, cat and extract (docs/archive.md) against a real receive:
# every fixture stream, and every chain the fixtures make, is received with
# the plain backend onto the host's /tmp, then
#   - ls --json must describe the received tree entry by entry
#     (tests/tools/archive-ls-check.py),
#   - cat of every regular file must give the received file's bytes,
#   - extract must give a tree treecmp finds equal to the received one;
# a stream receive refuses must be refused too.  Then the errors: broken
# chains, missing paths, truncated streams, escaping paths and hostile
# streams (nothing written outside DIR), extract as an ordinary user.
# The archive commands run under ASan and UBSan.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$root/$B ;; esac
bs=$B/asan/bin/btrfs-stream
recv=$B/bin/btrfs-stream
mkstream=$B/bin/mkstream
treecmp=$B/bin/treecmp
lscheck=$root/tests/tools/archive-ls-check.py
F=$root/tests/fixtures/streams
export ASAN_OPTIONS=exitcode=86:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1
export TZ=UTC
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() {
	local _desc=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $_desc"; else echo "not ok $n - $_desc"; failed=$((failed + 1)); fi
}
# fails CMD...: exits 1 (an error, not a crash or a sanitizer report).
fails() {
	"$@" > "$tmp/out" 2> "$tmp/err"
	local rc=$?
	[ $rc -eq 1 ] || { echo "#   exit status $rc"; sed 's/^/#   /' "$tmp/err"; return 1; }
}
# says PATTERN: the last command's stderr matches the extended regex.
says() {
	grep -qE "$1" "$tmp/err" || { echo "#   stderr:"; sed 's/^/#   /' "$tmp/err"; return 1; }
}
show() { sed 's/^/#   /' "$1"; }

# The mkstream fixtures are made into streams; the kernel ones are used as is.
for t in "$F"/*.txt; do
	name=$(basename "$t" .txt)
	case $name in bad-*) continue ;; esac
	"$mkstream" -o "$tmp/$name.stream" < "$t" || echo "# mkstream $name failed"
done
K() { echo "$F/kernel-$1.stream"; }

# compare LABEL IGNORE STREAM...: receive, then ls, cat and extract.  IGNORE
# is what treecmp may ignore ("times" where the stream sets no times, so
# receive and extract each leave the time they ran at), or "-".
compare() {
	local label=$1 ignore=$2
	shift 2
	local d=$tmp/c-$n r x sv rc=0 files=0 bad=0 f
	r=$d/recv x=$d/extract
	mkdir -p "$r" "$x"
	for s in "$@"; do
		"$recv" receive --backend plain -q -f "$s" "$r" 2> "$d/recv.err" || rc=1
	done
	if [ $rc -ne 0 ]; then
		check "$label: receive refuses it, so does ls" eval '"$bs" ls "$@" > /dev/null 2> "$d/ls.err"; test $? -eq 1'
		check "$label: and so does extract" eval '"$bs" extract "$@" -C "$x" 2> "$d/x.err"; test $? -eq 1'
		return
	fi
	"$bs" ls -v "$@" > /dev/null 2> "$d/ls.err"
	sv=$(sed -n "s/^btrfs-stream ls: subvolume '\(.*\)': [0-9]* inodes.*/\1/p" "$d/ls.err")
	check "$label: ls names the last subvolume received ('$sv')" test -n "$sv" -a -d "$r/$sv"
	# First, while nothing has read the received tree (reading moves atimes).
	"$bs" extract "$@" -C "$x" 2> "$d/x.err"
	check "$label: extract succeeds" test $? -eq 0 || show "$d/x.err"
	check "$label: extract equals the received tree" eval \
		'"$treecmp" $([ "$ignore" != - ] && echo -i "$ignore") "$r/$sv" "$x" > "$d/tc" || { show "$d/tc"; false; }'
	"$bs" ls --json "$@" > "$d/ls.json" 2> "$d/ls.err"
	check "$label: ls --json describes the received tree" eval \
		'python3 "$lscheck" "$d/ls.json" "$r/$sv" $([ "$ignore" = times ] && echo --no-times) > "$d/ls.diff" || { show "$d/ls.diff"; show "$d/ls.err"; false; }'
	while IFS= read -r -d '' f; do
		files=$((files + 1))
		if ! "$bs" cat "$@" "${f#"$r/$sv/"}" > "$d/cat" 2> "$d/cat.err" || ! cmp -s "$d/cat" "$f"; then
			bad=$((bad + 1))
			echo "#   cat '${f#"$r/$sv/"}' differs"
			show "$d/cat.err"
		fi
	done < <(find "$r/$sv" -type f -print0)
	check "$label: cat of each of its $files files gives the received bytes" test $bad -eq 0
}

for s in "$F"/kernel-*.stream; do
	name=$(basename "$s" .stream)
	case $name in
	# Incremental: only as chains, below.
	kernel-incr-v*|kernel-incr-no-data|kernel-clone-incr-*) continue ;;
	esac
	compare "$name" - "$s"
done
compare "chain incr-base-v1 + incr-v1" - "$(K incr-base-v1)" "$(K incr-v1)"
compare "chain incr-base-v1 + incr-v2 (fallocate)" - "$(K incr-base-v1)" "$(K incr-v2)"
compare "chain incr-base-v1 + incr-no-data" - "$(K incr-base-v1)" "$(K incr-no-data)"
for s in "$tmp"/*.stream; do
	compare "$(basename "$s" .stream) (mkstream)" times "$s"
done
# A subvolume of several in one stream.
"$bs" ls --subvol multi.A "$(K multi-v1)" > "$tmp/la" 2> "$tmp/err"
check "--subvol picks the first subvolume of two" eval \
	'grep -q " one$" "$tmp/la" && ! grep -q " two$" "$tmp/la"'

# --- the text listing --------------------------------------------------
"$bs" ls "$(K full-v1-every-type)" > "$tmp/ls.txt" 2> "$tmp/err"
check "ls: a line per name, like tar tv" eval \
	'grep -qE "^-rwsr-xr-x 1000/100 +5 [0-9-]+ [0-9:]+ setuid$" "$tmp/ls.txt"'
check "ls: hard links, symlinks and devices" eval '
	grep -qE " dir/sub/link2 link to dir/link1$" "$tmp/ls.txt" &&
	grep -qE "^lrwxrwxrwx 123/456 .* dir/symlink -> \.\./small$" "$tmp/ls.txt" &&
	grep -qE "^brw-r--r-- .* 8,3 .* blockdev$" "$tmp/ls.txt"'
check "ls: names escaped, one entry per line" eval \
	'grep -qF "new\\012line" "$tmp/ls.txt" && test $(wc -l < "$tmp/ls.txt") -eq $(grep -c "" "$tmp/ls.txt")'
check "ls reads a pipe" eval '"$bs" ls - < "$(K full-v1-every-type)" | cmp -s - "$tmp/ls.txt"'
"$bs" cat "$(K full-v1-every-type)" large > "$tmp/large"
check "cat reads a pipe (copied aside to read back)" eval \
	'"$bs" cat - large < "$(K full-v1-every-type)" | cmp -s - "$tmp/large" && test -s "$tmp/large"'

# --- extracting some paths ---------------------------------------------
mkdir "$tmp/some"
"$bs" extract "$(K full-v1-every-type)" -C "$tmp/some" dir ./small 2> "$tmp/err"
check "extract PATH...: succeeds" test $? -eq 0 || show "$tmp/err"
check "extract PATH...: only those, and a directory with what it holds" eval '
	[ "$(cd "$tmp/some" && find . | sort | tr "\n" " ")" = ". ./dir ./dir/link1 ./dir/sub ./dir/sub/link2 ./dir/symlink ./small " ]'
check "extract PATH...: names of one inode both extracted are hard links" \
	test "$(stat -c %i "$tmp/some/dir/link1")" = "$(stat -c %i "$tmp/some/dir/sub/link2")"
mkdir -p "$tmp/deep"
"$bs" extract "$(K incr-base-v1)" "$(K incr-v1)" -C "$tmp/deep" dir/sub/moved-dir 2> "$tmp/err"
check "extract of a deep path makes the directories on the way" \
	test -d "$tmp/deep/dir/sub/moved-dir/deep" -a ! -e "$tmp/deep/dir/sub/file-moved"
fails "$bs" extract "$(K full-v1-every-type)" -C "$tmp/some" small
check "extract does not replace what DIR holds" says "'small': cannot create: File exists"

# --- errors ------------------------------------------------------------
fails "$bs" ls "$(K incr-base-v1)" "$(K clone-incr-v1)"
check "broken chain: refused, saying which parent it needs and has" \
	says "kernel-clone-incr-v1.stream': command 1 \(snapshot\) at offset 17: 'cvol.B': broken chain: sent from parent UUID [0-9a-f-]{36} ctransid 20, but the subvolume before it, 'inc.A', is UUID [0-9a-f-]{36} ctransid 11"
fails "$bs" ls "$(K incr-v1)"
check "incremental without its parent: refused" says "incremental stream: its parent .* must come first"
fails "$bs" ls "$(K clone-full-v1)" "$(K clone-incr-v1)"
check "clone source outside the chain: refused" says "command [0-9]+ \(clone\) at offset [0-9]+: .* is neither this subvolume nor its parent"
fails "$bs" cat "$(K incr-base-v1)" no/such/file
check "cat: path not found" says "^btrfs-stream cat: 'no/such/file': no such directory on the way in subvolume 'inc.A'$"
fails "$bs" cat "$(K incr-base-v1)" dir
check "cat: a directory is not a file" says "'dir': is a directory"
fails "$bs" extract "$(K incr-base-v1)" -C "$tmp/some" nothing-here
check "extract: path not found" says "'nothing-here': no such file or directory in subvolume 'inc.A'"
head -c 30000 "$(K incr-base-v1)" > "$tmp/cut.stream"
fails "$bs" ls "$tmp/cut.stream"
check "truncated stream: error with the command's index and offset" \
	says "^btrfs-stream ls: '.*cut.stream': command [0-9]+ (\([a-z_]+\) )?at offset [0-9]+: "
fails "$bs" cat "$(K incr-base-v1)" ../etc/passwd
check "cat: a path with '..' is refused" says "^btrfs-stream cat: path '../etc/passwd': '..' path component$"
fails "$bs" extract "$(K incr-base-v1)" -C "$tmp/some" /etc
check "extract: an absolute path is refused" says "path '/etc': absolute path"
fails "$bs" extract "$(K incr-base-v1)"
check "extract: -C is required" says "need -C DIR"

# A symlink in DIR is never followed: extracting beneath it fails.
mkdir "$tmp/trap" "$tmp/outside"
ln -s "$tmp/outside" "$tmp/trap/dir"
fails "$bs" extract "$(K incr-base-v1)" -C "$tmp/trap" dir/sub
check "extract never goes through a symlink in DIR" eval \
	'test -z "$(ls -A "$tmp/outside")" && says "dir/sub.: cannot make its directory"'

# The hostile corpus: refused (exit 1) or harmless, never outside DIR.
mkdir -p "$tmp/hostile/area"
escaped=0 crashed=0 count=0
for t in "$root"/tests/fixtures/hostile/*.txt; do
	h=$(basename "$t" .txt)
	"$mkstream" -o "$tmp/hostile/$h.stream" < "$t" 2> /dev/null || continue
	count=$((count + 1))
	mkdir "$tmp/hostile/area/$h"
	before=$(cd "$tmp" && find . -path ./hostile/area/"$h" -prune -o -print | sort | md5sum)
	for c in ls extract; do
		if [ $c = ls ]; then "$bs" ls "$tmp/hostile/$h.stream" > /dev/null 2>&1
		else "$bs" extract "$tmp/hostile/$h.stream" -C "$tmp/hostile/area/$h" > /dev/null 2>&1; fi
		rc=$?
		[ $rc -le 1 ] || { echo "#   $c $h: exit status $rc"; crashed=$((crashed + 1)); }
	done
	after=$(cd "$tmp" && find . -path ./hostile/area/"$h" -prune -o -print | sort | md5sum)
	[ "$before" = "$after" ] || { echo "#   $h: something changed outside DIR"; escaped=$((escaped + 1)); }
done
check "hostile streams ($count): no crash, no sanitizer report" test $crashed -eq 0 -a $count -gt 20
check "hostile streams: nothing written outside DIR" test $escaped -eq 0
for h in absolute-mkfile dotdot-mkfile rename-outside link-outside symlink-as-dir; do
	fails "$bs" extract "$tmp/hostile/$h.stream" -C "$tmp/hostile/area/$h"
	check "hostile $h: refused with the command and the reason" \
		says "command [0-9]+ \([a-z_]+\) at offset [0-9]+: '.*': (invalid path|cannot)"
done

# --- as an ordinary user -----------------------------------------------
if [ "$(id -u)" = 0 ]; then
	mkdir "$tmp/ref"
	"$recv" receive --backend plain -q -f "$(K full-v1-every-type)" "$tmp/ref"
	mkdir "$tmp/user"
	chown 65534:65534 "$tmp/user"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$bs" extract "$(K full-v1-every-type)" -C "$tmp/user" > "$tmp/out" 2> "$tmp/err"
	check "ordinary user: extract succeeds" test $? -eq 0 || show "$tmp/err"
	check "ordinary user: owners and devices skipped, summed up as receive does" eval '
		says "^btrfs-stream extract: subvolume .types.snap.: .*/user could not hold [0-9]+ owners \(.*\); --strict makes this an error$" &&
		says "could not hold 2 device nodes \(.blockdev., .chardev.\)"'
	"$treecmp" -i uid,gid "$tmp/ref/types.snap" "$tmp/user" > "$tmp/tc"
	grep -vE "^(blockdev|chardev): entry: |: xattr (security|trusted)\." "$tmp/tc" > "$tmp/tc2"
	check "ordinary user: all else as received (data, modes, times, links)" \
		eval 'test ! -s "$tmp/tc2" || { show "$tmp/tc2"; false; }'
	mkdir "$tmp/user2"
	chown 65534:65534 "$tmp/user2"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$bs" extract --strict "$(K full-v1-every-type)" -C "$tmp/user2" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	check "ordinary user, --strict: what cannot be held is an error" \
		eval 'test $rc -eq 1 && says "cannot change owner to 1000:100: Operation not permitted"'
else
	n=$((n + 1)); failed=$((failed + 1))
	echo "not ok $n - ordinary user extract: run as root, to switch to user nobody"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
