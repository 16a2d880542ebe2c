"""NumPy's own tests of union1d, intersect1d, setdiff1d and setxor1d (numpy/lib/tests/
test_arraysetops.py, which NumPy's wheels ship) run with corank's functions in place of
NumPy's, on NumPy arrays (CPU threads).

Not covered: NumPy's tests of isin and in1d (corank has no isin yet), of unique and ediff1d
(not corank's), and the same tests on CuPy arrays (test_gpu.py's machines only). Expected to
raise TypeError instead: the tests of dtypes corank refuses, listed in REFUSED."""

import inspect
import re

import numpy as np
import pytest

import corank

if int(np.__version__.split(".")[0]) < 2:
    pytest.skip(f"NumPy {np.__version__}: the NaN rules matched are NumPy 2's", allow_module_level=True)
suite = pytest.importorskip("numpy.lib.tests.test_arraysetops",
                            reason="this NumPy was installed without its tests (numpy/lib/tests)")

FUNCTIONS = ("union1d", "intersect1d", "setdiff1d", "setxor1d")
# The tests of the four functions: named after one of them, and test_manyways, which calls all four.
OURS = re.compile(r"test_(union1d|intersect1d|setdiff1d|setxor1d)|test_manyways$")
# Tests of dtypes corank refuses, with the error they must give instead.
REFUSED = {"test_setdiff1d_char_array": "corank.setdiff1d: `ar1` has dtype <U1"}
# What NumPy 2.4's module holds; a NumPy without one of them fails here, not silently.
KNOWN = {"test_intersect1d", "test_intersect1d_array_like", "test_intersect1d_indices", "test_setxor1d",
         "test_setxor1d_unique", "test_union1d", "test_setdiff1d", "test_setdiff1d_unique",
         "test_setdiff1d_char_array", "test_manyways"}

TESTS = sorted(name for name in dir(suite.TestSetOps) if OURS.match(name))


def test_the_suite_holds_the_tests_of_the_four_functions():
    assert KNOWN <= set(TESTS), sorted(KNOWN - set(TESTS))


@pytest.mark.parametrize("test", TESTS)
def test_numpys_test_passes_with_corank(test, monkeypatch):
    calls = {}

    def ours(function):
        def counted(*args, **kwargs):
            calls[function] = calls.get(function, 0) + 1
            return getattr(corank, function)(*args, **kwargs)
        return counted

    # The module calls the names it imported from numpy; np.<name> is patched too, for any
    # test that calls it that way.
    for function in FUNCTIONS:
        if hasattr(suite, function):
            monkeypatch.setattr(suite, function, ours(function))
        monkeypatch.setattr(np, function, ours(function))
    method = getattr(suite.TestSetOps(), test)
    assert list(inspect.signature(method).parameters) == [], f"{test} takes arguments; run it with them"
    if test in REFUSED:
        with pytest.raises(TypeError, match=re.escape(REFUSED[test])):
            method()
    else:
        method()
    assert calls, f"{test} called none of corank's functions"
