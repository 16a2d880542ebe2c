"""join and join_count on NumPy arrays (CPU threads) against a brute-force reference (every
pair compared): every dtype and input shape of reference.py, sorted and unsorted columns, NaN
keys (which match each other), dtypes promoted, threads; a key with a million pairs; errors.
The seed is in pytest's header (conftest.py)."""

import re

import numpy as np
import pytest

import corank
import reference as ref


def brute_force_join(left, right):
    """Every (i, j) with equal keys (NaN equal to NaN), ordered by key, then i, then j."""
    left, right = np.asarray(left), np.asarray(right)
    t = np.result_type(left.dtype, right.dtype)
    a, b = left.astype(t), right.astype(t)
    equal = a[:, None] == b[None, :]
    if t.kind == "f":
        equal |= np.isnan(a)[:, None] & np.isnan(b)[None, :]
    i, j = np.nonzero(equal)
    rank = np.argsort(np.argsort(a, kind="stable"), kind="stable")  # the key's order, NaNs last
    order = np.lexsort((j, i, rank[i]))
    return i[order].astype(np.int64), j[order].astype(np.int64)


def _same(got, expected):
    return all(g.dtype == e.dtype and np.array_equal(g, e) for g, e in zip(got, expected)) and len(got) == 2


@pytest.mark.parametrize("dtype", ref.KEY_DTYPES)
@pytest.mark.parametrize("shape", ref.SHAPES)
def test_join_matches_brute_force(rng, dtype, shape):
    for n in (1, 100, 1500):
        a, b = ref.SHAPES[shape](rng, dtype, n)
        for left, right in ((a, b), (b, a), (rng.permutation(a), rng.permutation(b))):
            expected = brute_force_join(left, right)
            assert _same(corank.join(left, right), expected), f"n={n}"
            assert corank.join_count(left, right) == len(expected[0]), f"n={n}"


@pytest.mark.parametrize("threads", [1, 7])
def test_threads_and_one_key_with_a_million_pairs(rng, threads):
    left = np.sort(np.concatenate([rng.integers(0, 1000, 50000), np.full(1000, 5000), rng.integers(6000, 7000, 30000)]))
    right = np.sort(np.concatenate([rng.integers(0, 1000, 40000), np.full(1000, 5000), rng.integers(6000, 7000, 60000)]))
    li, ri = corank.join(left, right, threads=threads)
    assert len(li) == corank.join_count(left, right, threads=threads) >= 1000 * 1000
    assert np.array_equal(left[li], right[ri])
    # Sorted columns: ordered by i, then j, each left key's matches all of its equal range.
    assert np.all(np.diff(li) >= 0) and np.all((np.diff(ri) > 0) | (np.diff(li) > 0))
    counts = np.searchsorted(right, left, "right") - np.searchsorted(right, left, "left")
    assert np.array_equal(np.bincount(li, minlength=len(left)), counts)


def test_dtypes_promoted_and_array_likes():
    expected = brute_force_join(np.array([1.0, 2.5, 3.0]), np.array([3, 1, 1]))
    assert _same(corank.join([1.0, 2.5, 3.0], np.array([3, 1, 1], dtype=np.int8)), expected)
    assert _same(corank.join([], [1, 2]), (np.array([], np.int64), np.array([], np.int64)))


def test_errors_are_one_sentence():
    with pytest.raises(ValueError, match=re.escape("corank.join: `left` must be 1-D, got shape (2, 2)")):
        corank.join(np.ones((2, 2)), [1])
    with pytest.raises(ValueError, match=re.escape("corank.join: `right` is not sorted: right[1] comes before right[0]")):
        corank.join([1, 2], [3, 1], assume_sorted=True)
    with pytest.raises(TypeError, match=re.escape("corank.join_count: `left` has dtype <U1")):
        corank.join_count(np.array(["a"]), [1])


def test_the_count_keeps_the_bounds_the_pairs_are_expanded_from(rng):
    # The join's two calls on CPU threads (_join.py): the count keeps each left key's lower
    # bound and the prefix sums of the match counts, and the pairs come from them, not from the
    # keys again.
    from corank import _run as r
    left = np.sort(rng.integers(0, 40, 3000))
    right = np.sort(rng.integers(0, 40, 2000))
    lower_expected = np.searchsorted(right, left, side="left")
    counts_expected = np.searchsorted(right, left, side="right") - lower_expected
    pairs, kept = r.run(r.JOIN, "corank.join", left, right, count_only=True, keep=True)
    m = len(left)
    assert pairs == counts_expected.sum()
    assert kept.dtype == np.int64 and len(kept) == 2 * m + 1
    assert np.array_equal(kept[:m], lower_expected)
    assert np.array_equal(kept[m:], np.concatenate(([0], np.cumsum(counts_expected))))
    # The pairs are taken from what was kept: altered bounds give altered pairs.
    shifted = kept.copy()
    shifted[:m] += 1
    li, ri = r.run(r.JOIN, "corank.join", left, right, pairs=pairs, kept=shifted)
    expected = brute_force_join(left, right)
    assert np.array_equal(li, expected[0])
    assert np.array_equal(ri, expected[1] + 1)
