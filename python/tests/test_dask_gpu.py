"""corank.dask on a GPU worker: Dask arrays of CuPy chunks (one dask-cuda worker where dask_cuda
imports, else a LocalCluster worker process on GPU 0) against the single call on the CPU
backend, every operation, with values; results of CuPy chunks; the co-rank against the
single-array splits; checks and errors with CuPy chunks. Then two GPU worker processes (one per
GPU where there are two, else both on GPU 0) with each input's chunks placed on both, so that
windows move between workers. Skipped, with the reason, without Dask, CuPy or a usable GPU."""

import os

import numpy as np
import pytest

import corank
import reference as ref

dask = pytest.importorskip("dask", reason="the Dask tests need dask[array] (pip install .[dask])")
da = pytest.importorskip("dask.array", reason="the Dask tests need dask[array] (pip install .[dask])")
distributed = pytest.importorskip("distributed", reason="the Dask tests need distributed (pip install .[dask])")
cupy = pytest.importorskip("cupy", reason="the Dask GPU tests need CuPy")
_reason = corank.gpu_unavailable_reason()
pytestmark = pytest.mark.skipif(bool(_reason), reason=f"no usable GPU: {_reason}")

import corank.dask as cd  # noqa: E402

OPERATIONS = {
    ref.UNION: (cd.set_union, cd.set_union_count, corank.set_union),
    ref.INTERSECTION: (cd.set_intersection, cd.set_intersection_count, corank.set_intersection),
    ref.DIFFERENCE: (cd.set_difference, cd.set_difference_count, corank.set_difference),
    ref.SYMMETRIC_DIFFERENCE: (cd.set_symmetric_difference, cd.set_symmetric_difference_count,
                               corank.set_symmetric_difference),
}
SHAPES = ("empty_a", "all_equal", "long_runs", "disjoint", "interleaved", "one_tiny", "extremes")


@pytest.fixture(scope="module")
def client():
    """One GPU worker: dask-cuda's where it is installed, else a worker process of Dask's own."""
    try:
        from dask_cuda import LocalCUDACluster
        cluster = LocalCUDACluster(n_workers=1, dashboard_address=None)
    except ImportError:
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
    with cluster, distributed.Client(cluster) as c:
        print(f"GPU worker from {type(cluster).__module__}.{type(cluster).__name__}")
        yield c


def on_gpu(client, x, chunks):
    return client.persist(da.from_array(cupy.asarray(x), chunks=(chunks,), asarray=False))


def host(x):
    assert isinstance(x, cupy.ndarray), type(x)
    return x.get()


def chunking(rng, n):
    cuts = np.sort(rng.integers(0, n + 1, int(rng.integers(0, 12))))
    return tuple(int(s) for s in np.diff(np.concatenate([[0], cuts, [n]])))


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
def test_cupy_chunks_match_the_single_call(client, rng, dtype, shape):
    a, b = ref.SHAPES[shape](rng, dtype, 20000)
    ca, cb = chunking(rng, len(a)), chunking(rng, len(b))
    parts = int(rng.choice([1, 4, 13]))
    A, B = on_gpu(client, a, ca), on_gpu(client, b, cb)
    where = f"chunks {ca} {cb}, npartitions={parts}"
    results = [cd.merge(A, B, npartitions=parts)] + [function(A, B, npartitions=parts)
                                                     for function, _, _ in OPERATIONS.values()]
    assert all(isinstance(r._meta, cupy.ndarray) for r in results)
    got = dask.compute(*results)
    assert ref.same(host(got[0]), corank.merge(a, b)), f"merge, {where}"
    for (op, (_, count, single)), result in zip(OPERATIONS.items(), got[1:]):
        expected = single(a, b)
        assert ref.same(host(result), expected), f"{op}, {where}"
        assert count(A, B, npartitions=parts, check_sorted=True) == len(expected), f"{op} count, {where}"


