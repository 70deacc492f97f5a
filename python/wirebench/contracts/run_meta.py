"""A run directory's meta.json (its one Python reader) and the results schema its results.csv is
written in: what the reporter, the history and `wirebench check` read before any row."""
import json
from pathlib import Path

from .input_files import InputError, read_utf8
from .schema import version as schema_version

# The results schemas this wirebench reads (meta.json's results_schema_version): 1 without, 2 with the
# columns samples and spread_pct, 3 with judged and rerun (schema/results-columns.csv); rows of 1 and 2
# get the columns of 3 from report/legacy.py.
KNOWN_SCHEMAS = tuple(range(1, schema_version("results") + 1))


def read_meta(meta_path: Path) -> dict:
    """meta.json (schema/versions.csv's one Python reader of it), its version checked; {} where the
    run has none. InputError for a file that is no JSON object or of another version."""
    if not meta_path.exists():
        return {}
    try:
        meta = json.loads(read_utf8(meta_path))
        found = meta.get("schema_version")
    except (ValueError, AttributeError):
        raise InputError(f"{meta_path}:1: not a JSON object") from None
    if found is not None and found != schema_version("meta"):
        raise InputError(f"{meta_path}:1: schema_version {found!r}; this reporter reads meta.json version "
                         f"{schema_version('meta')}")
    return meta


def results_schema(meta_path: Path, header) -> int:
    """The results schema of a run directory: meta.json's results_schema_version (where none says it:
    the newest whose columns the header has). InputError for one this reporter does not know: its
    columns or extra grammar would be misread."""
    version = read_meta(meta_path).get("results_schema_version")
    if version is None:
        return 3 if "judged" in header else 2 if "samples" in header else 1
    if version not in KNOWN_SCHEMAS:
        raise InputError(f"{meta_path}: results_schema_version {version!r} is not one this reporter reads "
                         f"({', '.join(map(str, KNOWN_SCHEMAS))}): results.csv was written by another wirebench "
                         "version; report it with that version's `wirebench report`")
    return version
