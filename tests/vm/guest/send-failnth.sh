#!/bin/bash
# Guest (debug kernel): systematic allocation failure in the send ioctl.
# For N = 1, 2, 3, ... the Nth slab or page allocation the sending task makes
# inside BTRFS_IOC_SEND fails (fail-nth), until a send completes without
# reaching N.  Every run must end with an error or, when the allocation had
# a fallback, with the reference stream byte for byte; the kernel log of each
# run may hold nothing but the injection's own report; kmemleak finds no leak;
# the snapshots stay deletable and the filesystem unmountable.
#
# FAILNTH_MODE: full | incremental | clone | compressed | resume (one mode
# per boot; resume: a full send started by the kernel at a resume point)
# FAILNTH_FROM: first N (default 1), to resume a long run
# FAILNTH_BATCH: runs per send-ioctl process between kernel log checks
# SEND_IOCTL: the send-ioctl helper.  Results: $VM_OUT/failnth-MODE.*
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/send-incremental-lib.sh"

H=${SEND_IOCTL:?}
BSTREAM=$VM_TOP/build/bin/btrfs-stream
mode=${FAILNTH_MODE:?}
from=${FAILNTH_FROM:-1}
batch=${FAILNTH_BATCH:-25}
M=/tmp/mnt/src
res=$VM_OUT/failnth-$mode
DBG=/sys/kernel/debug
# What check-klog fails a run on, less the injection's own stack dump.
bad='(\bWARNING\b|\bBUG\b|\bOops\b|Call Trace|lockdep|possible circular locking|refcount_t|UBSAN:|new suspected memory leaks?)'

# --- the filesystem: a tree with every kind of inode and extent, a child
# snapshot with every kind of change, a third subvolume sharing extents.

populate() {
	fresh_btrfs /dev/vdb $M compress=zstd || return 1
	btrfs -q subvolume create $M/vol || return 1
	strictly "every type" every_type $M/vol
	strictly "extents" make_extents $M/vol
	btrfs -q subvolume snapshot -r $M/vol $M/A || return 1
	strictly "changes" change_tree $M/vol
	btrfs -q subvolume snapshot -r $M/vol $M/B || return 1
	btrfs -q subvolume create $M/cl || return 1
	strictly "clones" make_clones $M/A $M/cl
	btrfs -q subvolume snapshot -r $M/cl $M/C || return 1
	sync
}

# Compressed, inline, shared and partly shared extents and a hole.
make_extents() {
	local d=$1
	yes compressible | head -c 400000 > "$d/text"
	cp --reflink=always "$d/large" "$d/large.clone"
	clone_range "$d/large" 65536 "$d/text" 131072 65536
	fallocate -p -o 4096 -l 65536 "$d/large.clone"
	mkdir "$d/moved" "$d/deep" "$d/deep/a" "$d/deep/a/b"
	many_files "$d/deep/a/b" 40
}

# Renames (a swap, a directory move, a name reused), deletions, new
# inodes, data and metadata changes.
change_tree() {
	local d=$1
	mv "$d/small" "$d/tmp" && mv "$d/inline" "$d/small" && mv "$d/tmp" "$d/inline"
	mv "$d/deep/a" "$d/moved/a" && mv "$d/deep" "$d/moved/a/deep"
	rm "$d/dir/sub/link2" "$d/fifo" && rm -r "$d/empty-dir"
	echo reused > "$d/empty-dir"
	mkdir "$d/new" && many_files "$d/new" 20 n
	write_random "$d/large" 100000 5000
	truncate -s 1000 "$d/text"
	setfattr -n user.two -v second "$d/xattrs" && setfattr -x user.one "$d/xattrs"
	chmod 600 "$d/setuid" && chown 7:7 "$d/dangling" -h
	ln "$d/large.clone" "$d/moved/hardlink"
	touch -d '2011-01-01' "$d/dir"
}

# A subvolume whose files share extents with snapshot A (clone sources).
make_clones() {
	cp --reflink=always "$1/large" "$2/copy"
	cp --reflink=always "$1/text" "$2/text"
	clone_range "$1/large.clone" 0 "$2/copy" 196608 65536
	echo own > "$2/own"
}

rootid() { btrfs inspect-internal rootid "$1"; }

