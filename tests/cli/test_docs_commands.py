"""Every command the docs print, as printed (issue 44): the ```sh blocks of README.md and docs/*.md
and the `$ ` lines of their examples. Each command is matched by exactly one rule of RULES:

- run: run here with bash, as printed, in a folder laid out as the docs assume a checkout
  (build/default a link to the tree under test, tests/ a link to the repository's, the files a doc
  names copied in from the recorded fixtures); it must end with one of the rule's exit codes and
  never in a Python traceback. An example's printed `wirebench import:` lines must appear in its
  output.
- options: what needs what this machine lacks or takes minutes (a GPU, a Slurm cluster, root's
  virtual cluster, a whole suite): its program exists and takes every option the command gives
  (its --help lists it, or a ci/ script's text names it).
- external: another tool's command (cmake, apt-get, sbatch, srun): every file of this project it
  names exists.

A command no rule matches fails the test: a new documented command says how it is tested here.
(ctest label: unit, through WB_BIN_DIR.)"""
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DATA = ROOT / "tests" / "data"

# The files the docs' examples name, and the recorded ones that stand in for them.
STAND_INS = {
    "saved.txt": DATA / "topo" / "h100-8gpu-8nic.txt",
    "dgx01-topo.txt": DATA / "topo" / "h100-8gpu-8nic.txt",
    "nccl.log": DATA / "nccl" / "multinode-net.log",
    "job.log": DATA / "nccl" / "multinode-net.log",
}

RULES = [  # (pattern matched from the command's start, how, exit codes for run)
    (r"wirebench import all_reduce-cut\.json", "run", (2,)),  # a cut file: its missing sizes are ERRORs
    (r"wirebench import ", "run", (0, 1)),
    (r"build/default/bin/wirebench (topo|place)\b", "run", (0,)),
    # 4: the stand-in run measured none of a --profile's floors (issue 54: never healthy)
    (r"build/default/bin/wirebench report RUN_DIR", "run", (0, 1, 2, 4)),
    (r"build/default/bin/wb-step --what-if", "run", (0,)),
    (r"build/default/bin/wb-net --plan", "run", (0,)),
    (r"mpiexec -n 2 build/default/bin/wb-net( --help)?$", "run", (0,)),
    (r"mpiexec -n 2 build/default/libexec/wirebench/nccl-tests/all_reduce_perf", "run", (0,)),
    (r"exec /opt/wirebench/bin/wirebench check .*--no-measure", "run", (1,)),  # no mlx5_0 here: a FAIL
    (r"/opt/wirebench/bin/wirebench --version", "run", (0,)),
    # minutes of sweeps, 4 or 8 ranks on two cores, a GPU suite: the options only
    (r"mpiexec -n \d+ build/default/bin/wb-(net|coll|step) ", "options", ()),
    (r"build/default/bin/wirebench run ", "options", ()),
    (r"(WIREBENCH_HISTORY=\S+ )?wirebench run ", "options", ()),
    (r"PATH=\S+ exec wirebench check ", "options", ()),
    (r"ci/vcluster ", "options", ()),
    (r"eval \"\$\(ci/vcluster env\)\"", "options", ()),
    (r"ci/(run|test|setup|fuzz|package|deb-check|gpu-bundle|gpu-check|gpu-offline-proof)\b", "options", ()),
    (r"(cmake|ctest|apt-get|sinfo|srun|sbatch|WB_EVERY=\S+ sbatch|WB_APPLY=\S+ sbatch)\b", "external", ()),
    (r"\d+ \d+ \* \* \* ", "external", ()),  # a crontab line
]

# A run rule's command that sweeps with the default sampling (0.5 s a measurement, the spread loop up to
# twice that): run as printed with the least sampling appended. `mpiexec -n 2 wb-net` took 43 s of this
# folder's 195 s that way, on both cores (its ranks poll); its sizes (0 B .. 4 MiB), tests, pair and exit
# code are the printed command's, and the sampling loop is the C++ unit tests' (sampling_test.cpp).
LESS_SAMPLING = {r"mpiexec -n 2 build/default/bin/wb-net$": " --benchmark_min_time=0.01 --max-time 0.02"}


def documented_commands():
    """(doc:line, command) for every command line of a ```sh block and every `$ ` example line, with
    continuations joined and trailing comments dropped."""
    found = []
    for doc in DOCS:
        lines = doc.read_text(encoding="utf-8").splitlines()
        fenced = False
        pending, start = "", 0
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            if stripped.startswith("```"):
                fenced = stripped == "```sh" if not fenced else False
                continue
            example = re.match(r"^\s{4,}\$ (.*)$", line)
            if not (fenced or example):
                continue
            text = example.group(1) if example else stripped
            if not text or text.startswith("#"):
                continue
            if not pending:
                start = number
            if text.endswith("\\"):
                pending += text[:-1] + " "
                continue
            command = re.sub(r"\s+#\s.*$", "", pending + text).strip()
            pending = ""
            found.append((f"{doc.relative_to(ROOT)}:{start}", command, lines[number:number + 12] if example else []))
    return found


COMMANDS = documented_commands()


def rule_of(command):
    matches = [(how, codes) for pattern, how, codes in RULES if re.match(pattern, command)]
    return matches[0] if matches else None


def bin_dir():
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return Path(binary)


