"""The files a run directory gets from the reporter: report.md (people), report.html (the same with
the plots), junit.xml (CI servers), summary.json (tools), and the console's closing lines. Written
from the verdicts only, so each can be rebuilt from an old run. Every one of them opens the same
way: one line of counts, then each FAIL and ERROR as what / where / measured vs expected / why /
how to look closer, then each WARN the same way, the SKIPs and NOT JUDGED one line per reason, and
only then the per-link tables and the plots."""
import json
import re
import xml.etree.ElementTree as ET
from collections import OrderedDict

from .endpoints import nic_of, spoken_rail
from .extra import command_item, row_items
from .schema import version
from .verdicts import counts, floor_outcomes, grouped, items

SUMMARY_SCHEMA_VERSION = version("summary")  # schema/versions.csv
NET_TESTS = {"pingpong": "latency", "stream_bw": "bw", "bidir_bw": "bibw"}


def _row_name(v):
    f = v.row.fields
    if f["bench"] == "topology":  # a finding of the topology, not a measurement
        return f"{f['case']} {f['link_class']} link {f['src']} -> {f['dst']}"
    name = f"{f['case']} {f['op']} {f['dtype']} {f['src']}"
    if f["dst"]:
        name += f" -> {f['dst']}"
    return f"{name} {f['bytes']} B"


def size_text(n):
    n = int(n or 0)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def what(v):
    """The item in words: what was judged, on which link."""
    f = v.row.fields
    bench = f["bench"]
    if f["backend"] == "run":  # the runner's row for a step that failed or did not run (ci/wirebench_run)
        binary = row_items(v.row).get("binary") or f"wb-{bench}"
        where = f" on {f['src']}" if f["src"] else ""
        return f"step '{f['case']}': {binary}, {f['ranks'] or '?'} rank(s){where}"
    if bench == "topology":
        return f"topology: {f['link_class'] or 'a'} link {f['src']} - {f['dst']} is {f['case']}"
    if bench == "step":
        return f"step emulation: {f['case']} of {f['src']} on {f['dst'] or 'this wiring'} ({f['ranks']} ranks)"
    if bench == "fabric":  # a culprit the node x node matrix names (culprits.py)
        kind, _, case = f["case"].partition(":")
        node, rail = nic_of(f["src"])
        part = {"node": f"node {f['src']}", "path": f"the path {f['src']}-{f['dst']}", "rail": f["src"],
                "route": f"the route {f['src']}", "fabric": "the fabric as a whole",
                "nic": f"{node}'s NIC on {spoken_rail(rail)}",
                "miswire": f"{node}'s rail-{rail[4:]} NIC cabled to {spoken_rail(f['dst'])}'s switch"
                }.get(kind, f["src"])
        schedule = row_items(v.row).get("pairs")
        return (f"fabric culprit: {part}, from net {case}{' --pairs ' + schedule if schedule else ''} "
                f"({f['link_class']}) at {size_text(f['bytes'])} ({f['backend']})")
    kind = "data check" if v.row.number("errors") else "latency" if v.metric == "time_us" else "bandwidth"
    link = f"{f['src']} -> {f['dst']}" if f["dst"] and f["dst"] != f["src"] else f["src"]
    return (f"{bench} {f['case']} {kind}{' (' + f['link_class'] + ')' if f['link_class'] else ''}: {link}, "
            f"{f['op'] or f['case']} {size_text(f['bytes'])} ({f['backend'] or 'host'})")


