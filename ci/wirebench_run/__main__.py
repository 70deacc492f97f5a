"""wirebench run [SUITE] [--run-dir DIR] [--profile NAME|FILE] [--degrade NODE=RATE] [--inject-fault corrupt]
                [--dry-run]

Reads suites/SUITE.yaml (default: default), writes the node's topology.json, runs each step under
its launcher (the template in WB_LAUNCHER, e.g. "srun -n {ranks}"; else srun inside a Slurm
allocation, mpiexec outside one; the virtual cluster's for cluster steps) with a timeout per step and a progress line per step, then
writes suite.json (the suite's expectations) and judges the run (wirebench report). A step that
fails or times out leaves an ERROR row naming it. Exit code: the report's (0 PASS/WARN, 1 FAIL,
2 ERROR), 3 for a bad suite or usage. --degrade and --inject-fault are fault injection, for tests.
A platform profile (--profile, or the suite's `profile:`; suites/profiles/) is checked before anything
runs and stored in the run directory as profile.json, whose floors the report applies.
"""
import argparse
import csv
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml
from wirebench_report.profiles import load_profile
from wirebench_report.results import InputError

ROOT = Path(__file__).resolve().parents[2]
SUITES = Path(os.environ.get("WB_SUITES_DIR", ROOT / "suites"))
BIN = Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "default" / "bin"))
VCLUSTER = ROOT / "ci" / "vcluster"
COLUMNS = ["bench", "case", "backend", "link_class", "src", "dst", "direction", "op", "dtype", "bytes", "ranks",
           "nodes", "iters", "time_us", "time_us_p05", "time_us_p95", "algbw_GBps", "busbw_GBps", "errors", "extra",
           "status", "reason"]


class SuiteError(Exception):
    pass


def load_suite(name):
    path = Path(name) if name.endswith((".yaml", ".yml")) else SUITES / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in SUITES.glob("*.yaml")))
        raise SuiteError(f"{path}: no such suite (known: {known})")
    try:
        suite = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise SuiteError(f"{path}:{mark.line + 1 if mark else 0}: not valid YAML: {error}") from None
    if not isinstance(suite, dict) or not isinstance(suite.get("steps"), list) or not suite["steps"]:
        raise SuiteError(f"{path}: a suite needs a list of steps")
    for number, step in enumerate(suite["steps"], start=1):
        if not isinstance(step, dict) or "binary" not in step or "name" not in step:
            raise SuiteError(f"{path}: step {number} needs a name and a binary")
        if step.get("where", "local") not in ("local", "cluster", "always"):
            raise SuiteError(f"{path}: step {number}: where: must be local, cluster or always")
        ranks = step.get("ranks", 1)
        if not (ranks in ("gpus", "nodes") or isinstance(ranks, int) and ranks >= 1):
            raise SuiteError(f"{path}: step {number}: ranks: must be a whole number >= 1, 'gpus' or 'nodes'")
        if step.get("on_every_node", False) not in (True, False):
            raise SuiteError(f"{path}: step {number}: on_every_node: must be true or false")
        if step.get("on_every_node") and ranks != 1:
            raise SuiteError(f"{path}: step {number}: on_every_node is for one-process steps (ranks: 1)")
        min_nodes = step.get("min_nodes", 1)
        if not (isinstance(min_nodes, int) and not isinstance(min_nodes, bool) and min_nodes >= 1):
            raise SuiteError(f"{path}: step {number}: min_nodes: must be a whole number >= 1")
        env = step.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, (str, int, float))
                                                for k, v in env.items()):
            raise SuiteError(f"{path}: step {number}: env: must map variable names to values")
        if not all(isinstance(a, (str, int, float)) for a in step.get("args", [])):
            raise SuiteError(f"{path}: step {number}: args: must be a list of words")
        if not (BIN / step["binary"]).exists():
            raise SuiteError(f"{path}: step {number}: {BIN / step['binary']} does not exist (build first)")
    rates = cluster_rates(suite.get("cluster") or suite.get("cluster_if_root_without_gpu") or {})
    if len(rates) > 1 and any(e.get("from_cluster_rate") for e in suite.get("expectations", []) or []):
        raise SuiteError(f"{path}: from_cluster_rate needs one cluster rate, not {len(rates)}")
    return path, suite


def list_suites_and_profiles():
    from wirebench_report.profiles import PROFILES
    print(f"suites ({SUITES}):")
    for path in sorted(SUITES.glob("*.yaml")):
        try:
            suite = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError:
            suite = {"description": "(not valid YAML)"}
        print(f"  {path.stem:<14} {suite.get('description', '') if isinstance(suite, dict) else ''}")
    print(f"platform profiles ({PROFILES}), for --profile:")
    for path in sorted(PROFILES.glob("*.yaml")):
        try:
            profile = load_profile(str(path))
            print(f"  {profile.name:<14} {profile.description} ({len(profile.floors)} floors)")
        except InputError as error:
            print(f"  {path.stem:<14} (unreadable: {error})")
    return 0


