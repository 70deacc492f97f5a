"""wirebench import FILE... [--out DIR] [--link-class C --rate GBPS] [--op OP] [--hosts A,B] [--ranks N]:
the outputs of nccl-tests (text, -J JSON), nvbandwidth (text, --json), OSU, IMB-MPI1, perftest (text,
--out_json) and p2pBandwidthLatencyTest as a run directory (results.csv, and suite.json holding --rate as
the ceiling of --link-class), then its report, as `wirebench report DIR` writes it. The tool is told
from each file's content. Exit codes as `wirebench report`'s; 3 for a file it cannot read, naming
file and line."""
import argparse
import csv
import json
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from ..report.run_report import report
from ..report.ceilings import database_latencies, nics_option, stated_gpu, stated_nics
from ..contracts.exit_policy import entry
from ..contracts.input_files import InputError, read_utf8, readable_file
from ..report.extra import facts, parse as parse_items
from ..contracts.schema import RESULT_COLUMNS, ExitCode, version
from ..run.paths import BIN
from .. import collectives
from ..diagnosis.pasted import add_pasted
from . import json_text, nccl_tests
from .importer import Options
from .paste import Paste, read_text
from .registry import importers


def fresh_run_dir(now=None):
    """A new runs/import-TIME (UTC), as `wirebench run` names runs/SUITE-TIME; -2, -3 ... after it
    where a second import comes within the same second."""
    base = Path("runs") / time.strftime("import-%Y%m%dT%H%M%SZ", time.gmtime(now))
    out, n = base, 1
    while out.exists():
        n += 1
        out = base.with_name(f"{base.name}-{n}")
    return out


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="wirebench import", description="judge the outputs of nccl-tests, nvbandwidth, OSU, IMB-MPI1, perftest and "
                                     "p2pBandwidthLatencyTest")
    parser.add_argument("files", nargs="+", type=Path, help="a tool's output, as it printed it")
    parser.add_argument("--out", type=Path, help="the run directory to write (default: a new runs/import-TIME, as "
                        "`wirebench run` makes runs/SUITE-TIME)")
    parser.add_argument("--link-class", default="", help="the link the tool measured: nvlink, pcie, ib, roce, eth, shm")
    parser.add_argument("--rate", type=float, help="that link's ceiling in GB/s (10^9 bytes/s), for a link no "
                        "topology describes")
    parser.add_argument("--op", type=lambda name: collectives.canonical(name) or name, choices=nccl_tests.OPS,
                        help="nccl-tests' collective, where neither the file's name nor its command line says it "
                             "(any tool's spelling: alltoall is all_to_all)")
    parser.add_argument("--hosts", default="", help="the nodes, where the output does not name them: OSU's, IMB's and "
                        "perftest's point to point A,B; nvbandwidth's A; nccl-tests' Rank lines name theirs (given, it "
                        "must name the same)")
    parser.add_argument("--bytes", type=int, help="nvbandwidth: the buffer size it ran with (-b; default 512 MiB), "
                        "p2pBandwidthLatencyTest: its copies' size (4 x --numElems; default 160 MB); neither prints it")
    parser.add_argument("--ranks", type=int, help="OSU collectives: the ranks they ran on (for busbw)")
    where = parser.add_argument_group("the wiring the rows are judged against (topology.json in the run directory)")
    where.add_argument("--nvidia-smi-topo", type=Path, help="the node's saved `nvidia-smi topo -m`: GPU pairs, GPU to "
                       "host and NICs get their link's ceiling, an NVSwitch node's collectives NCCL's expectation")
    where.add_argument("--nvidia-smi-p2p", type=Path, help="with --nvidia-smi-topo: saved `nvidia-smi topo -p2p r`")
    where.add_argument("--nvlink-generation", help="with --nvidia-smi-topo: where the GPU model does not say it (2, 3, 4, 5)")
    where.add_argument("--gpu-model", help="the GPUs' model as nvidia-smi -L names it (NVIDIA H100 80GB HBM3), as "
                       "`wirebench topo --gpu-model` takes it: a copy inside a GPU's memory held to half its memory "
                       "bandwidth and a host copy to its datasheet's PCIe link (suites/gpu-memory.csv); with "
                       "--nvidia-smi-topo their NVLink, with --nics what one GPU's NVLink carries beside the node's "
                       "ports (a PCIe part's ring is not held to them)")
    where.add_argument("--nics", type=nics_option, help="a node's network ports, COUNTxRATE (8x400G): each port's "
                       "ceiling (IB, or --link-class roce/eth, or 8x400G/roce), and a collective across nodes held "
                       "against them together")
    where.add_argument("--topology", type=Path, help="a topology.json `wirebench topo --json` wrote")
    where.add_argument("--nccl-log", type=Path, help="the NCCL_DEBUG=INFO log of the run: each misconfiguration "
                       "it shows is a FAIL or WARN (docs/nccl-diagnosis.md)")
    args = parser.parse_args(argv[1:])
    if args.topology and args.nvidia_smi_topo:
        parser.error("--topology and --nvidia-smi-topo both describe the wiring: give one")
    if (args.nvidia_smi_p2p or args.nvlink_generation) and not args.nvidia_smi_topo:
        parser.error("--nvidia-smi-p2p and --nvlink-generation go with --nvidia-smi-topo")
    if args.nics and args.rate is not None:
        parser.error("--nics and --rate both state the network's ceiling: give one")
    return args


