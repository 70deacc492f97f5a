"""Two rules over ranks that disagree (agreement.py): ranks-at-different-collectives (PyTorch's
watchdog timed ranks out on different collectives) and address-family-mismatch (IPv4 on one side,
IPv6 on the other). Each fires on the public thread's lines named beside it and stays quiet where the
ranks agree. The lines are as posted (the launcher's tags and the paste's indentation kept)."""
from diagnosis_helpers import DATA, diagnose, found, ids, read_log

# NVIDIA/nccl#1409 (accelerate, at each epoch's end): rank 7 timed out in a BROADCAST, rank 3 in an ALLREDUCE, both
# as work 80078 of the default group, as the code block has them
NCCL_1409 = (
    "    [rank7]:[E816 01:45:40.183009389 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=80078, OpType=BROADCAST, NumelIn=5056, NumelOut=5056, Timeout(ms)=600000) ran for "
    "600026 milliseconds before timing out.\n"
    "    [rank7]:[E816 01:45:40.184373931 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 7] Exception (either an "
    "error or timeout) detected by watchdog at work: 80078, last enqueued NCCL work: 80078, last completed NCCL work: "
    "80077.\n"
    "    [rank3]:[E816 01:45:40.212150935 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=80078, OpType=ALLREDUCE, NumelIn=2106881, NumelOut=2106881, Timeout(ms)=600000) ran for "
    "600013 milliseconds before timing out.\n")

# NVIDIA-NeMo/Speech#13562: ranks 2 and 1 at work 532339 (BROADCAST), rank 0 at 532341 (_ALLGATHER_BASE), each line
# wrapped by the terminal as posted
NEMO_13562 = (
    "[rank2]:[E513 13:25:57.714781669 ProcessGroupNCCL.cpp:616] [Rank 2] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=532339, OpType=BROADCAST, NumelIn=5164000, NumelOut=5\n"
    "164000, Timeout(ms)=1800000) ran for 1800042 milliseconds before timing out.                              \n"
    "[rank1]:[E513 13:25:57.714777142 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=532339, OpType=BROADCAST, NumelIn=5164000, NumelOut=5\n"
    "164000, Timeout(ms)=1800000) ran for 1800042 milliseconds before timing out.                              \n"
    "[rank0]:[E513 13:25:57.714786872 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=532341, OpType=_ALLGATHER_BASE, NumelIn=513, NumelOut\n"
    "=2052, Timeout(ms)=1800000) ran for 1800036 milliseconds before timing out.                               \n")


def by_id(findings, rule_id):
    hits = [f for f in findings if f.id == rule_id]
    assert len(hits) == 1, ids(findings)
    return hits[0]


def test_ranks_at_one_number_on_different_collectives():
    said = found(NCCL_1409)
    f = by_id(said, "ranks-at-different-collectives")
    assert f.verdict == "FAIL" and f.line == 1
    assert ("ranks of process group 0 timed out at different collectives: rank 3 at collective 80078 (ALLREDUCE); "
            "rank 7 at collective 80078 (BROADCAST)") in f.what, f.what
    assert "issued different collectives at this point" in f.why
    # the watchdog's error is quoted in it, not said apart
    assert ids(said) == ["ranks-at-different-collectives:FAIL@1"], ids(said)
    assert "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=80078, OpType=BROADCAST" in f.what


def test_the_rank_behind_is_the_one_at_the_lowest_number():
    f = by_id(found(NEMO_13562), "ranks-at-different-collectives")
    assert ("ranks 1, 2 at collective 532339 (BROADCAST); rank 0 at collective 532341 (_ALLGATHER_BASE)"
            in f.what), f.what
    assert f.why.startswith("ranks 1, 2 are behind (the lowest sequence number, 532339)"), f.why


