# Scenarios of the incremental send test (issue 5); sourced by
# tests/vm/guest/send-incremental.sh, which runs them.
#
# Each scenario is registered with `scenario NAME FLAGS DESCRIPTION` and
# defined by functions of DIR (the scenario's subvolume):
#   pop_NAME DIR    what snapshot A holds
#   mut_NAME DIR    what changes between A and B
#   mut2_NAME DIR   optional: a further change, snapshot C, sent -p B
#   chk_NAME        optional: assertions on the streams that any correct
#                   sender meets ($ST/NAME.MODE.dump; see `in_dump`)
#   ours_NAME       optional, registered with `ours NAME DESCRIPTION`:
#                   what issue 5 asks of our send beyond what the 6.1 code
#                   does (fallocate punch-hole, fileattr, utimes once per
#                   directory); its own TAP line
# A snapshot $SRC/NAME.CS made by pop_NAME is a clone source (send -c).
# FLAGS: d = data scenario: populated and mutated on a compress=zstd
#            mount and also sent with --compressed-data;
#        f = compare without chattr flags (see `cmp_opts` in the driver);
#        o = what issue 5 asks beyond the 6.1 code: the whole scenario is
#            reported like an ours_NAME check (skipped while 6.1 sends).

# --- inodes ---------------------------------------------------------------

# New inodes of every type, some in new directories, one with two links.
scenario new_inodes - "new inodes of every type"
pop_new_inodes() { mkdir "$1/old" && echo old > "$1/old/f"; }
mut_new_inodes() {
	local d=$1
	mkdir -p "$d/new/sub"
	echo new > "$d/new/file" && ln "$d/new/file" "$d/old/file-link"
	head -c 200000 /dev/urandom > "$d/old/big"
	ln -s ../old/f "$d/new/sub/sym"
	mkfifo "$d/new/fifo"
	mknod "$d/new/chr" c 1 3 && mknod "$d/old/blk" b 7 0
	make_socket "$d/new/sock"
	mkdir "$d/new/empty"
}

# Deleted inodes of every type, including whole directories.
scenario deleted_inodes - "deleted inodes of every type"
pop_deleted_inodes() { every_type "$1"; }
mut_deleted_inodes() {
	local d=$1
	rm -f "$d/small" "$d/large" "$d/sparse" "$d/fifo" "$d/socket" \
		"$d/chardev" "$d/blockdev" "$d/dangling" "$d/xattrs"
	rm -r "$d/dir" "$d/empty-dir"
}

# Existing inodes changed in place: data, size, owner, times, xattrs.
scenario changed_inodes - "changed inodes of every type"
pop_changed_inodes() { every_type "$1"; }
mut_changed_inodes() {
	local d=$1
	echo changed >> "$d/small"
	dd if=/dev/urandom of="$d/large" bs=4096 seek=5 count=2 conv=notrunc status=none
	chmod 600 "$d/fifo" && chown 5:6 "$d/chardev"
	chown -h 7:8 "$d/dir/symlink"
	touch -d '2005-05-05 05:05:05' "$d/blockdev"
	setfattr -n user.new -v v "$d/socket"
	echo entry > "$d/dir/sub/new-entry"
}

# Inode numbers reused with a new generation.  btrfs hands out numbers
# from a per-subvolume counter that only grows while mounted; at mount it
# restarts after the highest number still in the tree.  So deleting the
# newest inodes, remounting and creating again reuses their numbers, as
# on any machine that reboots between snapshots.  The send must see a
# delete plus a create, even at the same name and with a different type.
scenario ino_reuse - "inode numbers reused with a new generation"
pop_ino_reuse() {
	local d=$1
	mkdir "$d/keep" && echo keep > "$d/keep/k"
	echo "old same-name" > "$d/same"          # reused at the same name
	mkdir "$d/wasdir" && echo x > "$d/wasdir/x" # dir then file
	echo "old moved" > "$d/other"              # reused under a new name
	chmod 640 "$d/same" && setfattr -n user.old -v 1 "$d/same"
}
mut_ino_reuse() {
	local d=$1 before after
	before=$(ino_gen "$d/same" "$d/wasdir" "$d/wasdir/x" "$d/other")
	rm -r "$d/same" "$d/wasdir" "$d/other"
	remount_src || return 1
	echo "new same-name" > "$d/same"  # created in the order of the old
	echo "file now" > "$d/wasdir"
	mkdir "$d/keep/newdir"
	echo "new at another name" > "$d/keep/newdir/moved"
	after=$(ino_gen "$d/same" "$d/wasdir" "$d/keep/newdir" "$d/keep/newdir/moved")
	reused "$before" "$after"
}

