"""What an NCCL log says is wrong: the registered rules' findings (network_rules.py, transport_rules.py, init_rules.py, agreement.py, ...),
the catalogue's (catalogue.py: the first line each entry's signature matches) and the first error
of each rank (errors.py), known to the catalogue or not. A network finding is kept only where the
network carried data; a bare WARN of NCCL's that a network entry reads where the network was not used
is explained, not a finding (log.explained), as is an error the job went on from (went_on.py) and an NVML WARN of
an integrated GPU (integrated_gpu.py). The causes first: a FAIL before a WARN, each in its order."""
from . import (agreement, catalogue, class_causes, custom_allreduce, dev_shm, docker_bridge, error_classes, errors,
               fixed_in_later_nccl, init_rules, integrated_gpu, link_local, log_facts, nccl_tests, nccl_wheels,
               network_rules, pdsh_environment, plugin_load, registry, roce_gid, roce_qp_invalid, settings, socket_types,
               transport_rules, verbs_provider, watchdog_reports, went_on, windows_host)
from .network_use import network_carries_data, one_host_shown, unused_networks  # noqa: F401  (the package's names)
from .registry import NETWORK_SCOPES, Context, Finding

# every module that registers rules (each does when imported), in the order the docs table lists them and findings
# of one verdict on one line are said: the network NCCL chose, the transports inside a node, NCCL's start, then rules
# over several ranks, the settings, and the narrower rules
RULE_MODULES = (network_rules, transport_rules, init_rules, agreement, watchdog_reports, settings, nccl_tests, roce_gid,
                fixed_in_later_nccl, plugin_load, socket_types, verbs_provider, link_local, docker_bridge, roce_qp_invalid,
                dev_shm, custom_allreduce, nccl_wheels, pdsh_environment, windows_host)
registry.put_in_order(RULE_MODULES)
# said with each error of a file that holds no line of NCCL's: what it says is the program's side only
NOT_ACROSS_HOSTS = "the log shows the job on one host: no data crossed the network, so a network cause is not this job's"
NOT_SHOWN_ACROSS_HOSTS = ("the log does not show the job's data crossing the network (one host's lines or none, no "
                          "`nNodes`, no channel via NET): a cause for a job across hosts, not a finding on this log")
NO_NCCL_LINE = ("; the file holds no line of NCCL's: set NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,NET) in the job "
                "and rerun to see NCCL's side")



