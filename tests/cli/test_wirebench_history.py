"""`wirebench history` through the front door, from a folder outside the repository, with the
history named by WIREBENCH_HISTORY as a nightly CI sets it (ctest label: unit)."""
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded-runs"


def wirebench(*args, cwd, env=None):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def test_add_list_show_and_plot_with_the_history_from_the_environment(tmp_path):
    for name in ("vcluster-clean", "vcluster-slow-node"):
        shutil.copytree(RECORDED / name, tmp_path / name, ignore=shutil.ignore_patterns("golden"))
    env = {"WIREBENCH_HISTORY": str(tmp_path / "nightly.sqlite")}
    added = wirebench("history", "add", "vcluster-clean", "vcluster-slow-node", "vcluster-clean", cwd=tmp_path, env=env)
    assert added.returncode == 0, added.stderr
    lines = added.stdout.splitlines()
    assert lines[0].startswith("wirebench history: added vcluster-clean (run ") and "12 items" in lines[0]
    assert lines[2].startswith("wirebench history: already holds vcluster-clean")
    listed = wirebench("history", "list", cwd=tmp_path, env=env)
    assert listed.returncode == 0 and "2 run(s) in" in listed.stdout and "nccl 2.28.9" in listed.stdout
    # Issue 44: --history after the command was refused; it is taken there as before it
    after = wirebench("history", "list", "--history", tmp_path / "nightly.sqlite", cwd=tmp_path,
                      env={"WIREBENCH_HISTORY": ""})
    assert after.returncode == 0 and "2 run(s) in" in after.stdout, after.stderr
    since = wirebench("history", "list", "--since", "2099-01-01", cwd=tmp_path, env=env)
    assert "0 run(s) in" in since.stdout
    vague = wirebench("history", "show", "stream_bw", cwd=tmp_path, env=env)
    assert vague.returncode == 3 and "'stream_bw' names " in vague.stderr and " items; give one key" in vague.stderr
    key = vague.stderr.splitlines()[1].strip().rsplit(" (", 1)[0]
    shown = wirebench("history", "show", key, "--plot", "trend.png", cwd=tmp_path, env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0].startswith(key) and [l for l in shown.stdout.splitlines() if " run " in l]
    assert (tmp_path / "trend.png").stat().st_size > 0


def test_no_history_or_a_damaged_one_is_exit_3(tmp_path):
    env = {"WIREBENCH_HISTORY": ""}
    missing = wirebench("history", "list", cwd=tmp_path, env=env)
    assert missing.returncode == 3 and "give --history FILE or set WIREBENCH_HISTORY" in missing.stderr
    (tmp_path / "h.sqlite").write_text("garbage\n" * 50)
    damaged = wirebench("history", "--history", "h.sqlite", "list", cwd=tmp_path)
    assert damaged.returncode == 3 and "h.sqlite: not a wirebench history that can be read" in damaged.stderr
    nowhere = wirebench("history", "--history", tmp_path / "no" / "such" / "h.sqlite", "add", RECORDED / "vcluster-clean",
                        cwd=tmp_path)
    assert nowhere.returncode == 3 and "does not exist (the history file is made there" in nowhere.stderr
    fresh = tmp_path / "fresh.sqlite"
    assert wirebench("history", "--history", fresh, "add", RECORDED / "vcluster-clean", cwd=tmp_path).returncode == 0
    version = sqlite3.connect(fresh).execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    assert version == "1"


def test_reading_a_history_never_makes_one_and_a_file_that_is_not_one_is_refused(tmp_path):
    """Issue 54: `history --history typo.sqlite list` made typo.sqlite (exit 0, '0 run(s)'), and an
    existing empty text file was silently turned into a database. Only `add` makes a history."""
    for command in (["list"], ["show", "stream_bw"]):
        typo = wirebench("history", "--history", "typo.sqlite", *command, cwd=tmp_path)
        assert typo.returncode == 3 and "typo.sqlite: no such file or directory" in typo.stderr, typo.stderr
        assert not (tmp_path / "typo.sqlite").exists()
    for text in (b"", b"notes of the night\n"):
        (tmp_path / "notes.txt").write_bytes(text)
        for command in (["list"], ["add", RECORDED / "vcluster-clean"]):
            refused = wirebench("history", "--history", "notes.txt", *command, cwd=tmp_path)
            assert refused.returncode == 3 and "notes.txt: not a wirebench history that can be read" in refused.stderr
            assert (tmp_path / "notes.txt").read_bytes() == text  # left as it is
    folder = wirebench("history", "--history", tmp_path, "list", cwd=tmp_path)
    assert folder.returncode == 3 and f"{tmp_path}: is a directory" in folder.stderr
    other = tmp_path / "other.sqlite"  # an SQLite database of something else: read, never changed
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    before = other.read_bytes()
    listed = wirebench("history", "--history", other, "list", cwd=tmp_path)
    assert listed.returncode == 3 and "not a wirebench history (it has no meta table)" in listed.stderr
    assert other.read_bytes() == before
