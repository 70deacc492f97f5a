"""What nccl-tests' own output says, read where NCCL's lines may be absent: its result rows and its
summary (`# Avg bus bandwidth : 3.94`), and the launcher's command line above them. A binary built
without MPI=1 ignores mpirun: each process runs a whole test of its own and prints its own summary."""
import re

from .registry import rule
from ..importer.nccl_tests import RANK as BANNER_RANK  # the importer's reading of the banner's device list

SUMMARY = re.compile(r"^#?\s*Avg bus bandwidth\s*:")
# a result row: size, count, type, ... numbers (nccl-tests 1.x without the redop/root columns too)
RESULT = re.compile(r"^\s*\d+\s+\d+\s+(?:float|double|half|bfloat16|int8|uint8|int32|uint32|int64|uint64|int|char)\b")
HEADER = re.compile(r"^#\s+size\s+count\s+type\b|^\s*size\s+count\s+type\b")
# one launch of N processes: `mpirun ... -np 2 ...`, `mpiexec -n 16`, `srun -n 16`
LAUNCH = re.compile(r"\b(?:mpirun|mpiexec|srun)\b.*?\s(?:-np|-n|--ntasks|--np)[\s=](\d+)\b")


def banner_hosts(log):
    """{rank: host} of nccl-tests' device list (`#  Rank  0 Group  0 Pid 96540 on HOST device  0 ...`)."""
    return {int(found.group(1)): found.group(3) for o in log.others if (found := BANNER_RANK.match(o.text.strip()))}


def results(log):
    """The lines of nccl-tests' results (rows and summaries) the log holds."""
    return [o for o in log.others if SUMMARY.search(o.text) or RESULT.match(o.text)]


def stopped_before_a_result(log):
    """Whether the log is nccl-tests' output that printed its column header and no result."""
    return any(HEADER.search(o.text) for o in log.others) and not results(log)


@rule("nccl-tests-ran-alone", "FAIL", "any",
      "one `mpirun -np N` (or srun -n N) and nccl-tests' summary (`# Avg bus bandwidth`) printed N times",
      "each process ran its own test on its own GPUs instead of one test of N ranks: the nccl-tests binary was "
      "built without MPI, so it ignores mpirun's ranks (one node's bandwidth, N results)",
      "rebuild nccl-tests with MPI: `make clean && make MPI=1 MPI_HOME=<MPI's prefix>` (a build without `make clean` "
      "keeps the objects built without MPI); one run's header then lists every rank",
      "NVIDIA/nccl-tests README (MPI=1); NVIDIA/nccl-tests#27 (kwen2501: make clean before rebuilding with MPI=1, "
      "the reporter confirmed it)")
def nccl_tests_ran_alone(r, c):
    launches = [(o, int(found.group(1))) for o in c.log.others if (found := LAUNCH.search(o.text))]
    summaries = [o for o in c.log.others if SUMMARY.search(o.text)]
    if len(launches) != 1 or launches[0][1] < 2 or len(summaries) != launches[0][1]:
        return None  # several launches may each print their summary; a summary a process is one test
    launch, n = launches[0]
    if any(s.line < launch.line for s in summaries):
        return None
    return r.finding(summaries[1].line, f"nccl-tests printed its summary {n} times under one launch of {n} processes "
                     f"(line {launch.line}): each process ran a test of its own",
                     "a nccl-tests binary built without MPI=1 does not join mpirun's ranks into one communicator")