def read_file(path, args):
    """(tool, (rows, notes)) of one file: the first importer that recognises it reads it
    (registry.importers(), in order). Its text is read once, as one Paste that each importer's
    detection and parse read; where a terminal looks to have wrapped its lines, the paste joined
    again is read too, and kept where it reads no fewer rows (paste.py: Paste.unwrapped)."""
    text = read_text(path)  # "no such file or directory", "is a directory", "permission denied", UTF-16
    named = [h for h in args.hosts.split(",")]
    options = Options(op=args.op, link_class=args.link_class, hosts=tuple(named + [""] * (2 - len(named))),
                      ranks=args.ranks, bytes=args.bytes)
    known = importers()
    if text.lstrip().startswith("{"):
        doc, cut = json_text.load(path, text)
        for importer in known:
            if importer.looks_like_json and importer.looks_like_json(doc):
                if cut and not importer.reads_cut_json:
                    raise InputError(f"{path}: the JSON ends before its closing brackets (cut short), and "
                                     f"{importer.tool}'s whole results cannot be told from it")
                return importer.tool, importer.parse_json(path, doc, options, cut)
        raise InputError(f"{path}:1: JSON that is none of the JSON outputs wirebench imports ("
                         + ", ".join(i.tool for i in known if i.looks_like_json) + ")")
    paste = Paste.of(text)
    try:
        found, refused = read_paste(path, paste, options, known), None
    except InputError as error:
        found, refused = None, error
    best, width = found, 0
    for wrapped in (paste.unwrapped(strict=True), paste.unwrapped()):
        try:
            joined = read_paste(path, wrapped, options, known) if wrapped is not None else None
        except InputError:
            joined = None
        if not (joined and joined[1][0]):
            continue
        # a wrap cuts rows (fewer read) or a row's figures (as many, other figures): a joined reading
        # with more rows, or as many as the paste as it is and other ones (the first joining: the
        # stricter); the same rows: the paste was not wrapped
        more = best is None or len(joined[1][0]) > len(best[1][0])
        other = found is not None and best is found and len(joined[1][0]) == len(found[1][0]) and joined[1][0] != found[1][0]
        if more or other:
            best, width = joined, wrapped.wrapped_at
    if width:
        best[1][1].insert(0, f"{path}: its lines were cut at {width} characters (a terminal's width) and are read "
                             "joined again")
        return best
    if refused is not None:
        raise refused
    return found


def read_paste(path, paste, options, known):
    """(tool, (rows, notes)) of the first importer that recognises the paste; an InputError where none does."""
    for importer in known:
        if importer.looks_like(paste):
            return importer.tool, importer.parse(path, paste, options)
    raise InputError(f"{path}:1: not an output wirebench imports: "
                     + ", ".join(f"{i.tool}{chr(39) if i.tool.endswith('s') else chr(39) + 's'} ({i.known_by})" for i in known)
                     + ", or the JSON of " + ", ".join(i.tool for i in known if i.looks_like_json))


def read_topology(args):
    """What becomes topology.json in the run directory (None: nothing given): `wirebench topo` reads
    the saved nvidia-smi text and the NCCL log (one reader for both, the one `wirebench topo` users
    have); a given topology.json is copied, the log's reading added to it."""
    command = [str(BIN / "wirebench"), "topo", "--json"]
    if args.nvidia_smi_topo:
        command += ["--nvidia-smi-topo", str(args.nvidia_smi_topo)]
        host = args.hosts.split(",")[0]
        command += ["--hostname", host] if host else []
        command += ["--nvidia-smi-p2p", str(args.nvidia_smi_p2p)] if args.nvidia_smi_p2p else []
        command += ["--nvlink-generation", args.nvlink_generation] if args.nvlink_generation else []
        command += ["--gpu-model", args.gpu_model] if args.gpu_model else []
    if args.nccl_log:
        command += ["--nccl-log", str(args.nccl_log)]
    doc = None
    if args.topology:
        try:
            doc = json.loads(read_utf8(readable_file(args.topology)))
        except json.JSONDecodeError as error:
            raise InputError(f"{args.topology}:{error.lineno}: not valid JSON: {error.msg}") from None
    if args.nvidia_smi_topo or args.nccl_log:
        found = subprocess.run(command, capture_output=True, text=True, check=False)
        # topo keeps its verdict in its exit code (1: a DEGRADED link, an NCCL-log FAIL), the details
        # in its JSON, which is read; its stderr only where it wrote none (a file it could not read)
        if found.returncode not in (ExitCode.OK, ExitCode.FAILED):
            said = re.sub(r"^error: | \(exit code \d+\)$", "", found.stderr.strip())
            raise InputError(said or f"{' '.join(command)} ended with exit code {found.returncode}")
        read = json.loads(found.stdout)
        if doc is None:
            doc = read
        else:
            doc["nccl"] = read.get("nccl")
    return doc


