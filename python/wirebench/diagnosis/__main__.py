"""python3 -m wirebench.diagnosis LOG [--topology FILE] [--table]: the diagnosis of an NCCL log as
topology.json's `nccl` section (JSON on stdout), or its readable lines. Its exit code is `wirebench
topo --nccl-log`'s for the same file: 1 where a finding is a FAIL, 0 where the findings are WARNs or
none, 3 where the log cannot be read (a directory, an empty file, a file with neither NCCL's lines
nor an error line: one line naming it).

`wirebench topo --nccl-log` (bench/topology/nccl_handover.cpp) runs it with --hand-over and the node's
topology.json written beside (--topology): one JSON object, HAND_OVER_FORMAT, with the section and its
readable lines (this package prints them, for both), exit 0 wherever the log was read; the front door
judges the section together with the node's links (topo's exit code)."""
import argparse
import json
import sys
from pathlib import Path

from ..contracts.exit_policy import VERDICT_CODES, entry, worst
from ..contracts.input_files import InputError, read_utf8
from . import diagnose, output, read_log, wiring

# What --hand-over writes, read by bench/topology/nccl_handover.cpp (kHandOverFormat): one writer, one reader.
HAND_OVER_FORMAT = "wirebench nccl hand-over 1"


@entry
def main(argv):
    parser = argparse.ArgumentParser(prog="python3 -m wirebench.diagnosis", description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="the NCCL_DEBUG=INFO log, or a job's output with NCCL's lines")
    parser.add_argument("--topology", type=Path, help="topology.json of the node (wirebench topo --json): its wiring")
    parser.add_argument("--table", action="store_true", help="the readable lines instead of JSON")
    parser.add_argument("--hand-over", action="store_true",
                        help="for `wirebench topo`: the section and its readable lines as one JSON object, exit 0 "
                             "wherever the log was read (the verdict left to the caller)")
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
    if args.hand_over:  # the front door reads the section, judges it with the node's links and prints the lines
        sys.stdout.write(json.dumps({"format": HAND_OVER_FORMAT, "nccl": section, "table": output.table(section)}) + "\n")
        return 0
    sys.stdout.write(output.table(section) if args.table else json.dumps(section, indent=2) + "\n")
    return worst(*(VERDICT_CODES[f.verdict] for f in findings))  # FAIL 1, WARN or nothing 0, as topo's


if __name__ == "__main__":
    sys.exit(main(sys.argv))
