"""Pure-Python references: the multiset set operations by std::set_union's rules (which
copies, whose values), the distinct (NumPy-style) ones, the two paths' splits (co_rank.hpp,
balanced_path.hpp), and the inputs of every shape the tests run."""

import math

import numpy as np

MERGE, UNION, INTERSECTION, DIFFERENCE, SYMMETRIC_DIFFERENCE = "merge", "union", "intersection", "difference", "xor"
UNION1D, INTERSECT1D, SETDIFF1D, SETXOR1D = "union1d", "intersect1d", "setdiff1d", "setxor1d"
MULTISET = (UNION, INTERSECTION, DIFFERENCE, SYMMETRIC_DIFFERENCE)
DISTINCT = (UNION1D, INTERSECT1D, SETDIFF1D, SETXOR1D)

KEY_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64")


def _key(x):
    """A sort key: NaNs last and equal to each other; -0.0 equal to 0.0."""
    x = x.item() if hasattr(x, "item") else x
    if isinstance(x, float) and math.isnan(x):
        return (1, 0)
    return (0, x)


def _runs(keys):
    """[(sort key, first index, end index)] for each run of equivalent keys."""
    runs, i, n = [], 0, len(keys)
    while i < n:
        k = _key(keys[i])
        j = i + 1
        while j < n and _key(keys[j]) == k:
            j += 1
        runs.append((k, i, j))
        i = j
    return runs


def merge(a, b, va=None, vb=None):
    keys = np.concatenate([a, b])
    order = np.argsort(keys, kind="stable")  # NaNs last; ties: a's (first in keys) first
    if va is None:
        return keys[order]
    return keys[order], np.concatenate([va, vb])[order]


def set_operation(op, a, b, va=None, vb=None, paired=False):
    """The result's keys (and values: a tuple) by the rules of corank's docs."""
    ra, rb = _runs(a), _runs(b)
    take = []  # (side, index) of each output element; side 'a' or 'b'; paired: (i, j)
    i = j = 0
    while i < len(ra) or j < len(rb):
        ka = ra[i][0] if i < len(ra) else None
        kb = rb[j][0] if j < len(rb) else None
        if kb is None or (ka is not None and ka < kb):
            ca, cb, sa, sb = ra[i][2] - ra[i][1], 0, ra[i][1], 0
            i += 1
        elif ka is None or kb < ka:
            ca, cb, sa, sb = 0, rb[j][2] - rb[j][1], 0, rb[j][1]
            j += 1
        else:
            ca, cb, sa, sb = ra[i][2] - ra[i][1], rb[j][2] - rb[j][1], ra[i][1], rb[j][1]
            i += 1
            j += 1
        if op == UNION:
            take += [("a", sa + r) for r in range(ca)] + [("b", sb + r) for r in range(ca, cb)]
        elif op == INTERSECTION:
            take += [(("a", sa + r), sb + r) if paired else ("a", sa + r) for r in range(min(ca, cb))]
        elif op == DIFFERENCE:
            take += [("a", sa + r) for r in range(cb, ca)]
        elif op == SYMMETRIC_DIFFERENCE:
            take += [("a", sa + r) for r in range(cb, ca)] + [("b", sb + r) for r in range(ca, cb)]
        elif op == UNION1D:
            take += [("a", sa)] if ca else [("b", sb)]
        elif op == INTERSECT1D:
            take += [("a", sa)] if ca and cb else []
        elif op == SETDIFF1D:
            take += [("a", sa)] if ca and not cb else []
        elif op == SETXOR1D:
            take += [("a", sa)] if ca and not cb else [("b", sb)] if cb and not ca else []
    if paired:
        keys = np.array([a[i] for (_, i), _ in take], dtype=a.dtype)
        return keys, np.array([va[i] for (_, i), _ in take], dtype=va.dtype), \
            np.array([vb[j] for _, j in take], dtype=vb.dtype)
    pick = lambda side_a, side_b: np.array([side_a[i] if s == "a" else side_b[i] for s, i in take],  # noqa: E731
                                           dtype=side_a.dtype)
    if va is None:
        return pick(a, b)
    return pick(a, b), pick(va, vb)


def merge_path_splits(a, b):
    """The merge path's split i of every diagonal k = 0 .. len(a) + len(b): how many of a's
    elements the first k of the stable merge (a first on ties) hold."""
    order = np.argsort(np.concatenate([a, b]), kind="stable")  # NaNs last, as corank orders
    return np.concatenate([[0], np.cumsum(order < len(a))])


