"""The rule registry: each rule that needs no signature of the catalogue is a small function,
registered with what it declares: its id, its verdict (FAIL: the job cannot run as meant; WARN: it
runs slower than the wiring allows, or a consequence), its scope (network: said only where the
network carried data; ib: the same, and not where NCCL_IB_DISABLE=1 chose sockets; node; any), what it needs (the node's wiring, several ranks), its words for
docs/nccl-diagnosis.md (the signature it reads, what it means), its fix and source, and whether it
is a fallback (said only where the log gives no other finding). A rule returns its findings (none,
one or several) for a Context."""
from dataclasses import dataclass, field

SCOPES = ("network", "ib", "node", "any")
NETWORK_SCOPES = ("network", "ib")  # said only where the network carried data; ib: and NCCL_IB_DISABLE is not 1
NEEDS = ("topology", "ranks")


@dataclass
class Finding:
    id: str
    verdict: str
    line: int          # in the log; 0 where no one line shows it
    what: str
    why: str
    fix: str
    source: str
    scope: str = "any"
    error: bool = False  # it quotes an error of the log: said whatever its scope (never silent)
    # the catalogue's entries whose (more generic) reading of the same line this finding replaces: they are not said
    explains: tuple = ()
    # errors it accounts for (a test of errors.Error): NCCL recovered from them, so they are quoted in this finding,
    # under its verdict, not said as failures of their own (collnet-unavailable: CollNet's setup)
    absorbs: object = None
    # a catalogue entry reading the same line says it more exactly: this finding gives way to it (passing on absorbs)
    gives_way: bool = False
    error_class: str = ""  # a generic finding's class (error_classes.py's name): what its likely causes are read by
    # what errors of its class most often were in the corpus's train threads (class_causes.py): a prior, not its cause
    likely: list = field(default_factory=list)

    def as_json(self):
        out = {"id": self.id, "verdict": self.verdict, "line": self.line, "what": self.what, "why": self.why,
               "fix": self.fix, "source": self.source}
        if self.likely:
            out["likely"] = [c.as_json() for c in self.likely]
        return out


@dataclass(frozen=True)
class Rule:
    id: str
    verdict: str
    scope: str
    needs: tuple
    signature: str     # what in the log it reads (docs' table)
    means: str         # what it means (docs' table)
    fix: str
    source: str
    check: object = field(compare=False)
    fallback: bool = False  # said only where nothing else is found (diagnose.py runs it last)

    def finding(self, line, what, why, fix=None):
        return Finding(self.id, self.verdict, line, what, why, fix or self.fix, self.source, self.scope)


@dataclass
class Context:
    log: object              # log_reader.NcclLog
    wiring: object = None    # wiring.Wiring, or None


RULES = {}


def rule(id, verdict, scope, signature, means, fix, source, needs=(), fallback=False):
    """Registers the function below it as the rule `id`."""
    if verdict not in ("FAIL", "WARN") or scope not in SCOPES or any(n not in NEEDS for n in needs):
        raise ValueError(f"rule {id}: verdict {verdict}, scope {scope}, needs {needs}")

    def register(check):
        if id in RULES:
            raise ValueError(f"rule {id} registered twice")
        RULES[id] = Rule(id, verdict, scope, tuple(needs), signature, means, fix, source, check, fallback)
        return check
    return register


def run(context, fallbacks=False):
    """Every registered rule's findings, in the registry's order (the fallbacks' alone with
    `fallbacks`); a rule needing the node's wiring is skipped without it."""
    found = []
    for r in RULES.values():
        if r.fallback != fallbacks or ("topology" in r.needs and context.wiring is None):
            continue
        result = r.check(r, context)
        found += [f for f in (result if isinstance(result, list) else [result]) if f is not None]
    return found


def put_in_order(modules):
    """RULES in the order of the modules given (diagnose.RULE_MODULES), each module's rules in its own order: that
    list, not the order Python happened to import them in, decides the docs table's order and, among findings of one
    verdict on one line, theirs. A ValueError names a module that registers rules and is not in the list."""
    place = {m.__name__: i for i, m in enumerate(modules)}
    unlisted = sorted({r.check.__module__ for r in RULES.values()} - set(place))
    if unlisted:
        raise ValueError(f"modules registering rules missing from the rule modules' list: {', '.join(unlisted)}")
    ordered = sorted(RULES.values(), key=lambda r: place[r.check.__module__])  # stable: a module's own order kept
    RULES.clear()
    RULES.update((r.id, r) for r in ordered)
