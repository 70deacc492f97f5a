"""The history: one SQLite file (Python's sqlite3, no server) holding every run added and every
judged item of it (identity, figure, samples, spread, verdict) with the run's metadata (time,
nodes, versions). The one writer and reader of the file; its version (schema/versions.csv:
history) is in its meta table and checked on every open. Writers take SQLite's write lock for the
whole run (BEGIN IMMEDIATE, waiting up to `timeout` s), so several CI jobs adding at once each
add whole runs; a run already there (the same results.csv) is not added again."""
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from ..contracts.input_files import InputError, unreadable
from ..contracts.schema import version

SCHEMA_VERSION = version("history")
TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,   -- sha256 of results.csv: the same run added twice is one
  time TEXT NOT NULL,        -- when it was measured (meta.json's created), ISO 8601 UTC
  run_dir TEXT, suite TEXT, nodes TEXT, wirebench TEXT, revision TEXT,
  driver TEXT, cuda TEXT, nccl TEXT, mpi TEXT, kernel TEXT,
  results_schema INTEGER, added TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
  run_id TEXT NOT NULL REFERENCES runs(run_id), key TEXT NOT NULL, metric TEXT NOT NULL,
  value REAL, higher_is_better INTEGER, samples INTEGER, spread_pct REAL, verdict TEXT,
  bench TEXT, link_class TEXT, src TEXT, dst TEXT, node TEXT, ceiling_GBps REAL,
  shape TEXT,                -- the item without its node: the same measurement on another node of the fleet
  PRIMARY KEY (run_id, key, metric));
CREATE INDEX IF NOT EXISTS items_by_item ON items (key, metric);
CREATE INDEX IF NOT EXISTS items_by_shape ON items (shape, metric);
"""
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"  # a run's time: ISO 8601 UTC, meta.json's; sorts as it reads
SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


def parse_time(text):
    """A run's time as an aware UTC datetime (a naive one would be read in the machine's zone)."""
    return datetime.strptime(text, TIME_FORMAT).replace(tzinfo=timezone.utc)


@dataclass
class Run:
    run_id: str
    time: str
    run_dir: str = ""
    suite: str = ""
    nodes: str = ""
    wirebench: str = ""
    revision: str = ""
    driver: str = ""
    cuda: str = ""
    nccl: str = ""
    mpi: str = ""
    kernel: str = ""
    results_schema: int = 0
    added: str = ""


@dataclass
class Item:
    key: str
    metric: str
    value: float
    higher_is_better: bool
    verdict: str
    samples: int = None
    spread_pct: float = None
    bench: str = ""
    link_class: str = ""
    src: str = ""
    dst: str = ""
    node: str = ""
    ceiling_GBps: float = None
    shape: str = ""


@dataclass
class Point:
    """One run's figure of an item, as the series and the baselines read it."""
    run: Run
    value: float
    verdict: str
    samples: int = None
    spread_pct: float = None