def link_classes_from(topology, rows, stated):
    """Each GPU row's link class as the node's wiring says it (GPU pair, GPU to host: NVLink, PCIe,
    C2C), and a one-node collective's where every GPU pair is on one class; --link-class, where
    given, stays for the GPU pairs and collectives it names (a copy to or from the host takes the
    wiring's class all the same: nvbandwidth's text cannot tell C2C from PCIe)."""
    if topology is None:
        return
    nodes = [n for n in topology.get("nodes", []) if isinstance(n, dict)]
    if len(nodes) != 1:
        return
    classes = {}
    for link in nodes[0].get("links", []):
        classes[(link.get("a"), link.get("b"))] = classes[(link.get("b"), link.get("a"))] = link.get("class", "")
    gpu_pairs = {c for (a, b), c in classes.items() if str(a).startswith("gpu") and str(b).startswith("gpu") and a != b}

    def local(end):
        end = end.rsplit("/", 1)[-1]
        return "host" if end.startswith("numa") else end
    for r in rows:
        if stated and r["bench"] != "host":
            continue
        if r["bench"] in ("p2p", "host") and r["src"] and r["dst"] and r["src"] != r["dst"]:  # a GPU's own copy stays "device"
            r["link_class"] = classes.get((local(r["src"]), local(r["dst"])), r["link_class"])
        elif r["bench"] == "coll" and str(r["nodes"]) == "1" and len(gpu_pairs) == 1 and r["backend"] == "nccl":
            r["link_class"] = next(iter(gpu_pairs))


def link_class_the_files_say(imported):
    """The one link class the imported rows name themselves (perftest prints its Link type), for a
    --rate given without --link-class; an InputError where they name none or several."""
    named = sorted({r["link_class"] for _, _, (rows, _) in imported for r in rows if r.get("link_class")})
    if len(named) != 1:
        said = f"they name {', '.join(named)}" if named else "they do not name their link"
        raise InputError(f"--rate needs --link-class: the link whose ceiling it is ({said})")
    return named[0]


