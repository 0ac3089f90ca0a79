"""Re-execute notebooks in quick mode and store their outputs, each English one then its Chinese twin: the one
command that regenerates them.

    .venv/bin/python tools/author/run_notebooks.py           # every notebook, in both editions
    .venv/bin/python tools/author/run_notebooks.py 01 06     # only those whose name starts with 01 or 06
    .venv/bin/python tools/author/run_notebooks.py 07 --edition zh   # one edition: en or zh (default: both)
    python tools/author/run_notebooks.py --out /tmp/gpu-run  # a check on another machine (a GPU, say): the
                                                             # executed copies go there, stored outputs stay
                                                             # (English only, unless --edition says otherwise;
                                                             # Chinese copies go to its zh/ folder)
    python tools/author/run_notebooks.py 09 --full --out /tmp/gpu    # full mode (what a reader runs), e.g. for the
                                                             # numbers a lesson quotes; needs --out
    python tools/author/run_notebooks.py --twice --out /tmp/twice    # "Run all" twice in one kernel, as students do;
                                                             # the copy holds the second run's outputs

Outputs are stored exactly as `pytest` (strict nbval) will compare them: quick mode on, cells run top to
bottom in a fresh kernel whose working directory is the notebook's folder; any error stops the run (errors shown on
purpose are caught inside their cells by `utils.expect_error`). A Chinese twin is first brought in step with its
English notebook (`tools/author/translate.py`), then run as it is: its outputs are what its own setup cell's language
prints, so that `tests/test_translate.py` can hold the two editions to the same code and the same numbers.
Afterwards run `pytest` to confirm they reproduce.

Every English run also records its wall time in notebooks/timings.json (per mode, CPU or GPU, with the machine, torch
version, date, the digest of the notebook's code and the commit) and rewrites the notebooks' header time lines from
it (`tools/author/template.py`); `--no-timings` leaves both alone. A notebook run in place keeps no output under its
solutions (what a student sees); copies written to `--out` keep them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT))
import utils  # noqa: E402
from tools.author import cells, core, digest, editions, header, translate  # noqa: E402
from tools.author.kernels import IPCKernelManager  # noqa: E402


def machine() -> tuple[str, str]:
    """Return ``("gpu" or "cpu", a description)`` of where the notebooks compute on this machine."""
    import torch

    device = utils.get_device()
    if device.type == "cuda":
        return "gpu", f"an {torch.cuda.get_device_name(device)}"
    if device.type != "cpu":
        return "gpu", f"an {device.type.upper()} GPU"
    return "cpu", f"a {utils.cpu_cores()}-core CPU"


def commit() -> str | None:
    """Return the repository's commit (short), with ``+`` if tracked files differ from it; None without git."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        changed = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT).returncode != 0
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+" if changed else "")


