# Helpers for receiving onto plain directories (receive-anywhere.sh):
# destinations, users, and what a received tree may lack; source it after
# tests/vm/lib-guest.sh and receive-lib.sh.
#
# A destination is FS/USER: a directory $MNT/FS/USER owned by USER on an
# ext4, XFS (reflink) or tmpfs filesystem, received into by USER: root, or
# nobody (setpriv, no supplementary groups).  A chain is a list of steps,
# each one stream file (often several subvolumes' streams one after the
# other) received into $MNT/FS/USER/CHAIN; every receive's messages are
# appended to $ST/log.FS.USER.CHAIN.

MNT=/tmp/mnt
NOBODY_UID=$(id -u nobody) NOBODY_GID=$(getent group nogroup | cut -d: -f3)

# mount_destinations FS...: each filesystem made and mounted on $MNT/FS,
# with a directory for root and one owned by nobody.  ext4 gets verity so
# that it can hold fs-verity files.
mount_destinations() {
	local fs
	for fs in "$@"; do
		mkdir -p $MNT/$fs || return 1
		case $fs in
		ext4) modprobe ext4 && mkfs.ext4 -q -F -O verity /dev/vdc > /dev/null &&
			mount /dev/vdc $MNT/$fs ;;
		xfs) modprobe xfs && mkfs.xfs -q -f -m reflink=1 /dev/vdd &&
			mount /dev/vdd $MNT/$fs ;;
		tmpfs) mount -t tmpfs -o size=1200m tmpfs $MNT/$fs ;;
		*) echo "unknown destination filesystem $fs"; return 1 ;;
		esac || { echo "cannot make and mount $fs"; return 1; }
		mkdir $MNT/$fs/root $MNT/$fs/nobody &&
			chown nobody:nogroup $MNT/$fs/nobody || return 1
	done
}

# as USER COMMAND...: run COMMAND as root or as nobody:nogroup.
as() {
	local user=$1
	shift
	case $user in
	root) "$@" ;;
	nobody) setpriv --reuid=nobody --regid=nogroup --clear-groups "$@" ;;
	*) echo "unknown user $user"; return 1 ;;
	esac
}

# receive_step FS USER CHAIN STREAM: receive STREAM (any number of
# subvolumes) as USER into the chain's directory.  -E 0: a subvolume that
# fails does not keep the others of the step from being received (each is
# checked on its own).  The messages are kept in the chain's log.
receive_step() {
	local fs=$1 user=$2 chain=$3 stream=$4 dest=$MNT/$1/$2/$3 rc
	[ -d $dest ] || as $user mkdir $dest || return 1
	echo "## step $(basename $stream)" >> $ST/log.$fs.$user.$chain
	as $user "$BSTREAM" receive -E 0 -f $stream $dest >> $ST/log.$fs.$user.$chain 2>&1
	rc=$?
	[ $rc = 0 ] || echo "## exit $rc" >> $ST/log.$fs.$user.$chain
	return $rc
}

# What a destination cannot hold, each one a kind of receive's summary
# ("subvolume 'NAME': DEST could not hold N KIND (...)"):
#   owners   unprivileged: every inode belongs to the receiving user
#   devices  unprivileged: an empty file stands in for a device node
#   xattrs   unprivileged: trusted. and security. (capabilities);
#            tmpfs of Linux 6.1: user.; everywhere but btrfs: btrfs.
#            (btrfs' compression property)
#   flags    inode flags the filesystem has no place for, or (immutable,
#            append-only) that need privilege: lost_flags below
#   verity   fs-verity where the filesystem has none (XFS, tmpfs)
# XFS also lists a POSIX ACL as an xattr trusted.SGI_ACL_FILE or
# trusted.SGI_ACL_DEFAULT (to root): the same ACL, compared as
# system.posix_acl_*; not a difference.
# Anything else that differs is a failure.
declare -A KIND_TEXT=(
	[owners]="owners" [devices]="device nodes" [xattrs]="xattrs"
	[flags]="inode flags" [verity]="fs-verity"
)

