"""A run directory as the history records it: its identity (sha256 of results.csv: the same run
added twice is one), when it was measured (meta.json's created; else results.csv's time), its
nodes, suite and versions (meta.json's, the kernel included where the binaries recorded it)."""
import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

from ..contracts.input_files import InputError
from ..contracts.run_meta import read_meta, results_schema
from .store import TIME_FORMAT, Run


def run_of(run_dir: Path) -> Run:
    results = run_dir / "results.csv"
    if not results.is_file():
        raise InputError(f"{results}: no such file (a run directory has one)")
    data = results.read_bytes()
    meta = read_meta(run_dir / "meta.json")
    versions = meta.get("versions") or {}
    suite = ""
    if (run_dir / "suite.json").exists():
        try:
            suite = json.loads((run_dir / "suite.json").read_text()).get("name", "")
        except (ValueError, AttributeError):
            suite = ""
    when = meta.get("created") or datetime.fromtimestamp(results.stat().st_mtime, timezone.utc).strftime(TIME_FORMAT)
    header = data.split(b"\n", 1)[0].decode("utf-8", "replace").split(",")
    def said(value):  # "MPICH Version:      5.0.2" -> "MPICH Version: 5.0.2"
        return " ".join(str(value or "").split())
    return Run(run_id=hashlib.sha256(data).hexdigest()[:16], time=when, run_dir=str(run_dir.resolve()), suite=suite,
               nodes=",".join(meta.get("hosts") or []), wirebench=str(meta.get("version", "")),
               revision=str(meta.get("revision", "")), driver=said(versions.get("cuda_driver", "")),
               cuda=said(versions.get("cuda_runtime", "")), nccl=said(versions.get("nccl", "")),
               mpi=said(versions.get("mpi", "")), kernel=said(versions.get("kernel", "")),
               results_schema=results_schema(run_dir / "meta.json", header),
               added=datetime.now(timezone.utc).strftime(TIME_FORMAT))
