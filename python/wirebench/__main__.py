"""python3 -m wirebench COMMAND [ARGS]: how the front door (bench/cli/wirebench_main.cpp) starts the
Python commands. The command's module is imported inside the one wrapper (contracts/exit_policy.py),
so that a Python without a package wirebench needs (PyYAML, matplotlib, ...) ends in one line naming
what to install, exit code 3, rather than a traceback and exit 1 (a FAIL's)."""
import importlib
import sys

from .contracts.exit_policy import CommandError, command

# Each Python command and the module whose main(argv) it is.
COMMANDS = {"report": "wirebench.report.__main__", "compare": "wirebench.report.compare",
            "import": "wirebench.importer.__main__", "history": "wirebench.history.__main__",
            "run": "wirebench.run.__main__", "check": "wirebench.slurm.check", "slurm": "wirebench.slurm.__main__"}


def main(argv):
    if len(argv) < 2 or argv[1] not in COMMANDS:
        raise CommandError(f"python3 -m wirebench COMMAND: COMMAND is one of {', '.join(COMMANDS)}")
    module = importlib.import_module(COMMANDS[argv[1]])
    return module.main([f"wirebench {argv[1]}", *argv[2:]])


if __name__ == "__main__":
    sys.exit(command(main, sys.argv))