def cluster_rates(cluster):
    """A cluster's link rates in Mbit/s: one, or a list (the same steps on each wiring in turn)."""
    rate = cluster.get("rate_mbit", 1000)
    return [int(r) for r in rate] if isinstance(rate, list) else [int(rate)]


def with_rate(step, rate):
    """The step with {rate_mbit} in its arguments replaced by the wiring it runs on."""
    return dict(step, args=[str(a).replace("{rate_mbit}", str(rate)) for a in step.get("args", [])])


def chosen_cluster(suite):
    """The virtual cluster this run brings up: the suite's `cluster` always; its
    `cluster_if_root_without_gpu` when run as root where no GPU is visible (so the network
    benchmarks get links with a real ceiling); none otherwise."""
    if suite.get("cluster"):
        return suite["cluster"]
    fallback = suite.get("cluster_if_root_without_gpu")
    if fallback and os.geteuid() == 0 and not Path("/dev/nvidia0").exists():
        return fallback
    return None


def selected_steps(suite, cluster):
    """A step with `where: cluster` runs only on a virtual cluster, `where: local` only without one,
    `where: always` in both cases (locally); without `where` a step runs on the cluster of a
    cluster suite, locally otherwise. (Not `on:`: YAML 1.1 reads that key as true.)"""
    chosen = []
    for step in suite["steps"]:
        where = step.get("where", "cluster" if suite.get("cluster") else "local")
        if where == "cluster" and cluster or where == "local" and not cluster or where == "always":
            chosen.append(dict(step, where=where))
    return chosen


def gpu_count():
    """GPUs visible on this node, at least 1."""
    return max(1, len([p for p in Path("/dev").glob("nvidia[0-9]*")]))


def gpu_ranks():
    """`ranks: gpus` in a suite: one rank per GPU of the job. Inside a Slurm allocation that is
    its task count (the templates ask for a task per GPU on every node); elsewhere this node's."""
    tasks = os.environ.get("SLURM_NTASKS", "")
    if os.environ.get("SLURM_JOB_ID") and tasks.isdigit() and int(tasks) > 0:
        return int(tasks)
    return gpu_count()


def slurm_nodes():
    nodes = os.environ.get("SLURM_JOB_NUM_NODES", "")
    return int(nodes) if os.environ.get("SLURM_JOB_ID") and nodes.isdigit() and int(nodes) > 0 else 1


def step_ranks(step):
    """`gpus`: one rank per GPU of the job; `nodes`: one rank per node of the job (a Slurm
    allocation's; one outside Slurm); else the number given."""
    ranks = step.get("ranks", 1)
    if ranks == "gpus":
        return gpu_ranks()
    if ranks == "nodes":
        return slurm_nodes()
    return int(ranks)


def step_env(step):
    """The step's own environment variables (e.g. NCCL_ALGO=Ring: one more wiring to measure)."""
    return {name: str(value) for name, value in step.get("env", {}).items()}


def launcher(step, cluster):
    ranks = step_ranks(step)
    template = os.environ.get("WB_LAUNCHER")
    if cluster and step.get("where") == "cluster":
        return [str(VCLUSTER), "exec"]
    if template and ranks > 1:
        command = shlex.split(template.format(ranks=ranks))
    elif ranks > 1 and os.environ.get("SLURM_JOB_ID"):
        command = ["srun", f"--ntasks={ranks}"]  # inside an allocation, Slurm's own launcher
    elif ranks > 1:
        command = ["mpiexec", "-n", str(ranks)]
    else:
        return []
    if step.get("ranks") == "nodes":  # one rank on each node: the pairs cross the network
        name = Path(command[0]).name
        command += ["--ntasks-per-node=1"] if name == "srun" else ["-ppn", "1"] if name == "mpiexec" else []
    return command


