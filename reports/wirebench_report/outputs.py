"""The files a run directory gets from the reporter: report.md (people), junit.xml (CI servers),
summary.json (tools). Written from the verdicts only, so each can be rebuilt from an old run."""
import json
import re
import xml.etree.ElementTree as ET
from collections import OrderedDict

from .verdicts import counts, floor_outcomes

SUMMARY_SCHEMA_VERSION = 1


def _row_name(v):
    f = v.row.fields
    if f["bench"] == "topology":  # a finding of the topology, not a measurement
        return f"{f['case']} {f['link_class']} link {f['src']} -> {f['dst']}"
    name = f"{f['case']} {f['op']} {f['dtype']} {f['src']}"
    if f["dst"]:
        name += f" -> {f['dst']}"
    return f"{name} {f['bytes']} B"


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


def incomplete_note(verdicts, problems):
    """One sentence when something could not be measured: the verdicts then cover only part of the
    run, and a reader must not take the rest for healthy. Empty otherwise."""
    errors = counts(verdicts, problems)["ERROR"]
    if not errors:
        return ""
    return (f"The run is incomplete: {errors} measurement{'s' if errors > 1 else ''} could not be made or read "
            "(ERROR below); the other verdicts cover only what was measured.")


def markdown(run_dir, verdicts, problems, profile=None):
    c = counts(verdicts, problems)
    lines = [f"# wirebench report: {_md_cell(run_dir)}", "",
             "| PASS | WARN | FAIL | SKIP | ERROR |", "|---|---|---|---|---|",
             f"| {c['PASS']} | {c['WARN']} | {c['FAIL']} | {c['SKIP']} | {c['ERROR']} |", ""]
    if incomplete_note(verdicts, problems):
        lines += [f"**{incomplete_note(verdicts, problems)}**", ""]
    if profile:
        lines += [f"## Platform profile: {_md_cell(profile.name)}", "", _md_cell(profile.description), "",
                  "| " + " | ".join(PROFILE_HEADINGS) + " |", "|" + "---|" * len(PROFILE_HEADINGS)]
        lines += ["| " + " | ".join(_md_cell(x) for x in row) + " |" for row in _profile_rows(profile)]
        lines.append("")
    bad = [v for v in verdicts if v.verdict in ("FAIL", "ERROR")]
    if bad or problems:
        lines += ["## FAIL and ERROR", ""]
        for v in bad:
            lines.append(f"- **{v.verdict}** {_md_cell(v.row.text('bench'))}: {_md_cell(_row_name(v))} "
                         f"({_md_cell(v.row.where)}): {_md_cell(v.reason)}")
        for p in problems:
            lines.append(f"- **ERROR** input: {_md_cell(p)}")
        lines.append("")
    families = OrderedDict()
    for v in verdicts:
        families.setdefault(v.row.text("bench"), []).append(v)
    for family, members in families.items():
        lines += [f"## {_md_cell(family)}", "",
                  "| verdict | case | backend | op | dtype | src | dst | bytes | value | of ceiling | reason |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for v in members:
            f = v.row.fields
            value = "" if v.value is None else f"{v.value:.4g} {'us' if v.metric == 'time_us' else 'GB/s'}"
            fraction = "" if v.fraction is None else f"{100 * v.fraction:.1f}%"
            cells = (v.verdict, f["case"], f["backend"], f["op"], f["dtype"], f["src"], f["dst"], f["bytes"], value,
                     fraction, v.reason)
            lines.append("| " + " | ".join(_md_cell(x) for x in cells) + " |")
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
    """One testcase per judged row, a testsuite per bench; FAIL -> <failure>, ERROR -> <error>,
    SKIP -> <skipped>: the JUnit layout Jenkins, GitLab and GitHub test reporters read. With a
    platform profile, a testsuite `profile` holds a testcase per floor."""
    suites = ET.Element("testsuites", name="wirebench")
    by_bench = OrderedDict()
    for v in verdicts:
        by_bench.setdefault(v.row.text("bench"), []).append(v)
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
            if v.verdict == "FAIL":
                ET.SubElement(case, "failure", message=v.reason, type="FAIL").text = v.reason
                tally["failures"] += 1
            elif v.verdict == "ERROR":
                ET.SubElement(case, "error", message=v.reason, type="ERROR").text = v.reason
                tally["errors"] += 1
            elif v.verdict == "SKIP":
                ET.SubElement(case, "skipped", message=v.reason)
                tally["skipped"] += 1
            elif v.verdict == "WARN":
                ET.SubElement(case, "system-out").text = "WARN: " + v.reason
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
        "problems": list(problems),
        "profile": profile_json,
        "verdicts": [{"line": v.row.line, "key": v.row.key, "bench": v.row.text("bench"), "verdict": v.verdict,
                      "reason": v.reason, "metric": v.metric, "value": v.value, "ceiling_GBps": v.ceiling_GBps,
                      "fraction": v.fraction} for v in verdicts],
    }, indent=2) + "\n"


