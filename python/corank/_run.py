"""The one path every corank function takes: check the arguments, allocate the outputs of the
inputs' kind (_arrays.py), run the operation on the GPU (ordered on a stream) or on CPU
threads, and shape the result."""

import numpy as np

from . import _arrays, _corank
from ._arrays import DTYPE_NUMBER, HOST

STRATEGIES = ("automatic", "naive", "tiled", "circular", "partitioned")

# Operation numbers of the extension (python/src/operands.hpp).
MERGE, UNION, INTERSECTION, DIFFERENCE, SYMMETRIC_DIFFERENCE = 0, 1, 2, 3, 4
UNION_DISTINCT, INTERSECTION_DISTINCT, DIFFERENCE_DISTINCT, SYMMETRIC_DIFFERENCE_DISTINCT = 5, 6, 7, 8
# The searches: a holds the queries, b the sorted array; one output per query.
LOWER_BOUND, UPPER_BOUND, CONTAINS, NOT_CONTAINS = 9, 10, 11, 12
_SEARCH_OUTPUT = {LOWER_BOUND: "int64", UPPER_BOUND: "int64", CONTAINS: "bool", NOT_CONTAINS: "bool"}
# The join: its count (count_only), or its pairs' positions in a and in b (`pairs` of them).
JOIN = 13


def _bound(op, m, n):
    """The most elements `op` writes for inputs of m and n."""
    if op in (INTERSECTION, INTERSECTION_DISTINCT):
        return min(m, n)
    if op in (DIFFERENCE, DIFFERENCE_DISTINCT) or op in _SEARCH_OUTPUT:
        return m
    return m + n


def _same_place(name, first, second, names):
    """Both on one device, or both on the host; an empty GPU array (device None) goes with any GPU."""
    if first.device == second.device or (first.device is None and second.device != HOST) or \
            (second.device is None and first.device != HOST):
        return
    raise ValueError(f"{name}: `{names[0]}` is on {first.where()} and `{names[1]}` on {second.where()}; "
                     "all arrays of a call must be on one device (or all on the host)")


def _strategy_number(name, strategy):
    try:
        return STRATEGIES.index(strategy)
    except ValueError:
        raise ValueError(f"{name}: strategy={strategy!r} is not one of {', '.join(STRATEGIES)}") from None


_gpu_reasons = {}  # device -> why it cannot run corank ("" where it can); asked once per device


def gpu_check(name, device):
    """Raises RuntimeError, saying why, where `device` cannot run corank."""
    reason = _gpu_reasons.get(device)
    if reason is None:
        reason = _gpu_reasons[device] = _corank.gpu_unavailable_reason(device)
    if reason:
        raise RuntimeError(f"{name}: the arrays are on GPU {device}, but {reason}")


