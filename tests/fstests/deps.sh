#!/bin/bash
# Install the Debian packages listed in tests/fstests/packages that are
# missing; does nothing (and touches no network) when all are present.
set -eu
list="$(dirname "$0")/packages"
mapfile -t packages < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "fstests: installing ${missing[*]}"
[ "$(id -u)" = 0 ] || { echo "fstests: run as root to install packages" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
