"""What the distributed co-rank reads of Dask arrays, each read one small compute: every
chunk's kind, size and a sample of its keys, first and last among them (with the sortedness
checks), the elements at given positions, and counts of elements before given keys in given
chunks. Chunks are NumPy (CPU workers) or CuPy (GPU workers); only small NumPy arrays come
back."""

import operator

import numpy as np
from dask.base import compute, get_scheduler, tokenize
from dask.core import iskey
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph

import corank

from ._co_rank import Side, chunk_samples, less, sample_positions, sample_step

KINDS = {"numpy": "NumPy", "cupy": "CuPy"}


def kind_of(x):
    """'numpy', 'cupy', or the type's full name for anything else."""
    module = type(x).__module__.split(".")[0]
    return module if module in KINDS else f"{type(x).__module__}.{type(x).__qualname__}"


def to_host(x):
    return x.get() if kind_of(x) == "cupy" else np.asarray(x)


def _module(x):
    if kind_of(x) == "cupy":
        import cupy
        return cupy
    return np


def _summary(chunk, keys, check_inside, samples):
    """A chunk's kind and size; for keys also the keys at its sampled positions
    (sample_positions(size, samples): evenly spaced, the first and last among them) and, with
    check_inside, where it stops being sorted (its size where it does not)."""
    kind = kind_of(chunk)
    if kind not in KINDS:
        return kind, 0, None, 0
    size = len(chunk)
    if not keys:
        return kind, size, None, size
    sampled = None
    if size:  # strided slices: basic indexing, which every array type takes (no index array)
        step = sample_step(size, samples)
        sampled = np.array(to_host(chunk[::step]))  # a copy, not a view holding the chunk
        if (size - 1) % step:  # the last position is not on the stride (sample_positions adds it)
            sampled = np.concatenate([sampled, to_host(chunk[size - 1:])])
    unsorted = corank.find_unsorted(chunk, copy=True) if check_inside and size > 1 else size
    return kind, size, sampled, unsorted


def _summaries(chunks, keys, check_inside, samples):
    """_summary of each of the chunks (the chunks one worker holds, in one task)."""
    return [_summary(chunk, k, check_inside, s) for chunk, k, s in zip(chunks, keys, samples)]


def _held_summaries(wanted, dask_worker):
    """On a worker (Client.run): _summary of each chunk it was asked for that it still holds,
    None for one it no longer does."""
    data = dask_worker.data
    return [_summary(data[key], keys, False, samples) if key in data else None
            for key, keys, samples in wanted.get(dask_worker.address, [])]


def _take(chunk, local):
    xp = _module(chunk)
    return to_host(chunk[xp.asarray(local)])


def _search(chunk, keys, right):
    """Per key, the chunk's elements before it (right False) or not after it (right True)."""
    xp = _module(chunk)
    keys = xp.asarray(keys)
    before = to_host(xp.searchsorted(chunk, keys, side="left"))
    not_after = to_host(xp.searchsorted(chunk, keys, side="right"))
    return np.where(right, not_after, before).astype(np.int64)


def _run(name, tasks, arrays):
    """Computes {key: task} over the chunks of `arrays` in one compute; results in key order."""
    if not tasks:
        return []
    graph = HighLevelGraph.from_collections(name, dict(tasks), dependencies=arrays)
    return list(compute(*[Delayed(key, graph, layer=name) for key in tasks]))


class Input:
    """One Dask array of a call: its name in errors, its blocks' global offsets, and (keys) the
    Side the co-rank search starts from."""

    def __init__(self, array, what, keys):
        self.array, self.what, self.keys = array, what, keys
        self.kind = None
        self.offsets = None  # int64, blocks + 1
        self.workers = None  # per block, the address of the worker that held it (None: no distributed worker)
        self.sources = None  # per block, the key whose result is its chunk (_source)
        self.side = None

    @property
    def size(self):
        return int(self.offsets[-1])


