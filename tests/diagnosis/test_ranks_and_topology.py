"""Rules over ranks and NCCL's own topology (agreement.py, transport_rules.py): ranks mapped onto one GPU,
ranks per host that differ, and channels that go through host memory or the network between GPUs
that NCCL's topology dump puts on NVLink. Real logs where each fires and where each stays quiet
(tests/data/nccl/ORIGINS.md)."""
from diagnosis_helpers import DATA, ROOT, diagnose, found, ids, parse, read_log
from wirebench.diagnosis.diagnose import one_host_shown

CORPUS = ROOT / "tests" / "data" / "nccl-corpus"


def test_ncclS_own_duplicate_gpu_line_is_quoted_once():
    """horovod/horovod#3929 as posted: eight ranks on [0] of one host, NCCL's `Duplicate GPU detected`
    on each. The catalogue's duplicate-gpu finding quotes NCCL's line; ranks-share-gpu, which reads
    the init lines, says nothing more."""
    said = diagnose(read_log(DATA / "horovod-3929-duplicate-gpu.log"))
    dup = [f for f in said if f.id == "duplicate-gpu"]
    assert len(dup) == 1 and dup[0].line == 4
    assert "Duplicate GPU detected : rank 2 and rank 0 both on CUDA device 1000" in dup[0].what
    assert "ranks-share-gpu" not in [f.id for f in said]


def test_two_processes_on_one_bus_id_without_ncclS_line():
    """vllm-project/vllm#14025 as posted: two ranks of one pod on busId 1c0 and 1d0: nothing. The same
    lines with the second rank's GPU the first's (as a launcher that gives every process device 0
    does; NCCL's Duplicate line cut from the paste): a FAIL naming both processes."""
    real = (DATA / "vllm-14025-init-start.log").read_text()
    assert "ranks-share-gpu" not in [f.id for f in diagnose(parse(real, "x"))]
    shared = real.replace("cudaDev 2 nvmlDev 2 busId 1d0", "cudaDev 0 nvmlDev 0 busId 1c0")
    [f] = [f for f in diagnose(parse(shared, "x")) if f.id == "ranks-share-gpu"]
    assert f.verdict == "FAIL" and f.line == 11
    assert f.what == ("two processes on ml-model-qwen-656c698fd-oszkq use one GPU (busId 1c0): "
                      "ml-model-qwen-656c698fd-oszkq:274 (rank 1, line 10) and ml-model-qwen-656c698fd-oszkq:275 (rank 2)")


def test_ranks_on_one_gpu_in_ncclS_older_lines_and_nccl_tests_own():
    # NCCL 2.4's init.cc: `comm %p rank %d nranks %d cudaDev %d nvmlDev %d - Init COMPLETE` (no bus id)
    v24 = "h:{pid}:{pid} [0] NCCL INFO comm 0x{pid} rank {rank} nranks 2 cudaDev 0 nvmlDev {nvml} - Init COMPLETE\n"
    assert ids(found(v24.format(pid=1, rank=0, nvml=3) + v24.format(pid=2, rank=1, nvml=3))) == ["ranks-share-gpu:FAIL@2"]
    assert found(v24.format(pid=1, rank=0, nvml=0) + v24.format(pid=2, rank=1, nvml=1)) == []
    # nccl-tests' device lines (NVIDIA/nccl-tests#219's format): two processes of one host on [0x01]
    tool = "#  Rank  {rank} Group  0 Pid {pid} on    fengyun device  0 [0x01] NVIDIA RTX A6000\n"
    said = found("# Using devices\n" + tool.format(rank=0, pid=3164639) + tool.format(rank=1, pid=3164640))
    assert ids(said) == ["ranks-share-gpu:FAIL@3"] and "(busId 0x01 (device 0))" in said[0].what
    # NVIDIA/nccl#583's real paste: eight A100s on one host, devices 0-7, every bus byte 0x00: eight GPUs
    paste = (ROOT / "tests" / "data" / "imports" / "real" / "nccl-583-markdown-no-hash.txt").read_text()
    assert "ranks-share-gpu" not in [f.id for f in found(paste)]
    # NCCL 2.30 lets ranks share a GPU where asked to
    asked = "export NCCL_MULTI_RANK_GPU_ENABLE=1\n"
    assert "ranks-share-gpu" not in [f.id for f in found(asked + v24.format(pid=1, rank=0, nvml=3)
                                                         + v24.format(pid=2, rank=1, nvml=3))]


