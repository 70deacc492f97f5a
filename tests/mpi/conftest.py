"""The mpi tests' hooks (mpi_helpers.py holds their shared helpers)."""
import os


# The second MPI (ci/test's Debian MPICH tree) runs what depends on the MPI library underneath and
# nothing else: its init and PMI, the collectives' results, communicators, the algorithm variables,
# a killed, hung and crashing rank. Option parsing, consoles and the cost model are the same code on
# the same compiler. WB_MPI_LIBRARY_ONLY=1 keeps the tests marked mpi_library.
def pytest_configure(config):
    config.addinivalue_line("markers", "mpi_library: depends on the MPI library (run on every MPI ci/test builds)")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("WB_MPI_LIBRARY_ONLY") != "1":
        return
    kept = [item for item in items if item.get_closest_marker("mpi_library")]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept
