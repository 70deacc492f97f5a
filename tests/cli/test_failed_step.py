"""A step that fails explains itself: its ERROR names the step, the binary, the ranks and the nodes,
quotes the first fatal line of its log, and gives a command that reruns it as printed (ctest label:
unit; the real `wirebench run` on 2 local MPI ranks)."""
import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from wirebench.run.run_files import failure_words  # noqa: E402

# MPICH refuses, inside MPI_Init, an algorithm it does not know: a real fatal line from the library.
SUITE = """name: broken
steps:
  - name: point-to-point that cannot start
    where: always
    binary: wb-net
    ranks: 2
    env: {MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM: no_such_algorithm}
    args: ["--sizes", "8", "--tests", "latency", "--timeout", "20"]
    timeout: 120
"""


def wirebench(*args, cwd=None):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


@pytest.mark.parametrize("log_text,said", [
    ("$ mpiexec ...\nAbort(1090831) on node 0: Fatal error in internal_Init_thread: Other MPI error\n",
     'MPI said: "Abort(1090831) on node 0: Fatal error in internal_Init_thread: Other MPI error"'),
    ("$ srun ...\n[1701] UCX  ERROR failed to unpack address\n",
     'UCX said: "[1701] UCX  ERROR failed to unpack address"'),
    ("$ srun ...\nslurmstepd: error: mpi/pmi2: value not properly terminated in client request\n",
     'PMI said: "slurmstepd: error: mpi/pmi2: value not properly terminated in client request"'),
    ("$ x\nhost:1:2 [0] NCCL WARN NET/IB : Got completion from peer with error 12\n", "NCCL said"),
    ("$ x\nsome words\nthe last words\n", 'the log\'s last line: "the last words"'),
    ("$ x\nerror: rank 1 on node1: MPI all_reduce did not complete within 8.0 s\nFatal error in MPI\n",
     "rank 1 on node1: MPI all_reduce did not complete within 8.0 s"),  # wirebench's own words first
])
def test_failure_words_quote_the_first_fatal_line_and_its_author(tmp_path, log_text, said):
    log = tmp_path / "step.log"
    log.write_text(log_text)
    assert said in failure_words(log)


def test_a_failed_step_names_itself_and_reruns_as_printed(tmp_path):
    suite = tmp_path / "broken.yaml"
    suite.write_text(SUITE)
    run_dir = tmp_path / "run"
    result = wirebench("run", str(suite), "--run-dir", str(run_dir), cwd=tmp_path)
    console = result.stdout + result.stderr
    assert result.returncode == 2, console
    error = next(line for line in console.splitlines() if line.lstrip().startswith("ERROR "))
    assert f"ERROR step 'point-to-point that cannot start': wb-net, 2 rank(s) on {socket.gethostname()}" in error, error
    report = (run_dir / "report.md").read_text()
    why = next(line for line in report.splitlines() if line.startswith("  - why:"))
    assert "exited with code" in why and 'MPI said: "' in why and "Fatal error in internal_Init_thread" in why, why
    look = next(line for line in report.splitlines() if line.startswith("  - look closer:"))
    assert "--sizes 0" not in look and "--backend run" not in look and " and ;" not in look, look
    rerun = look.split("rerun it as it ran: ", 1)[1].split("; its log: ")[0]
    rerun = rerun.replace("\\", "")  # report.md escapes Markdown; the console prints it bare
    words = shlex.split(rerun)
    assert words[0] == "env" and words[1] == "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=no_such_algorithm", words
    assert Path(words[2]).name == "mpiexec" and "wb-net" in Path(words[words.index("-n") + 2]).name, words
    # as printed, from another folder: the same failure, the same fatal line
    again = subprocess.run(rerun, shell=True, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert again.returncode != 0
    assert "no_such_algorithm" in again.stdout + again.stderr or "Fatal error" in again.stdout + again.stderr
