"""What nccl-tests' own output says, read where NCCL's lines may be absent: its header, its result rows
and its summary (`# Avg bus bandwidth : 3.94`), and the launcher's command line above them. A binary
built without MPI=1 ignores mpirun: each process runs a whole test of its own and prints its own
summary. A header and no result is a test that stopped before its first size."""
import re

from . import errors
from .log_facts import first_setting, turned_on
from .registry import RULES, rule
from ..importer.nccl_tests import COUNTS as BANNER  # the importer's reading of the banner: `# nThread 1 nGpus 8 ...`
from ..importer.nccl_tests import RANK as BANNER_RANK  # the importer's reading of the banner's device list

SUMMARY = re.compile(r"^#?\s*Avg bus bandwidth\s*:")
# a result row: size, count, type, ... numbers (nccl-tests 1.x without the redop/root columns too)
# (a table a user pasted with a first column of their own, the node count: NVIDIA/nccl#527's `p4dn` column, too)
RESULT = re.compile(r"^\s*(?:\d+\s+)?\d+\s+\d+\s+(?:float|double|half|bfloat16|int8|uint8|int32|uint32|int64|uint64|int|"
                    r"char)\b")
# the column header; NCCL 1.x's own tests (test/single/all_reduce_test, 2016-2017) print `bytes N type op`
HEADER = re.compile(r"^#?\s*(?:\w+\s+)?size\s+count\s+type\b|^#?\s*bytes\s+N\s+type\s+op\b")
# NCCL 1.x's tests: one process, every GPU in it (`#   Rank  0 uses device  0 [0x04] GeForce GTX TITAN X`)
SINGLE_PROCESS_RANK = re.compile(r"^#?\s*Rank\s+(\d+)\s+uses\s+device\s+(\d+)\b")
# one launch of N processes: `mpirun ... -np 2 ...`, `mpiexec -n 16`, `srun -n 16`
LAUNCH = re.compile(r"\b(?:mpirun|mpiexec|srun)\b.*?\s(?:-np|-n|--ntasks|--np)[\s=](\d+)\b")


def banner_hosts(log):
    """{rank: host} of nccl-tests' device list (`#  Rank  0 Group  0 Pid 96540 on HOST device  0 ...`)."""
    return {int(found.group(1)): found.group(3) for o in log.others if (found := BANNER_RANK.match(o.text.strip()))}


def device_list_whole(log):
    """Whether nccl-tests' device list (`#  Rank  0 Group  0 Pid 96540 on HOST device  0 ...`) is all of the job's:
    nThread x nGpus ranks a process (the banner) times the processes the launch line starts (`mpirun -np N`);
    where the launch's count is not said (no launch line, `-n ${NUM_PROCS}`), at least nThread x nGpus and a line of
    another kind after the list (an excerpt cut inside it ends there: NVIDIA/nccl-tests#213's two nodes showed the
    first host's four ranks; aws/aws-ofi-nccl#65's, eight and one)."""
    hosts = banner_hosts(log)
    counts = next((found for o in log.others if (found := BANNER.search(o.text))), None)
    if not hosts or counts is None:
        return False
    per_process = int(counts.group(1)) * int(counts.group(2))
    launched = [int(found.group(1)) for o in log.others if (found := LAUNCH.search(o.text))]
    if launched:
        return len(hosts) >= per_process * launched[0]
    last = max(o.line for o in log.others if BANNER_RANK.match(o.text.strip()))
    after = [m.line for m in log.messages if m.line > last] + [
        o.line for o in log.others if o.line > last and o.text.strip() and not o.text.strip().startswith("```")]
    return len(hosts) >= per_process and bool(after)


def ranks_on_one_host(log):
    """How many ranks nccl-tests' device list puts on one host, where it lists two or more, all of them on the same
    host, and the list is whole (device_list_whole); NCCL 1.x's tests: one process, so one host; else 0."""
    hosts = banner_hosts(log)
    if len(hosts) >= 2:
        return len(hosts) if len(set(hosts.values())) == 1 and device_list_whole(log) else 0
    single = {found.group(1) for o in log.others if (found := SINGLE_PROCESS_RANK.match(o.text.strip()))}
    return len(single) if len(single) >= 2 else 0


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


@rule("nccl-tests-stopped-on-one-node", "FAIL", "node",
      "nccl-tests' header and no result row, no summary and no error line of a known class (as "
      "nccl-tests-stopped-before-first-size), where its device list puts every rank, two or more, on one host "
      "(`# Rank N ... on HOST device N`; NCCL 1.x's tests: `Rank N uses device N`, one process); a fallback",
      "on one node the first collective crosses no network: it goes GPU to GPU over PCIe or NVLink, or through host "
      "memory. A stall there is most often PCIe peer-to-peer that never arrives: the IOMMU (VT-d, AMD-Vi) or the PCIe "
      "switches' ACS redirect each peer write to the root complex, which drops or blocks it; or GPUs whose driver "
      "offers P2P they cannot do",
      "rerun with NCCL_P2P_DISABLE=1: if it then runs, peer-to-peer is the path that hangs. Then: the kernel's log "
      "(`dmesg | grep -i -e DMAR -e AMD-Vi -e IOMMU`: DMA faults naming the GPUs' PCI addresses are the IOMMU's); "
      "`iommu=pt` (or the IOMMU off in the BIOS) on the kernel command line; ACS: `sudo lspci -vvv | grep -i acsctl` "
      "(SrcValid+ on a PCIe switch's ports redirects P2P: off in the BIOS, or `setpci` per NCCL's troubleshooting "
      "page); `nvidia-smi topo -p2p r` for what the driver allows",
      "NCCL User Guide, Troubleshooting (PCI Access Control Services, IO virtualization); NVIDIA/nccl#257 and "
      "tensorflow/tensorflow#32654 (all_reduce_perf hung on four GTX 1080 Ti after NCCL's setup: DMAR write faults "
      "of two GPUs in dmesg, peer-to-peer access malfunctioning); ROCm/rccl#1129 (rccl-tests hung after its header "
      "on two MI100s: iommu=pt); NVIDIA/nccl#104 (NCCL 1.x's all_reduce_test stalled after its header on 8 Tesla "
      "M40: nluehr asked for ACS to be disabled, which fixed it); NVIDIA/nccl-tests#117 (RTX 4090s hung, ran with "
      "NCCL_P2P_DISABLE=1)", fallback=True)
def nccl_tests_stopped_on_one_node(r, c):
    on_one = ranks_on_one_host(c.log)
    if not on_one or not stopped_before_a_result(c.log) or any(e.classed for e in errors.find(c.log)):
        return None
    if first_setting(c.log, "NCCL_P2P_DISABLE", turned_on):
        return None  # peer-to-peer was off: not its path (NVIDIA/nccl-tests#117's second run); the generic rule says it
    last = header(c.log)[-1]
    return r.finding(last.line, f"nccl-tests printed its header (line {header(c.log)[0].line}) and no result, its "
                                f"{on_one} ranks on one host: it stopped in its first collective, which crosses no "
                                "network, or the output was cut there",
                     "on one node the first collective goes GPU to GPU: a stall there is most often peer-to-peer "
                     "over PCIe that the IOMMU or ACS blocks")


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
    if not stopped_before_a_result(c.log) or RULES["nccl-tests-stopped-on-one-node"].check(r, c):
        return None  # on one host with peer-to-peer on: nccl-tests-stopped-on-one-node says it
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