# resume_point: "K,O,M" of a point about 60% into A's full stream, from the
# token of a receive --resumable cut there (send-ioctl -r takes the index,
# offset and metadata checksum; the prefix checksum is only echoed).
resume_point() {
	local full=/tmp/failnth-full.stream tok k o m
	"$H" -o $full $M/A | grep -qx errno=0 || return 1
	mkdir -p $M/partial
	head -c $(($(stat -c %s $full) * 6 / 10)) $full |
		"$BSTREAM" receive -q --resumable $M/partial 2> /dev/null
	tok=$("$BSTREAM" receive --resume-token $M/partial/A) || return 1
	k=${tok##*,index=}; k=${k%%,*}
	o=${tok##*,offset=}; o=${o%%,*}
	m=${tok##*,meta=}; m=${m%%,*}
	[ -n "$k" ] && [ -n "$o" ] && [ -n "$m" ] || return 1
	echo "$k,$o,$m"
}

# send_args: the helper's arguments and snapshot for this mode.
send_args() {
	case $mode in
	full) echo "$M/A" ;;
	incremental) echo "-p $(rootid $M/A) $M/B" ;;
	clone) echo "-c $(rootid $M/A) $M/C" ;;
	compressed) echo "-v 2 -f 0x10 $M/A" ;;
	resume) local pt; pt=$(resume_point) && echo "-f 0x20 -r $pt $M/A" ;;
	*) return 1 ;;
	esac
}

# --- fault injection ------------------------------------------------------

# fail-nth counts every slab and page allocation, blocking ones included
# (the defaults skip those), at every order; verbose 2 logs the stack of
# the allocation that failed, which names its call site.
setup_injection() {
	mountpoint -q $DBG || mount -t debugfs none $DBG || return 1
	local f
	for f in failslab fail_page_alloc; do
		echo N > $DBG/$f/ignore-gfp-wait || return 1
		echo 2 > $DBG/$f/verbose || return 1
	done
	# The helper's "nth N" markers go through /dev/kmsg: none may be
	# dropped by its rate limit, or reports would be pinned on the wrong N.
	echo on > /proc/sys/kernel/printk_devkmsg || return 1
	echo N > $DBG/fail_page_alloc/ignore-gfp-highmem &&
	echo 0 > $DBG/fail_page_alloc/min-order
}

# kmemleak_check: a scan must find no unreferenced object.  Objects younger
# than five seconds are not reported, hence the pause.
kmemleak_check() {
	sleep 6
	echo scan > $DBG/kmemleak || return 1
	cat $DBG/kmemleak > $res.kmemleak
	[ ! -s $res.kmemleak ] || { head -n 40 $res.kmemleak; return 1; }
}

# check_log FILE: split the kernel log of a batch by the helper's "nth N"
# markers; print "N SITE CALLER" for each injected failure (SITE: first
# frame outside the allocators, CALLER: first frame of btrfs) and fail on
# any line matching $bad outside the injection reports.
check_log() {
	: > "$1.rest"
	awk -v rest="$1.rest" '
	# A failure of a __GFP_NOWARN allocation is not reported: site "-".
	function flush() { if (n != "") print n, (site == "" ? "-" : site), (caller == "" ? "-" : caller) }
	/send-ioctl: nth / { flush(); n = $NF; inj = 0; intrace = 0; site = ""; caller = ""; next }
	/FAULT_INJECTION: forcing a failure/ { inj = 1; intrace = 1; next }
	intrace && /<\/TASK>/ { intrace = 0; next }
	intrace {
		fn = $0; sub(/^\[[^]]*\] */, "", fn); sub(/^ */, "", fn)
		if (fn ~ /^\? / || fn !~ /\+0x/) next
		if (caller == "" && fn ~ /\[btrfs\]/) { caller = fn; sub(/\+0x.*/, "", caller) }
		sub(/\+0x.*/, "", fn)
		if (site == "" && fn !~ alloc) site = fn
		next
	}
	{ print > rest }
	END { flush() }
	' alloc='^(dump_stack|dump_stack_lvl|should_fail|should_fail_ex|__should_fail|should_failslab|__should_failslab|should_fail_alloc_page|__should_fail_alloc_page|prepare_alloc_pages|slab_pre_alloc_hook|kmem_cache_alloc|kmem_cache_alloc_node|kmem_cache_alloc_lru|__kmem_cache_alloc_node|kmalloc_trace|kmalloc_node_trace|__kmalloc|__kmalloc_node|__kmalloc_node_track_caller|kmalloc_large|kmalloc_large_node|kmalloc_order|kmalloc_order_trace|kvmalloc_node|__alloc_pages|alloc_pages|__folio_alloc|folio_alloc|alloc_pages_bulk_array_mempolicy|__alloc_pages_bulk|__get_free_pages|get_zeroed_page|kmemdup|kstrdup|kstrndup|memdup_user|mempool_alloc|mempool_alloc_slab|mempool_alloc_pages|create_object|__create_object|kmemleak_alloc|mem_pool_alloc|radix_tree_node_alloc|xas_alloc|xas_nomem|kvmalloc|kzalloc|kmalloc|filemap_alloc_folio|__filemap_get_folio|alloc_slab_page|allocate_slab|new_slab|___slab_alloc|__slab_alloc)(\.[a-z0-9.]+)?$' "$1" || return 1
	! grep -aE "$bad" "$1.rest" >&2
}

