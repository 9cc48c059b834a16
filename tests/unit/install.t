#!/bin/bash
# make install into a staging directory, and what a user then gets: the
# file list, a shared library with its soname exporting the public API
# only, a pkg-config file that builds and links a program against it, man
# pages that render without warnings and document the options each
# command's --help lists, and bash completion of commands, options and
# directories.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# same WHAT EXPECTED ACTUAL: equal lists, else both shown as TAP comments.
same() {
	if [ "$2" = "$3" ]; then ok "$1"; return; fi
	not_ok "$1"
	diff <(echo "$2") <(echo "$3") | sed 's/^/#   /'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
version=$(cat "$root/VERSION")
major=${version%%.*}

# Not the calling make's jobserver: this is a make of its own.
if env -u MAKEFLAGS -u MFLAGS make -C "$root" --no-print-directory install \
	DESTDIR="$dest" PREFIX=/usr > "$tmp/make.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	not_ok "make install DESTDIR=... PREFIX=/usr"
	tail -n 20 "$tmp/make.log" | sed 's/^/#   /'
	exit 1
fi

commands="cat diff dump extract ls receive send"
expected=$(sort <<LIST
usr/bin/btrfs-stream
usr/include/btrfs-stream/errors.h
usr/include/btrfs-stream/send-wire.h
usr/include/btrfs-stream/stream.h
usr/include/btrfs-stream/userspace-compat.h
usr/lib/libbtrfs-stream.a
usr/lib/libbtrfs-stream.so
usr/lib/libbtrfs-stream.so.$major
usr/lib/libbtrfs-stream.so.$version
usr/lib/pkgconfig/libbtrfs-stream.pc
usr/share/bash-completion/completions/btrfs-stream
usr/share/man/man1/btrfs-stream.1
$(for c in $commands; do echo "usr/share/man/man1/btrfs-stream-$c.1"; done)
LIST
)
same "installed files" "$expected" "$(cd "$dest" && find . ! -type d | sed 's|^\./||' | sort)"

lib=$dest/usr/lib
soname=$(readelf -d "$lib/libbtrfs-stream.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
check "soname is libbtrfs-stream.so.$major (got '$soname')" \
	test "$soname" = "libbtrfs-stream.so.$major"
check "libbtrfs-stream.so.$major links to libbtrfs-stream.so.$version" \
	test "$(readlink "$lib/libbtrfs-stream.so.$major")" = "libbtrfs-stream.so.$version"
check "libbtrfs-stream.so links to the soname" \
	test "$(readlink "$lib/libbtrfs-stream.so")" = "libbtrfs-stream.so.$major"
check "the shared library is not executable (Debian policy 8.1)" \
	test ! -x "$lib/libbtrfs-stream.so.$version"

# The exported symbols are exactly the functions the installed headers
# declare, and the version script names the same ones.
declared=$(cat "$dest"/usr/include/btrfs-stream/*.h | grep -v '^[[:space:]]' |
	grep -oE '\bbstream_[a-z0-9_]+\(' | tr -d '(' | sort -u)
exported=$(nm -D --defined-only "$lib/libbtrfs-stream.so.$version" |
	awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u)
mapped=$(sed -n 's/^[[:space:]]*\(bstream_[a-z0-9_]*\);$/\1/p' "$root/lib/libbtrfs-stream.map" | sort)
check "the headers declare functions (found $(echo "$declared" | wc -l))" test -n "$declared"
same "exported symbols = functions of the public headers" "$declared" "$exported"
same "lib/libbtrfs-stream.map = functions of the public headers" "$declared" "$mapped"
check "symbols carry the version node LIBBTRFS_STREAM_$major" \
	grep -q "bstream_next@@LIBBTRFS_STREAM_$major" <(nm -D "$lib/libbtrfs-stream.so.$version")

# A program outside the tree, built with what pkg-config says.
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
check "pkg-config knows libbtrfs-stream $version" \
	test "$(pkg-config --modversion libbtrfs-stream)" = "$version"
flags=$(echo $(pkg-config --cflags --libs libbtrfs-stream))
check "pkg-config --cflags --libs points into DESTDIR ($flags)" \
	test "$flags" = "-I$dest/usr/include -L$lib -lbtrfs-stream"
if cc -Wall -Wextra -Werror -o "$tmp/use-lib" "$root/tests/unit/install/use-lib.c" \
	$flags 2> "$tmp/cc.err"; then
	ok "a program compiles and links against the installed library"
else
	not_ok "a program compiles and links against the installed library"
	sed 's/^/#   /' "$tmp/cc.err"
fi
check "the program needs libbtrfs-stream.so.$major" \
	grep -q "NEEDED.*\[libbtrfs-stream.so.$major\]" <(readelf -d "$tmp/use-lib")
out=$(LD_LIBRARY_PATH=$lib "$tmp/use-lib" 2>&1)
same "the program writes and reads a stream with the shared library" \
	"$(printf 'v1 mkdir dir 257\nv1 end - 0')" "$out"
check "the program's library is the installed one" \
	grep -q "$lib/libbtrfs-stream.so.$major" <(LD_LIBRARY_PATH=$lib ldd "$tmp/use-lib")
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

bs=$dest/usr/bin/btrfs-stream
check "the installed btrfs-stream runs" eval '"$bs" --help > /dev/null'
help_commands=$("$bs" --help | sed -n 's/^    \([a-z]\+\) .*/\1/p' | sort)
same "the commands of btrfs-stream --help" "$commands" "$(echo $help_commands)"

# options_in INDENT: option names of the lines that start, after INDENT,
# with '-', taken up to the first two blanks (where the description starts).
options_in() {
	sed -n "s/^$1\(-[^ ].*\)/\1/p" | sed 's/  .*//' |
		grep -oE -- '(^|[ ,])--?[A-Za-z][-A-Za-z]*' | tr -d ' ,' | sort -u
}
# help_options COMMAND: what --help lists, and -h/--help, accepted by all.
help_options() {
	{ "$bs" "$1" --help | options_in '    '; printf '%s\n' -h --help; } | sort -u
}

# Man pages: render with warnings on; OPTIONS lists what --help lists.
man1=$dest/usr/share/man/man1
for page in btrfs-stream $(for c in $commands; do echo "btrfs-stream-$c"; done); do
	MANWIDTH=80 man --warnings -l "$man1/$page.1" > "$tmp/man.out" 2> "$tmp/man.err"
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$tmp/man.err" ] && grep -q "^NAME" "$tmp/man.out"; then
		ok "man --warnings -l $page.1 renders without warnings"
	else
		not_ok "man --warnings -l $page.1 renders without warnings (exit $rc)"
		sed 's/^/#   /' "$tmp/man.err"
	fi
	long=$(awk 'length > 80' "$tmp/man.out")
	check "$page.1 fits 80 columns" test -z "$long"
	case $page in
	btrfs-stream)
		man_commands=$(awk '/^COMMANDS$/ { f = 1; next } /^[A-Z]/ { f = 0 } f' "$tmp/man.out" |
			sed -n 's/^       \([a-z]\+\)$/\1/p' | sort)
		same "btrfs-stream.1 describes each command" "$commands" "$(echo $man_commands)"
		;;
	*)
		c=${page#btrfs-stream-}
		same "$page.1 documents the options of '$c --help'" "$(help_options "$c")" \
			"$(awk '/^OPTIONS$/ { f = 1; next } /^[A-Z]/ { f = 0 } f' "$tmp/man.out" |
				options_in '       ')"
		;;
	esac
done

# Bash completion, sourced as bash-completion would: complete_line WORDS...
# prints the candidates for the last word, one a line.
completion=$dest/usr/share/bash-completion/completions/btrfs-stream
complete_line() {
	bash -c '. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_btrfs_stream || exit 1
		printf "%s\n" "${COMPREPLY[@]}"' complete_line "$completion" btrfs-stream "$@"
}
same "completion: 'btrfs-stream se' -> send" "send" "$(complete_line se)"
same "completion: 'btrfs-stream d' -> diff, dump" "$(printf 'diff\ndump')" \
	"$(complete_line d | sort)"
same "completion: 'btrfs-stream send --' -> its long options" \
	"$(help_options send | grep -- '^--')" "$(complete_line send -- | sort)"
for c in $commands; do
	same "completion: 'btrfs-stream $c -' -> the options of '$c --help'" \
		"$(help_options "$c")" "$(complete_line "$c" - | sort)"
done
mkdir -p "$tmp/mnt/snap 1" "$tmp/mnt/snap-2"
: > "$tmp/mnt/snap-file"
dirs=$(printf '%s\n' "$tmp/mnt/snap 1" "$tmp/mnt/snap-2")
for args in "send" "send -p" "send -c" "receive" "receive -m" "diff" "diff $tmp/mnt/snap-2"; do
	same "completion: 'btrfs-stream $args DIR' -> directories only" \
		"$dirs" "$(complete_line $args "$tmp/mnt/sn" | sort)"
done
same "completion: 'btrfs-stream dump -f F' -> files" \
	"$(printf '%s\n' "$tmp/mnt/snap 1" "$tmp/mnt/snap-2" "$tmp/mnt/snap-file")" \
	"$(complete_line dump -f "$tmp/mnt/sn" | sort)"
same "completion: 'btrfs-stream help re' -> receive" "receive" "$(complete_line help re)"

echo "1..$n"
[ $failed -eq 0 ]
