"""Errors of NCCL's that the job went on from: the same process then started its communicator's init, completed it,
or (the OFI plugin) selected a provider. Said as not findings, with the line that shows it (diagnose.py)."""
import re

# NCCL starting a communicator's init (`ncclCommInitRank... Init START`, 2.10 on): an error the same process printed
# before it came from NCCL's load, a probe it went on from (DeepSpeed#8248: `misc/ibvwrap.cc:173 NCCL WARN lib
# wrapper not initialized.` and its `gdr.cc:56 -> 3` on a host without libibverbs, then `Using network Socket` and
# `Init START`). An error during the init that NCCL went on from (CollNet's setup) is a finding of its own rules.
INIT_START = re.compile(r"\bInit START\b")
INIT_COMPLETE = re.compile(r"\bInit COMPLETE\b")
# the OFI plugin tries its protocols in turn (RDMA, then SENDRECV): none eligible for one, then a provider selected for
# the next (lumi-ai-factory/laifs-container-recipes#28: cxi on Slingshot, the test passed)
OFI_NONE_ELIGIBLE = re.compile(r"\bNET/OFI No eligible providers were found\b")
OFI_SELECTED = re.compile(r"\bNET/OFI Selected [Pp]rovider is \w+")


def applies(error):
    """Whether the error is one this module reads: NCCL's own, or the OFI plugin's probe pasted without NCCL's prefix."""
    return error.kind == "nccl" or bool(OFI_NONE_ELIGIBLE.search(error.said))


def after(log, error):
    """The line after an error where the same process starts its communicator's init, or completes it from a bare
    chain (NCCL 2.4's `include/net.h:24 -> 2` where the OFI plugin had no PCI path for its NIC, then `NIC distance :
    SYS` and `Init COMPLETE`: cybertronai/aws-network-benchmarks' healthy EFA run; where NCCL printed a WARN it gave
    something up, CollNet when SHARP failed in NVIDIA/nccl-tests#311, which its own fallback line or the error says),
    or where the OFI plugin selects a provider after finding none for one protocol; None where it shows none."""
    if OFI_NONE_ELIGIBLE.search(error.said):
        # its lines pasted without NCCL's prefix name no process: the program's lines after it
        later = [m for m in log.messages if m.rank == error.rank] + ([] if error.rank else log.others)
        return next((item for item in sorted(later, key=lambda item: item.line) if item.line > error.line
                     and OFI_SELECTED.search(item.text)), None)
    warned = any(m.line == error.line and m.warn for m in log.messages)
    return next((m for m in log.messages if m.line > error.line and m.host and f"{m.host}:{m.pid}" == error.rank
                 and (INIT_START.search(m.text) or (not warned and INIT_COMPLETE.search(m.text)))), None)


def said(line):
    """Why the error is not the job's, in the words of the line `after` found."""
    if INIT_COMPLETE.search(line.text):
        how = "process completes its communicator's init (a call NCCL tolerated, not the job's failure)"
    elif (selected := OFI_SELECTED.search(line.text)):
        how = f"process's plugin selects a provider: {selected.group(0)} (a probe of one protocol, not the job)"
    else:
        how = "process starts its communicator's init (a probe at NCCL's load that failed, not the job)"
    return f"NCCL went on after it: line {line.line}, the same {how}"