def test_ranks_per_host_from_the_init_lines_or_nccl_tests_rank_lines():
    """NVIDIA/nccl-tests#219 (corpus, train): ranks 0-1 on fengyun416, 2-3 on fengyun: even, nothing.
    Rank 1 on fengyun instead (three and one): a WARN. A log that shows some ranks only says
    nothing: it cannot count them."""
    real = (CORPUS / "nccl-tests-219.log").read_text()
    assert "gpus-per-node-differ" not in [f.id for f in diagnose(parse(real, "x"))]
    uneven = real.replace("Rank  1 Group  0 Pid 3740409 on fengyun416 device  1 [0x07]",
                          "Rank  1 Group  0 Pid 3164639 on    fengyun device  2 [0x09]")
    [f] = [f for f in diagnose(parse(uneven, "x")) if f.id == "gpus-per-node-differ"]
    assert f.what == "the hosts differ in the ranks per node (the init lines' ranks on each host): 1 on fengyun416; 3 on fengyun"
    init = "{host}:{pid}:{pid} [0] NCCL INFO comm 0x1 rank {rank} nranks 3 cudaDev {rank} busId {rank}000 - Init COMPLETE\n"
    three = "".join(init.format(host=h, pid=p, rank=r) for h, p, r in (("a", 1, 0), ("a", 2, 1), ("b", 3, 2)))
    assert [f.what for f in found(three) if f.id == "gpus-per-node-differ"] == [
        "the hosts differ in the ranks per node (the init lines' ranks on each host): 1 on b; 2 on a"]
    assert [f for f in found(three.splitlines(True)[0] + three.splitlines(True)[2]) if f.id == "gpus-per-node-differ"] == []


def test_an_nvlink_pair_over_the_network_is_said_with_ncclS_route():
    """The shape of NVIDIA/nccl#1608 (two H100 NVL on an NV12 bridge, NCCL_P2P_DISABLE and
    NCCL_SHM_DISABLE set, NCCL 2.21.5's formats): NCCL's dump links the two GPUs by NVLink, its path
    line routes them through the CPU (PHB: a setting took P2P away), and the channels go via
    NET/Socket. The same log with P2P channels says nothing of the kind."""
    log = read_log(DATA / "nccl-1608-nvlink-pair-over-net.log")
    assert log.nvlinked("gpu-node", "1b000", "1c000") and log.path("gpu-node", "1b000", "1c000") == "PHB"
    said = {f.id: f for f in diagnose(log)}
    net = said["net-inside-node"]
    assert net.line == 28 and net.what == ("rank 0 -> 1 on gpu-node goes over the network (NET/Socket/0) although "
                                           "their GPUs are on NVLink")
    assert "NCCL routes them through the CPU (PHB): a setting took P2P away" in net.why
    assert "transport-disabled" in said
    healthy = (DATA / "nccl-1608-nvlink-pair-over-net.log").read_text().replace("[send] via NET/Socket/0",
                                                                                 "via P2P/CUMEM/read")
    assert not {"net-inside-node", "shm-instead-of-p2p"} & {f.id for f in diagnose(parse(healthy, "x"))}


