"""searchsorted, isin and join on the GPU: CuPy arrays against NumPy's functions on the same data
(and the join against the CPU backend, itself checked in test_join.py), for every dtype and
input shape, sorted and unsorted, each of the three search methods; results of the input's
kind on its device; PyTorch tensors; other producers (a DeviceArray out); unsorted input
passed unchecked. Skipped, with the reason, where there is no usable GPU or no CuPy."""

import numpy as np
import pytest

import corank
import reference as ref

cupy = pytest.importorskip("cupy", reason="the GPU tests need CuPy")
_reason = corank.gpu_unavailable_reason()
pytestmark = pytest.mark.skipif(bool(_reason), reason=f"no usable GPU: {_reason}")

from test_gpu import DLPackOnly, host  # noqa: E402  (after the skips: it needs CuPy too)

SIZES = (1, 1000, 4097, 70001)


@pytest.mark.parametrize("dtype", ref.KEY_DTYPES)
@pytest.mark.parametrize("shape", ref.SHAPES)
def test_cupy_searchsorted_and_isin_match_numpy(rng, dtype, shape, plan):
    for n in SIZES:
        a, b = ref.SHAPES[shape](rng, dtype, n)
        for v in (b, rng.permutation(b)):
            da, dv = cupy.asarray(a), cupy.asarray(v)
            for side in ("left", "right"):
                got = corank.searchsorted(da, dv, side=side)
                assert isinstance(got, cupy.ndarray) and ref.same(host(got), np.searchsorted(a, v, side=side)), \
                    f"n={n} side={side}"
            for invert in (False, True):
                got = corank.isin(dv, da, invert=invert)
                assert isinstance(got, cupy.ndarray) and ref.same(host(got), np.isin(v, a, invert=invert)), \
                    f"n={n} invert={invert}"


@pytest.mark.parametrize("dtype", ["int8", "uint32", "int64", "float32", "float64"])
@pytest.mark.parametrize("shape", ["long_runs", "interleaved", "all_equal", "disjoint", "one_tiny"])
def test_cupy_join_matches_the_cpu_backend(rng, dtype, shape):
    for n in (1, 1000, 40000):
        a, b = ref.SHAPES[shape](rng, dtype, n if shape != "all_equal" else min(n, 1000))
        for left, right in ((a, b), (rng.permutation(a), rng.permutation(b))):
            li, ri = corank.join(cupy.asarray(left), cupy.asarray(right))
            assert isinstance(li, cupy.ndarray) and isinstance(ri, cupy.ndarray)
            expected = corank.join(left, right)
            assert ref.same(host(li), expected[0]) and ref.same(host(ri), expected[1]), f"n={n}"
            assert corank.join_count(cupy.asarray(left), cupy.asarray(right)) == len(expected[0])


@pytest.mark.parametrize("dtype", ["int16", "int64"])
def test_the_count_keeps_what_the_pairs_come_from(rng, dtype):
    # The join's two calls on the GPU (_join.py): the count keeps its pass's results, and the
    # pairs come from them alone: keys overwritten in between change nothing.
    from corank import _run as r
    a, b = ref.SHAPES["long_runs"](rng, dtype, 30000)
    left, right = cupy.asarray(np.sort(a)), cupy.asarray(np.sort(b))
    pairs, kept = r.run(r.JOIN, "corank.join", left, right, count_only=True, keep=True)
    assert isinstance(kept, cupy.ndarray) and kept.dtype == cupy.int64
    assert 12 * len(left) <= 8 * len(kept) < 13 * len(left) + 4096
    expected = corank.join(np.sort(a), np.sort(b))
    assert pairs == len(expected[0])
    left[:] = 0
    right[:] = 0
    li, ri = r.run(r.JOIN, "corank.join", left, right, pairs=pairs, kept=kept)
    assert ref.same(host(li), expected[0]) and ref.same(host(ri), expected[1])


def test_one_key_with_ten_million_pairs():
    left, right = cupy.full(4000, 7, dtype=cupy.int32), cupy.full(2500, 7, dtype=cupy.int32)
    li, ri = corank.join(left, right)
    p = cupy.arange(4000 * 2500)
    assert bool(cupy.all(li == p // 2500)) and bool(cupy.all(ri == p % 2500))


def test_pytorch_tensors(rng):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    a, b = ref.SHAPES["long_runs"](rng, "float32", 30000)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(rng.permutation(b)).cuda()
    got = corank.searchsorted(ta, tb, side="right")
    assert isinstance(got, torch.Tensor) and got.device == ta.device and got.dtype == torch.int64
    assert ref.same(host(got), np.searchsorted(a, host(tb), side="right"))
    flags = corank.isin(tb, ta, invert=True)
    assert isinstance(flags, torch.Tensor) and flags.dtype == torch.bool
    assert ref.same(host(flags), np.isin(host(tb), a, invert=True))
    li, ri = corank.join(ta, tb)
    expected = corank.join(a, host(tb))
    assert ref.same(host(li), expected[0]) and ref.same(host(ri), expected[1])


def test_other_producers_get_device_arrays(rng):
    a, b = ref.SHAPES["interleaved"](rng, "int32", 50000)
    da, db = DLPackOnly(cupy.asarray(a)), DLPackOnly(cupy.asarray(b))
    got = corank.searchsorted(da, db)
    assert isinstance(got, corank.DeviceArray) and got.dtype == "int64"
    assert ref.same(got.get(), np.searchsorted(a, b))
    flags = corank.isin(db, da)
    assert isinstance(flags, corank.DeviceArray) and flags.dtype == "uint8"
    assert ref.same(flags.get(), np.isin(b, a).astype(np.uint8))
    with pytest.raises(TypeError, match="corank sorts only NumPy, CuPy and PyTorch arrays"):
        corank.isin(DLPackOnly(cupy.asarray(rng.permutation(b))), da)


def test_unchecked_unsorted_a_gives_a_bounded_result_or_value_error(rng):
    for _ in range(10):
        a = cupy.asarray(rng.integers(0, 1000, 200000))
        v = cupy.asarray(np.sort(rng.integers(0, 1000, 100000)))
        try:
            got = corank.searchsorted(a, v, check_sorted=False)
        except ValueError as e:
            assert "is not sorted" in str(e)
            continue
        assert int(got.min()) >= 0 and int(got.max()) <= len(a)


def test_unchecked_sorted_inputs_answer_as_numpy(rng):
    # assume_sorted=True, check_sorted=False on sorted inputs, with empty sides, CuPy and PyTorch.
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    a, v = np.sort(rng.integers(0, 3000, 50000)), np.sort(rng.integers(-10, 3010, 70001))
    fast = dict(assume_sorted=True, check_sorted=False)
    for a_, v_ in ((a, v), (a, v[:0]), (a[:0], v), (a[:1], v[:1])):
        for to in (cupy.asarray, lambda x: torch.from_numpy(x).cuda()):
            da, dv = to(a_), to(v_)
            for side in ("left", "right"):
                got = corank.searchsorted(da, dv, side=side, **fast)
                assert type(got) is type(da) and ref.same(host(got), np.searchsorted(a_, v_, side=side)), \
                    (len(a_), len(v_), side)
            for invert in (False, True):
                got = corank.isin(dv, da, invert=invert, **fast)
                assert type(got) is type(da) and ref.same(host(got), np.isin(v_, a_, invert=invert)), \
                    (len(a_), len(v_), invert)
