#!/usr/bin/env python3
"""Turn the runs of bench/guest.sh into docs/benchmarks.md (on stdout).

Usage: report.py RUNS_DIR COMMAND [EARLIER_REPORT]

RUNS_DIR holds one directory per run (named by its start time) with
results.tsv and facts.txt. Each workload is reported from the newest run
that completed all its pairs; the run before that one, if any, gives the
repeatability column. Ratios are baseline time / our time, computed pair by
pair (run i of ours with run i of the baseline, in the same boot), so > 1
means we are faster.

RUNS_DIR lives under build/ and so does not survive a fresh checkout, while
the committed report does. EARLIER_REPORT (the committed docs/benchmarks.md)
fills the gaps: a workload no run here completed keeps its row, notes and
run facts from it, and a workload completed by one run only here is compared
with the earlier report's ratio when that came from an older run.
"""
import os
import re
import statistics
import sys
from collections import defaultdict

TITLES = {
    "W1": "full send, 8 large files",
    "W1Z": "full send --compressed-data, 8 large files stored zstd-compressed",
    "W2": "full send, small files",
    "W2M": "full send, 1,000,000 small files (W2's tree at 5x)",
    "W3": "incremental send, 0.1% changed",
    "W4": "incremental send, 50k-file directory renamed",
    "W4-ioctl": "W4's send ioctl alone (strace -T), without the btrfs process",
    "W5": "full send, 1000 reflinked files",
    "W6-W1": "receive of W1's stream",
    "W6-W1Z": "receive of W1Z's v2 stream (compressed data, encoded writes)",
    "W6-W2": "receive of W2's stream",
    "W6-W4": "receive of W4's stream (one directory rename)",
    "W6-W4R": "receive of an incremental stream with 50k file renames",
    "W6C-W1": "receive --resumable of W1's stream vs ours without it",
    "W6C-W2": "receive --resumable of W2's stream vs ours without it",
    "W7": "dump of W1's stream vs btrfs receive --dump",
    "W8": "diff of W3's snapshots vs rsync -ain --delete",
    "W9": "receive of W2's stream onto ext4 vs tar -x of the same files onto ext4",
    "W10": "cat of one 256 MiB file of W1's stream vs a full receive of it",
    "W11": "resumed transfer of W1 cut at 90% vs the uninterrupted transfer",
}
# Issue 21 raised W1, W2 and W6-W1 and added W1Z and W6-W1Z (at least par
# with stock and with btrfs-progs); W2M's goal is relative to W2's ratio
# (RELATIVE_GOALS).
GOALS = {"W1": 1.5, "W1Z": 1.0, "W2": 2.5, "W3": 1.0, "W4": 1.0, "W5": 1.0,
         "W6-W1": 1.5, "W6-W1Z": 1.0, "W6-W2": 1.5, "W6-W4": 1.0, "W6-W4R": 1.0,
         "W6C-W1": 0.95, "W6C-W2": 0.95, "W7": 2.0, "W8": 10.0,
         "W9": 1.0, "W10": 5.0,
         # Issue 19: resumed send + receive at most 15% of the whole transfer.
         "W11": 6.67}
# Issue 21: W2M (the tree at 5x) keeps W2's ratio within 10%, that is our
# cost grows with the tree no faster than stock's: its goal is at least
# this share of W2's ratio.
RELATIVE_GOALS = {"W2M": ("W2", 0.9)}
ORDER = list(TITLES)
# Rows timing the kernel's send (their notes are slab growth, not memory).
KERNEL = ("W1", "W1Z", "W2", "W2M", "W3", "W4", "W5")
# The floor each row is held against (issue 21): plainly reading the same
# files for a send, plainly writing them for a receive, cold, in the same
# boot. bench/guest.sh times them as implementation "limit".
LIMITS = {
    "W1": "cat of the same files to /dev/null",
    "W1Z": "cat of the same files to /dev/null, which decompresses them",
    "W2": "tar -c of the same files through a pipe to /dev/null",
    "W2M": "tar -c of the same files through a pipe to /dev/null",
    "W6-W1": "tar -x of the same files into a new subvolume, then sync",
    "W6-W1Z": "tar -x of the same files into a new subvolume, which writes them uncompressed, then sync",
    "W6-W2": "tar -x of the same files into a new subvolume, then sync",
}
# Issue 21: our time at most this many times the limit's (ours/limit).
LIMIT_GOALS = {"W1": 2.0}
TABLE_COLUMNS = 10


