"""NCCL diagnosis: what an NCCL_DEBUG=INFO log (or any job output holding NCCL's lines) says is
wrong, as docs/nccl-diagnosis.md describes. A file per concept:
  - log_reader.py: the log's NCCL lines and the rest, repeated lines folded;
  - errors.py: the error-line finder (the first error of each rank, never silent), reading the
    lines error_lines.py knows and saying what error_classes.py says each class means;
  - catalogue.py: suites/nccl-warnings.csv, the entries of one line's signature;
  - registry.py: the rule registry (id, verdict, scope, needs, words);
  - log_facts.py: what several rules read from the whole log (its settings, jobs, ranks a host);
  - network_rules.py (the network NCCL chose between hosts), transport_rules.py (the transports inside a
    node), init_rules.py (NCCL's start), agreement.py, watchdog_reports.py (PyTorch's timeouts), settings.py, nccl_tests.py,
    roce_gid.py, fixed_in_later_nccl.py, plugin_load.py, socket_types.py (NCCL's socket types),
    verbs_provider.py (libibverbs' provider warning): the rules that need no signature;
  - network_use.py: whether the job's data crossed the network (what a network finding needs);
  - wiring.py: the node's wiring from topology.json;
  - class_causes.py: what each error class most often was in the corpus's train threads
    (suites/nccl-class-causes.csv): a generic finding's likely causes, a prior, not its cause;
  - diagnose.py: all of them over one log;
  - output.py: topology.json's `nccl` section and the readable lines.
`wirebench topo --nccl-log` hands over to `python3 -m wirebench.diagnosis --hand-over` (__main__.py), which
gives it the section and the readable lines (one printer)."""
from .diagnose import diagnose, network_carries_data  # noqa: F401
from .log_reader import parse, read_log  # noqa: F401