# A regular file replaced by a directory at the same name, and back (C).
scenario type_file_dir - "type change: file to directory and back"
pop_type_file_dir() { echo file > "$1/x" && mkdir "$1/p" && echo f > "$1/p/y"; }
mut_type_file_dir() {
	rm "$1/x" && mkdir "$1/x" && echo inner > "$1/x/inner"
	rm "$1/p/y" && mkdir -p "$1/p/y/z"
}
mut2_type_file_dir() {
	rm -r "$1/x" && echo "file again" > "$1/x"
	rm -r "$1/p/y" && echo back > "$1/p/y"
}

# A directory with children replaced by a file; the children move away.
scenario type_dir_file - "type change: directory to file, children kept elsewhere"
pop_type_dir_file() { mkdir -p "$1/d/e" && echo c > "$1/d/c" && echo g > "$1/d/e/g"; }
mut_type_dir_file() {
	mv "$1/d/c" "$1/c" && mv "$1/d/e" "$1/e"
	rmdir "$1/d" && echo now-file > "$1/d"
}

# Special files change type at the same names.
scenario type_special - "type change: symlink to fifo, devices, socket to file"
pop_type_special() {
	ln -s target "$1/a" && mkfifo "$1/b" && mknod "$1/c" c 1 5 &&
	make_socket "$1/s" && mknod "$1/blk" b 7 1
}
mut_type_special() {
	local d=$1
	rm "$d/a" && mkfifo "$d/a"
	rm "$d/b" && ln -s fifo-was-here "$d/b"
	rm "$d/c" && mknod "$d/c" b 1 5
	rm "$d/s" && echo file > "$d/s"
	rm "$d/blk" && mknod "$d/blk" b 7 2
}

# --- names and paths -----------------------------------------------------

scenario rename_files - "files renamed within their directory"
pop_rename_files() { mkdir "$1/d" && for i in 1 2 3 4; do echo $i > "$1/d/f$i"; done; }
mut_rename_files() { mv "$1/d/f1" "$1/d/g1" && mv "$1/d/f2" "$1/d/a-much-longer-name-than-before"; }

scenario move_files - "files moved across directories"
pop_move_files() { mkdir -p "$1/a/b" "$1/c" && for i in 1 2 3; do echo $i > "$1/a/b/f$i"; done; }
mut_move_files() { mv "$1/a/b/f1" "$1/c/" && mv "$1/a/b/f2" "$1/f2-top" && mv "$1/a/b/f3" "$1/a/"; }

scenario rename_dirs - "directories renamed and moved with their contents"
pop_rename_dirs() {
	mkdir -p "$1/a/b/c" "$1/x" && echo deep > "$1/a/b/c/f" && echo mid > "$1/a/b/m"
}
mut_rename_dirs() { mv "$1/a/b" "$1/x/b2" && mv "$1/a" "$1/a2" && mv "$1/x" "$1/a2/x"; }

# Two names swapped: files, and directories with contents.
scenario swap_files - "two file names swapped"
pop_swap_files() { echo one > "$1/one" && echo two > "$1/two" && mkdir "$1/d" && echo three > "$1/d/three"; }
mut_swap_files() {
	mv "$1/one" "$1/tmp" && mv "$1/two" "$1/one" && mv "$1/tmp" "$1/two"
	mv "$1/d/three" "$1/tmp" && mv "$1/one" "$1/d/three" && mv "$1/tmp" "$1/one"
}

scenario swap_dirs - "two directory names swapped, nested too"
pop_swap_dirs() {
	mkdir -p "$1/a/in-a" "$1/b/in-b" && echo a > "$1/a/fa" && echo b > "$1/b/fb"
	mkdir -p "$1/a/in-a/deep" && echo d > "$1/a/in-a/deep/f"
}
mut_swap_dirs() {
	mv "$1/a" "$1/t" && mv "$1/b" "$1/a" && mv "$1/t" "$1/b"
	mv "$1/b/in-a" "$1/t" && mv "$1/a/in-b" "$1/b/in-a" && mv "$1/t" "$1/a/in-b"
}

# Rotations a->b->c->a of files and of directories.
scenario chain_files - "chain of file renames a->b->c->a"
pop_chain_files() { for n in a b c; do echo $n > "$1/$n"; done; }
mut_chain_files() { mv "$1/a" "$1/t" && mv "$1/c" "$1/a" && mv "$1/b" "$1/c" && mv "$1/t" "$1/b"; }