@pytest.fixture
def site(tmp_path):
    """A folder laid out as the docs assume: build/default is the tree under test, tests/ the
    repository's, the files the examples name beside them, wirebench on PATH, /opt/wirebench/bin
    read as the tree's bin."""
    build = bin_dir().parent
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "default").symlink_to(build)
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    for name in os.listdir(DATA / "imports"):
        if (DATA / "imports" / name).is_file():  # real/: the real-world inputs, read by their own tests
            shutil.copy(DATA / "imports" / name, tmp_path / name)
    for name, source in STAND_INS.items():
        shutil.copy(source, tmp_path / name)
    shutil.copytree(DATA / "recorded-runs" / "vcluster-clean", tmp_path / "RUN_DIR",
                    ignore=shutil.ignore_patterns("golden"))
    return tmp_path


def test_the_docs_hold_commands_and_each_has_a_rule():
    assert len(COMMANDS) > 60, "the extraction lost the docs' commands"
    orphans = [f"{where}: {command}" for where, command, _ in COMMANDS if rule_of(command) is None]
    assert not orphans, "documented commands no rule of RULES tests:\n" + "\n".join(orphans)


RUN = [(where, command, after) for where, command, after in COMMANDS if (rule_of(command) or ("",))[0] == "run"]
CHECKED = [(where, command) for where, command, _ in COMMANDS if (rule_of(command) or ("",))[0] == "options"]
EXTERNAL = [(where, command) for where, command, _ in COMMANDS if (rule_of(command) or ("",))[0] == "external"]


@pytest.mark.parametrize("where,command,after", RUN, ids=[w for w, _, _ in RUN])
def test_a_documented_command_runs_as_printed(site, where, command, after):
    codes = rule_of(command)[1]
    env = {**os.environ, "PATH": f"{bin_dir()}:{os.environ['PATH']}", "WIREBENCH_HISTORY": ""}
    # /opt/wirebench is the docs' install prefix: here the tree under test stands in for it
    as_run = command.replace("/opt/wirebench/bin/", f"{bin_dir()}/")
    as_run += "".join(more for pattern, more in LESS_SAMPLING.items() if re.match(pattern, command))
    if as_run.startswith("wirebench import "):
        as_run += f" --out {shlex.quote(str(site / ('imported-' + where.replace('/', '_').replace(':', '-'))))}"
    result = subprocess.run(["bash", "-c", as_run], cwd=site, capture_output=True, text=True, timeout=300, env=env)
    said = f"{where}: {command}\nexit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert "Traceback" not in result.stderr, said
    assert result.returncode in codes, said
    for line in after:  # an example's own output lines: what the tool says of each file
        printed = line.strip()
        if not printed:
            break
        if printed.startswith("wirebench import: ") and "row(s)" in printed:
            assert printed in result.stdout, f"{said}\nexpected the printed line: {printed}"


def _programs_and_options(command):
    """[(program path, subcommand or None, [--long options])] of a command as the docs print it: one
    per part of an `&&` chain; what ci/vcluster exec runs is a program of its own."""
    found = []
    for part in command.replace('"$(ci/vcluster env)"', "ci/vcluster env").split("&&"):
        words = shlex.split(part.replace("$PWD/", ""))
        while words and (re.match(r"^\w+=", words[0]) or words[0] in ("exec", "eval")):
            words.pop(0)
        if words[0] == "mpiexec":
            words = words[3:]  # mpiexec -n N
        if words[:2] == ["ci/vcluster", "exec"]:
            found.append(("ci/vcluster", "exec", []))
            words = words[2:]
        program, rest = words[0], words[1:]
        options = [w.split("=", 1)[0] for w in rest if w.startswith("--")]
        found.append((program, rest[0] if rest and not rest[0].startswith("-") else None, options))
    return found


def _help_of(program, sub):
    if program.startswith("ci/"):
        return (ROOT / program).read_text(encoding="utf-8")
    name = Path(program).name
    binary = bin_dir() / name
    assert binary.exists(), f"{program}: no such program in the build tree"
    args = [str(binary)] + ([sub] if name == "wirebench" and sub else []) + ["--help"]
    result = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "Traceback" not in result.stderr, (args, result.stderr)
    return result.stdout + result.stderr


@pytest.mark.parametrize("where,command", CHECKED, ids=[w for w, _ in CHECKED])
def test_a_documented_command_names_a_program_and_options_it_takes(where, command):
    for program, sub, options in _programs_and_options(command):
        if program.startswith("ci/"):
            assert (ROOT / program).exists(), f"{where}: {program} does not exist"
        text = _help_of(program, sub)
        unknown = [o for o in options if o not in text and not o.startswith("--benchmark_")]
        assert not unknown, f"{where}: {command}\n{program} does not take {unknown}"


@pytest.mark.parametrize("where,command", EXTERNAL, ids=[w for w, _ in EXTERNAL])
def test_a_documented_tool_command_names_files_that_exist(where, command):
    for word in shlex.split(command):
        path = word.split("=", 1)[-1]
        if path.startswith("share/wirebench/"):  # an install's data: the source tree holds it
            path = path[len("share/wirebench/"):]
        if re.match(r"^(ci|tests|suites|schema|docs)/", path):
            assert (ROOT / path).exists(), f"{where}: {command}\n{path} does not exist"
        if path.startswith("--preset"):
            continue
    presets = re.findall(r"--preset (\w+)", command)
    known = (ROOT / "CMakePresets.json").read_text()
    assert all(f'"name": "{p}"' in known for p in presets), f"{where}: {command}: a preset CMakePresets.json lacks"
