#!/usr/bin/env python3
"""Recall of the project's NCCL diagnosis on the NCCL corpus (issue 55): runs the diagnosis on each
case of tests/data/nccl-corpus/ and counts a case right when one of its findings names the case's
cause (tests/data/nccl-corpus/entry-causes.csv maps a finding's id to a cause_class). Per split
(train: the cases the catalogue was written from; held-out: the others) it prints the cases right,
those whose findings only quote the error (generic: no finding names a cause), those with no finding
at all, those where a finding names another cause, and each miss by name. Apart from these, never
added to the cases right: how often the case's cause is among the likely causes a generic finding
lists (what errors of its class most often were in the train threads, suites/nccl-class-causes.csv):
on the train split in-sample, since the list was made from it.

The diagnosis, by --via:
  python    wirebench.diagnosis (python/wirebench/diagnosis/) in this process;
  binary    `wirebench topo --nccl-log FILE --json` (its diagnoses' ids): the front door as users run
            it, which hands over to the same Python diagnosis (until ad4f3ae a C++ one, with the
            catalogue of its last build compiled in);
  catalogue the catalogue's signatures alone (suites/nccl-warnings.csv) over each line: what the rows
            say by themselves, not the diagnosis (no coded rule, no error finder);
  auto      (default) python where wirebench.diagnosis imports, else binary.

    python3 bench/diagnosis/corpus_recall.py [--via auto|python|binary|catalogue] [--bin build/ci/bin/wirebench]
                                             [--corpus DIR ...] [--json FILE]

Exit 0 with the figures; 3 when the corpus is malformed (the file and line are named); 4 when the
chosen diagnosis cannot be run (nothing measured).
"""
import argparse
import difflib
import json
import re
import subprocess
import sys
from pathlib import Path

import corpus

EXIT_BAD_INPUT, EXIT_NOT_MEASURED = 3, 4


class NotMeasured(Exception):
    pass


def python_diagnosis():
    """wirebench.diagnosis's findings for a file (as its JSON: id, likely, ...), or NotMeasured where it does
    not import."""
    sys.path.insert(0, str(corpus.ROOT / "python"))
    try:
        from wirebench.contracts.input_files import InputError
        from wirebench.diagnosis import diagnose, read_log
    except Exception as e:  # the package is being written; anything short of importing is "not there"
        raise NotMeasured(f"wirebench.diagnosis does not import: {e}") from e

    def run(file):
        try:
            return [finding.as_json() for finding in diagnose(read_log(file))]
        except InputError:
            return None  # refused: it found no line it reads
    return run


def binary_diagnosis(binary):
    """`wirebench topo --nccl-log FILE --json`'s diagnoses (exit 1 is a FAIL found, not an error; exit 3
    is the log refused: None)."""
    if not Path(binary).is_file():
        raise NotMeasured(f"{binary}: no such program (build the ci preset)")

    def run(file):
        done = subprocess.run([str(binary), "topo", "--nccl-log", str(file), "--json"], capture_output=True,
                              text=True, timeout=120)
        if done.returncode == 3:
            return None
        if done.returncode not in (0, 1):
            raise NotMeasured(f"{binary} topo --nccl-log {file}: exit {done.returncode}: {done.stderr.strip()}")
        return json.loads(done.stdout).get("nccl", {}).get("diagnoses", [])
    return run


def catalogue_alone():
    rows = corpus.catalogue()

    def run(file):
        return [{"id": i} for i in corpus.matching_entries(Path(file).read_text(encoding="utf-8", errors="replace"),
                                                           rows)]
    return run


def diagnosis(via, binary):
    if via == "python":
        return "python wirebench.diagnosis", python_diagnosis()
    if via == "binary":
        return f"{binary} topo --nccl-log FILE --json", binary_diagnosis(binary)
    if via == "catalogue":
        return "the catalogue's signatures alone (suites/nccl-warnings.csv)", catalogue_alone()
    try:
        return diagnosis("python", binary)
    except NotMeasured:
        return diagnosis("binary", binary)


NCCL_PREFIX = re.compile(r"^.*?\bNCCL (?:WARN|INFO|ERROR) ")
SHOWN_CHARS = 40  # a posted line counts as shown when this much of it (or 80% of a shorter one) is quoted whole


def shown(pieces, findings):
    """Whether a finding quotes one of the posted lines that show the case's cause (a fresh set's evidence.csv):
    what a user reads in the tool's output, right cause named or not. A line's NCCL prefix (host:pid:tid [dev]
    NCCL WARN) and spacing are not asked for."""
    said = " ".join(" ".join(str(f.get(k, "")) for k in ("what", "why", "fix")) for f in findings)
    said = " ".join(said.split())
    for piece in pieces:
        core = " ".join(NCCL_PREFIX.sub("", piece).split())
        match = difflib.SequenceMatcher(None, core, said, autojunk=False).find_longest_match(0, len(core), 0, len(said))
        if core and match.size >= min(SHOWN_CHARS, 0.8 * len(core)):
            return True
    return False


