"""The one vocabulary of collectives, shared by wb-coll's rows, every importer, compare and the
history: each collective's one spelling (wb-coll's: all_to_all, send_recv), the other tools'
spellings of it (nccl-tests' alltoall_perf, OSU's osu_alltoall, IMB's Alltoall ...), its nccl-tests
binary and its bus-bandwidth factor (nccl-tests' PERFORMANCE.md: busbw = algbw x factor(ranks))."""

NAMES = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all", "send_recv", "hypercube",
         "gather", "scatter")

# Other tools' spellings (lower case, '-' and ' ' as '_'), each to the one spelling above
ALIASES = {"allreduce": "all_reduce", "allgather": "all_gather", "reducescatter": "reduce_scatter",
           "bcast": "broadcast", "alltoall": "all_to_all", "all_to_all": "all_to_all", "sendrecv": "send_recv"}

# nccl-tests' binary of each (its *_perf): the name differs where nccl-tests spells it otherwise
NCCL_TESTS_BINARY = {name: name for name in NAMES} | {"all_to_all": "alltoall", "send_recv": "sendrecv"}

BUSBW = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
         "reduce_scatter": lambda n: (n - 1) / n, "all_to_all": lambda n: (n - 1) / n,
         "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0, "send_recv": lambda n: 1.0}


def canonical(name):
    """The one spelling of a collective named by any tool (Alltoall, all-to-all, sendrecv), or None."""
    key = str(name).strip().lower().replace("-", "_").replace(" ", "_")
    if key in NAMES:
        return key
    return ALIASES.get(key) or ALIASES.get(key.replace("_", ""))


def in_name(text):
    """The collective a binary's or file's name holds (all_reduce_perf, alltoall_perf.txt,
    osu_allgather), longest name first so that reduce_scatter is not read as reduce; or None."""
    base = str(text).lower().replace("-", "_")
    squeezed = base.replace("_", "")
    spellings = sorted([(n, n) for n in NAMES] + list(ALIASES.items()), key=lambda s: len(s[0]), reverse=True)
    for spelling, name in spellings:
        if spelling in base or spelling.replace("_", "") in squeezed:
            return name
    return None
