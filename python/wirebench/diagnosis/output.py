"""The diagnosis as topology.json's `nccl` section (its shape as `wirebench topo --json` has always
written it: source, network, ib_devices, rings, trees, channels, problems, diagnoses) and as the
readable lines `wirebench topo` prints under the node's table."""
from .class_causes import said as likely_said

CHANNELS_SHOWN = 16  # channel lines listed in the readable lines; the rest counted by transport


def nccl_section(log, findings):
    return {"source": log.source, "network": log.network, "ib_devices": log.ib_devices, "rings": log.rings,
            "trees": log.trees, "channels": [c.as_json() for c in log.channels], "problems": log.problems,
            "diagnoses": [f.as_json() for f in findings],
            "explained": [{"line": line, "quote": quote, "why": why} for line, quote, why in log.explained]}


def table(section):
    """The readable lines of an `nccl` section."""
    out = [f"NCCL log {section['source']}: network {section['network'] or '(not said)'}"]
    channels = section["channels"]
    for c in channels[:CHANNELS_SHOWN]:
        out.append(f"  line {c['line']}: channel {c['channel']}  rank {c['src_rank']} -> {c['dst_rank']}  "
                   f"{c['transport']}{' (GDRDMA)' if c['gdrdma'] else ''}  via {c['via']}")
    if len(channels) > CHANNELS_SHOWN:
        # a job of many ranks prints thousands: the findings below must not scroll away (--json lists every one)
        by_transport = {}
        for c in channels:
            by_transport[c["transport"]] = by_transport.get(c["transport"], 0) + 1
        counts = ", ".join(f"{transport} {n:,}" for transport, n in sorted(by_transport.items(), key=lambda t: -t[1]))
        out.append(f"  ... {len(channels) - CHANNELS_SHOWN:,} more channel lines ({len(channels):,} in all: {counts}); "
                   "--json lists each")
    out += [f"  PROBLEM: {p}" for p in section["problems"]]
    for d in section["diagnoses"]:
        where = f"{section['source']}:{d['line']}" if d["line"] > 0 else section["source"]
        out += [f"  {d['verdict']} {d['id']}: {d['what']}", f"      where: {where}", f"      why: {d['why']}",
                f"      fix: {d['fix']}", f"      source: {d['source']}"]
        if d.get("likely"):  # a generic finding's prior (class_causes.py): said apart from its cause and fix
            out.append(f"      likely: {likely_said(d['likely'])}")
    for e in section.get("explained", []):  # older topology.json files have none
        out.append(f"  not a finding, line {e['line']}: \"{e['quote']}\": {e['why']}")
    return "\n".join(out) + "\n"