def test_shm_between_gpus_ncclS_dump_puts_on_nvlink_old_and_new_formats():
    """NCCL 2.7-2.18's dump names GPUs by bus id (`GPU/1B000 (0)`, `+ NVL[20.0] - GPU/1C000`, or both
    to one NVSwitch, `NVS/0`); a path line that says NVL means NCCL kept P2P and CUDA refused it (the
    IOMMU, ACS). Channels of the old format carry the bus ids themselves."""
    dump = ("h:1:2 [0] NCCL INFO === System : maxBw 20.0 totalBw 40.0 ===\n"
            "h:1:2 [0] NCCL INFO CPU/0 (1/1/2)\n"
            "h:1:2 [0] NCCL INFO + PCI[24.0] - GPU/1B000 (0)\n"
            "h:1:2 [0] NCCL INFO               + NVL[240.0] - NVS/0\n"
            "h:1:2 [0] NCCL INFO + PCI[24.0] - GPU/1C000 (1)\n"
            "h:1:2 [0] NCCL INFO               + NVL[240.0] - NVS/0\n"
            "h:1:2 [0] NCCL INFO + PCI[24.0] - GPU/3D000 (2)\n"
            "h:1:2 [0] NCCL INFO ==========================================\n"
            "h:1:2 [0] NCCL INFO GPU/1B000 :GPU/1B000 (0/5000.000000/LOC) GPU/1C000 (2/240.000000/NVL) "
            "GPU/3D000 (2/24.000000/PHB) \n")
    shm = "h:1:2 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[1c000] via direct shared memory\n"
    said = found(dump + shm)
    assert ids(said) == ["shm-instead-of-p2p:WARN@10"]
    assert said[0].what == ("rank 0 -> 1 on h goes through host memory (SHM) although NCCL's own topology in the log "
                            "puts their GPUs on NVLink")
    # the path through the CPU (PHB) beside the dump's NVLinks: a setting took P2P away; the dump's
    # `+ NVL[240.0] - NVS/0` lines are one text under each GPU, each read at its place
    routed = dump.replace("GPU/1C000 (2/240.000000/NVL)", "GPU/1C000 (2/24.000000/PHB)")
    [f] = found(routed + shm)
    assert "NCCL routes them through the CPU (PHB): a setting took P2P away" in f.what
    # GPU 2 has no NVLink: SHM to it is what NCCL does
    assert found(dump + "h:1:2 [0] NCCL INFO Channel 00 : 0[1b000] -> 2[3d000] via direct shared memory\n") == []
    # the new format's channels name devices: the ranks' bus ids come from the dump's `GPU/... (rank)`
    new = dump.replace("GPU/1B000", "GPU/0-1b000").replace("GPU/1C000", "GPU/0-1c000").replace("GPU/3D000", "GPU/0-3d000")
    assert ids(found(new + "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n")) == [
        "shm-instead-of-p2p:WARN@10"]


def test_one_host_is_a_hostname_and_one_address():
    """NVIDIA/nccl-tests#166 as posted: two machines both named `ubuntu`, bootstrapping on 10.0.0.2
    and 10.0.0.1: not one host. pytorch/pytorch#73790 (corpus, train): two processes of one host
    on one address: one host. One process's line alone shows no job."""
    assert not one_host_shown(read_log(DATA / "nccl-tests-166-two-hosts-named-ubuntu.log"))
    assert one_host_shown(read_log(CORPUS / "pytorch-73790.log"))
    assert not one_host_shown(parse((CORPUS / "pytorch-73790.log").read_text().splitlines()[0] + "\n", "x"))


def test_nic_rates_from_the_virtual_device_lines_nccl_prints_from_2_20():
    """NCCL 2.20 on prints each device it makes at INFO (net_ib's `NET/IB : Made virtual device [%d]
    name=%s speed=%d ndevs=%d`), where the per-port `speed=` line is a TRACE before 2.23: hosts whose
    ports run at another rate differ."""
    line = "{host}:1:1 [0] NCCL INFO NET/IB : Made virtual device [0] name=mlx5_0 speed={speed} ndevs=1\n"
    two = line.format(host="a", speed=400000) + line.format(host="b", speed=200000)
    assert [f.what for f in found(two) if f.id == "nics-differ"] == [
        "the hosts differ in the NICs' rate: 200 Gb/s on b; 400 Gb/s on a"]
    assert [f for f in found(line.format(host="a", speed=400000) + line.format(host="b", speed=400000))
            if f.id == "nics-differ"] == []
