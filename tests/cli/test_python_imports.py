"""The Python package's layers, as docs/design.md draws them (issue 45): `contracts` (schema/, input
files, meta.json) below everything; `robust` and `collectives` beside it; `history` on those; `report`
on history; `run` and `importer` on report; `slurm` on run (`wirebench check` runs a suite); `diagnosis`
(the NCCL log's) on importer's paste reader and run's paths. A library module imports only its own package
and the layers below it, so no two packages import each other; a program (`__main__`) may use any
library, and no library imports a program. Checked on every import statement, function-local ones
too (ctest label: unit)."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "wirebench"
BELOW = {  # package: the packages (and top-level modules) its library modules may import
    "contracts": set(),
    "robust": set(),
    "collectives": set(),
    "history": {"contracts", "robust"},
    "report": {"contracts", "robust", "collectives", "history"},
    "importer": {"contracts", "robust", "collectives", "report"},
    "run": {"contracts", "robust", "collectives", "report"},
    "slurm": {"contracts", "robust", "report", "run"},  # wirebench check runs a suite
    "diagnosis": {"contracts", "importer", "run"},  # the paste reader; run.paths: the suites' folder
    "__main__": {"contracts"},  # python3 -m wirebench COMMAND: a program, each command's imported by name
}


def imported(path):
    """(line, dotted module) of each wirebench module `path` imports."""
    module = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = module[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                name = ".".join(base + ((node.module,) if node.module else ()))
            else:
                name = node.module or ""
            names = [name] if node.module else [f"{name}.{alias.name}" for alias in node.names]
            yield from ((node.lineno, n) for n in names if n.startswith("wirebench"))
        elif isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names if a.name.startswith("wirebench"))


def test_each_package_imports_only_the_layers_below_it():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        owner = parts[0]
        for line, name in imported(path):
            target = name.split(".")
            if len(target) < 2 or target[1] == owner:
                continue
            if target[-1] == "__main__" and parts[-1] != "__main__":
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports the program {name}")
            elif parts[-1] != "__main__" and target[1] not in BELOW.get(owner, set()):
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports {name} ({owner} may use "
                             f"{', '.join(sorted(BELOW.get(owner, ()))) or 'nothing of wirebench'})")
    assert wrong == []


def test_every_package_has_its_layer():
    packages = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
                if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    assert packages == set(BELOW)
