"""wirebench run's MPI steps with data waiting on the runner's stdin (a pipeline, a CI runner's pipe): mpiexec (Hydra)
forwards its stdin to rank 0, and before session 35 the runner let its launchers inherit its own, so a local 2-rank
wb-net step died of SIGPIPE (`process reading stdin too slowly; can't keep up`) and read ERROR, 3 of 3 with
`yes | wirebench run ...`. The runner gives every step /dev/null."""
import csv
import os
import subprocess

from mpi_helpers import bin_dir

SUITE = """name: local-stdin
description: one local MPI step, with the runner's stdin full
steps:
  - name: point-to-point
    where: always
    binary: wb-net
    ranks: 2
    args: ["--sizes", "1M", "--tests", "bw", "--benchmark_min_time=0.05", "--max-time", "0.3"]
    timeout: 120
"""


def test_a_step_does_not_read_the_runners_stdin(tmp_path):
    (tmp_path / "local.yaml").write_text(SUITE)
    run = subprocess.run([str(bin_dir() / "wirebench"), "run", str(tmp_path / "local.yaml"), "--run-dir",
                          str(tmp_path / "run")], input="y\n" * 200000, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "WIREBENCH_HISTORY": ""})
    log = (tmp_path / "run" / "logs" / "01-wb-net.log").read_text()
    assert "reading stdin too slowly" not in log and "assert (!closed)" not in log, log[-2000:]
    rows = list(csv.DictReader((tmp_path / "run" / "results.csv").open()))
    assert rows and all(row["status"] == "OK" for row in rows), run.stdout[-2000:] + log[-2000:]
    assert run.returncode != 2, run.stdout[-2000:]  # 2: an ERROR (here: the step's, of SIGPIPE)
