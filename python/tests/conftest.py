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


@pytest.fixture
def rng(request):
    """A generator seeded by the run's seed and the test's id."""
    return np.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])
