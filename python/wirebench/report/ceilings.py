"""The ceiling of each row's link, from the run's topology.json (written by `wirebench topo`,
derived from suites/ceilings.csv): GPU pairs, GPU to host, NIC ports; for links between nodes
that no topology sees (a virtual cluster's), from the suite's expectations in suite.json; a GPU's
copy inside its memory and its host copies also from its model (suites/gpu-memory.csv: the `device`
links topology.json gives, its GPUs' names, or `--gpu-model`). Rows whose link has no known ceiling
(shared memory) are judged against their siblings only. Small-message latencies are compared with their link class's typical latency
(topology.json's `typical_latency_us`, from ceilings.csv)."""
import argparse
import csv
import json
import re
from functools import cache
from dataclasses import dataclass
from pathlib import Path

from . import judging
from .endpoints import Endpoint, node_of, parse
from ..contracts.input_files import InputError, read_utf8
from ..contracts.run_meta import read_meta
from ..contracts.schema import version


@dataclass
class Ceiling:
    GBps: float
    reason: str             # "NV18 x 25 GB/s (NVLink 4)"
    healthy_fraction: float
    source: str


@dataclass
class TypicalLatency:
    latency_us: float
    source: str


DATABASE = Path(__file__).resolve().parents[3] / "suites" / "ceilings.csv"
# Each GPU model's memory bandwidth and host link, from its vendor's datasheet (as
# bench/topology/ceilings.cpp GpuMemoryDb reads it for `wirebench topo`).
GPU_MEMORY = DATABASE.with_name("gpu-memory.csv")


@cache
def database_latencies():
    """Each link class's typical small-message latency in suites/ceilings.csv (the rows that give one)."""
    if not DATABASE.exists():
        return ()
    with DATABASE.open(encoding="utf-8", newline="") as f:
        return tuple({"link_class": r["link_class"], "latency_us": float(r["latency_us"]),
                      "source": f"suites/ceilings.csv, {r['link_class']} {r['generation']}: {r['source']}"}
                     for r in csv.DictReader(f) if (r.get("latency_us") or "").strip())


# A node's network ports as stated (`--nics 8x400G` of import and report, a profile's `nics:`): an
# InfiniBand port's generation by its rate, as ibstat prints it (4X EDR 100, HDR 200, NDR 400, XDR 800 Gb/s).
IB_GENERATIONS = {100: "edr", 200: "hdr", 400: "ndr", 800: "xdr"}


