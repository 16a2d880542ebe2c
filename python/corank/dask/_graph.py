"""The result's Dask graph. Output partition p is one corank call on the windows
a[i_p:i_p+1] and b[j_p:j_p+1] (the values' windows are the keys'). Its task receives the
windows widened to the regions around its two cuts (_co_rank.regions: at most LOCAL elements a
side, where the samples leave a cut's split open) and settles the splits there itself
(_co_rank.settle), so the graph follows from the samples alone, with no round trip for the
search. A window is its chunks' pieces: whole chunks held by the worker that holds most of the
partition's windows (the task runs there and slices them), and pieces of the others, sliced by
tasks that run where those chunks are, then joined by the partition's task: every input
element moves at most once, to the partition that reads it, but for the regions, which move to
the partitions on both sides of their cut."""

import importlib
import os

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array
from dask.base import compute, tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph

import corank

from ._chunks import to_host, window_pieces
from ._co_rank import settle


class Call:
    """A partition's task: joins each input's pieces into one window (of the chunks' kind and
    the input's dtype where it has none), settles the partition's two cuts in it, and runs
    corank.<function> on the windows between them."""

    def __init__(self, function, module, dtypes, kwargs, sizes):
        self.function, self.module, self.dtypes, self.kwargs = function, module, dtypes, kwargs
        self.sizes = sizes  # m, n

    def __call__(self, cuts, bounds, a, b, values_a, values_b):
        xp = importlib.import_module(self.module)
        a, b, values_a, values_b = (_join(xp, pieces, within, dtype) for pieces, within, dtype in
                                    zip((a, b, values_a, values_b), bounds.of, self.dtypes))
        (i0, j0), (i1, j1), (wa, wb) = self.splits(cuts, a, b)
        i1, j1 = max(i0, i1), max(j0, j1)  # unsorted input: still ranges
        a, b = a[i0 - wa:i1 - wa], b[j0 - wb:j1 - wb]
        kwargs = dict(self.kwargs)
        if self.module == "numpy" and kwargs.get("threads") == 0:
            kwargs["threads"] = worker_threads()
        if values_a is not None:
            values_a, values_b = values_a[i0 - wa:i1 - wa], values_b[j0 - wb:j1 - wb]
            if self.function == "set_intersection_paired":
                return corank.set_intersection_paired(a, b, values_a, values_b, **kwargs)
            kwargs.update(values_a=values_a, values_b=values_b)
        return getattr(corank, self.function)(a, b, **kwargs)

    def splits(self, cuts, a, b):
        """The splits of the partition's two cuts (rows of Cuts.table) in the windows a and b,
        and where the windows start in the inputs."""
        wa, wb = int(cuts[:, Cuts.A0].min()), int(cuts[:, Cuts.B0].min())
        m, n = self.sizes
        balanced = not self.function.startswith("merge")
        out = []
        for k, lo, hi, a0, a1, b0, b1, settled in (row.tolist() for row in cuts):
            if settled:
                out.append((lo, b0))
                continue
            ra, rb = to_host(a[a0 - wa:a1 - wa]), to_host(b[b0 - wb:b1 - wb])
            i, j = settle(k, lo, hi, a0, b0, ra, rb, m, n, balanced)
            out.append((min(max(i, wa), wa + len(a)), min(max(j, wb), wb + len(b))))  # unsorted input
        return out[0], out[1], (wa, wb)

    def __repr__(self):
        return f"corank.{self.function}"


class Cuts:
    """The P + 1 cuts of a call, a row each: diagonal k, the merge-path range [lo, hi] the samples
    leave, the regions A[a0, a1) and B[b0, b1) that settle it (_co_rank.regions), and whether it
    is settled already (then lo = hi = a0 = a1 = i and b0 = b1 = j)."""

    K, LO, HI, A0, A1, B0, B1, SETTLED = range(8)

    def __init__(self, k, lo, hi, a0, a1, b0, b1, settled):
        self.table = np.stack([k, lo, hi, a0, a1, b0, b1, settled.astype(np.int64)], axis=1).astype(np.int64)

    def windows(self, p):
        """Partition p's windows, A[start, end) and B[start, end): its cuts' regions and what lies
        between them."""
        rows = self.table[p:p + 2]
        return ((int(rows[:, self.A0].min()), int(rows[:, self.A1].max())),
                (int(rows[:, self.B0].min()), int(rows[:, self.B1].max())))


