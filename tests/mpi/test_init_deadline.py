"""MPI_Init under a deadline: a launcher or PMI that never brings a rank up ends in wirebench's
words, naming the launcher and its PMI, never a silent wait (ctest label: mpi)."""
import os
import socket
import subprocess
import time

import pytest

from mpi_helpers import bin_dir


@pytest.mark.mpi_library
@pytest.mark.parametrize("binary", ["wb-net", "wb-coll", "wb-step"])
def test_a_pmi_server_that_never_answers_ends_in_our_words(binary):
    # A PMI "server" that accepts the rank's connection and says nothing, as a wedged slurmstepd
    # or a process manager behind a firewall would.
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = server.getsockname()[1]
        env = {**os.environ, "PMI_PORT": f"127.0.0.1:{port}", "PMI_RANK": "1", "PMI_SIZE": "2",
               "WB_INIT_TIMEOUT": "1"}  # the server never answers: the deadline is the only way out
        started = time.monotonic()
        result = subprocess.run([str(bin_dir() / binary)], env=env, capture_output=True, text=True, timeout=60)
        elapsed = time.monotonic() - started
    assert result.returncode == 2, result.stderr
    assert elapsed < 30, "ended by the 1 s deadline, not by something else"
    assert "error: rank 1 on " in result.stderr and "MPI_Init did not return within 1 s (WB_INIT_TIMEOUT)" in result.stderr
    assert f"mpiexec (Hydra, PMI at 127.0.0.1:{port})" in result.stderr, result.stderr


def test_a_bad_init_timeout_is_said_and_the_default_kept():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        env = {**os.environ, "PMI_PORT": f"127.0.0.1:{server.getsockname()[1]}", "PMI_RANK": "0", "PMI_SIZE": "2",
               "WB_INIT_TIMEOUT": "soon"}
        process = subprocess.Popen([str(bin_dir() / "wb-net")], env=env, stderr=subprocess.PIPE, text=True)
        time.sleep(1)
        process.kill()
        _, stderr = process.communicate(timeout=30)
    assert "WB_INIT_TIMEOUT='soon' is not a whole number of seconds > 0; using 120" in stderr, stderr
