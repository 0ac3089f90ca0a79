"""tests/nbval_lanes.py: the other-end lane's second run in the same kernel, its emulated TF32, and the masked library
messages, each through pytest and nbval as the lane runs them (a notebook in a temporary folder, conftest.py loaded)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import utils
from tests import nbval_lanes

ROOT = Path(__file__).resolve().parents[1]
EXPECTED_EN, EXPECTED_ZH = utils.EXPECTED_ERROR["en"], utils.EXPECTED_ERROR["zh"]


def mask(text: str) -> str:
    regex, replacement = nbval_lanes.LIBRARY_MESSAGE
    return re.sub(regex, replacement, text)


def test_the_mask_hides_the_library_message_and_nothing_else() -> None:
    masked = "(the library's message)"
    one = f"before: True\n{EXPECTED_EN}\nRuntimeError: addmm: mat1 and mat2 shapes cannot be multiplied (2x2048)\n"
    assert mask(one) == f"before: True\n{EXPECTED_EN}\nRuntimeError: {masked}\n"
    several = (f"{EXPECTED_ZH}\nEOFError: \n{EXPECTED_ZH}\nKeyError: 101\n{EXPECTED_ZH}\nUnpicklingError: Weights "
               "only load failed.\nPlease file an issue: WeightsUnpickler error: \n\nUnsupported operand 60\n\nCheck "
               "the documentation.\n")
    assert mask(several) == (f"{EXPECTED_ZH}\nEOFError: {masked}\n{EXPECTED_ZH}\nKeyError: {masked}\n"
                             f"{EXPECTED_ZH}\nUnpicklingError: {masked}\n")
    assert mask(f"{EXPECTED_EN}\nValueError: no newline at the end") == f"{EXPECTED_EN}\nValueError: {masked}"
    for untouched in ("RuntimeError: not after the expected line\n", f"{EXPECTED_EN}\nnot an error's type\n",
                      "loss 0.5\naccuracy 0.9\n"):
        assert mask(untouched) == untouched


def run_pytest(tmp_path: Path, cells: list[str], env: dict[str, str], lax: bool = False,
               setup: bool = True) -> subprocess.CompletedProcess:
    """pytest with nbval on a notebook of ``cells`` (no stored outputs; after a cell that imports the project's
    utils if ``setup``), with conftest.py as the lane loads it."""
    first = [f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nimport utils"] if setup else []
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in [*first, *cells]])
    nbformat.write(notebook, tmp_path / "lane.ipynb")
    base = {k: v for k, v in os.environ.items() if k not in (nbval_lanes.SECOND_RUN_ENV, nbval_lanes.MASK_ENV)}
    command = [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-v",
               "--nbval-lax" if lax else "--nbval", "--nbval-current-env", str(tmp_path / "lane.ipynb")]
    return subprocess.run(command, cwd=ROOT, env={**base, **env}, capture_output=True, text=True, timeout=600)


def test_a_second_run_runs_every_cell_again_in_the_same_kernel(tmp_path: Path) -> None:
    """A cell that works once per kernel passes the first run and fails the second."""
    cells = ["runs = globals().get('runs', 0) + 1", "assert runs == 1, 'the kernel has run this notebook before'"]
    twice = run_pytest(tmp_path, cells, {nbval_lanes.SECOND_RUN_ENV: "plain"}, setup=False)
    assert twice.returncode == 1 and "1 failed, 3 passed" in twice.stdout, twice.stdout + twice.stderr
    assert re.findall(r"(Cell \d+(?: \(second run\))?) (PASSED|FAILED)", twice.stdout) == [
        ("Cell 0", "PASSED"), ("Cell 1", "PASSED"), ("Cell 0 (second run)", "PASSED"),
        ("Cell 1 (second run)", "FAILED")], twice.stdout
    assert "the kernel has run this notebook before" in twice.stdout
    with pytest.raises(ValueError, match="use 'tf32' or 'plain'"):
        list(nbval_lanes.second_run(None, [], "twice"))  # type: ignore[arg-type]  (refused before any use)


def test_the_tf32_second_run_catches_lesson_10_as_it_was_at_b82b562(tmp_path: Path) -> None:
    """b82b562's checkpointing check compared gradients computed in TF32 with ones computed in float32: it held on
    every CPU and failed on every Ampere-or-newer GPU. In the lane its first run holds and its second, after the
    switch to emulated TF32, fails (that TF32 and not a second run fails it: tests/test_tf32_emulation.py)."""
    data = json.loads((ROOT / "tests" / "tf32_lesson10_b82b562.json").read_text(encoding="utf-8"))
    cells = [cell["source"] for cell in data["cells"]]
    tf32 = run_pytest(tmp_path, cells, {nbval_lanes.SECOND_RUN_ENV: "tf32"}, lax=True)
    assert tf32.returncode == 1, tf32.stdout[-3000:]
    failed = re.findall(r"(Cell \d+(?: \(second run\))?|switch to emulated TF32) FAILED", tf32.stdout)
    assert failed == ["Cell 6 (second run)"], tf32.stdout[-3000:]  # the checkpointing check, and only it
    assert "switch to emulated TF32 PASSED" in tf32.stdout


@pytest.mark.parametrize("mode", ["", "plain"])
def test_without_the_variables_nothing_changes(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """install() patches nbval only for what the variables ask."""
    import nbval.plugin

    collect, sanitize = nbval.plugin.IPyNbFile.collect, nbval.plugin.IPyNbFile.setup_sanitize_files
    monkeypatch.setattr(nbval.plugin.IPyNbFile, "collect", collect)
    monkeypatch.setattr(nbval.plugin.IPyNbFile, "setup_sanitize_files", sanitize)
    monkeypatch.setenv(nbval_lanes.SECOND_RUN_ENV, mode)
    monkeypatch.delenv(nbval_lanes.MASK_ENV, raising=False)
    nbval_lanes.install()
    assert (nbval.plugin.IPyNbFile.collect is collect) == (mode == "")
    assert nbval.plugin.IPyNbFile.setup_sanitize_files is sanitize
