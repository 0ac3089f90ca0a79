"""tools/author/run_notebooks.py's --twice: "Run all" twice in one kernel, for a teacher who wants the executed copies
(CI's other-end lane runs every notebook twice under nbval instead: tests/nbval_lanes.py). A cell that works once
per kernel (here: a warning given once per process, as torch gives some) passes one run and fails the second. And
a print that arrives in pieces is stored in one."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

from tools.author import run_notebooks

ONCE_PER_KERNEL = """import sys
import warnings

def deprecated():
    if not getattr(sys, "warned_once", False):  # once per process, as torch's TORCH_WARN_ONCE
        sys.warned_once = True
        warnings.warn("old", DeprecationWarning, stacklevel=1)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    deprecated()
print(caught[0].message)"""


def _notebook(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "01_x.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


def test_twice_runs_every_cell_again_in_the_same_kernel(tmp_path: Path) -> None:
    path = _notebook(tmp_path, "runs = globals().get('runs', 0) + 1\nprint(runs)")
    (tmp_path / "out").mkdir()
    run_notebooks.run(path, tmp_path / "out", passes=2)
    cell = nbformat.read(tmp_path / "out" / path.name, as_version=4).cells[0]
    printed = "".join(o["text"] for o in cell.outputs if o.get("name") == "stdout")  # a print may arrive in pieces
    assert printed == "2\n" and cell.execution_count == 2  # the second run's output is kept


def test_a_cell_that_works_once_per_kernel_fails_the_second_run(tmp_path: Path) -> None:
    path = _notebook(tmp_path, ONCE_PER_KERNEL)
    (tmp_path / "once").mkdir()
    run_notebooks.run(path, tmp_path / "once")
    (tmp_path / "twice").mkdir()
    with pytest.raises(CellExecutionError, match="IndexError"):
        run_notebooks.run(path, tmp_path / "twice", passes=2)
    assert (tmp_path / "twice" / path.name).is_file()  # what ran is kept, to read


def test_twice_needs_out() -> None:
    with pytest.raises(SystemExit):
        run_notebooks.main(["01", "--twice"])


def test_a_recorded_time_names_the_code_and_commit_it_measured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.author import header

    monkeypatch.setattr(header, "TIMINGS", tmp_path / "timings.json")
    run_notebooks.record_time("01_x", "quick", 8.14, "abc123")
    record = header.read_timings()["01_x"]["quick/cpu"]
    assert record["seconds"] == 8.1 and record["code"] == "abc123" and record["date"]
    if (run_notebooks.ROOT / ".git").exists():  # a git checkout (CI's lanes run the tests in a copy without .git)
        assert record["commit"].rstrip("+") and len(record["commit"].rstrip("+")) >= 7  # git rev-parse --short
    plain = tmp_path / "unpacked"  # the project from a zip: no git, so no commit, and the time is still recorded
    plain.mkdir()
    monkeypatch.setattr(run_notebooks, "ROOT", plain)
    run_notebooks.record_time("01_x", "full", 20.0, "abc123")
    record = header.read_timings()["01_x"]["full/cpu"]
    assert record["seconds"] == 20.0 and record["code"] == "abc123" and "commit" not in record


def test_a_print_that_arrives_in_pieces_is_stored_in_one(tmp_path: Path) -> None:
    # flush() sends what is buffered at once, as a busy kernel's timer may: the line reaches nbclient in two pieces
    source = ("import sys, time\nprint('half a', end='', flush=True)\ntime.sleep(0.3)\nprint(' line', flush=True)\n"
              "print('to stderr', file=sys.stderr, flush=True)\nprint('after it')")
    path = _notebook(tmp_path, source)
    (tmp_path / "out").mkdir()
    run_notebooks.run(path, tmp_path / "out")
    outputs = nbformat.read(tmp_path / "out" / path.name, as_version=4).cells[0].outputs
    assert [(o["name"], o["text"]) for o in outputs] == [
        ("stdout", "half a line\n"), ("stderr", "to stderr\n"), ("stdout", "after it\n")]


def test_coalesce_streams_joins_only_neighbours_of_one_stream() -> None:
    stream = nbformat.v4.new_output
    cell = nbformat.v4.new_code_cell("x", outputs=[
        stream("stream", name="stdout", text="a"), stream("stream", name="stdout", text="b\n"),
        stream("display_data", data={"text/plain": "figure"}), stream("stream", name="stdout", text="c\n"),
        stream("stream", name="stderr", text="d\n"), stream("stream", name="stderr", text="e\n"),
    ])
    run_notebooks.coalesce_streams(cell)
    assert [(o.get("name"), o.get("text")) for o in cell.outputs] == [
        ("stdout", "ab\n"), (None, None), ("stdout", "c\n"), ("stderr", "d\ne\n")]
    markdown = nbformat.v4.new_markdown_cell("text")
    run_notebooks.coalesce_streams(markdown)
    assert "outputs" not in markdown


def test_each_english_notebook_runs_before_its_chinese_twin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In place both editions run, English first; a copy to --out is English unless --edition asks, the Chinese
    copies in its zh/ folder."""
    ran: list[tuple[str, Path | None]] = []

    def run(path: Path, out: Path | None = None, passes: int = 1) -> float:
        ran.append((path.relative_to(run_notebooks.NOTEBOOKS).as_posix(), out))
        return 1.0

    monkeypatch.setattr(run_notebooks, "run", run)
    run_notebooks.main(["01", "--out", str(tmp_path), "--no-timings"])
    assert ran == [("01_devices.ipynb", tmp_path)]
    ran.clear()
    run_notebooks.main(["01", "--out", str(tmp_path), "--no-timings", "--edition", "both"])
    assert ran == [("01_devices.ipynb", tmp_path), ("zh/01_devices.ipynb", tmp_path / "zh")]
    ran.clear()
    run_notebooks.main(["01", "02", "--out", str(tmp_path), "--no-timings", "--edition", "zh"])
    assert ran == [("zh/01_devices.ipynb", tmp_path / "zh"), ("zh/02_placement_checks.ipynb", tmp_path / "zh")]
