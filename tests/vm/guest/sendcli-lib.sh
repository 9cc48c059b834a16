# Helpers for the guest scripts of `btrfs-stream send` and `diff`
# (sendcli-*.sh, diff-*.sh); source after tests/vm/lib-guest.sh.
#
# BTRFS_STREAM overrides the binary under test (default: this checkout's).

BS=${BTRFS_STREAM:-$VM_TOP/build/bin/btrfs-stream}
SC_TMP=${SC_TMP:-/tmp/sendcli}
mkdir -p "$SC_TMP"

# same_stream ARGS...: `btrfs-stream send ARGS` and btrfs-progs `btrfs send
# ARGS` both succeed and write the same bytes.  For check().
same_stream() {
	"$BS" send -q "$@" > "$SC_TMP/ours" 2> "$SC_TMP/ours.err" ||
		{ echo "btrfs-stream send $* failed:"; cat "$SC_TMP/ours.err"; return 1; }
	btrfs -q send "$@" > "$SC_TMP/progs" 2> "$SC_TMP/progs.err" ||
		{ echo "btrfs send $* failed:"; cat "$SC_TMP/progs.err"; return 1; }
	stream_equal "$SC_TMP/ours" "$SC_TMP/progs"
}

# stream_equal OURS PROGS: identical bytes, else show where they differ.
stream_equal() {
	cmp "$1" "$2" && [ -s "$1" ] && return 0
	ls -l "$1" "$2"
	diff <("$BS" dump -f "$1" 2>&1) <("$BS" dump -f "$2" 2>&1) | head -n 20
	return 1
}

# both_fail ARGS...: our send and progs' send both refuse ARGS (exit 1,
# no crash) and ours writes nothing to stdout.
both_fail() {
	"$BS" send "$@" > "$SC_TMP/ours" 2> "$SC_TMP/ours.err" < /dev/null
	local ours=$?
	btrfs send "$@" > "$SC_TMP/progs" 2> "$SC_TMP/progs.err" < /dev/null
	local progs=$?
	echo "ours: exit $ours: $(cat "$SC_TMP/ours.err")"
	echo "progs: exit $progs: $(cat "$SC_TMP/progs.err")"
	[ $ours = 1 ] && [ $progs -ne 0 ] && [ $progs -lt 128 ] && [ ! -s "$SC_TMP/ours" ]
}

# stderr_says FILE TEXT: FILE contains TEXT (shown when not).
stderr_says() {
	grep -qF -- "$2" "$1" && return 0
	echo "no '$2' in:"
	cat -v "$1"
	return 1
}

# fill_random DIR MIB: MIB MiB of incompressible data in files of mixed
# sizes (4 KiB .. 8 MiB) under DIR.
fill_random() {
	python3 - "$1" "$2" <<'PY'
import os, random, sys
d, mib = sys.argv[1], int(sys.argv[2])
rnd = random.Random(7)
left, i = mib << 20, 0
sizes = [4096, 5000, 65536, 200000, 1 << 20, 3 << 20, 8 << 20]
os.makedirs(d, exist_ok=True)
while left > 0:
    n = min(left, rnd.choice(sizes))
    sub = os.path.join(d, 'd%02d' % (i % 10))
    os.makedirs(sub, exist_ok=True)
    with open(os.path.join(sub, 'f%05d' % i), 'wb') as f:
        f.write(os.urandom(n))
    left -= n
    i += 1
PY
}

# estimate_error STDERR_FILE: the estimate's error in percent as the summary
# line printed it ("estimated 1.02 GiB (+0.3%) in 0:00:01").
estimate_error() {
	sed -n 's/.*; estimated .* (\([-+][0-9.]*\)%) in .*/\1/p' "$1" | tail -n 1
}

# within_pct VALUE LIMIT: |VALUE| <= LIMIT (decimals allowed)
within_pct() {
	[ -n "$1" ] && awk -v v="$1" -v l="$2" 'BEGIN { if (v < 0) v = -v; exit !(v <= l) }'
}