def nics_option(text):
    """(count, Gb/s, link class) of --nics COUNTxRATE[/CLASS]: 8x400G, 8x400Gb/s, 4x200, 8x400G/roce
    (InfiniBand unless it says roce or eth); argparse's type for import and report alike."""
    found = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+(?:\.\d+)?)\s*(?:G|Gb|Gbps|Gb/s|GbE)?\s*(?:/\s*(ib|roce|eth))?\s*", text)
    if not found or int(found.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not COUNTxRATE, the node's ports and each one's Gb/s (8x400G; "
                                         "8x400G/roce for RoCE, /eth for Ethernet)")
    return int(found.group(1)), float(found.group(2)), found.group(3)


def _database():
    with DATABASE.open(encoding="utf-8", newline="") as f:
        return {(r["link_class"], r["generation"]): r for r in csv.DictReader(f)}


def stated_nics(count, gbit, link_class="ib", given_by=None, gpu_model=None):
    """suite.json's expectation for a node of `count` ports of `gbit` Gb/s of `link_class` (ib,
    roce, eth): each port's ceiling and healthy fraction from suites/ceilings.csv, the ports a node
    has (`ports_per_node`), which a collective across nodes is held against together at the
    database's `nics_ring` fraction (healthy figures of NCCL rings over a node's NICs, not one
    port's), and, with `gpu_model`, what one GPU's NVLink carries (a ring goes at the slower of the
    two). An InputError for a rate or class the database has no row for."""
    known = _database()
    given_by = given_by or f"wirebench import --nics {count}x{gbit:g}G"
    generation = IB_GENERATIONS.get(int(gbit)) if link_class == "ib" and gbit == int(gbit) else "any"
    entry = known.get((link_class, generation or ""))
    if entry is None:
        raise InputError(f"{given_by}: suites/ceilings.csv has no {link_class} port of {gbit:g} Gb/s "
                         f"(InfiniBand: {', '.join(f'{r} Gb/s' for r in IB_GENERATIONS)}; roce and eth: any rate)")
    per_port = float(entry["rate_GBps_per_unit"]) * (1 if entry["unit"] == "port" else gbit)
    spelled = {"ib": "IB", "roce": "RoCE", "eth": "Ethernet"}.get(link_class, link_class)
    name = f"{spelled} {generation.upper()} {gbit:g} Gb/s" if generation != "any" else f"{spelled} {gbit:g} Gb/s"
    together = known.get(("nics_ring", link_class))  # none for eth: NCCL's sockets, a port's fraction
    stated = {"link_class": link_class, "ceiling_GBps": per_port, "healthy_fraction": float(entry["healthy_fraction"]),
              "ports_per_node": count, "nics": f"{count}x{gbit:g}G",
              "reason": f"{name}: {per_port:g} GB/s a port", "source": f"{given_by}; "
              f"suites/ceilings.csv, {link_class} {generation}: {entry['source']}"}
    if together:
        stated |= {"nics_healthy_fraction": float(together["healthy_fraction"]),
                   "nics_source": f"suites/ceilings.csv, nics_ring {link_class}: {together['source']}"}
    if gpu_model:
        stated |= gpu_nvlink(gpu_model, known)
    return stated


def profile_nics(profile):
    """The expectation of a platform profile's `nics:` (suites/profiles: DGX H100's 8x 400G), or None."""
    if profile is None or not profile.nics:
        return None
    n = profile.nics
    return stated_nics(n["count"], float(n["rate_Gbps"]), n["link_class"],
                       f"profile {profile.name}: nics {n['count']}x{n['rate_Gbps']:g}G ({n['source']})")


# NVLink generation by the GPU's model (as bench/topology/link_derivation.cpp nvlink_generation_of
# reads it), and each generation's NVLinks a GPU (the datasheets of suites/ceilings.csv's rows).
NVLINK_MODELS = (("5", ("b200", "b100", "gb200", "b300", "gb300")), ("4", ("h100", "h200", "h800", "gh200", "h20")),
                 ("3", ("a100", "a800")), ("2", ("v100",)))
NVLINKS_PER_GPU = {"2": 6, "3": 12, "4": 18, "5": 18}


def gpu_nvlink(model, known=None):
    """What one GPU of `model` carries inside its node for a ring (`gpu_GBps`: its NVLinks through
    the NVSwitch), or `gpu_GBps: None` with why for a PCIe part (H100 PCIe, H100 NVL, A100-PCIE,
    L40S): its ring inside the node runs over PCIe or bridges, which the node's ports do not bound."""
    known = known or _database()
    name = model.lower().replace("_", " ")
    generation = next((g for g, names in NVLINK_MODELS if any(n in name for n in names)), None)
    pcie = "pcie" in name or name.rstrip().endswith(" nvl") or "-nvl" in name
    if generation is None or pcie:
        return {"gpu_model": model, "gpu_GBps": None,
                "gpu_reason": f"the GPU model {model} has no NVLink through an NVSwitch: a ring inside its node runs "
                              "over PCIe or bridges, which the node's ports do not bound"}
    links, rate = NVLINKS_PER_GPU[generation], float(known[("nvlink", generation)]["rate_GBps_per_unit"])
    return {"gpu_model": model, "gpu_GBps": links * rate,
            "gpu_healthy_fraction": float(known[("nvlink", generation)]["healthy_fraction"]),
            "gpu_reason": f"a {model} GPU's NVLink: {links} x {rate:g} GB/s (NVLink {generation})"}


def _plain(text):
    """A GPU name as its words are matched: lower case, '-' and '_' as spaces."""
    return text.lower().replace("-", " ").replace("_", " ")


@cache
def gpu_memory():
    """suites/gpu-memory.csv's rows, in order: model, names (alternatives, each a list of words a GPU's
    name must all hold), memory_GBps, host_link (gen5x16, c2c), source, line. An InputError names the
    file and line of a bad bandwidth or a row without its source."""
    rows = []
    with GPU_MEMORY.open(encoding="utf-8", newline="") as f:
        for line, r in enumerate(csv.DictReader(f), start=2):
            try:
                bandwidth = float(r["memory_GBps"])
            except (TypeError, ValueError):
                bandwidth = 0
            if bandwidth <= 0 or not (r.get("source") or "").strip():
                raise InputError(f"{GPU_MEMORY}:{line}: every model needs its bandwidth (memory_GBps) and its source")
            rows.append({"model": r["model"], "names": [_plain(a).split() for a in r["names"].split("|") if a.strip()],
                         "memory_GBps": bandwidth, "host_link": r["host_link"], "source": r["source"], "line": line})
    return tuple(rows)


def gpu_model(name):
    """The suites/gpu-memory.csv row of a GPU's name (nvidia-smi's, CUDA's or a user's: H100-SXM), the
    first whose words one alternative holds all of (GB200 before B200), or None."""
    plain = _plain(name or "")
    return next((row for row in gpu_memory() if any(all(w in plain for w in words) for words in row["names"])), None)


def pcie_carried(generation, width, given_by, known=None, max_payload=None):
    """(GB/s, reason, healthy fraction, source) of what a PCIe link of `generation` (3..6) and
    `width` lanes carries, as bench/topology/link_derivation.cpp derives it: the lanes' rate on the
    wire times payload / (payload + TLP overhead + DLLP bytes), at the link's MaxPayload or, where
    unknown (a saved input), the database's default, said in the reason."""
    known = known or _database()
    row = known.get(("pcie", f"gen{generation}"))
    if row is None:
        raise InputError(f"{given_by}: suites/ceilings.csv has no PCIe Gen{generation} row")
    rate = float(row["rate_GBps_per_unit"])
    payload = max_payload or int(float(row.get("max_payload_bytes") or 256))
    tlp, dllp = float(row.get("tlp_overhead_bytes") or 0), float(row.get("dllp_bytes_per_tlp") or 0)
    share = payload / (payload + tlp + dllp)
    said = f"MaxPayload {payload} B" if max_payload else f"MaxPayload {payload} B assumed (the link's own unread: saved input)"
    reason = (f"PCIe Gen{generation} x{width} = {width} x {rate:g} GB/s on the wire, {100 * share:.1f}% of it data in TLPs "
              f"of {payload} B ({said}: {payload} / ({payload} + {tlp:g} TLP + {dllp:g} DLLP bytes))")
    return rate * width * share, reason, float(row["healthy_fraction"]), f"suites/ceilings.csv, pcie gen{generation}: {row['source']}"


def device_copy(row, named="", known=None):
    """The ceiling (a dict as a topology.json link has it) of a copy inside the memory of the GPU
    model `row` (gpu_model's): half its memory bandwidth, a copy reading and writing each byte."""
    known = known or _database()
    copy = known.get(("device", "any")) or {}
    return {"class": "device", "ceiling_GBps": row["memory_GBps"] / 2,
            "healthy_fraction": float(copy.get("healthy_fraction") or 0.8),
            "reason": f"{row['model']}{named}: {row['memory_GBps']:g} GB/s of memory, a copy reads and writes each byte: "
                      f"{row['memory_GBps'] / 2:g} GB/s copied",
            "source": f"suites/gpu-memory.csv, {row['model']}: {row['source']}"
                      + (f"; suites/ceilings.csv, device any: {copy['source']}" if copy.get("source") else "")}


def stated_gpu(model, given_by):
    """suite.json's `gpu`: what a GPU of `model` (`--gpu-model`) carries where no topology says it, as
    links of topology.json: its copy inside its memory (`device`) and its host link (`host`: PCIe as
    its datasheet gives it, at the default MaxPayload, or NVLink-C2C); `unknown` says why where the
    model is not in suites/gpu-memory.csv."""
    row = gpu_model(model)
    if row is None:
        return {"gpu_model": model, "unknown": f"the GPU model '{model}' ({given_by}) is not in suites/gpu-memory.csv"}
    known = _database()
    named = f", the GPU model {model} ({given_by})"
    stated = {"gpu_model": model, "device": device_copy(row, named, known)}
    link = re.fullmatch(r"gen(\d)x(\d+)", row["host_link"])
    if link:
        GBps, reason, fraction, source = pcie_carried(int(link.group(1)), int(link.group(2)), given_by, known)
        stated["host"] = {"class": "pcie", "ceiling_GBps": GBps, "healthy_fraction": fraction, "source": source,
                          "reason": f"{reason}; the {row['model']} datasheet's link{named} (as trained: unknown)"}
    elif row["host_link"] == "c2c" and known.get(("c2c", "any")):
        c2c = known[("c2c", "any")]
        stated["host"] = {"class": "c2c", "ceiling_GBps": float(c2c["rate_GBps_per_unit"]),
                          "healthy_fraction": float(c2c["healthy_fraction"]), "source": f"suites/ceilings.csv, c2c any: {c2c['source']}",
                          "reason": f"NVLink-C2C to the Grace CPU: {float(c2c['rate_GBps_per_unit']):g} GB/s per direction{named}"}
    return stated


def _endpoint(text):
    """endpoints.parse's Endpoint, or one of no node for an import's bare `gpu0` / `numa0` (a paste
    that names no node: nvbandwidth before 0.8, no --hosts): still one node's GPU and host."""
    found = parse(text)
    bare = re.fullmatch(r"(gpu|numa)(\d+)", text or "")
    return found or (Endpoint("", bare[1], int(bare[2])) if bare else None)


# NCCL_ALGO's values (NCCL's names, any case) that the expectations spell otherwise; the rest
# (ring, tree, nvls, pat) are the same lowercased.
NCCL_ALGO_NAMES = {"nvlstree": "nvls_tree", "collnetdirect": "collnet_direct", "collnetchain": "collnet_chain"}


class Ceilings:
    def __init__(self, links_by_node, expectations=(), typical_latencies=(), collectives=(), nccl_log=None,
                 gpu=None, gpu_names=None):
        self.links = links_by_node  # {hostname: {(a, b): link dict}}
        # What a GPU of the model named carries where the topology does not say it (suite.json's `gpu`,
        # written by `wirebench import --gpu-model`; `wirebench report --gpu-model`): stated_gpu's.
        self.gpu = gpu or {}
        # Each node's GPU names as topology.json lists them ({hostname: {"gpu0": "NVIDIA H200"}}): a
        # topology written before its GPUs had `device` links still gives their copies a ceiling.
        self.gpu_names = gpu_names or {}
        self.without_topology = False  # the run directory has no topology.json
        # Why the measuring node is a virtual machine (meta.json's `machine`), "" on bare metal: the
        # typical shared-memory latency is bare metal's, and a VM's vCPU scheduling sets its own.
        self.virtual_machine = ""
        # What `wirebench topo --nccl-log` read of an NCCL_DEBUG=INFO log (topology.json's `nccl`):
        # its catalogue's diagnoses become findings (verdicts.nccl_log_findings).
        self.nccl_log = nccl_log if isinstance(nccl_log, dict) else {}
        # NCCL all_reduce expectations (topology.json's nccl_expectations, written by `wirebench topo`
        # from NCCL's algorithms on the node's links): per (nodes, GPUs a node, algorithm) the
        # slowest node's, since a collective goes at its slowest member's pace.
        self.collectives = {}
        for entry in collectives:
            key = (entry.get("op"), entry.get("nodes"), entry.get("gpus_per_node"), entry.get("algorithm"))
            known = self.collectives.get(key)
            if known is None or entry.get("busbw_GBps", 0) < known.get("busbw_GBps", 0):
                self.collectives[key] = entry
        # Links the topology found degraded (PCIe trained below what both ends allow, NVLinks down,
        # an IB port narrower than 4X) or with a port not up: (hostname, link dict), each once.
        self.flagged = [(host, link) for host, table in links_by_node.items() for (a, b), link in table.items()
                        if (link.get("degraded") or link.get("inactive")) and (a, b) == (link["a"], link["b"])]
        self.expectations = {e["link_class"]: e for e in expectations if e.get("ceiling_GBps")}
        # Per link class the most lenient of its generations' figures (IB: the same 1.5 us for all).
        self.latencies = {}
        # A suite (or wirebench import --link-class) may state its class's typical latency; the
        # topology's, where it gives one, comes first.
        stated = [{"link_class": e["link_class"], "latency_us": e["latency_us"], "source": e.get("latency_source", "")}
                  for e in expectations if isinstance(e.get("latency_us"), (int, float)) and e.get("link_class")]
        given = {e["link_class"] for e in typical_latencies}
        for entry in list(typical_latencies) + [e for e in stated if e["link_class"] not in given]:
            known = self.latencies.get(entry["link_class"])
            if known is None or entry["latency_us"] > known.latency_us:
                self.latencies[entry["link_class"]] = TypicalLatency(float(entry["latency_us"]), entry.get("source", ""))

    @staticmethod
    def load(run_dir: Path):
        ceilings = Ceilings._load(run_dir)
        machine = read_meta(run_dir / "meta.json").get("machine")
        if isinstance(machine, dict) and machine.get("virtual") is True:
            ceilings.virtual_machine = str(machine.get("evidence") or "meta.json says so")
        return ceilings

    @staticmethod
    def _load(run_dir: Path):
        expectations, gpu = [], None
        suite = run_dir / "suite.json"
        if suite.exists():
            try:
                doc = json.loads(read_utf8(suite))
            except json.JSONDecodeError as error:
                raise InputError(f"{suite}:{error.lineno}: not valid JSON: {error.msg}") from None
            expectations, gpu = doc.get("expectations", []), doc.get("gpu")
        path = run_dir / "topology.json"
        if not path.exists() or path.stat().st_size == 0:
            ceilings = Ceilings({}, expectations, gpu=gpu)
            ceilings.without_topology = True  # what a NOT JUDGED says is missing
            return ceilings
        try:
            doc = json.loads(read_utf8(path))
        except json.JSONDecodeError as error:
            raise InputError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
        found = doc.get("schema_version", version("topology")) if isinstance(doc, dict) else None
        if found != version("topology"):  # a file without the field is read as the first version
            raise InputError(f"{path}:1: schema_version {found!r}; this reporter reads topology.json version "
                             f"{version('topology')} (written by `wirebench topo --json` of the same wirebench)")
        links, gpu_names = {}, {}
        for node in doc.get("nodes", []):
            table = {}
            for link in node.get("links", []):
                table[(link["a"], link["b"])] = link
                table[(link["b"], link["a"])] = link
            links[node.get("hostname", "")] = table
            gpu_names[node.get("hostname", "")] = {f"gpu{g['index']}": g["name"] for g in node.get("gpus", [])
                                                   if isinstance(g, dict) and g.get("name") and "index" in g}
        latencies = [entry for entry in doc.get("typical_latency_us", [])
                     if isinstance(entry, dict) and isinstance(entry.get("latency_us"), (int, float))
                     and entry.get("link_class")]
        collectives = [entry for node in doc.get("nodes", []) for entry in node.get("nccl_expectations", [])
                       if isinstance(entry, dict) and isinstance(entry.get("busbw_GBps"), (int, float))]
        return Ceilings(links, expectations, latencies, collectives, doc.get("nccl"), gpu, gpu_names)

    def typical_latency(self, row):
        """The class's typical latency; none for shared memory on a virtual machine (bare_metal_only)."""
        if self.bare_metal_only(row):
            return None
        return self.latencies.get(row.text("link_class"))

    def bare_metal_only(self, row):
        """Why the typical latency of the row's class does not hold here, or "": shared memory's typical
        (MVAPICH's 0.2-0.4 us) is bare metal's; on a virtual machine the hypervisor's vCPU scheduling
        sets it (osu_latency itself reads 1.1-1.4 us on this project's 2-vCPU VM, bench/MEASUREMENTS.md)."""
        if self.virtual_machine and row.text("link_class") == "shm" and "shm" in self.latencies:
            return self.virtual_machine
        return ""

    def _link(self, host, a, b):
        table = self.links.get(host) or (next(iter(self.links.values())) if len(self.links) == 1 else {})
        return table.get((a, b))

    def degradation_for_row(self, row):
        """What the topology found wrong with the link this row measured (empty when nothing)."""
        link = self._link_of_row(row)
        return list(link.get("degraded") or []) if link else []

    def _link_of_row(self, row):
        src, dst = _endpoint(row.text("src")), _endpoint(row.text("dst"))
        kinds = (src.kind if src else "", dst.kind if dst else "")
        if kinds == ("gpu", "gpu") and src == dst:  # a copy inside the GPU's memory
            return self._with_stated(self._link(src.node, src.local, src.local) or self._named_device(src), "device")
        if kinds == ("gpu", "gpu"):
            link = self._link(src.node, src.local, dst.local)
            pcie = (link or {}).get("class", row.text("link_class")) == "pcie"
            over_pcie = (self.gpu.get("host") or {}).get("class") == "pcie"
            # over PCIe a pair goes no faster than a GPU's own link
            return self._with_stated(link, "host") if pcie and over_pcie else link
        if kinds == ("gpu", "numa"):
            return self._with_stated(self._link(src.node, src.local, "host"), "host")
        if kinds == ("numa", "gpu"):
            return self._with_stated(self._link(dst.node, dst.local, "host"), "host")
        src_host, dst_host = node_of(row.text("src")), node_of(row.text("dst"))
        if row.text("link_class") in ("ib", "roce", "eth") and src_host != dst_host:
            return self._slowest_port(src_host, dst_host)
        return None

    def _named_device(self, end):
        """A `device` link from the GPU's name in topology.json (a topology written before its GPUs had
        device links), or None."""
        names = self.gpu_names.get(end.node) or (next(iter(self.gpu_names.values())) if len(self.gpu_names) == 1 else {})
        row = gpu_model(names.get(end.local, ""))
        return device_copy(row) if row else None

    def _with_stated(self, link, which):
        """The topology's link where it gives a ceiling, else the stated GPU model's (`device` or
        `host`), else the link as it is (None where neither knows one)."""
        if link and link.get("ceiling_GBps") is not None:
            return link
        return self.gpu.get(which) or link

    def add_gpu(self, stated):
        """The GPUs' model stated after the run (`wirebench report --gpu-model`): stated_gpu's."""
        self.gpu = stated

    def for_row(self, row):
        src_host, dst_host = node_of(row.text("src")), node_of(row.text("dst"))
        link = self._link_of_row(row)
        # A stated ceiling holds rows between nodes; within a node, and a collective's communicator,
        # only where the statement says so (`any_endpoints: true`, as `wirebench import --rate` writes it).
        stated_everywhere = self.expectations.get(row.text("link_class"), {}).get("any_endpoints")
        if (not link or link.get("ceiling_GBps") is None) and (src_host != dst_host or stated_everywhere):
            # A link the topology cannot see (a virtual cluster's, a stated network): the suite's.
            stated = self.for_link_class(row.text("link_class"))
            if stated:
                return stated
        if not link or link.get("ceiling_GBps") is None:
            return None
        return Ceiling(link["ceiling_GBps"], link.get("reason", ""), link.get("healthy_fraction") or 0.8,
                       link.get("source", ""))

    def for_collective(self, row, items):
        """What an NCCL all_reduce row should reach on its wiring: the expectation for its node count
        (1, 2, 3+) and GPUs a node, for the algorithm NCCL_ALGO forced (in the row's extra) or else
        NCCL's own pick; None where topology.json has none."""
        declared = judging.bandwidth(row)
        if not declared or declared.metric != "busbw_GBps" or row.text("backend") != "nccl":
            return None
        nodes, ranks = int(row.number("nodes") or 0), int(row.number("ranks") or 0)
        if nodes < 1 or ranks % nodes:
            return None
        if not self.collectives:
            return self._across_nodes(row, items, nodes)
        shape = (row.text("op"), "1" if nodes == 1 else "2" if nodes == 2 else "3+", ranks // nodes)
        forced = items.get("NCCL_ALGO")
        if forced:
            entry = self.collectives.get(shape + (NCCL_ALGO_NAMES.get(forced.lower(), forced.lower()),))
            how = f"NCCL_ALGO={forced}"
        else:
            entry = next((e for key, e in self.collectives.items() if key[:3] == shape and e.get("nccl_choice")), None)
            how = "NCCL's own pick at large sizes"
        if entry is None:
            return self._across_nodes(row, items, nodes)
        return Ceiling(entry["busbw_GBps"], f"{how}: {entry.get('reason', '')}",
                       entry.get("healthy_fraction") or 0.8, entry.get("source", "topology.json"))

    def _across_nodes(self, row, items, nodes):
        """A collective across nodes against the node's ports together (`--nics` of import and report,
        a profile's `nics:`), where the topology gives no expectation for it: a ring's busbw is what
        each node's ports carry (NVIDIA/nccl-tests#160: on rings busbw "reflects exactly what's going
        through the NICs"), healthy from suites/ceilings.csv's nics_ring fraction. NCCL rings at large
        sizes on 3 nodes or more; on 2 nodes only with NCCL_ALGO=Ring: there its tree goes beyond the
        ports' rate (NVIDIA/nccl-tests#196), so they are no ceiling of it. With the GPU model, the
        slower of the ports and a GPU's NVLink; a PCIe part's ring is not bounded by the ports."""
        stated = self.nics_for(row.text("link_class"))
        ports, forced = stated.get("ports_per_node"), (items.get("NCCL_ALGO") or "").lower()
        if nodes < 2 or not stated.get("nics") or not ports or forced not in ("", "ring") or (nodes == 2 and not forced):
            return None
        if "gpu_GBps" in stated and not stated["gpu_GBps"]:
            return None
        how = f"NCCL_ALGO={items['NCCL_ALGO']}" if forced else "a ring, NCCL's pick at large sizes on 3 nodes or more"
        together = ports * stated["ceiling_GBps"]
        fraction = stated.get("nics_healthy_fraction", stated.get("healthy_fraction", 0.8))
        source = "; ".join(s for s in (stated.get("source", "suite"), stated.get("nics_source")) if s)
        if stated.get("gpu_GBps") and stated["gpu_GBps"] < together:  # the GPU's NVLink is the slower
            return Ceiling(stated["gpu_GBps"], f"{how}: busbw is what a GPU's NVLink carries, {stated['gpu_reason']}, "
                           f"below the node's ports together ({ports} x {stated['reason']})",
                           stated.get("gpu_healthy_fraction", 0.8), source)
        return Ceiling(together, f"{how}: busbw is what a node's ports carry together, {ports} x {stated['reason']}"
                       + (f" (slower than {stated['gpu_reason']})" if stated.get("gpu_GBps") else ""), fraction, source)

    def nics_for(self, link_class):
        """The stated ports of a row's network: its link class's, or, for a row that names no link
        class (a collective imported without one), the one network stated."""
        stated = self.expectations.get(link_class, {})
        if not stated and not link_class:
            ports = [e for e in self.expectations.values() if e.get("nics")]
            stated = ports[0] if len(ports) == 1 else {}
        return stated

    def add_nics(self, nics):
        """The node's ports stated after the run (`wirebench report --nics`, a profile's `nics:`):
        they replace what suite.json stated for the same link class."""
        known = self.expectations.get(nics["link_class"], {})
        self.expectations[nics["link_class"]] = {k: v for k, v in known.items() if k in ("latency_us", "latency_source")} | nics

    def network_ports(self, host):
        """How many network ports the topology saw on `host`, or the suite states (`ports_per_node`: a
        virtual cluster's rails); 1 where neither says."""
        ports = {link.get("a") for (a, b), link in self.links.get(host, {}).items() if b == "network"}
        return max(len(ports), self.stated_ports(), 1)

    def stated_ports(self):
        """The network ports per node the suite states (`ports_per_node`: a virtual cluster's rails, a
        NIC per rank), else 1."""
        return max((int(e.get("ports_per_node", 1)) for e in self.expectations.values()), default=1)

    def for_link_class(self, link_class):
        """The suite's stated ceiling of a link class (the per-pair ceiling of an aggregate), or None."""
        expected = self.expectations.get(link_class)
        if not expected:
            return None
        return Ceiling(expected["ceiling_GBps"], expected.get("reason", "the suite's expectation"),
                       expected.get("healthy_fraction", 0.8), expected.get("source", "suite"))

    def _slowest_port(self, *hosts):
        ports = [link for host in hosts for (a, b), link in self.links.get(host, {}).items()
                 if b == "network" and link.get("ceiling_GBps")]
        return min(ports, key=lambda link: link["ceiling_GBps"]) if ports else None
