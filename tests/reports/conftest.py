"""The report tests' set-up: the package on the path (report_helpers.py holds their shared helpers)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