def run(op, name, a, b, values_a=None, values_b=None, *, paired=False, count_only=False, count_on_device=False,
        strategy="automatic", check_sorted=False, stream=None, threads=0, copy=False, names=("a", "b"), pairs=0,
        keep=False, kept=None):
    """Runs one operation; returns what the public functions return (see their docstrings).
    `names`: what the caller calls a and b, for the errors; `pairs`: the join's count.
    The join in two calls without counting twice: the count with keep=True returns (count,
    kept), an int64 array beside a (on CPU threads each left key's lower bound in b, then the
    m + 1 offsets of its pairs; on the GPU the count's pass's results); the pairs with
    kept=that come from it, and read neither a nor b."""
    A = _arrays.describe(a, name, names[0], copy)
    B = _arrays.describe(b, name, names[1], copy)
    _same_place(name, A, B, names)
    if A.dtype != B.dtype:
        raise TypeError(f"{name}: `{names[0]}` is {A.dtype} and `{names[1]}` {B.dtype}; the keys must have one dtype")
    if (values_a is None) != (values_b is None):
        raise TypeError(f"{name}: give both values_a and values_b, or neither")
    with_values = values_a is not None and not count_only
    VA = VB = None
    if with_values:
        VA = _arrays.describe(values_a, name, "values_a", copy)
        VB = _arrays.describe(values_b, name, "values_b", copy)
        for values, keys, what in ((VA, A, "a"), (VB, B, "b")):
            _same_place(name, A, values, (names[0], f"values_{what}"))
            if values.size != keys.size:
                raise ValueError(f"{name}: `values_{what}` has {values.size} elements and `{what}` {keys.size}; "
                                 "each key needs one value")
        if not paired and VA.dtype != VB.dtype:
            raise TypeError(f"{name}: `values_a` is {VA.dtype} and `values_b` {VB.dtype}; the values must have "
                            "one dtype (the paired intersection keeps each side's)")
    kind = _strategy_number(name, strategy)
    if not isinstance(threads, (int, np.integer)) or not 0 <= threads <= 65536:
        raise ValueError(f"{name}: threads={threads!r}: give 0 (every hardware thread) or a count up to 65536")
    device = A.device if A.device is not None else B.device
    if device is None:  # empty CUDA arrays whose pointers name no device
        device = 0
    on_gpu = device != HOST
    handle = 0
    if on_gpu:
        gpu_check(name, device)
        handle = _arrays.stream_handle(A, stream)
        for x in (A, B, VA, VB):  # producers that say which stream wrote their arrays
            if x is not None and x.ready_on is not None:
                _corank.stream_wait(handle, x.ready_on, device)
        # On a stream of the caller's choice, after the work (copies, sorts) on the framework's
        # current one; that one waits in turn (below), so its pool reuses those copies after us.
        framework_stream = _arrays.stream_handle(A, None) if stream is not None and A.kind in ("cupy", "torch") \
            else handle
        if framework_stream != handle:
            _corank.stream_wait(handle, framework_stream, device)
    new = lambda n, dtype: _arrays.empty(A, n, dtype, device, handle, stream is not None)  # noqa: E731

    bound = 0 if count_only else pairs if op == JOIN else _bound(op, A.size, B.size)
    # Never a null output where there are inputs (corank refuses one), even for an empty result.
    room = max(bound, 1) if A.size + B.size > 0 else 0
    keys_out = values_out = b_values_out = count = None
    if not count_only:
        keys_out = new(room, "int64" if op == JOIN else _SEARCH_OUTPUT.get(op, A.dtype))
        if op == JOIN:
            values_out = new(room, "int64")
        if with_values:
            values_out = new(room, VA.dtype)
            if paired:
                b_values_out = new(room, VB.dtype)
    if count_on_device and on_gpu:
        count = new(1, "int64")
    pointer = _arrays.data_pointer
    if keep:
        kept = new(_corank.join_kept_words(DTYPE_NUMBER[A.dtype], A.size, B.size, device if on_gpu else HOST),
                   "int64")
    size = _corank.run(
        name, names[0], names[1], op, DTYPE_NUMBER[A.dtype], A.ptr, A.size, B.ptr, B.size,
        VA.ptr if VA else 0, VB.ptr if VB else 0,
        _item_size(VA), _item_size(VB),
        pointer(keys_out) if keys_out is not None else 0,
        pointer(values_out) if values_out is not None else 0,
        pointer(b_values_out) if b_values_out is not None else 0,
        count_only, pointer(count) if count is not None else 0,
        kind, check_sorted, device if on_gpu else HOST, handle, threads, pairs,
        pointer(kept) if kept is not None else 0)

    # `size` is 0 to _bound(op, m, n), or -1 where count_on_device left it on the GPU: the
    # extension raises ValueError for any other (only unsorted inputs give one), so no view
    # below is ever sized by it.
    if on_gpu and framework_stream != handle:
        _corank.stream_wait(framework_stream, handle, device)
    if count_on_device and not on_gpu:  # the same shape of result as on the GPU
        count = new(1, "int64")
        count[0] = size
    if count_only:
        result = count if count_on_device else size
        return (result, kept) if keep else result
    outputs = [x for x in (keys_out, values_out, b_values_out) if x is not None]
    if count_on_device:
        return (*outputs, count)
    if size != room:
        outputs = [x[:size] for x in outputs]
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def first_unsorted(x, name, what, stream=None, copy=False):
    """(i, len(x)): the first index i with x[i] before x[i - 1] in sorted order, or len(x)
    where x is sorted; one read of x, on its GPU (waiting for the stream) or on the CPU."""
    X = _arrays.describe(x, name, what, copy)
    device = 0 if X.device is None else X.device
    handle = 0
    if device != HOST:
        gpu_check(name, device)
        handle = _arrays.stream_handle(X, stream)
        if X.ready_on is not None:
            _corank.stream_wait(handle, X.ready_on, device)
    return _corank.find_unsorted(DTYPE_NUMBER[X.dtype], X.ptr, X.size, device, handle), X.size


def _item_size(values):
    return 0 if values is None else np.dtype(values.dtype).itemsize
