"""Replaces tests/fuzz/fuzz_nccl_log.cpp: any text given to the reader and the diagnosis (with and
without the node's wiring) ends in findings or an InputError naming the file, never another
exception. The kept fuzz corpus (tests/fuzz/corpus/nccl) is replayed, then seeded random mixes of
NCCL's lines, their pieces and noise."""
import random
from pathlib import Path

import pytest

from diagnosis_helpers import DATA, diagnose, parse
from wirebench.contracts.input_files import InputError

CORPUS = Path(__file__).resolve().parents[1] / "fuzz" / "corpus" / "nccl"
PIECES = [l for f in sorted(DATA.glob("*.log")) for l in f.read_text().splitlines()] + [
    "[1,0]<stdout>:", "0: ", " NCCL WARN ", " NCCL INFO ", "Channel 00/0 : ", "[", "]", " -> ", " via NET/IB/",
    "/GDRDMA", "Last error:", "nNodes 2", "set by environment to ", "\x1b[31m", "\t", ":", "\r", "```", "> "]


def check(text, h100, source="fuzz.log"):
    try:
        log = parse(text, source)
    except InputError as error:
        assert str(error).startswith(source)
        return
    for found in (diagnose(log), diagnose(log, h100)):
        for f in found:
            assert f.verdict in ("FAIL", "WARN") and f.id and f.line >= 0


def test_the_kept_fuzz_corpus(h100):
    files = sorted(CORPUS.iterdir())
    assert files
    for file in files:
        check(file.read_bytes().decode("utf-8", errors="replace"), h100, file.name)


@pytest.mark.parametrize("seed", range(40))
def test_random_mixes_of_nccls_lines_and_noise(seed, h100):
    rng = random.Random(seed)
    lines = []
    for _ in range(rng.randint(0, 60)):
        line = rng.choice(PIECES)
        if rng.random() < 0.5:
            cut = rng.randint(0, len(line))
            line = line[:cut] + rng.choice(PIECES) + line[cut:]
        if rng.random() < 0.1:
            line += "".join(chr(rng.randint(0, 0x2FF)) for _ in range(rng.randint(1, 8)))
        lines.append(line)
    check("\n".join(lines) + rng.choice(["", "\n"]), h100)
