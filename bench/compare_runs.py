#!/usr/bin/env python3
"""Compares two builds' runs of corank_merge_bench or corank_set_ops_bench (their printed
tables, one or more runs per file, as run alternately in one device run): per row of one
implementation, the median over the runs of each run's median time, the change of the time
after against before and the % of copy; then the mean, min and max change per size.

    bench/compare_runs.py bench/results/h200-issue44-sets-before.txt \\
        bench/results/h200-issue44-sets-after.txt [--impl partitioned]
"""

import argparse
import statistics
from collections import defaultdict


def load(path, impl):
    """{row: [(median_ms, GB/s, % of copy) per run]}, runs (of the row run most), failed rows."""
    rows, failed = defaultdict(list), 0
    for line in open(path):
        words = line.split()
        if "FAIL" in line:
            failed += 1
        if impl not in words or words[0] == "command:":
            continue
        at = words.index(impl)
        # Set operations: op type shape log2 elems out impl runs ms GB/s ...; merges: type
        # shape log2 elems impl runs ms GB/s ...
        row = tuple(words[:4]) if at == 6 else ("merge", *words[:3]) if at == 4 else None
        if row is None or not row[3].isdigit():
            continue
        rows[row].append(tuple(float(w) for w in words[at + 2 : at + 5]))
    # A file may hold several invocations per run (say, small sizes with --graph 100 and
    # large ones with --graph 10): its runs are the measurements per row.
    return rows, max((len(v) for v in rows.values()), default=0), failed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--impl", default="partitioned")
    args = parser.parse_args()
    before, runs_before, failed_before = load(args.before, args.impl)
    after, runs_after, failed_after = load(args.after, args.impl)
    print(f"{runs_before} runs before, {runs_after} after; {failed_before + failed_after} lines with FAIL")
    changes = defaultdict(list)
    for row in before:
        # The time's change from GB/s (five digits; the times print four decimals): both
        # sides move the same bytes.
        median = lambda runs, i: statistics.median(run[i] for run in runs)
        change = 100 * (median(before[row], 1) / median(after[row], 1) - 1)
        changes[int(row[3])].append(change)
        print(*row, f"{median(before[row], 0):.4f} {median(after[row], 0):.4f} ms {change:+.2f}%",
              f"({median(before[row], 2):.0f} -> {median(after[row], 2):.0f} % of copy)")
    for log2 in sorted(changes):
        c = changes[log2]
        print(f"2^{log2}: mean {statistics.mean(c):+.2f}%, min {min(c):+.2f}%, max {max(c):+.2f}%")
    print(f"max {max(max(c) for c in changes.values()):+.2f}%")


if __name__ == "__main__":
    main()
