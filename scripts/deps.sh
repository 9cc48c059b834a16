#!/bin/bash
# Install what the project needs from Debian's archive, and check that the
# kernel image, headers and source are one and the same release.
# Does nothing (and touches no network) when everything is present.
set -eu

packages=(
	build-essential bc flex bison kmod cpio xz-utils rsync python3 perl
	libelf-dev libssl-dev
	clang llvm libclang-rt-14-dev
	libzstd-dev zlib1g-dev liblzo2-dev uuid-dev
	qemu-system-x86 busybox-static btrfs-progs e2fsprogs xfsprogs util-linux
	attr acl strace
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	# make install, make deb, make check-packages (packaging/build.mk)
	scdoc man-db pkgconf git debhelper dh-dkms dkms lintian
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	[ "$(id -u)" = 0 ] || { echo "deps: run as root to install packages" >&2; exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The image and headers metapackages must point at one release, and the
# source package must be the same Debian version as that release's image.
ver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }
image_dep=$(dpkg-query -W -f='${Depends}' linux-image-amd64)
headers_dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64)
krel=${image_dep%%[ ,]*}; krel=${krel#linux-image-}
hrel=${headers_dep%%[ ,]*}; hrel=${hrel#linux-headers-}
iv=$(ver "linux-image-$krel") hv=$(ver "linux-headers-$krel") sv=$(ver linux-source-6.1)
if [ "$krel" != "$hrel" ] || [ "$iv" != "$hv" ] || [ "$iv" != "$sv" ]; then
	cat >&2 <<MSG
deps: kernel packages disagree:
  image   linux-image-$krel $iv
  headers linux-headers-$hrel $hv
  source  linux-source-6.1 $sv
deps: bring them to one version with:
  apt-get update && apt-get install linux-image-amd64 linux-headers-amd64 linux-source-6.1
MSG
	exit 1
fi
for f in "/boot/vmlinuz-$krel" "/usr/src/linux-headers-$krel" /usr/src/linux-source-6.1.tar.xz; do
	[ -e "$f" ] || { echo "deps: '$f' missing after install" >&2; exit 1; }
done
