"""The GPU path: CuPy arrays and PyTorch tensors against the CPU backend (itself checked against
the reference in test_host.py) on every operation, dtype and shape; results of the input's
kind on its device; streams; sizes left on the device; DLPack and __cuda_array_interface__
producers (JAX included) and zero-copy outputs; errors; unsorted input passed unchecked
(unsorted.py). Skipped, with the reason, where there is no usable GPU or no CuPy."""

import os

import numpy as np
import pytest

import corank
import reference as ref
import unsorted

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX must leave memory to the others

cupy = pytest.importorskip("cupy", reason="the GPU tests need CuPy")
_reason = corank.gpu_unavailable_reason()
pytestmark = pytest.mark.skipif(bool(_reason), reason=f"no usable GPU: {_reason}")

SIZES = (1, 1000, 4097, 70001)
STRATEGIES = ("automatic", "naive", "tiled", "circular", "partitioned")
MULTISET = {
    ref.UNION: (corank.set_union, corank.set_union_count),
    ref.INTERSECTION: (corank.set_intersection, corank.set_intersection_count),
    ref.DIFFERENCE: (corank.set_difference, corank.set_difference_count),
    ref.SYMMETRIC_DIFFERENCE: (corank.set_symmetric_difference, corank.set_symmetric_difference_count),
}
DISTINCT = (corank.union1d, corank.intersect1d, corank.setdiff1d, corank.setxor1d)


def host(x):
    """A NumPy copy of a GPU result."""
    return x.get() if hasattr(x, "get") else x.cpu().numpy()


@pytest.mark.parametrize("dtype", ref.KEY_DTYPES)
@pytest.mark.parametrize("shape", ref.SHAPES)
def test_cupy_matches_the_cpu_backend(rng, dtype, shape):
    for n in SIZES:
        a, b = ref.SHAPES[shape](rng, dtype, n)
        da, db = cupy.asarray(a), cupy.asarray(b)
        merged = corank.merge(da, db)
        assert isinstance(merged, cupy.ndarray)
        assert ref.same(host(merged), corank.merge(a, b)), f"merge n={n}"
        for op, (function, count) in MULTISET.items():
            expected = function(a, b)
            got = function(da, db, check_sorted=True)
            assert isinstance(got, cupy.ndarray) and ref.same(host(got), expected), f"{op} n={n}"
            assert count(da, db) == len(expected), f"{op} count n={n}"
        for function in DISTINCT:
            assert ref.same(host(function(da, db)), function(a, b)), f"{function.__name__} n={n}"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_gives_the_same_result(rng, strategy):
    a, b = ref.SHAPES["long_runs"](rng, "int64", 300000)
    da, db = cupy.asarray(a), cupy.asarray(b)
    assert ref.same(host(corank.merge(da, db, strategy=strategy)), corank.merge(a, b))
    for op, (function, _) in MULTISET.items():
        assert ref.same(host(function(da, db, strategy=strategy)), function(a, b)), op


@pytest.mark.parametrize("key_dtype,value_dtype", [
    ("int32", "int64"), ("float64", "uint8"), ("uint16", "int16"), ("float32", "float64"), ("int8", "int8"),
    ("uint64", "float32")])
@pytest.mark.parametrize("shape", ["long_runs", "interleaved", "all_equal", "extremes"])
def test_values_on_the_gpu(rng, key_dtype, value_dtype, shape):
    for n in (1, 3000, 50000):
        a, b = ref.SHAPES[shape](rng, key_dtype, n)
        va, vb = ref.values_for(rng, value_dtype, len(a)), ref.values_for(rng, value_dtype, len(b))
        d = [cupy.asarray(x) for x in (a, b, va, vb)]
        for function in (corank.merge, corank.set_union, corank.set_intersection, corank.set_difference,
                         corank.set_symmetric_difference):
            keys, values = function(d[0], d[1], values_a=d[2], values_b=d[3])
            expected_keys, expected_values = function(a, b, values_a=va, values_b=vb)
            assert ref.same(host(keys), expected_keys), f"{function.__name__} n={n}"
            assert ref.same(host(values), expected_values), f"{function.__name__} values n={n}"
        got = corank.set_intersection_paired(d[0], d[1], d[2], d[3].astype("int16"))
        expected = corank.set_intersection_paired(a, b, va, vb.astype("int16"))
        for x, y in zip(got, expected):
            assert ref.same(host(x), y), f"paired n={n}"