class History:
    def __init__(self, path: Path, timeout=60.0, create=False):
        """The history at `path`. Only a writer that adds runs (`wirebench history add`, `wirebench
        report --history`) passes create=True and makes a missing file; a reader (list, show) opens
        it read-only and never writes. Either refuses, naming the file, a path that is a directory or
        cannot be read and an existing file that is not SQLite (an empty one too: a typo's file)."""
        self.path = Path(path)
        if create and not self.path.exists() and not self.path.is_symlink():
            if not self.path.parent.is_dir():
                raise InputError(f"{self.path}: its folder {self.path.parent} does not exist (the history file is "
                                 "made there, the folder is not)")
            self._make(timeout)
        self._check_file(create)
        try:
            if create:
                self.db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
            else:  # read-only: a reader never creates or changes the file
                self.db = sqlite3.connect(f"file:{quote(str(self.path.resolve()))}?mode=ro", timeout=timeout,
                                          isolation_level=None, uri=True)
            self.db.row_factory = sqlite3.Row
            self._prepare() if create else self._check_version()
        except sqlite3.DatabaseError as error:
            raise InputError(f"{self.path}: not a wirebench history that can be read (SQLite: {error}); the run "
                             "directory is untouched") from None

    def _make(self, timeout):
        """A new history appears whole: made beside its name and linked to it, so that a writer running
        at the same time never meets it empty (SQLite writes a file's header only with its first
        transaction; six nightly writers starting at once on a new history refused each other's file as
        "an empty file"). A writer that loses the race opens the winner's."""
        fresh = self.path.parent / f".{self.path.name}.{os.getpid()}.new"
        try:
            self.db = sqlite3.connect(fresh, timeout=timeout, isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self._prepare()
            self.db.close()
            try:
                os.link(fresh, self.path)
            except FileExistsError:
                pass  # another writer made it first: theirs is whole too
            except OSError:  # a filesystem without hard links: put it in place unless one came first
                if not self.path.exists():
                    os.replace(fresh, self.path)
        except sqlite3.DatabaseError as error:
            raise InputError(f"{self.path}: cannot make a history there (SQLite: {error})") from None
        finally:
            fresh.unlink(missing_ok=True)

    def _check_file(self, create):
        """An existing path that is a readable SQLite file, or an InputError in the system's words."""
        try:
            with open(self.path, "rb") as stream:
                head = stream.read(len(SQLITE_HEADER))
        except FileNotFoundError as error:
            hint = "" if create else " (`wirebench history add` makes a history; list and show only read one)"
            raise InputError(f"{unreadable(self.path, error)}{hint}") from None
        except OSError as error:  # "is a directory", "permission denied"
            raise unreadable(self.path, error) from None
        if head != SQLITE_HEADER:
            what = "an empty file" if not head else "a file that is not SQLite"
            raise InputError(f"{self.path}: not a wirebench history that can be read ({what}): left as it is; name "
                             "the history, or a new file for `add` to make")

    def _check_version(self):
        """A reader's check of the meta table, without writing."""
        try:
            found = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.OperationalError:
            raise InputError(f"{self.path}: an SQLite file, but not a wirebench history (it has no meta table)") from None
        if found is None or found["value"] != str(SCHEMA_VERSION):
            raise InputError(f"{self.path}: history schema_version {found['value'] if found else 'missing'}; this "
                             f"wirebench reads version {SCHEMA_VERSION} (schema/versions.csv)")

    def _prepare(self):
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for statement in TABLES.split(";"):  # one by one: executescript would commit on its own
                if statement.strip():
                    self.db.execute(statement)
            found = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if found is None:
                self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif found["value"] != str(SCHEMA_VERSION):
                raise InputError(f"{self.path}: history schema_version {found['value']}; this wirebench reads "
                                 f"version {SCHEMA_VERSION} (schema/versions.csv)")
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def close(self):
        self.db.close()

    def add(self, run: Run, items):
        """Adds the run and its items in one transaction; False where it is there already."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            if self.db.execute("SELECT 1 FROM runs WHERE run_id = ?", (run.run_id,)).fetchone():
                self.db.execute("ROLLBACK")
                return False
            fields = list(Run.__dataclass_fields__)
            self.db.execute(f"INSERT INTO runs ({', '.join(fields)}) VALUES ({', '.join('?' * len(fields))})",
                            [getattr(run, f) for f in fields])
            names = list(Item.__dataclass_fields__)
            self.db.executemany(
                f"INSERT OR REPLACE INTO items (run_id, {', '.join(names)}) VALUES (?, {', '.join('?' * len(names))})",
                [[run.run_id] + [getattr(i, n) for n in names] for i in items])
            self.db.execute("COMMIT")
            return True
        except sqlite3.DatabaseError as error:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise InputError(f"{self.path}: the run could not be added (SQLite: {error})") from None

    def runs(self, since=None):
        """The runs, oldest first; `since`: an ISO date or time, the runs from it on."""
        query, args = "SELECT * FROM runs", ()
        if since:
            query, args = query + " WHERE time >= ?", (since,)
        return [_run(r) for r in self.db.execute(query + " ORDER BY time, run_id", args)]

    def series(self, key, metric, before=None, since=None):
        """The item's figures, oldest first; `before`: only runs measured before that time."""
        query = ("SELECT runs.*, items.value, items.verdict AS item_verdict, items.samples, items.spread_pct "
                 "FROM items JOIN runs USING (run_id) WHERE items.key = ? AND items.metric = ?")
        args = [key, metric]
        if before:
            query += " AND runs.time < ?"
            args.append(before)
        if since:
            query += " AND runs.time >= ?"
            args.append(since)
        return [Point(_run(r), r["value"], r["item_verdict"], r["samples"], r["spread_pct"])
                for r in self.db.execute(query + " ORDER BY runs.time, runs.run_id", args)]

    def fleet(self, shape, metric, node, before, since):
        """The latest healthy figure of the item `shape` on each other node, measured in [since,
        before): [(node, value)]."""
        query = ("SELECT items.node, items.value FROM items JOIN runs USING (run_id) WHERE items.shape = ? AND "
                 "items.metric = ? AND items.node != ? AND items.node != '' AND items.value IS NOT NULL AND "
                 "items.verdict NOT IN ('FAIL', 'ERROR', 'SKIP') AND runs.time < ? AND runs.time >= ? "
                 "ORDER BY runs.time")
        latest = {}
        for row in self.db.execute(query, (shape, metric, node, before, since)):
            latest[row["node"]] = row["value"]
        return sorted(latest.items())

    def items(self, run_id):
        return [dict(r) for r in self.db.execute("SELECT * FROM items WHERE run_id = ? ORDER BY key, metric", (run_id,))]

    def find_items(self, text):
        """The (key, metric) of every item whose key holds `text`."""
        return [(r["key"], r["metric"]) for r in
                self.db.execute("SELECT DISTINCT key, metric FROM items WHERE key LIKE ? ORDER BY key, metric",
                                (f"%{text}%",))]


def _run(row):
    return Run(**{f: row[f] for f in Run.__dataclass_fields__})
