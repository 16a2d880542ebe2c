"""NumPy's set routines, union1d, intersect1d, setdiff1d and setxor1d, with NumPy's semantics:
array-likes, dtype promotion, unsorted input (sorted first, unless one read finds it sorted),
assume_unique and return_indices, and NumPy 2's NaNs. The work on sorted input is ops of the
co-rank framework that write every key once (python/src/distinct_ops.hpp), one pass each on
CPU threads, one to three passes on the GPU, where NumPy and CuPy sort the concatenation."""

import sys

import numpy as np

from . import _arrays
from . import _run as r

_COMMON = """
    ar1, ar2 : array-likes, as NumPy takes them: NumPy arrays, lists, tuples, scalars and
        anything numpy.asarray takes run on CPU threads; CuPy arrays, PyTorch tensors and
        other CUDA arrays (__cuda_array_interface__, DLPack) on their GPU; the result is of
        ar1's kind. Inputs are flattened as NumPy flattens them (other GPU arrays must be
        1-D). Dtypes: int8 to int64, uint8 to uint64, float32, float64; ar1 and ar2 are
        promoted to one as NumPy promotes them (numpy.result_type for NumPy and CuPy,
        torch.promote_types). Other dtypes (strings, objects, bool, float16, complex, dates)
        raise TypeError.
    assume_sorted : False (default): an input found sorted by one read (corank.find_unsorted)
        is used as it is, any other is sorted first with its own library (numpy.sort,
        cupy.sort, torch.sort); other GPU arrays must be sorted already. True: the inputs are
        sorted ascending (NaNs last), repeats allowed.
    check_sorted : with assume_sorted=True, check that they are (one read of each); an
        unsorted input raises ValueError. Default True. Unchecked, an unsorted input is never
        a crash: the result has unspecified content, at most the bound of the operation
        (len(ar1) + len(ar2); min(len(ar1), len(ar2)) for intersect1d, len(ar1) for
        setdiff1d), or ValueError is raised where the operation finds the input unsorted.
    stream, threads : as in corank.merge.

    NaNs are as in NumPy 2: union1d keeps one, intersect1d none, setdiff1d one where ar1 has
    any, setxor1d one from each input that has any (assume_unique=True: every NaN of both).
    Differences from NumPy: inputs of two libraries, or GPU arrays of none of NumPy, CuPy and
    PyTorch, are not promoted (they need one dtype), and there NaNs are one value. Where the
    promotion merges values (int64 beyond 2^53 with a float), corank casts before it finds
    the distinct values, NumPy after: NumPy's intersect1d and setxor1d then count one input's
    two values, equal after the cast, as in both inputs. assume_unique=True on inputs that
    are not unique: NumPy's result is not specified, and corank's may differ from it."""

_KDL_CUDA, _KDL_CUDA_MANAGED = 2, 13


def _is_torch(lib):
    return lib is not None and lib.__name__ == "torch"


def _refused(name, what, dtype):
    return TypeError(f"{name}: `{what}` has dtype {dtype}; corank's set routines take int8 to int64, uint8 to "
                     "uint64, float32 and float64 (not strings, objects, bool, float16, complex or dates)")


def _flat(name, x, what):
    """(x flattened as NumPy flattens it, its library: numpy, cupy or torch). Array-likes become
    NumPy arrays (numpy.asarray); other GPU arrays stay as they are, with library None."""
    torch = sys.modules.get("torch")
    cupy = sys.modules.get("cupy")
    if torch is not None and isinstance(x, torch.Tensor):
        if _arrays._torch_dtype_name(x) is None:
            raise _refused(name, what, x.dtype)
        return x.reshape(-1), torch
    if cupy is not None and isinstance(x, cupy.ndarray):
        if x.dtype not in _arrays._NUMPY_NAMES:
            raise _refused(name, what, x.dtype)
        return x.ravel(), cupy
    if not isinstance(x, np.ndarray):
        if hasattr(x, "__cuda_array_interface__") or (
                hasattr(x, "__dlpack_device__") and x.__dlpack_device__()[0] in (_KDL_CUDA, _KDL_CUDA_MANAGED)):
            return x, None
        if hasattr(x, "__dlpack__") and not hasattr(x, "__array__"):  # a CPU array known only by DLPack
            x = np.from_dlpack(x)
    x = np.asarray(x)
    if not x.dtype.isnative and x.dtype.kind in "iuf":
        x = x.astype(x.dtype.newbyteorder("="))
    if x.dtype not in _arrays._NUMPY_NAMES:
        raise _refused(name, what, x.dtype)
    return x.ravel(), np