def describe(name, inputs, check_sorted, assume_sorted):
    """Fills each Input's kind, offsets and Side from one compute over all their chunks, and
    raises ValueError (TypeError for chunk types) for mixed kinds and, unless assume_sorted,
    keys out of order across chunks (inside chunks too with check_sorted)."""
    token = tokenize(*[x.array.name for x in inputs], check_sorted)
    layer = f"corank-chunks-{token}"
    samples = [chunk_samples(x.array.numblocks[0]) for x in inputs]
    per_block = [[None] * x.array.numblocks[0] for x in inputs]
    # The chunks distributed workers hold are read where they lie, one call on each holder and
    # no task (a compute costs about a floor whatever its tasks, bench/RESULTS.md); the rest in
    # one compute: a task per worker for the chunks it holds (where the read found them gone),
    # one per chunk where none holds it, under the local schedulers, and where each chunk is
    # read whole (check_sorted: the chunks' threads).
    client = _locate(inputs)
    if client is not None and not check_sorted:
        _read_held(client, inputs, samples, per_block)
    groups = {}
    for number, x in enumerate(inputs):
        for block in range(x.array.numblocks[0]):
            if per_block[number][block] is not None:
                continue
            worker = x.workers[block]
            together = worker not in (None, LOCAL) and not check_sorted
            key = (layer, "worker", worker) if together else (layer, number, block)
            groups.setdefault(key, []).append((number, block))
    tasks = {key: (_summaries, [(inputs[n].array.name, b) for n, b in members], [inputs[n].keys for n, _ in members],
                   check_sorted, [samples[n] for n, _ in members])
             for key, members in groups.items()}
    for members, got in zip(groups.values(), _run(layer, tasks, [x.array for x in inputs])):
        for (number, block), summary in zip(members, got):
            per_block[number][block] = summary
    first_kind = None
    for x, per_chunk, summaries in zip(inputs, samples, per_block):
        for block, (kind, _, _, _) in enumerate(summaries):
            if kind not in KINDS:
                raise TypeError(f"{name}: `{x.what}` has chunks of type {kind} (chunk {block}); corank.dask takes "
                                "NumPy and CuPy chunks")
        kinds = {kind: block for block, (kind, _, _, _) in reversed(list(enumerate(summaries)))}
        if len(kinds) > 1:
            (k0, b0), (k1, b1) = sorted(kinds.items(), key=lambda item: item[1])[:2]
            raise ValueError(f"{name}: `{x.what}` has {KINDS[k0]} and {KINDS[k1]} chunks (chunk {b0} is {KINDS[k0]}, "
                             f"chunk {b1} {KINDS[k1]}); all chunks of a call must be of one kind")
        x.kind = summaries[0][0] if summaries else "numpy"
        if first_kind is None:
            first_kind = x
        elif x.kind != first_kind.kind:
            raise ValueError(f"{name}: `{first_kind.what}` has {KINDS[first_kind.kind]} chunks and `{x.what}` "
                             f"{KINDS[x.kind]} chunks; all chunks of a call must be of one kind (NumPy: CPU threads, "
                             "CuPy: the workers' GPUs)")
        sizes = np.array([s[1] for s in summaries], dtype=np.int64)
        x.offsets = np.concatenate([[0], np.cumsum(sizes)])
        if x.keys:
            nonempty = [s for s in summaries if s[1] > 0]
            x.side = Side.of(sizes, [sample_positions(s[1], per_chunk) for s in nonempty], [s[2] for s in nonempty],
                             x.array.dtype)
            if not assume_sorted:
                _check_sorted(name, x, summaries)
    return inputs


def _read_held(client, inputs, samples, per_block):
    """Fills per_block[input][block] with the summaries of the chunks distributed workers hold,
    read by one Client.run call on each holder at once; leaves None where a worker no longer
    holds the chunk or its call fails (the compute reads those)."""
    wanted = {}
    for number, x in enumerate(inputs):
        for block, (worker, key) in enumerate(zip(x.workers, x.sources)):
            if worker not in (None, LOCAL):
                wanted.setdefault(worker, []).append((number, block, key, x.keys, samples[number]))
    if not wanted:
        return
    asked = {worker: [(key, keys, s) for _, _, key, keys, s in members] for worker, members in wanted.items()}
    try:  # a worker's failure comes back as its answer: the others' answers are kept
        answers = client.run(_held_summaries, asked, workers=list(wanted), on_error="return")
    except Exception:  # the call itself failing: the compute reads every chunk instead
        return
    for worker, members in wanted.items():
        got = answers.get(worker)
        if isinstance(got, BaseException):
            continue
        for (number, block, *_), summary in zip(members, got or []):
            per_block[number][block] = summary


def _locate(inputs):
    """Each Input's workers: per block, the distributed worker that holds its chunk (the
    scheduler's who_has, a round trip to the scheduler alone), None where none holds it yet
    (a chunk computed with the result); all LOCAL under Dask's local schedulers, where every
    chunk is in this process. Also each block's source key. Returns the distributed client, or
    None under the local schedulers."""
    client = None
    try:
        from distributed import default_client
        client = default_client()
        if get_scheduler() != client.get:
            client = None
    except (ImportError, ValueError):
        pass
    sources = [[_source(x.array.__dask_graph__(), (x.array.name, block)) for block in range(x.array.numblocks[0])]
               for x in inputs]
    for x, keys in zip(inputs, sources):
        x.sources = keys
    if client is None:
        for x in inputs:
            x.workers = [LOCAL] * x.array.numblocks[0]
        return None
    held = client.sync(client.scheduler.who_has, keys=[key for keys in sources for key in keys])
    for x, keys in zip(inputs, sources):
        x.workers = [min(held.get(key) or (None,), key=str) for key in keys]
    return client


def _source(graph, key):
    """The key whose result is a block's chunk: its own, or the one it aliases (as the blocks
    of da.concatenate do)."""
    for _ in range(64):
        value = graph.get(key)
        if type(value).__name__ == "Alias":
            value = value.target
        if not iskey(value) or value == key or value not in graph:  # a task or data, not an alias
            return key
        key = value
    return key


