"""How the reporter and the runner read their input files: as UTF-8, or an InputError that names the
file, the line and the problem (exit code 3)."""
from pathlib import Path


class InputError(Exception):
    """Bad input: the message names the file (and line) and the problem."""


def read_utf8(path: Path) -> str:
    """Every input file of the reporter and the runner is read through here."""
    return decode_utf8(path, path.read_bytes())


def decode_utf8(path: Path, raw: bytes) -> str:
    """The text of a file, or an InputError naming the file, the line and the byte offset of the
    first byte that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: byte {error.start} (0x{raw[error.start]:02x}) is not UTF-8 text") from None
