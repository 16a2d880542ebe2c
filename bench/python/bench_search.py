#!/usr/bin/env python3
"""corank's sorted search, isin and join against what a CuPy or PyTorch user writes today, on
sorted inputs on one GPU, in one process (issue #47's goals):

  searchsorted   corank.searchsorted(a, v, assume_sorted=True, check_sorted=False) against
                 cupy.searchsorted(a, v) and torch.searchsorted(a, v) (binary searches)
  isin           corank.isin(v, a, assume_sorted=True, check_sorted=False) against
                 cupy.isin(v, a) and torch.isin(v, a)
  join           corank.join(a, v, assume_sorted=True, check_sorted=False) against a sort-merge
                 join of CuPy calls on the same sorted keys (searchsorted both sides, a prefix
                 sum, an expansion by repeat), and against a copy of the join's output bytes
  join dup2      the same on keys uniform over [0, n/2): about 2 copies of a key a side, 2n
                 pairs (large outputs)

Inputs: a and v, n = 2^k keys each, uniform over [0, 2n) and sorted (about 39% of v's keys
occur in a), made with CuPy, seen by PyTorch through DLPack. Timing as bench_python.py's: each
timed call starts from idle (an untimed read of max(128 MiB, 3 x L2) evicts L2, the device is
synchronized), CUDA events on the current stream around the Python call, the host waits; the
median of --runs calls after --warmup. Every corank result is compared with CuPy's first; a
mismatch exits with status 1. speedup = baseline time / corank time.

    python3 bench/python/bench_search.py --sizes 24,28 --dtypes int32,int64 --json out.json
"""

import argparse
import json
import statistics
import sys


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sizes", default="24,28", help="comma-separated k: 2^k keys per input (default 24,28)")
    p.add_argument("--dtypes", default="int32,int64", help="comma-separated key dtypes (default int32,int64)")
    p.add_argument("--runs", type=int, default=11, help="timed calls per row (default 11)")
    p.add_argument("--warmup", type=int, default=2, help="untimed calls before timing (default 2)")
    p.add_argument("--json", help="also write the rows to this file")
    return p.parse_args(argv)


class Timer:
    def __init__(self, cupy):
        self.cupy = cupy
        l2 = cupy.cuda.Device().attributes.get("L2CacheSize", 50 << 20)
        self.flush = cupy.empty(max(128 << 20, 3 * l2) // 4, dtype=cupy.float32)

    def __call__(self, fn, runs, warmup):
        cupy = self.cupy
        for _ in range(warmup):
            fn()
        times = []
        for _ in range(runs):
            self.flush.sum()
            cupy.cuda.Device().synchronize()
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
        return statistics.median(times)


def cupy_join(cupy, a, v):
    """A sort-merge join of sorted keys from CuPy calls: bounds, a prefix sum, the expansion."""
    lower = cupy.searchsorted(v, a, side="left")
    counts = cupy.searchsorted(v, a, side="right") - lower
    left = cupy.repeat(cupy.arange(len(a)), counts)
    starts = cupy.cumsum(counts) - counts
    right = lower[left] + cupy.arange(len(left)) - starts[left]
    return left, right


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import cupy
    import torch

    import corank

    timer = Timer(cupy)
    rows, failed = [], False

    def row(case, dtype, k, impl, seconds, corank_seconds=None):
        """One timed row; a baseline's (corank_seconds given) with its speedup."""
        r = {"case": case, "dtype": dtype, "log2_n": k, "impl": impl, "ms": seconds * 1e3}
        if corank_seconds is not None:
            r["speedup"] = seconds / corank_seconds
        rows.append(r)
        speed = f"  corank {r['speedup']:.2f}x faster" if "speedup" in r else ""
        print(f"{case:13} {dtype:6} 2^{k:<3} {impl:26} {r['ms']:10.3f} ms{speed}", flush=True)
        return r

    def check(case, dtype, k, same):
        nonlocal failed
        if not same:
            print(f"{case} {dtype} 2^{k}: corank's result differs from CuPy's", file=sys.stderr)
            failed = True

    def time(fn):
        return timer(fn, args.runs, args.warmup)

    def bench_join(case, dtype, k, a, v):
        fast = dict(assume_sorted=True, check_sorted=False)
        li, ri = corank.join(a, v, **fast)
        el, er = cupy_join(cupy, a, v)
        check(case, dtype, k, bool(cupy.array_equal(li, el)) and bool(cupy.array_equal(ri, er)))
        out_bytes = 2 * len(li) * 8
        del li, ri, el, er
        ours = row(case, dtype, k, "corank", time(lambda: corank.join(a, v, **fast)))["ms"] / 1e3
        row(case, dtype, k, "cupy sort-merge join", time(lambda: cupy_join(cupy, a, v)), ours)
        src, dst = cupy.empty(out_bytes // 4, cupy.int32), cupy.empty(out_bytes // 4, cupy.int32)
        copy = row(case, dtype, k, "copy of the output bytes", time(lambda: dst.__setitem__(slice(None), src)))
        copy["corank_percent_of_copy"] = 100 * copy["ms"] / 1e3 / ours
        print(f"{'':13} corank's {case} at {copy['corank_percent_of_copy']:.0f}% of the copy's speed", flush=True)

    for dtype in args.dtypes.split(","):
        for k in (int(x) for x in args.sizes.split(",") if x):
            n = 1 << k
            rng = cupy.random.default_rng(k)
            a = cupy.sort(rng.integers(0, 2 * n, n).astype(dtype))
            v = cupy.sort(rng.integers(0, 2 * n, n).astype(dtype))
            ta, tv = torch.from_dlpack(a), torch.from_dlpack(v)
            fast = dict(assume_sorted=True, check_sorted=False)

            check("searchsorted", dtype, k, bool(cupy.array_equal(corank.searchsorted(a, v, **fast),
                                                                  cupy.searchsorted(a, v))))
            ours = row("searchsorted", dtype, k, "corank", time(lambda: corank.searchsorted(a, v, **fast)))["ms"] / 1e3
            row("searchsorted", dtype, k, "cupy.searchsorted", time(lambda: cupy.searchsorted(a, v)), ours)
            row("searchsorted", dtype, k, "torch.searchsorted", time(lambda: torch.searchsorted(ta, tv)), ours)

            check("isin", dtype, k, bool(cupy.array_equal(corank.isin(v, a, **fast), cupy.isin(v, a))))
            ours = row("isin", dtype, k, "corank", time(lambda: corank.isin(v, a, **fast)))["ms"] / 1e3
            row("isin", dtype, k, "cupy.isin", time(lambda: cupy.isin(v, a)), ours)
            row("isin", dtype, k, "torch.isin", time(lambda: torch.isin(tv, ta)), ours)

            bench_join("join", dtype, k, a, v)
            # Large outputs: keys over [0, n/2), about 2 copies a key a side, 2n pairs.
            bench_join("join dup2", dtype, k, cupy.sort(rng.integers(0, n // 2, n).astype(dtype)),
                       cupy.sort(rng.integers(0, n // 2, n).astype(dtype)))
            del a, v, ta, tv
            cupy.get_default_memory_pool().free_all_blocks()
            corank.release_temporary_memory()

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
