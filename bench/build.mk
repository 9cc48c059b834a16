# bench/report.py writes docs/benchmarks.md; its rules are unit-tested on made-up runs.
UNIT_TESTS += tests/unit/bench-report.t
