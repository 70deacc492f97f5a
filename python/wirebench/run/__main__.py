"""wirebench run [SUITE] [--run-dir DIR] [--profile NAME|FILE] [--degrade NODE=RATE|NODE.railR=RATE ...]
                [--degrade-path A-B=RATE ...] [--miswire NODE.railR=railK ...] [--inject-fault corrupt|slow]
                [--dry-run]

Reads suites/SUITE.yaml (default: default), writes the node's topology.json, runs each step under
its launcher (the template in WB_LAUNCHER, e.g. "srun -n {ranks}"; else srun inside a Slurm
allocation, mpiexec outside one; the virtual cluster's for cluster steps) with a timeout per step and a progress line per step, then
writes suite.json (the suite's expectations) and judges the run (wirebench report). A step that
fails, times out or ends without writing a row leaves an ERROR row naming it. Exit code: the
report's (docs/results.md, "Exit codes": 2 ERROR, 1 FAIL, 4 nothing judged or a profile floor not
measured, 0 PASS/WARN), 3 for a bad suite or usage. --degrade, --degrade-path, --miswire and --inject-fault are fault
injection, for tests (--inject-fault slow applies to the first measurement only: a fault that does not
reproduce).
Before the report, every item that FAILed on its figure is measured once more, into RUN_DIR/remeasured
(its step again, as the item's rerun says: its test, size, backend, collective; run/remeasure.py): the
report calls a FAIL that does not reproduce an intermittent WARN, with both figures.
A platform profile (--profile, or the suite's `profile:`; suites/profiles/) is checked before anything
runs and stored in the run directory as profile.json, whose floors the report applies.
"""
import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from wirebench.report.profiles import load_profile
from wirebench.contracts.exit_policy import CommandError, entry, fail
from wirebench.contracts.schema import ExitCode

from .paths import BIN, VCLUSTER
from .placement import on_every_node, step_command, step_env, step_nodes, step_ranks, too_few_nodes
from .remeasure import failing_steps
from .run_files import error_row, failure_words, merge_node_results, row_count, write_topology
from .screen_step import ADAPTIVE_MIN_NODES, adaptive_problem, is_adaptive, run_adaptive_step
from .switches import job_nodes, leaf_switches
from .suite import (SuiteError, chosen_cluster, cluster_rates, expectations, list_suites_and_profiles, load_suite,
                    ranks_per_node, selected_steps, with_rate)


def run_step(number, total, step, run_dir, cluster, extra_args, started, log_suffix=""):
    if too_few_nodes(step):
        print(f"[{number}/{total}] {step['name']}: skipped, {too_few_nodes(step)}", flush=True)
        error_row(run_dir, step, f"step '{step['name']}' {too_few_nodes(step)}", status="SKIP")
        return ExitCode.OK
    command = step_command(step, cluster, run_dir, extra_args)
    timeout = float(step.get("timeout", 600))
    before = row_count(run_dir)
    print(f"[{number}/{total}] {step['name']}: {step['binary']} ({time.time() - started:.0f} s elapsed)", flush=True)
    log = run_dir / "logs" / f"{number:02d}-{step['binary']}{'-' + log_suffix if log_suffix else ''}.log"
    env = step_env(step)
    rerun = ["env", *[f"{k}={v}" for k, v in env.items()], *command] if env else command
    with log.open("w") as out:
        out.write("$ " + shlex.join([f"{k}={v}" for k, v in env.items()] + command) + "\n")
        out.flush()
        if on_every_node(step):
            env["WB_NODE_RUN_DIRS"] = str((run_dir / "nodes").resolve())
            (run_dir / "nodes").mkdir(exist_ok=True)
        # stdin from /dev/null: mpiexec (Hydra) and srun forward theirs to rank 0, and a launcher still forwarding
        # when the ranks end fails the job after every row was written (bench/MEASUREMENTS.md, session 35)
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True, env={**os.environ, **env})
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            if on_every_node(step):
                merge_node_results(run_dir)
            error_row(run_dir, step, f"step '{step['name']}' did not finish within {timeout:.0f} s (see {log})",
                      command=rerun, nodes=step_nodes(step, cluster), log=log)
            return ExitCode.INFRASTRUCTURE
    if on_every_node(step):
        merge_node_results(run_dir)
    if code not in (ExitCode.OK, ExitCode.FAILED):  # 1 is data errors, already in the rows
        why = failure_words(log)
        print(f"[{number}/{total}] {step['name']}: failed (exit code {code}): {why}", flush=True)
        error_row(run_dir, step, f"step '{step['name']}' exited with code {code}: {why} (see {log})",
                  command=rerun, nodes=step_nodes(step, cluster), log=log)
    elif row_count(run_dir) == before:  # a required step that measured nothing: never a silent pass
        why = failure_words(log)
        print(f"[{number}/{total}] {step['name']}: wrote no row (exit code {code}): {why}", flush=True)
        error_row(run_dir, step, f"step '{step['name']}' exited with code {code} and wrote no row: {why} (see {log})",
                  command=rerun, nodes=step_nodes(step, cluster), log=log)
        return ExitCode.INFRASTRUCTURE
    return code