def measured(v):
    if v.row.number("errors"):
        return f"{int(v.row.number('errors'))} wrong elements"
    if v.value is None:
        return ""
    if v.metric == "time_us":
        return f"{v.value / 1e3:.4g} ms" if v.row.text("bench") == "step" else f"{v.value:.4g} us"
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
    """A command or a place to look, per bench: how to see the fault more closely."""
    f = v.row.fields
    bench, size = f["bench"], f["bytes"]
    if f["backend"] == "run":  # a step that failed: its own command line, and its log
        items = row_items(v.row)
        rerun, log = command_item(items, "rerun"), items.get("log")
        if not rerun:
            return f"read {log}" if log else ""
        return f"rerun it as it ran: {rerun}" + (f"; its log: {log}" if log else "")
    if bench == "net":
        return (f"rerun the pair alone: mpiexec -n 2 wb-net --tests {NET_TESTS.get(f['case'], 'latency,bw,bibw')} "
                f"--sizes {size} --backend {f['backend']} with its ranks on {f['src'].rpartition('/')[0] or f['src']} "
                f"and {f['dst'].rpartition('/')[0] or f['dst']}; check the link (ethtool, ibstat, ip -s link)")
    if bench == "fabric":
        kind = f["case"].partition(":")[0]
        if kind == "node":
            return (f"check {f['src']}'s NIC, cable and switch port (ethtool, ibstat, perfquery, ip -s link); rerun wb-net "
                    f"--pairs all on a few nodes with {f['src']} and without it")
        if kind == "path":
            return (f"check the cable and the switch ports between {f['src']} and {f['dst']} and the route they take "
                    f"(ibtracert, ibdiagnet); rerun the pair alone with wb-net --pairs first on those two nodes")
        if kind == "rail":
            return f"check {f['src']}'s switch and its cabling (ibdiagnet on that rail)"
        if kind == "nic":
            node, rail = nic_of(f["src"])
            return (f"check {node}'s {spoken_rail(rail)} NIC, its cable and its switch port (ethtool, ibstat, perfquery, "
                    f"ip -s link; lspci -vv for its PCIe link); {node}'s other NICs are fine")
        if kind == "miswire":
            node, rail = nic_of(f["src"])
            return (f"move {node}'s {spoken_rail(rail)} cable to that rail's switch (it is on "
                    f"{spoken_rail(f['dst'])}'s: ibnetdiscover or lldpctl show its neighbour); rerun the screen")
        if kind == "route":
            a, _, b = f["src"].partition("-")
            return (f"check the uplinks of switches {a} and {b} and the spine ports between them (ibdiagnet, "
                    "perfquery on their ports); rerun the screen, or wb-net --pairs all on a few nodes of each")
        return "check the switches (ibdiagnet) and the ceiling the report used for these links"
    if bench == "coll":
        # as it ran: its backend, type, placement and any NCCL_ALGO it was forced to
        algorithm = row_items(v.row).get("NCCL_ALGO")
        placement = {"in_place": "yes", "out_of_place": "no"}.get(f["case"])
        return (f"rerun: {'NCCL_ALGO=' + algorithm + ' ' if algorithm else ''}mpiexec -n {f['ranks']} wb-coll "
                f"--backend {f['backend']} --collective {f['op']} -d {f['dtype']} -b {size} -e {size}"
                f"{' --in-place ' + placement if placement else ''} -c 1; compare with nccl-tests' or OSU's figure on "
                "the same ranks")
    if bench == "host":
        return f"rerun: wb-host --sizes {size}; check numactl --hardware and the memory's speed (dmidecode -t memory)"
    if bench == "p2p":
        return f"rerun: wb-p2p --sizes {size}; check nvidia-smi topo -m, nvidia-smi nvlink -s and lspci -vv (LnkSta)"
    if bench == "topology":
        return "check: lspci -vv (LnkSta against LnkCap), nvidia-smi nvlink -s, ibstat; reseat or replace the part"
    if bench == "step":
        trace = row_items(v.row).get("trace")
        return f"open {trace} in Perfetto (ui.perfetto.dev) or chrome://tracing" if trace else "open the step's trace"
    return ""


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


def verdict_line(verdicts, problems):
    """The top of the report in one sentence."""
    c = counts(verdicts, problems)
    if c["FAIL"] or c["ERROR"]:
        return f"{c['FAIL']} FAIL and {c['ERROR']} ERROR: the first lines below say what, where and why."
    if c["WARN"]:
        return f"Healthy where judged, with {c['WARN']} WARN to look at below."
    return f"Healthy: all {c['PASS']} judged items pass."


def skip_lines(verdicts):
    return [f"{count} case{'s' if count > 1 else ''} ({', '.join(f'{b} {n}' for b, n in benches.items())}): {reason}"
            for reason, count, benches in grouped(verdicts, "SKIP")]


