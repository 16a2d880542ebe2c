"""The result's Dask graph. Output partition p is one corank call on the windows
a[ia[p]:ia[p+1]] and b[ib[p]:ib[p+1]] (the values' windows are the keys'): each window is its
chunks' pieces, sliced by tasks that run where the chunks are, then joined by the partition's
task, so every input element moves at most once, to the one partition that reads it."""

import importlib
import os

import dask.array as da
from dask.array.utils import meta_from_array
from dask.base import compute, tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph

import corank

from ._chunks import window_pieces


class Call:
    """A partition's task: joins each input's pieces into one window (of the chunks' kind and
    the input's dtype where it has none) and runs corank.<function> on the windows."""

    def __init__(self, function, module, dtypes, kwargs):
        self.function, self.module, self.dtypes, self.kwargs = function, module, dtypes, kwargs

    def __call__(self, a, b, values_a, values_b):
        xp = importlib.import_module(self.module)
        a, b, values_a, values_b = (_join(xp, pieces, dtype) for pieces, dtype in
                                    zip((a, b, values_a, values_b), self.dtypes))
        kwargs = dict(self.kwargs)
        if self.module == "numpy" and kwargs.get("threads") == 0:
            kwargs["threads"] = worker_threads()
        if values_a is not None:
            if self.function == "set_intersection_paired":
                return corank.set_intersection_paired(a, b, values_a, values_b, **kwargs)
            kwargs.update(values_a=values_a, values_b=values_b)
        return getattr(corank, self.function)(a, b, **kwargs)

    def __repr__(self):
        return f"corank.{self.function}"


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


def _join(xp, pieces, dtype):
    if dtype is None:
        return None
    if not pieces:
        return xp.empty(0, dtype=dtype)
    # One piece is passed as it is (a view of a chunk, copied by corank only if strided).
    return pieces[0] if len(pieces) == 1 else xp.concatenate(pieces)


def partitions(function, inputs, split_a, split_b, kwargs):
    """The graph of the partitions' calls: (layer name, graph, one key per partition).
    inputs: the Inputs a, b, values_a, values_b (None where not given)."""
    arrays = [x for x in inputs if x is not None]
    token = tokenize(function, [x.array.name for x in arrays], split_a, split_b, kwargs)
    layer = f"corank-{function.replace('_', '-')}-{token}"
    pieces_layer = f"corank-window-{token}"
    dtypes = [None if x is None else x.array.dtype for x in inputs]
    call = Call(function, inputs[0].kind, dtypes, kwargs)
    tasks, keys = {}, []
    for p in range(len(split_a) - 1):
        windows = [(split_a[p], split_a[p + 1]), (split_b[p], split_b[p + 1])] * 2
        args = [[] if x is None else window_pieces(x, int(s), int(e), pieces_layer, tasks)
                for x, (s, e) in zip(inputs, windows)]
        keys.append((layer, p))
        tasks[keys[-1]] = (call, *args)
    graph = HighLevelGraph.from_collections(layer, tasks, dependencies=[x.array for x in arrays])
    return layer, graph, keys


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