# diff_oracle OLD NEW: the report `btrfs-stream diff --json` should give,
# computed from the two trees themselves: an inode is its inode number
# (snapshots keep them, and btrfs does not reuse them within a mount), a
# name is (directory inode, name).  Prints normalized lines
# "CHANGE PATH [OLD_PATH] [changes]", sorted.  Meant for trees without
# hard links (which inode a stream names first is the kernel's choice).
diff_oracle() {
	python3 - "$1" "$2" <<'PY'
import os, stat, sys

def scan(top):
    ents = {}
    root = os.lstat(top)
    ents[root.st_ino] = {'links': [(None, '', '/')], 'st': root, 'p': top}
    def visit(path, dino, rel):
        for name in sorted(os.listdir(path)):
            p = os.path.join(path, name)
            st = os.lstat(p)
            r = rel + '/' + name
            e = ents.setdefault(st.st_ino, {'links': [], 'st': st, 'p': p})
            e['links'].append((dino, name, r))
            if stat.S_ISDIR(st.st_mode):
                visit(p, st.st_ino, r)
    visit(top, root.st_ino, '')
    return ents

def xattrs(p):
    return {n: os.getxattr(p, n, follow_symlinks=False)
            for n in os.listxattr(p, follow_symlinks=False)}

def content(p, st):
    if not stat.S_ISREG(st.st_mode):
        return None
    with open(p, 'rb') as f:
        return f.read()

def changes(o, n):
    a, b = o['st'], n['st']
    out = []
    if content(o['p'], a) != content(n['p'], b):
        out.append('data')
    if not stat.S_ISLNK(a.st_mode) and stat.S_IMODE(a.st_mode) != stat.S_IMODE(b.st_mode):
        out.append('mode')
    if (a.st_uid, a.st_gid) != (b.st_uid, b.st_gid):
        out.append('owner')
    if (a.st_atime_ns, a.st_mtime_ns, a.st_ctime_ns) != (b.st_atime_ns, b.st_mtime_ns, b.st_ctime_ns):
        out.append('times')
    if xattrs(o['p']) != xattrs(n['p']):
        out.append('xattrs')
    return out

old, new = scan(sys.argv[1]), scan(sys.argv[2])
lines = []
for ino, o in old.items():
    if ino not in new:
        lines += ['removed %s' % l[2] for l in o['links']]
        continue
    n = new[ino]
    if len(o['links']) != 1 or len(n['links']) != 1:
        sys.exit('oracle: inode %d has hard links' % ino)
    ch = changes(o, n)
    ol, nl = o['links'][0], n['links'][0]
    if ol[:2] == nl[:2]:
        if ch:
            lines.append('modified %s %s' % (nl[2], ','.join(ch)))
    else:
        lines.append('renamed %s %s %s' % (nl[2], ol[2], ','.join(ch)))
for ino, n in new.items():
    if ino not in old:
        lines += ['added %s' % l[2] for l in n['links']]
for l in sorted(lines):
    sys.stdout.buffer.write(l.rstrip().encode('utf-8', 'surrogateescape') + b'\n')
PY
}

# diff_normalize JSON_FILE: btrfs-stream diff --json in diff_oracle's form.
diff_normalize() {
	python3 - "$1" <<'PY'
import json, sys
lines = []
def path(j, key):
    if key + '_hex' in j:
        return bytes.fromhex(j[key + '_hex']).decode('utf-8', 'surrogateescape')
    return j.get(key)
for raw in open(sys.argv[1]):
    j = json.loads(raw)
    j['path'], j['old_path'] = path(j, 'path'), path(j, 'old_path')
    c = j['change']
    ch = ','.join(j.get('changes', []))
    if c == 'renamed':
        lines.append('renamed %s %s %s' % (j['path'], j['old_path'], ch))
    elif c == 'modified':
        lines.append('modified %s %s' % (j['path'], ch))
    else:
        lines.append('%s %s' % (c, j['path']))
for l in sorted(lines):
    sys.stdout.buffer.write(l.rstrip().encode('utf-8', 'surrogateescape') + b'\n')
PY
}

# same_but_times SNAPSHOT_REPORT STREAM_REPORT: the text report of
# `diff OLD NEW` equals the one of `diff -f`, except that diff -f may add
# "times" where the old snapshot showed the times did not move (Linux sends
# UTIMES for an inode item rewritten without a time change: docs/diff.md).
same_but_times() {
	python3 - "$1" "$2" <<'PY'
import sys
snap = open(sys.argv[1], 'rb').read().splitlines()
left = {}
for l in snap:
    left[l] = left.get(l, 0) + 1
def take(l):
    if left.get(l, 0) == 0:
        return False
    left[l] -= 1
    return True
timesonly = 0
for l in open(sys.argv[2], 'rb').read().splitlines():
    if take(l):
        continue
    f = l.split(b'\t')
    what = [w for w in f[-1].split(b',') if w != b'times'] if len(f) > 2 else None
    if what is None or len(what) == len(f[-1].split(b',')):
        sys.exit('only in diff -f: %r' % l)
    if what:
        variant = b'\t'.join(f[:-1] + [b','.join(what)])
    else:
        variant = b'\t'.join(f[:-1]) if f[0] == b'R' else None
    if variant is not None and not take(variant):
        sys.exit('only in diff -f: %r' % l)
    timesonly += 1
rest = [l for l, n in left.items() if n]
if rest:
    sys.exit('only in diff OLD NEW: %r' % rest)
print('# diff -f: %d lines with times that did not move' % timesonly)
PY
}