@pytest.mark.parametrize("dtype", ["int32", "int16", "float64"])
def test_count_on_device_does_not_read_the_size_back(rng, dtype):
    a, b = ref.SHAPES["interleaved"](rng, dtype, 20000)
    va, vb = ref.values_for(rng, "uint8", len(a)), ref.values_for(rng, "uint8", len(b))
    da, db, dva, dvb = (cupy.asarray(x) for x in (a, b, va, vb))
    keys, values, count = corank.set_union(da, db, values_a=dva, values_b=dvb, count_on_device=True)
    assert isinstance(count, cupy.ndarray) and count.dtype == cupy.int64 and count.shape == (1,)
    assert len(keys) == len(a) + len(b)  # the outputs at their largest
    n = int(count.get()[0])
    expected_keys, expected_values = corank.set_union(a, b, values_a=va, values_b=vb)
    assert n == len(expected_keys)
    assert ref.same(host(keys[:n]), expected_keys) and ref.same(host(values[:n]), expected_values)
    assert int(corank.set_difference_count(da, db, count_on_device=True).get()[0]) == corank.set_difference_count(a, b)


def test_work_is_ordered_on_the_current_and_the_given_stream(rng):
    a, b = ref.SHAPES["interleaved"](rng, "int64", 1 << 20)
    expected = corank.set_symmetric_difference(a, b)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        da, db = cupy.asarray(a), cupy.asarray(b)
        got = corank.set_symmetric_difference(da, db)
        merged = corank.merge(da, db)
    stream.synchronize()
    assert ref.same(host(got), expected) and ref.same(host(merged), corank.merge(a, b))
    other = cupy.cuda.Stream(non_blocking=True)
    got = corank.set_symmetric_difference(da, db, stream=other)
    other.synchronize()
    assert ref.same(host(got), expected)
    got = corank.set_symmetric_difference(da, db, stream=other.ptr)
    assert ref.same(host(got), expected)


def test_a_given_stream_orders_copies_reads_and_producers(rng):
    a, b = ref.SHAPES["interleaved"](rng, "int32", 1 << 20)
    strided = cupy.zeros(2 * len(a), dtype=cupy.int32)
    strided[::2] = cupy.asarray(a)  # copy=True copies it on CuPy's current stream
    other = cupy.cuda.Stream(non_blocking=True)
    got = corank.set_union(strided[::2], cupy.asarray(b), copy=True, stream=other)
    other.synchronize()
    assert ref.same(host(got), corank.set_union(a, b))
    got = corank.union1d(cupy.asarray(a[::-1].copy()), cupy.asarray(b), assume_sorted=False, stream=other)
    other.synchronize()
    assert ref.same(host(got), np.union1d(a, b))
    merged = corank.merge(DLPackOnly(cupy.asarray(a)), DLPackOnly(cupy.asarray(b)), stream=other.ptr)
    assert ref.same(merged.get(), corank.merge(a, b))  # get() waits for the stream merge wrote on
    empty = InterfaceOnly(cupy.empty(0, dtype=cupy.int32))
    assert len(corank.setdiff1d(empty, empty)) == 0 and len(corank.setxor1d(empty, empty)) == 0


def test_unsorted_input_and_a_host_device_mix_are_refused():
    da = cupy.asarray(np.array([1, 3, 2], dtype=np.int32))
    with pytest.raises(ValueError, match=r"corank.set_union: `a` is not sorted: a\[2\] comes before a\[1\]"):
        corank.set_union(da, da[:2], check_sorted=True)
    with pytest.raises(ValueError, match="`a` is on GPU 0 and `b` on the host"):
        corank.merge(da, np.array([1], dtype=np.int32))
    with pytest.raises(ValueError, match="not contiguous"):
        corank.merge(cupy.arange(10)[::2], cupy.arange(3))
    with pytest.raises(TypeError, match="`a` is int32 and `b` int64"):
        corank.merge(da, cupy.arange(3))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("shape,dtype", unsorted.CASES)
def test_unchecked_unsorted_input_gives_a_bounded_result_or_value_error(rng, shape, dtype, strategy):
    a, b = unsorted.SHAPES[shape](rng, dtype)
    value_dtype = unsorted.VALUE_DTYPES[dtype]
    va, vb = ref.values_for(rng, value_dtype, len(a)), ref.values_for(rng, value_dtype, len(b))
    unsorted.check_every_operation(*(cupy.asarray(x) for x in (a, b, va, vb)), host, strategy=strategy)
    cupy.cuda.Device().synchronize()  # a faulting kernel fails here, not in a later test


def test_out_of_memory_is_a_memory_error():
    a = cupy.arange(1 << 20, dtype=cupy.int64)
    # A pool of its own, whatever earlier tests left in CuPy's default one: room for less than
    # the output (16 MiB).
    pool = cupy.cuda.MemoryPool()
    pool.set_limit(size=1 << 20)
    with cupy.cuda.using_allocator(pool.malloc):
        with pytest.raises(MemoryError, match="not enough GPU memory"):
            corank.merge(a, a)


