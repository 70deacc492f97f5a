"""Where the runner finds suites, binaries and the virtual cluster. The runner lives in
share/wirebench/python/wirebench/run (installed, or the build tree's links into the source tree); the binaries in the
bin/ folder beside share/ (WB_BIN_DIR, which `wirebench` sets, and WB_SUITES_DIR override)."""
import os
from pathlib import Path

DATA = Path(__file__).absolute().parents[3]  # share/wirebench, or the source tree run in place
SUITES = Path(os.environ.get("WB_SUITES_DIR", DATA / "suites"))
BIN = Path(os.environ.get("WB_BIN_DIR", DATA.parents[1] / "bin"))
VCLUSTER = DATA / "ci" / "vcluster"
