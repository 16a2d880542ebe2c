"""corank.dask on CPU workers: the distributed co-rank against the single-array splits
(reference.py: the stable merge order, balanced_split_from transliterated) at every diagonal, and
every operation on a LocalCluster of two worker processes with NumPy chunks against the single
call (corank's CPU backend, itself checked against the reference in test_host.py), over random
chunkings: empty chunks, one chunk, many, boundaries inside runs of equal keys. Errors too.
Skipped, with the reason, without dask[array] and distributed."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import corank
import reference as ref

dask = pytest.importorskip("dask", reason="the Dask tests need dask[array] (pip install .[dask])")
da = pytest.importorskip("dask.array", reason="the Dask tests need dask[array] (pip install .[dask])")
distributed = pytest.importorskip("distributed", reason="the Dask tests need distributed (pip install .[dask])")

import corank.dask as cd  # noqa: E402
from corank.dask import _co_rank  # noqa: E402

OPERATIONS = {
    ref.UNION: (cd.set_union, cd.set_union_count, corank.set_union),
    ref.INTERSECTION: (cd.set_intersection, cd.set_intersection_count, corank.set_intersection),
    ref.DIFFERENCE: (cd.set_difference, cd.set_difference_count, corank.set_difference),
    ref.SYMMETRIC_DIFFERENCE: (cd.set_symmetric_difference, cd.set_symmetric_difference_count,
                               corank.set_symmetric_difference),
}
DTYPES = ("int32", "int64", "float64")


@pytest.fixture(scope="module")
def client():
    """Two worker processes of one thread each: chunks, pieces and windows move between them
    as they would between machines (pickled, over TCP)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  worker_dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def chunking(rng, n, style=None):
    """Chunk sizes summing to n: one chunk, many (some empty), or random cuts."""
    style = style or rng.choice(["one", "random", "many", "empty_ends"])
    if style == "one" or n == 0 and rng.random() < 0.5:
        return (n,)
    count = {"random": rng.integers(1, 6), "many": rng.integers(5, 40), "empty_ends": rng.integers(1, 4)}[style]
    cuts = np.sort(rng.integers(0, n + 1, count))
    sizes = np.diff(np.concatenate([[0], cuts, [n]]))
    if style == "empty_ends":
        sizes = np.concatenate([[0], sizes, [0, 0]])
    return tuple(int(s) for s in sizes)


def dask_of(client, x, chunks):
    return client.persist(da.from_array(x, chunks=(chunks,)))


# The distributed co-rank alone, without Dask: the data through in-memory callbacks.

def sampled_side(sizes, samples, key_at, dtype, gap=_co_rank.GAP):
    """The Side of an input in chunks of `sizes`, `samples` keys sampled per chunk as
    corank.dask samples them; key_at(global positions) gives the keys there."""
    sizes = np.asarray(sizes, dtype=np.int64)
    starts = (np.cumsum(sizes) - sizes)[sizes > 0]
    positions = [_co_rank.sample_positions(int(s), samples, gap) for s in sizes if s > 0]
    return _co_rank.Side.of(sizes, positions, [key_at(start + p) for start, p in zip(starts, positions)], dtype)


class Memory:
    """fetch and count over in-memory arrays cut into chunks, counting rounds and samples."""

    def __init__(self, a, b, sizes_a, sizes_b, sampled=2):
        self.arrays = (a, b)
        self.sides = [sampled_side(s, sampled, x.__getitem__, x.dtype, gap=1)
                      for x, s in ((a, sizes_a), (b, sizes_b))]
        self.rounds, self.fetched, self.counts = 0, [], 0

    def fetch(self, pa, pb):
        self.rounds += 1
        self.fetched.append(len(pa) + len(pb))
        for p, x in zip((pa, pb), self.arrays):
            assert np.all(np.diff(p) > 0) and (len(p) == 0 or 0 <= p[0] and p[-1] < len(x))
        return self.arrays[0][pa], self.arrays[1][pb]

    def count(self, qa, qb):
        self.rounds += 1
        self.counts += 1
        out = []
        for x, side, (chunk, keys, right) in zip(self.arrays, self.sides, (qa, qb)):
            assert len(chunk) <= 2 * len(np.unique(keys)) + 2 * len(keys)  # at most one chunk per key and bound
            out.append(np.array([np.searchsorted(x[side.starts[c]:side.ends[c]], key, "right" if r else "left")
                                 for c, key, r in zip(chunk, keys, right)], dtype=np.int64))
        return out


def sorted_keys(rng, dtype, n, distinct):
    x = rng.integers(0, distinct, n).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[rng.random(n) < 0.1] = np.nan
    return np.sort(x)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float64", "uint8"])