def write_topology(run_dir):
    """topology.json: every node's when the job spans several Slurm nodes (one `wirebench topo` per
    node through srun, merged), else this node's. The ceilings between nodes take the slower end."""
    out = run_dir / "topology.json"
    nodes = slurm_nodes()
    if nodes > 1:
        pattern = run_dir / "logs" / "topology-%N.json"
        command = ["srun", f"--nodes={nodes}", f"--ntasks={nodes}", "--ntasks-per-node=1", f"--output={pattern}",
                   str(BIN / "wirebench"), "topo", "--json"]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=300)
            failure = result.stderr.strip() if result.returncode != 0 else ""
        except (OSError, subprocess.TimeoutExpired) as error:
            failure = str(error)
        docs = []
        for path in sorted((run_dir / "logs").glob("topology-*.json")):
            try:
                docs.append(json.loads(path.read_text()))
            except json.JSONDecodeError as error:
                failure = f"{path}:{error.lineno}: {error.msg}"
        if docs and not failure:
            merged = {"schema_version": docs[0].get("schema_version", 1),
                      "nodes": [node for doc in docs for node in doc.get("nodes", [])],
                      "typical_latency_us": docs[0].get("typical_latency_us", [])}
            out.write_text(json.dumps(merged, indent=2) + "\n")
            return len(merged["nodes"])
        print(f"wirebench run: warning: could not read every node's topology ({failure or 'no output'}); "
              f"this node's only", file=sys.stderr, flush=True)
    with out.open("w") as stream:
        subprocess.run([str(BIN / "wirebench"), "topo", "--json"], stdout=stream, check=False)
    return 1


def too_few_nodes(step):
    """Why a step cannot run in this job (it needs more nodes than the job has), or None."""
    needed, have = step.get("min_nodes", 1), slurm_nodes()
    return f"needs at least {needed} nodes; this job has {have}" if have < needed else None


def error_row(run_dir, step, reason, status="ERROR"):
    """The step's failure (or, with status SKIP, why it did not run) in results.csv, so the report
    names it."""
    path = run_dir / "results.csv"
    new = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="") as out:
        writer = csv.DictWriter(out, COLUMNS)
        if new:
            writer.writeheader()
        writer.writerow({**{c: "" for c in COLUMNS}, "bench": step["binary"].removeprefix("wb-"), "case": step["name"],
                         "backend": "run", "bytes": 0, "ranks": step_ranks(step), "nodes": 1, "iters": 0,
                         "errors": "", "status": status, "reason": reason})


# A one-process step on every node of a Slurm job: each writes into RUN_DIR/nodes/<node>.
NODE_WRAPPER = 'exec "$0" "$@" --run-dir "$WB_NODE_RUN_DIRS/${SLURMD_NODENAME:-$(hostname)}"'


def on_every_node(step):
    return bool(step.get("on_every_node")) and slurm_nodes() > 1


def step_command(step, cluster, run_dir=None, extra_args=()):
    """The step's command line (without --run-dir when run_dir is None: the dry run's)."""
    program = [str(BIN / step["binary"]), *map(str, step.get("args", [])), *extra_args]
    if on_every_node(step):
        nodes = slurm_nodes()
        return ["srun", f"--nodes={nodes}", f"--ntasks={nodes}", "--ntasks-per-node=1", "bash", "-c", NODE_WRAPPER,
                *program]
    return launcher(step, cluster) + program + (["--run-dir", str(run_dir)] if run_dir else [])


def merge_node_results(run_dir):
    """Appends the complete rows of every RUN_DIR/nodes/*/results.csv to RUN_DIR/results.csv (a row
    cut by a crash stays behind, in its node's file)."""
    path = run_dir / "results.csv"
    for node_file in sorted((run_dir / "nodes").glob("*/results.csv")):
        lines = node_file.read_text().split("\n")[:-1]  # the last piece is empty, or a cut row
        if len(lines) < 2:
            continue
        new = not path.exists() or path.stat().st_size == 0
        with path.open("a") as out:
            out.write("\n".join(lines if new else lines[1:]) + "\n")
        node_file.rename(node_file.with_name("results.merged.csv"))  # merged once, kept for reference


def run_step(number, total, step, run_dir, cluster, extra_args, started):
    if too_few_nodes(step):
        print(f"[{number}/{total}] {step['name']}: skipped, {too_few_nodes(step)}", flush=True)
        error_row(run_dir, step, f"step '{step['name']}' {too_few_nodes(step)}", status="SKIP")
        return 0
    command = step_command(step, cluster, run_dir, extra_args)
    timeout = float(step.get("timeout", 600))
    print(f"[{number}/{total}] {step['name']}: {step['binary']} ({time.time() - started:.0f} s elapsed)", flush=True)
    log = run_dir / "logs" / f"{number:02d}-{step['binary']}.log"
    env = step_env(step)
    with log.open("w") as out:
        out.write("$ " + shlex.join([f"{k}={v}" for k, v in env.items()] + command) + "\n")
        out.flush()
        if on_every_node(step):
            env["WB_NODE_RUN_DIRS"] = str((run_dir / "nodes").resolve())
            (run_dir / "nodes").mkdir(exist_ok=True)
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                   env={**os.environ, **env})
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            if on_every_node(step):
                merge_node_results(run_dir)
            error_row(run_dir, step, f"step '{step['name']}' did not finish within {timeout:.0f} s (see {log})")
            return 2
    if on_every_node(step):
        merge_node_results(run_dir)
    if code not in (0, 1):  # 1 is data errors, already in the rows
        error_row(run_dir, step, f"step '{step['name']}' exited with code {code} (see {log})")
    return code


