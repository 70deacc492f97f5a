"""The one exit-code policy (issue 54), through the front door: docs/results.md's table agrees with
schema/exit-codes.csv, and each command is held to it on the cases a nightly CI met: an empty run,
a profile with floors not measured, a step that crashed, an output that failed after a FAIL, a file
that is a directory or unreadable, a Python without a package (ctest label: unit)."""
import csv
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
DATA = ROOT / "tests" / "data"
RECORDED = DATA / "recorded-runs"
CODES = {"OK": 0, "FAILED": 1, "INFRASTRUCTURE": 2, "USAGE": 3, "UNJUDGED": 4}


def binary_dir():
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return Path(binary).resolve()


def wirebench(*args, cwd=None, env=None, bin_dir=None, user=()):
    command = [str((bin_dir or binary_dir()) / "wirebench"), *map(str, args)]
    return subprocess.run([*user, *command], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={**os.environ, "WIREBENCH_HISTORY": "", **(env or {})})


def table_of_docs():
    """docs/results.md's exit-code table: {code: (name, precedence)}."""
    text = (ROOT / "docs" / "results.md").read_text()
    section = text[text.index("## Exit codes"):]
    rows = re.findall(r"^\| (\d) \| ([A-Z]+) \| (\d) \|", section, re.M)
    return {int(code): (name, int(rank)) for code, name, rank in rows}


def test_the_docs_table_is_the_schemas_and_the_policys_order():
    text = (ROOT / "schema" / "exit-codes.csv").read_text()
    schema = {int(r["code"]): (r["name"].upper(), int(r["precedence"]))
              for r in csv.DictReader(io.StringIO("".join(l for l in io.StringIO(text) if not l.startswith("#"))))}
    assert table_of_docs() == schema
    from wirebench.contracts.exit_policy import PRECEDENCE, judged_code, worst
    assert [int(c) for c in PRECEDENCE] == [3, 2, 1, 4, 0]
    assert worst(1, 2) == 2 and worst(4, 1) == 1 and worst(0, 4) == 4 and worst(3, 2) == 3
    assert judged_code([]) == 4 and judged_code(["WARN"]) == 0 and judged_code(["NOT JUDGED", "SKIP"]) == 4
    assert judged_code(["PASS"], missing=["a floor"]) == 4 and judged_code(["FAIL", "ERROR"]) == 2


def empty_run(tmp_path):
    run = tmp_path / "empty"
    run.mkdir()
    header = (RECORDED / "vcluster-clean" / "results.csv").read_text().splitlines()[0]
    (run / "results.csv").write_text(header + "\n")
    return run


def test_an_empty_run_is_unjudged_in_report_and_compare(tmp_path):
    """Issue 54: a results.csv with only its header ended 'Nothing judged', exit 0."""
    run = empty_run(tmp_path)
    reported = wirebench("report", run)
    assert reported.returncode == CODES["UNJUDGED"], reported.stdout + reported.stderr
    assert "Nothing judged" in reported.stdout
    compared = wirebench("compare", run, run, "--out", tmp_path / "cmp")
    assert compared.returncode == CODES["UNJUDGED"] and "nothing compared" in compared.stdout


def test_a_profile_with_floors_not_measured_is_unjudged_naming_them(tmp_path):
    """Issue 54: `report RUN --profile h100-sxm-8gpu` with all 5 floors 'not measured' ended
    'Healthy: all 12 judged items pass', exit 0."""
    run = tmp_path / "run"
    shutil.copytree(RECORDED / "vcluster-clean", run, ignore=shutil.ignore_patterns("golden"))
    result = wirebench("report", run, "--profile", "h100-sxm-8gpu")
    assert result.returncode == CODES["UNJUDGED"], result.stdout + result.stderr
    verdict = result.stdout.splitlines()[-1] if "wirebench verdict" in result.stdout.splitlines()[-1] else \
        next(l for l in result.stdout.splitlines() if l.startswith("wirebench verdict"))
    assert "Not healthy: 5 required item(s) not judged: profile h100-sxm-8gpu: floor" in verdict
    assert "Healthy" not in verdict
    assert "Not healthy: 5 required item(s) not judged" in (run / "report.md").read_text()


