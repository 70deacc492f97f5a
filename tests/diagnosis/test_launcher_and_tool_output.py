"""Issue 55: the corpus's train files that hold no line of NCCL 2's, read all the same (never
silent on an error): a launcher's error (ssh, Open MPI's orted and PMIx client, PyTorch's Gloo store), NCCL 1.x's
`WARN src/core.cu:N`, nccl-tests' own data check and its summary; an nccl-tests output that
stopped after its header is still refused (exit 3), saying so, never read as healthy. And the GID
table of nccl#769 names its cause before the generic QP-timeout entry. Each file is the thread's
text as tests/data/nccl-corpus/index.csv names it (all of split train)."""
import csv
import subprocess
import sys

import pytest

from diagnosis_helpers import ROOT, diagnose, found, ids, parse, read_log
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import errors

CORPUS = ROOT / "tests" / "data" / "nccl-corpus"
SPLIT = {r["file"]: r["split"] for r in csv.DictReader(open(CORPUS / "index.csv"))}


def corpus(name):
    assert SPLIT[name] == "train", name  # a held-out case is never read here
    return diagnose(read_log(CORPUS / name))


@pytest.mark.parametrize("name, expected, quoted", [
    ("cloudai-720.log", "launcher-ssh-unreachable:FAIL@1", "/usr/sbin/sshd: No such file or directory"),
    ("nccl-tests-299.log", "launcher-ssh-unreachable:FAIL@3", "ssh: connect to host (worker_ip) port 22: Connection refused"),
    ("ompi-599.log", "mpi-not-on-remote-path:FAIL@1", "bash: orted: command not found"),
    ("aws-do-eks-50.log", "gloo-loopback-address:FAIL@1", "Unable to resolve hostname to a (local) address"),
    ("deepops-642.log", "pmix-client-init-failed:FAIL@3", "OPAL ERROR: Error in file pmix3x_client.c at line 112"),
    ("nccl-33.log", "nccl-1x:FAIL@3", "WARN src/core.cu:225 failed to allocate 2101248 byte device buffer"),
])
def test_a_launchers_and_nccl_1x_errors_are_read_and_named(name, expected, quoted):
    said = corpus(name)
    assert ids(said)[0] == expected
    assert quoted in said[0].what and said[0].error


def test_without_the_catalogue_each_is_still_an_error_quoted_with_its_class():
    for name, quoted, cls in [("cloudai-720.log", "sshd: No such file", "launcher error"),
                              ("ompi-599.log", "orted: command not found", "launcher error"),
                              ("nccl-tests-299.log", "port 22: Connection refused", "launcher error"),
                              ("nccl-tests-37.log", "Out of bounds values : 2 FAILED", "wrong results")]:
        said = diagnose(read_log(CORPUS / name), entries=[])
        errs = [f for f in said if f.error]
        assert errs and errs[0].id == "error-not-in-catalogue" and errs[0].verdict == "FAIL", name
        assert quoted in errs[0].what and errs[0].why.startswith(cls), (name, errs[0].why)


def test_nccl_tests_wrong_values_are_an_error_and_a_pass_is_not():
    said = corpus("nccl-tests-37.log")
    assert ids(said) == ["error-not-in-catalogue:FAIL@6"] and "Out of bounds values : 2 FAILED" in said[0].what
    assert not errors.find(parse("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 3.94\n", "ok.log"))


def test_nccl_1x_init_failure_line_is_an_error():
    log = parse("NCCL Init failed (10) 'cuda malloc failed'\n", "x.log")
    assert [e.line for e in errors.find(log)] == [1]


def test_a_slurm_tasks_exit_is_not_the_launchers_error_but_its_own_error_is():
    """A task's exit is a consequence: said (never silent) only where the log holds no error of its own."""
    alone = errors.find(parse("srun: error: node1: task 0: Exited with exit code 1\n", "x.log"))
    assert len(alone) == 1 and alone[0].error_class.name == "a process exited"
    said = errors.find(parse("srun: error: Unable to create step for job 42: Invalid generic resource (gres) "
                             "specification\nsrun: error: node1: task 0: Exited with exit code 1\n", "x.log"))
    assert len(said) == 1 and said[0].error_class.name == "launcher error"


