"""The printers of the report document (document.py): the console's closing lines, report.md
(people), report.html (the same with the plots), junit.xml (CI servers) and summary.json (tools).
Each renders the same document in its order and adds nothing of its own but format; what an item
is called and why it stands is wording.py's."""
import base64
import json
import re
import xml.etree.ElementTree as ET
from html import escape

from .document import floor_rows, skipped_and_not_judged
from .endpoints import node_of
from ..contracts.schema import version
from .wording import by_bench, profile_rows

SUMMARY_SCHEMA_VERSION = version("summary")  # schema/versions.csv
LISTING_PREFIX = {"SKIP": "SKIP ", "NOT JUDGED": "NOT JUDGED ", "step": "step: ", "note": "note: "}


CONSOLE_DATA_CHECKS = 3  # wrong-data FAILs the console shows in full; report.md lists every one


def console_lines(doc):
    """What `wirebench report` and `wirebench run` end with: silent about passes beyond their count.
    Wrong data on many measurements (a data path wrong everywhere) is shown by its first few and one
    line for the rest, so the other verdicts stay on the screen."""
    lines = [f"wirebench verdict: {doc.counts_line}. {doc.verdict_line}"]
    for _, entries in doc.attention:
        wrong = [e for e in entries if e.verdict is not None and e.level == "FAIL" and e.verdict.row.number("errors")]
        for e in entries:
            if e.problem:
                lines.append(f"  ERROR input: {e.problem}")
                continue
            if e in wrong[CONSOLE_DATA_CHECKS:]:
                continue
            lines.append(f"  {e.headline}")
            lines += [f"      {label}: {text}" for label, text in e.details]
        rest = wrong[CONSOLE_DATA_CHECKS:]
        if rest:
            pairs = sorted({tuple(sorted((node_of(e.verdict.row.text("src")) or e.verdict.row.text("src"),
                                          node_of(e.verdict.row.text("dst")) or e.verdict.row.text("dst"))))
                            for e in wrong})
            lines.append(f"  FAIL {len(rest)} more data checks with wrong elements, like the {CONSOLE_DATA_CHECKS} above "
                         f"(report.md lists each): {len(wrong)} in all, between "
                         + ", ".join("-".join(p for p in pair if p) for pair in pairs))
    for listing in doc.listings:
        lines += [f"  {LISTING_PREFIX[listing.key]}{line}" for line in listing.lines]
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


def _md_table(table):
    lines = ["| " + " | ".join(table.headings) + " |", "|" + "---|" * len(table.headings)]
    return lines + ["| " + " | ".join(_md_cell(x) for x in cells) + " |" for _, cells in table.rows] + [""]


def markdown(doc):
    lines = [f"# wirebench report: {_md_cell(doc.run_dir)}", "",
             f"**{_md_cell(doc.counts_line)}.** {_md_cell(doc.verdict_line)}", ""]
    if doc.incomplete:
        lines += [f"**{doc.incomplete}**", ""]
    for level, entries in doc.attention:
        lines += [f"## {level}", ""]
        for e in (e for e in entries if not e.problem):
            lines.append(f"- **{_md_cell(e.headline)}**")
            lines += [f"  - {label}: {_md_cell(text)}" for label, text in e.details]
        lines += [f"- **ERROR** input: {_md_cell(e.problem)}" for e in entries if e.problem] + [""]
    for listing in doc.listings:
        lines += [f"## {listing.title}", ""] + [f"- {_md_cell(line)}" for line in listing.lines] + [""]
    if doc.profile:
        lines += [f"## Platform profile: {_md_cell(doc.profile.name)}", "", _md_cell(doc.profile.description), ""]
        lines += _md_table(doc.profile_table)
    for table in doc.link_tables:
        lines += [f"## {_md_cell(table.title)}", ""] + _md_table(table)
    lines += ["## Every row", "", "Sweep points that are not judged items have no verdict.", ""]
    for table in doc.row_tables:
        lines += [f"### {_md_cell(table.title)}", ""] + _md_table(table)
    return "\n".join(lines)


def _profile_suite(suites, profile):
    """A testcase per floor of the platform profile: its acceptance at a glance."""
    suite = ET.SubElement(suites, "testsuite", name="profile")
    tally = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for name, metric, floor, rows, worst, verdict, source in profile_rows(profile):
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


