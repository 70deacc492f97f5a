"""The nodes an output ran on, for the tools that print none (OSU, IMB, perftest): the launcher's
tags in the paste (lines.py: `[HOST:RANK]` of mpirun -prepend-pattern, srun -l's `0: HOST` lines of
a `hostname` run beside it; a shell prompt `user@HOST:~$` and the server named on perftest's
command line), or `--hosts`; where both name them they must agree. Where nothing names a node the
rows keep rank names and a note says so: no node is invented."""
from ..contracts.input_files import InputError


def _short(host):
    return host.split(".", 1)[0]


def by_rank(path, tagged, given, notes, said_by="the launcher's tags"):
    """Each rank's host (a list in rank order; [] where nothing names them): `tagged` as the paste
    names them, `given` as --hosts does. Both given: the same nodes by other names (dgx01 and
    dgx01.cluster) are a note and the paste's names stand; other nodes an InputError saying both."""
    given = [h for h in given if h]
    if not tagged or not given:
        return list(tagged) or given
    printed, named = list(dict.fromkeys(tagged)), list(dict.fromkeys(given))
    if sorted(map(_short, printed)) != sorted(map(_short, named)):
        raise InputError(f"{path}: according to {said_by} it ran on {', '.join(printed)}, --hosts says {','.join(given)}: "
                         "give the nodes it ran on, or leave --hosts out")
    if sorted(printed) != sorted(named):
        notes.append(f"{path}: according to {said_by} it ran on {', '.join(printed)}; --hosts {','.join(given)} names "
                     "the same node(s) otherwise: the output's names are kept")
    return list(tagged)


def communicator(hosts):
    """A collective's src: its nodes in rank order (schema/endpoints.csv: `dgx01,dgx02`), or
    `world` where nothing names them."""
    return ",".join(dict.fromkeys(h for h in hosts if h)) or "world"


def unnamed_note(path, tool, rows):
    """The note of an output whose nodes nothing names (its rows keep rank names: rank0, world)."""
    return (f"{path}: {tool} prints no host and neither the launcher's tags nor --hosts name one: its rows name "
            "ranks, not nodes (give --hosts A,B, or run with `mpirun -prepend-pattern '[%h:%r] '` or `srun -l "
            "hostname` beside it)") if rows else None
