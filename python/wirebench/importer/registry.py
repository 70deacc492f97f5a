"""The importers, one entry each: the tool's name (the rows' `tool` item), what its output is known
by (said when a file is refused), how it recognises its text and its JSON, and its readers over
the shared paste reader (paste.py). Adding a tool is one module that declares its IMPORTER (of
importer.py's type), its line here, and its tests; wirebench import asks each in this order (the
first that recognises a file reads it)."""
from . import imb, nccl_tests, nvbandwidth, osu, p2p_bandwidth_latency, perftest
from .importer import Importer, Options  # noqa: F401  (their home is importer.py; importable from here as before)


def importers():
    """Every importer, in the order they are asked."""
    return (nccl_tests.IMPORTER, osu.IMPORTER, nvbandwidth.IMPORTER, p2p_bandwidth_latency.IMPORTER,
            perftest.IMPORTER, imb.IMPORTER)
