/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What send-wire.h takes from the kernel's headers, for userspace builds.
 * Kept apart so that send-wire.h itself reads as kernel code.
 */
#ifndef BTRFS_STREAM_USERSPACE_COMPAT_H
#define BTRFS_STREAM_USERSPACE_COMPAT_H

#include <assert.h>

#ifndef __packed
#define __packed __attribute__((__packed__))
#endif

#endif
