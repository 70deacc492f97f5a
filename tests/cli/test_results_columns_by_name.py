"""results.csv's columns in C++ are named, not numbered (issue 45): the writer (result_row.cpp) and
the reader (results_csv_reader.cpp) switch over ResultColumn, which cmake/Schema.cmake generates
from schema/results-columns.csv, with -Wswitch an error in those files. A column added to the CSV is
a new enumerator: both files stop compiling until they say what it holds. Checked by compiling them
against the generated header with one column more (ctest label: unit, through WB_BIN_DIR)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def generated():
    bin_dir = os.environ.get("WB_BIN_DIR")
    header = Path(bin_dir).parent / "generated" / "schema" / "results_columns.h" if bin_dir else None
    if header is None or not header.exists():
        pytest.fail("WB_BIN_DIR names no build with generated/schema/results_columns.h (run under ctest)")
    return header


def with_a_new_column(text):
    count = len(re.findall(r'^    "\w+",$', text, re.M))
    text = text.replace(f"<std::string_view, {count}>", f"<std::string_view, {count + 1}>")
    text = text.replace(f"<bool, {count}>", f"<bool, {count + 1}>")
    text = re.sub(r'(kResultColumns = \{\n(?:    "\w+",\n)+)', r'\1    "new_column",\n', text)
    text = re.sub(r"(enum class ResultColumn : std::size_t \{\n(?:  k\w+,\n)+)", r"\1  kNewColumn,\n", text)
    return re.sub(r"(kResultColumnRequired = \{\n(?:    \w+,\n)+)", r"\1    false,\n", text)


@pytest.mark.parametrize("source", ["bench/harness/result_row.cpp", "bench/harness/results_csv_reader.cpp"])
def test_a_new_column_does_not_compile_until_written_and_read(tmp_path, source):
    header = generated()
    compiler = shutil.which("c++") or shutil.which("g++")
    include = ["-I", str(ROOT / "bench"), "-I", str(header.parents[1])]
    ok = subprocess.run([compiler, "-std=c++20", "-fsyntax-only", *include, str(ROOT / source)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    (tmp_path / "schema").mkdir()
    (tmp_path / "schema" / "results_columns.h").write_text(with_a_new_column(header.read_text()))
    broken = subprocess.run([compiler, "-std=c++20", "-fsyntax-only", "-I", str(tmp_path), *include,
                             str(ROOT / source)], capture_output=True, text=True)
    assert broken.returncode != 0 and "kNewColumn" in broken.stderr and "not handled in switch" in broken.stderr
