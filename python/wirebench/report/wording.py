"""The report's words for each item and each group of items: what it is, what it measured against
what it was expected to, why, how sure, and how to look closer; the lines of the SKIP, NOT JUDGED
and findings lists; the cells of the tables. document.py orders them, the printers (outputs.py)
only format them."""
from collections import OrderedDict

from . import judging
from .endpoints import parse
from .extra import row_items
from .findings import words as findings_words
from .sizes import size_text
from .verdicts import EXPOSED_FINDING_PCT, counts, floor_outcomes, grouped, items



def words_of(v):
    """The words of the finding a verdict is (findings/: a module per kind), or None for a
    measurement's: a finding's words are its kind's, never read back from a row."""
    return findings_words(v.record) if v.record else None


def row_name(v):
    named = words_of(v).name(v) if words_of(v) else None
    if named:
        return named
    f = v.row.fields
    name = f"{f['case']} {f['op']} {f['dtype']} {f['src']}"
    if f["dst"]:
        name += f" -> {f['dst']}"
    return f"{name} {f['bytes']} B"


def what(v):
    """The item in words: what was judged, on which link."""
    f = v.row.fields
    bench = f["bench"]
    if f["backend"] == "run":  # the runner's row for a step that failed or did not run (python/wirebench/run)
        binary = row_items(v.row).get("binary") or f"wb-{bench}"
        where = f" on {f['src']}" if f["src"] else ""
        return f"step '{f['case']}': {binary}, {f['ranks'] or '?'} rank(s){where}"
    if words_of(v):
        return words_of(v).what(v)
    if judging.by_prediction(v.row):
        return f"step emulation: {f['case']} of {f['src']} on {f['dst'] or 'this wiring'} ({f['ranks']} ranks)"
    kind = "data check" if v.row.number("errors") else "latency" if v.metric == "time_us" else "bandwidth"
    # a case that already names its kind says it once ("p2p latency (device)", not "p2p latency latency")
    named = f"{f['case']}" if f["case"].split("_")[-1] == kind else f"{f['case']} {kind}"
    link = f"{f['src']} -> {f['dst']}" if f["dst"] and f["dst"] != f["src"] else f["src"]
    return (f"{bench} {named}{' (' + f['link_class'] + ')' if f['link_class'] else ''}: {link}, "
            f"{f['op'] or f['case']} {size_text(f['bytes'])} ({f['backend'] or 'host'})")


def measured(v):
    if v.row.number("errors"):
        return f"{int(v.row.number('errors'))} wrong elements"
    if v.value is None:
        return ""
    if v.metric == "time_us":
        return f"{v.value / 1e3:.4g} ms" if judging.by_prediction(v.row) else f"{v.value:.4g} us"
    text = f"{v.value:.4g} GB/s"
    return text + (f" ({100 * v.fraction:.1f}% of the ceiling)" if v.fraction is not None else "")


def confidence(v):
    """'N samples, spread S%' where the row says so."""
    samples, spread = v.row.samples, v.row.text("spread_pct")
    if samples is None:
        return ""
    return f"{samples} samples" + (f", spread {percent(spread)}" if spread else "")


def percent(text):
    value = float(text)
    return f"{value:.0f}%" if value >= 10 else f"{value:.2g}%"


def look_closer(v):
    """A command or a place to look: how to see the fault more closely (the row's own rerun, and where to
    look by what it measured)."""
    f = v.row.fields
    rerun = f.get("rerun", "")  # as the binary wrote it (legacy.py's for an older run)
    if f["backend"] == "run":  # a step that failed: its own command line, and its log
        log = row_items(v.row).get("log")
        if not rerun:
            return f"read {log}" if log else ""
        return f"rerun it as it ran: {rerun}" + (f"; its log: {log}" if log else "")
    if words_of(v):
        return words_of(v).look_closer(v)
    if judging.by_prediction(v.row):
        trace = row_items(v.row).get("trace")
        return f"open {trace} in Perfetto (ui.perfetto.dev) or chrome://tracing" if trace else "open the step's trace"
    src, dst = parse(f["src"]), parse(f["dst"])
    if src and dst and src.kind == dst.kind == "rank":
        again = (f"rerun the pair alone: {rerun} with its ranks on {src.node} and {dst.node}" if rerun
                 else f"rerun the pair alone, its ranks on {src.node} and {dst.node}")
    else:
        again = f"rerun: {rerun}" if rerun else ""
    return "; ".join(part for part in (again, _advice(v, _kind_only(f["src"], src), _kind_only(f["dst"], dst))) if part)


