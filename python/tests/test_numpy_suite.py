"""NumPy's own tests of union1d, intersect1d, setdiff1d, setxor1d and isin (numpy/lib/tests/
test_arraysetops.py, which NumPy's wheels ship) run with corank's functions in place of
NumPy's; parametrized tests with each of their parameters. Each test runs twice:
  numpy  on the NumPy arrays the test gives (CPU threads);
  cupy   with the inputs moved to the GPU (cupy.asarray of each array argument, array-likes
         included) and the results moved back (cupy.asnumpy), so the test's own assertions
         judge the GPU's answers; skipped, with the reason, without CuPy or a GPU. Inputs of a
         dtype CuPy cannot hold (strings, objects, structured, timedelta) stay NumPy arrays:
         corank refuses them there as on NumPy.

Not covered: NumPy's tests of unique and ediff1d (not corank's; in1d is gone from NumPy 2.4).
Expected to raise TypeError instead: the tests of dtypes corank refuses, listed in REFUSED;
expected to differ: DIFFERENT."""

import inspect
import itertools
import re

import numpy as np
import pytest

import corank

if int(np.__version__.split(".")[0]) < 2:
    pytest.skip(f"NumPy {np.__version__}: the NaN rules matched are NumPy 2's", allow_module_level=True)
suite = pytest.importorskip("numpy.lib.tests.test_arraysetops",
                            reason="this NumPy was installed without its tests (numpy/lib/tests)")

FUNCTIONS = ("union1d", "intersect1d", "setdiff1d", "setxor1d", "isin")
# The tests of the five functions: named after one of them, and test_manyways, which calls four.
OURS = re.compile(r"test_(union1d|intersect1d|setdiff1d|setxor1d|isin)|test_manyways$")
# Tests of dtypes corank refuses, with the error they must give instead.
REFUSED = {
    "test_setdiff1d_char_array": "corank.setdiff1d: `ar1` has dtype <U1",
    "test_isin_char_array": "corank.isin: `element` has dtype <U1",
    "test_isin_errors": "corank.isin: `element` has dtype object",  # its object arrays, after the kind check
    "test_isin_first_array_is_object": "corank.isin: `element` has dtype object",
    "test_isin_second_array_is_object": "corank.isin: `test_elements` has dtype object",
    "test_isin_both_arrays_are_object": "corank.isin: `element` has dtype object",
    "test_isin_both_arrays_have_structured_dtype": "corank.isin: `element` has dtype [(",
    "test_isin_with_arrays_containing_tuples": "corank.isin: `element` has dtype object",
    "test_isin_timedelta": "corank.isin: `element` has dtype timedelta64",
    "test_isin_table_timedelta_fails": "corank.isin: `element` has dtype timedelta64",
}
# Cases that expect what corank does not do: NumPy's kind="table" refuses int16 against int8 (its
# table's memory); corank has no table and answers.
DIFFERENT = {"test_isin_mixed_dtype[kind='table', dtype1=int16, dtype2=int8]": "DID NOT RAISE"}
# What NumPy 2.4's module holds; a NumPy without one of them fails here, not silently.
KNOWN = {"test_intersect1d", "test_intersect1d_array_like", "test_intersect1d_indices", "test_setxor1d",
         "test_setxor1d_unique", "test_union1d", "test_setdiff1d", "test_setdiff1d_unique",
         "test_setdiff1d_char_array", "test_manyways", "test_isin", "test_isin_additional", "test_isin_invert",
         "test_isin_boolean", "test_isin_mixed_dtype", "test_isin_mixed_huge_vals", "test_isin_errors"}

NAMES = sorted(name for name in dir(suite.TestSetOps) if OURS.match(name))


def _cases(name):
    """(id, name, keyword arguments): one per combination of the test's parametrize marks."""
    marks = [m for m in getattr(getattr(suite.TestSetOps, name), "pytestmark", []) if m.name == "parametrize"]
    axes = []
    for mark in marks:
        names = [n.strip() for n in mark.args[0].split(",")]
        axes.append([dict(zip(names, v if len(names) > 1 else (v,))) for v in mark.args[1]])
    for combination in itertools.product(*axes):
        kwargs = {k: v for part in combination for k, v in part.items()}
        shown = ", ".join(f"{k}={getattr(v, '__name__', repr(v)) if not isinstance(v, np.ndarray) else 'array'}"
                          for k, v in kwargs.items())
        yield (f"{name}[{shown}]" if kwargs else name), name, kwargs


CASES = [case for name in NAMES for case in _cases(name)]


def test_the_suite_holds_the_tests_of_the_five_functions():
    assert KNOWN <= set(NAMES), sorted(KNOWN - set(NAMES))


# The functions' array arguments, by keyword (the others are flags: assume_unique, invert, kind, ...).
ARRAY_KEYWORDS = {"ar1", "ar2", "element", "test_elements"}


def _on_gpu(cp, function):
    """corank's `function` with its array arguments moved to the GPU and its results back."""
    def call(*args, **kwargs):
        given = [(i, x) for i, x in enumerate(args)] + [(k, x) for k, x in kwargs.items() if k in ARRAY_KEYWORDS]
        hosted = {}
        for where, x in given:
            try:
                hosted[where] = np.asarray(x)
            except Exception:  # noqa: BLE001 - not an array-like: given as it is
                hosted[where] = None
        # Only where CuPy holds every input: a refused dtype is refused on the host, as on NumPy.
        if all(h is not None and h.dtype.kind in "biuf" for h in hosted.values()):
            args = [cp.asarray(hosted[i]) if i in hosted else x for i, x in enumerate(args)]
            kwargs = {k: cp.asarray(hosted[k]) if k in hosted else x for k, x in kwargs.items()}
        result = function(*args, **kwargs)
        back = lambda r: cp.asnumpy(r) if isinstance(r, cp.ndarray) else r  # noqa: E731
        return tuple(back(r) for r in result) if isinstance(result, tuple) else back(result)
    return call


@pytest.fixture(params=["numpy", "cupy"])
def arrays(request):
    """How the functions get their inputs: as the test gives them, or moved to the GPU."""
    if request.param == "numpy":
        return lambda function: function
    cp = pytest.importorskip("cupy", reason="the CuPy form needs CuPy")
    reason = corank.gpu_unavailable_reason()
    if reason:
        pytest.skip(f"the CuPy form needs a GPU: {reason}")
    return lambda function: _on_gpu(cp, function)


@pytest.mark.parametrize("case, test, kwargs", CASES, ids=[c[0] for c in CASES])
def test_numpys_test_passes_with_corank(case, test, kwargs, arrays, monkeypatch):
    calls = {}

    def ours(function):
        run = arrays(getattr(corank, function))

        def counted(*args, **kwargs):
            calls[function] = calls.get(function, 0) + 1
            return run(*args, **kwargs)
        return counted

    # The module calls the names it imported from numpy; np.<name> is patched too, for any
    # test that calls it that way.
    for function in FUNCTIONS:
        if hasattr(suite, function):
            monkeypatch.setattr(suite, function, ours(function))
        monkeypatch.setattr(np, function, ours(function))
    method = getattr(suite.TestSetOps(), test)
    assert set(inspect.signature(method).parameters) == set(kwargs), f"{test}'s arguments are not its marks'"
    if test in REFUSED:
        with pytest.raises(TypeError, match=re.escape(REFUSED[test])):
            method(**kwargs)
    elif case in DIFFERENT:
        with pytest.raises(pytest.fail.Exception, match=DIFFERENT[case]):
            method(**kwargs)
    else:
        method(**kwargs)
    assert calls, f"{test} called none of corank's functions"
