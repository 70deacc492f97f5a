"""`wirebench report RUN | head -2` ended in a BrokenPipeError traceback and exit code 1 (a FAIL's)
whatever the verdict: a command whose reader closes its output early now ends quietly, with the exit
code its verdict gives, and still does what it does after printing (the history's run added), through
the front door and `python3 -m wirebench.*` alike (contracts/console.py; ctest label: unit)."""
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
RECORDED = DATA / "recorded-runs"


def front_door():
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return [str(Path(binary).resolve() / "wirebench")]


def python_module():
    return [sys.executable, "-m", "wirebench"]


def environment(buffered):
    """The test's environment without a history; buffered: stdout block-buffered (a plain shell),
    so the lines reach the pipe in one write at exit; else PYTHONUNBUFFERED (each print at once)."""
    env = {**os.environ, "WIREBENCH_HISTORY": "", "PYTHONPATH": str(ROOT / "python")}
    env.pop("PYTHONUNBUFFERED", None)
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def into_closed_pipe(command, buffered=True, stderr_too=False):
    """Runs `command` with stdout a pipe whose reader has already gone (`| head -0`, or a head that
    read its lines before the command wrote): its first write fails, every time. With stderr_too,
    stderr is the same pipe (`2>&1 | head`)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(command, stdout=write_end, stderr=write_end if stderr_too else subprocess.PIPE,
                                text=True, timeout=300, env=environment(buffered))
    finally:
        os.close(write_end)
    return result.returncode, result.stderr or ""


def closed_after_one_line(command):
    """Runs `command` into a pipe of one page (4 KiB) that is read up to its first newline and then
    closed, as `| head -1` does: a command that prints more than the pipe holds is still writing
    then, so it meets the closed pipe whatever the timing. Returns (first line, exit code, stderr)."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)  # the smallest pipe Linux makes: one page
    process = subprocess.Popen(command, stdout=write_end, stderr=subprocess.PIPE, text=True, env=environment(True))
    os.close(write_end)
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(read_end, 1)
        assert byte, f"{command} ended before a first line"
        line += byte
    os.close(read_end)
    _, stderr = process.communicate(timeout=300)
    return line.decode(), process.returncode, stderr


def run_copy(tmp_path, name):
    run = tmp_path / name
    shutil.copytree(RECORDED / name, run, ignore=shutil.ignore_patterns("golden"))
    return run


def quiet(stderr):
    return "Traceback" not in stderr and "BrokenPipe" not in stderr and "Exception ignored" not in stderr


# The front door execs `python3 -m wirebench`: the same process meets the pipe either way, so each door
# is tried once, one where the lines reach the pipe at exit and one where each print does.
@pytest.mark.parametrize("door,buffered", [(front_door, True), (python_module, False)],
                         ids=["front-door-buffered", "python-m-unbuffered"])
def test_report_into_a_closed_pipe_ends_with_its_verdicts_code_and_adds_the_history(tmp_path, door, buffered):
    """vcluster-corrupt's verdict is a FAIL (1): the closed pipe ended it with 1 by a traceback, and
    before the history was written; now 1 for its FAIL, and the run is in the history."""
    run = run_copy(tmp_path, "vcluster-corrupt")
    history = tmp_path / "history.sqlite"
    code, stderr = into_closed_pipe([*door(), "report", run, "--history", history], buffered)
    assert code == 1 and quiet(stderr), stderr
    assert (run / "summary.json").is_file() and (run / "report.md").is_file()
    listed = subprocess.run([*door(), "history", "--history", history, "list"], capture_output=True, text=True,
                            timeout=300, env=environment(True))
    assert listed.returncode == 0 and "1 run(s)" in listed.stdout, listed.stdout + listed.stderr
    code, stderr = into_closed_pipe([*door(), "history", "--history", history, "list"], buffered)
    assert code == 0 and quiet(stderr), stderr


def test_report_with_stderr_into_the_same_closed_pipe_ends_with_its_verdicts_code(tmp_path):
    """`wirebench report RUN 2>&1 | head`: vcluster-cut is an ERROR (2) whose problem line goes to
    stderr, the same closed pipe; the code is still the ERROR's."""
    run = run_copy(tmp_path, "vcluster-cut")
    code, _ = into_closed_pipe([*python_module(), "report", run], stderr_too=True)
    assert code == 2


def test_import_into_a_closed_pipe_ends_with_its_verdicts_code(tmp_path):
    """nccl-tests' output with a slow all_reduce, held to NVLink's 370 GB/s, is a FAIL (1); into a
    closed pipe still 1, no traceback, the run directory written."""
    command = [*python_module(), "import", DATA / "imports" / "all_reduce_perf-slow.txt", "--link-class", "nvlink",
               "--rate", "370", "--out", tmp_path / "imported"]
    code, stderr = into_closed_pipe(command)
    assert code == 1 and quiet(stderr), stderr
    assert (tmp_path / "imported" / "summary.json").is_file()


def test_diagnosis_closed_after_one_line_ends_quietly():
    """The diagnosis' JSON of a long NCCL log (60 KB, its findings FAILs) into `| head -1`: its first
    line, then its verdict's exit code (1, as `wirebench topo --nccl-log` ends) and no traceback."""
    log = DATA / "nccl" / "warn-lines-from-threads.log"  # its JSON is 60 KB, many times the pipe
    assert log.stat().st_size > 4 * 4096  # the JSON quotes its lines: a short log would fit the pipe
    line, code, stderr = closed_after_one_line([sys.executable, "-m", "wirebench.diagnosis", log])
    assert line == "{\n" and code == 1 and quiet(stderr), stderr
