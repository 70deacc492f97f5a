"""python3 -m wirebench.diagnosis LOG [--topology FILE] [--table]: the diagnosis of an NCCL log as
topology.json's `nccl` section (JSON on stdout), or its readable lines. Its exit code is `wirebench
topo --nccl-log`'s for the same file: 1 where a finding is a FAIL, 0 where the findings are WARNs or
none, 3 where the log cannot be read (a directory, an empty file, a file with neither NCCL's lines
nor an error line: one line naming it).

`wirebench topo --nccl-log` (bench/topology/nccl_handover.cpp) runs it with the node's topology.json
written beside (--topology) and reads the section's JSON where the exit code is 0: the front door
judges the section together with the node's links (topo's exit code), so with --topology a log that
was read ends 0 whatever its findings, the hand-over's contract."""
import argparse
import json
import sys
from pathlib import Path

from ..contracts.exit_policy import VERDICT_CODES, entry, worst
from ..contracts.input_files import InputError, read_utf8
from . import diagnose, output, read_log, wiring


@entry
def main(argv):
    parser = argparse.ArgumentParser(prog="python3 -m wirebench.diagnosis", description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="the NCCL_DEBUG=INFO log, or a job's output with NCCL's lines")
    parser.add_argument("--topology", type=Path,
                        help="topology.json of the node (wirebench topo --json): its wiring; the front door's hand-over: "
                             "exit 0 wherever the log was read, the verdict left to the caller")
    parser.add_argument("--table", action="store_true", help="the readable lines instead of JSON")
    args = parser.parse_args(argv[1:])
    node = None
    if args.topology:
        try:
            node = wiring.from_topology(json.loads(read_utf8(args.topology)))
        except json.JSONDecodeError as error:
            raise InputError(f"{args.topology}:{error.lineno}: not valid JSON: {error.msg}") from None
    log = read_log(args.log)
    findings = diagnose(log, node)
    section = output.nccl_section(log, findings)
    sys.stdout.write(output.table(section) if args.table else json.dumps(section, indent=2) + "\n")
    if args.topology:
        return 0  # the front door's hand-over: it reads the JSON and judges it with the node's links
    return worst(*(VERDICT_CODES[f.verdict] for f in findings))  # FAIL 1, WARN or nothing 0, as topo's


if __name__ == "__main__":
    sys.exit(main(sys.argv))