# lost_flags FS USER: the lsattr letters that FS cannot hold (for USER).
# Measured in this test's first runs; docs/receive.md lists them.
lost_flags() {
	local l
	case $1 in
	ext4) l=Cm ;;
	xfs) l=Ccm ;;
	tmpfs) l=Ccm ;;
	esac
	[ $2 = nobody ] && l+=ia
	echo "$l"
}

# judge FS USER LINEAGE LOG KINDS: read treecmp's lines (SOURCE !=
# RECEIVED) on stdin and say whether each is a difference the destination
# may have ("unexplained: LINE" if not) that receive reported in LOG for a
# subvolume of LINEAGE (the name, or the name followed by a dot and
# more); append each kind with what was lost ("flags:Cm", "xattrs:user",
# "owners:uid") to KINDS.  Exit status 0 when all is explained and
# reported.  One program for all of it: a process costs under TCG.
judge() {
	awk -v fs=$1 -v user=$2 -v lineage="$3" -v kinds=$5 -v lost="$(lost_flags $1 $2)" \
		-v nobody=$NOBODY_UID -v nogroup=$NOBODY_GID '
	function letters(s) { return s == "-" ? "" : s }
	# every letter of b is in a
	function subset(b, a,    i) {
		for (i = 1; i <= length(b); i++)
			if (index(a, substr(b, i, 1)) == 0)
				return 0
		return 1
	}
	# the letters of src that got lacks, if lost may lack them all
	function flags_lost(src, got, lost,    i, c, gone) {
		src = letters(src); got = letters(got); gone = ""
		if (!subset(got, src))
			return ""
		for (i = 1; i <= length(src); i++) {
			c = substr(src, i, 1)
			if (index(got, c) == 0 && index(lost, c) == 0)
				return ""
			if (index(got, c) == 0)
				gone = gone c
		}
		return gone
	}
	function seen(k) { if (k != "same") detail[k] = 1 }
	# the summary lines of receive: which kinds it reported for lineage
	FILENAME != "-" {
		if (!index($0, " could not hold ") || !match($0, /subvolume \047[^\047]*\047: /))
			next
		name = substr($0, RSTART + 11, RLENGTH - 14)
		if (name != lineage && index(name, lineage ".") != 1)
			next
		text = substr($0, index($0, " could not hold ") + 16)
		sub(/^[0-9]+ /, "", text)
		if (text ~ /^owners/) reported["owners"] = 1
		else if (text ~ /^device nodes/) reported["devices"] = 1
		else if (text ~ /^xattrs/) reported["xattrs"] = 1
		else if (text ~ /^inode flags/) reported["flags"] = 1
		else if (text ~ /^fs-verity/) reported["verity"] = 1
		next
	}
	{
		kind = ""
		lines[++nlines] = $0
		if (match($0, /: (uid|gid|type|flags|xattr [^:]*): .* != .*$/)) {
			path = substr($0, 1, RSTART - 1)
			rest = substr($0, RSTART + 2)
			field = rest; sub(/: .*/, "", field)
			vals = substr(rest, length(field) + 3)
			n = index(vals, " != ")
			a = substr(vals, 1, n - 1); b = substr(vals, n + 4)
			if (user == "nobody" && field == "uid" && b == nobody)
				kind = "owners:uid"
			else if (user == "nobody" && field == "gid" && b == nogroup)
				kind = "owners:gid"
			else if (user == "nobody" && field == "type" && b == "file" &&
				 (a == "chardev" || a == "blockdev"))
				kind = "devices:" a
			else if (field == "flags") {
				# fs-verity shows as flag V, reported on its own
				if (fs != "ext4" && index(a, "V") && !index(b, "V")) {
					seen("verity:V")
					sub(/V/, "", a)
					if (a == "") a = "-"
					if (a == b) next
				}
				gone = flags_lost(a, b, lost)
				# COMPRESS alone, which btrfs also shows for the
				# compression property (the xattr btrfs.compression,
				# all v1 can carry of it): decided at the end, with
				# the xattrs, even where the filesystem holds the flag
				if (gone == "c" || (gone == "" && flags_lost(a, b, lost "c") == "c")) {
					cflag[path] = 1
					kind = "same"
				} else if (gone != "")
					kind = "flags:" gone
			}
			else if (fs == "xfs" && a == "(none)" &&
				 field ~ /^xattr trusted\.SGI_ACL_(FILE|DEFAULT)$/)
				kind = "same"	# XFS shows its ACLs so to root as well
			else if (field ~ /^xattr / && b == "(none)") {
				name = substr(field, 7)
				if (name == "btrfs.compression")
					cprop[path] = 1
				if (name ~ /^btrfs\./ ||
				    (user == "nobody" && name ~ /^(trusted|security)\./) ||
				    (fs == "tmpfs" && name ~ /^user\./)) {
					kind = name
					sub(/\..*/, "", kind)
					kind = "xattrs:" kind
				}
			}
		}
		if (kind == "") {
			print "unexplained: " $0
			bad = 1
		}
		seen(kind)
	}
	END {
		if (bad)
			exit 1
		# btrfs shows the compression property as the flag c too: where
		# the property was lost with its xattr, so was the flag
		for (p in cflag) {
			if (p in cprop)
				seen("xattrs:btrfs")
			else if (index(lost, "c"))
				seen("flags:c")
			else {
				print "unexplained: " p ": flags: c lost"
				exit 1
			}
		}
		for (k in detail) {
			print k >> kinds
			w = k; sub(/:.*/, "", w)
			# btrfs. xattrs are btrfs own view of the compression
			# property, which it also shows for a COMPRESS flag that
			# came as FILEATTR (reported as a flag): the stream may
			# not have carried them.
			if (k == "xattrs:btrfs" || (w in reported))
				continue
			print "differs by " k ", which receive did not report for " lineage ":"
			for (i = 1; i <= nlines && i <= 5; i++)
				print "  " lines[i]
			bad = 1
		}
		exit bad
	}' "$4" -
}