def _kind_only(text, parsed):
    """An endpoint as far as its kind goes: an imported row may name a GPU without its host ("gpu0",
    p2pBandwidthLatencyTest's), still a GPU for the advice."""
    return parsed or (parse(f"host/{text}") if text and "/" not in text else None)


def _advice(v, src, dst):
    """Where to look, by what the row measured: a collective against the peers' figure, a GPU's
    links, a NUMA node's memory, or the network between ranks."""
    declared = judging.bandwidth(v.row)
    if declared and declared.metric == "busbw_GBps":
        tool = row_items(v.row).get("tool")  # an imported row is a peer's figure already
        if tool:
            return (f"run NCCL_DEBUG=INFO and give its log to wirebench import --nccl-log: the transport per "
                    f"channel shows where the bandwidth went" if v.row.text("backend") == "nccl" else
                    "check the ranks' placement and the links between them (wirebench topo)")
        return "compare with nccl-tests' or OSU's figure on the same ranks"
    kinds = {e.kind for e in (src, dst) if e}
    if "gpu" in kinds and row_items(v.row).get("peer_access") == "no":
        return ("CUDA gives this pair no peer access (its copies go through the host): check nvidia-smi topo -p2p r, "
                "PCIe ACS and the IOMMU, and the fabric manager on an NVSwitch system")
    if "gpu" in kinds:
        return "check nvidia-smi topo -m, nvidia-smi nvlink -s and lspci -vv (LnkSta)"
    if "numa" in kinds:
        return "check numactl --hardware and the memory's speed (dmidecode -t memory)"
    if v.row.text("src") == "all":
        return "check the links (ethtool, ibstat, ip -s link) and the switches (ibdiagnet)"
    return "check the link (ethtool, ibstat, ip -s link)"


def headline(v):
    """One line: VERDICT what: measured vs expected."""
    vs = f": {measured(v)}" + (f" vs expected {v.expected}" if v.expected else "") if measured(v) else ""
    return f"{v.verdict} {what(v)}{vs}"


def details(v):
    """(label, text) lines that follow a FAIL, ERROR or WARN headline."""
    lines = [("where", v.row.where), ("why", v.reason)]
    if confidence(v):
        lines.append(("samples", confidence(v)))
    if look_closer(v):
        lines.append(("look closer", look_closer(v)))
    return lines


def counts_line(verdicts, problems):
    c = counts(verdicts, problems)
    return " · ".join(f"{c[name]} {name}" for name in c if c[name] or name in ("FAIL", "ERROR", "WARN", "PASS"))


def verdict_line(verdicts, problems, missing=()):
    """The top of the report in one sentence; `missing`: what was required and not judged (a profile
    floor no row matched), named before any word of health (exit code 4)."""
    c = counts(verdicts, problems)
    if c["FAIL"] or c["ERROR"]:
        return f"{c['FAIL']} FAIL and {c['ERROR']} ERROR: the first lines below say what, where and why."
    if missing:
        return f"Not healthy: {len(missing)} required item(s) not judged: {'; '.join(missing)}."
    if c["WARN"]:
        return f"Healthy where judged, with {c['WARN']} WARN to look at below."
    if not c["PASS"]:  # nothing was judged: no verdict of health either
        return (f"Nothing judged: {c['NOT JUDGED']} item(s) were measured but not judged (below says why)"
                if c["NOT JUDGED"] else "Nothing judged: no item was measured")
    return f"Healthy: all {c['PASS']} judged items pass."


def skip_lines(verdicts):
    return [f"{count} case{'s' if count > 1 else ''} ({', '.join(f'{b} {n}' for b, n in benches.items())}): {reason}"
            for reason, count, benches in grouped(verdicts, "SKIP")]


def not_judged_lines(verdicts):
    """One line per reason; a reason only one item has names that item ("1 item (step 1)" said
    nothing of which strategy on which wiring)."""
    lines = []
    for reason, count, benches in grouped(verdicts, "NOT JUDGED"):
        if count == 1:
            alone = next(v for v in verdicts if v.item and v.verdict == "NOT JUDGED" and v.reason == reason)
            lines.append(f"{what(alone)}: {reason}")
        else:
            lines.append(f"{count} items ({', '.join(f'{b} {n}' for b, n in benches.items())}): {reason}")
    return lines


