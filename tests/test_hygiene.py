"""Every notebook passes the hygiene checks, and every check is shown to catch a bad notebook."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import hygiene

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
NAME = "01_devices.ipynb"


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "no notebooks found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_clean(path: Path) -> None:
    assert hygiene.check_all(path) == []


# ---- a good notebook, then one bad variant per check ------------------------------------------------


def _code(source: str, count: int, outputs: list[dict[str, Any]] | None = None, **meta: Any) -> dict:
    return {"cell_type": "code", "source": source, "execution_count": count, "metadata": meta,
            "outputs": outputs or []}


def _md(source: str) -> dict:
    return {"cell_type": "markdown", "source": source, "metadata": {}}


def good_notebook() -> dict[str, Any]:
    badge = f"https://colab.research.google.com/github/{hygiene.REPO}/blob/main/notebooks/{NAME}"
    setup = f'if "google.colab" in sys.modules:\n    !git clone https://github.com/{hygiene.REPO}\n# utils.py'
    stdout = {"output_type": "stream", "name": "stdout", "text": "cpu\n"}
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [
            _md(f"# 01 · Devices\n\n[![Open In Colab](badge.svg)]({badge})"),
            _md("You will learn:\n- things"),
            _code(setup, 1),
            _code("import utils", 2),
            _code("print('cpu')", 3, [stdout]),
            _code("# NBVAL_IGNORE_OUTPUT\nprint(torch.__version__)", 4),
            _code("assert True", 5),
            _md("## Summary\n\n## Exercises"),
            _code("# Solution\nprint(1)", 6, jupyter={"source_hidden": True}),
        ],
    }


def _set(path: str, value: Any) -> Callable[[dict], None]:
    def mutate(nb: dict) -> None:
        target: Any = nb
        *keys, last = path.split("/")
        for key in keys:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[int(last) if isinstance(target, list) else last] = value

    return mutate


def _add_output(output: dict) -> Callable[[dict], None]:
    return lambda nb: nb["cells"][4]["outputs"].append(output)


BAD = {
    "no title": _set("cells/0/source", "Devices"),
    "wrong title number": _set("cells/0/source", "# 02 · Devices"),
    "no badge": _set("cells/0/source", "# 01 · Devices"),
    "no you-will-learn": _set("cells/1/source", "Intro"),
    "no summary": _set("cells/7/source", "## Exercises"),
    "no setup cell": _set("cells/2/source", "import sys"),
    "utils not imported": _set("cells/3/source", "import torch"),
    "not executed": _set("cells/4/execution_count", None),
    "out of order": _set("cells/4/execution_count", 7),
    "error output": _add_output({"output_type": "error", "ename": "RuntimeError", "evalue": "", "traceback": []}),
    "expected error missing": _set("cells/4/source", "# NBVAL_RAISES_EXCEPTION\nprint('cpu')"),
    "stderr": _add_output({"output_type": "stream", "name": "stderr", "text": "UserWarning: careful\n"}),
    "machine path": _add_output({"output_type": "stream", "name": "stdout", "text": "/home/alice/data\n"}),
    "cuda string": _add_output({"output_type": "stream", "name": "stdout", "text": "device='cuda:0'\n"}),
    "no solution": _set("cells/8/source", "print(1)"),
    "solution open": _set("cells/8/metadata", {}),
    "inexact ignore marker": _set("cells/5/source", "# NBVAL_IGNORE_OUTPUT  (versions differ)\nprint(1)"),
    "inexact raises marker": _set("cells/4/source", "# NBVAL_RAISES_EXCEPTION (on purpose)\nprint('cpu')"),
    "ignored cell without check": _set("cells/6/source", "print('no check here')"),
    "kernelspec": _set("metadata/kernelspec/name", "conda-env-foo"),
}


def _problems(nb: dict, tmp_path: Path, name: str = NAME) -> list[str]:
    path = tmp_path / name
    path.write_text(json.dumps(nb), encoding="utf-8")
    return hygiene.check_all(path)


def test_good_notebook_passes(tmp_path: Path) -> None:
    assert _problems(good_notebook(), tmp_path) == []


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_notebook_is_caught(kind: str, tmp_path: Path) -> None:
    nb = copy.deepcopy(good_notebook())
    BAD[kind](nb)
    assert _problems(nb, tmp_path), f"hygiene checks missed: {kind}"


def test_bad_name_is_caught() -> None:
    assert hygiene.check_name("1_devices.ipynb")
    assert hygiene.check_name("01-Devices.ipynb")
    assert not hygiene.check_name(NAME)


def test_cuda_string_echoed_from_source_is_allowed(tmp_path: Path) -> None:
    nb = good_notebook()
    nb["cells"][4]["source"] = 'print(torch.device("cuda:1").index)  # cuda:1'
    nb["cells"][4]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "cuda:1 -> 1\n"}]
    assert _problems(nb, tmp_path) == []
    nb["cells"][4]["outputs"][0]["text"] = "cuda:0\n"  # a device the code never named: machine output
    assert _problems(nb, tmp_path)


def test_oversized_notebook_is_caught(tmp_path: Path) -> None:
    nb = good_notebook()
    nb["cells"][4]["outputs"][0]["text"] = "x" * (hygiene.MAX_BYTES + 1)
    assert any("bytes" in p for p in _problems(nb, tmp_path))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_readme_lists_notebook_with_colab_badge(path: Path) -> None:
    readme = (NOTEBOOK_DIR.parent / "README.md").read_text(encoding="utf-8")
    assert f"(notebooks/{path.name})" in readme
    assert f"https://colab.research.google.com/github/{hygiene.REPO}/blob/main/notebooks/{path.name}" in readme
