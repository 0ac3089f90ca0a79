"""Start notebook 08's 2-process DDP worker many times and count the starts that abort. Run by hand.

    .venv/bin/python tools/ci/stress_ddp.py                 # 300 starts, every other one with the CPU loaded
    .venv/bin/python tools/ci/stress_ddp.py --starts 40     # a shorter run

Each start does what tests/test_ddp.py does: ``mp.spawn(lessons.ddp.worker, ...)`` with two CPU processes
talking through gloo, then checks that both ranks wrote their reports. Every second start runs while this tool
keeps every core of the machine busy with spinning processes of its own, so the two ranks are descheduled at
random points (the load other programs put on a shared machine comes on top, in both halves). The children's
stderr goes to a file per start; a failed start prints its last lines (for an abort, C++'s last words such as
"terminate called without an active exception", then the Python stack of every thread, from faulthandler, which
the tool turns on in the children). The summary counts, for the idle and the loaded half: starts, aborts (a rank
killed by a signal or exiting non-zero), errors (a rank raised), missing reports and hangs (no end within
--timeout seconds; the ranks still running then get SIGABRT, so that faulthandler shows where they were). Exits 1
if any start failed. Ctrl+C or SIGTERM (``kill PID``) stops it early, with the summary of the starts completed
so far.

Not part of the test suite: 300 starts take tens of minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import multiprocessing
import os
import platform
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import torch  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

from lessons import ddp  # noqa: E402

WORLD_SIZE, EPOCHS, BATCH = 2, 1, 16  # as tests/test_ddp.py starts it


def spin() -> None:
    """Keep one core busy until killed."""
    while True:
        pass


@contextlib.contextmanager
def cpu_load(processes: int) -> Iterator[None]:
    """Inside the block, `processes` spinning processes keep that many cores busy."""
    context = multiprocessing.get_context("fork")  # a bare fork: no interpreter start-up to wait for
    spinners = [context.Process(target=spin, daemon=True) for _ in range(processes)]
    for spinner in spinners:
        spinner.start()
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.join()


def one_start(out_dir: Path, timeout: float) -> tuple[str, str]:
    """Spawn the worker once in `out_dir`; return the outcome ("ok", "abort", "error", "missing", "hang") and detail."""
    stderr_path = out_dir / "child_stderr.txt"
    with ddp.child_stderr_to(stderr_path), ddp.meeting_point() as port:
        context = mp.spawn(ddp.worker, args=(WORLD_SIZE, port, str(out_dir), EPOCHS, BATCH),
                           nprocs=WORLD_SIZE, join=False)
        deadline = time.monotonic() + timeout
        outcome, detail = "ok", ""
        try:
            while not context.join(timeout=1):
                if time.monotonic() > deadline:
                    alive = [rank for rank, process in enumerate(context.processes) if process.is_alive()]
                    outcome, detail = "hang", f"no end after {timeout:.0f} s; ranks {alive} still running"
                    for rank in alive:  # faulthandler prints where each of their threads is
                        os.kill(context.processes[rank].pid, signal.SIGABRT)
                        context.processes[rank].join(10)
                    break
        except mp.ProcessExitedException as exc:  # a rank died: a signal (SIGABRT, ...) or a non-zero exit code
            outcome, detail = "abort", str(exc)
        except mp.ProcessRaisedException as exc:  # a rank raised a Python exception
            outcome, detail = "error", str(exc).strip().splitlines()[-1]
        finally:
            for process in context.processes:
                if process.is_alive():
                    process.kill()
                process.join()
    if outcome == "ok" and not all((out_dir / f"rank{rank}.pt").exists() for rank in range(WORLD_SIZE)):
        outcome, detail = "missing", "a rank's report is missing"
    if outcome != "ok":  # the children's stderr: C++'s last words and, from faulthandler, the Python stacks
        tail = stderr_path.read_text(errors="replace").strip().splitlines()[-40:]
        detail += "".join(f"\n      stderr: {line}" for line in tail)
    return outcome, detail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=300, help="how many times to spawn the worker (default 300)")
    parser.add_argument("--load", type=int, default=os.cpu_count() or 1,
                        help="spinning processes during the loaded starts (default: one per core)")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds before a start counts as a hang (default 900: a loaded 2-core machine is slow)")
    args = parser.parse_args()
    os.environ["PYTHONFAULTHANDLER"] = "1"  # a child killed by a signal prints where each of its threads was
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill PID` stops it as Ctrl+C does

    print(f"torch {torch.__version__}, Python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} cores, {datetime.date.today()}; {args.starts} starts of worker "
          f"(world size {WORLD_SIZE}, gloo), every other one with {args.load} spinning processes", flush=True)
    counts: Counter[tuple[str, str]] = Counter()
    begin = time.monotonic()
    done = 0
    try:
        for start in range(args.starts):
            half = "loaded" if start % 2 else "idle"
            with tempfile.TemporaryDirectory(prefix="stress_ddp_") as tmp:
                with cpu_load(args.load) if half == "loaded" else contextlib.nullcontext():
                    outcome, detail = one_start(Path(tmp), args.timeout)
            counts[half, outcome] += 1
            done += 1
            if outcome != "ok":
                print(f"start {start + 1} ({half}): {outcome.upper()}: {detail}", flush=True)
            if (start + 1) % 25 == 0:
                failed = sum(n for (_, kind), n in counts.items() if kind != "ok")
                print(f"... {start + 1} starts, {failed} failed, {time.monotonic() - begin:.0f} s", flush=True)
    except KeyboardInterrupt:  # Ctrl+C or SIGTERM: the start under way does not count; the summary covers the rest
        print(f"stopped after {done} of {args.starts} starts", flush=True)
    elapsed = time.monotonic() - begin
    kinds = ("ok", "abort", "error", "missing", "hang")
    for half in ("idle", "loaded"):
        total = sum(counts[half, kind] for kind in kinds)
        print(f"{half}: {total} starts, " + ", ".join(f"{kind} {counts[half, kind]}" for kind in kinds))
    failed = sum(n for (_, kind), n in counts.items() if kind != "ok")
    print(f"all: {done} starts, {failed} failed, {counts['idle', 'abort'] + counts['loaded', 'abort']} "
          f"aborts; {elapsed:.0f} s ({elapsed / max(done, 1):.1f} s a start)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
