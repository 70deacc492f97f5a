"""python3 -m wirebench.diagnosis LOG [--topology FILE] [--table]: the diagnosis of an NCCL log as
topology.json's `nccl` section (JSON on stdout), or its readable lines. `wirebench topo --nccl-log`
(bench/topology/nccl_handover.cpp) runs it with the node's topology.json written beside; a log
that cannot be read (a directory, an empty file, a file with neither NCCL's lines nor an error line) ends in one line
naming it, exit code 3."""
import argparse
import json
import sys
from pathlib import Path

from ..contracts.exit_policy import entry
from ..contracts.input_files import InputError, read_utf8
from . import diagnose, output, read_log, wiring


@entry
def main(argv):
    parser = argparse.ArgumentParser(prog="python3 -m wirebench.diagnosis", description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="the NCCL_DEBUG=INFO log, or a job's output with NCCL's lines")
    parser.add_argument("--topology", type=Path, help="topology.json of the node (wirebench topo --json): its wiring")
    parser.add_argument("--table", action="store_true", help="the readable lines instead of JSON")
    args = parser.parse_args(argv[1:])
    node = None
    if args.topology:
        try:
            node = wiring.from_topology(json.loads(read_utf8(args.topology)))
        except json.JSONDecodeError as error:
            raise InputError(f"{args.topology}:{error.lineno}: not valid JSON: {error.msg}") from None
    log = read_log(args.log)
    section = output.nccl_section(log, diagnose(log, node))
    sys.stdout.write(output.table(section) if args.table else json.dumps(section, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
