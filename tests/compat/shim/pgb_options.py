"""The command-line options python-graphblas's test suite reads (its repository's conftest
defines them; the wheel's tests only read them), with fixed, non-random values."""


def pytest_addoption(parser):
    parser.addoption("--backend", default="suitesparse-vanilla")
    parser.addoption("--randomly", default=False)
    parser.addoption("--blocking", default=True)
    parser.addoption("--record", default=False)
    parser.addoption("--mapnumpy", default=False)
    parser.addoption("--runslow", default=True)
