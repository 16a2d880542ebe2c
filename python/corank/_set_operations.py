"""merge and the multiset set operations, their counts and the paired intersection: the
C++ library's operations (corank::merge, corank::set_union, ...) for Python arrays."""

from . import _run as r

_COMMON = """
    a, b : 1-D arrays of one dtype (int8 to int64, uint8 to uint64, float32, float64), each
        sorted ascending (floats: NaNs last, as numpy.sort leaves them). NumPy arrays (and
        lists) run on CPU threads; CuPy arrays, PyTorch tensors and any array with
        __cuda_array_interface__ or __dlpack__ on a CUDA GPU run there. Both on one device.
    strategy : "automatic" (default), "naive", "tiled", "circular" or "partitioned": which
        GPU kernels run; every strategy gives the same result.
    check_sorted : check that a and b are sorted first (one extra read of each); an unsorted
        input raises ValueError naming it and the position. Unchecked, an unsorted input is
        never a crash and never written past: the call returns a result of unspecified
        content and size within the outputs' bound (len(a) + len(b); min(len(a), len(b)) for
        an intersection, len(a) for a difference), or raises ValueError where the operation
        finds the inputs unsorted (a merge on the GPU returns before it could know).
    stream : GPU only: where the work is ordered. An int (a cudaStream_t), a CuPy or PyTorch
        stream or an object with __cuda_stream__. Default: the current stream of the input's
        framework (CuPy's, PyTorch's), else the legacy default stream.
    threads : CPU only: threads to use; 0 (default) uses every hardware thread.
    copy : make non-contiguous inputs contiguous (a copy) instead of raising ValueError.

    Outputs are arrays of the kind of `a`: NumPy for NumPy (and lists), CuPy for CuPy, PyTorch
    (on a's device) for PyTorch, and corank.DeviceArray (DLPack and __cuda_array_interface__)
    for other GPU arrays. The GIL is released while the work runs.
    Raises TypeError for mismatched dtypes or an unsupported array, ValueError for arrays on
    different devices, non-1-D or non-contiguous arrays, values of the wrong length and unsorted
    input (with check_sorted=True), MemoryError when GPU memory runs out."""

_VALUES = """
    values_a, values_b : optional values, one per key of a and of b, of one dtype (any of the
        key dtypes); with them the result is (keys, values), each key's own value beside it."""

_SET_RESULT = """
    count_on_device : GPU only: do not wait for the result's size. Returns the outputs at their
        largest size, followed by the size as a 1-element int64 array on the device; the first
        `size` elements are the result. A negative size there is the ValueError of unsorted
        input that nothing waited for (the outputs' contents are then unspecified). Without
        it the call waits for the stream to read the size, and the outputs are views of that
        many elements."""


def merge(a, b, *, values_a=None, values_b=None, strategy="automatic", check_sorted=False, stream=None,
          threads=0, copy=False):
    """The stable merge of sorted arrays a and b: len(a) + len(b) keys in order, equal keys
    a's first, each side's in input order. On the GPU it returns without waiting (unless
    check_sorted=True: the check reads its answer back).
""" + _VALUES + _COMMON + """

    >>> corank.merge(np.array([1, 3, 5]), np.array([2, 3]))
    array([1, 2, 3, 3, 5])
    """
    return r.run(r.MERGE, "corank.merge", a, b, values_a, values_b, strategy=strategy, check_sorted=check_sorted,
                 stream=stream, threads=threads, copy=copy)


def _set_operation(op, name, rule, example):
    def operation(a, b, *, values_a=None, values_b=None, strategy="automatic", check_sorted=False,
                  count_on_device=False, stream=None, threads=0, copy=False):
        return r.run(op, name, a, b, values_a, values_b, strategy=strategy, check_sorted=check_sorted,
                     count_on_device=count_on_device, stream=stream, threads=threads, copy=copy)

    operation.__name__ = operation.__qualname__ = name.split(".")[1]
    operation.__doc__ = (f"""The multiset {rule}

    A key a times in `a` and b times in `b` is written {{}}; each copy is an input element, in
    sorted order (std::{operation.__name__}'s rule).
""".format(_COPIES[op]) + _VALUES + _SET_RESULT + _COMMON + f"""

    >>> {example}
    """)
    return operation


