"""What an error class most often was (issue 55): suites/nccl-class-causes.csv is what its generator
makes of the corpus's train split; a generic finding of a class of 3 train threads or more lists up
to 3 causes of 2 threads or more (count, base, check), its id and verdict unchanged; a class of fewer
says nothing more; where an entry or a rule names the cause, no finding lists any."""
import json
import sys

import pytest

from diagnosis_helpers import DATA, ROOT, diagnose, read_log
from test_front_door import wirebench
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import class_causes, output

sys.path.insert(0, str(ROOT / "bench" / "diagnosis"))
import class_causes as generator  # noqa: E402  (bench/diagnosis/class_causes.py)
import corpus  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "nccl-corpus"


def generic(findings):
    return [f for f in findings if f.id in ("error-not-in-catalogue", "warn-not-in-catalogue")]


def test_the_generator_reproduces_the_committed_file_from_the_train_split_alone():
    assert generator.render() == (ROOT / "suites" / "nccl-class-causes.csv").read_text(encoding="utf-8")
    table = class_causes.read()
    train = {c["origin"]: c["cause_class"] for c in corpus.index() if c["split"] == "train"}
    held_out = {c["origin"] for c in corpus.index() if c["split"] != "train"} - set(train)
    for causes in table.values():
        for c in causes:
            assert all(train.get(t) == c.cause for t in c.threads), c  # each thread a train case of that cause
            assert not held_out & set(c.threads)
    # the shm cases' class: NCCL's `-> 2` chain under the /dev/shm WARN
    shm = next(c for c in table["ncclSystemError"] if c.cause == "shm-too-small")
    assert shm.count == 6 and shm.of == 15 and "NVIDIA/nccl#525" in shm.threads
    assert shm.check.startswith("give the container more shared memory (docker run --shm-size=1g;")
    ssh = next(c for c in table["launcher error"] if c.cause == "launcher-ssh-missing")
    assert ssh.check.startswith("check `ssh NODE hostname` from the launcher's node")


def test_a_check_is_the_fix_clause_that_checks_else_its_first():
    fix = ("load NCCL 2.13 (the wheel; no LD_PRELOAD) and check what runs with python -c 'import torch; print(1)'; "
           "check the driver's `nvidia-smi; dmesg`; reboot")
    assert generator.clauses(fix) == ["load NCCL 2.13 (the wheel; no LD_PRELOAD) and check what runs with python -c "
                                      "'import torch; print(1)'", "check the driver's `nvidia-smi; dmesg`", "reboot"]
    assert generator.check_of(fix) == "check the driver's `nvidia-smi; dmesg`"
    assert generator.check_of("reboot the node (or reset the GPUs); NCCL_NVLS_ENABLE=0 meanwhile") == \
        "reboot the node (or reset the GPUs)"


def test_a_generic_finding_of_a_class_with_enough_threads_lists_its_likely_causes_with_counts(tmp_path):
    """pytorch-distbackend-no-route.log (tests/data/nccl/ORIGINS.md) without its `Last error:` and NCCL's WARN under
    it (read there as the WARN it is: connection-failed): an ncclSystemError no entry reads."""
    lines = (DATA / "pytorch-distbackend-no-route.log").read_text().split("\n")
    cut = lines.index("Last error:")
    log = tmp_path / "no-route-without-last-error.log"
    log.write_text("\n".join(lines[:cut] + lines[cut + 2:]))
    findings = diagnose(read_log(log))
    [f] = generic(findings)
    assert (f.id, f.verdict, f.error_class) == ("error-not-in-catalogue", "FAIL", "ncclSystemError")
    assert [(c.cause, c.count, c.of) for c in f.likely] == [("shm-too-small", 6, 15), ("nccl-graph-file", 2, 15)]
    said = f.as_json()["likely"]
    assert said[1] == {"cause": "nccl-graph-file", "count": 2, "of": 15, "threads": ["NVIDIA/nccl#1240",
                       "Azure/azhpc-images#327"], "check": said[1]["check"]}
    assert said[1]["check"].startswith("unset NCCL_GRAPH_FILE")
    text = output.table(output.nccl_section(read_log(log), findings))
    assert ("      likely: most often, in 15 public threads with an error of this class (the NCCL corpus's train "
            "split, suites/nccl-class-causes.csv): shm-too-small (6: give the container more shared memory") in text
    assert "nccl-graph-file (2: unset NCCL_GRAPH_FILE" in text and "not this log's cause" in text


