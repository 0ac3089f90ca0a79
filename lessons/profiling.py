"""Notebook 11 (where the time goes: the PyTorch profiler): a training step with labelled regions, the profiler's
activities for a device, the labelled regions read back from a trace file, the timeline and roofline figures, and
the bytes a step moves.

Lesson module (see ``lessons/__init__.py`` for where code lives). Notebook 11 shows ``labelled_step`` in full. Its
unit tests are in ``tests/test_profiling.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, record_function
from torch.utils._python_dispatch import TorchDispatchMode

import utils

LABELS = ("load batch", "forward", "backward", "optimizer step")
"""The ``record_function`` labels of ``labelled_step``, in the order a step runs them."""

HATCHES = ("--", "//", "..", "xx", "\\\\", "++")
"""One hatch per label in the figures, so that no label is told apart by colour alone."""


def labelled_step(model: torch.nn.Module, loss_fn: torch.nn.Module,
                  optimizer: torch.optim.Optimizer,
                  batches: Iterator[tuple[torch.Tensor, torch.Tensor]],
                  device: torch.device) -> torch.Tensor:
    """Run one training step on the next batch, each part a labelled region."""
    with record_function("load batch"):
        inputs, targets = (t.to(device, non_blocking=True) for t in next(batches))
    with record_function("forward"):
        loss = loss_fn(model(inputs), targets)
    with record_function("backward"):
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
    with record_function("optimizer step"):
        optimizer.step()
    return loss.detach()


def activities(device: torch.device) -> list[ProfilerActivity]:
    """Return what the profiler should record on ``device``: the CPU's operators, and on
    a CUDA GPU also its kernels and copies."""
    found = [ProfilerActivity.CPU]
    if device.type == "cuda":
        found.append(ProfilerActivity.CUDA)
    return found


KINETO_LINE = re.compile(
    r"^(USDT|STAGE|INFO|WARNING|ERROR):\d{4}-\d\d-\d\d [\d:]+ \d+:\d+ \S+\.cpp:\d+\] "
    r"|^\[W\d+ [\d:.]+ (\d+ )?CPUAllocator\.cpp:\d+\] Memory block of unknown size was allocated before the "
    r"profiling started")
"""A line that the profiler's C++ code writes to the process's stderr: Kineto's own log when it starts or stops or
finds no GPU, and the note that memory allocated before profiling began is freed unseen (the lesson says so in
prose). Neither is a Python warning."""


@contextlib.contextmanager
def quiet_profiler() -> Iterator[None]:
    """Keep Kineto's own log lines (``KINETO_LINE``) off stderr while the block runs; every other line that C++
    code writes to the process's stderr is written again afterwards. Python's ``sys.stderr`` is left alone.

    Kineto writes below Python, to file descriptor 2, which Jupyter shows as red stderr text."""
    os.environ.setdefault("KINETO_LOG_LEVEL", "5")  # no INFO and WARNING lines (read when Kineto starts)
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            lines = caught.read().decode(errors="replace").splitlines(keepends=True)
            kept = "".join(line for line in lines if not KINETO_LINE.match(line))
            if kept:
                sys.stderr.write(kept)


@dataclass(frozen=True)
class Region:
    """One labelled region of a trace: its label, the step it ran in (0, 1, ...), and its start and duration in
    milliseconds, the start counted from the first region."""

    label: str
    step: int
    start_ms: float
    ms: float

    @property
    def end_ms(self) -> float:
        return self.start_ms + self.ms


def read_regions(trace: str | os.PathLike[str], labels: Iterable[str] = LABELS) -> list[Region]:
    """Return the regions of a Chrome trace file (``prof.export_chrome_trace``) whose name is one of ``labels``,
    in the order they started. Complete events (``"ph": "X"``) only; a trace gives times in microseconds.

    A region's step is the number of ``labels[0]`` regions that started before or with it, less one."""
    labels = tuple(labels)
    events = json.loads(Path(trace).read_text(encoding="utf-8"))
    events = events["traceEvents"] if isinstance(events, dict) else events
    found = sorted((e for e in events if e.get("ph") == "X" and e.get("name") in labels),
                   key=lambda e: float(e["ts"]))
    if not found:
        return []
    first = float(found[0]["ts"])
    regions, step = [], -1
    for event in found:
        step += event["name"] == labels[0]
        regions.append(Region(event["name"], max(step, 0), (float(event["ts"]) - first) / 1000,
                              float(event.get("dur", 0.0)) / 1000))
    return regions


def gaps(regions: list[Region]) -> list[float]:
    """Return the milliseconds between each region's end and the next one's start (never below 0)."""
    return [max(b.start_ms - a.end_ms, 0.0) for a, b in zip(regions, regions[1:], strict=False)]


