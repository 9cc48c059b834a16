#!/bin/bash
# Crafted streams on btrfs: paths beyond PATH_MAX, inode flags, the
# ENCODED_WRITE fallback when the ioctl refuses, fs-verity.
exec "$(dirname "$0")/run" --module stock --disks 1 -- tests/vm/guest/receive-features.sh
