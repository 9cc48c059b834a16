#!/bin/bash
# Unit tests for treecmp (tests/tools/treecmp*.c), run as root on the host.
#
# For every field: two trees built the same way compare equal, changing
# only that field on one side is reported (path and field, one line), and
# --ignore FIELD makes them equal again.  Then digests, content, odd names,
# deep paths, errors and not disturbing atime.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
TC=${TREECMP:-$top/build/bin/treecmp}
T=$(mktemp -d)
cleanup() {
	chattr -R -a -i "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
umask 022
n=0
failed=0

if [ ! -x "$TC" ]; then
	echo "not ok 1 - $TC is built (run make userspace)"
	exit 1
fi

# run ARGS...: run treecmp; stdout in $T/out, stderr in $T/err, status in $rc.
run() {
	"$TC" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# expect DESC RC [LINES [STRING...]]: the last run exited with RC (a crash
# never matches), printed LINES lines on stdout if given (- for any) and
# each fixed STRING.
expect() {
	local desc=$1 want=$2 lines=${3:--} s good=true
	shift $(($# < 3 ? $# : 3))
	[ "$rc" -eq "$want" ] || good=false
	if [ "$lines" != - ] && [ "$(wc -l <"$T/out")" -ne "$lines" ]; then
		good=false
	fi
	for s in "$@"; do
		grep -qF -- "$s" "$T/out" || good=false
	done
	n=$((n + 1))
	if $good; then
		echo "ok $n - $desc"
		return
	fi
	failed=$((failed + 1))
	echo "not ok $n - $desc"
	echo "# exit status $rc, expected $want; expected output: $lines lines, $*"
	sed 's/^/# stdout: /' "$T/out"
	sed 's/^/# stderr: /' "$T/err"
}

# check DESC COMMAND...: a plain assertion.
check() {
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $desc"
	else
		failed=$((failed + 1))
		echo "not ok $n - $desc"
	fi
}

# build DIR: the tree every field test starts from.
build() {
	mkdir -p "$1/d/e"
	printf 'hello\n' >"$1/f"
	printf 'some data' >"$1/d/g"
	ln "$1/f" "$1/hl"
	ln -s f "$1/l"
	mkfifo "$1/p"
	mknod "$1/d/dev" c 1 3
	setfattr -n user.base -v 1 "$1/d/g"
}

# settle DIR...: give every entry the same mtime and atime, as a last step.
# Depth first, one entry at a time: find reads a directory only before it
# touches it, and reading it would move the atime just set.
settle() {
	find "$@" -depth -execdir touch -h -d @1234567890 {} \;
}

# field_test FIELD PATH MUTATE [DESC [LABEL]]: MUTATE B changes only FIELD
# of PATH, which treecmp reports as "PATH: LABEL" (LABEL defaults to FIELD).
field_test() {
	local field=$1 path=$2 mutate=$3 desc=${4:-$1} label=${5:-$1}
	local a=$T/field-$desc/a b=$T/field-$desc/b

	mkdir -p "$a" "$b"
	build "$a"
	build "$b"
	settle "$a" "$b"
	run "$a" "$b"
	expect "$desc: equal trees compare equal" 0 0
	$mutate "$b"
	run "$a" "$b"
	expect "$desc: the change is reported as '$path: $label'" 1 1 \
		"$path: $label"
	run --ignore "$field" "$a" "$b"
	expect "$desc: --ignore $field makes them equal" 0 0
}

m_type() { rm "$1/d/dev" && mknod "$1/d/dev" b 1 3 && settle "$1"; }
m_size() { truncate -s 100 "$1/d/g" && settle "$1"; }
m_data() { printf 'some date' >"$1/d/g" && settle "$1"; }
m_mode() { chmod 4755 "$1/d/g"; }
m_uid() { chown 1234 "$1/d/g"; }
m_gid() { chgrp 1234 "$1/d/e"; }
m_mtime() { touch -h -m -d @1234567000 "$1/l"; }
m_atime() { touch -a -d @1234567000 "$1/d/g"; }
m_xattr() { setfattr -n user.new -v x "$1/d/e"; }
m_symlink() { rm "$1/l" && ln -s g "$1/l" && settle "$1"; }
m_rdev() { rm "$1/d/dev" && mknod "$1/d/dev" c 1 5 && settle "$1"; }
m_flags() { chattr +d "$1/d/g"; }
m_links() { rm "$1/hl" && cp "$1/f" "$1/hl" && settle "$1"; }

field_test type d/dev m_type
field_test size d/g m_size
field_test data d/g m_data
field_test mode d/g m_mode
field_test uid d/g m_uid
field_test gid d/e m_gid
field_test mtime l m_mtime
field_test atime d/g m_atime
field_test xattr d/e m_xattr
field_test symlink l m_symlink
field_test rdev d/dev m_rdev
field_test flags d/g m_flags
field_test links hl m_links

# More ways to change the same fields.
m_xattr_value() { setfattr -n user.base -v 2 "$1/d/g"; }
m_security() { setfattr -n security.treecmp -v x "$1/d/g"; }
m_acl() { setfacl -m u:1234:rx "$1/d"; }
m_default_acl() { setfacl -d -m u:1234:r "$1/d/e"; }
m_dir_flags() { chattr +a "$1/d/e"; }
m_sticky() { chmod 1777 "$1/d/e"; }
m_root_mode() { chmod 0700 "$1"; }
m_root_xattr() { setfattr -n user.root -v 1 "$1"; }
m_root_mtime() { touch -m -d @1234567000 "$1"; }
field_test xattr d/g m_xattr_value xattr-value
field_test xattr d/g m_security xattr-security "xattr security.treecmp"
field_test xattr d m_acl xattr-acl "xattr system.posix_acl_access"
field_test xattr d/e m_default_acl xattr-default-acl \
	"xattr system.posix_acl_default"
field_test flags d/e m_dir_flags flags-dir
field_test mode d/e m_sticky mode-sticky
field_test mode . m_root_mode root-mode
field_test xattr . m_root_xattr root-xattr
field_test mtime . m_root_mtime root-mtime

# The values are shown, not just the field names.
a=$T/values/a b=$T/values/b
mkdir -p "$a" "$b" && build "$a" && build "$b" && settle "$a" "$b"
chmod 4755 "$b/d/g"
setfacl -m u:1234:r "$b/f"
chattr +d "$b/d/g"
run "$a" "$b"
expect "values: mode, ACL and flags are shown readably" 1 - \
	"d/g: mode: 0644 != 4755" "d/g: flags: - != d" \
	"f: xattr system.posix_acl_access: (none) != u::rw-,u:1234:r--,g::r--,m::r--,o::r--"
run --quiet "$a" "$b"
expect "--quiet: prints nothing but still exits 1" 1 0

# "times" is mtime and atime.
a=$T/times/a b=$T/times/b
mkdir -p "$a" "$b" && build "$a" && build "$b" && settle "$a" "$b"
touch -d @1234567000 "$b/d/g"
run --ignore mtime "$a" "$b"
expect "times: --ignore mtime still sees the atime" 1 1 "d/g: atime"
run --ignore times "$a" "$b"
expect "times: --ignore times ignores both" 0 0
run -i uid -i mtime,atime "$a" "$b"
expect "times: repeated and comma-separated --ignore" 0 0

# Entries on one side only, and a link group reaching into such a subtree:
# c/ sorts before d/, so in A the first name of d/g's inode is c/k.
a=$T/missing/a b=$T/missing/b
mkdir -p "$a" "$b" && build "$a" && build "$b"
mkdir -p "$a/c/y" && echo new >"$a/c/y/z"
ln "$a/d/g" "$a/c/k"
echo extra >"$b/extra"
settle "$a" "$b"
run "$a" "$b"
expect "missing: one line per missing entry, not per file below it" 1 3 \
	"c: entry: dir != (none)" "extra: entry: (none) != file"
expect "missing: a link into a one-sided subtree is seen" 1 3 \
	"d/g: links: c/k != d/g"
run --ignore type,links "$a" "$b"
expect "missing: no --ignore hides a missing entry" 1 2

# Digests: equal iff the trees compare equal, with the same --ignore.
a=$T/digest/a b=$T/digest/b
mkdir -p "$a" "$b" && build "$a" && build "$b" && settle "$a" "$b"
run --digest "$a"
expect "digest: exits 0 and prints one line" 0 1
da=$(cat "$T/out")
run --digest "$b"
db=$(cat "$T/out")
check "digest: equal trees have equal digests" [ -n "$da" -a "$da" = "$db" ]
check "digest: it is 64 hex digits" grep -Eqx '[0-9a-f]{64}' "$T/out"
chmod 0600 "$b/d/g"
run --digest "$b"
db=$(cat "$T/out")
check "digest: a changed mode changes the digest" [ "$da" != "$db" ]
run --digest --ignore mode "$a"
da=$(cat "$T/out")
run --digest --ignore mode "$b"
db=$(cat "$T/out")
check "digest: --ignore mode makes the digests equal again" [ "$da" = "$db" ]
run --digest --list "$a"
expect "digest: --list prints one line per entry, then the digest" 0 \
	$(($(find "$a" | wc -l) + 1)) ". type=dir mode=0755" \
	"d/g type=file mode=0644 uid=0 gid=0 size=9 mtime=1234567890.000000000" \
	"hl type=file" "links=f" "xattr=user.base=1" "rdev=1:3" "symlink=f"
head -n -1 "$T/out" >"$T/list-lines"
sha=$(sha256sum <"$T/list-lines")
check "digest: is the SHA-256 of the --list lines (checked by sha256sum)" \
	[ "${sha%% *}" = "$(tail -n 1 "$T/out")" ]

# Content: holes, zeros and the 1 MiB block boundary.
a=$T/data/a b=$T/data/b
mkdir -p "$a" "$b"
truncate -s 5M "$a/sparse"
dd if=/dev/zero of="$b/sparse" bs=1M count=5 status=none
head -c 3145728 /dev/urandom >"$a/big"
cp "$a/big" "$b/big"
printf 'X' | dd of="$a/sparse2" bs=1 seek=4000000 status=none
cp "$a/sparse2" "$b/sparse2"
truncate -s 8M "$b/sparse2"
truncate -s 8M "$a/sparse2"
settle "$a" "$b"
run "$a" "$b"
expect "data: a hole and written zeros compare equal" 0 0
run --digest --ignore times "$a"
da=$(cat "$T/out")
run --digest --ignore times "$b"
check "data: a hole and written zeros have equal digests" [ "$da" = "$(cat "$T/out")" ]
printf 'Y' | dd of="$b/big" bs=1 seek=2621440 conv=notrunc status=none
printf 'Z' | dd of="$b/sparse" bs=1 seek=4194304 conv=notrunc status=none
settle "$b"
run "$a" "$b"
expect "data: differences past the first block are found" 1 2 \
	"big: data: differs at offset 2621440: " \
	"sparse: data: differs at offset 4194304: 0x00 != 0x5a"
run --digest --ignore times "$b"
check "data: and change the digest" [ "$da" != "$(cat "$T/out")" ]

# Names with any byte but '/' and NUL are quoted onto one line.
a=$T/names/a b=$T/names/b
names=($'new\nline' $'tab\there' 'back\slash' $'\001\377' ' space' '-dash' 'Ü')
mkdir -p "$a" "$b"
for name in "${names[@]}"; do
	echo x >"$a/$name"
	echo x >"$b/$name"
done
mkdir "$a/"$'dir\n' "$b/"$'dir\n'
echo y >"$a/"$'dir\n/in'
echo y >"$b/"$'dir\n/in'
settle "$a" "$b"
run "$a" "$b"
expect "names: odd names compare equal" 0 0
chmod 0600 "$b/"$'new\nline' "$b/back\\slash" "$b/"$'\001\377' "$b/"$'dir\n/in'
run "$a" "$b"
expect "names: one line per difference, bytes escaped C-style" 1 4 \
	'new\nline: mode: 0644 != 0600' 'back\\slash: mode' \
	'\001\377: mode' 'dir\n/in: mode'
run --list "$a"
expect "names: --list keeps one line per entry" 0 $((${#names[@]} + 4)) \
	'\040space type=file' '\303\234 type=file'

# A path longer than PATH_MAX (4096 bytes): 25 levels of 200-byte names.
# C is B with one change, made before settling: bash's cd below PATH_MAX
# falls back to reading the parent directories, which moves their atimes.
long=$(printf 'x%.0s' {1..200})
deep() {
	(
		cd "$1" || exit 1
		for i in $(seq 1 25); do
			mkdir "$long$i" && cd "$long$i" || exit 1
		done
		echo deep >f
		[ -z "${2:-}" ] || chmod "$2" f
	)
}
a=$T/deep/a b=$T/deep/b c=$T/deep/c
mkdir -p "$a" "$b" "$c" && deep "$a" && deep "$b" && deep "$c" 0600
settle "$a" "$b" "$c"
run "$a" "$b"
expect "deep: trees deeper than PATH_MAX compare equal" 0 0
run "$a" "$c"
expect "deep: a difference 5000+ bytes down is reported" 1 1 "x25/f: mode: 0644 != 0600"
check "deep: and its path is the whole path" [ "$(head -c 5300 "$T/out" | wc -c)" -gt 5000 ]
run --digest "$b"
expect "deep: digest works too" 0 1

# Errors and usage.
run "$a" "$T/no/such/dir"
expect "errors: a missing directory exits 2" 2 0
check "errors: the message names the path and the errno text" \
	grep -qF "'$T/no/such/dir': No such file or directory" "$T/err"
run "$a"
expect "usage: one directory without --digest exits 2" 2 0
run --ignore nosuchfield "$a" "$b"
expect "usage: an unknown field exits 2" 2 0
check "usage: and names it" grep -qF "unknown field 'nosuchfield'" "$T/err"
run --no-such-option "$a" "$b"
expect "usage: an unknown option exits 2" 2 0
run --help
expect "usage: --help lists every field" 0 - type size data mode uid gid \
	mtime atime xattr symlink rdev flags links times

# Comparing and digesting leave every atime alone.
a=$T/noatime/a b=$T/noatime/b
mkdir -p "$a" "$b" && build "$a" && build "$b" && settle "$a" "$b"
find "$a" "$b" -exec stat -c '%x %n' {} + >"$T/before"
run "$a" "$b"
run --digest "$a"
run --list "$b"
find "$a" "$b" -exec stat -c '%x %n' {} + >"$T/after"
check "atime: comparing, digesting and listing change no atime" \
	cmp -s "$T/before" "$T/after"
cat "$a/d/g" >/dev/null
if [ "$(stat -c %x "$a/d/g")" != "$(grep " $a/d/g\$" "$T/before" | cut -d' ' -f1-3)" ]; then
	check "atime: this filesystem does update atime on read (probe)" true
else
	n=$((n + 1))
	echo "ok $n - atime probe # SKIP reads do not update atime here"
fi

echo "1..$n"
exit $((failed > 0))
