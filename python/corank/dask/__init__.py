"""corank.dask: merge and the multiset set operations on Dask arrays of sorted keys, in
partitions of equal work, each one corank call on the workers (CPU threads for NumPy chunks,
the workers' GPUs for CuPy chunks).

    import numpy as np, dask.array as da, corank.dask
    a = da.from_array(np.array([1, 3, 3, 5, 7, 9]), chunks=2)
    b = da.from_array(np.array([3, 4, 5, 5]), chunks=3)
    corank.dask.merge(a, b).compute()  # array([1, 3, 3, 3, 4, 5, 5, 5, 7, 9])

    merge                      stable merge (with values: merge by key)
    set_union, set_intersection, set_difference, set_symmetric_difference
                               multiset set operations, with values
    set_*_count                their output sizes
    set_intersection_paired    the intersection with both sides' values
    path_splits                the distributed co-rank: where given diagonals cut the inputs

Each call reads a sample of the chunks' keys at once (one small compute; more only where runs
of equal keys hide a cut from the samples: docs/design.md, "corank.dask") and returns a Dask
array whose partitions, computed when you compute it, each find their exact cuts in the
elements around them and make one corank call. Needs dask[array] (pip install corank[dask]);
any scheduler runs it: distributed, dask-cuda's for GPU workers, or Dask's local threads.
"""

try:
    import dask.array as da
except ImportError as error:  # pragma: no cover
    raise ImportError("corank.dask needs Dask: pip install 'corank[dask]' (dask[array] and distributed)") from error

import numpy as np

from .. import _arrays
from . import _chunks, _co_rank, _graph
from ._co_rank import path_splits as _path_splits

__all__ = [
    "merge", "path_splits", "set_difference", "set_difference_count", "set_intersection", "set_intersection_count",
    "set_intersection_paired", "set_symmetric_difference", "set_symmetric_difference_count", "set_union",
    "set_union_count",
]

_COMMON = """
    a, b : 1-D Dask arrays of one dtype (int8 to int64, uint8 to uint64, float32, float64),
        each sorted ascending across its chunks (floats: NaNs last), chunks of any sizes (empty
        and unknown ones too). Chunks are NumPy (the partitions run on the workers' CPU threads)
        or CuPy (on the workers' GPUs), one kind for every array of a call. NumPy and CuPy
        arrays and lists are taken as one-chunk Dask arrays. The inputs are read more than once
        (the samples, the result): persist computed inputs first (a.persist()).
    npartitions : output partitions; default: about as many as make them the size of the
        inputs' largest chunk.
    assume_sorted : skip the check across chunks (each chunk's first key not before the last
        key of the chunk before it), which is otherwise made on the chunks' first and last
        keys, which the search reads anyway. Unsorted input then gives an unspecified (but
        memory-safe) result.
    check_sorted : also check inside the chunks (one more read of each, on the workers).
    threads : CPU chunks: the threads of each partition's call; 0 (default): on a Dask
        worker, its share of the machine's hardware threads (their number over the tasks the
        worker runs at once, at least 1), elsewhere every hardware thread.

    Raises TypeError for dtypes corank does not take, keys (or values) of two dtypes and chunks
    other than NumPy and CuPy; ValueError for arrays that are not 1-D, values of the wrong
    length, NumPy and CuPy chunks in one call and unsorted input (naming the chunk)."""

_VALUES = """
    values_a, values_b : optional values, one per key of a and of b (Dask arrays of any
        chunks, one dtype); with them the result is (keys, values)."""

_SET_CHUNKS = """
    compute_chunk_sizes : the result's chunk sizes depend on the data. False: they are unknown
        (NaN, as after boolean indexing), which most of Dask takes (reductions, map_blocks,
        compute); rechunk, slicing by position and to_zarr need them. True: each partition is
        counted first (a pass over the windows that writes nothing, computed now) and they are
        known. None (default): False, but True under Dask's experimental array expressions
        (array.query-planning), which cannot compute unknown sizes. On a result already
        persisted, Dask's own result.compute_chunk_sizes() costs nothing."""