LOCAL = "local"  # a chunk in this process (Dask's local schedulers)


def _check_sorted(name, x, summaries):
    """Raises at the first break, inside a chunk (where checked) or across chunks (a nonempty
    chunk's first key before the last key of the nonempty chunk before it)."""
    inside = [(int(x.offsets[block]) + unsorted, block) for block, (_, size, _, unsorted) in enumerate(summaries)
              if unsorted < size]
    side = x.side
    across = np.flatnonzero(less(side.first[1:], side.last[:-1])) + 1
    at_across = int(side.starts[across[0]]) if across.size else x.size
    if inside and inside[0][0] < at_across:
        at, block = inside[0]
        raise ValueError(f"{name}: `{x.what}` is not sorted: {x.what}[{at}] comes before {x.what}[{at - 1}] "
                         f"(in chunk {block})")
    if across.size:
        blocks = np.flatnonzero(np.diff(x.offsets) > 0)
        c = across[0]
        raise ValueError(f"{name}: `{x.what}` is not sorted across chunks: {x.what}[{at_across}], the first "
                         f"element of chunk {blocks[c]}, comes before {x.what}[{side.ends[c - 1] - 1}], the last of "
                         f"chunk {blocks[c - 1]}")


class Reader:
    """The co-rank search's two callbacks (fetch, count) over the chunks of keys a and b, each
    call one compute; `rounds` counts them."""

    def __init__(self, a, b):
        self.inputs = (a, b)
        self.rounds = 0

    def _blocks(self, x):
        return np.flatnonzero(np.diff(x.offsets) > 0)  # block of each nonempty chunk

    def fetch(self, pa, pb):
        """The elements at sorted global positions pa of a and pb of b."""
        self.rounds += 1
        layer = f"corank-fetch-{tokenize(self.inputs[0].array.name, self.inputs[1].array.name, pa, pb)}"
        tasks, counts = {}, []
        for number, (x, positions) in enumerate(zip(self.inputs, (pa, pb))):
            chunks, starts = np.unique(x.side.chunk_of(positions), return_index=True)  # sorted: one run each
            blocks = self._blocks(x)
            for c, local in zip(chunks, np.split(positions, starts[1:])):
                tasks[(layer, number, int(c))] = (_take, (x.array.name, int(blocks[c])), local - x.side.starts[c])
            counts.append(len(chunks))
        results = _run(layer, tasks, [x.array for x in self.inputs])
        out = []
        for number, x in enumerate(self.inputs):
            got, results = results[:counts[number]], results[counts[number]:]
            out.append(np.concatenate(got) if got else np.zeros(0, dtype=x.array.dtype))
        return out

    def count(self, qa, qb):
        """Per side, the answers to queries (chunk, keys, right): elements of that nonempty chunk
        before each key (right False) or not after it (right True)."""
        self.rounds += 1
        layer = f"corank-count-{tokenize(self.inputs[0].array.name, self.inputs[1].array.name, qa, qb)}"
        tasks, where = {}, []
        for number, (x, (chunk, keys, right)) in enumerate(zip(self.inputs, (qa, qb))):
            blocks = self._blocks(x)
            order = np.argsort(chunk, kind="stable")
            chunks, starts = np.unique(chunk[order], return_index=True)
            for c, mine in zip(chunks, np.split(order, starts[1:])):
                tasks[(layer, number, int(c))] = (_search, (x.array.name, int(blocks[c])), keys[mine], right[mine])
                where.append((number, mine))
        results = _run(layer, tasks, [x.array for x in self.inputs])
        out = [np.zeros(len(qa[0]), dtype=np.int64), np.zeros(len(qb[0]), dtype=np.int64)]
        for (number, mine), got in zip(where, results):
            out[number][mine] = got
        return out


def window_pieces(x, start, end, layer, tasks, here):
    """The keys of x[start:end]'s pieces, one per block it touches, and each piece's [lo, hi)
    in it. A block held where the partition runs (here(worker): the worker that holds the most
    of the partition's windows) is passed whole, sliced by the partition's task; a piece of any
    other block is a slice task added to `tasks` (it runs where the block is, so only the piece
    moves)."""
    pieces, bounds = [], []
    first = int(np.searchsorted(x.offsets, start, side="right")) - 1
    for block in range(max(first, 0), len(x.offsets) - 1):
        begin, stop = int(x.offsets[block]), int(x.offsets[block + 1])
        if begin >= end:
            break
        lo, hi = max(start, begin) - begin, min(end, stop) - begin
        if hi <= lo:
            continue
        if (lo == 0 and hi == stop - begin) or (x.workers[block] is not None and here(x.workers[block])):
            pieces.append((x.array.name, block))
            bounds.append((lo, hi))
        else:
            key = (layer, x.what, start, end, block)
            tasks[key] = (operator.getitem, (x.array.name, block), slice(lo, hi))
            pieces.append(key)
            bounds.append((0, hi - lo))
    return pieces, np.array(bounds, dtype=np.int64).reshape(-1, 2)
