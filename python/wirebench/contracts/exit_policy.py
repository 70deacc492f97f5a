"""The one exit-code policy of every wirebench command (docs/results.md, "Exit codes"): the codes and
the order in which they outrank each other are schema/exit-codes.csv's, and every command (report,
import, run, check, compare, history, slurm; `topo` in C++ from the same file) decides its code
here and ends through command() below:
  - bad usage or input before anything is judged: USAGE (3), the command ends there, its message
    naming the file and the problem (fail(), or an InputError / CommandError raised);
  - then what was judged (judged_code): any ERROR (2: could not measure; an incomplete run outranks
    a slow one), any FAIL (1), nothing judged or something required left unjudged (4, UNJUDGED: a
    run that judged nothing, a profile floor not measured, is never called healthy), else OK (0);
  - an output that could not be written after the verdict (--prometheus, --pushgateway) is said on
    stderr, and its code stands only over OK (after_output): it never hides what was judged.
A missing Python package (PyYAML, jsonschema, matplotlib, ...) ends the command in one line naming
what to install, USAGE, never a traceback. A reader that closes the command's output early
(`wirebench report RUN | head -2`) changes nothing of this: the rest of the output is dropped quietly
(console.py) and the code is the verdict's."""
import functools
import sys

from .console import quiet_when_closed
from .input_files import InputError
from .schema import ExitCode, rows

# The codes, the first outranking the rest (schema/exit-codes.csv's precedence column).
PRECEDENCE = tuple(ExitCode(int(r["code"])) for r in sorted(rows("exit-codes.csv"), key=lambda r: int(r["precedence"])))

# What each verdict says of the run; NOT JUDGED and SKIP judged nothing.
VERDICT_CODES = {"PASS": ExitCode.OK, "WARN": ExitCode.OK, "FAIL": ExitCode.FAILED, "ERROR": ExitCode.INFRASTRUCTURE}

# Third-party modules wirebench imports: (Debian package, PyPI package). ci/setup installs them.
PACKAGES = {"yaml": ("python3-yaml", "PyYAML"), "jsonschema": ("python3-jsonschema", "jsonschema"),
            "matplotlib": ("python3-matplotlib", "matplotlib"), "scipy": ("python3-scipy", "scipy"),
            "prometheus_client": ("python3-prometheus-client", "prometheus-client"),
            "numpy": ("python3-numpy", "numpy")}


class CommandError(Exception):
    """An error a command ends with before anything is judged: the message names the file (and
    line) and the problem; `code` is USAGE unless said otherwise."""

    def __init__(self, message, code=ExitCode.USAGE):
        super().__init__(message)
        self.code = ExitCode(code)


def worst(*codes):
    """The code that outranks the others (PRECEDENCE); OK where none is given."""
    given = {ExitCode(c) for c in codes}
    return next((c for c in PRECEDENCE if c in given), ExitCode.OK)


def judged_code(verdicts, missing=()):
    """The exit code of what was judged: `verdicts` the verdict words of the judged items or findings
    (PASS, WARN, FAIL, ERROR, NOT JUDGED, SKIP); `missing` what was required and not judged (a
    profile floor not measured). Nothing judged at all, or anything missing, is UNJUDGED: fail closed."""
    codes = [VERDICT_CODES[v] for v in verdicts if v in VERDICT_CODES]
    return worst(*codes, *([ExitCode.UNJUDGED] if missing or not codes else []))


def after_output(code, output_code):
    """The exit code once an output after the verdict failed (a --prometheus file not written, a
    push refused): the verdict's where it is not OK, the output's otherwise."""
    return ExitCode(output_code) if code == ExitCode.OK else ExitCode(code)


def fail(message, code=ExitCode.USAGE):
    """Says `message` on stderr with its exit code, and returns the code."""
    code = ExitCode(code)
    print(f"error: {message} (exit code {int(code)})", file=sys.stderr, flush=True)
    return code


def missing_package(error: ModuleNotFoundError):
    """One line naming what to install for a module this Python does not have."""
    name = (error.name or "").split(".")[0]
    debian, pypi = PACKAGES.get(name, (None, None))
    if debian is None:  # not a package of the field's: wirebench's own files are missing or damaged
        return f"{sys.executable} cannot import {error.name}: {error}; is wirebench installed whole?"
    return (f"{sys.executable} has no Python module '{name}': install it (Debian/Ubuntu: apt-get install {debian}; "
            f"pip: {sys.executable} -m pip install {pypi}; ci/setup installs both), or put the python3 that has it "
            "first on PATH")


def command(main, argv):
    """Runs a command's main(argv) and turns how it ended into its exit code: its own return value;
    argparse's --help (0) or bad usage (3, argparse printed why); an InputError or CommandError into
    its message and code; a missing Python package into the line naming it (3). Output into a pipe
    whose reader is gone is dropped without an error (console.py)."""
    with quiet_when_closed():
        try:
            return int(main(argv))
        except SystemExit as exit_:
            return ExitCode.OK if exit_.code in (0, None) else ExitCode.USAGE
        except InputError as error:
            return fail(error)
        except CommandError as error:
            return fail(error, error.code)
        except ModuleNotFoundError as error:
            return fail(missing_package(error))


def entry(main):
    """A command's main(argv), decorated: it ends through command(), as every command does."""
    @functools.wraps(main)
    def wrapped(argv):
        return command(main, argv)
    return wrapped