def test_quiet_where_the_ranks_agree_and_where_one_ranks_reports_are_of_one_work():
    """hiyouga/LlamaFactory#7396 (tests/data/nccl: ranks 0, 4, 2 at work 1580, rank 3's `detected by watchdog at
    work: 1580`); huggingface/diffusers#12422 (each rank's watchdog line and its `Work WorkNCCL(SeqNum=2521, ...)
    timed out in blocking wait`: two reports of one work); a single rank's lines (advimman/lama#324)."""
    assert "ranks-at-different-collectives" not in " ".join(ids(diagnose(read_log(DATA / "pytorch-watchdog-timeout.log"))))
    blocking = "".join(
        f"[rank{r}]:[E1002 18:16:40.66{r}329700 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=2521, OpType=ALLREDUCE, NumelIn=160672064, NumelOut=160672064, "
        "Timeout(ms)=600000) ran for 600000 milliseconds before timing out.\n"
        f"[rank{r}]:[E1002 18:16:40.66{r}691402 ProcessGroupNCCL.cpp:756] [Rank {r}] Work WorkNCCL(SeqNum=2521, "
        "OpType=ALLREDUCE, NumelIn=160672064, NumelOut=160672064, Timeout(ms)=600000) timed out in blocking wait.\n"
        for r in (1, 7, 5))
    assert not [f for f in found(blocking) if f.id == "ranks-at-different-collectives"]
    alone = ("[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: "
             "WorkNCCL(SeqNum=4013, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600009 "
             "milliseconds before timing out.\n"
             "[rank1]:[E ProcessGroupNCCL.cpp:626] [Rank 1] Work WorkNCCL(SeqNum=4013, OpType=BROADCAST, NumelIn=1, "
             "NumelOut=1, Timeout(ms)=600000) timed out in blocking wait (TORCH_NCCL_BLOCKING_WAIT=1).\n"
             "[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 4013, last enqueued NCCL work: "
             "4013, last completed NCCL work: 4012.\n")
    assert not [f for f in found(alone) if f.id == "ranks-at-different-collectives"]


def test_quiet_where_works_of_several_groups_cannot_be_told_apart():
    """pytorch/pytorch#118369 (PyTorch 2.1's format, no group said): rank 0 reports works 96120, 96117 and 96125,
    rank 7 work 64088 (DeepSpeed's several groups number their works apart): not comparable, nothing said.
    NVIDIA/nccl#1610: ranks of groups 119 and 112 (PyTorch names them), each group one rank: nothing to compare."""
    old = "".join(
        f"[E ProcessGroupNCCL.cpp:458] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={s}, "
        f"OpType=ALLREDUCE, Timeout(ms)=1800000) ran for {t} milliseconds before timing out.\n"
        for r, s, t in ((0, 96120, 25624887), (0, 96117, 25625613), (0, 96125, 25625593), (7, 64088, 25625251)))
    said = found(old)
    assert not [f for f in said if f.id == "ranks-at-different-collectives"], ids(said)
    assert len(said) == 2  # each rank's timeout is said (the older format is read)
    groups = (
        " 2025-02-18 12:54 [rank13]:[E218 04:54:22.864467604 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=216, OpType=ALLTOALL_BASE, NumelIn=1379328, NumelOut=1572864, "
        "Timeout(ms)=600000) ran for 600045 milliseconds before timing out.\n"
        " 2025-02-18 12:54 [rank13]:[E218 04:54:22.864535778 ProcessGroupNCCL.cpp:1795] [PG ID 11 PG GUID 119 Rank 1] "
        "Exception (either an error or timeout) detected by watchdog at work: 216, last enqueued NCCL work: 220, last "
        "completed NCCL work: 215.\n"
        " 2025-02-18 12:54 [rank15]:[E218 04:54:22.883327702 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=57, OpType=ALLREDUCE, NumelIn=32, NumelOut=32, "
        "Timeout(ms)=600000) ran for 600045 milliseconds before timing out.\n"
        " 2025-02-18 12:54 [rank15]:[E218 04:54:22.883358915 ProcessGroupNCCL.cpp:1795] [PG ID 11 PG GUID 112 Rank 0] "
        "Exception (either an error or timeout) detected by watchdog at work: 57, last enqueued NCCL work: 57, last "
        "completed NCCL work: 56.\n")
    assert not [f for f in found(groups) if f.id == "ranks-at-different-collectives"]


