"""Re-execute notebooks in quick mode and store their outputs: the one command that regenerates them.

    .venv/bin/python tools/run_notebooks.py                  # every notebook
    .venv/bin/python tools/run_notebooks.py 01 06            # only those whose name starts with 01 or 06
    python tools/run_notebooks.py --out /tmp/gpu-run         # a check on another machine (a GPU, say): the
                                                             # executed copies go there, stored outputs stay
    python tools/run_notebooks.py 09 --full --out /tmp/gpu   # full mode (what a reader runs), e.g. for the
                                                             # numbers a lesson quotes; needs --out

Outputs are stored exactly as `pytest` (strict nbval) will compare them: quick mode on, cells run top to
bottom in a fresh kernel whose working directory is notebooks/, cells tagged `raises-exception` allowed
to fail. Afterwards run `pytest` to confirm they reproduce.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def _strip_paths(text: str) -> str:
    """Shorten installation paths in a traceback line (nbval does not compare tracebacks)."""
    text = re.sub(r"(?:[A-Za-z]:)?[\\/][^\s:'\"]*?[\\/](site|dist)-packages[\\/]", r".../\1-packages/", text)
    return text.replace(str(ROOT), ".")


def run(path: Path, out: Path | None = None) -> float:
    """Execute one notebook and return the seconds it took; write it to ``out`` (a folder) or else in place."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
        record_timing=False,
    )
    start = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError:
        if out:  # keep what ran, to read on the machine that failed; the stored notebook stays untouched
            nbformat.write(nb, out / path.name)
        raise
    seconds = time.perf_counter() - start
    for cell in nb.cells:  # keep diffs small: no per-run metadata
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":  # expected errors: no machine paths in tracebacks
                output["traceback"] = [_strip_paths(line) for line in output["traceback"]]
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, out / path.name if out else path)
    return seconds


def main(argv: list[str] | None = None) -> None:
    """Run the notebooks the command line names (all by default)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="run only notebooks whose name starts with one of these")
    parser.add_argument("--out", type=Path, help="write the executed notebooks to this folder, not in place")
    parser.add_argument("--full", action="store_true", help="full mode instead of quick mode (needs --out)")
    args = parser.parse_args(argv)
    if args.full and not args.out:
        parser.error("--full needs --out: the stored outputs always come from quick mode")
    prefixes = args.prefixes
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    if args.full:
        os.environ.pop("NB_QUICK", None)
    else:
        os.environ["NB_QUICK"] = "1"  # same as conftest.py does for pytest
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if prefixes:
        paths = [p for p in paths if any(p.name.startswith(prefix) for prefix in prefixes)]
    if not paths:
        sys.exit(f"no notebook matches {prefixes}")
    for path in paths:
        print(f"{path.name}: {run(path, args.out):.1f} s", flush=True)


if __name__ == "__main__":
    main()