def expectations(suite, cluster_rate_mbit):
    out = []
    for item in suite.get("expectations", []) or []:
        entry = dict(item)
        if entry.pop("from_cluster_rate", False):
            entry["ceiling_GBps"] = cluster_rate_mbit / 8000.0
            entry["reason"] = f"the virtual cluster's links are shaped to {cluster_rate_mbit} Mbit/s"
        out.append(entry)
    return out


def main(argv):
    parser = argparse.ArgumentParser(prog="wirebench run")
    parser.add_argument("suite", nargs="?", default="default")
    parser.add_argument("--run-dir", type=Path)
    parser.add_argument("--profile", help="platform profile: a name in suites/profiles or a file")
    parser.add_argument("--degrade", help="fault injection: NODE=RATE for one node's link (cluster suites)")
    parser.add_argument("--inject-fault", choices=["corrupt"], help="fault injection: a planted wrong byte")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    parser.add_argument("--list", action="store_true", help="the suites and platform profiles there are")
    try:
        args = parser.parse_args(argv[1:])
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else 3
    if args.list:
        return list_suites_and_profiles()
    try:
        path, suite = load_suite(args.suite)
    except SuiteError as error:
        print(f"error: {error} (exit code 3)", file=sys.stderr)
        return 3
    profile = None
    if args.profile or suite.get("profile"):
        try:
            profile = load_profile(args.profile or str(suite["profile"]))
        except InputError as error:
            print(f"error: {error} (exit code 3)", file=sys.stderr)
            return 3
    run_dir = args.run_dir or Path("runs") / time.strftime(f"{suite.get('name', 'run')}-%Y%m%dT%H%M%SZ", time.gmtime())
    cluster = chosen_cluster(suite)
    rates = cluster_rates(cluster) if cluster else [0]
    # (rate, step) in the order they run: cluster steps on every wiring, the others once.
    plan = [(rate, with_rate(step, rate)) for index, rate in enumerate(rates)
            for step in selected_steps(suite, cluster) if step["where"] == "cluster" or index == 0]
    if args.dry_run:
        for rate, step in plan:
            if too_few_nodes(step):
                print(f"# {step['name']}: skipped, {too_few_nodes(step)}")
                continue
            env = [f"{k}={v}" for k, v in step_env(step).items()]
            print(shlex.join(env + step_command(step, cluster)))
        return 0
    (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    started = time.time()
    print(f"wirebench run: suite {suite.get('name')} ({path}) into {run_dir}"
          f"{f', profile {profile.name}' if profile else ''}", flush=True)
    if profile:
        (run_dir / "profile.json").write_text(json.dumps(profile.as_json(), indent=2) + "\n")
    write_topology(run_dir)
    extra = ["--inject-fault", "corrupt"] if args.inject_fault else []
    current = None  # the rate the virtual cluster is up at
    try:
        for number, (rate, step) in enumerate(plan, start=1):
            if cluster and rate != current:
                up = [str(VCLUSTER), "up", "--nodes", str(cluster.get("nodes", 2)), "--ranks",
                      str(cluster.get("ranks", 1)), "--rate", f"{rate}mbit"]
                if args.degrade:
                    node, _, degraded = args.degrade.partition("=")
                    up += ["--degrade", f"{node}={degraded}"]
                result = subprocess.run(up, capture_output=True, text=True)
                if result.returncode != 0:
                    print(f"error: the virtual cluster did not come up: {result.stderr.strip()} (exit code 2)",
                          file=sys.stderr)
                    return 2
                current = rate
                if len(rates) > 1:
                    print(f"wirebench run: virtual cluster links at {rate} Mbit/s", flush=True)
            run_step(number, len(plan), step, run_dir, cluster, extra, started)
    finally:
        if cluster:
            subprocess.run([str(VCLUSTER), "down"], capture_output=True)
    (run_dir / "suite.json").write_text(json.dumps({"name": suite.get("name"), "source": str(path),
                                                    "expectations": expectations(suite, rates[0])}, indent=2) + "\n")
    print(f"wirebench run: measured in {time.time() - started:.0f} s; judging", flush=True)
    report = subprocess.run([str(BIN / "wirebench"), "report", str(run_dir)])
    return report.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
