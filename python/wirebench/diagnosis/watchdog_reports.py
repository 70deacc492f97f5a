"""Rules over PyTorch's watchdog reports of the ranks' timed-out works (ProcessGroupNCCL's `WorkNCCL(...)`
lines): a rank missing from one collective's timeouts (rank-missing-from-timeout) and ranks of one
process group timed out at different collectives (ranks-at-different-collectives)."""
import re

from .agreement import RANK_GPU  # NCCL's init lines, `rank R nranks N`: the job's size
# PyTorch's ranks, works and process groups, as the error finder reads them
from .error_lines import PG_OF, PYTORCH_RANK, PYTORCH_WORK, WORK_NCCL, WORK_OP
from .registry import rule

# the watchdog's line of one rank's timed-out work: `[Rank 3] Watchdog caught collective operation timeout:
# WorkNCCL(SeqNum=15037, OpType=_ALLGATHER_BASE, NumelIn=131072512, NumelOut=524290048, Timeout(ms)=600000) ...`
WATCHDOG = re.compile(r"Watchdog caught collective operation timeout: " + WORK_NCCL)


def _world_size(log, numel):
    """The job's ranks: NCCL's init lines (`rank R nranks N`), else what an all_gather's or a
    reduce_scatter's element counts say (NumelOut = ranks x NumelIn); None where nothing says it."""
    sizes = {int(found.group(2)) for m in log.messages if (found := RANK_GPU.search(m.text))}
    if sizes:
        return max(sizes)
    for op, numel_in, numel_out in numel:
        small, large = (numel_in, numel_out) if "GATHER" in op.upper() else (numel_out, numel_in)
        if "GATHER" in op.upper() or "SCATTER" in op.upper():
            if small and large % small == 0 and large // small >= 2:
                return large // small
    return None


@rule("rank-missing-from-timeout", "FAIL", "any",
      "PyTorch's watchdog timing out one collective (`WorkNCCL(SeqNum=N, ...)`, `Timeout at NCCL work: N`) on most "
      "ranks of the job and one or a few ranks reporting no timeout at all (a rank timed out in another collective is "
      "not missing: ranks-at-different-collectives says it; the job's ranks from NCCL's init lines, or an "
      "all_gather's NumelOut/NumelIn)",
      "the ranks that timed out waited in a collective that the missing ranks never entered: those ranks stopped "
      "first (an exception outside NCCL, a hang, a crash), and the timeouts are the consequence",
      "read the missing ranks' own output before the timeouts (their first error is the cause: an exception while "
      "saving a checkpoint, evaluating or loading data on one rank); rerun with TORCH_NCCL_TRACE_BUFFER_SIZE and "
      "TORCH_NCCL_DUMP_ON_TIMEOUT=1 for the flight recorder's view of every rank",
      "meta-pytorch/torchtune#1165 (ranks 1-3 timed out in an all_gather while rank 0 failed saving the checkpoint: "
      "the maintainer's single-device run showed rank 0's error); pytorch/pytorch#118369 (wconstab: a collective "
      "timeout is most likely one or more ranks that did not call the collective at the right time)",
      needs=("ranks",))
def rank_missing_from_timeout(r, c):
    timed_out, first_line, numel = {}, {}, []   # SeqNum -> {rank}, its first line; (op, in, out)
    ops = {}
    for o in c.log.others:
        ranked = PYTORCH_RANK.search(o.text)
        if not ranked:
            continue
        rank = int(ranked.group(1) or ranked.group(2))
        found = WATCHDOG.search(o.text)
        if found:
            seq = int(found.group(1))
            ops[seq] = found.group(2)
            if found.group(3) and found.group(4):
                numel.append((found.group(2), int(found.group(3)), int(found.group(4))))
        else:
            work = PYTORCH_WORK.search(o.text)  # the lines beside the watchdog's, naming the same work
            if not work:
                continue
            seq = int(next(g for g in work.groups() if g))
        timed_out.setdefault(seq, set()).add(rank)
        first_line.setdefault(seq, o.line)
    if not timed_out:
        return None
    world = _world_size(c.log, numel)
    if not world:
        return None
    seq, ranks = max(timed_out.items(), key=lambda item: len(item[1]))
    # a rank that timed out in another collective is there, stopped elsewhere (ranks-at-different-collectives says
    # where): missing are the ranks that reported no timeout at all
    present = set().union(*timed_out.values())
    missing = sorted(set(range(world)) - present)
    # most ranks said it and some did not: a paste with a few ranks' lines says nothing of the others
    if not missing or len(ranks) < 2 or len(missing) > len(present) or max(present) >= world:
        return None
    said = ", ".join(map(str, sorted(ranks)))
    gone = ", ".join(map(str, missing))
    elsewhere = sorted(present - ranks)
    elsewhere = (f" (rank{'s' if len(elsewhere) > 1 else ''} {', '.join(map(str, elsewhere))} timed out in another "
                 "collective)" if elsewhere else "")
    return r.finding(first_line[seq], f"ranks {said} of {world} timed out in collective {seq} ({ops.get(seq, 'its op')}); "
                     f"rank{'s' if len(missing) > 1 else ''} {gone} did not{elsewhere}",
                     f"rank{'s' if len(missing) > 1 else ''} {gone} never entered collective {seq}: "
                     f"{'they' if len(missing) > 1 else 'it'} stopped first (an exception outside NCCL, a hang, a "
                     "crash), and the other ranks' timeouts are the consequence")


