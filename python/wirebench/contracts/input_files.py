"""How the reporter and the runner read their input files: as UTF-8, or an InputError that names the
file, the line and the problem (exit code 3). A path that cannot be read is named with the system's
words: "no such file or directory", "is a directory", "permission denied", "not a directory"."""
import os
from pathlib import Path


class InputError(Exception):
    """Bad input: the message names the file (and line) and the problem."""


def unreadable(path, error: OSError) -> InputError:
    """The InputError of a path the system would not open: its own words, lower-case."""
    words = error.strerror or str(error)
    return InputError(f"{path}: {words[:1].lower()}{words[1:]}")


def readable_file(path: Path) -> Path:
    """`path`, where it is a file this process can read; an InputError in the system's words else."""
    try:
        with open(path, "rb"):
            pass
    except OSError as error:
        raise unreadable(path, error) from None
    if Path(path).is_dir():  # open() of a directory succeeds on some systems
        raise InputError(f"{path}: is a directory")
    return Path(path)


def readable_dir(path: Path) -> Path:
    """`path`, where it is a directory this process can list; an InputError in the system's words else."""
    try:
        os.listdir(path)
    except OSError as error:
        raise unreadable(path, error) from None
    return Path(path)


def read_utf8(path: Path) -> str:
    """Every input file of the reporter and the runner is read through here."""
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise unreadable(path, error) from None
    return decode_utf8(path, raw)


def decode_utf8(path: Path, raw: bytes) -> str:
    """The text of a file, or an InputError naming the file, the line and the byte offset of the
    first byte that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: byte {error.start} (0x{raw[error.start]:02x}) is not UTF-8 text") from None
