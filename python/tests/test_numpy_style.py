"""union1d, intersect1d, setdiff1d and setxor1d against NumPy's own functions, whose results
define the answer: sorted and unsorted input, NaNs, every dtype and two dtypes promoted,
assume_unique, return_indices, array-likes; and what corank refuses."""

import re

import numpy as np
import pytest

import corank
import reference as ref

NAMES = ("union1d", "intersect1d", "setdiff1d", "setxor1d")
PAIRS = {name: (getattr(corank, name), getattr(np, name)) for name in NAMES}


def _same(got, expected):
    """NumPy's assert_array_equal (NaNs equal, -0.0 equal to 0.0), and one dtype."""
    return got.dtype == expected.dtype and np.array_equal(got, expected, equal_nan=got.dtype.kind == "f")


@pytest.mark.parametrize("dtype", ref.KEY_DTYPES)
@pytest.mark.parametrize("shape", ref.SHAPES)
def test_sorted_and_unsorted_input_match_numpy(rng, dtype, shape):
    for n in (1, 100, 5000):
        a, b = ref.SHAPES[shape](rng, dtype, n)  # sorted; floats with NaNs
        for x, y in ((a, b), (rng.permutation(a), rng.permutation(b[::-1]))):
            for name, (ours, numpys) in PAIRS.items():
                assert _same(ours(x, y), numpys(x, y)), f"{name}, n={n}"


@pytest.mark.parametrize("dtype", ["int16", "uint64", "float32", "float64"])
def test_assume_unique_matches_numpy_on_unique_input(rng, dtype):
    for n in (0, 1, 300, 4000):
        a, b = ref.SHAPES["interleaved"](rng, dtype, n)
        a, b = rng.permutation(np.unique(a)), rng.permutation(np.unique(b))  # one NaN at most
        for name in ("intersect1d", "setdiff1d", "setxor1d"):
            ours, numpys = PAIRS[name]
            assert _same(ours(a, b, assume_unique=True), numpys(a, b, assume_unique=True)), f"{name}, n={n}"


def test_setdiff1d_assume_unique_keeps_ar1_as_it_is():
    # NumPy's rule: ar1[~isin(ar1, ar2)], neither sorted nor made unique.
    a, b = np.array([[3.0, np.nan], [2.0, 1.0]]), np.array([7.0, 5.0, 2.0, np.nan])
    got = corank.setdiff1d(a, b, assume_unique=True)
    assert _same(got, np.array([3.0, np.nan, 1.0])) and _same(got, np.setdiff1d(a, b, assume_unique=True))
    assert corank.setdiff1d([5, 1], [], assume_unique=True).tolist() == [5, 1]


@pytest.mark.parametrize("dtype", ["int8", "uint32", "float32", "float64"])
def test_return_indices_match_numpy(rng, dtype):
    for n in (0, 1, 200, 3000):
        a, b = ref.SHAPES["long_runs"](rng, dtype, n)
        for x, y in ((a, b), (rng.permutation(a).reshape(-1, 1), rng.permutation(b))):
            got, expected = corank.intersect1d(x, y, return_indices=True), np.intersect1d(x, y, return_indices=True)
            assert all(_same(g, e) for g, e in zip(got, expected)), f"n={n}"
        u, v = rng.permutation(np.unique(a)), rng.permutation(np.unique(b))
        got = corank.intersect1d(u, v, assume_unique=True, return_indices=True)
        assert all(_same(g, e) for g, e in zip(got, np.intersect1d(u, v, assume_unique=True, return_indices=True)))


@pytest.mark.parametrize("dtypes", [("int8", "uint8"), ("int64", "uint64"), ("int32", "float32"),
                                    ("float32", "float64"), ("uint16", "int64"), ("float64", "int8")])
def test_two_dtypes_are_promoted_as_numpy_promotes(rng, dtypes):
    a = rng.permutation(ref.SHAPES["interleaved"](rng, dtypes[0], 500)[0])
    b = rng.permutation(ref.SHAPES["interleaved"](rng, dtypes[1], 700)[0])
    for x, y in ((a, b), (b, a)):
        for name, (ours, numpys) in PAIRS.items():
            assert _same(ours(x, y), numpys(x, y)), (name, x.dtype, y.dtype)


