"""searchsorted and isin with NumPy's semantics. Sorted queries are answered by the co-rank
framework's sorted search (ops/corank/search.cuh): one merge-path pass over the queries and the
sorted array, O(m + n), on CPU threads or the GPU. Other cases by size (_plan): a few queries
in a long array by binary searches, unsorted queries by binary searches or sorted first and
scattered back."""

import math
import sys

import numpy as np

from . import _arrays
from . import _run as r
from ._numpy_style import _flat, _found, _is_float, _is_torch, _result_type, _sorted

_COMMON = """
    stream, threads : as in corank.merge.

    Arrays: NumPy arrays, lists, tuples, scalars and anything numpy.asarray takes run on CPU
    threads; CuPy arrays, PyTorch tensors and other CUDA arrays (__cuda_array_interface__,
    DLPack) on their GPU; the result is of the kind of the first argument (other GPU arrays
    get a corank.DeviceArray, and must be 1-D and sorted: corank sorts only NumPy, CuPy and
    PyTorch arrays). Dtypes: bool, int8 to int64, uint8 to uint64, float32, float64, promoted
    to one as NumPy promotes them (numpy.result_type; torch.promote_types; bools as uint8);
    others (strings, objects, float16, complex, dates) raise TypeError. Floats are ordered with
    NaNs last, as numpy.sort leaves them."""

# The choice of method by size (_plan). Rough cost models, not measured on a GPU yet:
# a merge-path pass reads the m queries and the n elements once, O(m + n); m binary searches
# read about m log2(n) elements at random, each costing several sequential reads; sorting
# unsorted queries (and scattering the answers back) costs a few passes over them.
_BINARY_SEARCH_FACTOR = 8  # a random read costs about this many read in order


def _plan(m, n, queries_sorted, lib, floats):
    """'merge' (the sorted search), 'binary' (the library's searchsorted per query) or 'sort'
    (sort the queries, the sorted search, scatter the answers back)."""
    if lib is None:
        return "merge"  # other GPU arrays: no library to search or sort them with
    if _is_torch(lib) and floats:
        # torch.searchsorted is not known to order NaNs as NumPy does: no binary searches.
        return "merge" if queries_sorted else "sort"
    binary_cost = _BINARY_SEARCH_FACTOR * m * math.log2(n + 1)
    if queries_sorted:
        return "binary" if binary_cost < m + n else "merge"
    return "binary" if binary_cost < 4 * m * math.log2(m + 1) + m + n else "sort"


