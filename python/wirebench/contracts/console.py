"""The console of a command whose reader went away early (`wirebench report RUN | head -2`): what is
still to be printed is dropped quietly and the command goes on to its end (report.md, the history,
the metrics) and to the exit code its verdict gives, as `grep ... | head` users expect, instead of a
BrokenPipeError traceback and exit code 1, a FAIL's. Python ignores SIGPIPE, so a write into a pipe
nobody reads raises; restoring SIGPIPE instead would kill the command before its files and history
are written and end it with 141, no verdict's code. command() (exit_policy.py) runs every command
inside quiet_when_closed()."""
import contextlib
import os
import sys


class _Console:
    """A stream (sys.stdout or sys.stderr) for one command: a write or flush that finds the pipe's
    reader gone points the file descriptor at /dev/null, so that every later write (this stream's,
    a child process', the interpreter's last flush at exit) goes nowhere without an error."""

    def __init__(self, stream):
        self._stream = stream

    def _reader_gone(self):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        finally:
            os.close(devnull)

    def write(self, text):
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._reader_gone()
            return len(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._reader_gone()
            self._stream.flush()  # what the buffer still held, now into /dev/null

    def __getattr__(self, name):  # fileno, isatty, encoding, buffer, ...: the stream's own
        return getattr(self._stream, name)


@contextlib.contextmanager
def quiet_when_closed():
    """sys.stdout and sys.stderr as _Console for the block (once: commands nest, the front door's
    `python3 -m wirebench` around the command's own main), flushed at its end so that a reader gone
    by then is met here and not at the interpreter's exit."""
    saved = sys.stdout, sys.stderr
    wrap = [s is not None and not isinstance(s, _Console) for s in saved]
    if wrap[0]:
        sys.stdout = _Console(saved[0])
    if wrap[1]:
        sys.stderr = _Console(saved[1])
    try:
        yield
    finally:
        for stream, wrapped in zip((sys.stdout, sys.stderr), wrap):
            if wrapped:
                stream.flush()
        sys.stdout, sys.stderr = saved
