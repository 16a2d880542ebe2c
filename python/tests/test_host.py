"""The NumPy path (corank's CPU backend) against the pure-Python reference: every operation,
key dtype and input shape, with and without values; the result's kind and shape; every bad
argument's error; and unsorted input passed unchecked, on several threads (unsorted.py)."""

import numpy as np
import pytest

import corank
import reference as ref
import unsorted

SIZES = (1, 2, 127, 1000, 4097)
FUNCTIONS = {
    ref.UNION: corank.set_union,
    ref.INTERSECTION: corank.set_intersection,
    ref.DIFFERENCE: corank.set_difference,
    ref.SYMMETRIC_DIFFERENCE: corank.set_symmetric_difference,
}
COUNTS = {
    ref.UNION: corank.set_union_count,
    ref.INTERSECTION: corank.set_intersection_count,
    ref.DIFFERENCE: corank.set_difference_count,
    ref.SYMMETRIC_DIFFERENCE: corank.set_symmetric_difference_count,
}


@pytest.mark.parametrize("dtype", ref.KEY_DTYPES)
@pytest.mark.parametrize("shape", ref.SHAPES)
def test_keys_match_the_reference(rng, dtype, shape):
    for n in SIZES:
        a, b = ref.SHAPES[shape](rng, dtype, n)
        assert ref.same(corank.merge(a, b), ref.merge(a, b)), f"merge, n={n}"
        for op, function in FUNCTIONS.items():
            expected = ref.set_operation(op, a, b)
            assert ref.same(function(a, b), expected), f"{op}, n={n}"
            assert COUNTS[op](a, b) == len(expected), f"{op} count, n={n}"


@pytest.mark.parametrize("key_dtype,value_dtype", [
    ("int32", "int64"), ("int64", "float32"), ("float64", "uint8"), ("uint16", "int16"), ("float32", "float64"),
    ("uint64", "uint32"), ("int8", "int8")])
@pytest.mark.parametrize("shape", ["long_runs", "interleaved", "all_equal", "empty_a", "extremes"])
def test_values_follow_their_keys(rng, key_dtype, value_dtype, shape):
    for n in (1, 300, 3000):
        a, b = ref.SHAPES[shape](rng, key_dtype, n)
        va, vb = ref.values_for(rng, value_dtype, len(a)), ref.values_for(rng, value_dtype, len(b))
        keys, values = corank.merge(a, b, values_a=va, values_b=vb)
        expected_keys, expected_values = ref.merge(a, b, va, vb)
        assert ref.same(keys, expected_keys) and ref.same(values, expected_values), f"merge, n={n}"
        for op, function in FUNCTIONS.items():
            keys, values = function(a, b, values_a=va, values_b=vb)
            expected_keys, expected_values = ref.set_operation(op, a, b, va, vb)
            assert ref.same(keys, expected_keys), f"{op} keys, n={n}"
            assert ref.same(values, expected_values), f"{op} values, n={n}"


@pytest.mark.parametrize("a_values,b_values", [("float64", "int64"), ("int8", "float32"), ("uint16", "uint8"),
                                                ("int32", "int32")])
@pytest.mark.parametrize("shape", ["long_runs", "interleaved", "all_equal", "one_tiny"])
def test_paired_intersection_gives_both_sides_values(rng, a_values, b_values, shape):
    for n in (1, 500, 5000):
        a, b = ref.SHAPES[shape](rng, "int64", n)
        va, vb = ref.values_for(rng, a_values, len(a)), ref.values_for(rng, b_values, len(b))
        got = corank.set_intersection_paired(a, b, va, vb)
        expected = ref.set_operation(ref.INTERSECTION, a, b, va, vb, paired=True)
        assert len(got) == 3
        for x, y in zip(got, expected):
            assert ref.same(x, y), f"n={n}"


def test_threads_and_strategies_do_not_change_the_result(rng):
    a, b = ref.SHAPES["long_runs"](rng, "int32", 20000)
    expected = ref.set_operation(ref.UNION, a, b)
    for threads in (1, 2, 3, 0):
        for strategy in ("automatic", "naive", "tiled", "circular", "partitioned"):
            assert ref.same(corank.set_union(a, b, threads=threads, strategy=strategy), expected)


