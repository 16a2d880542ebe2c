"""union1d, intersect1d, setdiff1d and setxor1d against NumPy's own functions (inputs without
NaN, where NumPy's results define the answer) and against the reference (with NaNs, one
value for corank), sorted and unsorted input, every dtype."""

import numpy as np
import pytest

import corank
import reference as ref

PAIRS = {
    ref.UNION1D: (corank.union1d, np.union1d),
    ref.INTERSECT1D: (corank.intersect1d, np.intersect1d),
    ref.SETDIFF1D: (corank.setdiff1d, np.setdiff1d),
    ref.SETXOR1D: (corank.setxor1d, np.setxor1d),
}


def _without_nan(x):
    return x[~np.isnan(x)] if x.dtype.kind == "f" else x


@pytest.mark.parametrize("dtype", ref.KEY_DTYPES)
@pytest.mark.parametrize("shape", ref.SHAPES)
def test_sorted_input_matches_numpy(rng, dtype, shape):
    for n in (1, 100, 5000):
        a, b = (_without_nan(x) for x in ref.SHAPES[shape](rng, dtype, n))
        for op, (ours, numpys) in PAIRS.items():
            got = ours(a, b)
            assert got.dtype == a.dtype, op
            assert np.array_equal(got, numpys(a, b)), f"{op}, n={n}"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nans_are_one_value(rng, dtype):
    for n in (1, 100, 3000):
        a, b = ref.SHAPES["long_runs"](rng, dtype, n)
        for op, (ours, _) in PAIRS.items():
            assert ref.same(ours(a, b), ref.set_operation(op, a, b)), f"{op}, n={n}"


@pytest.mark.parametrize("dtype", ["int64", "float32", "uint8"])
def test_unsorted_input_is_sorted_first_when_asked(rng, dtype):
    a = rng.integers(0, 50, (30, 7)).astype(dtype)  # 2-D: flattened, as NumPy does
    b = rng.integers(25, 90, 400).astype(dtype)
    for op, (ours, numpys) in PAIRS.items():
        assert np.array_equal(ours(a, b, assume_sorted=False), numpys(a, b)), op


def test_unsorted_input_is_refused_by_default():
    with pytest.raises(ValueError, match="corank.union1d: `ar1` is not sorted"):
        corank.union1d(np.array([3, 1]), np.array([2]))
    assert corank.union1d([1, 1, 2], [2, 5]).tolist() == [1, 2, 5]


def test_numpy_signatures_are_accepted():
    a, b = np.array([1, 2, 3]), np.array([2, 3, 4])
    assert corank.intersect1d(a, b, True).tolist() == [2, 3]
    assert corank.setdiff1d(a, b, assume_unique=True).tolist() == [1]
    assert corank.setxor1d(a, b, True).tolist() == [1, 4]
    with pytest.raises(NotImplementedError, match="return_indices"):
        corank.intersect1d(a, b, return_indices=True)
