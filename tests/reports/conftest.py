import sys
from pathlib import Path

# the reporter package lives in reports/
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
