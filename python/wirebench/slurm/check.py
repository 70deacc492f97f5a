"""wirebench check [--nic IF[=RATE] ...] [--nccl-log FILE] [--suite check] [--profile P] [--time-limit 50]
                   [--run-dir DIR] [--node NAME] [--no-measure] [--drain]

One node's quick health check, for Slurm's HealthCheckProgram, a prolog or an epilog
(docs/slurm-health.md). It looks at the node's own links only:
  - each --nic: up, and at least at RATE where one is given (the lower of the rate it trained at and
    a rate limit the kernel holds it to: a tc qdisc); a missing or slower port FAILs;
  - --nccl-log: NCCL's transport in a job's NCCL_DEBUG=INFO log, each diagnosis wirebench topo
    names in it (sockets where InfiniBand is, ...) a FAIL or WARN as docs/nccl-diagnosis.md says;
  - the `check` suite (suites/check.yaml, or --suite): host memory, and GPU pairs and GPU-host where
    there are GPUs, measured and judged as `wirebench run` does (ceilings, --profile's floors).
Nothing runs past --time-limit (default 50 s: Slurm kills a HealthCheckProgram after 60).
Prints the findings, then one reason line fit for `scontrol update ... Reason=`, and writes
check.json into the run directory (kept with --run-dir, else removed).
Exit codes (docs/results.md, "Exit codes", one order for every command): 2 the check could not
finish (an ERROR, or past --time-limit); 1 unhealthy (a FAIL; a prolog or epilog that exits non-zero
drains its node); 4 not judged: nothing judged (no finding could be held against anything: a port
whose driver reports no rate, a suite with no ceiling here), or something required left unjudged (a
--profile floor the suite did not measure), a check that did not judge never says healthy; 0 healthy
(PASS, or WARN: a WARN judged something); 3 bad usage.
--drain (for HealthCheckProgram, whose exit code Slurm ignores): this node is drained with the reason
when it is unhealthy, and resumed when it is healthy and its reason says wirebench drained it; a node
drained by anyone else is left as it is. Exit 0 once it has acted (slurmd would not register a node
whose health check keeps failing), 2 when Slurm could not be told.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wirebench.run.paths import BIN

from .node_ports import PortSpecError, judge_port, parse_port_spec, read_port
from .run_findings import CHECK_SCHEMA, RunDirError, load_summary
from .slurm_nodes import SlurmError, drain_command, read_nodes, reason_text, resume_command, run_slurm
from wirebench.contracts.exit_policy import CommandError, entry, fail, judged_code
from wirebench.contracts.input_files import readable_file
from wirebench.contracts.schema import ExitCode

MARK = ".wirebench-check"  # a run directory a check made, which the next check may replace
VERDICT_SECONDS = 2     # of --time-limit, kept for the verdict and Slurm
MEASURE_AT_LEAST = 3    # the least time worth starting the suite with (its host step alone takes about 2 s)


VERDICTS = {ExitCode.OK: "PASS", ExitCode.FAILED: "FAIL", ExitCode.INFRASTRUCTURE: "ERROR",
            ExitCode.UNJUDGED: "NOT JUDGED"}  # check.json's verdict of each exit code


def overall(findings, missing=()):
    """(verdict, what, exit code) of the whole check, by the one policy (contracts/exit_policy.py):
    an ERROR, else a FAIL, names the worst; then what was required and not judged (`missing`), or
    nothing judged at all, is NOT JUDGED; healthy needs a finding that judged something (PASS or WARN)."""
    code = judged_code([f[0] for f in findings], missing)
    verdict = VERDICTS[code]
    if verdict in ("ERROR", "FAIL"):
        worst = next(f for f in findings if f[0] == verdict)
        more = sum(f[0] not in ("PASS", "NOT JUDGED") for f in findings) - 1
        what = (f"could not check: {worst[1]}" if verdict == "ERROR" else worst[1]) + (f" (+{more} more)" if more else "")
        return verdict, what, code
    judged = [f[1] if f[0] == "PASS" else f"{f[0]} {f[1]}" for f in findings if f[0] in ("PASS", "WARN")]
    unjudged = [f[1] for f in findings if f[0] == "NOT JUDGED"]
    if missing:
        return verdict, "not judged: " + "; ".join(missing), code
    if not judged:
        return verdict, "nothing judged: " + ("; ".join(unjudged) if unjudged else "nothing was asked (no --nic, "
                                                 "--nccl-log or measurement)"), code
    return verdict, "healthy: " + "; ".join(judged) + (f"; not judged: {'; '.join(unjudged)}" if unjudged else ""), code


def node_name(given=None):
    return given or os.environ.get("SLURMD_NODENAME") or socket.gethostname().split(".")[0]


def measure(suite, profile, run_dir, seconds):
    """The suite through `wirebench run`, on this node only (a prolog's or a job's Slurm variables
    would send its steps through srun to every node of the job). ([(verdict, what)], what the report
    found required and not judged: the profile's floors no row matched)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    command = [str(BIN / "wirebench"), "run", suite, "--run-dir", str(run_dir)] + (["--profile", profile] if profile else [])
    log = run_dir / "check.log"
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            code = process.wait(timeout=max(1.0, seconds))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return [("ERROR", f"the measurements did not finish within the {seconds:.3g} s --time-limit left them")], []
    try:
        summary = load_summary(run_dir)
    except RunDirError:
        return [("ERROR", f"the measurements ended without a report (exit code {code}; see {log})")], []
    found = []
    for v in summary["verdicts"]:
        if v["verdict"] in ("FAIL", "ERROR"):
            figure = f" {v['measured']}" if v.get("measured") else ""
            expected = f", expected {v['expected']}" if v.get("expected") else ""
            found.append((v["verdict"], f"{v['item']}{figure}{expected}" if v["verdict"] == "FAIL" else f"{v['item']}: {v['reason']}"))
    counts = summary.get("counts", {})
    judged = sum(counts.get(k, 0) for k in ("PASS", "WARN", "FAIL"))
    if not found and judged:
        found.append(("PASS", f"{judged} measured items pass"))
    elif not found:
        not_judged = counts.get("NOT JUDGED", 0)
        found.append(("NOT JUDGED", f"measured, nothing judged: {not_judged} item(s) not judged "
                      f"here (report.md in the run directory says why)" if not_judged else
                      "nothing measured: every step of the suite was skipped (report.md in the run directory says why)"))
    missing = [f"profile {(summary.get('profile') or {}).get('name')}: floor '{f['name']}' not measured"
               for f in (summary.get("profile") or {}).get("floors", []) if not f.get("rows")]
    return found, missing


def nccl_findings(log, seconds=20):
    """What NCCL's log says of this node's transport (`wirebench topo --nccl-log`): each
    diagnosis it names (docs/nccl-diagnosis.md: sockets where InfiniBand is, ...) a FAIL or WARN as the
    catalogue says; [(verdict, what, source)]. Its JSON is read whatever topo's exit code (1 where a
    diagnosis FAILs); its stderr only where it wrote none (a log it could not read)."""
    try:
        result = subprocess.run([str(BIN / "wirebench"), "topo", "--nccl-log", str(log), "--json"], capture_output=True,
                                text=True, timeout=seconds)
        doc = json.loads(result.stdout) if result.returncode in (ExitCode.OK, ExitCode.FAILED) else None
    except subprocess.TimeoutExpired:
        return [("ERROR", f"reading {log} took over {seconds} s", f"--nccl-log {log}")]
    except OSError as error:
        return [("ERROR", f"NCCL log not read: {error}", f"--nccl-log {log}")]
    except json.JSONDecodeError:
        doc = None
    if doc is None:
        why = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return [("ERROR", f"NCCL log not read: {why}", f"--nccl-log {log}")]
    nccl = doc.get("nccl", {})
    found = []
    for found_ in nccl.get("diagnoses", []):  # docs/nccl-diagnosis.md's entries, FAIL or WARN
        where = f"{log}:{found_['line']}" if found_.get("line") else f"--nccl-log {log}"
        found.append((found_["verdict"], f"NCCL {found_['id']}: {found_['what']}", where))
    if not found:
        channels = len(nccl.get("channels", []))
        found.append(("PASS", f"NCCL over {nccl.get('network') or 'a network not named'} ({channels} channel lines)",
                      f"--nccl-log {log}"))
    return found


def act_on_slurm(node, verdict, reason):
    """--drain: what slurmd's HealthCheckProgram must do itself. Returns the line saying what it did."""
    state = read_nodes().get(node)
    if state is None:
        raise SlurmError(f"sinfo does not list a node named {node} (give --node)")
    if verdict == "NOT JUDGED":  # no evidence either way: neither drained nor resumed
        return f"{node} left {state.state}: the check judged nothing"
    if verdict != "PASS":
        if state.drained_by_wirebench:
            return f"{node} still unhealthy, drained by wirebench already ({state.reason})"
        if state.drained:
            return f"{node} is drained by someone else ({state.reason}): left as it is"
        run_slurm(drain_command(node, reason))
        return f"{node} drained: {reason_text(reason)}"
    if state.drained_by_wirebench:
        run_slurm(resume_command(node))
        return f"{node} resumed: healthy now, drained earlier by wirebench ({state.reason})"
    return f"{node} left {state.state}"


@entry
def main(argv):
    parser = argparse.ArgumentParser(prog="wirebench check", description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nic", action="append", default=[], metavar="IF[=RATE]",
                        help="a port that must be up, at RATE or faster (400G, 200Gb/s, 1gbit); repeatable")
    parser.add_argument("--suite", default="check", help="the measurements (default: suites/check.yaml)")
    parser.add_argument("--profile", help="a platform profile whose floors judge the measurements")
    parser.add_argument("--time-limit", type=float, default=50.0, help="seconds for the whole check (default 50)")
    parser.add_argument("--run-dir", type=Path, help="keep the check's run directory here")
    parser.add_argument("--node", help="this node's Slurm name (default: SLURMD_NODENAME, else the hostname)")
    parser.add_argument("--nccl-log", type=Path, metavar="FILE",
                        help="an NCCL_DEBUG=INFO log of a job on this node: its transport judged (sockets where "
                             "InfiniBand is, ...)")
    parser.add_argument("--no-measure", action="store_true", help="ports only: measure nothing")
    parser.add_argument("--drain", action="store_true", help="drain or resume this node through scontrol")
    args = parser.parse_args(argv[1:])
    try:
        ports = [parse_port_spec(spec) for spec in args.nic]
    except PortSpecError as error:
        raise CommandError(str(error)) from None
    if args.time_limit <= 0:
        raise CommandError("--time-limit must be above 0 s")
    if not args.no_measure and args.time_limit < MEASURE_AT_LEAST + VERDICT_SECONDS:
        raise CommandError(f"--time-limit {args.time_limit:g} s leaves no time to measure ({VERDICT_SECONDS} s are kept "
                           f"for the verdict and Slurm): give at least {MEASURE_AT_LEAST + VERDICT_SECONDS} s, or "
                           "--no-measure")
    if args.nccl_log:
        readable_file(args.nccl_log)  # "no such file or directory", "is a directory", "permission denied"
    started = time.monotonic()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    node = node_name(args.node)
    run_dir = args.run_dir
    if run_dir and run_dir.exists() and any(run_dir.iterdir()):
        if not (run_dir / MARK).exists():
            raise CommandError(f"{run_dir} holds something that is not a check's run directory: give an empty or new "
                               "folder")
        shutil.rmtree(run_dir)  # the last check's: each check starts from nothing (results.csv appends)
    work = Path(tempfile.mkdtemp(prefix="wirebench-check-"))
    run_dir = run_dir or work / "run"
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / MARK).write_text("a wirebench check's run directory: the next check with it replaces it\n")
    try:
        findings = [judge_port(read_port(name), rate) + (f"--nic {name}",) for name, rate in ports]
        missing = []  # required and not judged (a --profile floor the suite did not measure): named first
        if args.nccl_log:
            findings += nccl_findings(args.nccl_log)
        if not args.no_measure:
            left = args.time_limit - (time.monotonic() - started) - VERDICT_SECONDS
            found, missing = measure(args.suite, args.profile, run_dir, left)
            findings = ([("NOT JUDGED", what, f"suite {args.suite}, required") for what in missing] + findings
                        + [(v, what, f"suite {args.suite}") for v, what in found])
        verdict, what, code = overall(findings, missing)
        reason = reason_text(f"{node} {what}", f"(check {stamp})")
        for level, text, source in findings:
            print(f"  {level:<5} {text} [{source}]")
        (run_dir / "check.json").write_text(json.dumps({
            "schema_version": CHECK_SCHEMA, "node": node, "time": stamp, "verdict": verdict, "reason": reason,
            "seconds": round(time.monotonic() - started, 1),
            "findings": [{"verdict": v, "what": t, "source": s} for v, t, s in findings]}, indent=2) + "\n")
        print(reason, flush=True)
        if args.drain:
            try:
                print(f"wirebench check: {act_on_slurm(node, verdict, reason)}", flush=True)
            except SlurmError as error:
                return fail(f"wirebench check: {error}", ExitCode.INFRASTRUCTURE)
            return ExitCode.OK
        return code
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