def junit(doc):
    """One testcase per judged item (sweep points are none), a testsuite per bench; FAIL -> <failure>
    and ERROR -> <error> with the "measured vs expected" line as the message, SKIP -> <skipped> (the
    machine cannot run it), WARN and NOT JUDGED pass with their reason in <system-out>: the JUnit
    layout Jenkins, GitLab and GitHub test reporters read. With a platform profile, a testsuite
    `profile` holds a testcase per floor."""
    suites = ET.Element("testsuites", name="wirebench")
    described = {id(e.verdict): e for e in doc.items}
    by_family = by_bench([e.verdict for e in doc.items])
    if doc.problems:
        by_family.setdefault("input", [])
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for bench, members in by_family.items():
        suite = ET.SubElement(suites, "testsuite", name=bench)
        tally = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for v in members:
            e = described[id(v)]
            case = ET.SubElement(suite, "testcase", classname=f"wirebench.{bench}", name=e.name,
                                 time=f"{(v.row.number('time_us') or 0) / 1e6:.9f}")
            tally["tests"] += 1
            text = "\n".join([e.headline] + [f"{label}: {t}" for label, t in e.details])
            if v.verdict == "FAIL":
                ET.SubElement(case, "failure", message=e.headline, type="FAIL").text = text
                tally["failures"] += 1
            elif v.verdict == "ERROR":
                ET.SubElement(case, "error", message=e.headline, type="ERROR").text = text
                tally["errors"] += 1
            elif v.verdict == "SKIP":
                ET.SubElement(case, "skipped", message=v.reason)
                tally["skipped"] += 1
            elif v.verdict in ("WARN", "NOT JUDGED"):
                ET.SubElement(case, "system-out").text = f"{v.verdict}: {v.reason}"
        if bench == "input":
            for p in doc.problems:
                case = ET.SubElement(suite, "testcase", classname="wirebench.input", name=p.split(": ")[0], time="0")
                ET.SubElement(case, "error", message=p, type="ERROR").text = p
                tally["tests"] += 1
                tally["errors"] += 1
        for key, value in tally.items():
            suite.set(key, str(value))
            totals[key] += value
    if doc.profile:
        for key, value in _profile_suite(suites, doc.profile).items():
            totals[key] += value
    for key, value in totals.items():
        suites.set(key, str(value))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def summary(doc, code):
    profile_json = None
    if doc.profile:
        profile_json = {"name": doc.profile.name, "description": doc.profile.description, "floors": [
            {"name": o["floor"].name, "metric": o["floor"].metric, "floor_GBps": o["floor"].floor,
             "source": o["floor"].source, "rows": o["rows"], "worst_GBps": o["worst"], "verdict": o["verdict"]}
            for o in floor_rows(doc)]}
    listed = {listing.key: listing for listing in doc.listings}
    return json.dumps({
        "schema_version": SUMMARY_SCHEMA_VERSION,
        "run_dir": doc.run_dir,
        "exit_code": int(code),
        "counts": doc.counts,
        "data_points": doc.data_points,
        "problems": doc.problems,
        "skipped": [{"reason": r, "count": n, "benches": b} for r, n, b in skipped_and_not_judged(doc, "SKIP")],
        "not_judged": [{"reason": r, "count": n, "benches": b} for r, n, b in skipped_and_not_judged(doc, "NOT JUDGED")],
        "step_communication": listed["step"].lines if "step" in listed else [],
        "notes": listed["note"].lines if "note" in listed else [],
        "profile": profile_json,
        "verdicts": [{"line": v.row.line, "key": v.row.key, "bench": v.row.text("bench"), "src": v.row.text("src"),
                      "dst": v.row.text("dst"), "verdict": v.verdict,
                      "item": e.what, "measured": e.measured, "expected": e.expected, "reason": v.reason,
                      "metric": v.metric, "value": v.value, "ceiling_GBps": v.ceiling_GBps, "fraction": v.fraction,
                      "samples": v.row.samples, "spread_pct": v.row.number("spread_pct") if v.row.text("spread_pct") else None,
                      "finding": v.record.as_json() if v.record else None}
                     for e, v in ((e, e.verdict) for e in doc.items)],
    }, indent=2) + "\n"