def not_judged_lines(verdicts):
    return [f"{count} item{'s' if count > 1 else ''} ({', '.join(f'{b} {n}' for b, n in benches.items())}): {reason}"
            for reason, count, benches in grouped(verdicts, "NOT JUDGED")]


def findings(verdicts):
    """The wiring's findings (a step's exposed share), each with the same model's other wirings."""
    out = []
    steps = [v for v in verdicts if v.row.text("bench") == "step" and v.value is not None and v.verdict != "ERROR"]
    for v in steps:
        if not v.finding:
            continue
        others = [o for o in steps if o is not v and o.row.text("src") == v.row.text("src")
                  and o.row.text("case") == v.row.text("case") and o.row.text("dst") != v.row.text("dst")]
        beside = "; ".join(f"on {o.row.text('dst')}: {_exposed_pct(o):.0f}%" for o in others)
        out.append(v.finding + (f" ({beside})" if beside else "; no other wiring of this model was measured"))
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
        key = "step emulation" if f["bench"] == "step" else "topology" if f["bench"] == "topology" else \
            (f["link_class"] or "unclassified") + " links"
        tables.setdefault(key, []).append(v)
    return tables


TABLE_HEADINGS = ("verdict", "item", "measured", "expected", "samples", "spread", "where")


def table_cells(v):
    spread = v.row.text("spread_pct")
    return (v.verdict, what(v), measured(v), v.expected, "" if v.row.samples is None else str(v.row.samples),
            percent(spread) if spread else "", v.row.where)


def console_lines(verdicts, problems):
    """What `wirebench report` and `wirebench run` end with: silent about passes beyond their count."""
    lines = [f"wirebench verdict: {counts_line(verdicts, problems)}. {verdict_line(verdicts, problems)}"]
    for level in ("FAIL", "ERROR", "WARN"):
        for v in items(verdicts):
            if v.verdict == level:
                lines.append(f"  {headline(v)}")
                lines += [f"      {label}: {text}" for label, text in details(v)]
        if level == "ERROR":
            lines += [f"  ERROR input: {p}" for p in problems]
    lines += [f"  SKIP {line}" for line in skip_lines(verdicts)]
    lines += [f"  NOT JUDGED {line}" for line in not_judged_lines(verdicts)]
    lines += [f"  finding: {line}" for line in findings(verdicts)]
    return lines


def _md_cell(text):
    """Text from the data (a reason, a host name, a path) as Markdown shows it literally: no table
    cell split by a '|', no emphasis, link, code span or HTML from what a benchmark wrote.
    Underscores are left alone: inside words (h2d_pinned) they are literal in CommonMark."""
    text = str(text).replace("\r", " ").replace("\n", " ")
    for special in ("\\", "`", "*", "[", "]", "|"):
        text = text.replace(special, "\\" + special)
    # Only a '<' that could open HTML (a tag, a comment): arrows such as '->' and '<->' stay readable.
    return re.sub(r"<(?=[A-Za-z/!?])", "&lt;", text)


def _profile_rows(profile):
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


def incomplete_note(verdicts, problems):
    """One sentence when something could not be measured: the verdicts then cover only part of the
    run, and a reader must not take the rest for healthy. Empty otherwise."""
    errors = counts(verdicts, problems)["ERROR"]
    if not errors:
        return ""
    return (f"The run is incomplete: {errors} measurement{'s' if errors > 1 else ''} could not be made or read "
            "(ERROR below); the other verdicts cover only what was measured.")


def _row_cells(v):
    f = v.row.fields
    value = "" if v.value is None else f"{v.value:.4g} {'us' if v.metric == 'time_us' else 'GB/s'}"
    fraction = "" if v.fraction is None else f"{100 * v.fraction:.1f}%"
    verdict = "" if v.verdict == "DATA" else v.verdict
    return (verdict, f["case"], f["backend"], f["op"], f["dtype"], f["src"], f["dst"], f["bytes"], value, fraction,
            "" if v.row.samples is None else str(v.row.samples), "" if v.verdict == "DATA" else v.reason)


def _by_bench(verdicts):
    families = OrderedDict()
    for v in verdicts:
        families.setdefault(v.row.text("bench"), []).append(v)
    return families


