#!/usr/bin/python3
"""Compare the data sharing of received snapshots with their sources.

Reads lines "LABEL SRC_A SRC_B DST_A DST_B" on stdin: a parent snapshot A
and a snapshot B sent from it, on the source and as received.  For every
regular file of B it counts the bytes that another file holds too: the
same bytes of the same disk extent referenced by another inode of A or B
(the same inode in A counts: the receiver's B is a snapshot of its A).
Extents are read from the subvolume trees (BTRFS_IOC_TREE_SEARCH), which
tells which bytes of a compressed extent each file refers to; FIEMAP does
not.  Prints one line per label:

    LABEL ok shared SRC_BYTES -> DST_BYTES
    LABEL less PATH SRC_BYTES -> DST_BYTES [...]

and exits 1 if any received file shares fewer bytes than its source.

Left out, as the stream cannot carry their sharing (docs/incremental-tests.md):
files of at most one block (the receiver may store them inline, and they
are not clone sources), the last partial block of every file (a clone of
an unaligned length must end both files), and preallocated extents (sent
as FALLOCATE, not as data).  Inodes without a name are not sent: sharing
with them does not count.
"""
import fcntl
import os
import stat
import struct
import sys

BLOCK = 4096
TREE_SEARCH = 0xD0009411          # _IOWR(0x94, 17, 4096 bytes)
KEY = struct.Struct("=7Q4I4Q")    # struct btrfs_ioctl_search_key
HEADER = struct.Struct("=3Q2I")   # struct btrfs_ioctl_search_header
EXTENT = struct.Struct("<QQBBHBQQQQ")
EXTENT_DATA_KEY = 108
REG = 1
U64 = 2**64 - 1


def tree_items(fd):
    """Every item of the fd's subvolume tree: (objectid, type, offset, data)."""
    objectid, typ, offset = 256, 0, 0
    while True:
        args = bytearray(4096)
        KEY.pack_into(args, 0, 0, objectid, U64, offset, U64, 0, U64,
                      typ, 255, 4096, 0, 0, 0, 0, 0)
        fcntl.ioctl(fd, TREE_SEARCH, args)
        n = KEY.unpack_from(args, 0)[9]
        if n == 0:
            return
        pos = KEY.size
        for _ in range(n):
            _, objectid, offset, typ, length = HEADER.unpack_from(args, pos)
            pos += HEADER.size
            yield objectid, typ, offset, bytes(args[pos:pos + length])
            pos += length
        if offset < U64:
            offset += 1
        elif typ < 255:
            typ, offset = typ + 1, 0
        else:
            objectid, typ, offset = objectid + 1, 0, 0


def files(root):
    """Regular files of more than one block: inode -> (first path, size)."""
    found = {}
    for d, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            st = os.lstat(os.path.join(d, name))
            if stat.S_ISREG(st.st_mode) and st.st_size > BLOCK and st.st_ino not in found:
                found[st.st_ino] = (os.path.relpath(os.path.join(d, name), root), st.st_size)
    return found


def refs(root, holder):
    """(holder, inode, path, disk_bytenr, extent_start, extent_end) of every
    regular extent range a named file refers to, cut at its last whole block."""
    named = files(root)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for ino, typ, off, data in tree_items(fd):
            if typ != EXTENT_DATA_KEY or ino not in named or len(data) < EXTENT.size:
                continue
            f = EXTENT.unpack_from(data)
            kind, bytenr, eoff, nbytes = f[5], f[6], f[8], f[9]
            end = min(off + nbytes, named[ino][1] // BLOCK * BLOCK)
            if kind != REG or bytenr == 0 or end <= off:
                continue
            yield holder, ino, named[ino][0], bytenr, eoff, eoff + (end - off)
    finally:
        os.close(fd)


def overlap(lo, hi, ranges):
    """Bytes of [lo, hi) covered by the union of ranges."""
    total, pos = 0, lo
    for a, b in sorted(ranges):
        a, b = max(a, pos), min(b, hi)
        if a < b:
            total += b - a
            pos = b
    return total


def shared_bytes(snap_a, snap_b):
    """path in B -> bytes of it that another inode of A or B refers to."""
    all_refs = list(refs(snap_a, "A")) + list(refs(snap_b, "B"))
    by_extent = {}
    for r in all_refs:
        by_extent.setdefault(r[3], []).append(r)
    shared = {}
    for holder, ino, path, bytenr, lo, hi in all_refs:
        if holder != "B":
            continue
        others = [(o[4], o[5]) for o in by_extent[bytenr] if (o[0], o[1]) != ("B", ino)]
        shared[path] = shared.get(path, 0) + overlap(lo, hi, others)
    for ino, (path, _) in files(snap_b).items():
        shared.setdefault(path, 0)
    return shared


def main():
    bad = False
    for line in sys.stdin:
        if not line.strip():
            continue
        label, src_a, src_b, dst_a, dst_b = line.split()
        src = shared_bytes(src_a, src_b)
        dst = shared_bytes(dst_a, dst_b)
        less = [(p, n, dst.get(p, 0)) for p, n in sorted(src.items()) if dst.get(p, 0) < n]
        if less:
            bad = True
            print(label, "less", " ".join(f"{p!r} {n} -> {m}" for p, n, m in less[:5]))
        else:
            print(label, "ok shared", sum(src.values()), "->", sum(dst.values()))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
