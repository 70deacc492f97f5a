"""/dev/shm smaller than NCCL needs (shm-size-below-nccls-need), read where the log states its size and shows two or
more GPUs of one host. Real text: kserve/kserve#3791 (Ray's warning of a 64 MB /dev/shm beside vLLM's two-GPU NCCL
topology, tests/data/nccl-fresh-2026-12-10); df's line of a container's /dev/shm as gitlab-org/gitlab#281199 posted it
(`df /dev/shm`: 1K blocks); docker run's --shm-size as pytorch/tutorials#2475 added it (`--shm-size=2gb` fixed a
segfault in ncclShmOpen)."""
from pathlib import Path

from diagnosis_helpers import found, ids
from wirebench.diagnosis import diagnose, read_log

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
KSERVE = DATA / "nccl-fresh-2026-12-10" / "kserve-3791.log"
# two GPUs of one host in NCCL's own topology lines (kserve#3791's, host shortened)
TWO_GPUS = ("pod-7ghj:1148:1148 [1] NCCL INFO GPU/3000 :GPU/0-3000 (0/5000.0/LOC) GPU/0-82000 (3/6.0/SYS) "
            "CPU/0-0 (1/12.0/PHB) CPU/0-1 (2/6.0/SYS)\n"
            "pod-7ghj:1148:1148 [1] NCCL INFO GPU/82000 :GPU/0-3000 (3/6.0/SYS) GPU/0-82000 (0/5000.0/LOC) "
            "CPU/0-0 (2/6.0/SYS) CPU/0-1 (1/12.0/PHB)\n")
DF_64M = ("$ df /dev/shm\nFilesystem           1K-blocks      Used Available Use% Mounted on\n"
          "shm                      65536         0     65536   0% /dev/shm\n")


def test_rays_warning_of_a_64_mb_shm_beside_two_gpus_is_said():
    said = diagnose(read_log(KSERVE))
    assert ids(said) == ["shm-size-below-nccls-need:WARN@3"], ids(said)
    assert said[0].what.startswith("/dev/shm holds 64 MiB (Ray: /dev/shm has only 67108864 bytes available) on a host "
                                   "where NCCL shows 2 GPUs")
    assert "--shm-size=1g" in said[0].fix and "hostIPC" in said[0].fix and "kserve/kserve#3791" in said[0].source


def test_dfs_line_and_docker_runs_shm_size_are_read():
    assert ids(found(DF_64M + TWO_GPUS)) == ["shm-size-below-nccls-need:WARN@3"]
    said = found("$ df -h /dev/shm\nFilesystem      Size  Used Avail Use% Mounted on\n"
                 "shm              64M     0   64M   0% /dev/shm\n" + TWO_GPUS)
    assert ids(said) == ["shm-size-below-nccls-need:WARN@3"] and "64 MiB (df: shm 64M 0 64M 0% /dev/shm)" in said[0].what
    said = found("docker run --gpus all --rm -it --shm-size=256m nvcr.io/nvidia/pytorch:24.01-py3 bash\n" + TWO_GPUS)
    assert ids(said) == ["shm-size-below-nccls-need:WARN@1"] and "256 MiB (docker run --shm-size=256m)" in said[0].what


def test_quiet_at_1_gib_on_one_gpu_and_where_nccls_error_says_it():
    # pytorch/tutorials#2475's size: enough
    assert ids(found("docker run --tty --detach --shm-size=2g image bash\n" + TWO_GPUS)) == []
    assert ids(found(DF_64M.replace("65536", "1048576") + TWO_GPUS)) == []
    # one GPU: nothing between local processes
    one_gpu = "pod-7ghj:1148:1148 [0] NCCL INFO Setting affinity for GPU 0 to aaaa,aaaaaaaa\n"
    assert ids(found(DF_64M + one_gpu)) == []
    # NCCL's own error of /dev/shm: the catalogue's shm-too-small says it, this WARN does not repeat it
    error = ("pod-7ghj:1148:1160 [1] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment "
             "/dev/shm/nccl-KWfVyt (size 5967872)\n")
    said = ids(found(DF_64M + TWO_GPUS + error))
    assert "shm-size-below-nccls-need:WARN@3" not in said and any(s.startswith("shm-too-small:FAIL") for s in said), said
