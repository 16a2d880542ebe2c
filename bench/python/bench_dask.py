#!/usr/bin/env python3
"""corank.dask against one corank call on the same data (issue #26): merge and the set
operations of 2^--log2 sorted int64 keys per input, each input in --chunks chunks made on the
workers (chunk c holds sorted random keys in [c, c + 1) * 2^40 / chunks: random gaps added up,
so equal keys occur). The chunks are placed as the ranks of the NCCL form hold theirs
(bench/nccl_bench.cu): the first 1/W of each input's chunks on the first of W workers, the next
on the second, and so on, so that with chunks of A and B over the same key ranges the windows
stay where they are, and only the graph and its tasks separate Dask from the NCCL form.

CPU (default): a LocalCluster of --workers processes of --threads-per-worker threads, NumPy
chunks; the one call is corank's CPU backend in this process (every hardware thread).
--gpus N: N GPU workers, one per GPU (dask-cuda's LocalCUDACluster where it imports, else
worker processes of Dask's own, each shown only its GPU through CUDA_VISIBLE_DEVICES), CuPy
chunks; the one call is corank on this process's GPU 0, where the inputs fit.

Each row, medians of --repeat:
  search      the corank.dask call: one compute of the chunks' samples, the cuts narrowed by
              them, rounds of probes only for cuts they leave wide (`rounds`: the computes
              after the samples, 0 unless runs of equal keys hide the cuts), and the graph
  tasks       the result's tasks (the partitions' calls and the pieces of chunks they slice)
              per input chunk; the search's compute is one task per chunk
  partitions  persisting the result and waiting for it: the windows move, each partition's
              task settles its two cuts and its call runs; the result stays on the workers
  total       search + partitions, its ratio to the one call, to Dask's floor, and the
              search's share of it
Above the table, Dask's floor: a compute of one trivial task per chunk of both inputs (len),
median of --repeat; a call costs at least two of it (the samples, the partitions).
Checked once per operation, untimed: the result, fetched one partition at a time (so that 2^30
keys a side fit beside the one call's on GPU 0), equals the one call's (exit status 1 where it
does not). The one call's inputs are made in this process by the same function as the chunks.
--json PATH writes the rows.
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
        A, B = (_placed_input(client, da, n, size, seed, args.chunks, gpu, xp) for seed in (1, 2))
        distributed.wait([A, B])
        # The one call's inputs, made here as the workers made the chunks.
        a, b = (xp.concatenate([_keys(seed, c, count, args.chunks, gpu) for c, count in enumerate(X.chunks[0])])
                for seed, X in ((1, A), (2, B)))
        print(f"{where}: {len(client.scheduler_info()['workers'])} workers; 2^{args.log2} int64 per input in "
              f"{args.chunks} chunks each, placed in order; "
              f"{'CuPy chunks' if gpu else f'NumPy chunks, threads={args.threads}'}")
        holders = client.who_has(da.concatenate([A, B]))
        held = [sum(worker in ws for ws in holders.values()) for worker in sorted(client.scheduler_info()["workers"])]
        print(f"chunks of A and B held by each worker, in order: {held}")
        blocks = list(A.to_delayed()) + list(B.to_delayed())
        floor = _median(args.repeat, lambda: None, lambda: dask.compute(*[dask.delayed(len)(x) for x in blocks]))
        print(f"Dask's floor: a compute of one task per chunk ({len(blocks)} tasks): {floor * 1e3:.1f} ms")
        print(f"{'operation':26s} {'one call ms':>11s} {'search ms':>10s} {'rounds':>6s} {'tasks/chunk':>11s} "
              f"{'partitions ms':>13s} {'total ms':>9s} {'x one call':>10s} {'x floor':>7s} {'search %':>8s}  check")
        for op in ops:
            single = getattr(corank, op)
            one = _median(args.repeat, sync, lambda: single(a, b))
            expected = single(a, b)
            _release(gpu)
            function = getattr(cd, op)
            same = _equal_by_partition(function(A, B, npartitions=args.npartitions, threads=args.threads),
                                       expected, xp)
            failed |= not same
            del expected
            _release(gpu)
            searches, runs = [], []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                result = function(A, B, npartitions=args.npartitions, threads=args.threads)
                t1 = time.perf_counter()
                tasks = sum(len(layer) for name, layer in result.dask.layers.items() if name.startswith("corank-"))
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
                   "rounds": rounds, "tasks": tasks, "tasks_per_chunk": tasks / len(blocks), "floor_ms": floor * 1e3,
                   "partitions_ms": run * 1e3, "total_ms": total * 1e3, "ratio_to_one_call": total / one,
                   "ratio_to_floor": total / floor, "search_share": search / total, "check": same}
            rows.append(row)
            print(f"{op:26s} {one * 1e3:11.1f} {search * 1e3:10.1f} {rounds:6d} {tasks / len(blocks):11.2f} "
                  f"{run * 1e3:13.1f} {total * 1e3:9.1f} {total / one:10.2f} {total / floor:7.2f} "
                  f"{100 * search / total:7.1f}%  "
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


def _keys(seed, c, count, chunks, gpu):
    """Chunk c of input `seed`: count sorted keys in [c, c + 1) * 2^40 / chunks, the running sum
    of random gaps below span / count (so they stay in the span, and some keys repeat)."""
    span = (1 << 40) // chunks
    gaps = np.random.default_rng([seed, c]).integers(0, max(1, span // max(count, 1)), count)
    keys = c * span + np.cumsum(gaps)
    if gpu:
        import cupy
        return cupy.asarray(keys)
    return keys


def _placed_input(client, da, n, size, seed, chunks, gpu, xp):
    """An input of n keys in chunks of `size`, chunk c made on and kept by worker c * W // chunks
    of the W workers (in the order of their addresses), as the NCCL form's ranks hold theirs."""
    import dask

    workers = sorted(client.scheduler_info()["workers"])
    meta = xp.empty(0, np.int64)
    pieces = []
    for c in range(-(-n // size)):
        count = min(size, n - c * size)
        piece = da.from_delayed(dask.delayed(_keys)(seed, c, count, chunks, gpu, dask_key_name=f"keys-{seed}-{c}"),
                                shape=(count,), dtype=np.int64, meta=meta)
        pieces.append(client.persist(piece, workers=[workers[c * len(workers) // chunks]],
                                     allow_other_workers=False))
    return da.concatenate(pieces)


def _equal_by_partition(result, expected, xp):
    """Whether the Dask result equals `expected`, fetching one partition at a time."""
    import dask

    at = 0
    for block in result.to_delayed().ravel():
        got = dask.compute(block)[0]
        if not bool(xp.array_equal(got, expected[at:at + len(got)])):
            return False
        at += len(got)
    return at == len(expected)


def _release(gpu):
    """Gives CuPy's cached blocks back to the GPU (the workers on GPU 0 need the room)."""
    if gpu:
        import cupy
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    sys.exit(main())
