"""Unsorted inputs passed unchecked (check_sorted=False), and what every operation may do with
them: return a result within its output bound, or raise the ValueError that says the inputs are
not sorted. A crash, another error or a longer result fails. Used by test_host.py (NumPy, CPU
threads) and test_gpu.py (CuPy)."""

import numpy as np

import corank
import reference as ref

# m + n = 270,000: several threads of the CPU backend (one per 2^15 elements, up to the
# count asked) and many GPU tiles each take a piece of the path.
M, N = 150_000, 120_000


def _keys(rng, dtype, n, distinct):
    return ref._draw(rng, dtype, n, distinct)  # sorted, floats with some NaNs (last)


def _one_misplaced(rng, dtype):
    a = _keys(rng, dtype, M, 1 << 16).copy()
    a[M // 2] = a[-1]  # the largest key, in the middle
    return a, _keys(rng, dtype, N, 1 << 16)


def _nans_inside(rng, dtype):
    a, b = np.sort(rng.random(M)).astype(dtype), np.sort(rng.random(N)).astype(dtype)
    a[::1000] = np.nan  # NaNs sort last: each one breaks the order
    b[500::1000] = np.nan
    return a, b


# name -> function(rng, dtype) -> (a, b), unsorted.
SHAPES = {
    "random": lambda rng, t: (rng.permutation(_keys(rng, t, M, 1 << 20)), rng.permutation(_keys(rng, t, N, 1 << 20))),
    "descending": lambda rng, t: (_keys(rng, t, M, 1 << 20)[::-1].copy(), _keys(rng, t, N, 1 << 20)[::-1].copy()),
    "one_misplaced": _one_misplaced,
    "heavy_duplicates": lambda rng, t: (rng.permutation(_keys(rng, t, M, 3)), rng.permutation(_keys(rng, t, N, 3))),
    "nans_inside": _nans_inside,
}
# (shape, key dtype) pairs: NaNs only where there are floats.
CASES = [(shape, dtype) for shape in SHAPES for dtype in ("int64", "uint16", "float64")
         if shape != "nans_inside" or dtype == "float64"]
# The values' dtype for each key dtype: 1-byte values take the widening paths of both backends.
VALUE_DTYPES = {"int64": "int32", "uint16": "uint8", "float64": "int64"}


def refusal(name, names):
    """The ValueError's text where `name` found its unchecked inputs (named `names`) unsorted."""
    inputs = f"`{names[0]}`" if names[0] == names[1] else f"`{names[0]}` or `{names[1]}`"
    return f"{name}: {inputs} is not sorted (found while partitioning the inputs); pass check_sorted=True to find where"


def _bounded_or_refused(call, name, names=(("a", "b"),)):
    """call()'s result, or None where it raised the ValueError of unsorted input."""
    try:
        return call()
    except ValueError as e:
        assert str(e) in [refusal(name, pair) for pair in names], str(e)
        return None


def check_every_operation(a, b, va, vb, to_host, **kwargs):
    """Runs every operation on unsorted a and b (with values va and vb, of the arrays' kind)
    unchecked, with kwargs (threads=, strategy=); to_host(x) is x as a NumPy array. Checks
    that each returns within its bound or refuses, and that the inputs are left as they were."""
    m, n = len(a), len(b)
    before = [to_host(x).copy() for x in (a, b, va, vb)]
    on_gpu = not isinstance(a, np.ndarray)

    def size_on_device(count, bound):
        # Negative: the ValueError that nothing waited for (only where the size stays on a GPU).
        size = int(to_host(count)[0])
        assert size <= bound and (size >= 0 or on_gpu), size

    merged = _bounded_or_refused(lambda: corank.merge(a, b, **kwargs), "corank.merge")
    assert merged is None or len(merged) == m + n, "a merge writes every key"
    pair = _bounded_or_refused(lambda: corank.merge(a, b, values_a=va, values_b=vb, **kwargs), "corank.merge")
    assert pair is None or len(pair[0]) == len(pair[1]) == m + n

    for function, count, bound in (
            (corank.set_union, corank.set_union_count, m + n),
            (corank.set_intersection, corank.set_intersection_count, min(m, n)),
            (corank.set_difference, corank.set_difference_count, m),
            (corank.set_symmetric_difference, corank.set_symmetric_difference_count, m + n)):
        name, count_name = f"corank.{function.__name__}", f"corank.{count.__name__}"
        keys = _bounded_or_refused(lambda: function(a, b, **kwargs), name)
        assert keys is None or len(keys) <= bound, (name, len(keys), bound)
        pair = _bounded_or_refused(lambda: function(a, b, values_a=va, values_b=vb, **kwargs), name)
        assert pair is None or len(pair[0]) == len(pair[1]) <= bound, name
        triple = _bounded_or_refused(
            lambda: function(a, b, values_a=va, values_b=vb, count_on_device=True, **kwargs), name)
        if triple is not None:
            assert len(triple[0]) == len(triple[1]) == max(bound, 1), name  # the outputs whole
            size_on_device(triple[2], bound)
        size = _bounded_or_refused(lambda: count(a, b, **kwargs), count_name)
        assert size is None or 0 <= size <= bound, (count_name, size, bound)
        size = _bounded_or_refused(lambda: count(a, b, count_on_device=True, **kwargs), count_name)
        if size is not None:
            size_on_device(size, bound)

    triple = _bounded_or_refused(lambda: corank.set_intersection_paired(a, b, va, vb, **kwargs),
                                 "corank.set_intersection_paired")
    assert triple is None or len(triple[0]) == len(triple[1]) == len(triple[2]) <= min(m, n)

    # The NumPy-style functions, told the inputs are sorted and not to check. On the GPU some
    # compose two passes, whose first one names one input twice.
    names = (("ar1", "ar2"), ("ar1", "ar1"), ("ar2", "ar2"))
    threads = {k: v for k, v in kwargs.items() if k == "threads"}
    for function, bound in ((corank.union1d, m + n), (corank.intersect1d, min(m, n)), (corank.setdiff1d, m),
                            (corank.setxor1d, m + n)):
        keys = _bounded_or_refused(lambda: function(a, b, assume_sorted=True, check_sorted=False, **threads),
                                   f"corank.{function.__name__}", names)
        assert keys is None or len(keys) <= bound, (function.__name__, len(keys), bound)

    for x, y in zip(before, (a, b, va, vb)):
        assert ref.same(x, to_host(y)), "an input was written to"
