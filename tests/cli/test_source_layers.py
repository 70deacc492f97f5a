"""The source's layers, as docs/design.md draws them: each C++ folder includes only the folders
below it (harness <- comm <- runner <- the benchmarks), and the reporter imports nothing of the
runner (ctest label: unit). CMake builds a library per layer too, so a wrong include that this test
missed would not link."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BELOW = {  # folder: the bench folders its sources may include
    "harness": {"harness"},
    "comm": {"harness", "comm", "gpu"},  # gpu: the NCCL communicator's checked CUDA calls (library wb_gpu)
    "runner": {"harness", "comm", "runner", "gpu"},
}
INCLUDE = re.compile(r'^#include "(\w+)/', re.M)


def test_each_cpp_layer_includes_only_the_layers_below_it():
    wrong = []
    for folder, allowed in BELOW.items():
        for source in sorted((ROOT / "bench" / folder).glob("*.[ch]*")):
            for included in INCLUDE.findall(source.read_text()):
                if included not in allowed and included not in ("schema", "libfccp"):
                    wrong.append(f"{source.relative_to(ROOT)} includes {included}/")
    assert wrong == []


def test_the_reporter_imports_nothing_of_the_runner():
    wrong = [f"{p.relative_to(ROOT)}" for p in sorted((ROOT / "python" / "wirebench" / "report").glob("*.py"))
             if re.search(r"^\s*(from|import) (wirebench\.run|wirebench\.slurm|wirebench\.importer|\.\.run|\.\.slurm|\.\.importer)\b", p.read_text(), re.M)]
    assert wrong == []