def draw_timeline(ax: Any, regions: list[Region], labels: Iterable[str] = LABELS) -> dict[str, Any]:
    """Draw ``regions`` on ``ax`` as a timeline, one row per label, top to bottom in the order of ``labels``,
    each region a box with its label's hatch and colour; return the drawn collection of each label.

    The white space in a row is time that label did not run; a column where no row has a box is a gap."""
    labels = tuple(labels)
    drawn = {}
    for row, label in enumerate(labels):
        boxes = [(r.start_ms, r.ms) for r in regions if r.label == label]
        y = len(labels) - 1 - row
        drawn[label] = ax.broken_barh(boxes, (y - 0.4, 0.8), facecolors=utils.PALETTE[row % len(utils.PALETTE)],
                                      edgecolor="black", hatch=HATCHES[row % len(HATCHES)], label=label)
    ax.set_yticks(range(len(labels)), list(reversed(labels)))
    ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.set_xlabel(utils.label("time (ms)", "时间（毫秒）"))
    return drawn


def describe_timeline(regions: list[Region], labels: Iterable[str] = LABELS) -> tuple[str, str]:
    """Return the timeline's description in English and Chinese, from what holds on every machine: the number of
    steps and the order of the labels in each step."""
    labels = tuple(labels)
    steps = len({r.step for r in regions})
    order = [r.label for r in regions if r.step == 0]
    same = all([r.label for r in regions if r.step == s] == order for s in range(steps))
    en = (f"A timeline of {steps} profiled training steps, one row per label, time in milliseconds from left to "
          f"right. In {'every' if same else 'the first'} step the regions follow in the order "
          f"{', '.join(order)}, each a hatched box; white space between boxes is time outside every label.")
    zh = (f"{steps}个被分析的训练步骤的时间线，每个标签一行，时间（毫秒）从左向右。"
          f"{'每个' if same else '第一个'}步骤中的区域依次是{'、'.join(f'“{o}”' for o in order)}，"
          "每个区域是一个带阴影线的方框；"
          "方框之间的空白是不属于任何标签的时间。")
    return en, zh


class BytesMoved(TorchDispatchMode):
    """Count, for every operator that runs inside the ``with`` block, the bytes of its tensor inputs and outputs
    (``bytes``) and how many operators ran (``operators``). This is what the operators would move if each read its
    inputs and wrote its outputs once in the device's memory, with nothing kept in a cache."""

    def __init__(self) -> None:
        super().__init__()
        self.bytes = 0
        self.operators = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        self.operators += 1
        tensors = [t for t in torch.utils._pytree.tree_leaves((args, kwargs, out)) if isinstance(t, torch.Tensor)]
        self.bytes += sum(t.numel() * t.element_size() for t in tensors)
        return out


def roofline(intensity: float, peak_flops: float, bandwidth: float) -> float:
    """Return the roofline's ceiling in FLOP/s at ``intensity`` FLOP per byte: the lower of the compute peak
    and what the memory's ``bandwidth`` (bytes/s) can feed."""
    return min(peak_flops, intensity * bandwidth)


def draw_roofline(ax: Any, peaks: dict[str, float], bandwidth: float,
                  points: dict[str, tuple[float, float]]) -> dict[str, Any]:
    """Draw a log-log roofline on ``ax``: one roof per compute peak of ``peaks`` (name -> FLOP/s) under the
    memory's slope (``bandwidth``, bytes/s), and each point of ``points`` (name -> (FLOP per byte, FLOP/s)) as a
    marker; return the drawn lines by name."""
    low = min([x for x, _ in points.values()] + [1.0]) / 4
    high = max([x for x, _ in points.values()] + [p / bandwidth for p in peaks.values()]) * 4
    xs = [low * (high / low) ** (i / 200) for i in range(201)]
    drawn = {}
    styles = ["-", "--", "-.", ":"]
    for i, (name, peak) in enumerate(peaks.items()):
        (drawn[name],) = ax.plot(xs, [roofline(x, peak, bandwidth) / 1e12 for x in xs], styles[i % 4],
                                 color=utils.PALETTE[i % len(utils.PALETTE)], label=name)
    markers = ["o", "s", "^", "D"]
    for i, (name, (x, flops)) in enumerate(points.items()):
        (drawn[name],) = ax.plot([x], [flops / 1e12], markers[i % 4], markersize=9, color="black", label=name)
    ax.set(xscale="log", yscale="log")
    ax.set_xlabel(utils.label("arithmetic intensity (FLOP per byte)", "算术强度（每字节的FLOP）"))
    ax.set_ylabel(utils.label("TFLOP/s", "TFLOP/s"))
    ax.legend()
    return drawn


def timed_rounds(fns: dict[str, Callable[[], Any]], device: torch.device, rounds: int = 3) -> dict[str, float]:
    """Return each function's fastest time in seconds over ``rounds`` interleaved rounds (one call of each per
    round, in turn, after one untimed call each): a machine that slows down mid-way slows all of them alike, and
    the fastest round is the one other work disturbed least."""
    for fn in fns.values():
        fn()
    seconds: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            seconds[name] += utils.time_runs(fn, device, warmup=0, repeat=1)
    return {name: min(times) for name, times in seconds.items()}
