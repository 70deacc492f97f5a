"""Where the runner finds suites, binaries and the virtual cluster (WB_SUITES_DIR and WB_BIN_DIR
override the first two)."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITES = Path(os.environ.get("WB_SUITES_DIR", ROOT / "suites"))
BIN = Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "default" / "bin"))
VCLUSTER = ROOT / "ci" / "vcluster"
