"""The twenty-third and twenty-fourth fresh sets (tests/data/nccl-fresh-2026-12-16 and -16-b: healthy logs only,
measured blind in session 36, bench/MEASUREMENTS.md) and what was written from them. RCCL looks for its profiler
plugin under its own name on every run (`PROFILER/Plugin: Could not find: librccl-profiler.so.`, Ahalperin/amd-dev's
healthy MI355X runs): read as a file the job named, a WARN plugin-not-loaded."""
from pathlib import Path

from diagnosis_helpers import found as found_in_text
from diagnosis_helpers import ids
from wirebench.diagnosis import diagnose, read_log

HEALTHY = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-16-b" / "healthy"


def test_rccls_own_plugin_names_are_its_defaults_not_the_jobs():
    said = ids(diagnose(read_log(HEALTHY / "amd-dev-scale_2x8gpu_all_reduce-nccl_debug.log")))
    assert not any(s.startswith("plugin-not-loaded") for s in said), said
    # a profiler the job named and NCCL did not find is still said
    named = ("h:1:2 [0] NCCL INFO NCCL_PROFILER_PLUGIN set by environment to libmyprof.so\n"
             "h:1:2 [0] NCCL INFO PROFILER/Plugin: Could not find: libmyprof.so.\n")
    assert any(s.startswith("plugin-not-loaded") for s in ids(found_in_text(named)))