COLOURS = {"PASS": "#2e7d32", "WARN": "#ef6c00", "FAIL": "#c62828", "SKIP": "#757575", "ERROR": "#6a1b9a",
           "NOT JUDGED": "#546e7a", "DATA": "#ffffff"}


def html_page(doc, plots):
    """report.html: report.md's content with the plots embedded (one self-contained file); every
    string that comes from the data is escaped. The verdicts come before any plot."""

    def badge(verdict):
        return f"<span class='v' style='background:{COLOURS[verdict]}'>{verdict}</span>"

    def table(t, badges=True):
        out = ["<table><tr>" + "".join(f"<th>{h}</th>" for h in t.headings) + "</tr>"]
        for verdict, cells in t.rows:
            if badges:
                out.append(f"<tr><td>{badge(verdict) if verdict else ''}</td>"
                           + "".join(f"<td>{escape(str(x))}</td>" for x in cells[1:]) + "</tr>")
            else:
                out.append("<tr>" + "".join(f"<td>{escape(str(x))}</td>" for x in cells) + "</tr>")
        return out + ["</table>"]

    parts = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
             f"<title>wirebench report: {escape(doc.run_dir)}</title>",
             "<style>body{font-family:sans-serif;margin:1.5em;max-width:1400px} table{border-collapse:collapse;"
             "font-size:12px} td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}"
             " .v{font-weight:bold;color:white;padding:1px 5px;border-radius:3px;white-space:nowrap}"
             " .item{margin:0.4em 0 0.8em 0} .item dl{margin:0.2em 0 0 1.5em;font-size:13px}"
             " .item dt{float:left;width:7em;color:#555} .item dd{margin-left:7.5em}"
             " img{max-width:100%;border:1px solid #eee;margin:4px 0} figcaption{font-size:13px;color:#333}"
             " h1{font-size:22px} h2{font-size:18px;margin-top:1.2em}</style></head><body>",
             f"<h1>wirebench report: {escape(doc.run_dir)}</h1>",
             f"<p id='counts'><b>{escape(doc.counts_line)}.</b> {escape(doc.verdict_line)}</p>"]
    if doc.incomplete:
        parts.append(f"<p><b>{escape(doc.incomplete)}</b></p>")
    for level, entries in doc.attention:
        parts.append(f"<h2>{level}</h2>")
        for e in (e for e in entries if not e.problem):
            figure = (f": {escape(e.measured)}{' vs expected ' + escape(e.expected) if e.expected else ''}"
                      if e.measured else "")  # an ERROR has no figure: no bare colon
            parts.append(f"<div class='item verdict-{level.lower()}'>{badge(level)} <b>{escape(e.what)}</b>{figure}<dl>" +
                         "".join(f"<dt>{escape(label)}</dt><dd>{escape(text)}</dd>" for label, text in e.details) +
                         "</dl></div>")
        parts += [f"<div class='item verdict-error'>{badge('ERROR')} input: {escape(e.problem)}</div>"
                  for e in entries if e.problem]
    for listing in doc.listings:
        parts.append(f"<h2>{escape(listing.title)}</h2><ul>" + "".join(f"<li>{escape(line)}</li>" for line in listing.lines)
                     + "</ul>")
    if doc.profile:
        parts.append(f"<h2>{escape(doc.profile_table.title)}</h2><p>{escape(doc.profile.description)}</p>")
        parts += table(doc.profile_table, badges=False)
    for t in doc.link_tables:
        parts.append(f"<h2>{escape(t.title)}</h2>")
        parts += table(t)
    if plots:
        parts.append("<h2>Plots</h2>")
        for title, path in plots:
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            parts.append(f"<figure><img alt='{escape(title, quote=True)}' src='data:image/png;base64,{data}'>"
                         f"<figcaption>{escape(title)}</figcaption></figure>")
    parts.append("<h2>Every row</h2><details><summary>every row of results.csv with its verdict (sweep points that "
                 "are not judged items have none)</summary>")
    for t in doc.row_tables:
        parts.append(f"<h3>{escape(t.title)}</h3>")
        parts += table(t)
    parts.append("</details></body></html>")
    return "\n".join(parts) + "\n"
