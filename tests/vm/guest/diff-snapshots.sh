#!/bin/bash
# Guest: `btrfs-stream diff` on real snapshots of the loaded module.
#
#  1. One snapshot pair with every kind of change (adds, removals, data,
#     mode, owner, times, xattrs, renamed files and directories, moves into
#     new directories, swaps, a rotation, type changes, odd names): the
#     report equals the one written below, in text; --json says the same;
#     `diff -f` of progs' `btrfs send --no-data` stream gives the same
#     report; and an oracle that compares the two trees by inode number
#     agrees with it.
#  2. Hard links and inode flags, against the report written below.
#  3. Random operations (fixed seeds) on a tree, checked by the oracle.
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/sendcli-lib.sh"

M=/tmp/mnt/diff
fresh_btrfs "${DIFF_DEV:-/dev/vdb}" $M noatime || die "mkfs"
cd $M || die "cd"

# report_is NAME OLD NEW: the text report equals $SC_TMP/NAME.want
report_is() {
	"$BS" diff "$2" "$3" > "$SC_TMP/$1.out" || return 1
	diff -u "$SC_TMP/$1.want" "$SC_TMP/$1.out"
}

# same_as_stream NAME OLD NEW: diff -f of progs' --no-data stream agrees
same_as_stream() {
	btrfs -q send --proto 0 --no-data -f "$SC_TMP/$1.nd" -p "$2" "$3" &&
		"$BS" diff -f "$SC_TMP/$1.nd" > "$SC_TMP/$1.fromfile" &&
		diff -u "$SC_TMP/$1.out" "$SC_TMP/$1.fromfile"
}

# oracle_agrees NAME OLD NEW: the JSON report says what the trees say
oracle_agrees() {
	"$BS" diff --json "$2" "$3" > "$SC_TMP/$1.json" &&
		diff_normalize "$SC_TMP/$1.json" > "$SC_TMP/$1.norm" &&
		diff_oracle "$2" "$3" > "$SC_TMP/$1.oracle" &&
		diff -u "$SC_TMP/$1.oracle" "$SC_TMP/$1.norm"
}

# --- 1. every kind of change --------------------------------------------
btrfs -q subvolume create vol
old_tree() {
	cd vol
	mkdir -p d gone/sub/deeper rdir cdir p/c od sd1 sd2 t2
	for f in d/old gone/a gone/sub/b data1 data2 meta timed xa ren-a \
		 rdir/f cdir/f cdir/h mv-a s1 s2 sd1/in1 sd2/in2 rot-a rot-b \
		 rot-c t1 t2/inside rep-a rep-b p/c/file od/keep "old name"; do
		echo "$f" > "$f"
	done
	mkdir mv-d
	setfattr -n user.old -v gone xa
}
strictly "old tree" old_tree
btrfs -q subvolume snapshot -r vol old
changes() {
	cd vol
	echo new > d/new
	mkdir -p top/sub
	echo f > top/sub/f
	echo g > top/g
	rm d/old
	rm -r gone
	echo more >> data1
	truncate -s 2 data2
	chmod 600 meta
	chown 12:34 meta
	touch -d '2001-02-03 04:05:06' timed
	setfattr -n user.new -v 1 xa
	setfattr -x user.old xa
	mv ren-a ren-b
	mv rdir rdir2
	mv cdir cdir2
	echo more >> cdir2/f
	mv cdir2/h cdir2/h2
	mkdir box
	mv mv-a mv-d box/
	mv s1 s-tmp
	mv s2 s1
	mv s-tmp s2
	mv sd1 sd-tmp
	mv sd2 sd1
	mv sd-tmp sd2
	mv rot-a rot-tmp
	mv rot-c rot-a
	mv rot-b rot-c
	mv rot-tmp rot-b
	rm t1
	mkdir t1
	rm -r t2
	ln -s target t2
	mv rep-b rep-a
	mv p q
	mv q/c q/k
	echo more >> q/k/file
	mv od/keep keep2
	rmdir od
	mknod chr c 1 7
	mkfifo fifo
	ln -s somewhere link
	mv "old name" "new name"
	echo x > "$(printf 'tab\there')"
	echo x > "$(printf 'latin\351')"
}
strictly "changes" changes
btrfs -q subvolume snapshot -r vol new
sync
cat > "$SC_TMP/all.want" <<'EOF'
M	/	times
+	/box
R	/mv-a -> /box/mv-a	times
R	/mv-d -> /box/mv-d	times
R	/cdir -> /cdir2	times
M	/cdir2/f	data,times
R	/cdir/h -> /cdir2/h2	times
+	/chr
M	/d	times
+	/d/new
-	/d/old
M	/data1	data,times
M	/data2	data,times
+	/fifo
-	/gone
-	/gone/a
-	/gone/sub
-	/gone/sub/b
-	/gone/sub/deeper
R	/od/keep -> /keep2	times
+	/latin\351
+	/link
M	/meta	mode,owner,times
R	/old\ name -> /new\ name	times
-	/od
R	/p -> /q	times
R	/p/c -> /q/k	times
M	/q/k/file	data,times
R	/rdir -> /rdir2	times
R	/ren-a -> /ren-b	times
-	/rep-a
R	/rep-b -> /rep-a	times
R	/rot-c -> /rot-a	times
R	/rot-a -> /rot-b	times
R	/rot-b -> /rot-c	times
R	/s2 -> /s1	times
R	/s1 -> /s2	times
R	/sd2 -> /sd1	times
R	/sd1 -> /sd2	times
-	/t1
+	/t1
-	/t2
+	/t2
-	/t2/inside
+	/tab\there
M	/timed	times
+	/top
+	/top/g
+	/top/sub
+	/top/sub/f
M	/xa	times,xattrs
EOF
check "every kind of change: the expected report" report_is all old new
check "every kind of change: diff -f of progs' --no-data stream agrees" same_as_stream all old new
check "every kind of change: the oracle agrees" oracle_agrees all old new
check "every kind of change: json lines parse" python3 -c '
import json, sys
for l in open(sys.argv[1]): json.loads(l)' "$SC_TMP/all.json"
check "no change: empty report" sh -c "'$BS' diff old old > $SC_TMP/none && test ! -s $SC_TMP/none"

