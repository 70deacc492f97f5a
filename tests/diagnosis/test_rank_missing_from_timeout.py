"""rank-missing-from-timeout: PyTorch's watchdog timed one collective out on most ranks but not on
one: that rank never entered it, and its own failure is the cause (meta-pytorch/torchtune#1165, a
train case of the corpus: ranks 1-3 timed out in an all_gather, rank 0 had failed saving the
checkpoint). Quiet where every rank timed out, and where nothing says how many ranks the job has."""
from diagnosis_helpers import ROOT, found, ids, read_log
from wirebench.diagnosis import diagnose

CORPUS = ROOT / "tests" / "data" / "nccl-corpus"
DATA = ROOT / "tests" / "data" / "nccl"


def test_the_rank_that_did_not_time_out_is_named():
    said = diagnose(read_log(CORPUS / "torchtune-1165.log"))
    assert [f.id for f in said] == ["rank-missing-from-timeout"], ids(said)
    assert said[0].what.startswith("ranks 1, 2, 3 of 4 timed out in collective 15037 (_ALLGATHER_BASE); rank 0 did "
                                   "not"), said[0].what
    assert "never entered collective 15037" in said[0].why


def test_quiet_where_every_rank_timed_out_or_the_job_size_is_unknown():
    text = (CORPUS / "torchtune-1165.log").read_text()
    # the same paste with rank 0's watchdog line too: every rank of 4 timed out, none is missing
    everyone = text + ("[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: "
                       "WorkNCCL(SeqNum=15037, OpType=_ALLGATHER_BASE, NumelIn=131072512, NumelOut=524290048, "
                       "Timeout(ms)=600000) ran for 600061 milliseconds before timing out.\n")
    assert not [i for i in ids(found(everyone)) if i.startswith("rank-missing-from-timeout")], ids(found(everyone))
    # hiyouga/LlamaFactory#7396: an all_reduce (no element ratio) and no NCCL init line: the job's size unknown
    assert not [f for f in diagnose(read_log(DATA / "pytorch-watchdog-timeout.log"))
                if f.id == "rank-missing-from-timeout"]


def test_a_rank_that_timed_out_in_another_collective_is_not_missing():
    """NVIDIA-NeMo/Speech#13562 (ranks 2 and 1 at work 532339, a BROADCAST; rank 0 at 532341, an _ALLGATHER_BASE of
    513 elements into 2052: a job of 4 ranks), the terminal's wraps joined: rank 0 timed out too, in another
    collective, so it is not missing from the timeout; rank 3, which reported none, is."""
    from test_ranks_disagree import NEMO_13562
    text = NEMO_13562.replace("NumelOut=5\n164000", "NumelOut=5164000").replace("NumelOut\n=2052", "NumelOut=2052")
    said = [f for f in found(text) if f.id == "rank-missing-from-timeout"]
    assert len(said) == 1, ids(found(text))
    assert said[0].what.startswith("ranks 1, 2 of 4 timed out in collective 532339 (BROADCAST); rank 3 did not (rank 0 "
                                   "timed out in another collective)"), said[0].what
    assert "rank 3 never entered collective 532339" in said[0].why
    # every rank reported a timeout (rank 3's line added, at rank 0's collective): none is missing
    everyone = text + ("[rank3]:[E513 13:25:57.714786872 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective "
                       "operation timeout: WorkNCCL(SeqNum=532341, OpType=_ALLGATHER_BASE, NumelIn=513, NumelOut=2052, "
                       "Timeout(ms)=1800000) ran for 1800036 milliseconds before timing out.\n")
    assert not [f for f in found(everyone) if f.id == "rank-missing-from-timeout"], ids(found(everyone))