def merge(a, b, *, values_a=None, values_b=None, npartitions=None, assume_sorted=False, check_sorted=False,
          threads=0):
    """The stable merge of sorted Dask arrays a and b (corank.merge over partitions): equal
    keys a's first, each side's in input order; a Dask array of npartitions chunks of equal
    size (within one), or with values (keys, values).
""" + _VALUES + _COMMON + """

    >>> corank.dask.merge(da.from_array(np.array([1, 3, 5]), 2), np.array([2, 3])).compute()
    array([1, 2, 3, 3, 5])
    """
    return _run("merge", "corank.dask.merge", a, b, values_a, values_b, npartitions=npartitions,
                assume_sorted=assume_sorted, check_sorted=check_sorted, threads=threads)


def _set_operation(function, rule):
    name = f"corank.dask.{function}"

    def operation(a, b, *, values_a=None, values_b=None, npartitions=None, compute_chunk_sizes=None,
                  assume_sorted=False, check_sorted=False, threads=0):
        return _run(function, name, a, b, values_a, values_b, npartitions=npartitions,
                    compute_chunk_sizes=compute_chunk_sizes, assume_sorted=assume_sorted, check_sorted=check_sorted,
                    threads=threads)

    operation.__name__ = operation.__qualname__ = function
    operation.__doc__ = (f"""The multiset {rule} of sorted Dask arrays a and b (corank.{function}
    over partitions): the path of len(a) + len(b) steps is cut into npartitions equal ranges on
    the balanced path, so equal keys meet as in one call, and the result is the same array.
""" + _VALUES + _SET_CHUNKS + _COMMON)
    return operation


def _count(function, rule):
    name = f"corank.dask.{function}_count"

    def count(a, b, *, npartitions=None, assume_sorted=False, check_sorted=False, threads=0):
        return _run(function + "_count", name, a, b, npartitions=npartitions, assume_sorted=assume_sorted,
                    check_sorted=check_sorted, threads=threads)

    count.__name__ = count.__qualname__ = f"{function}_count"
    count.__doc__ = (f"""The size of the multiset {rule} of sorted Dask arrays a and b, an int,
    computed now: each partition counts its windows on the workers (writing nothing).
""" + _COMMON)
    return count


set_union = _set_operation("set_union", "union")
set_intersection = _set_operation("set_intersection", "intersection")
set_difference = _set_operation("set_difference", "difference a - b")
set_symmetric_difference = _set_operation("set_symmetric_difference", "symmetric difference")
set_union_count = _count("set_union", "union")
set_intersection_count = _count("set_intersection", "intersection")
set_difference_count = _count("set_difference", "difference a - b")
set_symmetric_difference_count = _count("set_symmetric_difference", "symmetric difference")


def set_intersection_paired(a, b, values_a, values_b, *, npartitions=None, compute_chunk_sizes=None,
                            assume_sorted=False, check_sorted=False, threads=0):
    """The multiset intersection of sorted Dask arrays a and b with both sides' values
    (corank.set_intersection_paired over partitions): (keys, values_a_out, values_b_out), the
    r-th copy of a key in a with the r-th in b. values_a and values_b may differ in dtype.
""" + _SET_CHUNKS + _COMMON
    if values_a is None or values_b is None:
        raise TypeError("corank.dask.set_intersection_paired: values_a and values_b are required")
    return _run("set_intersection_paired", "corank.dask.set_intersection_paired", a, b, values_a, values_b,
                paired=True, npartitions=npartitions, compute_chunk_sizes=compute_chunk_sizes,
                assume_sorted=assume_sorted, check_sorted=check_sorted, threads=threads)