def test_setdiff1d_keeps_ar1s_values_and_dtype_where_the_promoted_one_would_merge_them():
    big = 2**53
    a = np.array([big + 1, big, 3], dtype=np.int64)  # distinct int64s, one float64
    for b in (np.array([3.0]), np.array([float(big)]), np.array([], dtype=np.float64)):
        assert _same(corank.setdiff1d(a, b), np.setdiff1d(a, b)), b


def test_array_likes_are_taken_as_numpy_takes_them():
    class Like:
        def __array__(self, dtype=None, copy=None):
            return np.array([3, 1, 2])

    cases = [(Like(), Like()), ([[4, 1], [1, 9]], (9, 2)), (5, [5, 6]), ([], []), ([1.5, 2], 2), ((), [3])]
    for x, y in cases:
        for name, (ours, numpys) in PAIRS.items():
            assert _same(ours(x, y), numpys(x, y)), (name, x, y)
    got = corank.intersect1d([[2, 4], [4, 1]], (4, 2, 2), return_indices=True)
    assert [g.tolist() for g in got] == [[2, 4], [0, 1], [1, 0]]
    assert corank.union1d(np.array([3, 1], dtype=">i4"), [2]).tolist() == [1, 2, 3]  # big-endian: converted


@pytest.mark.parametrize("x", [np.array(["a", "b"]), np.array([b"a"]), np.array([1, "a"], dtype=object),
                               np.array([True, False]), np.array([1j]), np.array([1], dtype=np.float16),
                               np.array(["2024-01-01"], dtype="datetime64[D]")], ids=lambda x: str(x.dtype))
def test_other_dtypes_are_refused_with_one_type_error(x):
    for name in NAMES:
        message = f"corank.{name}: `ar2` has dtype {x.dtype}; corank's set routines take"
        with pytest.raises(TypeError, match=re.escape(message)):
            getattr(corank, name)(np.array([1]), x)


def test_sorted_input_is_not_sorted_again(monkeypatch):
    a, b = np.array([1, 2, 2, 5]), np.array([2, 3])
    expected = {name: numpys(a, b) for name, (_, numpys) in PAIRS.items()}

    def no_sort(*args, **kwargs):
        raise AssertionError("sorted input was sorted again")

    monkeypatch.setattr(np, "sort", no_sort)
    monkeypatch.setattr(np, "argsort", no_sort)
    for name, (ours, _) in PAIRS.items():
        assert _same(ours(a, b), expected[name]), name
    assert [x.tolist() for x in corank.intersect1d(a, b, return_indices=True)] == [[2], [1], [0]]
    with pytest.raises(AssertionError, match="sorted again"):
        corank.union1d(a[::-1], b)


def test_assume_sorted_checks_unless_told_not_to():
    for name, (ours, numpys) in PAIRS.items():
        with pytest.raises(ValueError, match=rf"corank.{name}: `ar1` is not sorted: ar1\[1\] comes before ar1\[0\]"):
            ours(np.array([3, 1]), np.array([2]), assume_sorted=True)
        with pytest.raises(ValueError, match=rf"corank.{name}: `ar2` is not sorted"):
            ours(np.array([1, 3]), [5, 2], assume_sorted=True)
        assert _same(ours([1, 3], [2, 3], assume_sorted=True, check_sorted=False), numpys([1, 3], [2, 3]))
    with pytest.raises(ValueError, match=r"corank.intersect1d: `ar2` is not sorted"):
        corank.intersect1d([1, 3], [5, 2], return_indices=True, assume_sorted=True)


def test_numpy_signatures_and_corank_keywords_are_accepted():
    a, b = np.array([3, 1, 2]), np.array([2, 3, 4])
    assert corank.intersect1d(a, b, True).tolist() == [2, 3]
    assert corank.setdiff1d(a, b, True).tolist() == [1]
    assert corank.setxor1d(a, b, True).tolist() == [1, 4]
    assert [x.tolist() for x in corank.intersect1d(a, b, False, True)] == [[2, 3], [2, 0], [0, 1]]
    for name, (ours, numpys) in PAIRS.items():
        assert _same(ours(a, b, threads=2, stream=None), numpys(a, b)), name