def _inputs(name, ar1, ar2):
    """(a, b, lib, (a's library, b's)): lib is their one library, None where there is none."""
    a, la = _flat(name, ar1, "ar1")
    b, lb = _flat(name, ar2, "ar2")
    return a, b, (la if la is lb else None), (la, lb)


def _result_type(lib, a, b):
    """The dtype NumPy's promotion (the library's own rule) gives a and b; None without a library."""
    if lib is None:
        return None
    # NumPy 2 promotes arrays by their dtypes alone; CuPy's dtypes are NumPy's.
    return lib.promote_types(a.dtype, b.dtype) if _is_torch(lib) else np.result_type(a.dtype, b.dtype)


def _astype(lib, x, dtype):
    if lib is None or x.dtype == dtype:
        return x
    return x.to(dtype) if _is_torch(lib) else x.astype(dtype)


def _sorted(name, x, what, lib, assume_sorted, check_sorted, stream, order=False):
    """(x sorted ascending, NaNs last; with order=True the stable permutation that sorts it, or
    None where x was sorted already: the identity)."""
    if assume_sorted and not check_sorted:
        return x, None
    first, size = r.first_unsorted(x, name, what, stream, copy=True)  # one read: sorted input skips the sort
    if first == size:
        return x, None
    if assume_sorted:
        raise ValueError(f"{name}: `{what}` is not sorted: {what}[{first}] comes before {what}[{first - 1}] in "
                         "sorted order")
    if lib is None:
        raise TypeError(f"{name}: `{what}` is not sorted, and corank sorts only NumPy, CuPy and PyTorch arrays; "
                        "sort it first")
    if _is_torch(lib):
        values, permutation = lib.sort(x, stable=True)
        return values, (permutation if order else None)
    if not order:
        return lib.sort(x), None
    # Stable, so a key's first copy is its first occurrence (CuPy sorts with Thrust's stable sort).
    permutation = lib.argsort(x, kind="stable") if lib is np else lib.argsort(x)
    return x[permutation], permutation


def _both_sorted(name, a, b, libs, assume_sorted, check_sorted, stream):
    return (_sorted(name, a, "ar1", libs[0], assume_sorted, check_sorted, stream)[0],
            _sorted(name, b, "ar2", libs[1], assume_sorted, check_sorted, stream)[0])


def _arange(lib, n, like):
    if lib is np:
        return np.arange(n)
    if _is_torch(lib):
        return lib.arange(n, device=like.device)
    with like.device:
        return lib.arange(n)


def _is_float(x):
    dtype = x.dtype
    return dtype.is_floating_point if hasattr(dtype, "is_floating_point") else np.dtype(dtype).kind == "f"


def _nans(lib, x, every):
    """The NaNs that end sorted x: all of them (every) or one; None where there are none, and
    without a library (other GPU arrays are not read here)."""
    if lib is None or len(x) == 0 or not _is_float(x) or not bool(lib.isnan(x[-1])):
        return None
    return x[len(x) - int(lib.count_nonzero(lib.isnan(x))):] if every else x[-1:]


def _without_nans(lib, x):
    nans = _nans(lib, x, True)
    return x if nans is None else x[:len(x) - len(nans)]


def _with_nans(lib, result, tails, inputs):
    """Sorted result with its NaNs replaced by `tails` (NumPy's NaNs, never equal to each other)."""
    tails = [t for t in tails if t is not None]
    if not tails:
        return result
    joined = (lib.cat if _is_torch(lib) else lib.concatenate)([_without_nans(lib, result)] + tails)
    # Within the bound: only unchecked unsorted input could pass it; sorted input never does.
    return joined[:sum(len(x) for x in inputs)]


