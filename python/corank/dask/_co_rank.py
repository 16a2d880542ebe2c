"""The distributed co-rank: where the path of two sorted arrays, each held as ordered chunks
somewhere else, is cut at given diagonals. It reads no chunk whole: the chunks' sizes and a
sample of each chunk's keys (its first and last among them) first, then rounds that fetch the
elements around each cut, then (balanced path, only for runs of equal keys longer than those
rounds read) one round of per-chunk counts. A call of corank.dask runs the rounds only for
cuts whose regions (the elements around a cut that decide it, given the samples) are wide: the
others each partition settles from the regions it receives (regions, settle). Pure NumPy: the
data comes through two callbacks, so the search is tested against single-array references
without Dask (python/tests/test_dask.py)."""

from typing import NamedTuple

import numpy as np

# A round costs a round trip to the workers (tens of milliseconds on a Dask cluster, about one
# per task); an element read, eight bytes or so. So the first read samples each chunk every
# GAP positions (more sparsely where that would take more than SAMPLED keys per side), which
# leaves each cut a range of about a gap, and each round then probes up to BUDGET elements per
# side, split over the cuts still open (at least SAMPLES per cut; the balanced path reads up
# to 2 * SAMPLES more per cut): a round settles every cut whose range holds at most its share,
# and narrows the others (share + 1)-fold. So 64 partitions of inputs of up to 2^30 keys each
# settle in the first round.
GAP = 1 << 12
SAMPLED = 1 << 18
SAMPLES = 64
BUDGET = 1 << 18


