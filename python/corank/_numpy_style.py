"""NumPy's set routines, union1d, intersect1d, setdiff1d and setxor1d, with NumPy's
distinct-value results, for sorted input: ops of the co-rank framework that write every key
once (python/src/distinct_ops.hpp), one pass each on CPU threads, one to three passes on the
GPU, where NumPy and CuPy sort the concatenation. A CuPy or NumPy user can swap the import;
unsorted input is refused (or sorted first, with assume_sorted=False)."""

import sys

import numpy as np

from . import _arrays
from . import _run as r

_COMMON = """
    ar1, ar2 : arrays of one dtype (int8 to int64, uint8 to uint64, float32, float64): NumPy
        arrays (and lists) run on CPU threads, CuPy arrays, PyTorch tensors and other CUDA
        arrays (__cuda_array_interface__, DLPack) on their GPU; the result is of ar1's kind.
        NumPy, CuPy and PyTorch arrays are flattened as NumPy flattens them; others must be 1-D.
    assume_sorted : True (default): the inputs are sorted ascending (NaNs last), repeats
        allowed. False: each is sorted first, with its own library (numpy.sort, cupy.sort,
        torch.sort).
    check_sorted : with assume_sorted, check that they are (one extra read); an unsorted
        input raises ValueError. Default True. Unchecked, an unsorted input is never a crash:
        the result has unspecified content, at most the bound of the operation
        (len(ar1) + len(ar2); min(len(ar1), len(ar2)) for intersect1d, len(ar1) for
        setdiff1d), or ValueError is raised where the operation finds the input unsorted.
    stream, threads : as in corank.merge.

    Differences from NumPy: ar1 and ar2 must have one dtype (NumPy promotes), and NaNs are
    one value (NumPy's intersect1d and setxor1d treat every NaN as distinct)."""


def _prepare(name, x, what, assume_sorted):
    """x flattened (and sorted unless assume_sorted), of its own kind."""
    torch = sys.modules.get("torch")
    cupy = sys.modules.get("cupy")
    if isinstance(x, (list, tuple, range)):
        x = np.asarray(x)
    if torch is not None and isinstance(x, torch.Tensor):
        x = x.reshape(-1)
        return x if assume_sorted else torch.sort(x).values
    if cupy is not None and isinstance(x, cupy.ndarray):
        x = x.ravel()
        return x if assume_sorted else cupy.sort(x)
    if isinstance(x, np.ndarray):
        x = x.ravel()
        return x if assume_sorted else np.sort(x)
    if not assume_sorted:
        raise TypeError(f"{name}: assume_sorted=False sorts with the array's own library: give a NumPy, CuPy or "
                        f"PyTorch array for `{what}`, or sort it first")
    return x


def _distinct(op, name, ar1, ar2, assume_sorted, check_sorted, stream, threads):
    a = _prepare(name, ar1, "ar1", assume_sorted)
    b = _prepare(name, ar2, "ar2", assume_sorted)
    check = assume_sorted and check_sorted

    def step(step_op, x, y, names=("ar1", "ar2"), checked=check):
        return r.run(step_op, name, x, y, check_sorted=checked, stream=stream, threads=threads, copy=True,
                     names=names)

    A = _arrays.describe(a, name, "ar1", copy=True)
    if op == r.UNION_DISTINCT or not A.on_gpu:
        return step(op, a, b)
    # On the GPU the balanced-path distinct ops run 2.5-4.3x the instructions of the multiset
    # ones (bench/RESULTS.md, "The Python package"): there, a multiset operation and the
    # merge-path distinct union (each key once) do the same job in two or three passes.
    device = A.device if A.device is not None else 0  # None: an empty array whose pointer names no device

    def distinct(x, which, checked=check):
        return step(r.UNION_DISTINCT, x, _arrays.empty(A, 0, A.dtype, device), (which, which), checked)

    if op == r.INTERSECTION_DISTINCT:
        return distinct(step(r.INTERSECTION, a, b), "ar1", checked=False)
    if op == r.DIFFERENCE_DISTINCT:
        return step(r.DIFFERENCE, distinct(a, "ar1"), b)
    return step(r.SYMMETRIC_DIFFERENCE, distinct(a, "ar1"), distinct(b, "ar2"))


def union1d(ar1, ar2, *, assume_sorted=True, check_sorted=True, stream=None, threads=0):
    """The sorted distinct values that are in ar1 or in ar2 (numpy.union1d).
""" + _COMMON + """

    >>> corank.union1d(np.array([1, 1, 3]), np.array([2, 3, 3]))
    array([1, 2, 3])
    """
    return _distinct(r.UNION_DISTINCT, "corank.union1d", ar1, ar2, assume_sorted, check_sorted, stream, threads)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, assume_sorted=True, check_sorted=True,
                stream=None, threads=0):
    """The sorted distinct values that are in both ar1 and ar2 (numpy.intersect1d).
    assume_unique is accepted for NumPy's signature; the result is the same either way.
    return_indices=True is not supported: use corank.set_intersection_paired with index arrays
    as the values.
""" + _COMMON + """

    >>> corank.intersect1d(np.array([1, 1, 3, 4]), np.array([1, 4, 4]))
    array([1, 4])
    """
    if return_indices:
        raise NotImplementedError("corank.intersect1d: return_indices=True is not supported; use "
                                  "corank.set_intersection_paired with the indices as values")
    return _distinct(r.INTERSECTION_DISTINCT, "corank.intersect1d", ar1, ar2, assume_sorted, check_sorted, stream,
                     threads)


def setdiff1d(ar1, ar2, assume_unique=False, *, assume_sorted=True, check_sorted=True, stream=None, threads=0):
    """The sorted distinct values of ar1 that are not in ar2 (numpy.setdiff1d). assume_unique
    is accepted for NumPy's signature; the result is the same either way.
""" + _COMMON + """

    >>> corank.setdiff1d(np.array([1, 1, 2, 3]), np.array([1, 3, 5]))
    array([2])
    """
    return _distinct(r.DIFFERENCE_DISTINCT, "corank.setdiff1d", ar1, ar2, assume_sorted, check_sorted, stream,
                     threads)


def setxor1d(ar1, ar2, assume_unique=False, *, assume_sorted=True, check_sorted=True, stream=None, threads=0):
    """The sorted distinct values that are in exactly one of ar1 and ar2 (numpy.setxor1d).
    assume_unique is accepted for NumPy's signature; the result is the same either way.
""" + _COMMON + """

    >>> corank.setxor1d(np.array([1, 1, 2, 3]), np.array([1, 3, 5]))
    array([2, 5])
    """
    return _distinct(r.SYMMETRIC_DIFFERENCE_DISTINCT, "corank.setxor1d", ar1, ar2, assume_sorted, check_sorted,
                     stream, threads)
