# Fixtures of the Python tests: the device (CLFORGE_TEST_DEVICE, as the C++ tests), a pyopencl
# context and profiling queue on it, and seeded random data (CLFORGE_TEST_SEED, printed).
# Exits 77 (CTest: skipped) when the machine has no OpenCL device.
import os
import random

import numpy as np
import pyopencl as cl
import pytest

import clforge

SEED = int(os.environ.get("CLFORGE_TEST_SEED") or random.SystemRandom().randrange(1, 2**48))


def pytest_report_header(config):
    return f"clforge {clforge.__version__} from {clforge.__file__}, CLFORGE_TEST_SEED={SEED}"


def pytest_sessionstart(session):
    # CLFORGE_TEST_MODULE_PREFIX: the tests are meant for the clforge installed under it (CTest
    # "python" installs the wheel into a virtual environment), not for one found elsewhere.
    prefix = os.environ.get("CLFORGE_TEST_MODULE_PREFIX")
    if prefix and not os.path.realpath(clforge.__file__).startswith(os.path.realpath(prefix) + os.sep):
        pytest.exit(f"clforge was imported from {clforge.__file__}, not from {prefix}", returncode=1)
    if not clforge.list_devices():
        pytest.exit("no OpenCL device on this machine: skipping", returncode=77)


@pytest.fixture(scope="session")
def device():
    info = clforge.select_device(os.environ.get("CLFORGE_TEST_DEVICE", ""))
    return cl.get_platforms()[info.platform_index].get_devices()[info.device_index]


@pytest.fixture(scope="session")
def context(device):
    return cl.Context([device])


@pytest.fixture(scope="session")
def queue(context):
    return cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)


@pytest.fixture
def rng(request):
    """A generator per test, from the run's seed and the test's name."""
    return np.random.default_rng([SEED, sum(map(ord, request.node.name))])
