"""What the seventh and eighth fresh sets (tests/data/nccl-fresh-2026-12-08-c and -08-d, collected blind, measured
once before anything was written from them: bench/MEASUREMENTS.md, session 34) showed the diagnosis did not read,
each read over the library's own printf, not a thread's wording; and every fresh set's healthy logs, where each
new reading stays quiet."""
from pathlib import Path

import pytest

from wirebench.diagnosis import diagnose, parse, read_log

ROOT = Path(__file__).resolve().parents[2]
SEVENTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-08-c"
EIGHTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-08-d"
HEALTHY = sorted(ROOT.glob("tests/data/nccl-fresh-*/healthy/*.log"))


def found(path):
    log = read_log(path)
    return diagnose(log), log


def ids(findings):
    return [f"{f.id}:{f.verdict}@{f.line}" for f in findings]


# -- NCCL's last WARN as PyTorch quotes it, on the line after `Last error:` -------------------------------------------

def test_the_line_after_pytorchs_last_error_is_read_as_nccls_last_warn():
    # EvolvingLMMs-Lab/open-r1-multimodal#7: `ncclInternalError ... Last error:` then `[rank0]: Bootstrap : no socket
    # interface found` (NCCLUtils.cpp's getNcclErrorDetailStr: "\nLast error:\n" + ncclGetLastError)
    said, log = found(SEVENTH / "open-r1-multimodal-7.log")
    assert ids(said) == ["bootstrap-interface:FAIL@7", "internal-error-on-old-nccl:WARN@4"]  # the cause first
    [m] = log.messages
    assert (m.warn, m.quoted, m.text, m.host) == (True, True, "Bootstrap : no socket interface found", "")
    f = said[0]
    assert "torch.distributed.DistBackendError" in f.what and "Last error: Bootstrap : no socket" in f.what
    assert "NCCL_SOCKET_IFNAME" in f.fix and "the file holds no line of NCCL's" in f.fix


def test_shm_read_at_the_last_error_line_quotes_pytorchs_error():
    # vllm-project/vllm#6689: the catalogue's shm-too-small now reads NCCL's WARN text itself (line 4)
    said, _ = found(EIGHTH / "vllm-6689.log")
    assert ids(said) == ["shm-too-small:FAIL@4"]
    assert "DistBackendError" in said[0].what and "Last error: Error while creating shared memory segment" in said[0].what


def test_only_the_line_right_after_a_last_error_line_alone_is_read():
    # a flattened paste's inline `Last error: ...` (awslabs/awsome-distributed-ai#192) is not split; nor is a line
    # after another line, nor PyTorch's `Last error: Unknown NCCL Error` when NCCL printed none
    for text in ("x 10: Last error: 10: socketStartConnect: Connect to 127.0.0.1<45069> failed : Software caused\n",
                 "Last error: Unknown NCCL Error\nBootstrap : no socket interface found\n",
                 "Last error:\n\nnext\nBootstrap : no socket interface found\n"):
        log = parse(text, "job.log")
        assert [m.text for m in log.messages if m.text.startswith("Bootstrap") or "socketStart" in m.text] == [], text
    log = parse("RuntimeError: NCCL error: unhandled system error\nLast error:\n\nBootstrap : no socket interface "
                "found\n", "job.log")
    assert [m.text for m in log.messages] == ["Bootstrap : no socket interface found"]  # an empty line is no line


# -- the healthy logs of every fresh set ---------------------------------------------------------------------------

NEW = {"bootstrap-interface", "connection-failed", "shm-too-small"}


@pytest.mark.parametrize("path", HEALTHY, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_no_new_reading_fires_on_a_healthy_log(path):
    from wirebench.contracts.input_files import InputError
    try:
        said, log = found(path)
    except InputError:
        return  # nothing of NCCL's to read (a launcher's warning alone): refused before, refused now
    assert not any(m.quoted for m in log.messages), path.name
    assert not ({f.id for f in said} & NEW), (path.name, [f.what for f in said if f.id in NEW])