def path_splits(a, b, diagonals, *, balanced=False, assume_sorted=False, check_sorted=False):
    """The distributed co-rank: for each diagonal k (0 <= k <= len(a) + len(b)), the split
    (i, j) of sorted Dask arrays a and b on the merge path (i + j = k: the first k outputs of
    the stable merge are a[:i] and b[:j]) or, with balanced=True, on the balanced path of the
    set operations (i + j = k or k - 1, never between the r-th copy of a key in a and the r-th
    in b). Returns two int64 NumPy arrays. Reads a sample of each chunk's keys (every 4096th,
    its first and last among them), then the elements around each diagonal in one round (more
    for many diagonals or very long inputs; each a small compute), then, balanced, where the
    runs of equal keys at a diagonal reach beyond what that round read, one count per diagonal
    in the one chunk of each side that holds its key's run boundary.

    >>> corank.dask.path_splits(da.from_array(np.array([1, 3, 5]), 2), np.array([3, 4]), [0, 2, 5])
    (array([0, 2, 3]), array([0, 0, 2]))
    """
    name = "corank.dask.path_splits"
    a, b = _array(name, a, "a"), _array(name, b, "b")
    _same_dtype(name, a.dtype, b.dtype, ("a", "b"), "keys")
    A, B = _chunks.describe(name, [_chunks.Input(a, "a", True), _chunks.Input(b, "b", True)], check_sorted,
                            _sorted_flags(name, assume_sorted, check_sorted))
    k = np.asarray(diagonals, dtype=np.int64).reshape(-1)
    if k.size and (k.min() < 0 or k.max() > A.size + B.size):
        raise ValueError(f"{name}: diagonals must lie in [0, {A.size + B.size}] (len(a) + len(b))")
    reader = _chunks.Reader(A, B)
    return _path_splits(k, A.side, B.side, reader.fetch, reader.count, balanced)


