"""PyTorch's watchdog timeouts of several ranks fold into one finding where they are of one work, which
its sequence number alone does not say: a number counts the works of one process group, so another
collective or another group at one number is another work (issue 55's known gaps)."""
from diagnosis_helpers import found, ids, parse
from test_ranks_disagree import NCCL_1409
from wirebench.diagnosis import errors

# hiyouga/LlamaFactory#6269, ranks 0 and 4 at work 7753 of PG 1, each with the line naming its group after the
# watchdog's
LLAMAFACTORY_6269 = (
    "[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=7753, OpType=_REDUCE_SCATTER_BASE, NumelIn=544997376, NumelOut=68124672, "
    "Timeout(ms)=600000) ran for 600061 milliseconds before timing out.\n"
    "[rank0]:[E1206 18:44:12.715588844 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception (either an error or "
    "timeout) detected by watchdog at work: 7753, last enqueued NCCL work: 7755, last completed NCCL work: 7752.\n"
    "[rank4]:[E1206 18:44:12.755262105 ProcessGroupNCCL.cpp:607] [Rank 4] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=7753, OpType=_REDUCE_SCATTER_BASE, NumelIn=544997376, NumelOut=68124672, "
    "Timeout(ms)=600000) ran for 600099 milliseconds before timing out.\n"
    "[rank4]:[E1206 18:44:12.755468433 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 4] Exception (either an error or "
    "timeout) detected by watchdog at work: 7753, last enqueued NCCL work: 7755, last completed NCCL work: 7752.\n")


def test_one_number_of_two_collectives_is_two_works():
    """NVIDIA/nccl#1409: rank 7 timed out in a BROADCAST, rank 3 in an ALLREDUCE, both numbered 80078."""
    said = errors.find(parse(NCCL_1409, "job.log"))
    assert [(e.rank, e.line, e.ranks) for e in said] == [("rank 7", 1, 1), ("rank 3", 3, 1)], \
        [(e.rank, e.line, e.ranks) for e in said]
    # the rule comparing them quotes both: neither is said apart
    [f] = found(NCCL_1409)
    assert f.id == "ranks-at-different-collectives", ids(found(NCCL_1409))
    assert "OpType=BROADCAST" in f.what and "OpType=ALLREDUCE" in f.what, f.what


def test_one_number_of_two_process_groups_is_two_works():
    """LlamaFactory#6269's lines, rank 4's group changed to PG 2: two groups' works at one number (DeepSpeed's
    groups number their works apart: pytorch/pytorch#118369)."""
    said = errors.find(parse(LLAMAFACTORY_6269.replace("[PG 1 Rank 4]", "[PG 2 Rank 4]"), "job.log"))
    assert [(e.rank, e.ranks) for e in said] == [("rank 0", 1), ("rank 4", 1)], [(e.rank, e.ranks) for e in said]


def test_one_work_of_several_ranks_still_folds():
    """LlamaFactory#6269 as posted: one group, one collective, one number: one error of two ranks."""
    said = errors.find(parse(LLAMAFACTORY_6269, "job.log"))
    assert [(e.rank, e.ranks) for e in said] == [("rank 0", 2)], [(e.rank, e.ranks) for e in said]
    # a rank's `Timeout at NCCL work: N` names neither group nor collective: it is of the work the others name
    # (meta-pytorch/torchtune#1165's rank 2, its line alone)
    alone = ("[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: "
             "WorkNCCL(SeqNum=15037, OpType=_ALLGATHER_BASE, NumelIn=131072512, NumelOut=524290048, "
             "Timeout(ms)=600000) ran for 600055 milliseconds before timing out.\n"
             "[rank2]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 2] Timeout at NCCL work: 15037, last enqueued NCCL "
             "work: 15042, last completed NCCL work: 15036.\n")
    assert [(e.rank, e.ranks) for e in errors.find(parse(alone, "job.log"))] == [("rank 3", 2)]