@pytest.mark.parametrize("shape", ["all_equal", "long_runs", "interleaved"])
def test_values_follow_their_keys_on_the_gpu(client, rng, shape):
    a, b = ref.SHAPES[shape](rng, "int64", 30000)
    va, vb = ref.values_for(rng, "float32", len(a)), ref.values_for(rng, "float32", len(b))
    A, B = on_gpu(client, a, chunking(rng, len(a))), on_gpu(client, b, chunking(rng, len(b)))
    VA, VB = on_gpu(client, va, chunking(rng, len(a))), on_gpu(client, vb, chunking(rng, len(b)))
    results = [cd.merge(A, B, values_a=VA, values_b=VB, npartitions=7)]
    results += [function(A, B, values_a=VA, values_b=VB, npartitions=7) for function, _, _ in OPERATIONS.values()]
    results.append(cd.set_intersection_paired(A, B, VA, VB, npartitions=5, compute_chunk_sizes=True))
    got = dask.compute(*results)
    expected = [corank.merge(a, b, values_a=va, values_b=vb)]
    expected += [single(a, b, values_a=va, values_b=vb) for _, _, single in OPERATIONS.values()]
    expected.append(corank.set_intersection_paired(a, b, va, vb))
    for name, outputs, wanted in zip([ref.MERGE, *OPERATIONS, "paired"], got, expected):
        assert len(outputs) == len(wanted) and all(ref.same(host(x), y) for x, y in zip(outputs, wanted)), name


def test_the_co_rank_on_cupy_chunks_matches_the_single_array_splits(client, rng):
    a, b = ref.SHAPES["long_runs"](rng, "float64", 700)
    A, B = on_gpu(client, a, chunking(rng, len(a))), on_gpu(client, b, chunking(rng, len(b)))
    k = np.arange(len(a) + len(b) + 1)
    merge_i = ref.merge_path_splits(a, b)
    i, j = cd.path_splits(A, B, k)
    assert np.array_equal(i, merge_i) and np.array_equal(j, k - merge_i)
    i, j = cd.path_splits(A, B, k, balanced=True)
    expected = np.array([ref.balanced_path_split(d, merge_i[d], a, b) for d in k])
    assert np.array_equal(np.stack([i, j], 1), expected)


def test_checks_and_errors_with_cupy_chunks(client):
    sorted_b = on_gpu(client, np.arange(10), (5, 5))
    inside = on_gpu(client, np.array([1, 2, 3, 5, 4, 6]), (3, 3))
    with pytest.raises(ValueError, match=r"`b` is not sorted: b\[4\] comes before b\[3\] \(in chunk 1\)"):
        cd.set_union(sorted_b, inside, check_sorted=True)
    across = on_gpu(client, np.array([1, 2, 5, 3, 4, 6]), (3, 3))
    with pytest.raises(ValueError, match=r"`a` is not sorted across chunks: a\[3\], the first element of chunk 1"):
        cd.merge(across, sorted_b)
    # A chunk whose meta says NumPy but which is CuPy, as a mislabelled from_delayed makes.
    cupy_chunk = da.from_delayed(dask.delayed(cupy.arange)(3, 6), shape=(3,), dtype=np.int64,
                                 meta=np.empty(0, np.int64))
    mixed = da.concatenate([da.from_array(np.arange(3), chunks=3), cupy_chunk])
    with pytest.raises(ValueError, match=r"`a` has NumPy and CuPy chunks \(chunk 0 is NumPy, chunk 1 CuPy\)"):
        cd.merge(mixed, np.arange(4))
    with pytest.raises(ValueError, match="`a` has CuPy chunks and `b` NumPy chunks"):
        cd.merge(sorted_b, np.arange(4))


