"""Test options shared by the whole suite.

``--device cpu|cuda|all`` picks the devices the ``device`` fixture yields: every test that takes
``device`` runs once per device, and tests compare with CPU (and python-graphblas) results.
The default is ``all``: cpu always, cuda where CuPy and a usable GPU are present.
"""

import os
import zlib

import numpy as np
import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--device",
        action="store",
        default=os.environ.get("GRAPHBLAST_TEST_DEVICE", "all"),
        help="devices to run on: cpu, cuda, or all (cpu plus cuda when available)",
    )


def _cuda_available():
    try:
        from graphblast.backends import cuda_available
    except ImportError:
        return False
    return cuda_available()


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        choice = metafunc.config.getoption("--device")
        if choice == "cpu":
            devices = ["cpu"]
        elif choice == "cuda":
            devices = ["cuda"]
        elif choice == "all":
            devices = ["cpu"] + (["cuda"] if _cuda_available() else [])
        else:
            raise pytest.UsageError(f"--device must be cpu, cuda or all, not {choice!r}")
        metafunc.parametrize("device", devices)


def pytest_report_header(config):
    return f"graphblast devices: {config.getoption('--device')} (cuda usable: {_cuda_available()})"


@pytest.fixture
def rng(request):
    """A seeded NumPy generator; the seed is printed when the test fails."""
    seed = os.environ.get("GRAPHBLAST_SEED")
    seed = int(seed) if seed else zlib.crc32(request.node.nodeid.encode())
    request.node.user_properties.append(("seed", seed))
    print(f"rng seed: {seed}")
    return np.random.default_rng(seed)


DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@pytest.fixture(scope="session")
def data_dir():
    """Path of the test graphs that travel with the repository (tests/data, see its README).

    Always this folder, never $GRAPHBLAST_DATA: the known answers asserted by the tests are
    those of these files, so a clone with nothing beside it tests the same thing as CI."""
    return DATA_DIR
