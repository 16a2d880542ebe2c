#!/usr/bin/env python3
"""corank.dask against one corank call on the same data (issue #26): merge and the set
operations of 2^--log2 sorted int64 keys per input, each input in --chunks chunks made on the
workers (chunk c holds sorted random keys in [c, c + 1) * 2^40 / chunks).

CPU (default): a LocalCluster of --workers processes of --threads-per-worker threads, NumPy
chunks; the one call is corank's CPU backend in this process (every hardware thread).
--gpus N: N GPU workers, one per GPU (dask-cuda's LocalCUDACluster where it imports, else
worker processes of Dask's own, each shown only its GPU through CUDA_VISIBLE_DEVICES), CuPy
chunks; the one call is corank on this process's GPU 0, where the inputs fit.

Each row, medians of --repeat:
  search      the corank.dask call: the distributed co-rank (sampled keys, rounds of probes,
              counts; `rounds` counts the rounds after the samples) and the graph
  partitions  persisting the result and waiting for it: the windows move and each partition's
              call runs; the result stays on the workers
  total       search + partitions, its ratio to the one call, and the search's share of it
Above the table, Dask's floor for each step of the search: a compute of one trivial task per
chunk of both inputs (len), median of --repeat; a search costs about (1 + rounds) of it.
Checked once per operation, untimed: the result gathered equals the one call's (exit status 1
where it does not). --json PATH writes the rows.
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

OPERATIONS = ("merge", "set_union", "set_intersection", "set_difference", "set_symmetric_difference")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--log2", type=int, default=24, help="2^k int64 keys per input (default 24)")
    p.add_argument("--chunks", type=int, default=8, help="chunks per input (default 8)")
    p.add_argument("--ops", default="merge,set_union",
                   help=f"comma-separated, of {','.join(OPERATIONS)} (default merge,set_union)")
    p.add_argument("--npartitions", type=int, default=None, help="output partitions (default: corank.dask's)")
    p.add_argument("--gpus", type=int, default=0, help="GPU workers, one per GPU (default 0: CPU workers)")
    p.add_argument("--workers", type=int, default=2, help="CPU worker processes (default 2)")
    p.add_argument("--threads-per-worker", type=int, default=1, help="CPU: each worker's threads (default 1)")
    p.add_argument("--threads", type=int, default=0,
                   help="CPU: threads of each partition's call (default 0: the worker's share)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs per row (default 5)")
    p.add_argument("--json", default=None, help="write the rows here")
    args = p.parse_args()
    ops = args.ops.split(",")
    for op in ops:
        if op not in OPERATIONS:
            p.error(f"--ops: {op!r} is not one of {', '.join(OPERATIONS)}")

    import dask
    import dask.array as da
    import distributed

    import corank
    import corank.dask as cd
    from corank.dask import _chunks

    gpu = args.gpus > 0
    if gpu:
        import cupy
        xp, sync = cupy, lambda: cupy.cuda.get_current_stream().synchronize()
    else:
        xp, sync = np, lambda: None

    # Each call's search reads through a Reader made in this process, which counts its rounds.
    readers = []
    make_reader = _chunks.Reader.__init__

    def recorded(self, *args):
        make_reader(self, *args)
        readers.append(self)

    _chunks.Reader.__init__ = recorded

    cluster, where = _cluster(args, distributed)
    rows, failed = [], False
    with cluster, distributed.Client(cluster) as client:
        n = 1 << args.log2
        size = -(-n // args.chunks)
        meta = xp.empty(0, np.int64)
        A, B = (client.persist(da.map_blocks(_chunk, da.arange(n, chunks=size), seed, args.chunks, gpu,
                                             dtype=np.int64, meta=meta)) for seed in (1, 2))
        distributed.wait([A, B])
        a, b = A.compute(), B.compute()  # for the one call, in this process
        print(f"{where}: {len(client.scheduler_info()['workers'])} workers; 2^{args.log2} int64 per input in "
              f"{args.chunks} chunks each; {'CuPy chunks' if gpu else f'NumPy chunks, threads={args.threads}'}")
        blocks = list(A.to_delayed()) + list(B.to_delayed())
        floor = _median(args.repeat, lambda: None, lambda: dask.compute(*[dask.delayed(len)(x) for x in blocks]))
        print(f"Dask's floor: a compute of one task per chunk ({len(blocks)} tasks): {floor * 1e3:.1f} ms")
        print(f"{'operation':26s} {'one call ms':>11s} {'search ms':>10s} {'rounds':>6s} {'partitions ms':>13s} "
              f"{'total ms':>9s} {'x one call':>10s} {'search %':>8s}  check")
        for op in ops:
            single = getattr(corank, op)
            expected = single(a, b)
            one = _median(args.repeat, sync, lambda: single(a, b))
            function = getattr(cd, op)
            result = function(A, B, npartitions=args.npartitions, threads=args.threads)
            same = bool(xp.array_equal(result.compute(), expected))
            failed |= not same
            del result
            searches, runs = [], []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                result = function(A, B, npartitions=args.npartitions, threads=args.threads)
                t1 = time.perf_counter()
                result = result.persist()
                distributed.wait(result)
                t2 = time.perf_counter()
                searches.append(t1 - t0)
                runs.append(t2 - t1)
                del result
            search, run = statistics.median(searches), statistics.median(runs)
            rounds = readers[-1].rounds
            total = search + run
            row = {"operation": op, "log2": args.log2, "chunks": args.chunks, "workers": where,
                   "gpus": args.gpus, "one_call_ms": one * 1e3, "search_ms": search * 1e3,
                   "rounds": rounds, "floor_ms": floor * 1e3, "partitions_ms": run * 1e3, "total_ms": total * 1e3,
                   "ratio_to_one_call": total / one, "search_share": search / total, "check": same}
            rows.append(row)
            print(f"{op:26s} {one * 1e3:11.1f} {search * 1e3:10.1f} {rounds:6d} {run * 1e3:13.1f} "
                  f"{total * 1e3:9.1f} {total / one:10.2f} {100 * search / total:7.1f}%  "
                  f"{'OK' if same else 'FAIL: differs from the one call'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"command": " ".join(sys.argv), "rows": rows}, f, indent=1)
    return 1 if failed else 0


def _cluster(args, distributed):
    """The cluster and what it is, in words."""
    if not args.gpus:
        return distributed.LocalCluster(n_workers=args.workers, threads_per_worker=args.threads_per_worker,
                                        processes=True, dashboard_address=None, memory_limit=0), "LocalCluster"
    try:
        from dask_cuda import LocalCUDACluster
        return LocalCUDACluster(n_workers=args.gpus, dashboard_address=None), "dask-cuda's LocalCUDACluster"
    except ImportError:
        pass
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    devices = visible.split(",") if visible else [str(i) for i in range(args.gpus)]
    if len(devices) < args.gpus:
        sys.exit(f"--gpus {args.gpus}: CUDA_VISIBLE_DEVICES={visible} shows {len(devices)}")
    workers = {f"gpu-{i}": {"cls": distributed.Nanny,
                            "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": devices[i]}}}
               for i in range(args.gpus)}
    scheduler = {"cls": distributed.Scheduler, "options": {"dashboard": False}}
    return distributed.SpecCluster(workers=workers, scheduler=scheduler), "worker processes, one per GPU"


def _median(repeat, sync, call):
    times = []
    for _ in range(repeat):
        sync()
        t = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _chunk(positions, seed, chunks, gpu, block_info=None):
    """Chunk c of an input: len(positions) sorted keys in [c, c + 1) * 2^40 / chunks."""
    c = block_info[0]["chunk-location"][0]
    span = (1 << 40) // chunks
    keys = np.sort(np.random.default_rng([seed, c]).integers(c * span, (c + 1) * span, len(positions)))
    if gpu:
        import cupy
        return cupy.asarray(keys)
    return keys


if __name__ == "__main__":
    sys.exit(main())