def _found(lib, x, sorted_y):
    """For each element of x, whether sorted_y (not empty) holds it; NaN never, as in numpy.isin."""
    i = lib.searchsorted(sorted_y, x)
    i[i == len(sorted_y)] = len(sorted_y) - 1
    return sorted_y[i] == x


def _distinct(op, name, a, b, stream, threads):
    """op on sorted a and b, one dtype."""
    def step(step_op, x, y, names=("ar1", "ar2")):
        return r.run(step_op, name, x, y, stream=stream, threads=threads, copy=True, names=names)

    A = _arrays.describe(a, name, "ar1", copy=True)
    if op in (r.UNION_DISTINCT, r.INTERSECTION, r.SYMMETRIC_DIFFERENCE) or not A.on_gpu:
        return step(op, a, b)
    # On the GPU the balanced-path distinct ops run 2.5-4.3x the instructions of the multiset
    # ones (bench/RESULTS.md, "The Python package"): there, a multiset operation and the
    # merge-path distinct union (each key once) do the same job in two or three passes.
    if op == r.INTERSECTION_DISTINCT:
        return _unique(step(r.INTERSECTION, a, b), name, "ar1", stream, threads)
    if op == r.DIFFERENCE_DISTINCT:
        return step(r.DIFFERENCE, _unique(a, name, "ar1", stream, threads), b)
    return step(r.SYMMETRIC_DIFFERENCE, _unique(a, name, "ar1", stream, threads),
                _unique(b, name, "ar2", stream, threads))


def _unique(x, name, what, stream, threads):
    """The distinct keys of sorted x, of its kind and dtype: its distinct union with nothing."""
    X = _arrays.describe(x, name, what, copy=True)
    device = X.device if X.device is not None else 0  # None: an empty array whose pointer names no device
    return r.run(r.UNION_DISTINCT, name, x, _arrays.empty(X, 0, X.dtype, device), stream=stream, threads=threads,
                 copy=True, names=(what, what))


def union1d(ar1, ar2, *, assume_sorted=False, check_sorted=True, stream=None, threads=0):
    """The sorted distinct values that are in ar1 or in ar2 (numpy.union1d).
""" + _COMMON + """

    >>> corank.union1d([3, 1, 1], np.array([2, 3, 3]))
    array([1, 2, 3])
    """
    name = "corank.union1d"
    a, b, lib, libs = _inputs(name, ar1, ar2)
    t = _result_type(lib, a, b)
    a, b = _both_sorted(name, _astype(lib, a, t), _astype(lib, b, t), libs, assume_sorted, check_sorted, stream)
    return _distinct(r.UNION_DISTINCT, name, a, b, stream, threads)  # NaNs: one, as numpy.unique leaves them


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, assume_sorted=False, check_sorted=True,
                stream=None, threads=0):
    """The sorted distinct values that are in both ar1 and ar2 (numpy.intersect1d).
    assume_unique : as in NumPy, each input holds each value once: the result is NumPy's for
        such inputs (the GPU skips a pass).
    return_indices : also return, as NumPy does, the index of each value's first occurrence
        in flattened ar1 and in flattened ar2 (int64), from a stable sort of each input that
        is not sorted already. Needs ar1 and ar2 of one of NumPy, CuPy and PyTorch.
""" + _COMMON + """

    >>> corank.intersect1d(np.array([4, 1, 1, 3]), np.array([1, 4, 4]), return_indices=True)
    (array([1, 4]), array([1, 0]), array([0, 1]))
    """
    name = "corank.intersect1d"
    a, b, lib, libs = _inputs(name, ar1, ar2)
    t = _result_type(lib, a, b)
    a, b = _astype(lib, a, t), _astype(lib, b, t)
    if not return_indices:
        a, b = _both_sorted(name, a, b, libs, assume_sorted, check_sorted, stream)
        # Unique inputs: the multiset intersection is the distinct one.
        op = r.INTERSECTION if assume_unique else r.INTERSECTION_DISTINCT
        return _without_nans(lib, _distinct(op, name, a, b, stream, threads))  # NaN != NaN in NumPy
    if lib is None:
        raise TypeError(f"{name}: return_indices=True needs ar1 and ar2 of one of NumPy, CuPy and PyTorch")
    sa, ia = _sorted(name, a, "ar1", lib, assume_sorted, check_sorted, stream, order=True)
    sb, ib = _sorted(name, b, "ar2", lib, assume_sorted, check_sorted, stream, order=True)
    ia = _arange(lib, len(a), a) if ia is None else ia
    ib = _arange(lib, len(b), b) if ib is None else ib
    keys, ia, ib = r.run(r.INTERSECTION, name, sa, sb, ia, ib, paired=True, stream=stream, threads=threads,
                         copy=True, names=("ar1", "ar2"))
    # A key's first pair holds its first occurrences (stable sorts); NaN != NaN in NumPy.
    first = keys == keys
    first[1:] &= keys[1:] != keys[:-1]
    return keys[first], ia[first], ib[first]


