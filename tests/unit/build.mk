# Host tests of the test machinery: the TAP helpers of tests/vm/lib-guest.sh.
UNIT_TESTS += tests/unit/lib-guest.t
