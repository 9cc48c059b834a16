# The source trees of the receive roundtrip tests, shared by
# receive-roundtrip.sh (btrfs destinations) and receive-anywhere.sh
# (plain destinations); source it after tests/vm/lib-guest.sh.

# vol: every file type plus inline, fallocated, reflinked and capability
# files; A, then B and C after renames, moves, deletions, type changes...
populate_vol() {
	local d=$1
	make_every_file_type "$d" || return 1
	head -c 100 /dev/urandom > "$d/inline-100"
	head -c 2000 /dev/urandom > "$d/dir/inline-2000"
	fallocate -l 1M "$d/falloc"
	echo head > "$d/falloc-keep"
	fallocate -n -o 4096 -l 1M "$d/falloc-keep"
	cp --reflink=always "$d/large" "$d/dir/reflink"
	head -c 300000 /dev/urandom > "$d/partial"
	mkdir -p "$d/tree/a/b/c" "$d/tree/x"
	for i in $(seq 1 40); do echo "file $i" > "$d/tree/a/f$i"; done
	for i in $(seq 1 10); do echo "deep $i" > "$d/tree/a/b/c/g$i"; done
	ln -s a/b "$d/tree/lnk"
	echo cap > "$d/cap"
	chown 1000:1000 "$d/cap"
	chmod 0750 "$d/cap"
	setfattr -n security.capability -v 0x0100000200200000000000000000000000000000 "$d/cap"
	echo "no-atime" > "$d/attr-a"
	echo "immutable" > "$d/attr-i"
	mkdir "$d/swap1" "$d/swap2"
	echo one > "$d/swap1/f"
	echo two > "$d/swap2/f"
	echo typechange > "$d/t-file"
	mkdir "$d/t-dir" && echo inner > "$d/t-dir/inner"
	ln -s small "$d/t-link"
}

mutate_vol_b() {
	local d=$1
	mv "$d/tree/a/f1" "$d/tree/a/f1-renamed"
	mv "$d/tree/a/f2" "$d/tree/x/f2-moved"
	mv "$d/tree/a/b" "$d/tree/x/b-moved"
	mv "$d/tree/x" "$d/tree/a/x-under-a"
	rm "$d/tree/a/f3" "$d/tree/a/f4"
	rm -r "$d/empty-dir"
	mv "$d/swap1" "$d/swap-tmp" && mv "$d/swap2" "$d/swap1" && mv "$d/swap-tmp" "$d/swap2"
	rm "$d/t-file" && mkdir "$d/t-file" && echo now-dir > "$d/t-file/x"
	rm -r "$d/t-dir" && ln -s nowhere "$d/t-dir"
	rm "$d/t-link" && echo now-file > "$d/t-link"
	ln "$d/tree/a/f5" "$d/tree/a/f5-link"
	rm "$d/link3"
	setfattr -n user.one -v changed "$d/xattrs"
	setfattr -x user.empty "$d/xattrs"
	setfacl -m u:1001:r "$d/small"
	truncate -s 1000000 "$d/large"
	head -c 5000 /dev/urandom >> "$d/small"
	dd if=/dev/urandom of="$d/partial" bs=4096 seek=10 count=3 conv=notrunc status=none
	fallocate -p -o 65536 -l 131072 "$d/partial"
	chmod 4711 "$d/setgid"
	chown 2000:2000 "$d/setuid"
	chmod 4755 "$d/setuid"
	cp --reflink=always "$d/partial" "$d/tree/reflink-of-partial"
	touch -d '2010-01-01 00:00:00' "$d/small"
	chattr +A "$d/attr-a"
	chattr +i "$d/attr-i"
}

mutate_vol_c() {
	local d=$1
	for i in $(seq 5 30); do mv "$d/tree/a/f$i" "$d/tree/a/r$i"; done
	mv "$d/tree/a" "$d/tree/renamed-a"
	rm -r "$d/dir/sub"
	echo appended >> "$d/swap1/f"
	mkdir "$d/newdir" && echo new > "$d/newdir/new"
	# immutable since B: our B has the flag, the stream changes the data
	chattr -i "$d/attr-i" && echo more >> "$d/attr-i" && chattr +i "$d/attr-i"
}

# cvol: compressed extents with zstd, zlib and lzo, including inline ones
# and extents referenced from their middle.
populate_cvol() {
	local d=$1 c
	for c in zstd zlib lzo; do
		mkdir "$d/$c"
		btrfs property set "$d/$c" compression $c || return 1
		seq 1 250000 > "$d/$c/text"
		yes "compressible line for $c" | head -c 3000 > "$d/$c/inline"
		yes "$c data" | head -c 1000000 > "$d/$c/split"
		sync
		dd if=/dev/urandom of="$d/$c/split" bs=4096 seek=50 count=2 conv=notrunc status=none
	done
}

mutate_cvol_b() {
	local d=$1 c
	for c in zstd zlib lzo; do
		seq 300000 400000 >> "$d/$c/text"
		yes "more $c" | head -c 200000 > "$d/$c/new"
		mv "$d/$c/inline" "$d/$c/inline-moved"
	done
}
