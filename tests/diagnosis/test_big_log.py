"""Repeated lines fold: a 50 MB log of one channel line printed 680,894 times is read as its
distinct lines, the findings and their line numbers as in the short log; its lines are read as they
stream, so the reading never holds the file whole. The test checks what is found and the memory
the reading holds at its peak, not how long it takes."""
import tracemalloc

from diagnosis_helpers import DATA, diagnose, ids, read_log
from wirebench.diagnosis import output, parse

CHANNEL = "gpu-node-7:3101:3161 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[1] via P2P/IPC/read\n"


def test_a_50_mb_log_of_one_repeated_channel_line_folds(tmp_path):
    head = (DATA / "single-node-8gpu-socket-no-ib.log").read_text()
    big = tmp_path / "big.log"
    with open(big, "w") as out:
        out.write(head)
        out.write(CHANNEL * 680_894)
        out.write("gpu-node-7:3101:3161 [0] transport/nvls.cc:254 NCCL WARN Cuda failure 1 'invalid argument'\n")
    assert big.stat().st_size > 50_000_000
    tracemalloc.start()
    try:
        log = read_log(big)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # the file's text whole was 50 MB, its lines split apart more; streamed, its distinct lines and a buffer
    assert peak < 5_000_000, f"read_log held {peak} bytes at its peak"
    assert log.folded >= 680_893
    where = head.count("\n") + 680_894 + 1
    repeated = [m for m in log.messages if m.raw == CHANNEL.strip()]
    assert len(repeated) == 1 and repeated[0].repeats == 680_894 and repeated[0].line == head.count("\n") + 1
    said = diagnose(log)
    assert ids(said) == [f"nvls-after-fabric-manager-restart:FAIL@{where}"]
    assert said[0].why.endswith("(CUDA error: a CUDA call failed: the GPU, the driver, or the program's kernel)")


def test_the_readable_lines_list_a_few_channels_and_count_the_rest_the_findings_after_them():
    """A job of many ranks prints thousands of distinct channel lines: the readable lines list the first 16 and count
    the rest by transport (their JSON lists each), so the verdict is not scrolled away."""
    channels = "".join(f"h{r % 4}:{100 + r}:{200 + r} [{r % 8}] NCCL INFO Channel {c:02d}/0 : {r}[{r % 8}] -> "
                       f"{(r + 1) % 64}[{(r + 1) % 8}] via {'NET/IB/0' if r % 8 == 7 else 'P2P/IPC'}\n"
                       for r in range(64) for c in range(2))
    text = channels + "h1:101:201 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 1 'invalid argument'\n"
    log = parse(text, "many.log")
    section = output.nccl_section(log, diagnose(log))
    lines = output.table(section).splitlines()
    assert len(section["channels"]) == 128 and sum(": channel " in line for line in lines) == 16
    assert "  ... 112 more channel lines (128 in all: P2P 112, NET/IB 16); --json lists each" in lines
    assert any(line.startswith("  FAIL nvls-after-fabric-manager-restart") for line in lines)