def score(case, findings, causes, same=None, evidence=None):
    """One case's outcome: right, and what its findings said. `findings` (their JSON) None: the diagnosis
    refused the file (it read no line of it), counted as no finding. `likely`: the causes its generic
    findings list as what their class most often was, and whether the case's is among them (never right)."""
    refused, findings = findings is None, findings or []
    ids = [f["id"] for f in findings]
    named = set().union(*(causes[i] for i in ids if i in causes))
    likely = list(dict.fromkeys(c["cause"] for f in findings for c in f.get("likely", [])))
    wanted = {case["cause_class"]} | (same or {}).get(case["cause_class"], set())
    return {"file": case["file"], "split": case["split"], "cause": case["cause_class"], "findings": ids,
            "right": bool(wanted & named), "other_causes": sorted(named - wanted),
            "generic_only": bool(ids) and not named, "silent": not ids, "refused": refused,
            "likely": likely, "among_likely": bool(wanted & set(likely)),
            "evidence": bool(evidence), "evidence_shown": bool(evidence) and shown(evidence, findings)}


def summary(results, split):
    cases = [r for r in results if r["split"] == split]
    right = [r for r in cases if r["right"]]
    lines = [f"{split}: {len(right)} of {len(cases)} right"
             + (f" ({100 * len(right) / len(cases):.0f}%)" if cases else "")
             + f"; generic only {sum(r['generic_only'] for r in cases)}, no finding {sum(r['silent'] for r in cases)}"
             f" (refused {sum(r['refused'] for r in cases)}), another cause named"
             f" {sum(bool(r['other_causes']) for r in cases)}"]
    for r in cases:
        if not r["right"]:
            said = ", ".join(r["findings"]) or ("refused" if r["refused"] else "nothing")
            lines.append(f"  miss {r['file']} ({r['cause']}): {said}")
    listed = [r for r in cases if r["likely"]]
    among = [r for r in cases if r["among_likely"]]
    lines.append(f"{split}, apart (not counted right): cause among the likely causes listed {len(among)} of "
                 f"{len(cases)} (of the {len(cases) - len(right)} not right: "
                 f"{sum(not r['right'] for r in among)}); cases given a list {len(listed)}"
                 + (" (in-sample: the lists were made from these cases)" if split == "train" else ""))
    with_evidence = [r for r in cases if r["evidence"]]
    if with_evidence:
        quoted = [r for r in with_evidence if r["evidence_shown"]]
        lines.append(f"{split}, evidence: of {len(with_evidence)} cases whose posted text shows the cause "
                     f"(evidence.csv), a finding quotes that line in {len(quoted)} ({sum(r['right'] for r in quoted)}"
                     f" of them right); right {sum(r['right'] for r in with_evidence)}")
        lines += [f"  not quoted {r['file']} ({r['cause']})" for r in with_evidence if not r["evidence_shown"]]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--via", choices=("auto", "python", "binary", "catalogue"), default="auto")
    parser.add_argument("--bin", default=str(corpus.ROOT / "build" / "ci" / "bin" / "wirebench"))
    parser.add_argument("--corpus", action="append",
                        help="a corpus folder (default tests/data/nccl-corpus); again for several (the fresh sets: "
                             "their cases counted together, each file named with its folder)")
    parser.add_argument("--json", help="write each case's findings and outcome to this file")
    args = parser.parse_args(argv)
    folders = args.corpus or [str(corpus.CORPUS)]
    problems = [problem for folder in folders for problem in corpus.problems(folder)]
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        name, run = diagnosis(args.via, args.bin)
        results = []
        for folder in folders:
            causes, same, shows = corpus.entry_causes(folder), corpus.synonyms(folder), corpus.evidence(folder)
            for case in corpus.index(folder):
                result = score(case, run(Path(folder) / case["file"]), causes, same, shows.get(case["file"]))
                if len(folders) > 1:
                    result["file"] = f"{Path(folder).name}/{case['file']}"
                results.append(result)
    except NotMeasured as e:
        print(f"corpus_recall: not measured: {e}", file=sys.stderr)
        return EXIT_NOT_MEASURED
    print(f"NCCL corpus recall, {len(results)} cases, diagnosis: {name}")
    for split in corpus.SPLITS:
        if any(r["split"] == split for r in results):
            print("\n".join(summary(results, split)))
    if args.json:
        Path(args.json).write_text(json.dumps({"diagnosis": name, "cases": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