def test_results_are_numpy_arrays_of_the_result_size(rng):
    a, b = np.array([1, 2, 2, 5], dtype=np.int32), np.array([2, 3], dtype=np.int32)
    out = corank.set_intersection(a, b)
    assert isinstance(out, np.ndarray) and out.dtype == np.int32 and out.tolist() == [2]
    assert corank.merge(a, b).tolist() == [1, 2, 2, 2, 3, 5]
    assert isinstance(corank.set_union_count(a, b), int)


def test_lists_are_taken_as_numpy_arrays():
    assert corank.merge([1, 4], [2, 3]).tolist() == [1, 2, 3, 4]
    assert corank.set_difference([1, 2, 2, 3], [2]).tolist() == [1, 2, 3]


def test_arrays_that_compute_asynchronously_are_waited_for_before_they_are_read():
    # JAX's arrays: block_until_ready() before their contents are taken (test_gpu.py's
    # test_jax_arrays read zeros on an H200 without it).
    class Pending:
        def __init__(self, keys):
            self.keys, self.ready = keys, False

        def block_until_ready(self):
            self.ready = True
            return self

        def __array__(self, dtype=None, copy=None):
            assert self.ready, "read before block_until_ready()"
            return self.keys

    a, b = Pending(np.array([1, 4], dtype=np.int32)), Pending(np.array([2, 3], dtype=np.int32))
    assert corank.merge(a, b).tolist() == [1, 2, 3, 4]
    assert a.ready and b.ready


def test_count_on_device_on_the_host_keeps_the_gpu_shape():
    keys, count = corank.set_intersection(np.array([1, 2, 3]), np.array([2, 3, 4]), count_on_device=True)
    assert len(keys) == 3 and count.dtype == np.int64 and count.tolist() == [2]
    assert keys[: count[0]].tolist() == [2, 3]
    assert corank.set_union_count(np.array([1]), np.array([2]), count_on_device=True).tolist() == [2]


def test_inputs_are_not_modified(rng):
    a, b = ref.SHAPES["interleaved"](rng, "float32", 1000)
    va, vb = ref.values_for(rng, "int16", len(a)), ref.values_for(rng, "int16", len(b))
    copies = [x.copy() for x in (a, b, va, vb)]
    corank.set_symmetric_difference(a, b, values_a=va, values_b=vb)
    for x, y in zip((a, b, va, vb), copies):
        assert ref.same(x, y)


def test_check_sorted_names_the_unsorted_input():
    with pytest.raises(ValueError, match=r"corank.set_union: `b` is not sorted: b\[2\] comes before b\[1\]"):
        corank.set_union(np.array([1, 2]), np.array([1, 5, 3]), check_sorted=True)
    with pytest.raises(ValueError, match=r"`a` is not sorted: a\[2\] comes before a\[1\]"):
        corank.merge(np.array([2.0, np.nan, 1.0]), np.array([1.0]), check_sorted=True)
    corank.merge(np.array([1.0, 2.0, np.nan, np.nan]), np.array([np.nan]), check_sorted=True)  # NaNs last: sorted