def _keys(name, x, what):
    """_flat(x), with bools as uint8: 0 and 1 keep their order and equality in every dtype
    they are promoted to, so NumPy's results on bools are corank's on bytes."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        x = x.to(torch.uint8) if x.dtype == torch.bool else x
    elif isinstance(x, np.ndarray) or hasattr(x, "astype") and hasattr(x, "__cuda_array_interface__"):
        x = x.astype(np.uint8) if x.dtype == np.bool_ else x
    elif not hasattr(x, "__cuda_array_interface__") and not hasattr(x, "__dlpack_device__"):
        x = np.asarray(x)
        x = x.astype(np.uint8) if x.dtype == np.bool_ else x
    return _flat(name, x, what)


def _shape(x):
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def _like_input(lib, result, shape):
    """result (1-D) in the shape of the queries; NumPy's 0-d results are scalars, as NumPy's.
    Other GPU arrays are 1-D already."""
    if lib is None:
        return result
    if lib is np and shape == ():
        return result[0]
    return result.reshape(shape)


def _library_searchsorted(lib, a, v, side):
    if _is_torch(lib):
        return lib.searchsorted(a, v, right=side == "right")
    return lib.searchsorted(a, v, side=side)


def _scatter(lib, sorted_answers, order):
    """answers[order[k]] = sorted_answers[k]."""
    out = lib.empty_like(sorted_answers)
    out[order] = sorted_answers
    return out


def _no_flags(lib, like):
    """False for each element of `like`."""
    if _is_torch(lib):
        return lib.zeros(like.shape, dtype=lib.bool, device=like.device)
    return lib.zeros(like.shape, dtype=bool)


def _argsort(lib, x):
    if _is_torch(lib):
        return lib.sort(x, stable=True)[1]
    return lib.argsort(x, kind="stable") if lib is np else lib.argsort(x)


def _search(op, name, a, v, lib, v_sorted, stream, threads, names):
    """op (a search) of v in sorted a, by the plan for their sizes. v_sorted: whether v is
    known to be sorted (else one read finds out)."""
    # Arrays of other producers (lib None) have no len() and always take the sorted search.
    if v_sorted:
        first = m = len(v) if lib is not None else 0
    else:
        first, m = r.first_unsorted(v, name, names[0], stream, copy=True)
    plan = _plan(m, len(a) if lib is not None else 0, first == m, lib, lib is not None and _is_float(v))
    if plan == "merge":
        if first != m:
            raise TypeError(f"{name}: `{names[0]}` is not sorted, and corank sorts only NumPy, CuPy and PyTorch "
                            "arrays; sort it first")
        return r.run(op, name, v, a, stream=stream, threads=threads, copy=True, names=names)
    if plan == "sort":
        order = _argsort(lib, v)
        answers = r.run(op, name, v[order], a, stream=stream, threads=threads, copy=True, names=names)
        return _scatter(lib, answers, order)
    if op in (r.LOWER_BOUND, r.UPPER_BOUND):
        return _library_searchsorted(lib, a, v, "right" if op == r.UPPER_BOUND else "left")
    found = _found(lib, v, a) if len(a) else _no_flags(lib, v)
    return ~found if op == r.NOT_CONTAINS else found


def searchsorted(a, v, side="left", sorter=None, *, assume_sorted=False, check_sorted=True, stream=None, threads=0):
    """Indices where the elements of v would be inserted into sorted a to keep it sorted
    (numpy.searchsorted): for each element x of v, the first index i with a[i] >= x
    (side='left') or a[i] > x (side='right'); int64, of v's shape (a NumPy scalar where v is
    one).
    a : 1-D, sorted ascending (NaNs last); or any order with `sorter`, the indices that sort
        it (numpy.argsort), and the indices returned are then into a[sorter].
    v : any shape, any order.
    assume_sorted : False (default): v's order is found by one read of it. True: v is sorted
        ascending (NaNs last), as a is.
    check_sorted : check what must be sorted first, one read each: a (a[sorter]), and v with
        assume_sorted=True; an unsorted one raises ValueError (NumPy returns meaningless
        indices for an unsorted a). False skips the reads; an unsorted input then gives
        unspecified indices within [0, len(a)], or ValueError.

    Sorted v (found so by one read) is searched in one pass over v and a, O(len(v) + len(a)),
    unless v is short enough that binary searches cost less (the library's searchsorted,
    O(len(v) log len(a))); unsorted v takes binary searches, or where those would cost more,
    is sorted first and the indices scattered back.
