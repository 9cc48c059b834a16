# Sourced by the unit tests (tests/unit/*.t): the TAP counters and checks,
# where the build is, and a scratch directory removed on exit.  One copy, so
# every test reports and fails the same way.
#
# After sourcing: $root (the checkout), $B (build directory, absolute),
# $bs (the sanitizer build of btrfs-stream), $mkstream, $tmp; ok/not_ok/check
# print one TAP line each, finish prints the plan and exits non-zero if any
# check failed.  A test that needs its own exit trap calls tap_cleanup in it.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$root/$B ;; esac
bs=$B/asan/bin/btrfs-stream
mkstream=$B/bin/mkstream
# The sanitizers' own exit codes, so a report is never taken for a refusal.
export ASAN_OPTIONS=exitcode=86:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
# check DESCRIPTION COMMAND...: ok when COMMAND succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
finish() { echo "1..$n"; [ "$failed" -eq 0 ]; exit; }

tmp=$(mktemp -d)
tap_cleanup() { rm -rf "$tmp"; }
trap tap_cleanup EXIT
