"""The distributed co-rank: where the path of two sorted arrays, each held as ordered chunks
somewhere else, is cut at given diagonals. It reads no chunk whole: the chunks' sizes and
boundary keys first, then rounds that fetch a few elements per cut, then (balanced path) one
round of per-chunk counts. Pure NumPy: the data comes through two callbacks, so the search is
tested against single-array references without Dask (python/tests/test_dask.py)."""

from typing import NamedTuple

import numpy as np

# Elements probed per cut and side in a search round: at least SAMPLES (a round narrows a
# cut's range 65-fold, a range of 2^24 in four rounds), more where there are few cuts, up to
# BUDGET per side and round in all. A round costs a round trip to the workers; a sample, eight
# bytes or so: 17 cuts of 2^24 take 2 rounds, not 4.
SAMPLES = 64
BUDGET = 1 << 16


class Side(NamedTuple):
    """What the search knows of one input before reading it: its nonempty chunks' global
    [start, end) and first and last keys (arrays in chunk order), and its size."""

    starts: np.ndarray  # int64
    ends: np.ndarray  # int64
    first: np.ndarray  # the keys' dtype
    last: np.ndarray
    size: int

    @classmethod
    def of(cls, sizes, first, last, dtype):
        """The Side of chunks of `sizes` (empty ones included) whose nonempty ones begin with
        the keys `first` and end with `last`."""
        sizes = np.asarray(sizes, dtype=np.int64)
        ends = np.cumsum(sizes)
        nonempty = sizes > 0
        return cls((ends - sizes)[nonempty], ends[nonempty], np.asarray(first, dtype=dtype),
                   np.asarray(last, dtype=dtype), int(ends[-1]) if len(ends) else 0)

    def chunk_of(self, position):
        """The nonempty chunk holding each global position (positions in [0, size))."""
        return np.searchsorted(self.starts, position, side="right") - 1


def less(x, y):
    """x before y in corank's order, elementwise: NaNs last and equal to each other."""
    if x.dtype.kind == "f":
        return (x < y) | (np.isnan(y) & ~np.isnan(x))
    return x < y


