"""What every notebook shares, kept in one place: the repository address, the setup cell, the Colab metadata and
the header line with measured run times.

``python tools/notebook_template.py`` writes these into every notebook (after editing this file, or after
``tools/run_notebooks.py`` recorded new times); ``tests/test_hygiene.py`` fails when a notebook differs from them.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
TIMINGS = NOTEBOOKS / "timings.json"
"""Measured wall times per notebook, written by ``tools/run_notebooks.py``; never edited by hand."""

REPO = "pytorch-gpu-notebooks/pytorch-gpu-notebooks"
"""GitHub home of the collection: the Colab badges and the setup cell's download point here, and only here."""

SETUP_CELL = f'''# Setup: make the project's code importable in JupyterLab, under the tests, and on Colab or Kaggle.
import subprocess
import sys
from pathlib import Path

REPO_URL = "https://github.com/{REPO}"
found = [p for p in (Path.cwd(), *Path.cwd().parents) if (p / "utils.py").is_file()]
ROOT = found[0] if found else Path(REPO_URL.rsplit("/", 1)[1]).resolve()
if not (ROOT / "utils.py").is_file():  # opened on its own (Colab, Kaggle): download the project once
    git = subprocess.run(["git", "clone", "-q", "--depth", "1", REPO_URL, str(ROOT)], capture_output=True, text=True)
    if git.returncode != 0:
        said = (git.stderr.strip() or "git failed").splitlines()[0]
        raise RuntimeError(f"Could not download {{REPO_URL}} ({{said}}). Fix: turn on the runtime's internet "
                           "access, or put the project's folder beside this notebook; then run this cell again.")
sys.path.insert(0, str(ROOT))
import utils

utils.check_runtime()  # on Colab or Kaggle without a GPU: says how to switch one on, then goes on on the CPU'''
"""The first code cell of every notebook, character for character."""

COLAB_METADATA: dict[str, Any] = {
    "accelerator": "GPU",
    "colab": {"provenance": [], "gpuType": "T4", "toc_visible": True},
}
"""Notebook metadata that makes the Colab badge open a GPU runtime (a T4, the free tier's GPU)."""

TIME_LINE = re.compile(r"^\*\*Time:\*\*.*$", re.M)


def badge(name: str) -> str:
    """Return the Open-in-Colab badge (markdown) for notebook ``name``."""
    url = f"https://colab.research.google.com/github/{REPO}/blob/main/notebooks/{name}"
    return f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({url})"


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 90 else f"{seconds // 60} min {seconds % 60:02d} s"


def time_line(times: dict[str, Any]) -> str:
    """Return the header line for one notebook's entry of ``timings.json`` (what was measured, where)."""
    parts = []
    for mode in ("quick", "full"):
        for kind in ("cpu", "gpu"):
            run = times.get(f"{mode}/{kind}")
            if run:
                parts.append(f"{mode} mode {_duration(run['seconds'])} on {run['machine']}")
            elif kind == "cpu":
                parts.append(f"{mode} mode on a CPU not measured yet")
    if not any(key.endswith("/gpu") for key in times):
        parts.append("no GPU run recorded yet")
    return "**Time:** " + "; ".join(parts) + " (measured by `tools/run_notebooks.py`, see `notebooks/timings.json`)."


def read_timings() -> dict[str, dict[str, Any]]:
    """Return the contents of ``timings.json`` (an empty dict if there is none yet)."""
    return json.loads(TIMINGS.read_text(encoding="utf-8")) if TIMINGS.is_file() else {}


def apply(nb: Any, name: str, timings: dict[str, dict[str, Any]]) -> None:
    """Write the shared setup cell, Colab metadata and time line into notebook ``nb`` (an nbformat node)."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    code[0].source = SETUP_CELL
    nb.metadata.update(json.loads(json.dumps(COLAB_METADATA)))
    title = nb.cells[0]
    line = time_line(timings.get(name.removesuffix(".ipynb"), {}))
    if TIME_LINE.search(title.source):
        title.source = TIME_LINE.sub(lambda _: line, title.source)
    else:
        title.source = title.source.rstrip() + "\n\n" + line


def update_header(path: Path) -> None:
    """Rewrite only the time line of the notebook at ``path`` from ``timings.json``."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    line = time_line(read_timings().get(path.stem, {}))
    if TIME_LINE.sub(lambda _: line, nb.cells[0].source) != nb.cells[0].source:
        nb.cells[0].source = TIME_LINE.sub(lambda _: line, nb.cells[0].source)
        nbformat.write(nb, path)


def main() -> None:
    """Apply the template to every notebook in ``notebooks/``."""
    import nbformat

    timings = read_timings()
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        before = nbformat.writes(nb)
        apply(nb, path.name, timings)
        if nbformat.writes(nb) != before:
            nbformat.write(nb, path)
            print(f"updated {path.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