scenario chain_dirs - "chain of directory renames a->b->c->a"
pop_chain_dirs() { for n in a b c; do mkdir "$1/$n" && echo $n > "$1/$n/f"; done; }
mut_chain_dirs() { mv "$1/a" "$1/t" && mv "$1/c" "$1/a" && mv "$1/b" "$1/c" && mv "$1/t" "$1/b"; }

# A directory moved into what was its own descendant: a/b/c becomes
# c/b/a (inverted nesting) and p/q becomes q/p.
scenario dir_into_descendant - "directory moved into its former descendant"
pop_dir_into_descendant() {
	mkdir -p "$1/a/b/c" "$1/p/q" && echo fa > "$1/a/fa" && echo fc > "$1/a/b/c/fc"
	echo fq > "$1/p/q/fq"
}
mut_dir_into_descendant() {
	local d=$1
	mv "$d/a/b/c" "$d/c" && mv "$d/a/b" "$d/c/b" && mv "$d/a" "$d/c/b/a"
	mv "$d/p/q" "$d/q" && mv "$d/p" "$d/q/p"
}

scenario dir_under_new_dir - "directory moved under a new directory"
pop_dir_under_new_dir() { mkdir -p "$1/old/sub" && echo f > "$1/old/sub/f"; }
mut_dir_under_new_dir() { mkdir -p "$1/new1/new2" && mv "$1/old" "$1/new1/new2/old"; }

# New directories under new directories under a moved directory.
scenario new_under_moved - "new dir under new dir under a moved directory"
pop_new_under_moved() { mkdir -p "$1/a/moving" "$1/b" && echo m > "$1/a/moving/m"; }
mut_new_under_moved() {
	mv "$1/a/moving" "$1/b/moved"
	mkdir -p "$1/b/moved/n1/n2" && echo deep > "$1/b/moved/n1/n2/f"
}

# A parent deleted while its children, files and dirs, moved elsewhere.
scenario parent_deleted - "parent deleted, its children moved elsewhere"
pop_parent_deleted() {
	mkdir -p "$1/p/kid/grandkid" "$1/q" && echo f > "$1/p/f" && echo g > "$1/p/kid/grandkid/g"
}
mut_parent_deleted() {
	mv "$1/p/f" "$1/q/f" && mv "$1/p/kid" "$1/q/kid" && rmdir "$1/p"
}

# The same name, emptied by a rename, taken by another rename.
scenario name_freed_rename - "name freed by a rename and taken by another"
pop_name_freed_rename() {
	echo a > "$1/a" && echo b > "$1/b" && mkdir "$1/d1" "$1/d2" && echo x > "$1/d1/x"
}
mut_name_freed_rename() {
	mv "$1/a" "$1/a-new" && mv "$1/b" "$1/a"
	mv "$1/d1" "$1/d1-new" && mv "$1/d2" "$1/d1"
}

# The same name, emptied by a rename or a deletion, taken by a new inode,
# of the same type and of another.
scenario name_freed_new - "name freed by a rename, taken by a new inode"
pop_name_freed_new() { echo a > "$1/a" && mkdir "$1/d" && echo x > "$1/d/x" && echo g > "$1/gone"; }
mut_name_freed_new() {
	mv "$1/a" "$1/a-moved" && echo "new a" > "$1/a"
	mv "$1/d" "$1/d-moved" && mkdir "$1/d" && echo y > "$1/d/y"
	rm "$1/gone" && mkdir "$1/gone"
}

# A directory removed whose name is taken by a directory moved from
# inside it.
scenario name_from_child - "child directory takes its removed parent's name"
pop_name_from_child() { mkdir -p "$1/a/a/x" && echo f > "$1/a/a/x/f" && echo o > "$1/a/other"; }
mut_name_from_child() { mv "$1/a" "$1/old" && mv "$1/old/a" "$1/a" && rm -r "$1/old"; }

# --- hard links -----------------------------------------------------------

scenario links_added - "hard links added, across directories"
pop_links_added() { mkdir "$1/d1" "$1/d2" && echo one > "$1/d1/f" && ln "$1/d1/f" "$1/d1/l"; }
mut_links_added() { ln "$1/d1/f" "$1/d2/l2" && ln "$1/d1/f" "$1/l3" && ln "$1/d1/f" "$1/d1/l4"; }