class Run:
    def __init__(self, path):
        self.name = os.path.basename(path)
        self.facts = []
        self.fact = {}
        facts = os.path.join(path, "facts.txt")
        if os.path.exists(facts):
            for line in open(facts):
                line = line.rstrip()
                self.facts.append(line)
                key, _, value = line.partition(": ")
                self.fact.setdefault(key, value)
        self.pairs_default = int(self.fact.get("pairs", "5"))
        self.results = defaultdict(lambda: defaultdict(dict))
        # The guest's idle seconds during each timed run, where known.
        self.idle = defaultdict(lambda: defaultdict(dict))
        results = os.path.join(path, "results.tsv")
        if os.path.exists(results):
            self._load(results)
        progress = os.path.join(path, "progress.log")
        if os.path.exists(progress):
            self._load_idle(progress)

    @staticmethod
    def _side(impl):
        return impl if impl in ("ours", "limit") else "base"

    def _load(self, path):
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if len(f) < 6:
                continue
            w, impl, pair, secs, size, slab = f[:6]
            rss = int(f[6]) if len(f) > 6 and f[6] else None
            side = self._side(impl)
            self.results[w][side][int(pair)] = (
                float(secs), int(size) if size else None, int(slab), rss)
            if len(f) > 7 and f[7]:
                self.idle[w][side][int(pair)] = float(f[7])

    IDLE = re.compile(r"^bench: (\S+) (\S+) pair (\d+): [\d.]+ s (?:\d+ bytes )?"
                      r"\(idle ([\d.]+) s\)$")

    def _load_idle(self, path):
        """Runs before results.tsv had the idle column logged it only."""
        for line in open(path):
            m = self.IDLE.match(line.rstrip("\n"))
            if m:
                idle = self.idle[m.group(1)][self._side(m.group(2))]
                idle.setdefault(int(m.group(3)), float(m.group(4)))

    def busy(self, w, side):
        """Median seconds the guest computed (time less idle) over the pairs
        whose idle time is known, or None."""
        t, idle = self.results[w][side], self.idle[w][side]
        busy = [t[p][0] - idle[p] for p in self.pairs(w) if p in idle]
        return statistics.median(busy) if busy else None

    def pairs(self, w):
        r = self.results.get(w)
        return sorted(set(r["ours"]) & set(r["base"])) if r else []

    def pairs_wanted(self, w):
        """A run may time a long workload in fewer pairs ("W2M pairs: 1")."""
        return int(self.fact.get("%s pairs" % w, self.pairs_default))

    def complete(self, w):
        return len(self.pairs(w)) >= self.pairs_wanted(w)

    def ratios(self, w):
        ours, base = self.results[w]["ours"], self.results[w]["base"]
        return [base[p][0] / ours[p][0] for p in self.pairs(w) if ours[p][0] > 0]

    def limit_ratios(self, w):
        """Our time over the limit's, pair by pair (1 = as fast as the floor)."""
        ours, limit = self.results[w]["ours"], self.results[w]["limit"]
        return [ours[p][0] / limit[p][0] for p in self.pairs(w)
                if p in limit and limit[p][0] > 0]


class EarlierReport:
    """The rows, notes and run facts of a report this script wrote before."""

    ROW = re.compile(r"^\| (W[\w-]+) \| [^|]* \| (\d{8}-\d{6}) \| \d+ \| ([\d.]+) \(")
    RATIO = re.compile(r"^([\d.]+) \(")
    CHANGE = re.compile(r"^([\d.]+) \(([+-][\d.]+)%\) in (\d{8}-\d{6})$")
    NOTE = re.compile(r"^- (W\d+[A-Z]*(?:-[\w]+)?)[ :]")

    def __init__(self, path):
        self.rows, self.notes, self.runs = {}, defaultdict(list), {}
        # "W: no complete run; ..." notes: recomputed where the runs here
        # hold that workload, else kept (a fresh checkout has no runs).
        self.partial = defaultdict(list)
        if not path or not os.path.exists(path):
            return
        section, run = None, None
        for line in open(path):
            line = line.rstrip("\n")
            if line.startswith("## "):
                section = line[3:]
            elif section is None and line.startswith("| W"):
                self._row(line)
            elif section == "Notes" and line.startswith(("- W3 vs W2", "- W2M vs W2")):
                continue  # recomputed from the rows, not carried
            elif section == "Notes" and ": no complete run;" in line and self.NOTE.match(line):
                self.partial[self.NOTE.match(line).group(1)].append(line)
            elif section == "Notes" and self.NOTE.match(line):
                self.notes[self.NOTE.match(line).group(1)].append(line)
            elif section == "Runs" and line.startswith("### "):
                run = line[4:]
                self.runs[run] = []
            elif section == "Runs" and run and line and line != "```":
                self.runs[run].append(line)

    def _row(self, line):
        m = self.ROW.match(line)
        if not m:
            return
        cells = [c.strip() for c in line.strip("|").split("|")]
        ratio = self.RATIO.match(cells[6])
        change = self.CHANGE.match(cells[7])
        self.rows[m.group(1)] = {
            "line": line, "run": m.group(2), "ours": float(m.group(3)),
            "ratio": float(ratio.group(1)) if ratio else None,
            "change": float(change.group(2)) if change else None,
            "previous": change.group(3) if change else None,
            "previous_ratio": float(change.group(1)) if change else None,
        }

    def before(self, w, run_name):
        """(ratio, run, run facts or None) of the newest figure for w older
        than run_name."""
        row = self.rows.get(w)
        if not row:
            return None
        if row["ratio"] and row["run"] < run_name:
            return row["ratio"], row["run"], self.runs.get(row["run"])
        if row["previous"] and row["previous"] < run_name:
            return row["previous_ratio"], row["previous"], self.runs.get(row["previous"])
        return None