def markdown(run_dir, verdicts, problems, profile=None):
    lines = [f"# wirebench report: {_md_cell(run_dir)}", "",
             f"**{_md_cell(counts_line(verdicts, problems))}.** {_md_cell(verdict_line(verdicts, problems))}", ""]
    if incomplete_note(verdicts, problems):
        lines += [f"**{incomplete_note(verdicts, problems)}**", ""]
    for level, title in (("FAIL", "FAIL"), ("ERROR", "ERROR"), ("WARN", "WARN")):
        chosen = [v for v in items(verdicts) if v.verdict == level]
        extra = [f"- **ERROR** input: {_md_cell(p)}" for p in problems] if level == "ERROR" else []
        if not chosen and not extra:
            continue
        lines += [f"## {title}", ""]
        for v in chosen:
            lines.append(f"- **{_md_cell(headline(v))}**")
            lines += [f"  - {label}: {_md_cell(text)}" for label, text in details(v)]
        lines += extra + [""]
    for title, entries in (("SKIP (this machine cannot run them)", skip_lines(verdicts)),
                           ("NOT JUDGED (measured, nothing to hold them against)", not_judged_lines(verdicts)),
                           ("Findings of the wiring", findings(verdicts))):
        if entries:
            lines += [f"## {title}", ""] + [f"- {_md_cell(e)}" for e in entries] + [""]
    if profile:
        lines += [f"## Platform profile: {_md_cell(profile.name)}", "", _md_cell(profile.description), "",
                  "| " + " | ".join(PROFILE_HEADINGS) + " |", "|" + "---|" * len(PROFILE_HEADINGS)]
        lines += ["| " + " | ".join(_md_cell(x) for x in row) + " |" for row in _profile_rows(profile)]
        lines.append("")
    for link_class, members in link_class_tables(verdicts).items():
        lines += [f"## {_md_cell(link_class)}", "", "| " + " | ".join(TABLE_HEADINGS) + " |",
                  "|" + "---|" * len(TABLE_HEADINGS)]
        lines += ["| " + " | ".join(_md_cell(x) for x in table_cells(v)) + " |" for v in members]
        lines.append("")
    lines += ["## Every row", "", "Sweep points that are not judged items have no verdict.", ""]
    for family, members in _by_bench(verdicts).items():
        lines += [f"### {_md_cell(family)}", "", "| " + " | ".join(ROW_HEADINGS) + " |", "|" + "---|" * len(ROW_HEADINGS)]
        lines += ["| " + " | ".join(_md_cell(x) for x in _row_cells(v)) + " |" for v in members]
        lines.append("")
    return "\n".join(lines)


def _profile_suite(suites, profile):
    """A testcase per floor of the platform profile: its acceptance at a glance."""
    suite = ET.SubElement(suites, "testsuite", name="profile")
    tally = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for name, metric, floor, rows, worst, verdict, source in _profile_rows(profile):
        case = ET.SubElement(suite, "testcase", classname=f"wirebench.profile.{profile.name}", name=name, time="0")
        message = f"{metric} {worst or '-'} against the floor {floor} over {rows} rows (source: {source})"
        tally["tests"] += 1
        if verdict == "FAIL":
            ET.SubElement(case, "failure", message=message, type="FAIL").text = message
            tally["failures"] += 1
        elif verdict.startswith("not measured"):
            ET.SubElement(case, "skipped", message=f"{verdict}: no row matched the floor ({source})")
            tally["skipped"] += 1
        elif verdict == "WARN":
            ET.SubElement(case, "system-out").text = "WARN: " + message
    for key, value in tally.items():
        suite.set(key, str(value))
    return tally