@pytest.mark.parametrize("distinct", [1, 3, 40, 10**6])
def test_distributed_co_rank_matches_the_single_array_splits(rng, dtype, distinct):
    for trial in range(12):
        m, n = (int(x) for x in rng.integers(0, 400, 2))
        if trial == 0:
            m = 0
        a, b = sorted_keys(rng, dtype, m, distinct), sorted_keys(rng, dtype, n, distinct)
        sizes_a, sizes_b = chunking(rng, m), chunking(rng, n)
        samples = int(rng.choice([1, 2, 5, _co_rank.SAMPLES]))
        sampled = int(rng.choice([2, 3, 16]))
        k = np.arange(m + n + 1)
        merge_i = ref.merge_path_splits(a, b)
        for balanced in (False, True):
            memory = Memory(a, b, sizes_a, sizes_b, sampled)
            i, j = _co_rank.path_splits(k, *memory.sides, memory.fetch, memory.count, balanced, samples)
            where = f"trial {trial}: m={m} n={n} chunks {sizes_a} {sizes_b} samples={samples} sampled={sampled}"
            if balanced:
                expected = np.array([ref.balanced_path_split(d, merge_i[d], a, b) for d in k]).reshape(-1, 2)
                assert np.array_equal(i, expected[:, 0]) and np.array_equal(j, expected[:, 1]), where
            else:
                assert np.array_equal(i, merge_i) and np.array_equal(i + j, k), where
            # A round fetches at most s + 1 elements per side and cut (2 min(s, SAMPLES) more on
            # the balanced path); ranges shrink (s+1)-fold.
            per_cut = samples + 1 + (2 * max(1, min(samples, _co_rank.SAMPLES)) if balanced else 0)
            assert all(f <= 2 * per_cut * len(k) for f in memory.fetched), where
            longest = max(1, min(m, n))
            assert memory.rounds <= np.ceil(np.log(longest + 1) / np.log(samples + 1)) + 2, where


@pytest.mark.parametrize("dtype", ["int64", "float64", "uint8"])
@pytest.mark.parametrize("distinct", [1, 3, 40, 10**6])
def test_cuts_settle_from_their_regions_alone(rng, dtype, distinct):
    """What a partition does with its cuts: the range the samples leave each diagonal and the
    regions around it (_co_rank.regions) hold the merge path's split, and settle() finds the
    split of either path from the regions' elements alone, the single-array split at every
    diagonal, for samples from every element to the chunks' ends alone. Where the samples
    leave one split and show no copy of the next key before it (_co_rank.starts_runs: the
    cut is settled without regions), the balanced path's split is that one."""
    for trial in range(12):
        m, n = (int(x) for x in rng.integers(0, 300, 2))
        a, b = sorted_keys(rng, dtype, m, distinct), sorted_keys(rng, dtype, n, distinct)
        sizes_a, sizes_b = chunking(rng, m), chunking(rng, n)
        gap, sampled = int(rng.choice([1, 3, 7, 50])), int(rng.choice([2, 5, 1000]))
        sides = [sampled_side(s, sampled, x.__getitem__, x.dtype, gap) for x, s in ((a, sizes_a), (b, sizes_b))]
        k = np.arange(m + n + 1)
        merge_i = ref.merge_path_splits(a, b)
        where = f"trial {trial}: m={m} n={n} chunks {sizes_a} {sizes_b} gap={gap} sampled={sampled}"
        for balanced in (False, True):
            lo, hi, a0, a1, b0, b1 = _co_rank.regions(k, *sides, balanced)
            assert np.all((lo <= merge_i) & (merge_i <= hi)), where
            assert np.all((0 <= a0) & (a0 <= lo) & (hi <= a1) & (a1 <= m)), where
            assert np.all((0 <= b0) & (b0 <= k - hi) & (k - lo <= b1) & (b1 <= n)), where
            got = [_co_rank.settle(*(int(x[d]) for x in (k, lo, hi, a0, b0)), a[a0[d]:a1[d]], b[b0[d]:b1[d]], m, n,
                                   balanced) for d in k]
            if balanced:
                expected = [ref.balanced_path_split(d, merge_i[d], a, b) for d in k]
                settled = (lo == hi) & _co_rank.starts_runs(lo, k - lo, *sides)
                assert all(tuple(expected[d]) == (lo[d], d - lo[d]) for d in k[settled]), where
            else:
                expected = [(merge_i[d], d - merge_i[d]) for d in k]
            assert got == [tuple(int(x) for x in e) for e in expected], f"balanced={balanced}, {where}"


