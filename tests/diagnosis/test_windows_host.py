"""windows-host (ctest label: unit): a framework's distributed code on Windows, where no NCCL runs, said where no
catalogue entry reads the failure itself; quiet where one does, and on every log with NCCL's own lines."""
from pathlib import Path

from diagnosis_helpers import found
from wirebench.diagnosis import diagnose, read_log

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
C10D = (r"[W C:\actions-runner\_work\pytorch\pytorch\builder\windows\pytorch\torch\csrc\distributed\c10d\socket.cpp:601] "
        r"[c10d] The client socket has failed to connect to [t2]:58152 (system error: 10049 - The requested address is "
        r"not valid in its context.).")


def test_a_windows_jobs_own_lines_say_no_nccl_runs_there():
    """torchgeo/torchgeo#1198 (a blind case of session 39, refused then): two GPUs on Windows, Lightning's DDP; the
    copy holds PyTorch c10d's warnings only (the thread's `Distributed package doesn't have NCCL built in` was in the
    prose, not the copy)."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-29" / "torchgeo-1198.log"))
    assert [(f.id, f.verdict, f.line) for f in said] == [("windows-host", "WARN", 8)]
    assert "system error: 10049" in said[0].what and 'backend="gloo"' in said[0].fix and "WSL2" in said[0].fix


def test_with_an_error_it_fails_and_where_an_entry_reads_the_failure_it_is_quiet():
    traceback = ('Traceback (most recent call last):\n  File "C:\\Users\\u\\anaconda3\\lib\\site-packages\\torch\\'
                 'distributed\\distributed_c10d.py", line 895, in init_process_group\n'
                 "RuntimeError: Socket Timeout\n")
    said = found(traceback)
    assert [(f.id, f.verdict) for f in said][:1] == [("windows-host", "FAIL")], [(f.id, f.verdict) for f in said]
    # the catalogue's entry reads the failure: it names the cause, alone (dreambooth, tensorflow#44281 in the corpus)
    for path in ("dreambooth-sd-65.log", "tensorflow-44281.log"):
        ids = [f.id for f in diagnose(read_log(DATA / "nccl-corpus" / path))]
        assert "windows-host" not in ids and ids, (path, ids)


def test_quiet_on_linux_logs_and_where_nothing_is_on_windows():
    assert found(C10D + "\nh1:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n") == []  # NCCL's own: Linux
    assert "windows-host" not in [f.id for f in found('File "/usr/lib/python3/site-packages/torch/x.py", line 1\n'
                                                      "RuntimeError: Socket Timeout\n")]
