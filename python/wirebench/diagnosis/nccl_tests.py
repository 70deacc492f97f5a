"""What nccl-tests' own output says, read where NCCL's lines may be absent: its header, its result rows
and its summary (`# Avg bus bandwidth : 3.94`), and the launcher's command line above them. A binary
built without MPI=1 ignores mpirun: each process runs a whole test of its own and prints its own
summary. A header and no result is a test that stopped before its first size."""
import re

from . import errors
from .registry import rule
from ..importer.nccl_tests import COUNTS as BANNER  # the importer's reading of the banner: `# nThread 1 nGpus 8 ...`
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


def header(log):
    """nccl-tests' header lines the log holds: its banner (`# nThread 1 nGpus 2 minBytes 8 ...`) and its
    column header (`#       size         count      type   redop ...`)."""
    return [o for o in log.others if HEADER.search(o.text) or BANNER.search(o.text)]


def stopped_before_a_result(log):
    """Whether the log is nccl-tests' output that printed its header and no result."""
    return bool(header(log)) and not results(log)


@rule("nccl-tests-stopped-before-first-size", "FAIL", "any",
      "nccl-tests' banner (`# nThread N nGpus N ...`) or its column header (`# size count type ...`), and no result "
      "row, no summary and no error line of a known class; a fallback: said only where the log gives no other finding "
      "(an excerpt cut after its header that shows a cause is that cause's)",
      "the test started and stopped before its first size: it hung in its first collective (the first connection "
      "between the GPUs or the nodes: P2P the IOMMU or ACS blocks, a network that does not connect) or the job was "
      "killed during it (a time limit, a cancel)",
      "where the run went on, its results were cut off the paste: read the whole output; else rerun with NCCL_DEBUG=INFO "
      "(NCCL_DEBUG_SUBSYS=INIT,NET) to see how far NCCL gets, and while it hangs take a stack of the stuck ranks (py-spy dump --pid PID, gdb -p PID -batch -ex 'thread apply all bt'); check the job's time "
      "limit and the scheduler's log for a kill",
      "NVIDIA/nccl-tests README (the header, then one row per size); ROCm/rccl#1129 (rccl-tests' all_reduce_perf hung "
      "after its header on two MI100s; iommu=pt on the kernel command line let it run)", fallback=True)
def nccl_tests_stopped_before_first_size(r, c):
    if not stopped_before_a_result(c.log):
        return None
    if any(e.classed for e in errors.find(c.log)):
        return None  # the error is the cause: its finding says it
    last = header(c.log)[-1]
    return r.finding(last.line, f"nccl-tests printed its header (line {header(c.log)[0].line}) and no result: it "
                                "stopped before its first size, or the output was cut there",
                     "a hang in the first collective, or the job killed during it; a paste cut after the header reads "
                     "the same: nothing after it says which (no error line, no result)")


@rule("nccl-tests-ran-alone", "FAIL", "any",
      "one `mpirun -np N` (or srun -n N) and nccl-tests' summary (`# Avg bus bandwidth`) printed N times, or its banner "
      "(`# nThread 1 nGpus 8 ...`) printed more than once (in one test only rank 0 prints them)",
      "each process ran its own test on its own GPUs instead of one test of N ranks: the nccl-tests binary was "
      "built without MPI, or with another MPI than the launcher's, so each process starts as a world of one (one "
      "node's bandwidth, N results)",
      "rebuild nccl-tests with MPI: `make clean && make MPI=1 MPI_HOME=<MPI's prefix>` (a build without `make clean` "
      "keeps the objects built without MPI), with the MPI whose mpirun launches it (`ldd all_reduce_perf | grep mpi` "
      "against `which mpirun`, on every node and in the container); one run's header then lists every rank",
      "NVIDIA/nccl-tests README (MPI=1); NVIDIA/nccl-tests#27 (kwen2501: make clean before rebuilding with MPI=1, "
      "the reporter confirmed it); NVIDIA/nccl-tests#213 (two banners under `mpirun -np 2` on two H800 nodes built "
      "with MPI=1 in a container: the maintainer pointed at the MPI build and install)")
def nccl_tests_ran_alone(r, c):
    launches = [(o, int(found.group(1))) for o in c.log.others if (found := LAUNCH.search(o.text))]
    if len(launches) != 1 or launches[0][1] < 2:
        return None  # several launches may each print their own header and summary
    launch, n = launches[0]
    summaries = [o for o in c.log.others if SUMMARY.search(o.text) and o.line > launch.line]
    banners = [o for o in c.log.others if BANNER.search(o.text) and o.line > launch.line]
    # the reader folds a repeated line into one, with its count (two identical summaries: NVIDIA/nccl-tests#107)
    if sum(o.repeats for o in summaries) == n:
        return r.finding(summaries[-1].line, f"nccl-tests printed its summary {n} times under one launch of {n} "
                         f"processes (line {launch.line}): each process ran a test of its own",
                         "a nccl-tests binary built without MPI=1 does not join mpirun's ranks into one communicator")
    printed = sum(b.repeats for b in banners)
    if 2 <= printed <= n:
        return r.finding(banners[-1].line, f"nccl-tests printed its banner {printed} times (from line "
                         f"{banners[0].line}) under one launch of {n} processes (line {launch.line}): each process "
                         "started a test of its own",
                         "only rank 0 of one test prints the banner: the processes did not join one MPI world")
    return None