def test_cuts_at_chunk_ends_between_distinct_keys_need_no_region():
    """Evens and odds in chunks of 5 (the chunks' ends sampled, nothing else): the balanced
    path's cuts at diagonals 10c split both inputs at chunk ends with no run across them, which
    the samples show (_co_rank.starts_runs), so they are settled without a region; a run across
    B's chunk end leaves its cut to the partitions."""
    a, b = np.arange(0, 40, 2), np.arange(1, 40, 2)
    k = np.arange(0, 40, 10)
    for run_across_b_chunk_end in (False, True):
        if run_across_b_chunk_end:
            b[5] = b[4]  # B[4] = B[5] = 9, the next key at diagonal 10
        sides = [sampled_side((5,) * 4, 2, x.__getitem__, x.dtype, gap=1000) for x in (a, b)]
        lo, hi, *_ = _co_rank.regions(k, *sides, True)
        assert lo.tolist() == hi.tolist() == (k // 2).tolist()
        assert _co_rank.starts_runs(lo, k - lo, *sides).tolist() == [True, not run_across_b_chunk_end, True, True]


def test_regions_are_about_a_gap_where_runs_are_short():
    """2^30 keys a side in 16 chunks each, sampled as corank.dask samples them, cut 64 ways:
    every cut's regions hold at most LOCAL elements a side, so the partitions settle them
    without a round; and runs longer than that leave a cut wide (it takes the rounds)."""
    m = n = 1 << 30
    for f, g in ((lambda p: 2 * p, lambda q: 2 * q + 1), (lambda p: p, lambda q: (1 << 29) + 3 * q),
                 (lambda p: p // 1000, lambda q: q // 777)):
        sides = Formula(m, n, 16, f, g).sides
        k = np.arange(65, dtype=np.int64) * (m + n) // 64
        for balanced in (False, True):
            lo, hi, a0, a1, b0, b1 = _co_rank.regions(k, *sides, balanced)
            assert max((a1 - a0).max(), (b1 - b0).max()) <= _co_rank.LOCAL, balanced
    sides = Formula(m, n, 16, lambda p: p >> 20, lambda q: q >> 20).sides  # runs of 2^20 equal keys
    lo, hi, a0, a1, b0, b1 = _co_rank.regions(k, *sides, True)
    assert (b1 - b0).max() > _co_rank.LOCAL


@pytest.mark.parametrize("distinct", [10**6, 3])
def test_the_balanced_path_counts_runs_only_where_the_settling_read_does_not_hold_them(rng, distinct):
    """The settling round reads SAMPLES elements beyond each cut's range on both sides, where
    the next key's runs mostly end: short runs need no round of counts; runs longer than that
    (3 distinct keys) do. Both match the single-array splits."""
    m, n = 3000, 2000
    a, b = sorted_keys(rng, "int64", m, distinct), sorted_keys(rng, "int64", n, distinct)
    memory = Memory(a, b, (600,) * 5, (400,) * 5, sampled=20)
    k = np.arange(0, m + n + 1, 37)
    i, j = _co_rank.path_splits(k, *memory.sides, memory.fetch, memory.count, True)
    merge_i = ref.merge_path_splits(a, b)
    expected = np.array([ref.balanced_path_split(d, merge_i[d], a, b) for d in k]).reshape(-1, 2)
    assert np.array_equal(i, expected[:, 0]) and np.array_equal(j, expected[:, 1])
    assert memory.counts == (0 if distinct > m + n else 1)


def exhaustive_narrow(k, lo, hi, a, b):
    """_co_rank._narrow's answer by every sampled key against every cut: the last p known false
    plus one, the first p known true (from A's sampled keys and the sampled B keys around
    k-1-p, and back)."""
    less = _co_rank.less

    def around(side, position):  # the sampled keys nearest the position, at or before and at or after
        before = max(r for r, q in enumerate(side.known_at) if q <= position)
        after = min(r for r, q in enumerate(side.known_at) if q >= position)
        return side.known[before], side.known[after]

    lo, hi = lo.copy(), hi.copy()
    for c in range(len(k)):
        l, h = lo[c], hi[c]
        for p, key in zip(a.known_at, a.known):
            if l <= p < h:
                low, high = around(b, k[c] - 1 - p)
                if less(high, key):
                    hi[c] = min(hi[c], p)
                elif not less(low, key):
                    lo[c] = max(lo[c], p + 1)
        for q, key in zip(b.known_at, b.known):
            p = k[c] - 1 - q
            if l <= p < h:
                low, high = around(a, p)
                if less(key, low):
                    hi[c] = min(hi[c], p)
                elif not less(key, high):
                    lo[c] = max(lo[c], p + 1)
    return lo, np.maximum(hi, lo)


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_narrowing_by_binary_search_matches_every_sampled_key(rng, dtype):
    for trial in range(12):
        m, n = (int(x) for x in rng.integers(1, 300, 2))
        distinct = int(rng.choice([2, 20, 10**6]))
        a, b = sorted_keys(rng, dtype, m, distinct), sorted_keys(rng, dtype, n, distinct)
        sampled = int(rng.choice([2, 3, 7]))
        memory = Memory(a, b, chunking(rng, m, "many"), chunking(rng, n, "many"), sampled)
        k = np.arange(m + n + 1)
        lo, hi = np.maximum(0, k - n), np.minimum(k, m)
        got = _co_rank._narrow(k, lo, hi, *memory.sides)
        expected = exhaustive_narrow(k, lo, hi, *memory.sides)
        assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1]), (trial, sampled)


def test_boundary_keys_narrow_the_search_to_the_chunks_a_cut_falls_in(rng):
    """Disjoint chunks settle a cut from the boundaries alone; interleaved ones leave a range
    within the chunks around the cut, which the rounds then search."""
    a = np.arange(0, 4000, 2)
    b = np.arange(1, 4001, 2)
    memory = Memory(a, b, (500,) * 4, (500,) * 4)
    k = np.arange(0, 4001, 100)
    lo, hi = _co_rank._narrow(k, np.maximum(0, k - 2000), np.minimum(k, 2000), *memory.sides)
    assert np.all(hi - lo <= 1000)
    c = np.arange(1000) + 10000
    memory = Memory(a, c, (500,) * 4, (250,) * 4)
    k = np.arange(0, 3001, 50)
    lo, hi = _co_rank._narrow(k, np.maximum(0, k - 1000), np.minimum(k, 2000), *memory.sides)
    assert np.array_equal(lo, hi) and np.array_equal(lo, np.minimum(k, 2000))

    # Sampled keys inside the chunks: the range left is about a gap between samples.
    memory = Memory(a, b, (500,) * 4, (500,) * 4, sampled=51)
    k = np.arange(0, 4001, 100)
    lo, hi = _co_rank._narrow(k, np.maximum(0, k - 2000), np.minimum(k, 2000), *memory.sides)
    assert np.all(hi - lo <= 10)


def test_sampled_positions_hold_each_chunks_ends_every_gap_within_the_budget():
    for size in (1, 2, 3, 4095, 4096, 4097, 10**6, 1 << 26):
        for samples in (2, 3, 64, _co_rank.chunk_samples(16)):
            p = _co_rank.sample_positions(size, samples)
            assert p[0] == 0 and p[-1] == size - 1 and np.all(np.diff(p) > 0), (size, samples)
            assert len(p) <= max(2, samples + 1) or np.all(np.diff(p) <= _co_rank.GAP), (size, samples)
            assert np.diff(p).max(initial=0) <= max(_co_rank.GAP, -(-(size - 1) // (samples - 1))), (size, samples)
    p = _co_rank.sample_positions(1 << 26, _co_rank.chunk_samples(16))  # 2^30 keys in 16 chunks: about GAP apart
    assert len(p) <= _co_rank.chunk_samples(16) + 1 and np.diff(p).max() <= _co_rank.GAP + 1


def test_a_chunks_samples_are_its_keys_at_the_positions_the_client_derives():
    """The workers send the sampled keys alone; the client derives their positions."""
    from corank.dask import _chunks
    for size in (1, 2, 3, 4095, 4096, 4097, 8193, 10**6 + 7):
        for samples in (2, 3, 64, _co_rank.chunk_samples(16)):
            x = np.arange(size) * 3
            _, got_size, got, _ = _chunks._summary(x, True, False, samples)
            assert got_size == size and np.array_equal(got, x[_co_rank.sample_positions(size, samples)]), (size, samples)


class Formula:
    """Sorted inputs too large to hold, A[p] = f(p) and B[q] = g(q), in equal chunks, sampled
    as corank.dask samples them: the search's reads at full scale."""

    def __init__(self, m, n, chunks, f, g):
        self.f, self.g, self.m, self.n = f, g, m, n
        self.sides = [sampled_side(np.diff(np.arange(chunks + 1, dtype=np.int64) * size // chunks),
                                   _co_rank.chunk_samples(chunks), h, np.int64) for size, h in ((m, f), (n, g))]
        self.rounds = 0

    def fetch(self, pa, pb):
        self.rounds += 1
        return self.f(pa), self.g(pb)

    def merge_path(self, k):
        """The first p in [max(0, k-n), min(k, m)) with g(k-1-p) < f(p), else min(k, m)."""
        lo, hi = np.maximum(0, k - self.n), np.minimum(k, self.m)
        while np.any(lo < hi):
            mid = (lo + hi) // 2
            after = self.g(np.clip(k - 1 - mid, 0, self.n - 1)) < self.f(np.minimum(mid, self.m - 1))
            hi, lo = np.where((lo < hi) & after, mid, hi), np.where((lo < hi) & ~after, mid + 1, lo)
        return lo


@pytest.mark.parametrize("keys", ["interleaved", "skewed", "runs"])
def test_two_to_the_30_keys_a_side_cut_64_ways_settle_in_one_round(keys):
    """The sampled keys (chunk_samples) and a round's share of BUDGET are sized so that the
    cuts of inputs of 2^30 keys each, 64 partitions, settle in the first round."""
    m = n = 1 << 30
    f, g = {"interleaved": (lambda p: 2 * p, lambda q: 2 * q + 1),
            "skewed": (lambda p: p, lambda q: (1 << 29) + 3 * q),
            "runs": (lambda p: p // 1000, lambda q: q // 777)}[keys]
    formula = Formula(m, n, 16, f, g)
    k = np.arange(65, dtype=np.int64) * (m + n) // 64
    i, j = _co_rank.path_splits(k, *formula.sides, formula.fetch, None, False)
    assert np.array_equal(i, formula.merge_path(k)) and np.array_equal(i + j, k)
    assert formula.rounds == 1
    if keys == "interleaved":  # no equal keys: the balanced path is the merge path, found in the same round
        formula.rounds = 0
        i, j = _co_rank.path_splits(k, *formula.sides, formula.fetch, None, True)
        assert np.array_equal(i, formula.merge_path(k)) and np.array_equal(i + j, k)
        assert formula.rounds == 1


# The operations on a LocalCluster, against the single call.

SHAPES = ("empty_both", "empty_a", "all_equal", "long_runs", "disjoint", "interleaved", "one_tiny", "extremes")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_operations_match_the_single_call(client, rng, dtype, shape):
    a, b = ref.SHAPES[shape](rng, dtype, 2000)
    ca, cb = chunking(rng, len(a)), chunking(rng, len(b))
    parts = int(rng.choice([1, 3, 17]))
    A, B = dask_of(client, a, ca), dask_of(client, b, cb)
    where = f"chunks {ca} {cb}, npartitions={parts}"
    merged = cd.merge(A, B, npartitions=parts)
    if len(a) + len(b) >= parts:
        assert merged.chunks == (tuple(np.diff(np.arange(parts + 1) * (len(a) + len(b)) // parts).tolist()),), where
    results = [cd.merge(A, B, npartitions=parts)] + [function(A, B, npartitions=parts)
                                                     for function, _, _ in OPERATIONS.values()]
    got = dask.compute(*results)
    assert ref.same(got[0], corank.merge(a, b)), f"merge, {where}"
    for (op, (_, count, single)), result in zip(OPERATIONS.items(), got[1:]):
        expected = single(a, b)
        assert ref.same(result, expected), f"{op}, {where}"
        assert count(A, B, npartitions=parts) == len(expected), f"{op} count, {where}"


@pytest.mark.parametrize("key_dtype,value_dtype", [("int32", "int64"), ("float64", "uint16")])
@pytest.mark.parametrize("shape", ["all_equal", "long_runs", "interleaved"])
def test_values_follow_their_keys(client, rng, key_dtype, value_dtype, shape):
    """Values chunked unlike their keys; with long runs of equal keys the values show that
    each side keeps its input order (stability) across partitions."""
    a, b = ref.SHAPES[shape](rng, key_dtype, 3000)
    va, vb = ref.values_for(rng, value_dtype, len(a)), ref.values_for(rng, value_dtype, len(b))
    A, B = dask_of(client, a, chunking(rng, len(a), "many")), dask_of(client, b, chunking(rng, len(b), "many"))
    VA, VB = dask_of(client, va, chunking(rng, len(a))), dask_of(client, vb, chunking(rng, len(b)))
    results = [cd.merge(A, B, values_a=VA, values_b=VB, npartitions=7)]
    results += [function(A, B, values_a=VA, values_b=VB, npartitions=7) for function, _, _ in OPERATIONS.values()]
    results.append(cd.set_intersection_paired(A, B, VA, VB.astype("float64"), npartitions=5))
    got = dask.compute(*results)
    expected = [corank.merge(a, b, values_a=va, values_b=vb)]
    expected += [single(a, b, values_a=va, values_b=vb) for _, _, single in OPERATIONS.values()]
    expected.append(corank.set_intersection_paired(a, b, va, vb.astype("float64")))
    for name, outputs, wanted in zip([ref.MERGE, *OPERATIONS, "paired"], got, expected):
        assert len(outputs) == len(wanted) and all(ref.same(x, y) for x, y in zip(outputs, wanted)), name


def test_chunk_boundaries_inside_runs_and_a_partition_per_element(client, rng):
    """Every chunk boundary inside a run of equal keys, and every diagonal a cut."""
    a = np.repeat(np.arange(6), 7).astype("int64")
    b = np.repeat(np.arange(1, 8, 2), 5).astype("int64")
    A, B = dask_of(client, a, (3, 4, 5, 0, 9, 21)), dask_of(client, b, (2, 2, 2, 2, 2, 10))
    parts = len(a) + len(b)
    assert ref.same(cd.merge(A, B, npartitions=parts).compute(), corank.merge(a, b))
    for op, (function, count, single) in OPERATIONS.items():
        assert ref.same(function(A, B, npartitions=parts).compute(), single(a, b)), op
        assert count(A, B, npartitions=parts) == len(single(a, b)), op
    i, j = cd.path_splits(A, B, np.arange(parts + 1), balanced=True)
    merge_i = ref.merge_path_splits(a, b)
    expected = np.array([ref.balanced_path_split(k, merge_i[k], a, b) for k in range(parts + 1)])
    assert np.array_equal(np.stack([i, j], 1), expected)


@pytest.mark.parametrize("local", [0, 40])
def test_cuts_with_wide_regions_take_the_rounds(client, monkeypatch, rng, local):
    """Cuts whose regions hold more than LOCAL elements a side are settled by the search's
    rounds before the graph exists (every inner cut with LOCAL 0, some with 40), and the
    results are the same."""
    monkeypatch.setattr(_co_rank, "LOCAL", local)
    rounds = []
    reader = cd._chunks.Reader.__init__

    def recorded(self, *args):
        reader(self, *args)
        rounds.append(self)

    monkeypatch.setattr(cd._chunks.Reader, "__init__", recorded)
    for shape in ("long_runs", "interleaved", "all_equal"):
        a, b = ref.SHAPES[shape](rng, "int64", 1500)
        va, vb = ref.values_for(rng, "int32", len(a)), ref.values_for(rng, "int32", len(b))
        A, B = dask_of(client, a, chunking(rng, len(a), "many")), dask_of(client, b, chunking(rng, len(b), "many"))
        VA, VB = dask_of(client, va, chunking(rng, len(a))), dask_of(client, vb, chunking(rng, len(b)))
        rounds.clear()
        results = [cd.merge(A, B, values_a=VA, values_b=VB, npartitions=13)]
        results += [function(A, B, values_a=VA, values_b=VB, npartitions=13) for function, _, _ in OPERATIONS.values()]
        assert any(r.rounds for r in rounds), shape
        got = dask.compute(*results)
        expected = [corank.merge(a, b, values_a=va, values_b=vb)]
        expected += [single(a, b, values_a=va, values_b=vb) for _, _, single in OPERATIONS.values()]
        for name, outputs, wanted in zip([ref.MERGE, *OPERATIONS], got, expected):
            assert all(ref.same(x, y) for x, y in zip(outputs, wanted)), f"{name}, {shape}, LOCAL={local}"
        for _, count, single in OPERATIONS.values():
            assert count(A, B, npartitions=13) == len(single(a, b)), f"{shape}, LOCAL={local}"


def test_set_results_have_unknown_or_computed_chunk_sizes(client, rng):
    a, b = ref.SHAPES["long_runs"](rng, "int64", 4000)
    A, B = dask_of(client, a, chunking(rng, len(a), "many")), dask_of(client, b, (len(b),))
    got = cd.set_union(A, B, npartitions=6)
    assert got.numblocks == (6,) and all(np.isnan(c) for c in got.chunks[0])
    known = cd.set_union(A, B, npartitions=6, compute_chunk_sizes=True)
    sizes = known.chunks[0]
    assert sum(sizes) == len(corank.set_union(a, b)) and max(sizes) <= (len(a) + len(b)) // 6 + 2
    assert ref.same(known.compute(), corank.set_union(a, b))
    assert ref.same(known[sizes[0]:sizes[0] + 5].compute(), corank.set_union(a, b)[sizes[0]:sizes[0] + 5])
    keys, values = cd.set_difference(A, B, values_a=A, values_b=B, compute_chunk_sizes=True)
    assert keys.chunks == values.chunks and sum(keys.chunks[0]) == corank.set_difference_count(a, b)


def test_default_partitions_are_about_the_largest_input_chunk(client, rng):
    a, b = np.arange(10000), np.arange(5000) * 2
    merged = cd.merge(dask_of(client, a, (2500,) * 4), dask_of(client, b, (1000,) * 5))
    assert merged.numblocks == (6,) and ref.same(merged.compute(), corank.merge(a, b))


def test_arrays_and_lists_unknown_chunks_and_threads(client, rng):
    a, b = ref.SHAPES["interleaved"](rng, "int64", 2000)
    assert ref.same(cd.merge(a, list(b)).compute(), corank.merge(a, b))
    A = dask_of(client, a, (700, 700, 600))
    masked = A[A >= a[300]]  # chunk sizes unknown (NaN)
    assert np.isnan(masked.chunks[0][0])
    expected = corank.set_symmetric_difference(a[a >= a[300]], b)
    assert ref.same(cd.set_symmetric_difference(masked, b, threads=1).compute(), expected)


@pytest.mark.filterwarnings("ignore:Running on a single-machine scheduler")
def test_each_partition_receives_its_windows_and_the_regions_of_its_cuts(monkeypatch, rng):
    """The pieces a partition's task takes add up to its windows widened to its cuts' regions,
    all partitions' to the inputs and the inner cuts' regions (each element is read once, a
    region's twice), and each call gets exactly its windows. Run in this process (Dask's
    synchronous scheduler), so the calls can be watched."""
    a, b = ref.SHAPES["long_runs"](rng, "int64", 3000)
    A, B = da.from_array(a, chunks=((500, 700, 0, 1300, 500),)), da.from_array(b, chunks=((1503, 1500),))
    received, regions, called = [], [], []
    task, union = cd._graph.Call.__call__, corank.set_union
    C = cd._graph.Cuts

    def watched(self, cuts, bounds, *windows):
        received.append([int((within[:, 1] - within[:, 0]).sum()) for within in bounds.of[:2]])
        regions.append(cuts)
        return task(self, cuts, bounds, *windows)

    def watched_union(x, y, **kwargs):
        called.append([len(x), len(y)])
        return union(x, y, **kwargs)

    monkeypatch.setattr(cd._graph.Call, "__call__", watched)
    monkeypatch.setattr(corank, "set_union", watched_union)
    with dask.config.set(scheduler="synchronous"):
        got = cd.set_union(A, B, npartitions=9).compute()
        i, j = cd.path_splits(A, B, np.arange(10) * (len(a) + len(b)) // 9, balanced=True)
    assert ref.same(got, union(a, b))
    windows = [[int(i[p + 1] - i[p]), int(j[p + 1] - j[p])] for p in range(9)]
    assert sorted(called) == sorted(windows)  # the partitions in any order
    for got_sizes, cuts in zip(received, regions):
        assert got_sizes == [cuts[:, C.A1].max() - cuts[:, C.A0].min(), cuts[:, C.B1].max() - cuts[:, C.B0].min()]
    inner = np.unique(np.concatenate(regions), axis=0)[1:-1]  # the cuts but the first and the last
    assert len(inner) == 8 and not inner[:, C.SETTLED].any()  # short runs: the partitions settle every cut
    assert np.sum(received, axis=0).tolist() == [len(a) + (inner[:, C.A1] - inner[:, C.A0]).sum(),
                                                 len(b) + (inner[:, C.B1] - inner[:, C.B0]).sum()]


def test_chunks_held_where_a_partition_runs_are_not_sliced_apart(client, rng):
    """A partition's task takes whole the chunks held by the worker that holds most of its
    windows (it runs there and slices them itself), and slice tasks of chunks elsewhere, so
    that only pieces move: with all chunks on one worker the graph has no slice task. The
    results are the single call's either way."""
    workers = sorted(client.scheduler_info()["workers"])
    a, b = ref.SHAPES["interleaved"](rng, "int64", 3000)
    for where_b in workers:
        A = client.persist(da.from_array(a, chunks=1000, name=False), workers=[workers[0]], allow_other_workers=False)
        B = client.persist(da.from_array(b, chunks=700, name=False), workers=[where_b], allow_other_workers=False)
        distributed.wait([A, B])
        results = [cd.merge(A, B, npartitions=4), cd.set_union(A, B, npartitions=4)]
        if where_b == workers[0]:
            for result in results:
                keys = [key for key in dict(result.dask) if isinstance(key, tuple)]
                assert not any(str(key[0]).startswith("corank-window-") for key in keys), keys
        merged, union = dask.compute(*results)
        assert ref.same(merged, corank.merge(a, b)) and ref.same(union, corank.set_union(a, b)), where_b


def test_set_operations_read_only_their_own_chunks_where_cuts_fall_at_chunk_ends(client):
    """Chunks of A and B that end together, between distinct keys, split over both workers:
    the balanced path's cuts there are settled by the samples, so each partition's task reads
    one chunk of each input, where it lies, and no piece moves (no slice task)."""
    workers = sorted(client.scheduler_info()["workers"])
    a, b = np.arange(0, 8000, 2), np.arange(1, 8000, 2)
    A, B = ([client.persist(da.from_array(x[c * 1000:(c + 1) * 1000], name=False), workers=[workers[c // 2]],
                            allow_other_workers=False) for c in range(4)] for x in (a, b))
    A, B = da.concatenate(A), da.concatenate(B)
    distributed.wait([A, B])
    for operation in (cd.set_union, cd.set_symmetric_difference):
        result = operation(A, B, npartitions=4)
        tasks = {key: task for key, task in dict(result.dask).items()
                 if isinstance(key, tuple) and str(key[0]).startswith("corank-")}
        assert len(tasks) == 4, sorted(tasks)
        for task in tasks.values():
            assert [len(pieces) for pieces in task[3:5]] == [1, 1], task  # one chunk of A, one of B
        assert ref.same(result.compute(), getattr(corank, operation.__name__)(a, b))


def test_the_samples_of_held_chunks_are_read_where_they_lie(client, rng, monkeypatch):
    """The call's first read (each chunk's size and sampled keys) asks each worker for the
    chunks it holds in one Client.run call, no task; where that call fails, one task per
    worker (only for the chunks of a worker whose part of the call failed); with check_sorted,
    where each chunk is read whole, one task per chunk; chunks no worker holds yet, a task each.
    The results are the single call's."""
    from corank.dask import _chunks
    computed = []
    run = _chunks._run
    monkeypatch.setattr(_chunks, "_run", lambda name, tasks, arrays: computed.append((name, len(tasks))) or
                        run(name, tasks, arrays))
    workers = sorted(client.scheduler_info()["workers"])
    a, b = ref.SHAPES["interleaved"](rng, "int64", 6000)
    A = client.persist(da.from_array(a, chunks=500, name=False), workers=[workers[0]], allow_other_workers=False)
    B = client.persist(da.from_array(b, chunks=400, name=False), workers=[workers[1]], allow_other_workers=False)
    distributed.wait([A, B])
    blocks = A.numblocks[0] + B.numblocks[0]

    def failing_run(*args, **kwargs):
        raise OSError("a worker is gone")

    real_run = client.run

    def one_worker_failing(*args, **kwargs):  # as Client.run returns a worker's error with on_error="return"
        answers = real_run(*args, **kwargs)
        # One of the workers asked: B's holder, or, where the earlier computes left copies of B's
        # chunks on workers[0] (each chunk is read where its first holder by name lies), that one.
        answers[max(answers)] = OSError("this worker failed")
        return answers

    cases = [("held", A, B, False, 0), ("check_sorted", A, B, True, blocks),
             ("not held", da.from_array(a, chunks=500), da.from_array(b, chunks=400), False, blocks),
             ("run fails", A, B, False, 2), ("one worker fails", A, B, False, 1)]
    for what, x, y, check, tasks in cases:
        computed.clear()
        with monkeypatch.context() as m:
            if what == "run fails":
                m.setattr(client, "run", failing_run)
            if what == "one worker fails":
                m.setattr(client, "run", one_worker_failing)
            merged = cd.merge(x, y, npartitions=4, check_sorted=check).compute()
        assert ref.same(merged, corank.merge(a, b)), what
        assert [n for name, n in computed if name.startswith("corank-chunks-")] == [tasks], (what, computed)


def test_threads_zero_is_each_workers_share(monkeypatch, rng):
    """threads=0 (the default) gives each partition's call its worker's share of the hardware
    threads, not every one: on a worker of 3 threads, running 3 calls at once, a third. An
    explicit count is passed as it is, and outside a worker 0 stays 0. In-process workers, so
    the calls can be watched."""
    a, b = ref.SHAPES["interleaved"](rng, "int32", 4000)
    A, B = da.from_array(a, chunks=1000), da.from_array(b, chunks=1500)
    hardware = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    seen = []
    merge = corank.merge

    def watched(*args, threads, **kwargs):
        seen.append(threads)
        return merge(*args, threads=threads, **kwargs)

    monkeypatch.setattr(corank, "merge", watched)
    # dashboard_address=":0": in-process clusters ask for port 8787 even with None.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=3, processes=False,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster):
        assert ref.same(cd.merge(A, B, npartitions=4).compute(), merge(a, b))
        assert seen == [max(1, hardware // 3)] * 4
        seen.clear()
        cd.merge(A, B, npartitions=2, threads=5).compute()
        assert seen == [5, 5]
    assert cd._graph.worker_threads() == 0


def test_the_dask_benchmark_runs_and_checks_its_results(tmp_path):
    """bench/python/bench_dask.py, small, on one CPU worker process: every operation runs, its
    result equals the one call's, and the rows are written."""
    script = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "bench", "python", "bench_dask.py")
    ops = ["merge", "set_union", "set_intersection", "set_difference", "set_symmetric_difference"]
    rows = tmp_path / "rows.json"
    done = subprocess.run([sys.executable, script, "--log2", "12", "--chunks", "3", "--workers", "1", "--repeat", "1",
                           "--ops", ",".join(ops), "--json", str(rows)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    written = json.loads(rows.read_text())["rows"]
    assert [r["operation"] for r in written] == ops
    assert all(r["check"] and r["total_ms"] > 0 and 0 < r["search_share"] < 1 for r in written), written


def test_sortedness_checks_name_the_chunk(client):
    name = "corank.dask.merge"
    sorted_b = da.from_array(np.arange(10), chunks=5)
    across = da.from_array(np.array([1, 2, 5, 3, 4, 6]), chunks=((3, 0, 3),))
    with pytest.raises(ValueError, match=rf"{name}: `a` is not sorted across chunks: a\[3\], the first element of "
                                         r"chunk 2, comes before a\[2\], the last of chunk 0"):
        cd.merge(across, sorted_b)
    inside = da.from_array(np.array([1, 2, 3, 5, 4, 6]), chunks=3)
    assert ref.same(cd.merge(inside, sorted_b).compute()[:3], np.array([0, 1, 1]))  # boundaries alone: unchecked
    with pytest.raises(ValueError, match=r"`b` is not sorted: b\[4\] comes before b\[3\] \(in chunk 1\)"):
        cd.set_union(sorted_b, inside, check_sorted=True)
    both = da.from_array(np.array([2, 1, 3, 5, 4, 9, 8]), chunks=((3, 4),))  # the first break is named
    with pytest.raises(ValueError, match=r"`a` is not sorted: a\[1\] comes before a\[0\] \(in chunk 0\)"):
        cd.merge(both, sorted_b, check_sorted=True)
    later = da.from_array(np.array([1, 2, 5, 3, 4, 9, 8]), chunks=((3, 4),))
    with pytest.raises(ValueError, match=r"`a` is not sorted across chunks: a\[3\]"):
        cd.merge(later, sorted_b, check_sorted=True)
    cd.merge(across, sorted_b, assume_sorted=True).compute()  # unspecified, but runs
    rng = np.random.default_rng(7)
    for _ in range(20):  # unsorted inside chunks: unspecified splits, but within the inputs
        x, y = rng.integers(0, 5, 40), rng.integers(0, 5, 30)
        X, Y = da.from_array(x, chunks=7), da.from_array(y, chunks=4)
        i, j = cd.path_splits(X, Y, np.arange(71), balanced=True, assume_sorted=True)
        assert i.min() >= 0 and i.max() <= 40 and j.min() >= 0 and j.max() <= 30
    for balanced in (False, True):  # no diagonals: no splits
        assert all(len(x) == 0 for x in cd.path_splits(sorted_b, sorted_b, [], balanced=balanced))
    with pytest.raises(ValueError, match="contradict"):
        cd.merge(across, sorted_b, assume_sorted=True, check_sorted=True)
    nan_last = da.from_array(np.array([1.0, np.nan, np.nan]), chunks=1)
    assert cd.set_union_count(nan_last, nan_last) == 3


def test_bad_arguments_get_one_sentence(client):
    a = da.arange(10, chunks=4)
    with pytest.raises(ValueError, match=r"corank.dask.merge: `a` must be 1-D, got shape \(2, 5\)"):
        cd.merge(a.reshape(2, 5), a)
    with pytest.raises(TypeError, match="corank.dask.set_union: `a` is int64 and `b` int32; the keys must have one"):
        cd.set_union(a, a.astype("int32"))
    with pytest.raises(TypeError, match="`b` has dtype complex128"):
        cd.merge(a, a.astype("complex128"))
    with pytest.raises(ValueError, match="`values_b` has 9 elements and `b` 10; each key needs one value"):
        cd.merge(a, a, values_a=a, values_b=a[:9])
    with pytest.raises(TypeError, match="`values_a` is int64 and `values_b` float64; the values must have one dtype"):
        cd.set_intersection(a, a, values_a=a, values_b=a.astype("float64"))
    with pytest.raises(TypeError, match="give both values_a and values_b"):
        cd.merge(a, a, values_a=a)
    with pytest.raises(TypeError, match="corank.dask.set_intersection_paired: values_a and values_b are required"):
        cd.set_intersection_paired(a, a, None, a)
    with pytest.raises(ValueError, match="npartitions=0"):
        cd.merge(a, a, npartitions=0)
    with pytest.raises(ValueError, match=r"diagonals must lie in \[0, 20\]"):
        cd.path_splits(a, a, [21])


class FakeCupy(np.ndarray):
    """A NumPy array that says it is CuPy's: enough for the mixed-kinds check, which runs
    before any corank call."""

    __module__ = "cupy"

    def get(self):
        return np.asarray(self)


@pytest.mark.filterwarnings("ignore:Running on a single-machine scheduler")
def test_mixed_numpy_and_cupy_chunks_are_refused():
    parts = [np.arange(3), np.arange(3, 6).view(FakeCupy)]
    mixed = da.concatenate([da.from_array(p, chunks=3, asarray=False) for p in parts])
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match=r"`a` has NumPy and CuPy chunks \(chunk 0 is NumPy, chunk 1 CuPy\); "
                                             "all chunks of a call must be of one kind"):
            cd.merge(mixed, np.arange(4))
        with pytest.raises(ValueError, match="`a` has NumPy chunks and `b` CuPy chunks"):
            cd.merge(np.arange(4), da.from_array(parts[1], chunks=3, asarray=False))


_EXPRESSIONS = """
try:
    import dask, dask.array as da
except ImportError as error:  # older Dask: expressions in the separate dask-expr
    print("unavailable:", str(error).splitlines()[0]); raise SystemExit
import numpy as np, corank, corank.dask as cd
if not cd._graph.EXPRESSIONS:
    print("unavailable: the classic Array"); raise SystemExit
a, b = np.repeat(np.arange(50), 3), np.arange(0, 100, 2).repeat(2)
A, B = da.from_array(a, chunks=40), da.from_array(b, chunks=((7, 0, 93),))
assert (cd.merge(A, B, npartitions=4).compute() == corank.merge(a, b)).all()
keys, values = cd.set_union(A, B, values_a=A, values_b=B * 10)
assert not np.isnan(keys.chunks[0][0])
expected = corank.set_union(a, b, values_a=a, values_b=b * 10)
assert all((x == y).all() for x, y in zip(dask.compute(keys, values), expected))
assert cd.set_difference_count(A, B) == corank.set_difference_count(a, b)
"""


def test_dask_array_expressions():
    """Dask's experimental array expressions (the array.query-planning option) take the
    results too; there the set operations count their chunk sizes by default. A fresh
    interpreter: the option is read when dask.array is first imported."""
    env = dict(os.environ, DASK_ARRAY__QUERY_PLANNING="True")
    run = subprocess.run([sys.executable, "-c", _EXPRESSIONS], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    if run.stdout.startswith("unavailable"):
        pytest.skip(f"Dask {dask.__version__}'s array expressions: {run.stdout.strip()}")