def write_suite_json(run_dir, suite, path, rate):
    (run_dir / "suite.json").write_text(json.dumps({"name": suite.get("name"), "source": str(path),
                                                    "expectations": expectations(suite, rate)}, indent=2) + "\n")


@entry
def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `wirebench run --list | head` ends quietly
    parser = argparse.ArgumentParser(prog="wirebench run")
    parser.add_argument("suite", nargs="?", default="default")
    parser.add_argument("--run-dir", type=Path)
    parser.add_argument("--profile", help="platform profile: a name in suites/profiles or a file")
    parser.add_argument("--degrade", action="append", default=[], metavar="NODE=RATE",
                        help="fault injection: NODE=RATE for one node's link, NODE.railR=RATE for one NIC of a "
                             "suite with rails (cluster suites; repeatable)")
    parser.add_argument("--miswire", action="append", default=[], metavar="NODE.railR=railK",
                        help="fault injection: a NIC cabled to another rail's switch (cluster suites with rails; "
                             "repeatable)")
    parser.add_argument("--degrade-path", action="append", default=[], metavar="A-B=RATE",
                        help="fault injection: the path between nodes A and B only, both ways (cluster suites; repeatable)")
    parser.add_argument("--inject-fault", choices=["corrupt", "slow"],
                        help="fault injection: a planted wrong byte, or wb-net batches at half speed")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    parser.add_argument("--list", action="store_true", help="the suites and platform profiles there are")
    args = parser.parse_args(argv[1:])
    if args.list:
        return list_suites_and_profiles()
    try:
        path, suite = load_suite(args.suite)
    except SuiteError as error:
        raise CommandError(str(error)) from None
    profile = None
    if args.profile or suite.get("profile"):
        profile = load_profile(args.profile or str(suite["profile"]))
    run_dir = args.run_dir or Path("runs") / time.strftime(f"{suite.get('name', 'run')}-%Y%m%dT%H%M%SZ", time.gmtime())
    cluster = chosen_cluster(suite)
    rates = cluster_rates(cluster) if cluster else [0]
    # (rate, step) in the order they run: cluster steps on every wiring, the others once.
    plan = [(rate, with_rate(step, rate)) for index, rate in enumerate(rates)
            for step in selected_steps(suite, cluster) if step["where"] == "cluster" or index == 0]
    for number, (_, step) in enumerate(plan, start=1):
        problem = is_adaptive(step) and adaptive_problem(step, cluster if step["where"] == "cluster" else None)
        if problem:
            raise CommandError(f"{path}: step '{step['name']}': {problem}")
    if args.dry_run:
        for rate, step in plan:
            if too_few_nodes(step):
                print(f"# {step['name']}: skipped, {too_few_nodes(step)}")
                continue
            if is_adaptive(step):
                print(f"# {step['name']}: an adaptive screen: each round is the command below with --pairs A-B,... "
                      "--round N, the pairs chosen from the last round's figures")
            env = [f"{k}={v}" for k, v in step_env(step).items()]
            print(shlex.join(env + step_command(step, cluster)))
        return ExitCode.OK
    (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    started = time.time()
    print(f"wirebench run: suite {suite.get('name')} ({path}) into {run_dir}"
          f"{f', profile {profile.name}' if profile else ''}", flush=True)
    if profile:
        (run_dir / "profile.json").write_text(json.dumps(profile.as_json(), indent=2) + "\n")
    write_topology(run_dir)
    write_suite_json(run_dir, suite, path, rates[0])  # before the steps: an adaptive screen judges as it goes
    extra = ["--inject-fault", args.inject_fault] if args.inject_fault else []
    current = None  # the rate the virtual cluster is up at
    lines = []  # results.csv's row lines each step wrote: (first, last)
    codes = []  # each step's exit code

    def bring_up(rate):
        nonlocal current
        if cluster and rate != current:
            up = [str(VCLUSTER), "up", "--nodes", str(cluster.get("nodes", 2)), "--ranks",
                  str(ranks_per_node(cluster)), "--rate", f"{rate}mbit"]
            if int(cluster.get("rails", 1)) > 1:
                up += ["--rails", str(cluster["rails"])]
            for spec in args.degrade:
                up += ["--degrade", spec]
            for spec in args.miswire:
                up += ["--miswire", spec]
            for path_spec in args.degrade_path:
                up += ["--degrade-path", path_spec]
            result = subprocess.run(up, capture_output=True, text=True)
            if result.returncode != 0:
                fail(f"the virtual cluster did not come up: {result.stderr.strip()}", ExitCode.INFRASTRUCTURE)
                return False
            current = rate
            if len(rates) > 1:
                print(f"wirebench run: virtual cluster links at {rate} Mbit/s", flush=True)
        return True

    try:
        for number, (rate, step) in enumerate(plan, start=1):
            if not bring_up(rate):
                return ExitCode.INFRASTRUCTURE
            before = row_count(run_dir)
            if is_adaptive(step):
                def run_round(one, suffix, number=number):
                    return run_step(number, len(plan), one, run_dir, cluster, extra, started, log_suffix=suffix)
                on_cluster = cluster and step["where"] == "cluster"
                per_node = ranks_per_node(cluster) if on_cluster else 1
                ranks = int(cluster.get("nodes", 2)) * per_node if on_cluster else step_ranks(step)
                nodes = [] if on_cluster else job_nodes()
                if ranks // per_node < ADAPTIVE_MIN_NODES:  # a SKIP row that says why, as too_few_nodes does
                    why = (f"needs at least {ADAPTIVE_MIN_NODES} nodes (an adaptive screen: two cannot tell a node "
                           f"from its path); this job has {ranks // per_node}")
                    print(f"[{number}/{len(plan)}] {step['name']}: skipped, {why}", flush=True)
                    error_row(run_dir, step, f"step '{step['name']}' {why}", status="SKIP")
                else:
                    codes.append(run_adaptive_step(number, len(plan), step, run_dir, ranks, run_round, nodes,
                                                   leaf_switches() if nodes else {}, per_node=per_node))
            else:
                codes.append(run_step(number, len(plan), step, run_dir, cluster, extra, started))
            lines.append((before + 2, row_count(run_dir) + 1))
        again = failing_steps(run_dir, plan, lines, profile)
        items = sum(a.rows for a in again)
        if again and ExitCode.INFRASTRUCTURE in codes:
            # What ended that step (a node or rank gone) would meet the second pass too: under Slurm
            # a launch onto a dead node waits for it. The report says each FAIL was not measured again.
            print(f"wirebench run: {items} failing or uncertain item(s) not measured again: a step could not finish (its ERROR "
                  "above), and a second pass would meet what ended it", flush=True)
            again = []
        for number, run in enumerate(again, start=1):
            if not bring_up(run.rate):
                return ExitCode.INFRASTRUCTURE
            if number == 1:
                print(f"wirebench run: {items} failing or uncertain item(s): measuring them once more in {len(again)} run(s), as "
                      "their reruns say", flush=True)
            (run_dir / "remeasured" / "logs").mkdir(parents=True, exist_ok=True)
            run_step(number, len(again), run.step, run_dir / "remeasured", cluster, [], started)
    finally:
        if cluster:
            subprocess.run([str(VCLUSTER), "down"], capture_output=True)
    print(f"wirebench run: measured in {time.time() - started:.0f} s; judging", flush=True)
    report = subprocess.run([str(BIN / "wirebench"), "report", str(run_dir)])
    return report.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