# received_as FS USER CHAIN NAME SOURCE [TREECMP OPTIONS]: DEST/NAME was
# received completely (its record) and equals SOURCE but for what the
# destination cannot hold, and receive reported each such kind for NAME or
# for a subvolume it descends from in the chain: its lineage, the name up
# to the first dot, or LINEAGE[NAME].  The kinds seen are kept in
# $ST/kinds.FS.USER.
declare -A LINEAGE
received_as() {
	local fs=$1 user=$2 chain=$3 name=$4 src=$5 dest=$MNT/$1/$2/$3 rc
	local lineage=${LINEAGE[$4]:-${4%%.*}} log=$ST/log.$1.$2.$3
	shift 5
	[ -f $dest/.btrfs-stream/$name ] || { echo "no record of $name"; tail -n 20 $log; return 1; }
	treecmp "$@" $src $dest/$name > $ST/cmp
	rc=$?
	[ $rc = 0 ] && return 0
	[ $rc = 1 ] || { cat $ST/cmp; return 1; }
	judge $fs $user $lineage $log $ST/kinds.$fs.$user < $ST/cmp && return 0
	grep 'could not hold' $log | head -n 5
	return 1
}

# kinds_seen FS USER: a comment with the kinds of difference that the
# destination had (what exactly: flag letters, xattr namespaces...) and
# how many snapshots had each.
kinds_seen() {
	local f=$ST/kinds.$1.$2
	if [ -s $f ]; then
		echo "# $1 as $2: differences:" $(sort $f | uniq -c | awk '{ print $2 " (" $1 ")" }')
	else
		echo "# $1 as $2: no differences"
	fi
}
