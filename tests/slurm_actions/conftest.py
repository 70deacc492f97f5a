import sys
from pathlib import Path

# wirebench_slurm and wirebench_run live in ci/, the reporter in reports/
ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "ci"), str(ROOT / "reports")]