def test_a_class_with_fewer_threads_or_no_cause_seen_twice_says_nothing_more():
    # a crash: 2 train threads
    [crash] = [f for f in generic(diagnose(read_log(DATA / "nccl-726-double-free-2.14.3.log")))
               if f.error_class == "crash"]
    assert crash.likely == [] and "likely" not in crash.as_json()
    # ncclRemoteError: 4 train threads, 4 causes once each
    [remote] = generic(diagnose(read_log(DATA / "nccl-2076-remote-error.log")))
    assert remote.error_class == "ncclRemoteError" and remote.likely == []
    assert len(class_causes.read()["ncclRemoteError"]) == 4


def test_the_thresholds_on_a_table_of_its_own(tmp_path):
    file = tmp_path / "causes.csv"
    file.write_text("# a comment\nclass,cases,cause,count,threads,check_from,check\n"
                    "A,9,b,2,x/y#1 x/y#2,,\nA,9,a,2,x/y#3 x/y#4,e,check a\nA,9,c,3,x/y#5 x/y#6 x/y#7,,\n"
                    "A,9,d,2,x/y#8 x/y#9,,\nB,2,a,2,x/y#1 x/y#2,,\nC,3,a,1,x/y#1,,\n")
    table = class_causes.read(file)
    assert [(c.cause, c.count) for c in class_causes.likely("A", table)] == [("c", 3), ("a", 2), ("b", 2)]
    assert class_causes.likely("B", table) == [] and class_causes.likely("C", table) == []
    assert class_causes.likely("D", table) == []


@pytest.mark.parametrize("row, said", [
    ("A,three,b,2,x/y#1 x/y#2,,", "cases and count must be whole numbers"),
    ("A,3,b,2,x/y#1,,", "count 2 must be between 1 and cases 3 and name as many threads (it names 1)"),
    ("A,3,b,2,x/y#1 x/y#2,,,extra", "more fields than the header's 7"),
])
def test_a_bad_row_is_named_by_file_and_line(tmp_path, row, said):
    file = tmp_path / "causes.csv"
    file.write_text(f"# comment\nclass,cases,cause,count,threads,check_from,check\n{row}\n")
    with pytest.raises(InputError, match=rf"causes\.csv:3: .*{said[:20]}") as error:
        class_causes.read(file)
    assert said in str(error.value)


@pytest.mark.parametrize("name", ["nccl-525.log", "xgboost-5963.log"])
def test_where_an_entry_names_the_cause_no_finding_lists_likely_causes(name):
    """nccl-525 and xgboost-5963 (train, /dev/shm too small): shm-too-small names the cause; xgboost's other
    rank's error stays a generic ncclSystemError beside it, without a list. The catalogue taken away, the same
    log's generic findings list their class's causes."""
    findings = diagnose(read_log(CORPUS / name))
    assert "shm-too-small" in [f.id for f in findings]
    assert not any(f.likely for f in findings)
    bare = generic(diagnose(read_log(CORPUS / name), entries=[]))
    assert bare and all(f.likely[0].cause == "shm-too-small" for f in bare)


def test_the_front_door_passes_the_list_through():
    # deepspeedai/DeepSpeed#536 (a fresh set's): an ncclSystemError no entry or rule reads (awslabs/awsome-distributed-ai#192,
    # the example before, is read since its flattened line is split again: a connection to 127.0.0.1)
    unread = DATA.parent / "nccl-fresh-2026-12-06" / "deepspeed-536.log"
    result = wirebench("topo", "--nccl-log", unread, "--json")
    assert result.returncode == 1, result.stderr
    [f] = [d for d in json.loads(result.stdout)["nccl"]["diagnoses"] if d["id"] == "error-not-in-catalogue"]
    assert [(c["cause"], c["count"], c["of"]) for c in f["likely"]] == [("shm-too-small", 6, 15),
                                                                        ("nccl-graph-file", 2, 15)]
    table = wirebench("topo", "--nccl-log", unread)
    assert "      likely: most often, in 15 public threads" in table.stdout