def secs(v):
    """Seconds with three significant digits at least (W4's ioctl takes 1 ms)."""
    return "%.*f" % (2 if v >= 1 else 3 if v >= 0.1 else 4 if v >= 0.01 else 5, v)


def spread(values):
    return "%s (%s-%s)" % (secs(statistics.median(values)), secs(min(values)),
                           secs(max(values)))


def fact_notes(w, run):
    """Facts the guest wrote for the notes: lines "W note: text" of facts.txt."""
    head = w + " note: "
    return ["- %s: %s" % (w, line[len(head):]) for line in run.facts
            if line.startswith(head)]


def notes_for(w, run):
    ours, base = run.results[w]["ours"], run.results[w]["base"]
    pairs = run.pairs(w)
    notes = fact_notes(w, run)
    sizes = [(ours[p][1], base[p][1]) for p in pairs if ours[p][1] and base[p][1]]
    if sizes:
        notes.append("- %s stream size: ours %d bytes, stock %d bytes (ours/stock %.3f)" % (
            w, sizes[0][0], sizes[0][1], sizes[0][0] / sizes[0][1]))
    if w.endswith("-ioctl"):
        return notes
    if w.split("-")[0] not in KERNEL:
        rss = [(ours[p][3], base[p][3]) for p in pairs if ours[p][3] and base[p][3]]
        if rss:
            notes.append("- %s peak memory (max RSS, MiB): ours %.1f, baseline %.1f" % (
                w, max(r[0] for r in rss) / 1024, max(r[1] for r in rss) / 1024))
    else:
        notes.append("- %s kernel slab growth per send, KiB: ours median %d, stock median %d" % (
            w, statistics.median([ours[p][2] for p in pairs]),
            statistics.median([base[p][2] for p in pairs])))
        busy = [run.busy(w, side) for side in ("ours", "base")]
        if None not in busy:
            notes.append("- %s guest CPU time per send (the time less the guest's idle "
                         "time, waiting for its emulated disks), s: ours median %s, stock median "
                         "%s, ratio %.2f" % (w, secs(busy[0]), secs(busy[1]),
                                             busy[1] / busy[0]))
    return notes


def limit_note(w, run):
    """What the limit of row w was and how long it took, if this run timed it."""
    limit = run.results[w]["limit"]
    pairs = [p for p in run.pairs(w) if p in limit]
    if not pairs:
        return []
    return ["- %s limit (%s, cold): %s s" % (
        w, LIMITS.get(w, "plain read or write of the same data"),
        spread([limit[p][0] for p in pairs]))]


def with_cells(line, n):
    """A table row padded with "-" cells to n columns (rows carried over from
    a report written before the table had its last columns)."""
    have = len(line.strip().strip("|").split("|"))
    return line + " - |" * max(n - have, 0)


def partial_note(w, runs):
    """What the newest run that timed w but did not finish it measured."""
    partial = [r for r in runs if r.results.get(w)]
    if not partial:
        return []
    r = partial[-1]
    pairs = r.pairs(w)
    if pairs:
        ours, base = r.results[w]["ours"], r.results[w]["base"]
        return ["- %s: no complete run; run %s measured %d of %d pairs: ours %s s, "
                "baseline %s s, ratio median %.2f" % (
                    w, r.name, len(pairs), r.pairs_wanted(w),
                    ", ".join(secs(ours[p][0]) for p in pairs),
                    ", ".join(secs(base[p][0]) for p in pairs),
                    statistics.median(r.ratios(w)))]
    side = "ours" if r.results[w]["ours"] else "base"
    return ["- %s: no complete run; run %s measured %s %s s" % (
        w, r.name, "ours" if side == "ours" else "the baseline",
        ", ".join("%.2f" % v[0] for _, v in sorted(r.results[w][side].items())))]


