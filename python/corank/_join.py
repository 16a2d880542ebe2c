"""join and join_count: the sort-merge inner join of two key columns (ops/corank/join.cuh),
with the NumPy-style functions' handling of array-likes, dtypes and unsorted input."""

from . import _run as r
from ._numpy_style import _astype, _flat, _result_type, _sorted

_COMMON = """
    left, right : 1-D key columns (array-likes as in corank.union1d: NumPy arrays and lists run
        on CPU threads, CuPy arrays, PyTorch tensors and other CUDA arrays on their GPU), of
        the dtypes corank takes, promoted to one as NumPy promotes them. NaN keys match each
        other, as in pandas.merge.
    assume_sorted : False (default): a column found sorted by one read is used as it is, any
        other is sorted first (a stable sort, with its own library: NumPy, CuPy or PyTorch;
        other GPU arrays must be sorted). True: both are sorted ascending (NaNs last).
    check_sorted : with assume_sorted=True, check that they are (one read of each); an
        unsorted column raises ValueError. Default True.
    stream, threads : as in corank.merge."""


def _columns(name, left, right, assume_sorted, check_sorted, stream):
    """(sorted left, its permutation or None, sorted right, its permutation or None)."""
    a, la = _flat(name, left, "left")
    b, lb = _flat(name, right, "right")
    for x, what in ((left, "left"), (right, "right")):
        shape = getattr(x, "shape", None)
        if shape is not None and len(shape) > 1:
            raise ValueError(f"{name}: `{what}` must be 1-D, got shape {tuple(shape)}")
    lib = la if la is lb else None
    t = _result_type(lib, a, b)
    a, b = _astype(lib, a, t), _astype(lib, b, t)
    sa, pa = _sorted(name, a, "left", la, assume_sorted, check_sorted, stream, order=True)
    sb, pb = _sorted(name, b, "right", lb, assume_sorted, check_sorted, stream, order=True)
    return sa, pa, sb, pb


def join_count(left, right, *, assume_sorted=False, check_sorted=True, stream=None, threads=0):
    """The number of pairs corank.join returns: the sum over the keys of their copies in left
    times their copies in right. An int (waits for the GPU).
""" + _COMMON + """

    >>> corank.join_count(np.array([1, 2, 2, 5]), np.array([2, 2, 2, 5, 7]))
    7
    """
    name = "corank.join_count"
    sa, _, sb, _ = _columns(name, left, right, assume_sorted, check_sorted, stream)
    return r.run(r.JOIN, name, sa, sb, count_only=True, stream=stream, threads=threads, copy=True,
                 names=("left", "right"))


def join(left, right, *, assume_sorted=False, check_sorted=True, stream=None, threads=0):
    """The inner join of two key columns: (left_indices, right_indices), int64 arrays of the
    kind of `left`, holding every pair of positions (i, j) with left[i] == right[j]; a key a
    times in left and b times in right gives its a * b pairs. Ordered by key, then i, then j
    (for sorted columns: by i, then j). Gather the rows with them: left_values[left_indices].

    How: each left key's lower bound in right and its number of matches (on CPU threads two
    sorted searches, the lower and upper bounds; on the GPU one pass that also counts the
    matches), their prefix sums, and a load-balanced expansion that gives each output its
    left key, in equal pieces however the pairs fall on the keys; the count first (keeping the
    bounds and prefix sums on CPU threads, the pass's bounds and matches on the GPU), then the
    pairs from them (their outputs sized by the count). Left, outer and anti joins are not
    built yet.
""" + _COMMON + """

    >>> corank.join(np.array([1, 2, 2, 5]), np.array([2, 2, 5, 7]))
    (array([1, 1, 2, 2, 3]), array([0, 1, 0, 1, 2]))
    """
    name = "corank.join"
    sa, pa, sb, pb = _columns(name, left, right, assume_sorted, check_sorted, stream)
    names = ("left", "right")
    pairs, kept = r.run(r.JOIN, name, sa, sb, count_only=True, keep=True, stream=stream, threads=threads, copy=True,
                        names=names)
    # The pairs' number is known: nothing waits for the GPU to say it again.
    li, ri, _ = r.run(r.JOIN, name, sa, sb, pairs=pairs, kept=kept, count_on_device=True, stream=stream,
                      threads=threads, copy=True, names=names)
    li, ri = li[:pairs], ri[:pairs]  # the outputs have room for one pair where there are none
    # Positions in the sorted columns, as positions in the given ones.
    return (li if pa is None else pa[li]), (ri if pb is None else pb[ri])