def test_nccl_tests_built_without_mpi_prints_one_summary_a_process():
    """NVIDIA/nccl-tests#27: `mpirun -np 2` and two result blocks: each process ran alone."""
    said = corpus("nccl-tests-27.log")
    assert ids(said) == ["nccl-tests-ran-alone:FAIL@8"]
    assert "2 times under one launch of 2 processes (line 1)" in said[0].what and "MPI=1" in said[0].fix
    # one summary under the same launch: one test of two ranks, healthy
    one = (CORPUS / "nccl-tests-27.log").read_text().split("#\n# Out of bounds")[0]
    assert "Avg bus bandwidth" in one and not [f for f in found(one) if f.id == "nccl-tests-ran-alone"]


def test_a_link_local_roce_gid_explains_the_qp_timeout():
    """NVIDIA/nccl#769: GID index 1 is fe80:: (RoCE v2, link-local, not routed): the rule's finding
    stands on the QP error's line, quoting it, and the generic entry ib-qp-connect-timeout is not said."""
    said = corpus("nccl-769.log")
    assert ids(said) == ["roce-gid-link-local:FAIL@2"]
    assert "GID index 1 (line 1)" in said[0].what and "fe80::ac0:ebff:feda:1cfb" in said[0].what
    assert "ibv_modify_qp failed with error Connection timed out" in said[0].what and "NCCL_IB_GID_INDEX" in said[0].fix
    # the routed IPv4-mapped GID 3: the rule is quiet, the catalogue's entry reads the timeout
    text = (CORPUS / "nccl-769.log").read_text().replace("GID Index to 1", "GID Index to 3")
    assert ids(found(text)) == ["ib-qp-connect-timeout:FAIL@2"]
    # NCCL's own setting line says the index where it is printed
    setting = "h:1:1 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 1.\n"
    rows = "\n".join(l for l in (CORPUS / "nccl-769.log").read_text().splitlines() if "GID Index" not in l)
    said = found(setting + rows)  # the reporter's line 1 taken out: the QP error is line 2
    assert ids(said) == ["roce-gid-link-local:FAIL@2"] and "GID index 1 (line 1)" in said[0].what


def test_a_result_row_with_wrong_elements_is_an_error_and_a_clean_row_is_not():
    """Rows as nccl-tests' src/common.cu prints them (Reporter::parameters and ::result): the
    out-of-place or the in-place #wrong not 0 is wrong results, a run cut before its summary included;
    0 and the in-place N/A are not."""
    clean = ("    33554432       8388608     float    none      -1    19.56  1715.44    0.00      0     0.78  43046.10"
             "    0.00    N/A\n"
             "      199680         49920     float     max      -1    125.8    1.59    2.98      0    125.1    1.60"
             "    2.99      0\n")
    assert not errors.find(parse(clean, "ok.log"))
    for wrong in ("    16777216       4194304     float     sum      -1   2211.5    7.59    7.59     50   2206.8    7.60"
                  "    7.60      0\n",
                  "    16777216       4194304     float     sum      -1   2211.5    7.59    7.59      0   2206.8    7.60"
                  "    7.60     12\n"):
        said = errors.find(parse(clean + wrong, "bad.log"))
        assert [(e.line, e.error_class.name) for e in said] == [(3, "wrong results")], wrong


def test_nccl_tests_own_timeout_is_an_error_of_its_host():
    """nccl-tests -T: `printf("%s: Test timeout (%ds) %s:%d\\n", hostname, timeout, __FILE__, __LINE__)`."""
    said = errors.find(parse("node7: Test timeout (30s) common.cu:421\n", "t.log"))
    assert [(e.rank, e.error_class.name) for e in said] == [("node7", "timeout")]