def repeatability_note(changes, single):
    """Issue 8's check: a second complete run within 10% of the first."""
    # As printed (one decimal), so a carried-over report gives the same verdict.
    changes = [(w, round(c, 1)) for w, c in changes]
    within = [w for w, c in changes if abs(c) <= 10]
    outside = ["%s %+.1f%%" % (w, c) for w, c in changes if abs(c) > 10]
    text = "- Repeatability (second complete run within 10%% of the previous): %d of %d rows" % (
        len(within), len(changes))
    if outside:
        text += "; outside: " + ", ".join(outside)
    if single:
        text += "; one complete run only: " + ", ".join(single)
    return text


def goal_for(w, medians):
    """(goal ratio or None, the goal column's text) of row w; a relative goal
    needs the ratio of the row it follows."""
    if w in RELATIVE_GOALS:
        of, share = RELATIVE_GOALS[w]
        if of not in medians:
            return None, "%s x %s's ratio" % (share, of)
        goal = share * medians[of]
        return goal, ">= %.2f (%s x %s's)" % (goal, share, of)
    goal = GOALS.get(w)
    return goal, "-" if goal is None else ">= %s" % goal


def with_goal(line, w, ratio, medians):
    """A row carried from the earlier report with its goal and met cells as
    the goals are now (they were raised by issue 21)."""
    cells = line.strip().strip("|").split("|")
    goal, goal_text = goal_for(w, medians)
    if len(cells) < TABLE_COLUMNS or ratio is None:
        return line
    cells[8] = " %s " % goal_text
    cells[9] = " %s " % ("-" if goal is None else "yes" if ratio >= goal else "no")
    return "|" + "|".join(cells) + "|"


def limit_cell(w, ratio):
    """The ours/limit cell, with issue 21's bound where the row has one."""
    bound = LIMIT_GOALS.get(w)
    if bound is None:
        return "%.2f" % ratio
    return "%.2f (goal <= %s: %s)" % (ratio, bound, "yes" if ratio <= bound else "no")


def growth_note(chosen, medians, ours_median):
    """W2M against W2: the ratio kept, and how each side's time grew with the
    tree (5x the files: linear cost takes 5x the time)."""
    if "W2M" not in medians or "W2" not in medians:
        return []
    text = ("- W2M vs W2: ratio %.2f against %.2f (%+.1f%%; goal: not below W2's by more "
            "than 10%%, our cost growing with the tree no faster than stock's)" % (
                medians["W2M"], medians["W2"],
                (medians["W2M"] - medians["W2"]) / medians["W2"] * 100))
    if "W2M" in chosen and "W2" in chosen:
        big, small = chosen["W2M"], chosen["W2"]
        files = [r.fact.get(k) for r, k in ((big, "W2M files"), (small, "small files"))]
        grew = []
        for side, name in (("ours", "ours"), ("base", "stock")):
            t = [statistics.median(v[0] for v in r.results[w][side].values())
                 for r, w in ((big, "W2M"), (small, "W2"))]
            grew.append("%s %.2fx" % (name, t[0] / t[1]))
        text += "; time W2M / W2: %s" % ", ".join(grew)
        busy = [[r.busy(w, side) for r, w in ((big, "W2M"), (small, "W2"))]
                for side in ("ours", "base")]
        if all(None not in b for b in busy):
            text += "; guest CPU time W2M / W2: ours %.2fx, stock %.2fx" % (
                busy[0][0] / busy[0][1], busy[1][0] / busy[1][1])
        m = [re.match(r"(\d+)", f or "") for f in files]
        if all(m):
            text += " for %.1fx the files" % (int(m[0].group(1)) / int(m[1].group(1)))
    return [text]


