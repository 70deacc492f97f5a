"""Open MPI's runtime prints `PMIX ERROR: BAD-PARAM in file ...` on many runs that complete
(open-mpi/ompi#8548: "the program doesn't stop"; #10902, #11964; NVIDIA/nccl-tests#190's
successful run): on that line alone a run that went on is no launcher failure. A run that stops
after it (hpc/charliecloud's FAQ: `0 (out of 1) procs`; NVIDIA/deepops#642's OPAL ERROR) is."""
from diagnosis_helpers import DATA, diagnose, found, ids, parse, read_log

SUCCESS = DATA / "nccl-tests-190-pmix-bad-param-success.log"
DIED = DATA / "charliecloud-mpirun-pmix-bad-param.log"


def test_a_run_that_completes_after_pmix_bad_param_is_no_launcher_failure():
    """NVIDIA/nccl-tests#190's multi-node run ("success"): six PMIX ERROR lines, then
    hypercube_perf's results and summary. It read FAIL error-not-in-catalogue (launcher error)."""
    assert diagnose(read_log(SUCCESS)) == []


def test_a_run_that_dies_after_pmix_bad_param_is_said():
    """hpc/charliecloud's doc/faq.rst ("mpirun can't launch jobs"): no process started, the PMIX
    ERROR is the run's last word: a launcher error, quoted."""
    said = diagnose(read_log(DIED))
    assert ids(said) == ["error-not-in-catalogue:FAIL@3"]
    assert "PMIX ERROR: BAD-PARAM in file src/dstore/pmix_esh.c at line 996" in said[0].what
    assert "launcher error" in said[0].why
    # nccl-tests#190's lines where the output stops at the header (a hang, a crash): said too
    text = SUCCESS.read_text()
    cut = text[:text.index("           8             4")]
    assert [f.verdict for f in diagnose(parse(cut, "cut.log"))] == ["FAIL"]


def test_only_runtime_noise_before_the_progress_is_dropped():
    """NCCL's init completing after the line counts as going on; an error after the last progress,
    or another launcher error (ORTE's), stays."""
    ok = ("[n1:1] PMIX ERROR: BAD-PARAM in file base/bfrop_base_unpack.c at line 692\n"
          "n1:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 18000 commId 0x1 - Init COMPLETE\n")
    assert found(ok) == []
    late = ok + "[n1:1] PMIX ERROR: PMIX_ERR_UNREACH in file ptl_tcp.c at line 790\n"
    assert [f.verdict for f in found(late)] == ["FAIL"]
    orte = ("ORTE was unable to reliably start one or more daemons.\n"
            "n1:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 18000 commId 0x1 - Init COMPLETE\n")
    assert [f.verdict for f in found(orte)] == ["FAIL"]
