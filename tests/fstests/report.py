#!/usr/bin/env python3
"""Write docs/conformance.md: fstests' send group, our module beside stock.

A module run this time takes its column from its records
(build/fstests/results/MODULE/records, one file per test written by
tests/fstests/guest.sh).  A module not run this time keeps the column the
document last recorded, read back from the data block at its end.  The
table is printed as well.

A failure listed in tests/fstests/known-failures (a fault of the
userspace fstests drives, not of btrfs.ko) is shown as such and is not the
module's failure.  With --failures-out FILE, the tests among --selected that
our module fails for its own part are written there, one per line.

Usage: report.py --doc FILE --xfstests COMMIT [--selected "T..."]
                 [--ran MODULE=DIR]... [--known FILE] [--failures-out FILE]
                 TEST...
"""
import argparse
import datetime
import json
import os
import sys

MODULES = ("ours", "stock")
DATA_BEGIN = "<!-- recorded results (read back by tests/fstests/report.py):"
DATA_END = "-->"


def read_keyvals(path):
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            key, sep, value = line.rstrip("\n").partition("=")
            if sep:
                out[key] = value
    return out


def load_run(directory):
    """One module's column from its results directory."""
    meta = read_keyvals(os.path.join(directory, "meta"))
    results = {}
    records = os.path.join(directory, "records")
    for name in sorted(os.listdir(records)):
        if name.startswith("."):
            continue
        rec = read_keyvals(os.path.join(records, name))
        test = name.replace("-", "/", 1)
        seconds = rec.get("seconds", "")
        results[test] = {
            "result": rec.get("result", "fail"),
            "seconds": int(seconds) if seconds.isdigit() else None,
            "note": rec.get("note", "").strip(),
        }
    return {
        "ko_sha256": meta.get("ko_sha256", ""),
        "xfstests": meta.get("xfstests", ""),
        "date": meta.get("date", datetime.date.today().isoformat()),
        "results": results,
    }


def load_previous(doc):
    """The columns the document recorded last time, by module."""
    if not os.path.exists(doc):
        return {}
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    start = text.find(DATA_BEGIN)
    if start < 0:
        return {}
    body = text[start + len(DATA_BEGIN):]
    body = body[:body.find(DATA_END)]
    out = {}
    for line in body.splitlines():
        line = line.strip()
        if line:
            column = json.loads(line)
            out[column.pop("module")] = column
    return out


def load_known(path):
    """Known failures outside the module: test -> (component, commit, why)."""
    known = {}
    if not path:
        return known
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            test, component, commit, why = line.split(None, 3)
            known[test] = (component, commit, why)
    return known


KNOWN = {}


def known_failure(test, entry):
    """The component at fault when @entry is @test's known failure."""
    if entry is None or entry["result"] != "fail" or test not in KNOWN:
        return None
    component, commit, _ = KNOWN[test]
    note = entry["note"]
    if "kernel warning" in note or f"{component} fix:" not in note or commit not in note:
        return None
    return component


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def shown_result(test, entry):
    if entry is None:
        return "—"
    component = known_failure(test, entry)
    if component:
        return f"fail ({component})"
    return {"pass": "pass", "notrun": "notrun", "fail": "**FAIL**"}.get(
        entry["result"], entry["result"])


def shown_seconds(entry):
    if entry is None or entry["seconds"] is None:
        return ""
    return str(entry["seconds"])


def note_of(columns, test):
    notes = {}
    for m in MODULES:
        entry = columns.get(m, {}).get("results", {}).get(test)
        if entry and entry["note"] and entry["result"] != "pass":
            notes[m] = entry["note"]
    if not notes:
        return ""
    known = [m for m in notes
             if known_failure(test, columns[m]["results"][test])]
    if known and len(known) == len(notes):
        component, commit, why = KNOWN[test]
        return f"{component} {commit}: {why}"
    if len(set(notes.values())) == 1 and len(notes) == len(MODULES):
        return next(iter(notes.values()))
    return "; ".join(f"{m}: {n}" for m, n in notes.items())


def counts(column, tests):
    c = {"pass": 0, "fail": 0, "known": 0, "notrun": 0, "none": 0}
    for t in tests:
        entry = column.get("results", {}).get(t)
        if known_failure(t, entry):
            c["known"] += 1
        else:
            c[entry["result"] if entry else "none"] += 1
    return c