# probe_log_clean: check and clear the counting send's log here, so that
# its marker is not taken for the first run's in $res.sites.
probe_log_clean() {
	dmesg > /tmp/probe.log && dmesg -C && check_log /tmp/probe.log > /dev/null
}

# run_batches ARGS...: fail-nth runs from $from in batches until one misses.
run_batches() {
	local a=$from b last rc
	: > $res.runs
	: > $res.sites
	while :; do
		b=$((a + batch - 1))
		"$H" -F $a-$b -C $res.ref -o /tmp/failnth.out "$@" > /tmp/batch.runs
		rc=$?
		cat /tmp/batch.runs >> $res.runs
		# Read and clear: the injections' reports are checked here, not
		# left for tests/vm/run's check of the whole log.
		dmesg > /tmp/batch.log && dmesg -C
		# A report the check does not accept keeps the batch's whole log
		# beside the results: the offending line alone rarely says whose
		# stack it is.
		check_log /tmp/batch.log >> $res.sites || {
			cp /tmp/batch.log "$res.log-$a-$b"
			echo "kernel log of runs $a-$b: $res.log-$a-$b"
			return 1
		}
		[ $rc -le 1 ] || { echo "helper failed (exit $rc) in runs $a-$b"; return 1; }
		grep -q ' differs$' /tmp/batch.runs && { grep ' differs$' /tmp/batch.runs; return 1; }
		last=$(tail -n 1 /tmp/batch.runs)
		case $last in
		"nth "*" miss "*) return 0 ;;
		"nth $b hit "*) ;;
		*) echo "runs $a-$b stopped early: '$last'"; return 1 ;;
		esac
		a=$((b + 1))
	done
}

# Every run but the last (which made fewer allocations) failed one; each
# ended with an error or the reference stream.
summary() {
	local runs hits ok sites callers
	runs=$(wc -l < $res.runs)
	hits=$(grep -c ' hit ' $res.runs)
	ok=$(grep -c ' hit errno=0 ' $res.runs)
	sites=$(awk '$2 != "-" { print $2 }' $res.sites | sort -u | wc -l)
	callers=$(awk '$3 != "-" { print $3 }' $res.sites | sort -u | wc -l)
	{
		echo "mode $mode: runs $from..$((from + runs - 1)), allocations failed $hits, of which the send succeeded $ok (fallbacks)"
		echo "distinct call sites $sites, distinct btrfs callers $callers"
		echo "errnos: $(awk '$3 == "hit" { print $4 }' $res.runs | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
	} | tee $res.summary
}

strictly "populate" populate
args=$(send_args) || die "no send arguments for mode '$mode'"
check "reference stream ($mode)" sh -c "'$H' -o $res.ref $args | grep -qx errno=0"
check "fault injection set up" setup_injection
# One send with N past its end counts its allocations (the first send after
# the tree was made counts more than the later ones).
dmesg -C
"$H" -F 1000000000-1000000000 -o /tmp/failnth.out $args > $res.count
echo "# $mode: $(sed -n 's/.* allocations=//p' $res.count) allocations in one send"
check "the counting send's kernel log is clean" probe_log_clean

# Boot-time objects kmemleak may wrongly suspect are not ours: clear them.
echo scan > $DBG/kmemleak; echo clear > $DBG/kmemleak
dmesg -n 1
start=$SECONDS
check "fail-nth $mode from $from: every run ends cleanly" run_batches $args
echo "# $mode: $((SECONDS - start)) s"
dmesg -n 7
check "summary" summary
cat $res.summary | sed 's/^/# /'
check "kmemleak finds no leak" kmemleak_check
check "the stream is unchanged after the runs" sh -c "'$H' -o /tmp/after $args | grep -qx errno=0 && cmp /tmp/after $res.ref"
check "snapshots deletable" btrfs -q subvolume delete $M/A $M/B $M/C
check "filesystem unmountable" umount $M
tap_done
