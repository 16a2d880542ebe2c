"""corank: merge and multiset set operations on sorted arrays, on the GPU and on CPU threads.

    import corank, cupy
    a = cupy.array([1, 3, 5, 7]); b = cupy.array([3, 4, 5])
    corank.merge(a, b)             # array([1, 3, 3, 4, 5, 5, 7])
    corank.set_intersection(a, b)  # array([3, 5])

Functions take sorted 1-D NumPy, CuPy and PyTorch arrays and any CUDA array with
__cuda_array_interface__ or __dlpack__, and return arrays of the same kind: NumPy input runs
on CPU threads, GPU input on its GPU, ordered on the framework's current stream.

    merge                      stable merge (with values: merge by key)
    set_union, set_intersection, set_difference, set_symmetric_difference
                               multiset set operations (std::set_union's rules), with values
    set_*_count                their output sizes
    set_intersection_paired    the intersection with both sides' values
    find_unsorted              where an array stops being sorted
    union1d, intersect1d, setdiff1d, setxor1d
                               NumPy's set routines, as NumPy's (unsorted input sorted first)
    searchsorted, isin         NumPy's, as NumPy's: sorted queries in one pass over both arrays
    join, join_count           the inner join of two key columns: every matching pair of positions
    release_temporary_memory   return the GPU memory corank keeps between calls
    gpu_unavailable_reason     why the GPU path cannot run here ("" where it can)
"""

from . import _corank
from ._arrays import DeviceArray
from ._numpy_style import intersect1d, setdiff1d, setxor1d, union1d
from ._join import join, join_count
from ._search import isin, searchsorted
from ._set_operations import (find_unsorted, merge, set_difference, set_difference_count, set_intersection, set_intersection_count,
                              set_intersection_paired, set_symmetric_difference, set_symmetric_difference_count,
                              set_union, set_union_count)

__version__ = "0.1.0"

__all__ = [
    "DeviceArray", "find_unsorted", "gpu_unavailable_reason", "intersect1d", "isin", "join", "join_count", "merge", "release_temporary_memory", "set_difference",
    "set_difference_count", "set_intersection", "set_intersection_count", "set_intersection_paired",
    "searchsorted", "set_symmetric_difference", "set_symmetric_difference_count", "set_union", "set_union_count",
    "setdiff1d",
    "setxor1d", "union1d",
]


def gpu_unavailable_reason(device=0):
    """Why corank cannot run on CUDA device `device` here, in one sentence; "" where it can
    (a GPU of an architecture corank was built for, sm_80 or newer)."""
    return _corank.gpu_unavailable_reason(device)


def release_temporary_memory(device=0):
    """Returns to the driver the GPU memory corank keeps between calls (its temporary storage
    pool on `device`; outputs belong to their arrays and are not affected)."""
    reason = _corank.gpu_unavailable_reason(device)
    if reason:
        raise RuntimeError(f"corank.release_temporary_memory: {reason}")
    _corank.release_temporary_memory(device)
