"""Shared fixtures: a seeded random generator per test (the seed is printed in the header;
set CORANK_TEST_SEED to replay a run), and the inputs' shapes."""

import os
import random
import zlib

import numpy as np
import pytest

SEED = int(os.environ.get("CORANK_TEST_SEED", random.SystemRandom().randrange(2**32)))


def pytest_report_header(config):
    return f"corank tests: seed {SEED} (replay with CORANK_TEST_SEED={SEED})"


@pytest.fixture(params=("merge", "binary", "sort"))
def plan(request, monkeypatch):
    """Runs a test of searchsorted or isin with every call taking one method (corank/_search.py):
    the sorted search (unsorted queries then take the sort: there is no other way), the
    library's binary searches, or the sort, search and scatter."""
    from corank import _search

    forced = request.param

    def chosen(m, n, queries_sorted, lib, floats):
        return "sort" if forced == "merge" and not queries_sorted else forced

    monkeypatch.setattr(_search, "_plan", chosen)
    return forced


@pytest.fixture
def rng(request):
    """A generator seeded by the run's seed and the test's id."""
    return np.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])
