import sys
from pathlib import Path

# the package wirebench (report, run, slurm) lives in python/
ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python")]