# --- 2. hard links, inode flags ------------------------------------------
btrfs -q subvolume create hl
old_tree_links() {
	cd hl
	mkdir d
	echo h > h
	echo r > r1
	ln r1 r2
	echo m > m1
	ln m1 m2
	echo f > flagged
}
strictly "old tree (links)" old_tree_links
btrfs -q subvolume snapshot -r hl hl-old
changes_links() {
	cd hl
	ln h d/h2
	rm r2
	echo n > n1
	ln n1 d/n2
	mv m1 x1
	mv m2 x2
	chattr +d flagged
}
strictly "changes (links)" changes_links
btrfs -q subvolume snapshot -r hl hl-new
sync
# m1 and m2 are one file: with the snapshots at hand both are renames.
cat > "$SC_TMP/links.want" <<'EOF'
M	/	times
M	/d	times
+	/d/h2
+	/d/n2
M	/flagged	times,flags
M	/h	times
+	/n1
M	/r1	times
-	/r2
R	/m1 -> /x1	times
R	/m2 -> /x2
EOF
check "hard links and flags: the expected report" report_is links hl-old hl-new
# From a stream alone m2 cannot be known to be m1 (docs/diff.md).
cat > "$SC_TMP/links-f.want" <<'EOF'
M	/	times
M	/d	times
+	/d/h2
+	/d/n2
M	/flagged	times,flags
M	/h	times
-	/m2
+	/n1
M	/r1	times
-	/r2
R	/m1 -> /x1	times
+	/x2
EOF
check "hard links and flags: diff -f of progs' --no-data stream, as a stream says it" \
	bash -o pipefail -c "btrfs -q send --proto 0 --no-data -f $SC_TMP/links.nd -p hl-old hl-new && '$BS' diff -f $SC_TMP/links.nd | diff -u $SC_TMP/links-f.want -"

# stream_agrees NAME OLD NEW: diff -f of progs' --no-data stream says what
# diff OLD NEW says, but for times the old snapshot showed did not move
stream_agrees() {
	"$BS" diff "$2" "$3" > "$SC_TMP/$1.out" &&
		btrfs -q send --no-data -p "$2" -f "$SC_TMP/$1.nd" "$3" &&
		"$BS" diff -f "$SC_TMP/$1.nd" > "$SC_TMP/$1.fromfile" &&
		same_but_times "$SC_TMP/$1.out" "$SC_TMP/$1.fromfile"
}

# --- 3. random operations ------------------------------------------------
btrfs -q subvolume create rnd
python3 - rnd <<'PY' || die "random tree"
import os, random, sys
rnd = random.Random(1)
top = sys.argv[1]
dirs = [top]
for i in range(60):
    d = os.path.join(rnd.choice(dirs), 'd%d' % i)
    os.mkdir(d)
    dirs.append(d)