def _pgs(log):
    """{(rank, work): process group} where PyTorch's lines name the group of a rank's work."""
    out = {}
    for o in log.others:
        group, work = PG_OF.search(o.text), PYTORCH_WORK.search(o.text)
        if group and work:
            out[(int(group.group(3)), int(next(g for g in work.groups() if g)))] = group.group(2) or group.group(1)
    return out


@rule("ranks-at-different-collectives", "FAIL", "any",
      "PyTorch's watchdog reports (`WorkNCCL(SeqNum=N, OpType=OP, ...)`, the watchdog's and the blocking wait's lines) "
      "of ranks of one process group that timed out on different collectives: another sequence number or, at one "
      "number, another collective (the group from `[PG ID n PG GUID g ... Rank r]` where said; quiet where a rank "
      "reports several works and no group is said, as their numbers may be of several groups)",
      "the ranks did not issue the same sequence of collectives: a rank skipped or added one (a branch on one rank, "
      "an uneven number of batches) or is stuck before it, far behind the others; NCCL waits for a collective the "
      "others never call",
      "compare what each rank calls at that point (the rank behind, at the lowest number, first): make every rank "
      "take the same code path (the same number of steps and batches, collectives outside rank-dependent branches); "
      "TORCH_DISTRIBUTED_DEBUG=DETAIL checks the ranks' collectives against each other, and the flight recorder "
      "(TORCH_NCCL_TRACE_BUFFER_SIZE, TORCH_NCCL_DUMP_ON_TIMEOUT=1) shows each rank's last collectives",
      "NVIDIA/nccl#1409 (rank 7 timed out in a BROADCAST, rank 3 in an ALLREDUCE, both as work 80078, at each epoch's "
      "end); pytorch/pytorch#118369 (wconstab: a collective timeout is most likely one or more ranks that did not "
      "call the right collective at the right time)", needs=("ranks",))
def ranks_at_different_collectives(r, c):
    groups = _pgs(c.log)
    reports = []  # (rank, work, op, group or None, line)
    for o in c.log.others:
        ranked, work = PYTORCH_RANK.search(o.text), WORK_OP.search(o.text)
        if ranked and work:
            rank, seq = int(ranked.group(1) or ranked.group(2)), int(work.group(1))
            reports.append((rank, seq, work.group(2), groups.get((rank, seq)), o.line))
    named = {g for _, _, _, g, _ in reports if g is not None}
    if len(named) > 1:  # several groups: each compared alone, a report of no said group left out
        by_group = {g: [x for x in reports if x[3] == g] for g in named}
    else:
        by_group = {next(iter(named), None): reports}
    out = []
    for group, said in sorted(by_group.items(), key=lambda item: str(item[0])):
        works = {}
        for rank, seq, op, _, line in said:
            works.setdefault(rank, {}).setdefault((seq, op), line)
        if len(works) < 2:
            continue
        if group is None and any(len({seq for seq, _ in w}) > 1 for w in works.values()):
            continue  # a rank timed out in several works and no group is said: they may be of several groups
        at = {rank: min(w) for rank, w in works.items()}  # a rank's oldest work: where it stopped
        if len(set(at.values())) < 2:
            continue
        places = {}
        for rank, place in sorted(at.items()):
            places.setdefault(place, []).append(rank)
        listed = "; ".join(f"rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))} at collective {seq} "
                           f"({op})" for (seq, op), ranks in sorted(places.items()))
        lowest = min(seq for seq, _ in places)
        behind = sorted(rank for (seq, _), ranks in places.items() if seq == lowest for rank in ranks)
        if len({seq for seq, _ in places}) > 1:
            why = (f"rank{'s' if len(behind) > 1 else ''} {', '.join(map(str, behind))} {'are' if len(behind) > 1 else 'is'}"
                   f" behind (the lowest sequence number, {lowest}): the others issued collectives it never reached, or "
                   "the ranks' programs issued different sequences of collectives")
        else:
            why = (f"every rank is at sequence number {lowest}, but its collective differs: the ranks' programs issued "
                   "different collectives at this point")
        in_group = f" of process group {group}" if group is not None else ""
        line = min(line for w in works.values() for line in w.values())
        found = r.finding(line, f"ranks{in_group} timed out at different collectives: {listed}",
                          f"{why}; NCCL's collectives match by order, so each rank waits for one its peers never call")
        # each rank's timeout it compares is quoted in it, not said apart (two works at one number are two errors)
        found.absorbs = lambda error, lines=frozenset(x[4] for x in said): error.line in lines
        out.append(found)
    return out
