"""Re-execute notebooks in quick mode and store their outputs: the one command that regenerates them.

    .venv/bin/python tools/run_notebooks.py                  # every notebook
    .venv/bin/python tools/run_notebooks.py 01 06            # only those whose name starts with 01 or 06

Outputs are stored exactly as `pytest` (strict nbval) will compare them: quick mode on, cells run top to
bottom in a fresh kernel whose working directory is notebooks/, cells tagged `raises-exception` allowed
to fail. Afterwards run `pytest` to confirm they reproduce.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def _strip_paths(text: str) -> str:
    """Shorten installation paths in a traceback line (nbval does not compare tracebacks)."""
    text = re.sub(r"(?:[A-Za-z]:)?[\\/][^\s:'\"]*?[\\/](site|dist)-packages[\\/]", r".../\1-packages/", text)
    return text.replace(str(ROOT), ".")


def run(path: Path) -> float:
    """Execute one notebook in place and return the seconds it took."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
        record_timing=False,
    )
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:  # keep diffs small: no per-run metadata
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":  # expected errors: no machine paths in tracebacks
                output["traceback"] = [_strip_paths(line) for line in output["traceback"]]
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    return seconds


def main(prefixes: list[str]) -> None:
    os.environ["NB_QUICK"] = "1"  # same as conftest.py does for pytest
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if prefixes:
        paths = [p for p in paths if any(p.name.startswith(prefix) for prefix in prefixes)]
    if not paths:
        sys.exit(f"no notebook matches {prefixes}")
    for path in paths:
        print(f"{path.name}: {run(path):.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
