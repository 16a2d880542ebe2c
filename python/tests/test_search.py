"""searchsorted and isin on NumPy arrays (CPU threads) against NumPy's own functions, whose
results define the answer: every dtype and input shape of reference.py (empty, all equal, long
runs, disjoint, interleaved, one side tiny, extremes, NaNs and -0.0), sorted and unsorted
queries of any shape, each of the three methods (_plan), sorter=, threads, two dtypes
promoted; and the errors. The seed is in pytest's header (conftest.py)."""

import re

import numpy as np
import pytest

import corank
import reference as ref
from corank import _search

@pytest.mark.parametrize("dtype", ref.KEY_DTYPES)
@pytest.mark.parametrize("shape", ref.SHAPES)
def test_searchsorted_matches_numpy(rng, dtype, shape, plan):
    for n in (1, 100, 5000):
        a, b = ref.SHAPES[shape](rng, dtype, n)  # sorted; floats with NaNs and -0.0
        for v in (b, rng.permutation(b), rng.permutation(b).reshape(-1, 1) if len(b) else b):
            for side in ("left", "right"):
                assert ref.same(corank.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side)), \
                    f"n={n} side={side} v{v.shape}"


@pytest.mark.parametrize("dtype", ref.KEY_DTYPES)
@pytest.mark.parametrize("shape", ref.SHAPES)
def test_isin_matches_numpy(rng, dtype, shape, plan):
    for n in (1, 100, 5000):
        a, b = ref.SHAPES[shape](rng, dtype, n)
        for element, test in ((a, b), (rng.permutation(a).reshape(-1, 1) if len(a) else a, rng.permutation(b))):
            for invert in (False, True):
                got, expected = corank.isin(element, test, invert=invert), np.isin(element, test, invert=invert)
                assert ref.same(got, expected), f"n={n} invert={invert} element{element.shape}"


@pytest.mark.parametrize("shape", ["interleaved", "long_runs", "all_equal"])
@pytest.mark.parametrize("threads", [1, 3, 7])
def test_threads_and_pieces(rng, shape, threads):
    # 2^15 path positions a thread: these sizes start every thread asked for.
    a, b = ref.SHAPES[shape](rng, "int64", 150000)
    for side in ("left", "right"):
        assert ref.same(corank.searchsorted(a, b, side=side, threads=threads), np.searchsorted(a, b, side=side))
    assert ref.same(corank.isin(b, a, threads=threads), np.isin(b, a))


def test_the_plan_by_size():
    assert _search._plan(10, 10**8, True, np, False) == "binary"  # a few queries in a long array
    assert _search._plan(10**6, 10**6, True, np, False) == "merge"
    assert _search._plan(10**6, 10**6, False, np, False) == "sort"
    assert _search._plan(100, 10**6, False, np, False) == "binary"
    assert _search._plan(100, 10**6, True, None, False) == "merge"  # other GPU arrays: no library


def test_assume_sorted_skips_the_reads_and_check_sorted_checks(rng):
    a, v = np.sort(rng.integers(0, 100, 5000)), np.sort(rng.integers(-10, 110, 7000))
    for check in (True, False):
        assert ref.same(corank.searchsorted(a, v, assume_sorted=True, check_sorted=check), np.searchsorted(a, v))
        assert ref.same(corank.isin(v, a, assume_sorted=True, check_sorted=check), np.isin(v, a))
    # Nothing checked, with empty sides and a scalar.
    for a_, v_ in ((a, v[:0]), (a[:0], v), (a[:0], v[:0]), (a, v[:1])):
        for side in ("left", "right"):
            assert ref.same(corank.searchsorted(a_, v_, side=side, assume_sorted=True, check_sorted=False),
                            np.searchsorted(a_, v_, side=side))
        assert ref.same(corank.isin(v_, a_, assume_sorted=True, check_sorted=False), np.isin(v_, a_))
    assert corank.searchsorted(a, 50, assume_sorted=True, check_sorted=False) == np.searchsorted(a, 50)
    with pytest.raises(ValueError, match=re.escape("corank.searchsorted: `v` is not sorted: v[1] comes before v[0]")):
        corank.searchsorted(a, [5, 3], assume_sorted=True)
    with pytest.raises(ValueError, match=re.escape("corank.isin: `test_elements` is not sorted")):
        corank.isin([1], [5, 3], assume_sorted=True)
    with pytest.raises(ValueError, match=re.escape("corank.isin: `element` is not sorted")):
        corank.isin([5, 3], [1], assume_sorted=True)


def test_scalars_and_shapes_as_numpy():
    a = np.array([1, 2, 2, 3])
    got = corank.searchsorted(a, 2)
    assert isinstance(got, np.integer) and got == 1
    assert ref.same(corank.searchsorted(a, [[2, 0], [5, 3]], side="right"), np.searchsorted(a, [[2, 0], [5, 3]], "right"))
    assert ref.same(corank.searchsorted([], [1, 2]), np.searchsorted([], [1, 2]))
    assert ref.same(corank.searchsorted(a, []), np.searchsorted(a, []))
    assert ref.same(corank.isin(2, a), np.isin(2, a))  # a 0-d array, as NumPy's
    assert ref.same(corank.isin([[1, 5], [3, 2]], []), np.isin([[1, 5], [3, 2]], []))
    assert ref.same(corank.isin([], a, invert=True), np.isin([], a, invert=True))