def render(columns, tests):
    lines = []
    head = ["test", "ours", "stock", "ours (s)", "stock (s)", "notrun reason or failure"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---" for _ in head) + "|")
    for t in tests:
        entries = [columns.get(m, {}).get("results", {}).get(t) for m in MODULES]
        row = [t] + [shown_result(t, e) for e in entries] + [shown_seconds(e) for e in entries]
        row.append(cell(note_of(columns, t)))
        lines.append("| " + " | ".join(row) + " |")
    table = "\n".join(lines)

    summary = ["| module | btrfs.ko sha256 | xfstests commit | date | pass | fail | fail, not btrfs.ko | notrun | not recorded |",
               "|---|---|---|---|---|---|---|---|---|"]
    for m in MODULES:
        col = columns.get(m)
        if not col:
            summary.append(f"| {m} | never run | | | | | | | {len(tests)} |")
            continue
        c = counts(col, tests)
        summary.append(f"| {m} | `{col['ko_sha256']}` | `{col['xfstests']}` | {col['date']} "
                       f"| {c['pass']} | {c['fail']} | {c['known']} | {c['notrun']} | {c['none']} |")
    return table, "\n".join(summary)


INTRO = """# Conformance: fstests' send group

fstests (xfstests) is the test suite every btrfs change must pass upstream.
Its `send` group holds {n} tests at xfstests commit `{commit}`, which the
latest run used (the Modules table names the commit of each column). `make check-fstests FSTESTS=DIR` runs them in the test VM
(Debian's packaged kernel under QEMU TCG, btrfs-progs from Debian as the
userspace that fstests drives) with our `btrfs.ko`, the stock one
(`MODULE=stock`), or both (`MODULE=both`); see README.md, "Upstream
conformance", for how to get xfstests and run it.

How to read this page:

- Each column comes from one module build, named by the sha256 of the
  `btrfs.ko` that was loaded, on the date shown (UTC). A run of one module
  rewrites that module's column; the other column keeps the results this
  page last recorded for it.
- "—" means no result is recorded for that build: the test was not run
  (`TESTS=` picked others, or the run was stopped before it). `btrfs/187`
  is left out of the default run, as it takes many hours under emulation;
  `make check-fstests-long` runs it.
- Seconds are the guest's wall-clock time for fstests' `./check` of that
  one test, including fstests' own set-up and the filesystem checks after
  it, under TCG (no KVM); they are not benchmarks.
- The last column holds fstests' own reason for each notrun and the start
  of fstests' verdict for each failure (the first lines of output that
  differ, and the fix fstests names when it knows one). A kernel warning
  during a test fails that test ("kernel warning: ...") and the run.
  "fail (btrfs-progs)" is a failure that tests/fstests/known-failures
  explains as a fault of the userspace fstests drives, not of `btrfs.ko`;
  it fails on both modules, and the last column says where our own tool
  is tested for the same thing. Such a failure does not fail the run;
  any other failure of that test does.
  fstests' full output of a failed test is kept on the machine that ran
  it, in `build/fstests/results/MODULE/artifacts/` and `logs/`.
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--doc", required=True)
    ap.add_argument("--xfstests", required=True)
    ap.add_argument("--selected", default="")
    ap.add_argument("--ran", action="append", default=[])
    ap.add_argument("--known")
    ap.add_argument("--failures-out")
    ap.add_argument("tests", nargs="+")
    args = ap.parse_args()
    KNOWN.update(load_known(args.known))

    columns = load_previous(args.doc)
    for spec in args.ran:
        module, _, directory = spec.partition("=")
        columns[module] = load_run(directory)

    table, summary = render(columns, args.tests)
    # The terminal gets the rows of the tests this run picked.
    selected = set(args.selected.split()) or set(args.tests)
    print(summary)
    print()
    print("\n".join(line for line in table.splitlines()
                    if not line.startswith("| btrfs/")
                    or line.split()[1] in selected))

    data = [DATA_BEGIN]
    for m in MODULES:
        if m in columns:
            data.append(json.dumps(dict(module=m, **columns[m]), sort_keys=True))
    data.append(DATA_END)
    text = "\n".join([
        INTRO.format(n=len(args.tests), commit=args.xfstests),
        "## Modules\n",
        summary,
        "\n## Results\n",
        table,
        "",
        "\n".join(data),
        "",
    ])
    tmp = args.doc + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, args.doc)

    if args.failures_out:
        ours = columns.get("ours", {}).get("results", {})
        failed = [t for t in args.tests if t in selected
                  and ours.get(t, {}).get("result") == "fail"
                  and not known_failure(t, ours[t])]
        with open(args.failures_out, "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in failed))


if __name__ == "__main__":
    sys.exit(main())