""" + _COMMON + """

    >>> corank.searchsorted(np.array([1, 2, 2, 3]), [2, 0, 5], side="right")
    array([3, 0, 4])
    """
    name = "corank.searchsorted"
    if side not in ("left", "right"):
        raise ValueError(f"{name}: side must be 'left' or 'right' (got {side!r})")
    haystack, lh = _keys(name, a, "a")
    if len(_shape(a)) > 1:
        raise ValueError(f"{name}: `a` must be 1-D, got shape {_shape(a)}")
    shape = _shape(v)
    queries, lq = _keys(name, v, "v")
    lib = lh if lh is lq else None
    t = _result_type(lib, haystack, queries)
    if lib is not None:
        haystack, queries = (x if x.dtype == t else (x.to(t) if _is_torch(lib) else x.astype(t))
                             for x in (haystack, queries))
    if sorter is not None:
        haystack = _sorted_by(name, haystack, sorter, lh)
    if check_sorted:
        _sorted(name, haystack, "a" if sorter is None else "a[sorter]", lh, True, True, stream)
        if assume_sorted:
            _sorted(name, queries, "v", lq, True, True, stream)
    op = r.UPPER_BOUND if side == "right" else r.LOWER_BOUND
    answers = _search(op, name, haystack, queries, lib, assume_sorted, stream, threads, ("v", "a"))
    return _like_input(lq, answers, shape)


def _sorted_by(name, a, sorter, lib):
    """a[sorter], checked as NumPy checks it."""
    if lib is None:
        raise TypeError(f"{name}: sorter= needs `a` of one of NumPy, CuPy and PyTorch")
    if len(sorter) != len(a):
        raise ValueError(f"{name}: sorter.size must equal a.size ({len(sorter)} != {len(a)})")
    if _is_torch(lib):
        sorter = lib.as_tensor(sorter, device=a.device)
    elif lib is np:
        sorter = np.asarray(sorter)
    else:
        sorter = lib.asarray(sorter)
    if len(a) and (int(sorter.min()) < 0 or int(sorter.max()) >= len(a)):
        raise ValueError(f"{name}: sorter index out of range")
    return a[sorter]


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None, assume_sorted=False,
         check_sorted=True, stream=None, threads=0):
    """Whether each element of `element` is in `test_elements` (numpy.isin): a bool array of
    element's shape, True where the value occurs in test_elements (invert=True: where it does
    not). NaN is in nothing, as in NumPy.
    element : any shape, any order.
    test_elements : any shape and order (sorted first where one read finds it unsorted).
    assume_unique, kind : NumPy's, accepted for compatibility: the result is the same for
        every value (kind must be None, 'sort' or 'table'; 'table' only for integers, as in
        NumPy).
    assume_sorted : False (default): each input's order is found by one read. True: both are
        sorted ascending (NaNs last).
    check_sorted : with assume_sorted=True, check that they are (one read of each); an unsorted
        one raises ValueError. Default True.

    Sorted element is found in one pass over both, O(len(element) + len(test_elements));
    other cases as in corank.searchsorted.
""" + _COMMON + """
    Other GPU arrays get flags as a uint8 DeviceArray.

    >>> corank.isin(np.array([[1, 5], [3, 2]]), [2, 3, 3])
    array([[False, False],
           [ True,  True]])
    """
    name = "corank.isin"
    if kind not in (None, "sort", "table"):
        raise ValueError(f"{name}: invalid kind: {kind!r}. Please use None, 'sort' or 'table'.")
    shape = _shape(element)
    e, le = _keys(name, element, "element")
    t_, lt = _keys(name, test_elements, "test_elements")
    lib = le if le is lt else None
    if kind == "table" and lib is not None and not all(_is_integer(x) for x in (e, t_)):
        raise ValueError(f"{name}: kind='table' takes integer arrays only; use None or 'sort'")
    t = _result_type(lib, e, t_)
    if lib is not None:
        e, t_ = (x if x.dtype == t else (x.to(t) if _is_torch(lib) else x.astype(t)) for x in (e, t_))
    t_ = _sorted(name, t_, "test_elements", lt, assume_sorted, check_sorted, stream)[0]
    if assume_sorted and check_sorted:
        _sorted(name, e, "element", le, True, True, stream)
    op = r.NOT_CONTAINS if invert else r.CONTAINS
    flags = _search(op, name, t_, e, lib, assume_sorted, stream, threads, ("element", "test_elements"))
    # corank's NaNs are one value; NumPy's NaN is in nothing (invert: not in everything).
    if lib is not None and _is_float(e) and len(t_) and bool(lib.isnan(t_[-1])):
        flags[lib.isnan(e)] = bool(invert)
    return flags.reshape(shape) if lib is not None else flags


def _is_integer(x):
    dtype = x.dtype
    if hasattr(dtype, "is_floating_point"):  # torch
        return not dtype.is_floating_point and not dtype.is_complex
    return np.dtype(dtype).kind in "iu"