def diagnose(log, wiring=None, entries=None):
    """The findings of a log (log_reader.NcclLog), with the node's wiring (wiring.Wiring) or None."""
    entries = catalogue.read(coded_ids=registry.RULES) if entries is None else entries
    log.explained = []  # this diagnosis' own (rules add to it too): a second call says the same, not twice
    found = registry.run(Context(log, wiring))
    taken = {f.id for f in found} | {e for f in found for e in f.explains}  # roce_gid.py's finding explains an entry's line
    one_host = one_host_shown(log)
    unused = unused_networks(log, one_host)
    # each text once, with the first message that says it: ranks print the same lines (a log of 1,000 ranks is
    # mostly the same texts under other prefixes), and every entry searches them all
    first_saying = {}
    for m in log.messages:
        first_saying.setdefault(m.said, m)
    # the texts that hold a literal some entry's signature requires (catalogue.any_of): only they can match, and most
    # of a long log's texts hold none (a search per entry per text was most of its time: bench/MEASUREMENTS.md)
    either = catalogue.any_of(entries)
    saying = [(said, m) for said, m in first_saying.items() if either is None or either.search(said)]
    for entry in entries:
        if entry.id in taken or entry.scope in unused:
            continue  # a network entry says nothing of a network the job did not use (below: an error line is said)
        for said, m in saying:
            match = entry.signature.search(said)
            if match:
                # the line it read, quoted as an error's is (an error of the same line adds nothing twice)
                found.append(Finding(entry.id, entry.verdict, m.line, entry.what_of(match) + (f" ({m.host})" if m.host else "")
                                     + f": \"{m.raw}\"", entry.why, entry.fix, entry.source, entry.scope))
                taken.add(entry.id)
                break
    for f in [f for f in found if f.gives_way]:
        # a catalogue entry reading the same line says it more exactly (sharp-job-not-created, NVIDIA/nccl#1050): the
        # rule's finding gives way to it, and what the rule accounts for is quoted there
        entry = next((g for g in found if g is not f and g.line == f.line), None)
        if entry is not None:
            entry.absorbs = f.absorbs
            found.remove(f)
    at_line = {f.line: f for f in found if f.line}
    for error in errors.find(log):
        known = at_line.get(error.line) or next((f for f in found if f.absorbs is not None and f.absorbs(error)), None)
        if known is not None and known.gives_way and _entry_of(entries, error.said)[0] is not None:
            found.remove(known)  # a rule's hint at an error line a catalogue entry reads: the entry says its cause
            known = None
        if at_line.get(error.last_line) in found:
            # a finding at NCCL's last WARN that PyTorch's error quotes under `Last error:` says its cause: it quotes it
            known = at_line[error.last_line]
        if known is None:
            entry, match = _entry_of(entries, error.said)
            if entry is None and error.kind == "catalogued":
                continue  # an error only as the project's catalogue reads it: the catalogue given here does not
            moot = entry is not None and error.kind == "nccl" and not error.classed and unused.get(entry.scope)
            if moot:  # a bare WARN a network entry reads, on a job that did not use that network: said, not a finding
                log.explained.append((error.line, error.quote, f"{entry.id}: {moot}"))
                continue
            on_soc = integrated_gpu.moot_nvml_warn(log, error) if entry is None and error.kind == "nccl" else None
            if on_soc is not None:
                log.explained.append((error.line, error.quote, on_soc))
                continue
            shown = went_on.after(log, error) if entry is None and went_on.applies(error) else None
            if shown is not None:  # an error NCCL went on from: its process then started or completed its init
                log.explained.append((error.line, error.quote, went_on.said(shown)))
                continue
            if entry is not None and entry.scope in NETWORK_SCOPES and one_host:
                # a network cause on a job the log shows on one host moved no data over the network: the error is
                # still said, as one the catalogue does not explain here (pytorch/pytorch#73790's libibverbs WARN)
                entry, match, off_the_network = None, None, entry.id
            else:
                off_the_network = None
            if entry is not None and entry.id in taken:
                if error.kind == "catalogued":  # NCCL's words without its prefix beside its line: quoted there too
                    _quote(next(f for f in found if f.id == entry.id), error)
                continue  # another rank's same error: the entry's finding stands for it
            known = _finding(error, entry, match, log.source)
            if off_the_network:
                known.what = known.what.replace("an error the catalogue does not know",
                                                "a network error on a job the log shows on one host")
                known.why += (f"; the catalogue's {off_the_network} concerns the network, which this job (one host, "
                              "the log shows) did not use: not its cause here")
            found.append(known)
            at_line[error.line] = known
            taken.add(known.id)
        _quote(known, error)
    if not network_carries_data(log):
        # a network finding needs proof that the network carried data; where the log lacks it the finding is still
        # said, as not one (never silent: sgl-project/sglang#1427's `Failed to open libibverbs` with nothing else)
        for f in [f for f in found if f.scope in NETWORK_SCOPES and not f.error]:
            found.remove(f)
            log.explained.append((f.line, log_facts.text_at(log, f.line) if f.line else "",
                                  f"{f.id}: {f.what}: {NOT_ACROSS_HOSTS if one_host else NOT_SHOWN_ACROSS_HOSTS} "
                                  f"({f.verdict} where it does)"))
    if all(m.quoted for m in log.messages):  # no line of NCCL's own (a quoted WARN's text is the program's line)
        for f in found:
            if f.error and NO_NCCL_LINE not in f.fix:
                f.fix += NO_NCCL_LINE
    if not found:  # a fallback rule says what a log without any other finding shows (nccl-tests stopped early)
        found = registry.run(Context(log, wiring), fallbacks=True)
    _add_likely(found)
    return sorted(found, key=lambda f: (f.verdict != "FAIL", f.line))


GENERIC = ("error-not-in-catalogue", "warn-not-in-catalogue")


def _add_likely(found):
    """A generic finding's likely causes (class_causes.py): what errors of its class most often were in the
    corpus's train threads. None where an entry or a rule gave a FAIL of its own: that names the cause."""
    if any(f.verdict == "FAIL" and f.id not in GENERIC for f in found):
        return
    for f in found:
        if f.id in GENERIC and f.error_class:
            f.likely = class_causes.likely(f.error_class)


def _entry_of(entries, said):
    for entry in entries:
        match = entry.signature.search(said)
        if match:
            return entry, match
    return None, None


def _finding(error, entry, match, source):
    who = f" on {error.rank}" if error.rank else ""
    if error.ranks > 1:
        who += f" (and {error.ranks - 1} other rank(s) the same)"
    cls = error.error_class
    if entry is not None:
        return Finding(entry.id, entry.verdict, error.line, entry.what_of(match) + who,
                       entry.why, entry.fix, entry.source, entry.scope)
    verdict = "FAIL" if error.classed else "WARN"
    return Finding("error-not-in-catalogue" if error.classed else "warn-not-in-catalogue", verdict, error.line,
                   f"an error the catalogue does not know{who}", f"{cls.name}: {cls.means}", cls.next_step,
                   error_classes.SOURCE, error_class=cls.name)


def _quote(finding, error):
    """Every error is quoted verbatim with its place, and its class said."""
    finding.error = True
    if error.quote not in finding.what:
        finding.what += f": \"{error.quote}\""
    if error.classed and error.error_class.name not in finding.why:
        finding.why += f" ({error.error_class.name}: {error.error_class.means})"