scenario links_removed - "some of several hard links removed"
pop_links_removed() {
	mkdir "$1/d" && echo one > "$1/f"
	for i in 1 2 3 4 5; do ln "$1/f" "$1/d/l$i"; done
}
mut_links_removed() { rm "$1/d/l2" "$1/d/l4" "$1/f"; }

scenario links_renamed - "hard links renamed among several links"
pop_links_renamed() {
	mkdir "$1/a" "$1/b" && echo one > "$1/a/l1"
	ln "$1/a/l1" "$1/a/l2" && ln "$1/a/l1" "$1/b/l3" && echo other > "$1/a/o"
}
mut_links_renamed() {
	mv "$1/a/l1" "$1/a/l1-renamed" && mv "$1/a/l2" "$1/b/l2" && mv "$1/b/l3" "$1/a/l2"
	mv "$1/a/o" "$1/a/l3" && mv "$1/a/l3" "$1/b/l3"
}

# Every old link of an inode replaced: the inode survives under new names
# only, and its old names now belong to other inodes.
scenario links_replaced - "last old hard link replaced by a new one"
pop_links_replaced() { mkdir "$1/d" && echo one > "$1/f" && ln "$1/f" "$1/d/g"; }
mut_links_replaced() {
	ln "$1/f" "$1/d/new" && rm "$1/f" "$1/d/g"
	echo "other inode" > "$1/f" && ln "$1/f" "$1/d/g"
}

scenario file_to_hardlink - "file replaced by a hard link to another file"
pop_file_to_hardlink() { echo f > "$1/f" && mkdir "$1/d" && echo g > "$1/d/g"; }
mut_file_to_hardlink() { rm "$1/f" && ln "$1/d/g" "$1/f"; }

# Links swapped between two inodes across directories.
scenario links_swapped - "hard link names swapped between two inodes"
pop_links_swapped() {
	mkdir "$1/x" "$1/y" && echo X > "$1/x/a" && ln "$1/x/a" "$1/y/a"
	echo Y > "$1/x/b" && ln "$1/x/b" "$1/y/b"
}
mut_links_swapped() { mv "$1/y/a" "$1/t" && mv "$1/y/b" "$1/y/a" && mv "$1/t" "$1/y/b"; }

# --- inodes open without a name --------------------------------------------

# Inodes open without a name while a snapshot is taken.  btrfs runs orphan
# cleanup on every new snapshot, so the snapshot never holds them (checked
# here: if a kernel ever kept them, these scenarios would reach the names
# pass's branch for inodes without links and say so); the source
# subvolume does.  What the user sees must still come out right.

# An O_TMPFILE open while A is taken and linked before B: new in B.
scenario tmpfile_linked - "O_TMPFILE open during A, linked before B"
pop_tmpfile_linked() {
	echo other > "$1/other" && hold_open tmpfile "$1" "$ST/tmpfile_linked.hold" &&
		[ "$(nlink0_inodes "$1")" -ge 1 ]
}
mut_tmpfile_linked() { release "$ST/tmpfile_linked.hold" && test -s "$1/linked"; }
chk_tmpfile_linked() {
	local n
	n=$(nlink0_inodes "$SRC/$S.A")
	[ "$n" = 0 ] || { echo "A holds $n inodes without links: the send took the no-links branch"; return 1; }
	each_dump has write linked
}

# A file unlinked but still open while B is taken, closed before C.
scenario unlinked_open - "file unlinked but open during B, closed before C"
pop_unlinked_open() { mkdir "$1/d" && echo doomed > "$1/d/doomed" && echo kept > "$1/d/kept"; }
mut_unlinked_open() {
	hold_open file "$1/d/doomed" "$ST/unlinked_open.hold" && rm "$1/d/doomed"
}
mut2_unlinked_open() { release "$ST/unlinked_open.hold"; }
chk_unlinked_open() {
	local n
	n=$(nlink0_inodes "$SRC/$S.B")
	[ "$n" = 0 ] || { echo "B holds $n inodes without links: the send took the no-links branch"; return 1; }
	each_dump has unlink d/doomed
}

# --- large directory operations --------------------------------------------

scenario deep_rename - "deep directory with 2000 files renamed and moved"
pop_deep_rename() {
	mkdir -p "$1/a/b/c/d/big" "$1/x/y"
	many_files "$1/a/b/c/d/big" 2000
}
mut_deep_rename() { mv "$1/a/b/c/d/big" "$1/x/y/big-renamed" && mv "$1/a/b" "$1/x/b"; }