def import_meta(imported):
    """meta.json of an import: when the outputs were written, the hosts the rows name, and what the tools ran with as their
    outputs say it (versions.nccl where one NCCL version ran them all; each tool's version), so that
    the history says "NCCL 2.21.5 -> 2.23.4" between two nights' imports."""
    rows = [r for _, _, (rows, _) in imported for r in rows]
    found = [facts(r["extra"]) | {"tool": parse_items(r["extra"]).get("tool", "")} for r in rows]
    nccl = sorted({f["nccl_version"] for f in found if f.get("nccl_version")})
    tools = sorted({f"{f['tool']} {f.get('tool_version', 'unknown')}" for f in found if f["tool"]})
    hosts = sorted({host for r in rows for host in nodes_of(r)})
    versions = {"imported_tools": ", ".join(tools)}
    if len(nccl) == 1:
        versions["nccl"] = nccl[0]
    notes = [note for _, _, (_, file_notes) in imported for note in file_notes]
    return {"schema_version": version("meta"), "results_schema_version": 3, "hosts": hosts, "versions": versions,
            # what the reading said of the files (a cut paste, two runs in one, P2P slower than the host):
            # the report lists them, so report.md and summary.json keep what the console said
            "notes": notes,
            # when the tools wrote their outputs (the newest file's time), not when they were imported
            "created": datetime.fromtimestamp(max(Path(path).stat().st_mtime for path, _, _ in imported),
                                              timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "commands": [{"argv": ["wirebench", "import", *[str(path) for path, _, _ in imported]]}]}


def across_nodes(path, rows, notes, nics):
    """A collective across nodes crosses the ports --nics names (its link class, where none is
    given); on two nodes without NCCL_ALGO=Ring its tree goes beyond them, said (ceilings.py)."""
    two = False
    for r in rows:
        if r["bench"] == "coll" and str(r["nodes"]) not in ("", "1"):
            r["link_class"] = r["link_class"] or nics["link_class"]
            two = two or (str(r["nodes"]) == "2" and r["backend"] == "nccl" and
                          (parse_items(r["extra"]).get("NCCL_ALGO") or "").lower() != "ring")
    if two:
        notes.append(f"{path}: NCCL on two nodes without NCCL_ALGO=Ring: its tree goes beyond the ports' rate "
                     "(NVIDIA/nccl-tests#196), so --nics is no ceiling of it; rerun with NCCL_ALGO=Ring, as NCCL's "
                     "maintainers advise for the network (NVIDIA/nccl-tests#290), or give the wiring (--topology)")


def nodes_of(r):
    """The nodes a row names: its endpoints' (dgx01/gpu0), or a collective's communicator's (dgx01,dgx02)."""
    ends = [e for e in (r["src"], r["dst"]) if e]
    if r["bench"] == "coll" and ends and "/" not in ends[0] and ends[0] != "world":
        return ends[0].split(",")
    return [end.split("/", 1)[0] for end in ends if "/" in end]


@entry
def main(argv):
    args = parse_args(argv)
    args.out = args.out or fresh_run_dir()
    # every input is read before anything is written: a bad one ends here (exit code 3)
    if (args.out / "results.csv").exists():
        raise InputError(f"{args.out / 'results.csv'}: exists; import into a new directory (--out)")
    imported = [(path, *read_file(path, args)) for path in args.files]
    if args.nccl_log:  # the NCCL settings its log says (NCCL_ALGO set by environment to Ring)
        settings = nccl_tests.nccl_settings(log_lines=read_utf8(args.nccl_log).splitlines())
        for _, tool, (rows, notes) in imported:
            if tool == "nccl-tests" and settings:
                nccl_tests.apply_settings(rows, settings)
                notes.append(f"{args.nccl_log}: " + nccl_tests.ran_with(settings, "NCCL's log"))
    topology = read_topology(args)
    # NCCL's lines inside the imported outputs are diagnosed as --nccl-log's (docs/nccl-diagnosis.md)
    topology = add_pasted(topology, [path for path, _, _ in imported], args.nccl_log)
    if args.rate is not None and not args.link_class:
        args.link_class = link_class_the_files_say(imported)
    network = args.link_class if args.link_class in ("ib", "roce", "eth") else "ib"
    if args.nics:
        count, gbit, named = args.nics
        nics = stated_nics(count, gbit, named or network, f"--nics {count}x{gbit:g}G",
                           args.gpu_model if not args.nvidia_smi_topo else None)
    else:
        nics = None
    args.out.mkdir(parents=True, exist_ok=True)
    if topology is not None:
        (args.out / "topology.json").write_text(json.dumps(topology, indent=1) + "\n")
    with (args.out / "results.csv").open("w", newline="") as out:
        writer = csv.DictWriter(out, RESULT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for path, _, (rows, notes) in imported:
            link_classes_from(topology, rows, args.link_class)
            if nics:
                across_nodes(path, rows, notes, nics)
            writer.writerows(rows)
    # the GPUs' model: their copies' ceilings where no topology gives them (ceilings.stated_gpu)
    gpu = stated_gpu(args.gpu_model, f"--gpu-model {args.gpu_model}") if args.gpu_model else None
    if gpu and gpu.get("unknown"):
        imported[0][2][1].append(f"{gpu['unknown']}: a GPU's own copies and its host copies get no ceiling from it")
    (args.out / "meta.json").write_text(json.dumps(import_meta(imported), indent=1, sort_keys=True) + "\n")
    expectation = {}
    if args.rate is not None:
        expectation = {"link_class": args.link_class, "ceiling_GBps": args.rate, "healthy_fraction": 0.8,
                       "any_endpoints": True, "reason": f"{args.rate:g} GB/s given to wirebench import --rate",
                       "source": "wirebench import --rate"}
    # The class's typical small-message latency from the ceilings database, as `wirebench topo` gives
    # it a run: an imported osu_latency or ib_send_lat is judged without a saved topology.
    latency_class = args.link_class or (nics or {}).get("link_class", "")
    latency = max((e for e in database_latencies() if e["link_class"] == latency_class),
                  key=lambda e: e["latency_us"], default=None)
    if latency:
        expectation |= {"link_class": latency_class, "latency_us": latency["latency_us"],
                        "latency_source": latency["source"]}
    stated = [e for e in (nics, expectation) if e]
    if nics and expectation.get("link_class") == nics["link_class"]:  # the ports' class: one entry
        stated = [nics | expectation]
    if stated or gpu:
        (args.out / "suite.json").write_text(json.dumps({"expectations": stated} | ({"gpu": gpu} if gpu else {})))
    for path, tool, (rows, _) in imported:
        print(f"wirebench import: {path}: {tool}, {len(rows)} row(s)")  # its notes: the report's, below
    return report(args.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