def test_a_failed_prometheus_write_does_not_hide_a_fail(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(RECORDED / "vcluster-corrupt", run, ignore=shutil.ignore_patterns("golden"))
    target = tmp_path / "metrics.prom"
    target.mkdir()  # its folder exists (checked first); the file cannot be written
    result = wirebench("report", run, "--prometheus", target)
    assert result.returncode == CODES["FAILED"], result.stdout + result.stderr
    assert f"--prometheus {target}: cannot write it" in result.stderr and "(exit code 1)" in result.stderr


def crashing_suite(tmp_path):
    """A bin directory with the real front door and wb-host, and a step that exits 1 having written
    nothing (as a launcher does when its ranks die before their first row)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("wirebench", "wb-host"):
        (bin_dir / name).symlink_to(binary_dir() / name)
    (bin_dir / "crash").write_text("#!/bin/sh\necho 'crashed before writing anything' >&2\nexit 1\n")
    (bin_dir / "crash").chmod(0o755)
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "crashy.yaml").write_text("""name: crashy
steps:
  - name: host memory
    binary: wb-host
    args: [--tests, numa_copy, --benchmark_min_time=0.05]
    timeout: 30
  - name: a step that crashes
    binary: crash
    timeout: 30
""")
    return bin_dir, {"WB_BIN_DIR": str(bin_dir), "WB_SUITES_DIR": str(suites)}


def test_a_suite_whose_step_crashes_is_an_error_in_run_and_the_ci_template(tmp_path):
    """Issue 54: a step that exited 1 without a row was taken for data errors already written: the
    run judged what the other steps measured and could exit 0."""
    bin_dir, env = crashing_suite(tmp_path)
    run = wirebench("run", "crashy", "--run-dir", tmp_path / "run", env=env, bin_dir=bin_dir)
    assert run.returncode == CODES["INFRASTRUCTURE"], run.stdout + run.stderr
    assert "step 'a step that crashes' exited with code 1 and wrote no row" in run.stdout
    template = subprocess.run(["bash", str(ROOT / "ci" / "templates" / "slurm-acceptance.sbatch")], capture_output=True,
                              text=True, timeout=300,
                              env={**os.environ, **env, "WB_WIREBENCH": str(bin_dir / "wirebench"), "WB_SUITE": "crashy",
                                   "WB_RUN_DIR": str(tmp_path / "nightly"),
                                   "WIREBENCH_HISTORY": str(tmp_path / "history.sqlite")})
    assert template.returncode == CODES["INFRASTRUCTURE"], template.stdout + template.stderr


@pytest.mark.parametrize("args", [
    ["report", "{dir}"], ["import", "{dir}"], ["topo", "--nvidia-smi-topo", "{dir}"], ["topo", "--nccl-log", "{dir}"],
    ["history", "--history", "{dir}", "list"], ["check", "--no-measure", "--nccl-log", "{dir}"],
])
def test_a_path_is_named_in_the_systems_words(tmp_path, args):
    """Issue 54: `import adir` said 'no such file', `topo --nvidia-smi-topo adir` 'file is empty',
    `report nosuchdir` 'not a directory'."""
    folder, missing = tmp_path / "adir", tmp_path / "nosuch"
    folder.mkdir()
    (folder / "results.csv").write_text("")  # a run directory for report: read as one
    is_dir = args[0] != "report"
    result = wirebench(*[a.replace("{dir}", str(folder if is_dir else missing)) for a in args], cwd=tmp_path)
    assert result.returncode == CODES["USAGE"], result.stdout + result.stderr
    said = f"{folder}: is a directory" if is_dir else f"{missing}: no such file or directory"
    assert said in result.stderr and "Traceback" not in result.stderr


def as_nobody():
    """A command prefix that runs as the unprivileged user nobody, or None where there is none."""
    if os.geteuid() != 0:
        return ()
    if shutil.which("setpriv"):
        return ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups")
    return None


def test_an_unreadable_file_is_permission_denied(tmp_path):
    prefix = as_nobody()
    if prefix is None:
        pytest.skip("no way to run as an unprivileged user here")
    tmp_path.chmod(0o755)
    secret = tmp_path / "secret.txt"
    secret.write_text("GPU0\tX\n")
    secret.chmod(0o000)
    probe = subprocess.run([*prefix, "cat", str(secret)], capture_output=True, text=True)
    if probe.returncode == 0 or "ermission denied" not in probe.stderr:
        pytest.skip(f"the unprivileged user can read the file or cannot run here: {probe.stderr.strip()}")
    # the Python side's readers (import, report, check, history), as that user with the system's python3
    # (root's own python3 may sit where nobody can read it)
    script = ("import sys; from wirebench.contracts.input_files import InputError, readable_file\n"
              "from wirebench.history.store import History\n"
              "for read in (readable_file, History):\n"
              "    try: read(sys.argv[1]); print('read')\n"
              "    except InputError as e: print(e)\n")
    said = subprocess.run([*prefix, "/usr/bin/python3", "-c", script, str(secret)], capture_output=True, text=True,
                          cwd="/", env={**os.environ, "PYTHONPATH": str(ROOT / "python")})
    python_ran = "No module named" not in said.stderr
    if python_ran:
        assert said.stdout.splitlines() == [f"{secret}: permission denied"] * 2, said.stdout + said.stderr
    result = wirebench("topo", "--nvidia-smi-topo", secret, cwd="/", user=prefix)
    if result.returncode == 127 and "error while loading shared libraries" in result.stderr:
        # the binary's MPI library sits where that user cannot read it (PyPI's MPICH under a root-only
        # home): that user cannot start wirebench at all, which says nothing of its readers
        pytest.skip(f"the unprivileged user cannot start the binary here: {result.stderr.strip()}"
                    + ("" if python_ran else f"; nor run the Python readers: {said.stderr.strip()}"))
    assert result.returncode == CODES["USAGE"] and f"{secret}: permission denied" in result.stderr, result.stderr
    if not python_ran:
        pytest.skip(f"the system's python3 cannot run wirebench's readers: {said.stderr.strip()}")


def test_a_python_without_a_package_says_what_to_install(tmp_path):
    """Issue 54: a python3 without the project's packages ended in a ModuleNotFoundError traceback,
    exit 1 (a FAIL's)."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "yaml.py").write_text("raise ModuleNotFoundError(\"No module named 'yaml'\", name='yaml')\n")
    result = wirebench("run", "--list", env={"PYTHONPATH": str(shadow)})
    assert result.returncode == CODES["USAGE"], result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert "no Python module 'yaml'" in line and "python3-yaml" in line and "PyYAML" in line