for i in range(400):
    with open(os.path.join(rnd.choice(dirs), 'f%d' % i), 'wb') as f:
        f.write(rnd.randbytes(rnd.choice([0, 10, 5000, 70000])))
PY
btrfs -q subvolume snapshot -r rnd rnd0
for seed in 1 2 3; do
	python3 - rnd $seed <<'PY' || die "random operations"
import os, random, shutil, stat, sys
top, seed = sys.argv[1], int(sys.argv[2])
rnd = random.Random(seed)
def walk():
    dirs, files = [], []
    for d, ds, fs in os.walk(top):
        dirs.append(d)
        files += [os.path.join(d, f) for f in fs]
    return dirs, files
n = 0
for step in range(120):
    dirs, files = walk()
    op = rnd.choice(['create', 'write', 'truncate', 'chmod', 'chown', 'xattr',
                     'touch', 'mvfile', 'mvdir', 'mkdir', 'rm', 'rmtree',
                     'symlink', 'swap'])
    n += 1
    name = 's%d-%d' % (seed, n)
    try:
        if op == 'create':
            with open(os.path.join(rnd.choice(dirs), name), 'wb') as f:
                f.write(rnd.randbytes(rnd.choice([1, 4096, 100000])))
        elif not files:
            continue
        elif op == 'write':
            with open(rnd.choice(files), 'r+b') as f:
                # every byte written differs from the one it replaces: a
                # write that happens to repeat the old content is a change
                # the stream reports but the trees cannot show
                pos = rnd.choice([0, 4096, 50000])
                data = bytearray(rnd.randbytes(rnd.choice([1, 5000])))
                f.seek(pos)
                for i, b in enumerate(f.read(len(data))):
                    if data[i] == b:
                        data[i] ^= 0xff
                f.seek(pos)
                f.write(data)
        elif op == 'truncate':
            os.truncate(rnd.choice(files), rnd.choice([0, 3, 9000]))
        elif op == 'chmod':
            os.chmod(rnd.choice(files + dirs[1:] or files), rnd.choice([0o600, 0o755, 0o640, 0o4755]))
        elif op == 'chown':
            os.lchown(rnd.choice(files), rnd.choice([0, 1, 1000]), rnd.choice([0, 2, 100]))
        elif op == 'xattr':
            p = rnd.choice(files)
            if rnd.random() < 0.7:
                os.setxattr(p, 'user.k%d' % rnd.randrange(3), rnd.randbytes(5))
            elif os.listxattr(p):
                os.removexattr(p, os.listxattr(p)[0])
        elif op == 'touch':
            p = rnd.choice(files)
            os.utime(p, (rnd.randrange(10**9), rnd.randrange(10**9)))
        elif op == 'mvfile':
            src = rnd.choice(files)
            dst = os.path.join(rnd.choice(dirs), rnd.choice([name, os.path.basename(rnd.choice(files))]))
            if not os.path.isdir(dst):
                os.rename(src, dst)
        elif op == 'mvdir' and len(dirs) > 1:
            src = rnd.choice(dirs[1:])
            dst = rnd.choice(dirs)
            if not (dst + '/').startswith(src + '/'):
                os.rename(src, os.path.join(dst, name))
        elif op == 'mkdir':
            os.mkdir(os.path.join(rnd.choice(dirs), name))
        elif op == 'rm':
            os.unlink(rnd.choice(files))
        elif op == 'rmtree' and len(dirs) > 1 and rnd.random() < 0.3:
            shutil.rmtree(rnd.choice(dirs[1:]))
        elif op == 'symlink':
            os.symlink(rnd.choice(['x', '../y', name]), os.path.join(rnd.choice(dirs), name))
        elif op == 'swap':
            a, b = rnd.choice(files), rnd.choice(files)
            if a != b and os.path.exists(a) and os.path.exists(b):
                t = a + '.swap'
                os.rename(a, t); os.rename(b, a); os.rename(t, b)
    except OSError:
        pass
PY
	btrfs -q subvolume snapshot -r rnd rnd$seed
	sync
	prev=rnd$((seed - 1))
	check "random operations, seed $seed: the oracle agrees" oracle_agrees rnd$seed $prev rnd$seed
	echo "# seed $seed: $(wc -l < "$SC_TMP/rnd$seed.norm") changed paths"
	check "random operations, seed $seed: diff -f of progs' --no-data stream agrees" \
		stream_agrees rnd$seed $prev rnd$seed
done
check "random operations, all seeds at once: the oracle agrees" oracle_agrees rndall rnd0 rnd3
tap_done