scenario rmdir_nested - "nested trees removed"
pop_rmdir_nested() {
	mkdir -p "$1/t/1/2/3/4/5/6" "$1/keep"
	for p in t t/1 t/1/2 t/1/2/3 t/1/2/3/4/5/6; do many_files "$1/$p" 20; done
	ln "$1/t/1/f0003" "$1/keep/linked"
	mkdir -p "$1/t2/a/b" "$1/t2/c"
}
mut_rmdir_nested() { rm -r "$1/t" "$1/t2"; }

# One directory whose 100 entries change gets one UTIMES, not 100.
scenario utimes_once - "one utimes for a directory with 100 changed entries"
pop_utimes_once() { mkdir "$1/d" && many_files "$1/d" 50; }
mut_utimes_once() {
	perl -e 'for (0..49) { rename(sprintf("%s/f%04d", $ARGV[0], $_), "$ARGV[0]/r$_") or die "$!" }' "$1/d" &&
	many_files "$1/d" 50 n
}
ours utimes_once "exactly one UTIMES for the directory"
ours_utimes_once() { each_dump count_in utimes d | all_eq 1; }

# --- data ----------------------------------------------------------------

# Only the changed file has WRITEs; 20 unchanged ones have none.
scenario data_only_changed d "only changed extents are sent"
pop_data_only_changed() {
	local i
	for i in $(seq 1 20); do head -c 100000 /dev/urandom > "$1/u$i"; done
	head -c 1000000 /dev/urandom > "$1/changed"
}
mut_data_only_changed() { write_random "$1/changed" 204800 8192; }
chk_data_only_changed() {
	each_dump all_writes_to changed && each_dump bytes_written changed | all_eq 8192
}

# A reflink inside B to an old file, whole and partial: CLONE, no WRITE.
scenario data_clone d "reflinks to old files become CLONE"
pop_data_clone() { head -c 1048576 /dev/urandom > "$1/old" && echo x > "$1/part"; }
mut_data_clone() {
	cp --reflink=always "$1/old" "$1/copy"
	clone_range "$1/old" 262144 "$1/part" 0 131072
}
chk_data_clone() {
	each_dump has clone copy && each_dump has clone part && each_dump lacks write copy
}

# Extents shared with a clone source given by -c.
scenario data_clone_src d "extents shared with a clone source (-c)"
pop_data_clone_src() {
	btrfs -q subvolume create "$SRC/data_clone_src-csrc" &&
	head -c 524288 /dev/urandom > "$SRC/data_clone_src-csrc/big" &&
	btrfs -q subvolume snapshot -r "$SRC/data_clone_src-csrc" "$SRC/data_clone_src.CS" &&
	echo own > "$1/own"
}
mut_data_clone_src() { cp --reflink=always "$SRC/data_clone_src.CS/big" "$1/from-csrc"; }
chk_data_clone_src() { each_dump has clone from-csrc && each_dump lacks write from-csrc; }

scenario data_truncate d "file shrunk: TRUNCATE, no WRITE"
pop_data_truncate() { head -c 1048576 /dev/urandom > "$1/f" && head -c 10000 /dev/urandom > "$1/g"; }
mut_data_truncate() { truncate -s 100000 "$1/f" && truncate -s 0 "$1/g"; }
chk_data_truncate() {
	each_dump has truncate f && each_dump lacks write f && each_dump has truncate g
}

# A punched range: v2 sends FALLOCATE punch-hole, no zeros.
scenario data_punch d "holes punched in place of deleted ranges"
pop_data_punch() { head -c 1048576 /dev/urandom > "$1/f"; }
mut_data_punch() { fallocate -p -o 65536 -l 262144 "$1/f"; }
chk_data_punch() {
	has_line v2 "fallocate ./data_punch.B/f mode=3 offset=65536 len=262144" &&
	no_write_within v2 f 65536 262144
}

scenario data_grow d "files grown sparse and by appending"
pop_data_grow() { head -c 1048576 /dev/urandom > "$1/sparse" && head -c 1048576 /dev/urandom > "$1/app"; }
mut_data_grow() {
	truncate -s 5M "$1/sparse"
	head -c 300000 /dev/urandom >> "$1/app"
}
chk_data_grow() {
	each_dump has truncate sparse && each_dump lacks write sparse &&
	each_dump writes_from app 1048576
}

# Overwritten middle ranges: exactly those bytes are written.
scenario data_overwrite d "middle ranges overwritten"
pop_data_overwrite() { head -c 2097152 /dev/urandom > "$1/f"; }
mut_data_overwrite() { write_random "$1/f" 524288 12288 && write_random "$1/f" 1572864 8192; }
chk_data_overwrite() { each_dump bytes_written f | all_eq 20480; }

