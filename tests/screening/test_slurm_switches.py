"""The leaf switches of a Slurm job from Slurm's topology/tree (`scontrol show topology`), through a
stand-in scontrol that answers as Slurm's does (ctest label: unit; the virtual cluster's Slurm has no
topology.conf)."""
import os
import stat
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from wirebench.run.switches import job_nodes, leaf_switches  # noqa: E402

TOPOLOGY = """SwitchName=leafa Level=0 LinkSpeed=1 Nodes=gpu[01-03]
SwitchName=leafb Level=0 LinkSpeed=1 Nodes=gpu[04-05],login1
SwitchName=spine Level=1 LinkSpeed=1 Switches=leaf[a-b]
"""

# Expands the two bracket forms above, as `scontrol show hostnames` does.
SCONTROL = r'''#!/usr/bin/env python3
import re, sys
args = sys.argv[1:]
if args == ["show", "topology"]:
    sys.stdout.write(open(sys.argv[0] + ".topology").read())
elif args[:2] == ["show", "hostnames"]:
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", args[2]):
        m = re.fullmatch(r"(\w+)\[(\d+)-(\d+)\]", part)
        if m:
            width = len(m.group(2))
            for i in range(int(m.group(2)), int(m.group(3)) + 1):
                print(f"{m.group(1)}{i:0{width}d}")
        else:
            print(part)
else:
    sys.exit(1)
'''


def fake_scontrol(tmp_path, monkeypatch, topology):
    path = tmp_path / "scontrol"
    path.write_text(SCONTROL)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    (tmp_path / "scontrol.topology").write_text(topology)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")


def test_leaf_switches_come_from_the_level_0_switches(tmp_path, monkeypatch):
    fake_scontrol(tmp_path, monkeypatch, TOPOLOGY)
    assert leaf_switches() == {"gpu01": "leafa", "gpu02": "leafa", "gpu03": "leafa", "gpu04": "leafb",
                               "gpu05": "leafb", "login1": "leafb"}


def test_no_topology_is_no_switches(tmp_path, monkeypatch):
    fake_scontrol(tmp_path, monkeypatch, "")
    assert leaf_switches() == {}
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # no scontrol at all
    assert leaf_switches() == {}


def test_the_jobs_nodes_in_slurms_order(tmp_path, monkeypatch):
    fake_scontrol(tmp_path, monkeypatch, TOPOLOGY)
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    assert job_nodes() == []
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    monkeypatch.setenv("SLURM_JOB_NODELIST", "gpu[04-05],gpu[01-02]")
    assert job_nodes() == ["gpu04", "gpu05", "gpu01", "gpu02"]