def junit(verdicts, problems, profile=None):
    """One testcase per judged item (sweep points are none), a testsuite per bench; FAIL -> <failure>
    and ERROR -> <error> with the "measured vs expected" line as the message, SKIP -> <skipped> (the
    machine cannot run it), WARN and NOT JUDGED pass with their reason in <system-out>: the JUnit
    layout Jenkins, GitLab and GitHub test reporters read. With a platform profile, a testsuite
    `profile` holds a testcase per floor."""
    suites = ET.Element("testsuites", name="wirebench")
    by_bench = _by_bench(items(verdicts))
    if problems:
        by_bench.setdefault("input", [])
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for bench, members in by_bench.items():
        suite = ET.SubElement(suites, "testsuite", name=bench)
        tally = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for v in members:
            case = ET.SubElement(suite, "testcase", classname=f"wirebench.{bench}", name=_row_name(v),
                                 time=f"{(v.row.number('time_us') or 0) / 1e6:.9f}")
            tally["tests"] += 1
            text = "\n".join([headline(v)] + [f"{label}: {t}" for label, t in details(v)])
            if v.verdict == "FAIL":
                ET.SubElement(case, "failure", message=headline(v), type="FAIL").text = text
                tally["failures"] += 1
            elif v.verdict == "ERROR":
                ET.SubElement(case, "error", message=headline(v), type="ERROR").text = text
                tally["errors"] += 1
            elif v.verdict == "SKIP":
                ET.SubElement(case, "skipped", message=v.reason)
                tally["skipped"] += 1
            elif v.verdict in ("WARN", "NOT JUDGED"):
                ET.SubElement(case, "system-out").text = f"{v.verdict}: {v.reason}"
        if bench == "input":
            for p in problems:
                case = ET.SubElement(suite, "testcase", classname="wirebench.input", name=p.split(": ")[0], time="0")
                ET.SubElement(case, "error", message=p, type="ERROR").text = p
                tally["tests"] += 1
                tally["errors"] += 1
        for key, value in tally.items():
            suite.set(key, str(value))
            totals[key] += value
    if profile:
        for key, value in _profile_suite(suites, profile).items():
            totals[key] += value
    for key, value in totals.items():
        suites.set(key, str(value))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def summary(run_dir, verdicts, problems, code, profile=None):
    profile_json = None
    if profile:
        profile_json = {"name": profile.name, "description": profile.description, "floors": [
            {"name": o["floor"].name, "metric": o["floor"].metric, "floor_GBps": o["floor"].floor,
             "source": o["floor"].source, "rows": o["rows"], "worst_GBps": o["worst"], "verdict": o["verdict"]}
            for o in floor_outcomes(profile)]}
    return json.dumps({
        "schema_version": SUMMARY_SCHEMA_VERSION,
        "run_dir": str(run_dir),
        "exit_code": code,
        "counts": counts(verdicts, problems),
        "data_points": sum(1 for v in verdicts if not v.item),
        "problems": list(problems),
        "skipped": [{"reason": r, "count": n, "benches": b} for r, n, b in grouped(verdicts, "SKIP")],
        "not_judged": [{"reason": r, "count": n, "benches": b} for r, n, b in grouped(verdicts, "NOT JUDGED")],
        "findings": findings(verdicts),
        "profile": profile_json,
        "verdicts": [{"line": v.row.line, "key": v.row.key, "bench": v.row.text("bench"), "src": v.row.text("src"),
                      "dst": v.row.text("dst"), "verdict": v.verdict,
                      "item": what(v), "measured": measured(v), "expected": v.expected, "reason": v.reason,
                      "metric": v.metric, "value": v.value, "ceiling_GBps": v.ceiling_GBps, "fraction": v.fraction,
                      "samples": v.row.samples, "spread_pct": v.row.number("spread_pct") if v.row.text("spread_pct") else None,
                      "culprit": v.culprit or None}
                     for v in items(verdicts)],
    }, indent=2) + "\n"


COLOURS = {"PASS": "#2e7d32", "WARN": "#ef6c00", "FAIL": "#c62828", "SKIP": "#757575", "ERROR": "#6a1b9a",
           "NOT JUDGED": "#546e7a", "DATA": "#ffffff"}