def html_page(run_dir, verdicts, problems, plots, profile=None):
    """report.html: report.md's content with the plots embedded (one self-contained file); every
    string that comes from the data is escaped."""
    import base64
    from html import escape

    c = counts(verdicts, problems)
    colours = {"PASS": "#2e7d32", "WARN": "#ef6c00", "FAIL": "#c62828", "SKIP": "#757575", "ERROR": "#6a1b9a"}
    parts = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
             f"<title>wirebench report: {escape(str(run_dir))}</title>",
             "<style>body{font-family:sans-serif;margin:1.5em} table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left} .v{font-weight:bold;color:white}"
             "img{max-width:100%;border:1px solid #eee;margin:4px 0}</style></head><body>",
             f"<h1>wirebench report: {escape(str(run_dir))}</h1>", "<table><tr>"]
    parts += [f"<th>{name}</th>" for name in c] + ["</tr><tr>"] + [f"<td>{n}</td>" for n in c.values()]
    parts.append("</tr></table>")
    if incomplete_note(verdicts, problems):
        parts.append(f"<p><b>{escape(incomplete_note(verdicts, problems))}</b></p>")
    if profile:
        parts.append(f"<h2>Platform profile: {escape(profile.name)}</h2><p>{escape(profile.description)}</p><table><tr>" +
                     "".join(f"<th>{h}</th>" for h in PROFILE_HEADINGS) + "</tr>")
        for row in _profile_rows(profile):
            parts.append("<tr>" + "".join(f"<td>{escape(str(x))}</td>" for x in row) + "</tr>")
        parts.append("</table>")
    bad = [v for v in verdicts if v.verdict in ("FAIL", "ERROR")]
    if bad or problems:
        parts.append("<h2>FAIL and ERROR</h2><ul>")
        for v in bad:
            parts.append(f"<li><b>{v.verdict}</b> {escape(_row_name(v))} ({escape(v.row.where)}): "
                         f"{escape(v.reason)}</li>")
        parts += [f"<li><b>ERROR</b> input: {escape(p)}</li>" for p in problems]
        parts.append("</ul>")
    if plots:
        parts.append("<h2>Plots</h2>")
        for title, path in plots:
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            parts.append(f"<figure><img alt='{escape(title, quote=True)}' src='data:image/png;base64,{data}'>"
                         f"<figcaption>{escape(title)}</figcaption></figure>")
    families = OrderedDict()
    for v in verdicts:
        families.setdefault(v.row.text("bench"), []).append(v)
    for family, members in families.items():
        parts.append(f"<h2>{escape(family)}</h2><table><tr>" + "".join(
            f"<th>{h}</th>" for h in ("verdict", "case", "backend", "op", "dtype", "src", "dst", "bytes", "value",
                                      "of ceiling", "reason")) + "</tr>")
        for v in members:
            f = v.row.fields
            value = "" if v.value is None else f"{v.value:.4g} {'us' if v.metric == 'time_us' else 'GB/s'}"
            fraction = "" if v.fraction is None else f"{100 * v.fraction:.1f}%"
            cells = [f["case"], f["backend"], f["op"], f["dtype"], f["src"], f["dst"], f["bytes"], value, fraction,
                     v.reason]
            parts.append(f"<tr><td class='v' style='background:{colours[v.verdict]}'>{v.verdict}</td>" +
                         "".join(f"<td>{escape(str(x))}</td>" for x in cells) + "</tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