def _run(function, name, a, b, values_a=None, values_b=None, *, paired=False, npartitions=None,
         compute_chunk_sizes=None, assume_sorted=False, check_sorted=False, threads=0):
    count_only = function.endswith("_count")
    if compute_chunk_sizes is None:
        compute_chunk_sizes = _graph.EXPRESSIONS
    a, b = _array(name, a, "a"), _array(name, b, "b")
    _same_dtype(name, a.dtype, b.dtype, ("a", "b"), "keys")
    if (values_a is None) != (values_b is None):
        raise TypeError(f"{name}: give both values_a and values_b, or neither")
    inputs = [_chunks.Input(a, "a", True), _chunks.Input(b, "b", True)]
    if values_a is not None:
        values = [_array(name, values_a, "values_a"), _array(name, values_b, "values_b")]
        if not paired:
            _same_dtype(name, values[0].dtype, values[1].dtype, ("values_a", "values_b"), "values")
        inputs += [_chunks.Input(v, f"values_{side}", False) for v, side in zip(values, "ab")]
    if npartitions is not None and (not isinstance(npartitions, (int, np.integer)) or npartitions < 1):
        raise ValueError(f"{name}: npartitions={npartitions!r}: give a positive int (or None)")
    if not isinstance(threads, (int, np.integer)) or not 0 <= threads <= 65536:
        raise ValueError(f"{name}: threads={threads!r}: give 0 (every hardware thread) or a count up to 65536")
    _chunks.describe(name, inputs, check_sorted, _sorted_flags(name, assume_sorted, check_sorted))
    A, B = inputs[:2]
    for values, keys in zip(inputs[2:], inputs[:2]):
        if values.size != keys.size:
            raise ValueError(f"{name}: `{values.what}` has {values.size} elements and `{keys.what}` {keys.size}; "
                             "each key needs one value")

    # The cuts: P equal ranges of the output (merge) or of the path (set operations).
    total = A.size + B.size
    largest = max(1, int(max(np.diff(A.offsets).max(), np.diff(B.offsets).max())))
    parts = int(npartitions) if npartitions is not None else -(-total // largest)
    parts = max(1, min(parts, total))
    k = np.arange(parts + 1, dtype=np.int64) * total // parts
    cuts = _plan(k, A.side, B.side, function != "merge", _chunks.Reader(A, B))

    kwargs = {"threads": int(threads), "copy": True}
    layer, graph, keys = _graph.partitions(function, inputs + [None] * (4 - len(inputs)), cuts, kwargs)
    if count_only:
        return int(sum(_graph.compute_all(layer, graph, keys)))
    if function == "merge":
        chunks = np.diff(k).tolist()
    elif compute_chunk_sizes:
        count_function = "set_intersection" if paired else function
        counted = _graph.partitions(count_function + "_count", inputs[:2] + [None, None], cuts, kwargs)
        chunks = [int(c) for c in _graph.compute_all(*counted)]
    else:
        chunks = [np.nan] * parts
    outputs = [("keys", a.dtype, a._meta)]
    if len(inputs) > 2:
        outputs.append(("values", inputs[2].array.dtype, inputs[2].array._meta))
        if paired:
            outputs[-1] = ("values-a",) + outputs[-1][1:]
            outputs.append(("values-b", inputs[3].array.dtype, inputs[3].array._meta))
    return _graph.arrays(layer, graph, keys, outputs, chunks)


def _plan(k, a, b, balanced, reader):
    """The Cuts of diagonals k of Sides a and b. Those whose regions (_co_rank.regions) hold at
    most LOCAL elements a side are left to the partitions beside them; the first and the last,
    those that the samples settle (the merge path's where they leave one split; the balanced
    path's where also no copy of the next key precedes it: _co_rank.starts_runs), and those with
    wider regions are settled here (the last by the search's rounds; reader: its callbacks).
    A settled cut moves no region: at the chunk boundaries of both inputs, a partition reads
    only its own chunks."""
    total = a.size + b.size
    lo, hi, a0, a1, b0, b1 = _co_rank.regions(k, a, b, balanced)
    i, j = lo.copy(), k - lo
    ends = (k == 0) | (k == total)
    i[ends] = np.where(k[ends] == 0, 0, a.size)
    j[ends] = np.where(k[ends] == 0, 0, b.size)
    settled = ends | ((lo == hi) & (not balanced or _co_rank.starts_runs(i, j, a, b)))
    wide = ~settled & ((a1 - a0 > _co_rank.LOCAL) | (b1 - b0 > _co_rank.LOCAL))
    if wide.any():
        i[wide], j[wide] = _path_splits(k[wide], a, b, reader.fetch, reader.count, balanced)
        settled |= wide
    lo, hi, a0, a1 = (np.where(settled, i, x) for x in (lo, hi, a0, a1))
    b0, b1 = (np.where(settled, j, x) for x in (b0, b1))
    return _graph.Cuts(k, lo, hi, a0, a1, b0, b1, settled)


def _sorted_flags(name, assume_sorted, check_sorted):
    if assume_sorted and check_sorted:
        raise ValueError(f"{name}: assume_sorted=True and check_sorted=True contradict each other; give one")
    return assume_sorted


def _as_dask(x):
    if isinstance(x, da.Array):
        return x
    if isinstance(x, (list, tuple, range)):
        x = np.asarray(x)
    return da.asarray(x)


def _array(name, x, what):
    x = _as_dask(x)
    if x.ndim != 1:
        raise ValueError(f"{name}: `{what}` must be 1-D, got shape {x.shape}")
    dtype = np.dtype(x.dtype)
    if dtype.name not in _arrays.DTYPES or not dtype.isnative:
        raise TypeError(f"{name}: `{what}` has dtype {x.dtype}; corank takes {', '.join(_arrays.DTYPES)}")
    return x


def _same_dtype(name, first, second, names, what):
    if first != second:
        raise TypeError(f"{name}: `{names[0]}` is {first} and `{names[1]}` {second}; the {what} must have one dtype")