def setdiff1d(ar1, ar2, assume_unique=False, *, assume_sorted=False, check_sorted=True, stream=None, threads=0):
    """The sorted distinct values of ar1 that are not in ar2 (numpy.setdiff1d), of ar1's dtype
    (compared in the promoted one, as NumPy compares them).
    assume_unique : True, as in NumPy: ar1 is neither sorted nor made unique: the result is
        the elements of ar1 that are not in ar2, in ar1's order (binary searches in sorted
        ar2, with the array library's searchsorted). Needs ar1 and ar2 of one of NumPy, CuPy
        and PyTorch.
""" + _COMMON + """

    >>> corank.setdiff1d(np.array([3, 1, 1, 2]), [1, 3, 5])
    array([2])
    """
    name = "corank.setdiff1d"
    a, b, lib, libs = _inputs(name, ar1, ar2)
    t = _result_type(lib, a, b)
    if assume_unique:
        if lib is None:
            raise TypeError(f"{name}: assume_unique=True needs ar1 and ar2 of one of NumPy, CuPy and PyTorch")
        sb = _sorted(name, _astype(lib, b, t), "ar2", lib, assume_sorted, check_sorted, stream)[0]
        if not len(sb):
            return a.clone() if _is_torch(lib) else a.copy()  # a new array, as NumPy's
        return a[~_found(lib, _astype(lib, a, t), sb)]
    a, b = _both_sorted(name, a, _astype(lib, b, t), libs, assume_sorted, check_sorted, stream)
    if lib is None or t == a.dtype:
        result = _distinct(r.DIFFERENCE_DISTINCT, name, a, b, stream, threads)
        # NumPy keeps ar1's NaN (NaN != NaN); corank's NaNs are one value, removed where ar2 has one.
        return result if _nans(lib, b, False) is None else _with_nans(lib, result, [_nans(lib, a, False)], (a,))
    # ar1's dtype is not the promoted one (int64 against float64, say): NumPy keeps ar1's values
    # and compares them in the promoted dtype.
    u = _unique(a, name, "ar1", stream, threads)
    return u[~_found(lib, _astype(lib, u, t), b)] if len(b) else u


def setxor1d(ar1, ar2, assume_unique=False, *, assume_sorted=False, check_sorted=True, stream=None, threads=0):
    """The sorted distinct values that are in exactly one of ar1 and ar2 (numpy.setxor1d).
    assume_unique : as in NumPy, each input holds each value once: the result is NumPy's for
        such inputs (the GPU skips two passes).
""" + _COMMON + """

    >>> corank.setxor1d(np.array([3, 1, 1, 2]), np.array([1, 3, 5]))
    array([2, 5])
    """
    name = "corank.setxor1d"
    a, b, lib, libs = _inputs(name, ar1, ar2)
    t = _result_type(lib, a, b)
    a, b = _both_sorted(name, _astype(lib, a, t), _astype(lib, b, t), libs, assume_sorted, check_sorted, stream)
    # Unique inputs: the multiset symmetric difference is the distinct one.
    op = r.SYMMETRIC_DIFFERENCE if assume_unique else r.SYMMETRIC_DIFFERENCE_DISTINCT
    result = _distinct(op, name, a, b, stream, threads)
    # NaN != NaN in NumPy: each input's NaN (with assume_unique, each NaN) is in the result.
    return _with_nans(lib, result, [_nans(lib, a, assume_unique), _nans(lib, b, assume_unique)], (a, b))
