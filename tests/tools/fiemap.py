#!/usr/bin/python3
"""Print a file's extents as FIEMAP reports them, one per line:
"LOGICAL LENGTH FLAGS" in bytes, FLAGS a comma list (shared, encoded, ...)
or "-".  Used by VM tests to check that a received file shares its data.

usage: fiemap.py FILE
"""
import fcntl
import os
import struct
import sys

FS_IOC_FIEMAP = 0xC020660B
FIEMAP_FLAG_SYNC = 0x1
EXTENTS_PER_CALL = 256
# struct fiemap: start, length, flags, mapped_extents, extent_count, reserved
HEAD = struct.Struct("=QQIIII")
# struct fiemap_extent: logical, physical, length, reserved64[2], flags, reserved[3]
EXTENT = struct.Struct("=QQQ2QI3I")
FLAGS = {
    0x1: "last", 0x2: "unknown", 0x4: "delalloc", 0x8: "encoded",
    0x80: "encrypted", 0x100: "not_aligned", 0x200: "inline",
    0x400: "tail", 0x800: "unwritten", 0x1000: "merged", 0x2000: "shared",
}


def extents(fd):
    start = 0
    while True:
        buf = bytearray(HEAD.size + EXTENT.size * EXTENTS_PER_CALL)
        HEAD.pack_into(buf, 0, start, 2**64 - 1 - start, FIEMAP_FLAG_SYNC,
                       0, EXTENTS_PER_CALL, 0)
        fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
        mapped = HEAD.unpack_from(buf, 0)[3]
        if mapped == 0:
            return
        for i in range(mapped):
            logical, _, length, _, _, flags, *_ = EXTENT.unpack_from(
                buf, HEAD.size + i * EXTENT.size)
            yield logical, length, flags
            if flags & 0x1:
                return
            start = logical + length


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    fd = os.open(sys.argv[1], os.O_RDONLY)
    for logical, length, flags in extents(fd):
        names = [n for bit, n in sorted(FLAGS.items()) if flags & bit]
        print(logical, length, ",".join(names) or "-")


if __name__ == "__main__":
    main()
