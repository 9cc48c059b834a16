# Shared settings for the kernel scripts; sourced, not run.
# The kernel version is the one Debian's linux-image-amd64 metapackage installs,
# so image, headers and source always refer to the same release.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kbuild="$top/build/kernel"

kernel_release() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null) || return 1
	dep=${dep%%[ ,]*}
	echo "${dep#linux-image-}"
}

KREL=${KREL:-$(kernel_release)}
KHEADERS=/usr/src/linux-headers-$KREL
KSOURCE=/usr/src/linux-source-6.1.tar.xz
KIMAGE=/boot/vmlinuz-$KREL
KMODDIR=/lib/modules/$KREL

die() {
	echo "kernel: $*" >&2
	exit 1
}

# Git identity for the throw-away build trees, so commits work on any machine.
export GIT_AUTHOR_NAME="Btrfs Stream Team" GIT_AUTHOR_EMAIL="team@btrfs-stream.invalid"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