def html_page(run_dir, verdicts, problems, plots, profile=None):
    """report.html: report.md's content with the plots embedded (one self-contained file); every
    string that comes from the data is escaped. The verdicts come before any plot."""
    import base64
    from html import escape

    def badge(verdict):
        return f"<span class='v' style='background:{COLOURS[verdict]}'>{verdict}</span>"

    parts = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
             f"<title>wirebench report: {escape(str(run_dir))}</title>",
             "<style>body{font-family:sans-serif;margin:1.5em;max-width:1400px} table{border-collapse:collapse;"
             "font-size:12px} td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}"
             " .v{font-weight:bold;color:white;padding:1px 5px;border-radius:3px;white-space:nowrap}"
             " .item{margin:0.4em 0 0.8em 0} .item dl{margin:0.2em 0 0 1.5em;font-size:13px}"
             " .item dt{float:left;width:7em;color:#555} .item dd{margin-left:7.5em}"
             " img{max-width:100%;border:1px solid #eee;margin:4px 0} figcaption{font-size:13px;color:#333}"
             " h1{font-size:22px} h2{font-size:18px;margin-top:1.2em}</style></head><body>",
             f"<h1>wirebench report: {escape(str(run_dir))}</h1>",
             f"<p id='counts'><b>{escape(counts_line(verdicts, problems))}.</b> "
             f"{escape(verdict_line(verdicts, problems))}</p>"]
    if incomplete_note(verdicts, problems):
        parts.append(f"<p><b>{escape(incomplete_note(verdicts, problems))}</b></p>")
    for level in ("FAIL", "ERROR", "WARN"):
        chosen = [v for v in items(verdicts) if v.verdict == level]
        inputs = problems if level == "ERROR" else []
        if not chosen and not inputs:
            continue
        parts.append(f"<h2>{level}</h2>")
        for v in chosen:
            parts.append(f"<div class='item verdict-{level.lower()}'>{badge(level)} <b>{escape(what(v))}</b>: "
                         f"{escape(measured(v))}{' vs expected ' + escape(v.expected) if v.expected else ''}<dl>" +
                         "".join(f"<dt>{escape(label)}</dt><dd>{escape(text)}</dd>" for label, text in details(v)) +
                         "</dl></div>")
        parts += [f"<div class='item verdict-error'>{badge('ERROR')} input: {escape(p)}</div>" for p in inputs]
    for title, entries in (("SKIP: this machine cannot run them", skip_lines(verdicts)),
                           ("NOT JUDGED: measured, nothing to hold them against", not_judged_lines(verdicts)),
                           ("Findings of the wiring", findings(verdicts))):
        if entries:
            parts.append(f"<h2>{escape(title)}</h2><ul>" + "".join(f"<li>{escape(e)}</li>" for e in entries) + "</ul>")
    if profile:
        parts.append(f"<h2>Platform profile: {escape(profile.name)}</h2><p>{escape(profile.description)}</p><table><tr>" +
                     "".join(f"<th>{h}</th>" for h in PROFILE_HEADINGS) + "</tr>")
        for row in _profile_rows(profile):
            parts.append("<tr>" + "".join(f"<td>{escape(str(x))}</td>" for x in row) + "</tr>")
        parts.append("</table>")
    for link_class, members in link_class_tables(verdicts).items():
        parts.append(f"<h2>{escape(link_class)}</h2><table><tr>" + "".join(f"<th>{h}</th>" for h in TABLE_HEADINGS)
                     + "</tr>")
        for v in members:
            cells = table_cells(v)
            parts.append(f"<tr><td>{badge(v.verdict)}</td>" + "".join(f"<td>{escape(x)}</td>" for x in cells[1:])
                         + "</tr>")
        parts.append("</table>")
    if plots:
        parts.append("<h2>Plots</h2>")
        for title, path in plots:
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            parts.append(f"<figure><img alt='{escape(title, quote=True)}' src='data:image/png;base64,{data}'>"
                         f"<figcaption>{escape(title)}</figcaption></figure>")
    parts.append("<h2>Every row</h2><details><summary>every row of results.csv with its verdict (sweep points that "
                 "are not judged items have none)</summary>")
    for family, members in _by_bench(verdicts).items():
        parts.append(f"<h3>{escape(family)}</h3><table><tr>" + "".join(f"<th>{h}</th>" for h in ROW_HEADINGS) + "</tr>")
        for v in members:
            cells = _row_cells(v)
            first = badge(v.verdict) if v.verdict != "DATA" else ""
            parts.append(f"<tr><td>{first}</td>" + "".join(f"<td>{escape(str(x))}</td>" for x in cells[1:]) + "</tr>")
        parts.append("</table>")
    parts.append("</details></body></html>")
    return "\n".join(parts) + "\n"