def path_splits(diagonals, a, b, fetch, count, balanced, samples=None):
    """The split (i, j) of each diagonal k (i elements of A and j of B before it): the merge
    path's (i + j = k, ties to A) or, with `balanced`, the balanced path's (i + j = k or k - 1,
    include/corank/balanced_path.hpp's rule). a, b: Sides of sorted inputs. fetch(pa, pb) returns
    the elements at global positions pa of A and pb of B (sorted, distinct int64 arrays).
    count(qa, qb) answers, per side, queries (chunk, key, right): the elements of that nonempty
    chunk before key (right=False) or not after it (right=True). samples: the elements probed
    per cut in a round (default: SAMPLES, or more for few cuts). Returns two int64 arrays."""
    k = np.asarray(diagonals, dtype=np.int64)
    if samples is None:
        samples = max(SAMPLES, BUDGET // max(1, len(k)))
    i, key_a, key_b = _merge_path(k, a, b, fetch, balanced, samples)
    if not balanced:
        return i, k - i
    return _balanced(k, i, key_a, key_b, a, b, count)


def _merge_path(k, a, b, fetch, with_keys, samples):
    """The merge path's co-rank i of each diagonal; with_keys: also A[i] and B[k - i], where
    they exist (the next element on each side, which the balanced path starts from).

    The co-rank is the first p in [lo, hi) with B[k-1-p] < A[p], else hi, for lo = max(0, k - n)
    and hi = min(k, m). The boundary keys narrow [lo, hi) first; each round then probes
    `samples` positions of every cut's range, or, once a range holds at most `samples`
    positions, all of them, which settles the cut."""
    m, n = a.size, b.size
    lo = np.maximum(0, k - n)
    hi = np.minimum(k, m)
    lo, hi = _narrow(k, lo, hi, a, b)
    dtype = a.first.dtype
    key_a = np.zeros(len(k), dtype=dtype)
    key_b = np.zeros(len(k), dtype=dtype)
    pending = np.ones(len(k), dtype=bool) if with_keys else lo < hi
    while pending.any():
        final = pending & (hi - lo <= samples)
        probe = pending & ~final
        # Probes: s interior positions of each wide range, lo + t(hi - lo)/(s + 1) for t = 1..s.
        pk, plo, phi = k[probe], lo[probe], hi[probe]
        t = np.arange(1, samples + 1)
        pp = plo[:, None] + (t[None, :] * (phi - plo)[:, None]) // (samples + 1)
        # Settling grids: A[lo + t] and B[k - lo - t] for t = 0..s, masked to t <= hi - lo.
        fk, flo, fhi = k[final], lo[final], hi[final]
        t = np.arange(samples + 1)
        in_range = t[None, :] <= (fhi - flo)[:, None]
        ga = flo[:, None] + t[None, :]
        gb = fk[:, None] - ga
        valid_a = in_range & (ga < m)
        valid_b = in_range & (gb >= 0) & (gb < n)
        pos_a = np.concatenate([pp.ravel(), ga[valid_a]])
        pos_b = np.concatenate([(pk[:, None] - 1 - pp).ravel(), gb[valid_b]])
        ua, ia = np.unique(pos_a, return_inverse=True)
        ub, ib = np.unique(pos_b, return_inverse=True)
        va, vb = fetch(ua, ub)
        va, vb = np.asarray(va)[ia.ravel()], np.asarray(vb)[ib.ravel()]
        probes = pp.size  # va and vb: the probes' elements, then the grids'

        # Wide ranges narrow to the probes that bracket the first p with B[k-1-p] < A[p].
        after = less(vb[:probes].reshape(pp.shape), va[:probes].reshape(pp.shape))
        lo[probe] = np.max(np.where(after, plo[:, None], pp + 1), axis=1)
        hi[probe] = np.min(np.where(after, pp, phi[:, None]), axis=1)
        hi[probe] = np.maximum(hi[probe], lo[probe])  # unsorted input: stay a range

        # Settled ranges: the answer is lo + the first t < hi - lo with B[k-lo-t-1] < A[lo+t].
        if fk.size:
            grid_a = np.zeros(ga.shape, dtype=dtype)
            grid_b = np.zeros(gb.shape, dtype=dtype)
            grid_a[valid_a] = va[probes:]
            grid_b[valid_b] = vb[probes:]
            steps = (fhi - flo)[:, None]
            after = less(grid_b[:, 1:], grid_a[:, :-1]) & (t[None, :-1] < steps)
            first = np.where(after.any(axis=1), after.argmax(axis=1), fhi - flo)
            rows = np.arange(len(fk))
            lo[final] = hi[final] = flo + first
            key_a[final] = grid_a[rows, first]
            key_b[final] = grid_b[rows, first]
        pending &= ~final
        if not with_keys:
            pending &= lo < hi
    return lo, key_a, key_b


def _narrow(k, lo, hi, a, b):
    """[lo, hi) of each cut narrowed with the boundary keys alone. At a known A[p] (a chunk's
    first or last key) B[k-1-p] lies between the first and last key of its chunk, which may
    decide B[k-1-p] < A[p] either way, and likewise at a known B key; the answer lies after
    every p known false and at or before every p known true. Over the known positions in order
    both "known true" and "known false" change once (A's keys rise while B's chunk at k-1-p
    falls), so four binary searches per cut find the last known false and first known true.
    Leaves the range the chunks' key ranges cannot decide: mostly the one or two chunks the cut
    falls in."""
    if len(a.starts) == 0 or len(b.starts) == 0:
        return lo, hi
    pa, ka = _known(a)
    pb, kb = _known(b)
    new_lo, new_hi = lo.copy(), hi.copy()

    # A's known positions in [lo, hi): known true where B's chunk at k-1-p ends before A[p],
    # known false where it starts at or after A[p].
    begin, end = np.searchsorted(pa, lo), np.searchsorted(pa, hi)

    def b_chunk(index):
        return b.chunk_of(np.clip(k - 1 - pa[index], 0, b.size - 1))

    first_true = _first(begin, end, lambda i: less(b.last[b_chunk(i)], ka[i]))
    found = first_true < end
    new_hi[found] = np.minimum(new_hi, pa[np.minimum(first_true, len(pa) - 1)])[found]
    first_open = _first(begin, end, lambda i: less(b.first[b_chunk(i)], ka[i]))  # first not known false
    found = first_open > begin
    new_lo[found] = np.maximum(new_lo, pa[np.maximum(first_open - 1, 0)] + 1)[found]

    # B's known positions q with p = k-1-q in [lo, hi): known true (B[q] before A's chunk at p)
    # for the smallest q, known false (B[q] not before that chunk's last key) for the largest.
    begin, end = np.searchsorted(pb, k - hi), np.searchsorted(pb, k - lo)

    def a_chunk(index):
        return a.chunk_of(np.clip(k - 1 - pb[index], 0, a.size - 1))

    first_open = _first(begin, end, lambda i: ~less(kb[i], a.first[a_chunk(i)]))  # first not known true
    found = first_open > begin
    new_hi[found] = np.minimum(new_hi, k - 1 - pb[np.maximum(first_open - 1, 0)])[found]
    first_false = _first(begin, end, lambda i: ~less(kb[i], a.last[a_chunk(i)]))
    found = first_false < end
    new_lo[found] = np.maximum(new_lo, k - pb[np.minimum(first_false, len(pb) - 1)])[found]
    return new_lo, np.maximum(new_hi, new_lo)  # unsorted input: stay a range


def _known(side):
    """The positions whose keys the boundaries give (each nonempty chunk's first and last), in
    order, and those keys."""
    return (np.stack([side.starts, side.ends - 1], axis=1).ravel(),
            np.stack([side.first, side.last], axis=1).ravel())


def _first(begin, end, predicate):
    """Per cut, the first index in [begin, end) where predicate (vectorized over the cuts'
    indices, false then true) holds, else end."""
    low, high = begin.copy(), end.copy()
    while True:
        active = low < high
        if not active.any():
            return low
        mid = (low + high) // 2
        holds = predicate(np.where(active, mid, 0)) & active
        high = np.where(holds, mid, high)
        low = np.where(active & ~holds, mid + 1, low)


def _balanced(k, i, key_a, key_b, a, b, count):
    """The balanced path's splits from the merge path's (balanced_split_from in
    balanced_path.hpp). Its searches over the run of the next key become the key's lower bound
    in A and lower and upper bound in B: sums over chunks, where every chunk but the one (per
    bound) that holds the key's run boundary is counted whole or not at all from its boundary
    keys. A's upper bound is never needed: the merge path puts A's copies of a key first, so
    when the next element is A's at least `before` copies in A start at a_run, and when it is
    B's none follows the split."""
    m, n = a.size, b.size
    j = k - i
    from_a = (i < m) & ((j >= n) | ~less(key_b, key_a))
    key = np.where(from_a, key_a, key_b)
    live = (i < m) | (j < n)
    key = key[live]
    (low_a,), (low_b, up_b) = _bounds(key, ((a, (False,)), (b, (False, True))), count)
    il, jl = i[live], j[live]
    a_run = np.minimum(il, low_a)
    b_run = np.minimum(jl, low_b)
    before = (il - a_run) + (jl - b_run)
    a_copies = np.where(from_a[live], before, il - a_run)
    b_copies = np.minimum(up_b - b_run, before)
    half = (before + 1) // 2
    a_take = np.minimum(a_copies, np.maximum(half, before - b_copies))
    b_take = before - a_take
    a_take -= (a_take == b_take + 1) & (b_take < b_copies)  # keep A_r with its partner B_r
    out_i, out_j = i.copy(), j.copy()
    out_i[live] = np.where(before == 0, il, a_run + a_take)
    out_j[live] = np.where(before == 0, jl, b_run + b_take)
    return out_i, out_j


def _bounds(keys, sides, count):
    """Each key's bounds in the two sides: `sides` holds (Side, rights) for A and for B, where
    rights lists the bounds wanted (False: the lower, the elements before the key; True: the
    upper, those not after it). One call of `count` for the chunks whose boundary keys do not
    decide them. Returns, per side, the bounds in the order of its rights."""
    decided = [_decided_bounds(keys, side, rights) for side, rights in sides]
    counts = count(*[(chunk, keys[key], right) for _, (chunk, key, right) in decided])
    out = []
    for (side, rights), (bounds, (chunk, key, right)), local in zip(sides, decided, counts):
        at = side.starts[chunk] + np.asarray(local, dtype=np.int64)
        for bound, r in zip(bounds, rights):
            bound[key[right == r]] = at[right == r]
        out.append(bounds)
    return out


def _decided_bounds(keys, side, rights):
    """The bounds in `rights` (as _bounds) from the boundary keys, and the queries (chunk, key
    index, right) for the rest. The chunks entirely before a key (last < key; for the upper
    bound last <= key) are a prefix and count whole; the next chunk needs a search only if its
    first key is before the key (lower) or not after it (upper), so at most one chunk per key
    and bound; the chunks after it count nothing."""
    index = np.arange(len(keys))
    if len(side.starts) == 0:
        none = np.zeros(0, dtype=np.int64)
        return [np.zeros(len(keys), dtype=np.int64) for _ in rights], (none, none, none > 0)
    ends = np.concatenate([[0], side.ends])
    last_chunk = len(side.starts) - 1
    bounds, queries = [], []
    for right in rights:
        whole = np.searchsorted(side.last, keys, side="right" if right else "left")  # NaN-aware, as corank
        chunk = np.minimum(whole, last_chunk)
        if right:
            search = (whole <= last_chunk) & ~less(keys, side.first[chunk])
        else:
            search = (whole <= last_chunk) & less(side.first[chunk], keys)
        bounds.append(ends[whole])
        queries.append((chunk[search], index[search], np.full(int(search.sum()), right)))
    chunk, key, right = (np.concatenate(q) for q in zip(*queries))
    return bounds, (chunk, key, right)