@pytest.mark.parametrize("call,error,message", [
    (lambda: corank.merge(np.array([1], np.int32), np.array([1], np.int64)), TypeError,
     "`a` is int32 and `b` int64"),
    (lambda: corank.merge(np.zeros((2, 2)), np.zeros(2)), ValueError, "must be 1-D"),
    (lambda: corank.merge(np.arange(10)[::2], np.arange(3)), ValueError, "not contiguous; pass copy=True"),
    (lambda: corank.merge(np.array([True]), np.array([False])), TypeError, "has dtype bool"),
    (lambda: corank.merge(np.array([1], np.float16), np.array([1], np.float16)), TypeError, "has dtype float16"),
    (lambda: corank.merge(np.array([1]), np.array([2]), values_a=np.array([1])), TypeError, "give both"),
    (lambda: corank.merge(np.array([1]), np.array([2]), values_a=np.array([1, 2]), values_b=np.array([3])),
     ValueError, "`values_a` has 2 elements and `a` 1"),
    (lambda: corank.set_union(np.array([1]), np.array([2]), values_a=np.array([1], np.int32),
                              values_b=np.array([1], np.int64)), TypeError, "the values must have one dtype"),
    (lambda: corank.merge(np.array([1]), np.array([2]), strategy="fastest"), ValueError, "not one of automatic"),
    (lambda: corank.merge(np.array([1]), "text"), TypeError, "`b` is of type str"),
    (lambda: corank.merge(np.array([1]), 3), TypeError, "`b` is of type int"),
    (lambda: corank.set_intersection_paired(np.array([1]), np.array([1]), None, None), TypeError, "required"),
])
def test_bad_arguments_get_one_sentence(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_copy_true_takes_strided_inputs():
    assert corank.merge(np.arange(10)[::2], np.arange(3), copy=True).tolist() == [0, 0, 1, 2, 2, 4, 6, 8]


def test_big_endian_arrays_are_refused():
    with pytest.raises(TypeError, match="has dtype"):
        corank.merge(np.array([1, 2], dtype=">i4"), np.array([1], dtype=">i4"))


def test_the_gil_is_released_while_the_work_runs(rng):
    import threading
    import time
    a = np.sort(rng.integers(0, 1 << 40, 1 << 24))
    span = []

    def work():
        span.append(time.perf_counter())
        corank.set_union_count(a, a, threads=1)
        span.append(time.perf_counter())

    worker = threading.Thread(target=work)
    seen = []  # this thread's clock while the worker runs: it can run only if the GIL is free
    worker.start()
    while worker.is_alive():
        seen.append(time.perf_counter())
    worker.join()
    start, end = span
    middle = [t for t in seen if start + 0.25 * (end - start) < t < end - 0.25 * (end - start)]
    assert end - start > 0.01 and len(middle) > 100


@pytest.mark.parametrize("dtype", ref.KEY_DTYPES)
def test_find_unsorted_gives_the_first_break(rng, dtype):
    for n in (0, 1, 2, 1000):
        x, _ = ref.SHAPES["long_runs"](rng, dtype, n)
        assert corank.find_unsorted(x) == len(x)
        if len(x) > 2:
            x = x.copy()
            i = int(rng.integers(1, len(x)))
            x[i:] = np.sort(x[i:])[::-1]  # breaks at the first i with x[i] < x[i - 1]
            order = [ref._key(v) for v in x]
            first = next((k for k in range(1, len(x)) if order[k] < order[k - 1]), len(x))
            assert corank.find_unsorted(x) == first
    assert corank.find_unsorted([1.0, np.nan, 2.0]) == 2  # NaNs sort last


def test_many_threads_give_what_one_thread_gives(rng):
    a = np.sort(rng.integers(0, 1 << 21, 1 << 20))
    b = np.sort(rng.integers(0, 1 << 21, (1 << 20) + 7))
    for function in (corank.merge, corank.set_union, corank.set_intersection, corank.set_difference,
                     corank.set_symmetric_difference, corank.union1d, corank.intersect1d, corank.setdiff1d,
                     corank.setxor1d):
        one = function(a, b, threads=1)
        for threads in (3, 16, 0):
            assert ref.same(function(a, b, threads=threads), one), (function.__name__, threads)
    assert np.array_equal(corank.intersect1d(a, b, threads=4), np.intersect1d(a, b))


@pytest.mark.parametrize("threads", [-1, 2**32, 1.5])
def test_a_bad_thread_count_is_refused(threads):
    with pytest.raises(ValueError, match="threads="):
        corank.merge(np.array([1]), np.array([2]), threads=threads)


@pytest.mark.parametrize("threads", [4, 0])
@pytest.mark.parametrize("shape,dtype", unsorted.CASES)
def test_unchecked_unsorted_input_gives_a_bounded_result_or_value_error(rng, shape, dtype, threads):
    a, b = unsorted.SHAPES[shape](rng, dtype)
    value_dtype = unsorted.VALUE_DTYPES[dtype]
    va, vb = ref.values_for(rng, value_dtype, len(a)), ref.values_for(rng, value_dtype, len(b))
    unsorted.check_every_operation(a, b, va, vb, np.asarray, threads=threads)