def _count(op, name, rule):
    def count(a, b, *, strategy="automatic", check_sorted=False, count_on_device=False, stream=None, threads=0,
              copy=False):
        return r.run(op, name, a, b, count_only=True, strategy=strategy, check_sorted=check_sorted,
                     count_on_device=count_on_device, stream=stream, threads=threads, copy=copy)

    count.__name__ = count.__qualname__ = name.split(".")[1]
    count.__doc__ = (f"""The size of the multiset {rule} without writing it: an int (waits for
    the GPU), or with count_on_device=True a 1-element int64 array on the device (negative
    where the operation found the inputs unsorted: the ValueError that nothing waited for).
""" + _COMMON)
    return count


_COPIES = {
    r.UNION: "max(a, b) times: a's copies, then b's last b - a",
    r.INTERSECTION: "min(a, b) times: a's first ones",
    r.DIFFERENCE: "max(a - b, 0) times: a's last ones",
    r.SYMMETRIC_DIFFERENCE: "|a - b| times: the last ones of the side with more",
}

set_union = _set_operation(r.UNION, "corank.set_union", "union of sorted arrays a and b.",
                           "corank.set_union(np.array([1, 1, 3]), np.array([1, 2]))\n    array([1, 1, 2, 3])")
set_intersection = _set_operation(r.INTERSECTION, "corank.set_intersection", "intersection of sorted arrays a and b.",
                                  "corank.set_intersection(np.array([1, 1, 3]), np.array([1, 3, 3]))\n"
                                  "    array([1, 3])")
set_difference = _set_operation(r.DIFFERENCE, "corank.set_difference", "difference a - b of sorted arrays.",
                                 "corank.set_difference(np.array([1, 1, 3]), np.array([1, 2]))\n    array([1, 3])")
set_symmetric_difference = _set_operation(
    r.SYMMETRIC_DIFFERENCE, "corank.set_symmetric_difference", "symmetric difference of sorted arrays a and b.",
    "corank.set_symmetric_difference(np.array([1, 1, 3]), np.array([1, 2]))\n    array([1, 2, 3])")

set_union_count = _count(r.UNION, "corank.set_union_count", "union")
set_intersection_count = _count(r.INTERSECTION, "corank.set_intersection_count", "intersection")
set_difference_count = _count(r.DIFFERENCE, "corank.set_difference_count", "difference a - b")
set_symmetric_difference_count = _count(r.SYMMETRIC_DIFFERENCE, "corank.set_symmetric_difference_count",
                                        "symmetric difference")


def set_intersection_paired(a, b, values_a, values_b, *, strategy="automatic", check_sorted=False,
                            count_on_device=False, stream=None, threads=0, copy=False):
    """The multiset intersection of sorted arrays a and b with both sides' values: returns
    (keys, values_a_out, values_b_out), where values_b_out[i] is the value of the copy in b that
    keys[i] (a's copy, with its value values_a_out[i]) was matched with: the r-th copy of a key
    in a meets the r-th in b. values_a and values_b may have different dtypes: a sparse dot
    product, a join of two sorted tables.
""" + _SET_RESULT + _COMMON + """

    >>> corank.set_intersection_paired(np.array([1, 2, 4]), np.array([2, 4, 5]),
    ...                                np.array([10., 20., 40.]), np.array([200, 400, 500]))
    (array([2, 4]), array([20., 40.]), array([200, 400]))
    """
    if values_a is None or values_b is None:
        raise TypeError("corank.set_intersection_paired: values_a and values_b are required")
    return r.run(r.INTERSECTION, "corank.set_intersection_paired", a, b, values_a, values_b, paired=True,
                 strategy=strategy, check_sorted=check_sorted, count_on_device=count_on_device, stream=stream,
                 threads=threads, copy=copy)


def find_unsorted(x, *, stream=None, copy=False):
    """The first index i with x[i] before x[i - 1] in sorted order (floats: NaNs last), or
    len(x) where x is sorted (corank::find_unsorted): one read of x, on x's GPU (waiting for
    the stream) or on the CPU. x: any 1-D array the other functions take; stream and copy as
    in corank.merge.

    >>> corank.find_unsorted(np.array([1, 2, 2, 1, 5]))
    3
    """
    return r.first_unsorted(x, "corank.find_unsorted", "x", stream, copy)[0]