def step_shares(verdicts):
    """The step emulation's communication: for each model and strategy with a step above
    EXPOSED_FINDING_PCT of exposed communication, one line with its share on every wiring measured,
    the worst first. What a job would wait for on these wirings, not a fault of the wiring: a section
    of its own, never a finding (issue 54)."""
    out = []
    groups = OrderedDict()
    for v in verdicts:
        if judging.by_prediction(v.row) and v.value is not None and v.verdict != "ERROR":
            groups.setdefault((v.row.text("case"), v.row.text("src")), []).append(v)
    for (strategy, model), members in groups.items():
        flagged = [v for v in members if v.finding]
        if not flagged:
            continue
        if len(members) == 1:
            out.append(flagged[0].finding + "; no other wiring of this model was measured")
            continue
        shares = [f"{_exposed_pct(v):.0f}% on {v.row.text('dst') or 'this wiring'}"
                  for v in sorted(members, key=lambda v: -_exposed_pct(v))]
        shares[0] = shares[0].replace("% on ", "% of its step on ", 1)
        out.append(f"{strategy} of {model} waits on communication for {', '.join(shares)} (above "
                   f"{EXPOSED_FINDING_PCT:.0f}% on {len(flagged)} of its {len(members)} wirings)")
    return out


def _exposed_pct(v):
    e = row_items(v.row)
    try:
        return 100 * float(e["exposed_us"]) / v.value
    except (KeyError, ValueError, ZeroDivisionError):
        return float("nan")


def link_class_tables(verdicts):
    """{class: [item verdicts]}: every judged item that is not a SKIP, by link class."""
    tables = OrderedDict()
    for v in items(verdicts):
        if v.verdict == "SKIP":
            continue
        f = v.row.fields
        key = "step emulation" if judging.by_prediction(v.row) else words_of(v).table(v) if words_of(v) else \
            (f["link_class"] or "unclassified") + " links"
        tables.setdefault(key, []).append(v)
    return tables


TABLE_HEADINGS = ("verdict", "item", "measured", "expected", "samples", "spread", "where")


def table_cells(v):
    spread = v.row.text("spread_pct")
    return (v.verdict, what(v), measured(v), v.expected, "" if v.row.samples is None else str(v.row.samples),
            percent(spread) if spread else "", v.row.where)


def profile_rows(profile):
    """(floor name, metric, floor, rows judged, worst value, verdict, source) per floor."""
    rows = []
    for o in floor_outcomes(profile):
        fl = o["floor"]
        worst = "" if o["worst"] is None else f"{o['worst']:.4g} GB/s"
        verdict = o["verdict"] + (f" (measure: {fl.measure})" if o["rows"] == 0 and fl.measure else "")
        rows.append((fl.name, fl.metric, f"{fl.floor:.4g} GB/s", o["rows"], worst, verdict, fl.source))
    return rows


PROFILE_HEADINGS = ("floor", "metric", "floor value", "rows judged", "worst", "verdict", "source")


ROW_HEADINGS = ("verdict", "case", "backend", "op", "dtype", "src", "dst", "bytes", "value", "of ceiling", "samples",
                "reason")


def incomplete_note(verdicts, problems, missing=()):
    """One sentence when something could not be measured: the verdicts then cover only part of the
    run, and a reader must not take the rest for healthy; what was required and not judged where
    the verdict line names a FAIL or ERROR before it. Empty otherwise."""
    c = counts(verdicts, problems)
    errors = c["ERROR"]
    unjudged = (f"Required and not judged: {'; '.join(missing)}." if missing and (c["FAIL"] or errors) else "")
    if not errors:
        return unjudged
    return (f"The run is incomplete: {errors} measurement{'s' if errors > 1 else ''} could not be made or read "
            "(ERROR below); the other verdicts cover only what was measured." + (f" {unjudged}" if unjudged else ""))


def row_cells(v):
    f = v.row.fields
    value = "" if v.value is None else f"{v.value:.4g} {'us' if v.metric == 'time_us' else 'GB/s'}"
    fraction = "" if v.fraction is None else f"{100 * v.fraction:.1f}%"
    verdict = "" if v.verdict == "DATA" else v.verdict
    return (verdict, f["case"], f["backend"], f["op"], f["dtype"], f["src"], f["dst"], f["bytes"], value, fraction,
            "" if v.row.samples is None else str(v.row.samples), "" if v.verdict == "DATA" else v.reason)


def by_bench(verdicts):
    families = OrderedDict()
    for v in verdicts:
        families.setdefault(v.row.text("bench"), []).append(v)
    return families