# Compressed extents sent as ENCODED_WRITE with --compressed-data.
scenario data_compressed d "compressed extents: ENCODED_WRITE"
pop_data_compressed() { seq 1 300000 > "$1/text"; }
mut_data_compressed() { seq 1 100000 >> "$1/text" && seq 5 200000 > "$1/new"; }
chk_data_compressed() {
	has enc encoded_write new && lacks v2 encoded_write new
}

# --- metadata -------------------------------------------------------------

scenario xattrs - "xattrs added, changed, removed"
pop_xattrs() {
	echo f > "$1/f" && mkdir "$1/d"
	setfattr -n user.keep -v k "$1/f" && setfattr -n user.change -v old "$1/f"
	setfattr -n user.gone -v g "$1/f" && setfattr -n user.dgone -v g "$1/d"
}
mut_xattrs() {
	setfattr -n user.change -v "new and longer" "$1/f" && setfattr -x user.gone "$1/f"
	setfattr -n user.added -v a "$1/f" && setfattr -x user.dgone "$1/d"
	setfattr -n trusted.t -v t "$1/d"
}
chk_xattrs() { each_dump has set_xattr f && each_dump has remove_xattr f; }

scenario acls - "ACLs added, changed, removed, default ACLs"
pop_acls() {
	echo f > "$1/f" && echo g > "$1/g" && mkdir "$1/d"
	setfacl -m u:1000:rw "$1/f" && setfacl -m u:1001:r "$1/g"
}
mut_acls() {
	setfacl -m u:1000:r,g:100:rwx "$1/f" && setfacl -b "$1/g"
	setfacl -d -m u:1002:rwx "$1/d" && echo inherits > "$1/d/child"
}

# Owner and mode changed together; chown clears setuid, so receive must
# see the chmod after the chown.
scenario chmod_chown - "chmod and chown, setuid set with a new owner"
pop_chmod_chown() {
	echo s > "$1/suid" && chmod 4700 "$1/suid"
	echo m > "$1/mode" && mkdir "$1/dir" && ln -s t "$1/sym"
}
mut_chmod_chown() {
	chown 1000:1000 "$1/suid" && chmod 4755 "$1/suid"
	chmod 0600 "$1/mode" && chown 2:3 "$1/dir" && chmod 2775 "$1/dir"
	chown -h 4:5 "$1/sym"
}
chk_chmod_chown() { each_dump has chown suid && each_dump has chmod suid; }

# Only the owner changes and the mode stays 4755: the stream must still
# send the mode after the owner, because chown on the receiving side
# clears setuid.  The 6.1 code sends CHOWN alone and the copy loses its
# setuid bit.
scenario chown_setuid o "chown only: setuid kept"
pop_chown_setuid() { echo s > "$1/suid" && chmod 4755 "$1/suid" && mkdir "$1/sgid" && chmod 2775 "$1/sgid"; }
mut_chown_setuid() { chown 1000:1000 "$1/suid" "$1/sgid" && chmod 4755 "$1/suid" && chmod 2775 "$1/sgid"; }
chk_chown_setuid() { each_dump has chown suid && each_dump has chmod suid; }

# Only times change: nothing but UTIMES in the stream.
scenario utimes_only - "utimes only"
pop_utimes_only() { echo f > "$1/f" && mkdir "$1/d" && ln -s f "$1/l"; }
mut_utimes_only() {
	touch -d '2011-11-11 11:11:11.5' "$1/f" "$1/d" && touch -h -d '2012-01-01' "$1/l"
}
chk_utimes_only() { each_dump only_cmds snapshot utimes; }

# A == B: nothing to do.
scenario empty - "empty incremental (A == B)"
pop_empty() { every_type "$1"; }
mut_empty() { :; }
chk_empty() { each_dump only_cmds snapshot utimes; }

# chattr flags changed: v2 FILEATTR; btrfs receive ignores FILEATTR, so
# the trees are compared without flags.
scenario chattr f "chattr flags changed"
pop_chattr() { echo a > "$1/a" && echo b > "$1/b" && chattr +A "$1/b" && mkdir "$1/d"; }
mut_chattr() { chattr +d "$1/a" && chattr -A "$1/b" && chattr +S "$1/d"; }
chk_chattr() {
	has v2 fileattr a && has v2 fileattr b && has v2 fileattr d && lacks v1 fileattr a
}
