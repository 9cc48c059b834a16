#!/usr/bin/env python3
"""Check `btrfs-stream ls --json` output against a real directory tree.

usage: archive-ls-check.py LS_JSON_FILE TREE [--no-times]

Walks TREE (a receive of the same streams) depth first with names in byte
order, as ls lists, and compares each entry: path, type, mode, uid, gid,
size (files, symlinks), device numbers, symlink target, times, xattrs, and
hard links (an entry with "link_to" must share its inode with that path).
Prints one line per difference and exits 1 if there is any.
"""
import json, os, stat, sys

TYPES = {stat.S_IFREG: 'file', stat.S_IFDIR: 'dir', stat.S_IFLNK: 'symlink',
         stat.S_IFCHR: 'chardev', stat.S_IFBLK: 'blockdev', stat.S_IFIFO: 'fifo',
         stat.S_IFSOCK: 'socket'}

def walk(root):
    """(path, full path, lstat) per entry; stat taken before a directory is
    read, since reading it moves its atime."""
    top = os.fsencode(root)
    out = [(b'.', top, os.lstat(top))]
    def rec(rel, full):
        fd = os.open(full, os.O_RDONLY | os.O_DIRECTORY | os.O_NOATIME)
        names = sorted(os.fsencode(x) for x in os.listdir(fd))
        os.close(fd)
        for name in names:
            r = name if rel == b'.' else rel + b'/' + name
            f = full + b'/' + name
            st = os.lstat(f)
            out.append((r, f, st))
            if stat.S_ISDIR(st.st_mode):
                rec(r, f)
    rec(b'.', top)
    return out

def path_of(e):
    if 'path' in e:
        return e['path'].encode('utf-8', 'surrogateescape')
    return bytes.fromhex(e['path_hex'])

def main():
    entries = [json.loads(l) for l in open(sys.argv[1], encoding='utf-8')]
    times = '--no-times' not in sys.argv
    tree = walk(sys.argv[2])
    bad = []
    if [path_of(e) for e in entries] != [t[0] for t in tree]:
        bad.append('paths differ: ls %r, tree %r' % ([path_of(e) for e in entries],
                                                     [t[0] for t in tree]))
    for e, (p, full, st) in zip(entries, tree):
        want = {'type': TYPES[stat.S_IFMT(st.st_mode)],
                'mode': '%04o' % stat.S_IMODE(st.st_mode),
                'uid': st.st_uid, 'gid': st.st_gid}
        if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            want['size'] = st.st_size
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
            want['rdev'] = {'major': os.major(st.st_rdev), 'minor': os.minor(st.st_rdev)}
        if stat.S_ISLNK(st.st_mode):
            t = os.readlink(full)
            # Reading a link moves its atime: put it back, as treecmp does,
            # for whatever reads the tree next (a receive copying it).
            os.utime(full, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
            want['target' if 'target' in e else 'target_hex'] = \
                t.decode('utf-8', 'surrogateescape') if 'target' in e else t.hex()
        if times:
            want['mtime'] = {'sec': st.st_mtime_ns // 10**9, 'nsec': st.st_mtime_ns % 10**9}
            want['atime'] = {'sec': st.st_atime_ns // 10**9, 'nsec': st.st_atime_ns % 10**9}
        xa = {}
        for n in os.listxattr(full, follow_symlinks=False):
            xa[n] = os.getxattr(full, n, follow_symlinks=False).hex()
        have_xa = {x.get('name', bytes.fromhex(x.get('name_hex', '')).decode('utf-8', 'surrogateescape')):
                   x['value_hex'] for x in e.get('xattrs', [])}
        if xa != have_xa:
            bad.append('%r: xattrs: ls %r, tree %r' % (p, have_xa, xa))
        for k, v in want.items():
            if e.get(k) != v:
                bad.append('%r: %s: ls %r, tree %r' % (p, k, e.get(k), v))
        if 'link_to' in e:
            other = os.fsencode(sys.argv[2]) + b'/' + e['link_to'].encode('utf-8', 'surrogateescape')
            if os.lstat(other).st_ino != st.st_ino:
                bad.append('%r: link_to %r is another inode' % (p, e['link_to']))
        if not stat.S_ISDIR(st.st_mode) and e.get('nlink') != st.st_nlink:
            bad.append('%r: nlink: ls %r, tree %r' % (p, e.get('nlink'), st.st_nlink))
    for b in bad:
        print(b)
    return 1 if bad else 0

sys.exit(main())