def record_time(name: str, mode: str, seconds: float, code: str | None = None) -> None:
    """Store one measured wall time (seconds) of notebook ``name`` in notebooks/timings.json, with what it measured:
    the machine, torch, the date, the digest of the notebook's code (``digest.code_digest``: the header
    says "this version" while it matches) and the repository's commit."""
    import torch

    kind, description = machine()
    timings = header.read_timings()
    record = {
        "seconds": round(seconds, 1), "machine": description, "torch": torch.__version__.split("+")[0],
        "date": datetime.date.today().isoformat(), "code": code, "commit": commit(),
    }
    timings.setdefault(name, {})[f"{mode}/{kind}"] = {key: value for key, value in record.items() if value}
    text = json.dumps(dict(sorted(timings.items())), indent=1, sort_keys=True) + "\n"
    tmp = header.TIMINGS.with_name(f".timings.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, header.TIMINGS)


def coalesce_streams(cell: nbformat.NotebookNode) -> None:
    """Join the consecutive stream outputs of ``cell`` that go to the same stream into one, in place.

    The kernel sends what a cell prints in as many messages as it flushed, which depends on the machine's load: one
    ``print`` can arrive in two pieces, cut anywhere. Stored joined, the outputs are the same on every run; nbval
    joins them too before it compares.
    """
    joined: list[nbformat.NotebookNode] = []
    for output in cell.get("outputs", []):
        previous = joined[-1] if joined else None
        if (output.output_type == "stream" and previous is not None and previous.output_type == "stream"
                and previous.name == output.name):
            previous.text += output.text
        else:
            joined.append(output)
    if "outputs" in cell:
        cell.outputs = joined


def run(path: Path, out: Path | None = None, passes: int = 1) -> float:
    """Execute one notebook and return the seconds it took; write it to ``out`` (a folder) or else in place.

    ``passes=2`` runs every cell top to bottom twice in the same kernel, as a student who presses "Run all" again
    does; any error in either pass fails, and the notebook written holds the second pass's outputs.
    """
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        kernel_manager_class=IPCKernelManager,  # Unix sockets: no TCP port to race for (tools/author/kernels.py)
        timeout=3600 if os.environ.get(utils.QUICK_ENV) is None else 600,  # full mode on a CPU: long cells
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
    )
    start = time.perf_counter()
    try:
        if passes == 1:
            client.execute()
        else:
            with client.setup_kernel():
                for _ in range(passes):
                    for index, cell in enumerate(nb.cells):
                        client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
    except CellExecutionError:
        if out:  # keep what ran, to read on the machine that failed; the stored notebook stays untouched
            nbformat.write(nb, out / path.name)
        raise
    seconds = time.perf_counter() - start
    for cell in nb.cells:  # keep diffs small: no per-run metadata, each stream's output in one piece
        cell.metadata.pop("execution", None)
        coalesce_streams(cell)
        if out is None:  # what a student sees: no solution's output stored (the copies in --out keep them)
            cells.present(cell, editions.language_of(path))
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, out / path.name if out else path)
    return seconds


def main(argv: list[str] | None = None) -> None:
    """Run the notebooks the command line names (all by default), in the editions it names."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="run only notebooks whose name starts with one of these")
    parser.add_argument("--out", type=Path, help="write the executed notebooks to this folder, not in place")
    parser.add_argument("--full", action="store_true", help="full mode instead of quick mode (needs --out)")
    parser.add_argument("--no-timings", action="store_true", help="do not record times in notebooks/timings.json")
    parser.add_argument(
        "--edition", choices=("en", "zh", "both"),
        help="the English notebooks, their Chinese twins (notebooks/zh/) or both (default: both; en with --out)",
    )
    parser.add_argument(
        "--twice", action="store_true", help='"Run all" twice in one kernel (needs --out; no times are recorded)'
    )
    args = parser.parse_args(argv)
    if args.full and not args.out:
        parser.error("--full needs --out: the stored outputs always come from quick mode")
    if args.twice and not args.out:
        parser.error("--twice needs --out: the stored outputs come from one run in a fresh kernel")
    edition = args.edition or ("en" if args.out else "both")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    if args.full:
        os.environ.pop(utils.QUICK_ENV, None)
    else:
        os.environ[utils.QUICK_ENV] = "1"  # same as conftest.py does for pytest
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if args.prefixes:
        paths = [p for p in paths if any(p.name.startswith(prefix) for prefix in args.prefixes)]
    if not paths:
        sys.exit(f"no notebook matches {args.prefixes}")
    twice = " (two runs in one kernel)" if args.twice else ""
    for path in paths:
        if edition in ("en", "both"):
            seconds = run(path, args.out, passes=2 if args.twice else 1)
            print(f"{path.name}: {seconds:.1f} s{twice}", flush=True)
            if not args.no_timings and not args.twice:
                code = digest.code_digest(nbformat.read(path, as_version=4))
                record_time(path.stem, "full" if args.full else "quick", seconds, code)
                header.update_header(path)  # the header's time line follows timings.json
                core.write_table()  # and so does the teacher's page
        if edition in ("zh", "both"):
            twin = translate.twin_path(path)
            if args.out is None:
                translate.sync(path)  # the twin's code and generated parts as the English notebook has them now
            out = args.out / "zh" if args.out else None
            if out:
                out.mkdir(exist_ok=True)
            seconds = run(twin, out, passes=2 if args.twice else 1)
            print(f"zh/{twin.name}: {seconds:.1f} s{twice}", flush=True)


if __name__ == "__main__":
    main()