def test_a_larger_merge_on_the_gpu_matches_one_call(client, rng):
    n = 1 << 22
    a = np.sort(rng.integers(0, 1 << 40, n))
    b = np.sort(rng.integers(0, 1 << 40, n))
    A, B = on_gpu(client, a, (n // 8,) * 8), on_gpu(client, b, (n // 5,) * 5 + (n % 5,))
    got = cd.merge(A, B).compute()
    assert ref.same(host(got), host(corank.merge(cupy.asarray(a), cupy.asarray(b))))


@pytest.fixture(scope="module")
def two_workers():
    """Two GPU worker processes, shown GPUs 0 and 1 where there are two, else both GPU 0."""
    devices = ["0", "1"] if cupy.cuda.runtime.getDeviceCount() >= 2 else ["0", "0"]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:  # the devices as the parent sees them, renamed to what the workers will see
        shown = visible.split(",")
        devices = [shown[int(d)] for d in devices]
    workers = {f"gpu-{i}": {"cls": distributed.Nanny,
                            "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": d}}}
               for i, d in enumerate(devices)}
    scheduler = {"cls": distributed.Scheduler, "options": {"dashboard": False}}
    with distributed.SpecCluster(workers=workers, scheduler=scheduler) as cluster, \
            distributed.Client(cluster) as c:
        c.wait_for_workers(2)
        print(f"two GPU workers on CUDA_VISIBLE_DEVICES {devices}")
        yield c


def placed(client, x, cuts, workers):
    """x in pieces x[cuts[i]:cuts[i+1]], piece i persisted on workers[i % 2] (several chunks each)."""
    spans = list(enumerate(zip(cuts[:-1], cuts[1:])))
    pieces = []
    for i, (lo, hi) in spans:
        piece = da.from_array(cupy.asarray(x[lo:hi]), chunks=(max(1, (hi - lo) // 3),), asarray=False,
                              name=False)  # a fresh key each: equal pieces would share one
        pieces.append(client.persist(piece, workers=[workers[i % 2]], allow_other_workers=False))
    distributed.wait(pieces)
    whole = da.concatenate(pieces)
    holders = {w for ws in client.who_has(whole).values() for w in ws}
    assert holders == {workers[i % 2] for i, (lo, hi) in spans if hi > lo}, holders  # concatenate drops empty pieces
    return whole


@pytest.mark.parametrize("shape", ["long_runs", "interleaved", "disjoint", "one_tiny"])
def test_two_gpu_workers_match_the_single_call(two_workers, rng, shape):
    a, b = ref.SHAPES[shape](rng, "int64", 60000)
    workers = sorted(two_workers.scheduler_info()["workers"])
    cut = lambda n: [0, *sorted(int(c) for c in rng.integers(0, n + 1, 3)), n]  # noqa: E731
    A, B = placed(two_workers, a, cut(len(a)), workers), placed(two_workers, b, cut(len(b)), workers[::-1])
    va, vb = ref.values_for(rng, "float32", len(a)), ref.values_for(rng, "float32", len(b))
    VA = placed(two_workers, va, [0, len(a) // 2, len(a)], workers)
    VB = placed(two_workers, vb, [0, len(b) // 2, len(b)], workers)
    where = f"{shape}, A chunks {A.chunks[0]}, B chunks {B.chunks[0]}"
    results = [cd.merge(A, B, values_a=VA, values_b=VB, npartitions=5)]
    results += [function(A, B, npartitions=5) for function, _, _ in OPERATIONS.values()]
    got = dask.compute(*results)
    keys, values = got[0]
    wanted_keys, wanted_values = corank.merge(a, b, values_a=va, values_b=vb)
    assert ref.same(host(keys), wanted_keys) and ref.same(host(values), wanted_values), f"merge, {where}"
    for (op, (_, count, single)), result in zip(OPERATIONS.items(), got[1:]):
        expected = single(a, b)
        assert ref.same(host(result), expected), f"{op}, {where}"
        assert count(A, B, npartitions=3) == len(expected), f"{op} count, {where}"