def chunk_samples(chunks):
    """The most keys sampled in each of `chunks` chunks of an input: SAMPLED over them, at
    least two (the first and the last)."""
    return max(2, SAMPLED // max(1, chunks))


def sample_step(size, samples, gap=GAP):
    """The stride of the positions sampled in a chunk of `size` elements: `gap`, or more where
    that would take more than `samples` positions."""
    return max(gap, -(-(size - 1) // max(1, samples - 1)))


def sample_positions(size, samples, gap=GAP):
    """The positions sampled in a nonempty chunk of `size` elements: every sample_step-th from
    the first, and the last."""
    positions = np.arange(0, size, sample_step(size, samples, gap), dtype=np.int64)
    return positions if positions[-1] == size - 1 else np.append(positions, size - 1)


class Side(NamedTuple):
    """What the search knows of one input before the rounds: its nonempty chunks' global
    [start, end) and first and last keys (arrays in chunk order), its size, and its sampled
    keys: global positions (ascending, every chunk's first and last among them) and keys."""

    starts: np.ndarray  # int64
    ends: np.ndarray  # int64
    first: np.ndarray  # the keys' dtype
    last: np.ndarray
    size: int
    known_at: np.ndarray  # int64
    known: np.ndarray  # the keys' dtype

    @classmethod
    def of(cls, sizes, positions, keys, dtype):
        """The Side of chunks of `sizes` (empty ones included), where positions and keys list,
        for each nonempty chunk, its sampled positions (local, ascending, from its first
        element to its last) and their keys."""
        sizes = np.asarray(sizes, dtype=np.int64)
        ends = np.cumsum(sizes)
        nonempty = sizes > 0
        starts = (ends - sizes)[nonempty]
        keys = [np.asarray(k, dtype=dtype) for k in keys]
        known_at = [start + np.asarray(p, dtype=np.int64) for start, p in zip(starts, positions)]
        join = (lambda parts, t: np.concatenate(parts) if parts else np.zeros(0, dtype=t))
        return cls(starts, ends[nonempty], np.array([k[0] for k in keys], dtype=dtype),
                   np.array([k[-1] for k in keys], dtype=dtype), int(ends[-1]) if len(ends) else 0,
                   join(known_at, np.int64), join(keys, dtype))

    def chunk_of(self, position):
        """The nonempty chunk holding each global position (positions in [0, size))."""
        return np.searchsorted(self.starts, position, side="right") - 1

    def bracket(self, position):
        """The sampled keys nearest each global position in [0, size), at or before it and at
        or after it: the element there lies between them (sorted input)."""
        at = np.searchsorted(self.known_at, position, side="right") - 1
        after = np.minimum(at + (self.known_at[at] < position), len(self.known_at) - 1)
        return self.known[at], self.known[after]


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
    per cut in a round (default: BUDGET over the cuts the samples leave open, at least
    SAMPLES). Returns two int64 arrays (unsorted input: unspecified splits, but within the
    inputs)."""
    k = np.asarray(diagonals, dtype=np.int64)
    i, key_a, key_b, read = _merge_path(k, a, b, fetch, balanced, samples)
    if not balanced:
        return i, k - i
    i, j = _balanced(k, i, key_a, key_b, a, b, count, read)
    return np.clip(i, 0, a.size), np.clip(j, 0, b.size)  # unsorted input: still within the inputs


# A cut that the partitions beside it settle themselves: where the elements that decide its
# split (its regions, below) hold at most LOCAL per side, they move to both partitions at little
# cost, and the split needs no round trip to the workers. Wider regions (runs of equal keys
# longer than the samples' gaps, or inputs sampled sparser than GAP) take the rounds first.
LOCAL = 1 << 16


def regions(diagonals, a, b, balanced):
    """For each diagonal k: the range [lo, hi] of its merge-path co-rank that the sampled keys
    leave (_narrow), and the regions A[a0, a1) and B[b0, b1) from which settle() finds its
    split alone: int64 arrays lo, hi, a0, a1, b0, b1.

    The merge path reads A[lo, hi) and B[k - hi, k - lo). The balanced path also reads the next
    key K (A[i] or B[j]: A[hi] and B[k - lo] at most) and K's lower bound in A and lower and
    upper bound in B, which a region gives where it starts after an element before K and (B's
    upper bound) ends with one after K. K is not before A[lo - 1] nor B[k - hi - 1] (they precede
    the split) and not after B[k - lo] (it does not), so a region that starts after a sampled
    key before the sampled key at or before A[lo - 1] (B[k - hi - 1]), and ends after a sampled key
    after the one at or after B[k - lo], holds them: about one gap between samples beyond the
    range on each side, unless runs of equal keys span several."""
    k = np.asarray(diagonals, dtype=np.int64)
    m, n = a.size, b.size
    lo, hi = _narrow(k, np.maximum(0, k - n), np.minimum(k, m), a, b)
    if not balanced:
        return lo, hi, lo, hi, k - hi, k - lo
    return (lo, hi, _start_below(a, lo - 1), np.minimum(m, hi + 1), _start_below(b, k - hi - 1),
            _end_above(b, k - lo))


def starts_runs(i, j, a, b):
    """Per merge-path split (i, j): whether the sampled keys show that no copy of the next key
    (the smaller of A[i] and B[j], ties to A) lies before the split on either side. Then the
    balanced path's split is the same (balanced_split_from moves a split only within the next
    key's run), and no element need be read to settle it: at a chunk boundary of both inputs
    between distinct keys, where the chunks' first and last keys are sampled. A[i - 1] is not
    after the sampled key at or after it, and the next key not before the sampled keys at or
    before A[i] and B[j]."""
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    m, n = a.size, b.size
    if len(a.known_at) == 0 or len(b.known_at) == 0:
        return np.zeros(len(i), dtype=bool)
    below_a = a.bracket(np.clip(i, 0, m - 1))[0]
    below_b = b.bracket(np.clip(j, 0, n - 1))[0]
    below_next = np.where(i >= m, below_b, np.where((j < n) & less(below_b, below_a), below_b, below_a))
    before_a = (i == 0) | less(a.bracket(np.clip(i - 1, 0, m - 1))[1], below_next)
    before_b = (j == 0) | less(b.bracket(np.clip(j - 1, 0, n - 1))[1], below_next)
    return before_a & before_b & ((i < m) | (j < n))


def _start_below(side, t):
    """Per position t (negative: none), a start w <= max(t, 0) with w = 0 or side[w - 1] before
    side[t] in sorted input: just after the last sampled key before the sampled key at or before
    t."""
    if len(side.known_at) == 0:
        return np.zeros_like(t)
    q = np.searchsorted(side.known_at, np.maximum(t, 0), side="right") - 1
    r = np.searchsorted(side.known, side.known[q], side="left") - 1  # NaNs last, as less()
    w = np.where(r >= 0, side.known_at[np.maximum(r, 0)] + 1, 0)
    return np.where(t < 0, 0, np.clip(w, 0, np.maximum(t, 0)))


def _end_above(side, t):
    """Per position t >= 0, an end w > t (at most the size) with w = size or side[w - 1] after
    side[t] in sorted input: just after the first sampled key after the sampled key at or after t."""
    if len(side.known_at) == 0:
        return np.zeros_like(t)
    q = np.searchsorted(side.known_at, np.minimum(t, side.size - 1), side="left")
    r = np.searchsorted(side.known, side.known[q], side="right")
    w = np.where(r < len(side.known), side.known_at[np.minimum(r, len(side.known) - 1)] + 1, side.size)
    return np.clip(w, np.minimum(t + 1, side.size), side.size)


def settle(k, lo, hi, a0, b0, ra, rb, m, n, balanced):
    """The split (i, j) of diagonal k (merge path, or balanced path) from its regions (regions()):
    ra = A[a0, a1) and rb = B[b0, b1) as NumPy arrays, of inputs of m and n elements. Unsorted
    input: a split within the regions."""
    t = np.arange(hi - lo)
    after = less(rb[k - 1 - lo - t - b0], ra[lo + t - a0])
    i = lo + int(np.argmax(after)) if after.any() else hi
    j = k - i
    if not balanced or (i >= m and j >= n):
        return i, j
    key_a = ra[i - a0] if i < m else rb[j - b0]
    key_b = rb[j - b0] if j < n else key_a
    from_a = i < m and (j >= n or not less(key_b, key_a))
    key = key_a if from_a else key_b
    low_a = a0 + int(np.searchsorted(ra, key, "left"))  # NaNs last, as less()
    low_b, up_b = (b0 + int(np.searchsorted(rb, key, side)) for side in ("left", "right"))
    i, j = _balanced_split(i, j, from_a, low_a, low_b, up_b)
    return int(i), int(j)


def _merge_path(k, a, b, fetch, balanced, samples):
    """The merge path's co-rank i of each diagonal; balanced: also A[i] and B[k - i], where
    they exist (the next element on each side, which the balanced path starts from), and the
    bounds of the next key that the settling read decides (_window_bounds): its lower bound in
    A, its lower and upper bounds in B, each -1 where the read does not decide it.

    The co-rank is the first p in [lo, hi) with B[k-1-p] < A[p], else hi, for lo = max(0, k - n)
    and hi = min(k, m). The sampled keys narrow [lo, hi) first; each round then probes
    `samples` positions of every cut's range (default: the cuts left open share BUDGET, at
    least SAMPLES each), or, once a range holds at most `samples` positions, reads all of
    them, which settles the cut. For the balanced path that read reaches a margin further on
    both sides, where the next key's runs mostly end, so that their bounds need no round of
    their own: SAMPLES elements, fewer where the cuts are so many (over 2048) that the margins
    would take more than BUDGET."""
    m, n = a.size, b.size
    lo = np.maximum(0, k - n)
    hi = np.minimum(k, m)
    lo, hi = _narrow(k, lo, hi, a, b)
    if samples is None:
        samples = max(SAMPLES, BUDGET // max(1, int(np.count_nonzero(lo < hi))))
    dtype = a.first.dtype
    key_a = np.zeros(len(k), dtype=dtype)
    key_b = np.zeros(len(k), dtype=dtype)
    margin = max(1, min(samples, SAMPLES, BUDGET // (2 * max(1, len(k))))) if balanced else 0  # in the budget too
    width = samples + 1 + 2 * margin
    read = np.full((3, len(k)), -1, dtype=np.int64) if balanced else None
    pending = np.ones(len(k), dtype=bool) if balanced else lo < hi
    while pending.any():
        final = pending & (hi - lo <= samples)
        probe = pending & ~final
        # Probes: s interior positions of each wide range, lo + t(hi - lo)/(s + 1) for t = 1..s
        # (t times the quotient and the remainder apart: no overflow for ranges of any size).
        pk, plo, phi = k[probe], lo[probe], hi[probe]
        t = np.arange(1, samples + 1)
        q, r = np.divmod(phi - plo, samples + 1)
        pp = plo[:, None] + q[:, None] * t + (r[:, None] * t) // (samples + 1)
        # Settling windows: A[lo - margin, hi + margin] and B[k - hi - margin, k - lo + margin]
        # within the inputs, which hold A[lo + t] and B[k - lo - t] for t = 0..hi - lo.
        fk, flo, fhi = k[final], lo[final], hi[final]
        u = np.arange(width)
        start_a, start_b = np.maximum(0, flo - margin), np.maximum(0, fk - fhi - margin)
        end_a, end_b = np.minimum(m, fhi + margin + 1), np.minimum(n, fk - flo + margin + 1)
        wa, wb = start_a[:, None] + u, start_b[:, None] + u
        valid_wa, valid_wb = wa < end_a[:, None], wb < end_b[:, None]
        pos_a = np.concatenate([pp.ravel(), wa[valid_wa]])
        pos_b = np.concatenate([(pk[:, None] - 1 - pp).ravel(), wb[valid_wb]])
        ua, ia = np.unique(pos_a, return_inverse=True)
        ub, ib = np.unique(pos_b, return_inverse=True)
        va, vb = fetch(ua, ub)
        va, vb = np.asarray(va)[ia.ravel()], np.asarray(vb)[ib.ravel()]
        probes = pp.size  # va and vb: the probes' elements, then the windows'

        # Wide ranges narrow to the probes that bracket the first p with B[k-1-p] < A[p].
        after = less(vb[:probes].reshape(pp.shape), va[:probes].reshape(pp.shape))
        lo[probe] = np.max(np.where(after, plo[:, None], pp + 1), axis=1)
        hi[probe] = np.min(np.where(after, pp, phi[:, None]), axis=1)
        hi[probe] = np.maximum(hi[probe], lo[probe])  # unsorted input: stay a range

        # Settled ranges: the answer is lo + the first t < hi - lo with B[k-lo-t-1] < A[lo+t].
        if fk.size:
            win_a = np.zeros(wa.shape, dtype=dtype)
            win_b = np.zeros(wb.shape, dtype=dtype)
            win_a[valid_wa] = va[probes:]
            win_b[valid_wb] = vb[probes:]
            t = np.arange(samples + 1)
            grid_a = np.take_along_axis(win_a, np.minimum((flo - start_a)[:, None] + t, width - 1), axis=1)
            grid_b = np.take_along_axis(win_b, np.clip((fk - flo - start_b)[:, None] - t, 0, width - 1), axis=1)
            steps = (fhi - flo)[:, None]
            after = less(grid_b[:, 1:], grid_a[:, :-1]) & (t[None, :-1] < steps)
            first = np.where(after.any(axis=1), after.argmax(axis=1), fhi - flo)
            rows = np.arange(len(fk))
            lo[final] = hi[final] = flo + first
            key_a[final] = grid_a[rows, first]  # meaningful where i < m (and key_b where j < n)
            key_b[final] = grid_b[rows, first]
            if balanced:
                _, key = _next_key(lo[final], fk - lo[final], key_a[final], key_b[final], m, n)
                read[0, final] = _window_bounds(key, False, start_a, end_a - start_a, win_a, m)
                read[1, final] = _window_bounds(key, False, start_b, end_b - start_b, win_b, n)
                read[2, final] = _window_bounds(key, True, start_b, end_b - start_b, win_b, n)
        pending &= ~final
        if not balanced:
            pending &= lo < hi
    return lo, key_a, key_b, read


def _next_key(i, j, key_a, key_b, m, n):
    """Whether the next element after split (i, j) is A's (ties to A), and its key."""
    from_a = (i < m) & ((j >= n) | ~less(key_b, key_a))
    return from_a, np.where(from_a, key_a, key_b)


def _window_bounds(keys, right, start, length, values, size):
    """Each key's bound (right: upper, else lower) in a side of `size` elements from a window
    of it, A[start, start + length) in values[:, :length], or -1 where the window does not
    decide it. It does where the window starts at the side's start or with an element counted
    and ends at the side's end or with one not counted: in sorted input the counted elements
    (before the key, or not after it) are a prefix."""
    width = values.shape[1]
    counted = ~less(keys[:, None], values) if right else less(values, keys[:, None])
    counted &= np.arange(width)[None, :] < length[:, None]
    last = np.take_along_axis(counted, np.maximum(length - 1, 0)[:, None], axis=1)[:, 0]
    known = (length > 0) & ((start == 0) | counted[:, 0]) & ((start + length == size) | ~last)
    return np.where(known, start + counted.sum(axis=1), -1)


def _narrow(k, lo, hi, a, b):
    """[lo, hi) of each cut narrowed with the sampled keys alone. At a sampled A[p],
    B[k-1-p] lies between the sampled B keys around position k-1-p, which may decide
    B[k-1-p] < A[p] either way, and likewise at a sampled B key; the answer lies after every p
    known false and at or before every p known true. Over the sampled positions in order both
    "known true" and "known false" change once (A's keys rise while B's bracket at k-1-p
    falls), so four binary searches per cut find the last known false and first known true.
    Leaves the range the samples cannot decide: mostly about one gap between samples."""
    if len(a.starts) == 0 or len(b.starts) == 0:
        return lo, hi
    pa, ka = a.known_at, a.known
    pb, kb = b.known_at, b.known
    new_lo, new_hi = lo.copy(), hi.copy()

    # A's sampled positions in [lo, hi): known true where B's bracket at k-1-p ends before A[p],
    # known false where it starts at or after A[p].
    begin, end = np.searchsorted(pa, lo), np.searchsorted(pa, hi)

    def b_bracket(index):
        return b.bracket(np.clip(k - 1 - pa[index], 0, b.size - 1))

    first_true = _first(begin, end, lambda i: less(b_bracket(i)[1], ka[i]))
    found = first_true < end
    new_hi[found] = np.minimum(new_hi, pa[np.minimum(first_true, len(pa) - 1)])[found]
    first_open = _first(begin, end, lambda i: less(b_bracket(i)[0], ka[i]))  # first not known false
    found = first_open > begin
    new_lo[found] = np.maximum(new_lo, pa[np.maximum(first_open - 1, 0)] + 1)[found]

    # B's sampled positions q with p = k-1-q in [lo, hi): known true (B[q] before A's bracket
    # at p) for the smallest q, known false (B[q] not before the bracket's top) for the largest.
    begin, end = np.searchsorted(pb, k - hi), np.searchsorted(pb, k - lo)

    def a_bracket(index):
        return a.bracket(np.clip(k - 1 - pb[index], 0, a.size - 1))

    first_open = _first(begin, end, lambda i: ~less(kb[i], a_bracket(i)[0]))  # first not known true
    found = first_open > begin
    new_hi[found] = np.minimum(new_hi, k - 1 - pb[np.maximum(first_open - 1, 0)])[found]
    first_false = _first(begin, end, lambda i: ~less(kb[i], a_bracket(i)[1]))
    found = first_false < end
    new_lo[found] = np.maximum(new_lo, k - pb[np.minimum(first_false, len(pb) - 1)])[found]
    return new_lo, np.maximum(new_hi, new_lo)  # unsorted input: stay a range


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


def _balanced(k, i, key_a, key_b, a, b, count, read):
    """The balanced path's splits from the merge path's (balanced_split_from in
    balanced_path.hpp). Its searches over the run of the next key become the key's lower bound
    in A and lower and upper bound in B: those the settling read decided (`read`, -1 where it
    did not), else sums over chunks, where every chunk but the one (per bound) that holds the
    key's run boundary is counted whole or not at all from its boundary keys. A's upper bound
    is never needed: the merge path puts A's copies of a key first, so when the next element
    is A's at least `before` copies in A start at a_run, and when it is B's none follows the
    split."""
    m, n = a.size, b.size
    j = k - i
    from_a, key = _next_key(i, j, key_a, key_b, m, n)
    live = (i < m) | (j < n)
    key = key[live]
    read = read[:, live]
    (low_a,), (low_b, up_b) = _bounds(key, ((a, (False,), read[:1]), (b, (False, True), read[1:])), count)
    il, jl = i[live], j[live]
    out_i, out_j = i.copy(), j.copy()
    out_i[live], out_j[live] = _balanced_split(il, jl, from_a[live], low_a, low_b, up_b)
    return out_i, out_j


def _balanced_split(i, j, from_a, low_a, low_b, up_b):
    """balanced_split_from's arithmetic, vectorized: the balanced split of merge-path split
    (i, j) whose next element (A's where from_a) has key K, from K's lower bound in A and
    lower and upper bounds in B."""
    a_run = np.minimum(i, low_a)
    b_run = np.minimum(j, low_b)
    before = (i - a_run) + (j - b_run)
    a_copies = np.where(from_a, before, i - a_run)
    b_copies = np.minimum(up_b - b_run, before)
    half = (before + 1) // 2
    a_take = np.minimum(a_copies, np.maximum(half, before - b_copies))
    b_take = before - a_take
    a_take -= (a_take == b_take + 1) & (b_take < b_copies)  # keep A_r with its partner B_r
    return np.where(before == 0, i, a_run + a_take), np.where(before == 0, j, b_run + b_take)


def _bounds(keys, sides, count):
    """Each key's bounds in the two sides: `sides` holds (Side, rights, read) for A and for B,
    where rights lists the bounds wanted (False: the lower, the elements before the key; True:
    the upper, those not after it) and read, per right, the bounds already known (-1 where
    not). One call of `count`, for the bounds that neither those nor the chunks' boundary keys
    decide, if any. Returns, per side, the bounds in the order of its rights."""
    out, queries = [], []
    for side, rights, read in sides:
        bounds, (chunk, key, right) = _decided_bounds(keys, side, rights)
        done = np.zeros(len(key), dtype=bool)
        for bound, r, known in zip(bounds, rights, read):
            hit = (right == r) & (known[key] >= 0)
            bound[key[hit]] = known[key[hit]]
            done |= hit
        out.append(bounds)
        queries.append((chunk[~done], key[~done], right[~done]))
    if not any(len(chunk) for chunk, _, _ in queries):
        return out
    counts = count(*[(chunk, keys[key], right) for chunk, key, right in queries])
    for (side, rights, _), bounds, (chunk, key, right), local in zip(sides, out, queries, counts):
        at = side.starts[chunk] + np.asarray(local, dtype=np.int64)
        for bound, r in zip(bounds, rights):
            bound[key[right == r]] = at[right == r]
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