def worker_threads():
    """The CPU threads of one partition's call where the caller gave threads=0: on a Dask
    worker running n tasks at once, the machine's hardware threads (those this process may
    use) over n, at least 1, so that n calls do not each start a thread per hardware thread;
    elsewhere 0 (every hardware thread)."""
    try:
        from distributed import get_worker
        tasks = int(get_worker().state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return 0
    hardware = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, hardware // max(1, tasks))


def _join(xp, pieces, within, dtype):
    """A window from its pieces, piece[lo:hi] for each [lo, hi) in within."""
    if dtype is None:
        return None
    if not pieces:
        return xp.empty(0, dtype=dtype)
    pieces = [piece[lo:hi] for piece, (lo, hi) in zip(pieces, within.tolist())]
    # One piece is passed as it is (a view of a chunk, copied by corank only if strided).
    return pieces[0] if len(pieces) == 1 else xp.concatenate(pieces)


class Bounds:
    """Per input of a partition's task, each piece's [lo, hi) (int64 rows): the part of a whole
    chunk that its window takes, or all of a piece sliced already."""

    def __init__(self, of):
        self.of = of


def partitions(function, inputs, cuts, kwargs):
    """The graph of the partitions' calls: (layer name, graph, one key per partition).
    inputs: the Inputs a, b, values_a, values_b (None where not given); cuts: their Cuts."""
    arrays = [x for x in inputs if x is not None]
    token = tokenize(function, [x.array.name for x in arrays], cuts.table, kwargs)
    layer = f"corank-{function.replace('_', '-')}-{token}"
    pieces_layer = f"corank-window-{token}"
    dtypes = [None if x is None else x.array.dtype for x in inputs]
    call = Call(function, inputs[0].kind, dtypes, kwargs, (inputs[0].size, inputs[1].size))
    tasks, keys = {}, []
    for p in range(len(cuts.table) - 1):
        windows = list(zip(inputs, cuts.windows(p) * 2))
        worker = _most(windows)
        pieces = [([], np.zeros((0, 2), np.int64)) if x is None else
                  window_pieces(x, s, e, pieces_layer, tasks, lambda w: w == worker) for x, (s, e) in windows]
        keys.append((layer, p))
        tasks[keys[-1]] = (call, cuts.table[p:p + 2], Bounds([b for _, b in pieces]), *[k for k, _ in pieces])
    graph = HighLevelGraph.from_collections(layer, tasks, dependencies=[x.array for x in arrays])
    return layer, graph, keys


def _most(windows):
    """The worker that holds the most elements of the windows [(Input, (start, end))] (None:
    no distributed worker holds them, as under Dask's local schedulers)."""
    held = {}
    for x, (start, end) in windows:
        if x is None:
            continue
        begin, stop = np.maximum(x.offsets[:-1], start), np.minimum(x.offsets[1:], end)
        for block in np.flatnonzero(stop > begin):
            held[x.workers[block]] = held.get(x.workers[block], 0) + int(stop[block] - begin[block])
    return max(held, key=held.get) if held else None


def arrays(layer, graph, keys, outputs, chunks):
    """The partitions' results as Dask arrays: outputs lists (name, dtype, meta source) for each
    array a partition returns (one, or a tuple); chunks: their sizes (NaN where unknown)."""
    if len(outputs) == 1:
        (_, dtype, like), = outputs
        return _array(graph, layer, chunks, meta_from_array(like, ndim=1, dtype=dtype))
    result = []
    for number, (name, dtype, like) in enumerate(outputs):
        out = f"{layer}-{name}"
        tasks = {(out, p): (_item, key, number) for p, key in enumerate(keys)}
        g = HighLevelGraph.from_collections(out, tasks, dependencies=[_Graph(graph, layer, keys)])
        result.append(_array(g, out, chunks, meta_from_array(like, ndim=1, dtype=dtype)))
    return tuple(result)


# Dask's experimental array expressions (the array.query-planning option) replace the classic
# Array; they cannot compute arrays of unknown chunk sizes.
EXPRESSIONS = da.Array.__module__.startswith("dask.array._array_expr")


def _array(graph, name, chunks, meta):
    """A Dask array of the graph's keys (name, p), classic or an expression."""
    if EXPRESSIONS:
        from dask.array._array_expr._collection import from_graph
        return from_graph(dict(graph), meta, (tuple(chunks),), [(name, p) for p in range(len(chunks))], name)
    return da.Array(graph, name, (tuple(chunks),), meta=meta)


def _item(result, number):
    return result[number]


def compute_all(layer, graph, keys):
    """The partitions' results, computed now (counts)."""
    return list(compute(*[Delayed(key, graph, layer=layer) for key in keys]))


class _Graph:
    """A graph as a dependency of another layer (what HighLevelGraph.from_collections takes)."""

    def __init__(self, graph, layer, keys):
        self.dask, self._layer, self._keys = graph, layer, keys

    def __dask_graph__(self):
        return self.dask

    def __dask_layers__(self):
        return (self._layer,)

    def __dask_keys__(self):
        return self._keys