def main():
    runs_dir, command = sys.argv[1:3]
    earlier = EarlierReport(sys.argv[3] if len(sys.argv) > 3 else None)
    runs = [Run(os.path.join(runs_dir, d)) for d in sorted(os.listdir(runs_dir))
            if os.path.isdir(os.path.join(runs_dir, d))]
    out = ["# Benchmarks", "",
           "Generated by `%s`; do not edit by hand. Each figure alternates ours and "
           "the baseline (stock btrfs.ko for send, btrfs-progs 6.2 for receive and dump, "
           "rsync for diff, GNU tar for W9, a full receive by ours for W10, ours without "
           "--resumable for W6C, the uninterrupted send and receive by ours for W11) in one VM "
           "boot; times are guest-side seconds, median (min-max). "
           "Ratio = baseline / ours per pair, so above 1 means ours is faster. Each row "
           "comes from the newest run that completed it (column run, listed under Runs); "
           "the previous column is the ratio of the run before it, to show how well a "
           "figure repeats. Rows from runs whose raw results are no longer in build/ "
           "are kept from the previous version of this file." % command, "",
           ]
    rows, notes, used, missing = [], [], {}, []
    changes, single = [], []
    chosen, carried = {}, {}
    medians = {}  # ratio median of each row shown, for RELATIVE_GOALS
    for w in ORDER + sorted(set(k for r in runs for k in r.results) - set(ORDER)):
        done = [r for r in runs if r.complete(w)]
        old = earlier.rows.get(w)
        if not done:
            notes += partial_note(w, runs) or earlier.partial.get(w, [])
            if not old:
                missing.append(w)
                continue
            if old["ratio"]:
                medians[w] = old["ratio"]
            rows.append(with_goal(old["line"], w, old["ratio"], medians))
            notes += earlier.notes.get(w, [])
            carried[w] = old
            for name in (old["run"], old["previous"]):
                if name in earlier.runs:
                    used.setdefault(name, earlier.runs[name])
            if old["change"] is None:
                single.append(w)
            else:
                changes.append((w, old["change"]))
            continue
        run = done[-1]
        chosen[w] = run
        used[run.name] = run.facts
        ratios = run.ratios(w)
        med = statistics.median(ratios)
        medians[w] = med
        if len(done) > 1:
            before = done[-2]
            previous = statistics.median(before.ratios(w)), before.name, before.facts
        else:
            previous = earlier.before(w, run.name)
        prev = "-"
        if previous:
            pmed, pname, pfacts = previous
            change = (med - pmed) / pmed * 100
            changes.append((w, change))
            prev = "%.2f (%+.1f%%) in %s" % (pmed, change, pname)
            if pfacts is not None:
                used.setdefault(pname, pfacts)
        else:
            single.append(w)
        goal, goal_text = goal_for(w, medians)
        met = "-" if goal is None else "yes" if med >= goal else "no"
        pairs = run.pairs(w)
        ours, base = run.results[w]["ours"], run.results[w]["base"]
        row = "| %s | %s | %s | %d | %s | %s | %.2f (%.2f-%.2f) | %s | %s | %s |" % (
            w, TITLES.get(w, w), run.name, len(pairs), spread([ours[p][0] for p in pairs]),
            spread([base[p][0] for p in pairs]), med, min(ratios), max(ratios),
            prev, goal_text, met)
        limits = run.limit_ratios(w)
        if limits:
            row += " %s |" % limit_cell(w, statistics.median(limits))
        rows.append(row)
        notes += notes_for(w, run) + limit_note(w, run)
    # The limit column appears once some row has a limit figure.
    columns = max(len(r.strip().strip("|").split("|")) for r in rows) if rows else TABLE_COLUMNS
    header = ["| workload | what | run | pairs | ours s | baseline s | ratio median (range) "
              "| previous run's ratio (change) | goal | met |", "|" + "---|" * TABLE_COLUMNS]
    if columns > TABLE_COLUMNS:
        header = [header[0] + " ours / limit, time median |", header[1] + "---|"]
        out[2] += (" The last column is our time over that of the row's limit, pairs "
                    "measured in the same boot: the floor of merely reading (send) or "
                    "writing (receive) the same data, described in the Notes; 1 would be "
                    "as fast as the floor.")
    out += header + [with_cells(r, columns) for r in rows]
    ours_median = {w: statistics.median(v[0] for v in r.results[w]["ours"].values())
                   for w, r in chosen.items()}
    ours_median.update({w: row["ours"] for w, row in carried.items()})
    if "W2" in ours_median and "W3" in ours_median:
        w2, w3 = ours_median["W2"], ours_median["W3"]
        notes.append("- W3 vs W2 with our module: the incremental send takes 1/%.0f of the "
                     "full send's time (goal: at least 50x faster)" % (w2 / w3))
    notes += growth_note(chosen, medians, ours_median)
    notes.insert(0, repeatability_note(changes, single))
    if missing:
        notes.insert(0, "- **Not measured to completion yet**: %s" % ", ".join(missing))
    out += ["", "## Notes", ""] + notes + ["", "## Runs", ""]
    for name in sorted(used):
        out += ["### %s" % name, "", "```"] + used[name] + ["```", ""]
    print("\n".join(out))


if __name__ == "__main__":
    main()