def test_gloos_families_differ():
    """pytorch/gloo#399: `ss1.ss_family == ss2.ss_family. 2 vs 10` on a cluster with IPv4 and IPv6 stacks (its
    location a Markdown link, as GitHub rendered it); the Gloo error is quoted in the rule's finding."""
    said = found("We run pyroch, and get below exception.\n"
                 "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/[device.cc:276]"
                 "(http://device.cc:276/)] ss1.ss_family == ss2.ss_family. 2 vs 10\n")
    assert ids(said) == ["address-family-mismatch:FAIL@2"], ids(said)
    f = said[0]
    assert "two families: AF_INET (IPv4) and AF_INET6 (IPv6)" in f.what and "ss1.ss_family == ss2.ss_family" in f.what
    assert "MASTER_ADDR" in f.fix and "NCCL_SOCKET_FAMILY=AF_INET" in f.fix


def test_hosts_bootstrapping_on_addresses_of_two_families():
    """NCCL's `Bootstrap : Using IF:ADDR<0>` (bootstrap.cc's format) on two hosts, one IPv4, one IPv6. No public
    thread found shows both families in one log: reconstructed from NVIDIA/nccl#1267's IPv4 host lines
    (`instance-8g-96c-1:525765:525765 [0] NCCL INFO Bootstrap : Using ens7:10.128.0.30<0>`) and a second host
    bootstrapping on a global IPv6 address (2001:db8::/32, the documentation prefix)."""
    said = found("instance-8g-96c-1:525765:525765 [0] NCCL INFO Bootstrap : Using ens7:10.128.0.30<0>\n"
                 "instance-8g-96c-2:611201:611201 [0] NCCL INFO Bootstrap : Using ens7:2001:db8::1e<0>\n")
    f = by_id(said, "address-family-mismatch")
    assert f.line == 1 and ("IPv4 on instance-8g-96c-1 (ens7:10.128.0.30, line 1); IPv6 on instance-8g-96c-2 "
                            "(ens7:2001:db8::1e, line 2)") in f.what, f.what


def test_quiet_where_the_hosts_agree_or_one_host_lists_both_families():
    """NVIDIA/nccl#1267's hosts (IPv4 each); Oneflow-Inc/oneflow#3586's one host listing an IPv4 and a link-local IPv6
    interface (`Bootstrap : Using [0]eno1:172.18.40.41<0> [1]veth25f2e72:fe80::...`): its first address is what it
    bootstraps on; NVIDIA/nccl#975's healthy log is quiet too."""
    agree = ("instance-8g-96c-1:525765:525765 [0] NCCL INFO Bootstrap : Using ens7:10.128.0.30<0>\n"
             "instance-8g-96c-3:2744870:2744870 [0] NCCL INFO Bootstrap : Using ens7:10.128.0.32<0>\n")
    assert not [f for f in found(agree) if f.id == "address-family-mismatch"]
    both = ("worker:101542:101542 [0] NCCL INFO Bootstrap : Using [0]eno1:172.18.40.41<0> "
            "[1]veth25f2e72:fe80::380d:bfff:fe5b:54d2%veth25f2e72<0>\n"
            "worker:101542:101542 [0] NCCL INFO NET/Socket : Using [0]eno1:172.18.40.41<0> "
            "[1]veth25f2e72:fe80::380d:bfff:fe5b:54d2%veth25f2e72<0>\n")
    assert not [f for f in found(both) if f.id == "address-family-mismatch"]
    assert not [f for f in diagnose(read_log(DATA / "nccl-975-socket-abort.log")) if f.id == "address-family-mismatch"]