def test_sorter_as_numpy(rng):
    for n in (0, 1, 1000, 40000):
        a = rng.integers(-50, 50, n)
        sorter = np.argsort(a, kind="stable")
        v = rng.integers(-60, 60, 3000)
        for side in ("left", "right"):
            assert ref.same(corank.searchsorted(a, v, side, sorter), np.searchsorted(a, v, side, sorter))


def test_dtypes_promoted_as_numpy():
    a = np.array([1, 2, 3, 2**40], dtype=np.int64)
    v = np.array([1.5, 2.0, 2.5, -1.0, 3e12], dtype=np.float32)
    assert ref.same(corank.searchsorted(a, v), np.searchsorted(a, v))
    assert ref.same(corank.isin(v, a), np.isin(v, a))
    u = np.array([0, 7, 200], dtype=np.uint8)
    assert ref.same(corank.searchsorted(u, [-1, 7, 300]), np.searchsorted(u, [-1, 7, 300]))
    assert ref.same(corank.isin([-1, 7, 300], u), np.isin([-1, 7, 300], u))


def test_nans_as_numpy_2():
    a = np.array([-np.inf, -0.0, 1.0, np.nan, np.nan])
    v = np.array([np.nan, 0.0, -0.0, np.inf, np.nan, 1.0])
    for side in ("left", "right"):
        assert ref.same(corank.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side))
    for invert in (False, True):
        # NaN is in nothing: corank's sorted search finds it among a's NaNs; isin says no, as NumPy.
        assert ref.same(corank.isin(v, a, invert=invert), np.isin(v, a, invert=invert))
        assert ref.same(corank.isin(np.sort(v), a, invert=invert), np.isin(np.sort(v), a, invert=invert))


def test_kind_and_assume_unique_are_accepted():
    a, b = np.array([3, 1, 2]), np.array([2, 5])
    for kind in (None, "sort", "table"):
        assert ref.same(corank.isin(a, b, assume_unique=True, kind=kind), np.isin(a, b, kind=kind))
    with pytest.raises(ValueError, match=re.escape("corank.isin: invalid kind: 'quicksort'")):
        corank.isin(a, b, kind="quicksort")
    with pytest.raises(ValueError, match="kind='table' takes integer arrays only"):
        corank.isin(a.astype(float), b, kind="table")


def test_errors_are_one_sentence():
    a = np.array([1, 2, 3])
    with pytest.raises(ValueError, match=re.escape("corank.searchsorted: side must be 'left' or 'right' (got 'up')")):
        corank.searchsorted(a, 1, side="up")
    with pytest.raises(ValueError, match=re.escape("corank.searchsorted: `a` must be 1-D, got shape (2, 2)")):
        corank.searchsorted(np.ones((2, 2)), 1)
    with pytest.raises(ValueError, match=re.escape("corank.searchsorted: `a` is not sorted: a[2] comes before a[1]")):
        corank.searchsorted(np.array([1, 3, 2]), [2])
    with pytest.raises(ValueError, match=re.escape("`a[sorter]` is not sorted")):
        corank.searchsorted(np.array([1, 3, 2]), [2], sorter=[0, 2, 1][::-1])
    with pytest.raises(ValueError, match=re.escape("sorter.size must equal a.size (2 != 3)")):
        corank.searchsorted(a, [2], sorter=[0, 1])
    with pytest.raises(ValueError, match="sorter index out of range"):
        corank.searchsorted(a, [2], sorter=[0, 1, 3])
    with pytest.raises(TypeError, match=re.escape("corank.searchsorted: `v` has dtype <U1")):
        corank.searchsorted(a, np.array(["x"]))
    with pytest.raises(TypeError, match=re.escape("corank.isin: `element` has dtype float16")):
        corank.isin(np.array([1.0], dtype=np.float16), a)
    # Bools are bytes 0 and 1 (NumPy's own tests of isin run bools).
    assert ref.same(corank.isin(np.array([True, False]), [0]), np.isin(np.array([True, False]), [0]))


def test_unchecked_unsorted_a_stays_in_bounds(rng):
    # check_sorted=False on an unsorted a: NumPy's indices are meaningless too; corank's lie in
    # [0, len(a)], or ValueError where the pass finds a unsorted.
    for _ in range(20):
        a = rng.integers(0, 1000, 200000)
        v = np.sort(rng.integers(0, 1000, 100000))
        try:
            got = corank.searchsorted(a, v, check_sorted=False)
        except ValueError as e:
            assert "is not sorted" in str(e)
            continue
        assert got.shape == v.shape and got.min() >= 0 and got.max() <= len(a)