class DLPackOnly:
    """A producer that exports only DLPack, as an unknown library would."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, **kwargs):
        return self.x.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


class InterfaceOnly:
    """A producer that exports only __cuda_array_interface__ (as Numba does)."""

    def __init__(self, x):
        self.x = x
        self.__cuda_array_interface__ = x.__cuda_array_interface__


@pytest.mark.parametrize("wrap", [DLPackOnly, InterfaceOnly])
def test_other_producers_get_a_device_array_without_copies(rng, wrap):
    a, b = ref.SHAPES["long_runs"](rng, "uint32", 50000)
    da, db = cupy.asarray(a), cupy.asarray(b)
    got = corank.set_intersection(wrap(da), wrap(db))
    assert isinstance(got, corank.DeviceArray) and got.dtype == "uint32" and got.device == 0
    expected = corank.set_intersection(a, b)
    assert ref.same(got.get(), expected)
    through_dlpack = cupy.from_dlpack(got)  # zero copy: the same memory
    assert through_dlpack.data.ptr == got.ptr and ref.same(through_dlpack.get(), expected)
    through_interface = cupy.asarray(got)  # __cuda_array_interface__
    assert through_interface.data.ptr == got.ptr
    merged = corank.merge(wrap(da), wrap(db))
    assert ref.same(merged.get(), corank.merge(a, b))
    assert ref.same(corank.union1d(got, got).get(), np.unique(expected))  # a DeviceArray is an input too


def test_pytorch_tensors(rng):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    a, b = ref.SHAPES["long_runs"](rng, "int64", 100000)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    got = corank.set_union(ta, tb)
    assert isinstance(got, torch.Tensor) and got.device == ta.device and got.dtype == torch.int64
    assert ref.same(host(got), corank.set_union(a, b))
    on_default = corank.set_union(ta, tb, stream=torch.cuda.default_stream())
    assert ref.same(host(on_default), corank.set_union(a, b))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        keys, values = corank.merge(ta, tb, values_a=ta.float(), values_b=tb.float())
    stream.synchronize()
    expected_keys, expected_values = corank.merge(a, b, values_a=a.astype("float32"), values_b=b.astype("float32"))
    assert ref.same(host(keys), expected_keys) and ref.same(host(values), expected_values)
    # CPU tensors run on the CPU backend and come back as CPU tensors.
    cpu = corank.set_intersection(torch.from_numpy(a), torch.from_numpy(b))
    assert isinstance(cpu, torch.Tensor) and cpu.device.type == "cpu"
    assert ref.same(cpu.numpy(), corank.set_intersection(a, b))
    # DLPack round trip: a CuPy result viewed by PyTorch, no copy.
    result = corank.set_intersection(cupy.asarray(a), cupy.asarray(b))
    assert torch.from_dlpack(result).data_ptr() == result.data.ptr


def test_numba_arrays(rng):
    numba_cuda = pytest.importorskip("numba.cuda", reason="Numba is not installed")
    a, b = ref.SHAPES["long_runs"](rng, "float32", 20000)
    got = corank.set_union(numba_cuda.to_device(a), numba_cuda.to_device(b))  # __cuda_array_interface__
    assert isinstance(got, corank.DeviceArray)
    back = numba_cuda.as_cuda_array(got)  # no copy
    assert back.__cuda_array_interface__["data"][0] == got.ptr
    assert ref.same(back.copy_to_host(), corank.set_union(a, b))


def test_jax_arrays(rng):
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    a, b = ref.SHAPES["interleaved"](rng, "int32", 30000)
    ja, jb = jax.device_put(a), jax.device_put(b)
    got = corank.set_difference(ja, jb)
    assert isinstance(got, corank.DeviceArray)
    back = jax.dlpack.from_dlpack(got)
    assert ref.same(np.asarray(back), corank.set_difference(a, b))


@pytest.mark.parametrize("dtype", ref.KEY_DTYPES)
def test_find_unsorted_matches_the_cpu_backend(rng, dtype):
    for n in (1, 5000, 100000):
        x, _ = ref.SHAPES["interleaved"](rng, dtype, n)
        assert corank.find_unsorted(cupy.asarray(x)) == len(x)
        x[len(x) * 2 // 3:] = x[len(x) * 2 // 3:][::-1].copy()
        assert corank.find_unsorted(cupy.asarray(x)) == corank.find_unsorted(x)


def test_release_temporary_memory_and_the_gpu_reason():
    assert corank.gpu_unavailable_reason() == ""
    corank.release_temporary_memory()
    a = cupy.arange(100000, dtype=cupy.int32)
    assert int(corank.set_union_count(a, a)) == 100000
