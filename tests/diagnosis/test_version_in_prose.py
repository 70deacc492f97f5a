"""An NCCL version said in the paste's words (`when using NCCL 2.19.3`, `NCCL: 2.4.8`), where no line of
NCCL's or PyTorch's says it, is read for the rules that need a version (fixed_in_later_nccl.py), and the
finding says it was read from prose. Strict: the release must follow the word NCCL closely, and a paste
naming several releases names none."""
import pytest

from diagnosis_helpers import found, ids, parse
from wirebench.diagnosis.fixed_in_later_nccl import prose_version, versions


@pytest.mark.parametrize("text, version", [
    ("NCCL 2.27.5 + cuda 13.0\n`8*H100` with `8*CX7`\n", (2, 27, 5)),          # NVIDIA/nccl#1882's description
    ("Docker: nvidia/cuda:10.1-cudnn7-devel-ubuntu16.04\nPytorch: 1.2.0\nCUDA: 10.1\nNCCL: 2.4.8\n", (2, 4, 8)),  # #293
    ("Internal error in `ncclCommInitRank` (NCCL version 2.18.5+cuda12.2)\n", (2, 18, 5)),  # NVIDIA/nccl#999's title
    ("the job fails when using NCCL 2.19.3\n", (2, 19, 3)),                   # the words issue 55 names
    ("nccl version 2.18.1\n", (2, 18, 1)),
    ("NCCL 2.21.5 on H100\n", (2, 21, 5)),
])
def test_a_version_said_in_prose_is_read(text, version):
    log = parse(text, "issue.md")
    assert prose_version(log)[0] == version
    assert versions(log) == {"": (version, prose_version(log)[1])}


@pytest.mark.parametrize("text", [
    "FSDP fails on v2.20.3-1\n",                                               # NVIDIA/nccl#1185's title: no NCCL
    "Without it, there's no chance to get things to work with 2.25.1.\n",     # NVIDIA/nccl#1637 (kiskra-nvidia)
    "If you are running with NCCL 2.18, you can ignore that message\n",       # NVIDIA/nccl-tests#275: not X.Y.Z
    "Thanks, I solved the problem, I changed the version to 2.19.3\n",        # the same thread: no NCCL before it
    "mpirun nccl capture failes in nccl2.22.3 suceess in nccl2.19.3\n",       # NVIDIA/nccl#1471's title: two releases
    "libnccl.so.2.18.1: cannot open shared object file\n",                    # a word that only ends in nccl
])
def test_prose_that_names_no_one_release_closely_is_not_read(text):
    assert prose_version(parse(text, "issue.md")) is None


def test_nccls_own_version_line_outranks_the_prose():
    log = parse("we use NCCL 2.19.3 here\nn1:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n", "job.log")
    assert versions(log) == {"n1": ((2, 21, 5), 2)}


def test_an_internal_error_on_an_old_nccl_said_in_prose_is_marked_so():
    """NVIDIA/nccl#999: its title names NCCL 2.18.5, its first line quotes the program's internal error; no line
    of NCCL's says the version. Before, no version: internal-error-on-old-nccl said nothing."""
    text = ("Internal error in `ncclCommInitRank` (NCCL version 2.18.5+cuda12.2)\n"
            "See below for an internal error, reporting here as requested: \"Failed, NCCL error "
            "/home/ubuntu/test/main.c:96 'internal error - please report this issue to the NCCL developers'\".\n")
    said = [f for f in found(text) if f.id == "internal-error-on-old-nccl"]
    assert said, ids(found(text))
    assert said[0].what.startswith("NCCL 2.18.5 (read from the prose at line 1: no line of NCCL's says its "
                                   "version) failed inside itself"), said[0].what


def test_a_fixed_bug_on_a_version_said_in_prose_is_marked_so():
    """NVIDIA/nccl#1882's first line (`NCCL 2.27.5 + cuda 13.0`) above NCCL's NVLS bind failure as
    pytorch/pytorch#177472 quotes it (its PyTorch line, which names its own NCCL, left out): NCCL 2.28.7 fixed
    the multicast leak behind it (suites/nccl-fixes.csv), and the finding says where its 2.27.5 was read."""
    text = ("NCCL 2.27.5 + cuda 13.0\n"
            "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation "
            "cannot be performed in the present state'.\n")
    said = [f for f in found(text) if f.id == "fixed-in-later-nccl"]
    assert said, ids(found(text))
    assert said[0].what.startswith("NCCL 2.27.5 (read from the prose at line 1: no line of NCCL's says its version) "
                                   "has a bug that NCCL fixed in 2.28.7"), said[0].what
    assert "the paste's prose at line 1 says NCCL 2.27.5, read as the NCCL that ran" in said[0].why, said[0].why


def test_a_setting_the_prose_version_does_not_read_is_said_with_where_the_version_came_from():
    """unknown-setting read NCCL's own `NCCL version` line only: with the release said in the prose, a setting that
    NCCL introduced later (NCCL_CUMEM_HOST_ENABLE, 2.23.4: suites/nccl-parameters.csv) is said not read, marked so."""
    text = ("Got this error when using NCCL 2.19.3 on two nodes\n"
            "$ mpirun -np 16 -x NCCL_CUMEM_HOST_ENABLE=1 ./build/all_reduce_perf -b 8 -e 1G -g 1\n"
            "n1:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n")
    said = [f for f in found(text) if f.id == "unknown-setting"]
    assert [f.what for f in said] == ["NCCL_CUMEM_HOST_ENABLE is not read by NCCL 2.19.3 (read from the prose at "
                                      "line 1)"], ids(found(text))