def _less(x, y):
    return _key(x) < _key(y)


def _lower_bound(x, low, high, key):
    while low < high:
        mid = (low + high) // 2
        low, high = (mid + 1, high) if _less(x[mid], key) else (low, mid)
    return low


def _upper_bound(x, low, high, key):
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if _less(key, x[mid]) else (mid + 1, high)
    return low


def _run_start(x, low, high, key):
    step = 1
    while high > low:
        probe = high - step if high - low > step else low
        if _less(x[probe], key):
            return _lower_bound(x, probe + 1, high, key)
        high, step = probe, step * 2
    return low


def _run_end(x, low, high, key):
    step = 1
    while low < high:
        probe = low + step - 1 if high - low > step else high - 1
        if _less(key, x[probe]):
            return _upper_bound(x, low, probe, key)
        low, step = probe + 1, step * 2
    return high


def balanced_path_split(k, i, a, b):
    """include/corank/balanced_path.hpp's balanced_split_from, transliterated: the balanced
    path's split of diagonal k from the merge path's split i there."""
    m, n, j = len(a), len(b), k - i
    if i == m and j == n:
        return i, j
    next_from_a = i < m and (j >= n or not _less(b[j], a[i]))
    key = a[i] if next_from_a else b[j]
    a_run, b_run = _run_start(a, 0, i, key), _run_start(b, 0, j, key)
    before = (i - a_run) + (j - b_run)
    if before == 0:
        return i, j
    a_copies = _run_end(a, i, m if m - a_run < before else a_run + before, key) - a_run
    b_copies = _run_end(b, j, n if n - b_run < before else b_run + before, key) - b_run
    half = (before + 1) // 2
    a_take = min(a_copies, max(half, before - b_copies))
    b_take = before - a_take
    if a_take == b_take + 1 and b_take < b_copies:
        a_take -= 1
    return a_run + a_take, b_run + b_take


def same(x, y):
    """Equal dtype and bytes: NaNs and the sign of zero count."""
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


# The shapes of input pairs: (name, function(rng, dtype, size) -> (a, b)), sorted.
def _draw(rng, dtype, n, distinct):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = rng.integers(0, distinct, n).astype(dtype)
        x[rng.random(n) < 0.05] = np.nan
        x[x == 0] = np.where(rng.random(int((x == 0).sum())) < 0.5, -0.0, 0.0)
    else:
        info = np.iinfo(dtype)
        low = max(info.min, -distinct // 2) if info.min < 0 else 0
        x = rng.integers(low, min(info.max, low + distinct) + 1, n, dtype=dtype, endpoint=False)
    return np.sort(x, kind="stable")


def _extremes(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        pool = np.array([-np.inf, -1e30, -1.0, -0.0, 0.0, 1.0, 1e30, np.inf, np.nan], dtype=dtype)
    else:
        info = np.iinfo(dtype)
        pool = np.array(sorted({info.min, info.min + 1, 0, 1, info.max // 2, info.max // 2 + 1, info.max - 1,
                                info.max}), dtype=dtype)
    return np.sort(rng.choice(pool, n), kind="stable")


SHAPES = {
    "empty_both": lambda rng, t, n: (_draw(rng, t, 0, 10), _draw(rng, t, 0, 10)),
    "empty_a": lambda rng, t, n: (_draw(rng, t, 0, 10), _draw(rng, t, n, 50)),
    "empty_b": lambda rng, t, n: (_draw(rng, t, n, 50), _draw(rng, t, 0, 10)),
    "all_equal": lambda rng, t, n: (np.full(n, 7, dtype=t), np.full(n // 2 + 1, 7, dtype=t)),
    "long_runs": lambda rng, t, n: (_draw(rng, t, n, 4), _draw(rng, t, n + 3, 4)),
    "disjoint": lambda rng, t, n: (np.sort(rng.integers(0, 50, n)).astype(t),
                                   np.sort(rng.integers(60, 100, n // 3 + 1)).astype(t)),
    "interleaved": lambda rng, t, n: (_draw(rng, t, n, 4 * n + 10), _draw(rng, t, n, 4 * n + 10)),
    "one_tiny": lambda rng, t, n: (_draw(rng, t, n, 100), _draw(rng, t, 2, 100)),
    "extremes": lambda rng, t, n: (_extremes(rng, t, n), _extremes(rng, t, n // 2 + 1)),
}


def values_for(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
