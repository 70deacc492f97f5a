"""What the runner itself writes into a run directory: topology.json (every node's in a multi-node
Slurm job), ERROR and SKIP rows for steps that failed or could not run, and the rows of
on-every-node steps merged from their nodes' folders."""
import csv
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from .paths import BIN
from .placement import slurm_nodes, step_ranks
from wirebench.report.extra import encode_items
from wirebench.contracts.schema import RESULT_COLUMNS, ExitCode

COLUMNS = list(RESULT_COLUMNS)  # schema/results-columns.csv, as the binaries write them


def write_topology(run_dir):
    """topology.json: every node's when the job spans several Slurm nodes (one `wirebench topo` per
    node through srun, merged), else this node's. The ceilings between nodes take the slower end."""
    out = run_dir / "topology.json"
    nodes = slurm_nodes()
    if nodes > 1:
        pattern = run_dir / "logs" / "topology-%N.json"
        command = ["srun", f"--nodes={nodes}", f"--ntasks={nodes}", "--ntasks-per-node=1", f"--output={pattern}",
                   str(BIN / "wirebench"), "topo", "--json"]
        code, failure = None, ""
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=300)
            code = result.returncode
        except (OSError, subprocess.TimeoutExpired) as error:
            failure = str(error)
        docs = []
        for path in sorted((run_dir / "logs").glob("topology-*.json")):
            try:
                docs.append(json.loads(path.read_text()))
            except json.JSONDecodeError as error:
                failure = f"{path}:{error.lineno}: {error.msg}"
        # topo's verdict is its exit code (1: a DEGRADED link, which its JSON says): 1 with every node's
        # JSON read is no failure; any other, or 1 without them (srun's own), is
        if code and not (code == ExitCode.FAILED and len(docs) == nodes):
            failure = failure or result.stderr.strip()
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


# The first line of a failed step's log that a library or launcher writes when it gives up, by
# whom: MPICH, UCX, PMI (MPICH's client or slurmstepd's plugin), NCCL, CUDA, Hydra, srun, the kernel.
FATAL_LINES = [
    ("MPI", re.compile(r"Fatal error in |MPIR_Init_thread|MPI_ERR_|Abort\(\d+\)")),
    ("UCX", re.compile(r"\bUCX +(ERROR|FATAL)\b|ucp_|uct_.*(error|failed)", re.I)),
    ("PMI", re.compile(r"\bPMI[-_ 0-9x]*\b.*(error|fail|not properly|abort)|mpi/pmi[x2]?:", re.I)),
    ("NCCL", re.compile(r"NCCL (WARN|ERROR)|ncclSystemError|ncclInternalError|ncclUnhandledCudaError")),
    ("CUDA", re.compile(r"CUDA error|cuda[A-Z][A-Za-z]*Error|cudaError")),
    ("srun", re.compile(r"^srun: error:|^slurmstepd: error:")),
    ("Hydra", re.compile(r"BAD TERMINATION|EXIT CODE:|HYDU_|HYD_")),
    ("signal", re.compile(r"Segmentation fault|Killed|core dumped|Bus error")),
]


def fatal_line(lines):
    """(who, line) of the first line a library or launcher wrote on giving up, or None."""
    for line in lines:
        text = line.strip(" =")
        for who, pattern in FATAL_LINES:
            if text and pattern.search(text):
                return who, text
    return None


def failure_words(log):
    """What a failed step said about its failure: the last of wirebench's own error lines (they name
    the rank, and the peer at fault when a heartbeat says which), else the first fatal line a
    library or launcher wrote (MPI, UCX, PMI, NCCL, CUDA, srun, Hydra), quoted with its author, else
    the log's last line."""
    lines = log.read_text(errors="replace").splitlines()[1:]  # the first is the command ("$ ...")
    ours = [line.removeprefix("error: ") for line in lines if line.startswith("error: ")]
    if ours:
        return ours[-1]
    fatal = fatal_line(lines)
    if fatal:
        who, text = fatal
        return f"no rank said why; {who} said: \"{text}\""
    last = next((line.strip() for line in reversed(lines) if line.strip()), "")
    return f"no rank said why; the log's last line: \"{last}\"" if last else "no rank said why; the log is empty"


def row_count(run_dir):
    """Rows in RUN_DIR/results.csv so far (its lines after the header)."""
    path = run_dir / "results.csv"
    if not path.exists():
        return 0
    with path.open("rb") as stream:
        return max(sum(1 for _ in stream) - 1, 0)


def error_row(run_dir, step, reason, status="ERROR", command=None, nodes=None, log=None):
    """The step's failure (or, with status SKIP, why it did not run) in results.csv, so the report
    names it: the step, its binary and ranks, the nodes it ran on (src), the command line that reruns
    it as it ran (rerun) and, in `extra`, its log."""
    path = run_dir / "results.csv"
    new = not path.exists() or path.stat().st_size == 0
    items = {"binary": step["binary"]}
    if log:
        items["log"] = str(log)
    with path.open("a", newline="") as out:
        writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")  # as the binaries write it
        if new:
            writer.writeheader()
        writer.writerow({**{c: "" for c in COLUMNS}, "bench": step["binary"].removeprefix("wb-"), "case": step["name"],
                         "backend": "run", "src": ",".join(nodes or []), "bytes": 0, "ranks": step_ranks(step),
                         "nodes": max(len(nodes or []), 1), "iters": 0, "errors": "", "extra": encode_items(items),
                         "status": status, "reason": reason, "rerun": rerun_command(command) if command else ""})


def rerun_command(command):
    """The step's command line as a user reruns it: an srun step inside an allocation of its nodes."""
    text = shlex.join(command)
    if any(Path(word).name == "srun" for word in command) and slurm_nodes() > 1:
        text = f"salloc -N {slurm_nodes()} " + text
    return text


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
