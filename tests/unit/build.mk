# Host tests of the test machinery: the TAP helpers of tests/vm/lib-guest.sh
UNIT_TESTS += tests/unit/lib-guest.t
# tests/run-tests itself: the plan and status rules, on fake TAP programs.
UNIT_TESTS += tests/unit/run-tests.t
# tests/fstests/report.py: known userspace failures apart from the module's.
UNIT_TESTS += tests/unit/fstests-report.t
