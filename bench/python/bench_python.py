#!/usr/bin/env python3
"""corank's Python benchmark: the corank package against what a CuPy or PyTorch user writes
today, on sorted inputs on one GPU, in one process (README.md beside this file has the command):

  union1d, ..., setxor1d     corank.X(a, b, assume_sorted=True, check_sorted=False) against cupy.X(a, b)
  set_union, ...             corank's multiset operations; no CuPy counterpart (checked against
                             a reference built from CuPy calls, multiset_reference)
  merge                      corank.merge(a, b) against cupy.sort(cupy.concatenate((a, b)))
  merge torch                corank.merge(ta, tb) against torch.sort(torch.cat((ta, tb))).values
  intersect torch            corank.set_intersection(ta, tb) against ta[torch.isin(ta, tb)]
                             (isin keeps every copy of a's keys found in b, the multiset
                             intersection min(copies in a, copies in b): equal for --keys distinct)

then the fixed cost of corank.set_union and corank.merge called from Python at 2^10 int32 keys
per input against the C++ call: the `convenience` rows of bench/set_ops_bench.cu and
merge_bench.cu, which this script runs (--cpp-bench-dir).

How it measures (as bench/harness.hpp does for the C++ benchmarks):
 - inputs: a and b, n = 2^k sorted keys each, generated on the GPU with CuPy as the two halves
   of one buffer [a | b], seen by PyTorch through DLPack (torch.from_dlpack: no copy), fresh for
   each dtype and size. --keys uniform: keys uniform over [0, 2n), sorted: about 21% of an
   input's elements repeat a key, about 39% of a's keys occur in b. --keys distinct: strictly
   increasing keys, gaps uniform over {1, 2, 3} (also about [0, 2n)), about half shared.
 - every timed call starts from idle: an untimed read of max(128 MiB, 3 x L2) evicts L2, the
   device is synchronized, then a CUDA event on the framework's current stream, the Python
   call, an event, and the host waits for it. The time runs from the host's call to the
   completion of the call's work: all of it as a user sees it (corank's set operations wait
   inside to read their output size, as CuPy's and PyTorch's routines do). The median of
   --runs timed calls (fewer above 2^24, runs_for) after --warmup untimed ones.
 - bytes = (2n + out) x key bytes, out the operation's output size: the inputs read once and
   the output written once; the baseline row gets the same bytes. GB/s = bytes / time.
   % copy = copy time / time, the copy a cudaMemcpyAsync device to device of the inputs'
   2n keys, timed the same way in the same run. speedup = baseline time / corank time.
 - checks: before timing, each corank result is compared (dtype, size, cupy.array_equal) with
   CuPy's: the baseline's (distinct routines), cupy.sort(cupy.concatenate) (merges) or the
   multiset reference (multiset operations, intersect torch); a mismatch aborts
   the run (exit status 1). Every case's outputs and CuPy's, PyTorch's and corank's pools
   are freed after it; a case out of memory is skipped and listed.
 - the call overhead: the median wall-clock time (time.perf_counter, device idle before,
   current stream synchronized after) of --overhead-runs calls, and their CUDA-event time as
   above, which is how the C++ convenience rows are timed (from idle, L2 flushed): Python over
   C++ is events minus the C++ median. Inputs as the C++ rows': set_union on the `heavy`
   shape (keys uniform over [0, n/2)), merge on `uniform` (here non-negative int32 keys).
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

DISTINCT = ("union1d", "intersect1d", "setdiff1d", "setxor1d")
MULTISET = {"set_union": "union", "set_intersection": "intersection", "set_difference": "difference",
            "set_symmetric_difference": "symdiff"}
OVERHEAD_LOG = 10
# The C++ rows the Python calls are compared with: program, flags (besides --runs and --json),
# and the fields that pick the row out of its JSON file (impl "convenience", type "i32", log 10).
CPP_ROWS = {
    "set_union": ("corank_set_ops_bench", ["--logs", "10", "--types", "i32", "--ops", "union", "--shapes", "heavy",
                                           "--impls", "convenience", "--from-idle"], {"op": "union", "shape": "heavy"}),
    "merge": ("corank_merge_bench", ["--logs", "10", "--types", "i32", "--shapes", "uniform", "--impls",
                                     "convenience", "--from-idle"], {"shape": "uniform"}),
}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sizes", default="16,20,24,28",
                   help="comma-separated k: 2^k elements PER INPUT (default 16,20,24,28; '' for none)")
    p.add_argument("--dtypes", default="int32,int64", help="comma-separated key dtypes (default int32,int64)")
    p.add_argument("--runs", type=int, default=21, help="timed calls per row up to 2^24; runs/2 at 2^25..2^26, "
                   "runs/4 at 2^27..2^28, never below min(runs, 7) (default 21)")
    p.add_argument("--warmup", type=int, default=3, help="untimed calls before timing (default 3)")
    p.add_argument("--keys", choices=("uniform", "distinct"), default="uniform",
                   help="uniform: keys uniform over [0, 2n), repeats; distinct: strictly increasing (default uniform)")
    p.add_argument("--seed", type=int, default=20261125, help="CuPy's random seed (default 20261125)")
    p.add_argument("--no-flush", action="store_true", help="do not evict L2 before each timed call")
    p.add_argument("--overhead-runs", type=int, default=2000,
                   help="calls timed at 2^10 for the call overhead; 0 skips it (default 2000)")
    p.add_argument("--cpp-bench-dir", metavar="PATH",
                   help="the built C++ benchmarks (build/bench: corank_set_ops_bench, corank_merge_bench),\n"
                        "run at 2^10 for their convenience rows")
    p.add_argument("--json", metavar="PATH", help="also write every measurement to PATH (rewritten after each size)")
    args = p.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.dtypes = [s.strip() for s in args.dtypes.split(",") if s.strip()]
    if any(not 1 <= k <= 30 for k in args.sizes) or args.runs < 1 or args.warmup < 0:
        p.error("--sizes in 1..30, --runs >= 1, --warmup >= 0")
    if any(d not in ("int32", "int64") for d in args.dtypes):
        p.error("--dtypes: int32, int64")
    return args


def runs_for(runs, log):
    """Timed calls at 2^log: all up to 2^24, fewer above, where one call is long enough."""
    return runs if log <= 24 else max(min(runs, 7), runs >> ((log - 23) // 2))


class Timer:
    """Times Python calls from idle with CUDA events on CuPy's or PyTorch's current stream."""

    def __init__(self, cp, torch, flush_bytes):
        self.cp = cp
        self.flush_buffer = cp.zeros(flush_bytes // 4, dtype=cp.int32) if flush_bytes else None
        self.events = {"cupy": (cp.cuda.Event(), cp.cuda.Event()),
                       "torch": (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))}

    def idle(self):
        """Evicts L2 (a reduction reads the scratch buffer), then waits for the device."""
        if self.flush_buffer is not None:
            self.flush_buffer.max()
        self.cp.cuda.runtime.deviceSynchronize()

    def once(self, fn, lib):
        start, stop = self.events[lib]
        self.idle()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        return self.cp.cuda.get_elapsed_time(start, stop) if lib == "cupy" else start.elapsed_time(stop)

    def measure(self, fn, lib, runs, warmup):
        for _ in range(warmup):
            self.idle()
            fn()
        ms = [self.once(fn, lib) for _ in range(runs)]
        return {"runs": runs, "median_ms": statistics.median(ms), "min_ms": min(ms), "max_ms": max(ms)}

    def wall_us(self, fn, runs, warmup):
        """Median wall-clock time of a call in us: device idle before, current stream synchronized after."""
        stream, us = self.cp.cuda.get_current_stream(), []
        for r in range(warmup + runs):
            self.idle()
            start = time.perf_counter()
            fn()
            stream.synchronize()
            if r >= warmup:
                us.append((time.perf_counter() - start) * 1e6)
        return statistics.median(us)


def sorted_inputs(cp, n, dtype, keys, high=None):
    """[a | b] in one buffer: two sorted inputs of n keys (see the top of the file)."""
    if keys == "distinct":
        ab = cp.random.randint(1, 4, size=2 * n, dtype=dtype)
        ab[:n], ab[n:] = cp.cumsum(ab[:n], dtype=dtype), cp.cumsum(ab[n:], dtype=dtype)
    else:
        ab = cp.random.randint(0, high or 2 * n, size=2 * n, dtype=dtype)
        ab[:n], ab[n:] = cp.sort(ab[:n]), cp.sort(ab[n:])
    return ab


def multiset_reference(cp, a, b, op):
    """The multiset operation from CuPy calls: each distinct key, repeated as std::set_* writes
    it for a copies in a and b in b: max(a, b), min(a, b), max(a - b, 0) or |a - b| times."""
    keys = cp.union1d(a, b)
    in_a = cp.searchsorted(a, keys, side="right") - cp.searchsorted(a, keys, side="left")
    in_b = cp.searchsorted(b, keys, side="right") - cp.searchsorted(b, keys, side="left")
    copies = {"union": lambda: cp.maximum(in_a, in_b), "intersection": lambda: cp.minimum(in_a, in_b),
              "difference": lambda: cp.maximum(in_a - in_b, 0), "symdiff": lambda: cp.abs(in_a - in_b)}[op]()
    ends = cp.cumsum(copies)
    total = int(ends[-1]) if ends.size else 0
    return keys[cp.searchsorted(ends, cp.arange(total, dtype=ends.dtype), side="right")]


def cases(cp, torch, corank, a, b, ta, tb):
    """(op, baseline name, baseline call, corank name, corank call, framework, the expected
    result from CuPy, or None: the baseline's)."""
    out = [(name, f"cupy.{name}", lambda f=getattr(cp, name): f(a, b), f"corank.{name}",
            lambda f=getattr(corank, name): f(a, b, assume_sorted=True, check_sorted=False), "cupy", None)
           for name in DISTINCT]
    out += [(name, None, None, f"corank.{name}", lambda f=getattr(corank, name): f(a, b), "cupy",
             lambda op=op: multiset_reference(cp, a, b, op)) for name, op in MULTISET.items()]
    out += [("merge", "cupy.sort(cupy.concatenate)", lambda: cp.sort(cp.concatenate((a, b))), "corank.merge",
             lambda: corank.merge(a, b), "cupy", None),
            ("merge torch", "torch.sort(torch.cat).values", lambda: torch.sort(torch.cat((ta, tb))).values,
             "corank.merge", lambda: corank.merge(ta, tb), "torch", lambda: cp.sort(cp.concatenate((a, b)))),
            ("intersect torch", "a[torch.isin(a, b)]", lambda: ta[torch.isin(ta, tb)], "corank.set_intersection",
             lambda: corank.set_intersection(ta, tb), "torch",
             lambda: multiset_reference(cp, a, b, "intersection"))]
    return out


HEAD = "{:<24} {:<6} {:>4} {:<31} {:>4} {:>11} {:>9} {:>7} {:>8} {:>11}  {}"
ROW = "{op:<24} {dtype:<6} {log2:>4} {impl:<31} {runs:>4} {median_ms:>11.4f} {gbps:>9.1f} {percent_of_copy:>7.1f} " \
      "{shown_speedup:>8} {output_elements:>11}  {check}"


class Bench:
    def __init__(self, args, cp, torch, corank, device):
        self.args, self.cp, self.torch, self.corank = args, cp, torch, corank
        self.report = {"device": device, "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
                       "command": shlex.join([sys.executable] + sys.argv), "seed": args.seed,
                       "settings": dict(vars(args)), "results": [], "skipped": [],
                       "overhead": {}, "failures": []}

    def free(self):
        self.cp.get_default_memory_pool().free_all_blocks()
        self.torch.cuda.empty_cache()
        self.corank.release_temporary_memory()

    def write_json(self):
        if self.args.json:
            with open(self.args.json, "w") as f:
                json.dump(self.report, f, indent=1)

    def add(self, row):
        row["gbps"] = row["bytes"] / (row["median_ms"] * 1e6)
        row["shown_speedup"] = f"{row['speedup']:.2f}x" if row.get("speedup") else "-"
        print(ROW.format(**row), flush=True)
        self.report["results"].append({k: v for k, v in row.items() if k != "shown_speedup"})

    def fail(self, where, message):
        print(f"\n!!!!!!!! FAIL: {where}: {message}\n", flush=True)
        self.report["failures"].append(f"{where}: {message}")
        self.write_json()
        sys.exit(1)

    def check(self, where, got, expected):
        cp = self.cp
        got = got if isinstance(got, cp.ndarray) else cp.from_dlpack(got)
        if got.dtype != expected.dtype or got.size != expected.size:
            self.fail(where, f"{got.size} keys of {got.dtype}, expected {expected.size} of {expected.dtype}")
        if not cp.array_equal(got, expected):
            at = int(cp.argmax(got != expected))
            self.fail(where, f"key {at} of {got.size} is {int(got[at])}, expected {int(expected[at])}")

    def run_size(self, dtype, log, timer):
        cp, torch, args = self.cp, self.torch, self.args
        n = 1 << log
        runs = runs_for(args.runs, log)
        cp.random.seed(args.seed + 64 * log + args.dtypes.index(dtype))
        ab = sorted_inputs(cp, n, dtype, args.keys)
        a, b = ab[:n], ab[n:]
        ta, tb = torch.from_dlpack(a), torch.from_dlpack(b)  # the same memory
        base = {"dtype": dtype, "log2": log, "elements_per_input": n}
        out, rt = cp.empty_like(ab), cp.cuda.runtime  # the copy: the inputs' bytes, device to device
        copy = timer.measure(lambda: rt.memcpyAsync(out.data.ptr, ab.data.ptr, ab.nbytes, rt.memcpyDeviceToDevice,
                                                    cp.cuda.get_current_stream().ptr), "cupy", runs, args.warmup)
        del out
        self.free()
        self.add({**base, "op": "copy", "impl": "cudaMemcpyAsync", "output_elements": 2 * n, "bytes": 2 * ab.nbytes,
                  **copy, "percent_of_copy": 100.0, "check": "-"})
        for op, base_name, base_call, name, call, lib, expected_call in cases(cp, torch, self.corank, a, b, ta, tb):
            where = f"{op} {dtype} 2^{log} {name}"
            try:
                expected = expected_call() if expected_call else base_call()
                expected = expected if isinstance(expected, cp.ndarray) else cp.from_dlpack(expected)
                self.check(where, call(), expected)
                row = {**base, "op": op, "output_elements": int(expected.size),
                       "bytes": (2 * n + int(expected.size)) * ab.itemsize}
                del expected
                self.free()
                timed = []
                for impl, fn in ((base_name, base_call), (name, call)):
                    if fn is not None:
                        t = timer.measure(fn, lib, runs, args.warmup)
                        timed.append(t["median_ms"])
                        self.add({**row, "impl": impl, **t, "percent_of_copy": 100 * copy["median_ms"] / t["median_ms"],
                                  "check": "OK" if impl == name else "-", "baseline": base_name,
                                  "speedup": timed[0] / timed[1] if len(timed) == 2 else None})
                        self.free()
            except (cp.cuda.memory.OutOfMemoryError, torch.cuda.OutOfMemoryError, MemoryError) as e:
                print(f"{op:<24} {dtype:<6} {log:>4}  skipped: out of memory: {e}", flush=True)
                self.report["skipped"].append({**base, "op": op, "reason": str(e)})
                self.free()
        del a, b, ta, tb, ab
        self.free()

    def call_overhead(self, timer):
        """Python against C++ at 2^10 int32 keys per input (see the top of the file)."""
        cp, corank, args = self.cp, self.corank, self.args
        n = 1 << OVERHEAD_LOG
        cp.random.seed(args.seed)
        heavy = sorted_inputs(cp, n, "int32", "uniform", high=n // 2)
        uniform = sorted_inputs(cp, n, "int32", "uniform", high=2**31 - 1)
        a, b, c, d = heavy[:n], heavy[n:], uniform[:n], uniform[n:]  # views made once, outside the timing
        calls = {"set_union": lambda: corank.set_union(a, b), "merge": lambda: corank.merge(c, d)}
        print(f"call overhead at 2^{OVERHEAD_LOG} int32 keys per input, CuPy arrays, median of {args.overhead_runs} "
              f"calls from idle{'' if args.no_flush else ' (L2 evicted before each)'}:")
        for name, fn in calls.items():
            result = {"python_wall_us": timer.wall_us(fn, args.overhead_runs, 100),
                      "python_events_us": 1000 * timer.measure(fn, "cupy", args.overhead_runs, 100)["median_ms"]}
            line = (f"  corank.{name:<10} Python: wall-clock {result['python_wall_us']:8.1f} us, "
                    f"CUDA events {result['python_events_us']:8.1f} us")
            cpp = self.cpp_row(name) if args.cpp_bench_dir else None
            if cpp:
                result.update(cpp)
                result["overhead_us"] = result["python_events_us"] - cpp["cpp_us"]
                result["overhead_wall_us"] = result["python_wall_us"] - cpp["cpp_us"]
                line += (f"; C++ corank::{name} (convenience, CUDA events) {cpp['cpp_us']:8.1f} us\n"
                         f"  Python call overhead over C++, corank.{name}: {result['overhead_us']:+.1f} us "
                         f"(events, like for like); {result['overhead_wall_us']:+.1f} us (Python wall-clock)")
            print(line, flush=True)
            self.report["overhead"][name] = result
        if not args.cpp_bench_dir:
            print("  (no --cpp-bench-dir: no C++ comparison)")

    def cpp_row(self, name):
        """Runs the C++ benchmark's convenience row at 2^10; its median in us, or None."""
        program, flags, match = CPP_ROWS[name]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, f"{program}.json")
            command = [os.path.join(self.args.cpp_bench_dir, program), *flags,
                       "--runs", str(self.args.overhead_runs), "--json", path]
            print(f"  running: {shlex.join(command)}", flush=True)
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=600)
            except (OSError, subprocess.TimeoutExpired) as e:
                print(f"  !! {program} did not run: {e}")
                return None
            if done.returncode != 0 or not os.path.exists(path):
                print(f"  !! {program} exited with {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
                return None
            with open(path) as f:
                data = json.load(f)
        for r in data["results"]:
            if (r["impl"] == "convenience" and r["type"] == "i32" and r["log2_elements_per_input"] == OVERHEAD_LOG
                    and all(r.get(k) == v for k, v in match.items())):
                if r["check"] != "OK":
                    print(f"  !! {program}: the convenience row's check is {r['check']}")
                return {"cpp_command": shlex.join(command), "cpp_device": data["device"],
                        "cpp_us": 1000 * r["median_ms"], "cpp_row": r}
        print(f"  !! {program}: no convenience row at 2^{OVERHEAD_LOG} in its JSON")
        return None


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import cupy as cp  # here, so that --help needs none of them
    import numpy as np
    import torch

    import corank

    reason = corank.gpu_unavailable_reason()
    if reason:
        sys.exit(f"bench_python.py: corank cannot run on the GPU: {reason}")
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    device = (f"{name} (sm_{props['major']}{props['minor']}, {props['multiProcessorCount']} SMs, "
              f"L2 {props['l2CacheSize'] / 2**20:.0f} MiB, {props['totalGlobalMem'] / 2**30:.1f} GiB)")
    bench = Bench(args, cp, torch, corank, device)
    version = lambda v: f"{v // 1000}.{v % 1000 // 10}"  # noqa: E731 (CUDA's 13000: 13.0)
    versions = {"python": platform.python_version(), "numpy": np.__version__, "cupy": cp.__version__,
                "torch": torch.__version__, "corank": corank.__version__,
                "cuda_runtime": version(cp.cuda.runtime.runtimeGetVersion()),
                "driver": version(cp.cuda.runtime.driverGetVersion())}
    bench.report["versions"] = versions
    flush_bytes = 0 if args.no_flush else max(128 << 20, 3 * props["l2CacheSize"])
    timer = Timer(cp, torch, flush_bytes)
    flush = f"evicted by reading {flush_bytes >> 20} MiB" if flush_bytes else "not evicted"
    print(f"corank Python benchmark\ndevice:   {device}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    print(f"date:     {bench.report['date']}\ncommand:  {bench.report['command']}")
    print(f"seed:     {args.seed} (inputs of dtype d and size 2^k: seed + 64 k + index of d in --dtypes)")
    print(f"method:   median of --runs {args.runs} timed calls (fewer above 2^24) after {args.warmup} warm-up calls,\n"
          f"          each from idle (L2 {flush}); CUDA events around the Python call on the\n"
          f"          framework's stream. keys: {args.keys}. GB/s: (2n + out) x key bytes / time. % copy: time of\n"
          "          a cudaMemcpyAsync of the 2n input keys / time. speedup: baseline time / corank time.\n")
    for dtype in args.dtypes:
        print(HEAD.format("op", "dtype", "log2", "impl", "runs", "median ms", "GB/s", "% copy", "speedup",
                          "out elems", "check"))
        for log in args.sizes:
            bench.run_size(dtype, log, timer)
            bench.write_json()
        print()
    if args.overhead_runs > 0:
        bench.call_overhead(timer)
    bench.write_json()
    skipped = len(bench.report["skipped"])
    print("every corank result checked matched the reference" + (f"; {skipped} case(s) skipped for lack of memory"
          if skipped else "") + (f"; JSON in {args.json}" if args.json else ""))


if __name__ == "__main__":
    main()
