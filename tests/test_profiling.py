"""Unit tests for lessons/profiling.py (notebook 11): the labelled step under the real profiler, the activities for
a CUDA device (a device object: nothing runs on it), Kineto's lines kept off stderr, regions read back from a trace
file, the two figures drawn with the Agg backend, the bytes an operator moves and the interleaved timing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.profiler import ProfilerActivity, profile, schedule  # noqa: E402

from lessons import profiling  # noqa: E402

CPU = torch.device("cpu")


def tiny() -> tuple[nn.Module, nn.Module, torch.optim.Optimizer, list[tuple[torch.Tensor, torch.Tensor]]]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    batches = [(torch.randn(6, 4), torch.randint(0, 3, (6,))) for _ in range(5)]
    return model, nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), lr=0.1), batches


def test_labelled_step_records_its_four_regions_in_order_and_trains() -> None:
    model, loss_fn, optimizer, batches = tiny()
    before = [p.detach().clone() for p in model.parameters()]
    with profiling.quiet_profiler(), profile(activities=[ProfilerActivity.CPU]) as prof:
        loss = profiling.labelled_step(model, loss_fn, optimizer, iter(batches), CPU)
    names = [e.name for e in sorted(prof.events(), key=lambda e: e.time_range.start)
             if e.name in profiling.LABELS]
    assert names == list(profiling.LABELS)
    assert not loss.requires_grad and loss.dim() == 0
    assert all(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


def test_activities_on_a_cuda_device() -> None:
    assert profiling.activities(CPU) == [ProfilerActivity.CPU]
    assert profiling.activities(torch.device("cuda")) == [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    assert profiling.activities(torch.device("mps")) == [ProfilerActivity.CPU]


def test_quiet_profiler_keeps_only_kinetos_lines_off_stderr(capfd: pytest.CaptureFixture) -> None:
    with profiling.quiet_profiler():
        os.write(2, b"USDT:2026-12-03 13:58:54 16134:16134 SyncActivityProfilerHandler.cpp:39] profiler_start\n")
        os.write(2, b"[W1203 14:08:16.717929856 CPUAllocator.cpp:245] Memory block of unknown size was allocated "
                    b"before the profiling started, profiler results will not include the deallocation event\n")
        os.write(2, b"something else went wrong\n")
    err = capfd.readouterr().err
    assert err == "something else went wrong\n"
    os.write(2, b"after\n")  # stderr is back
    assert capfd.readouterr().err == "after\n"


def write_trace(path: Path, events: list[dict]) -> Path:
    path.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    return path


def x(name: str, ts: float, dur: float) -> dict:
    return {"ph": "X", "name": name, "ts": ts, "dur": dur, "pid": 1, "tid": 1}


def test_read_regions_and_gaps(tmp_path: Path) -> None:
    events = [x("forward", 1100.0, 3000.0), x("load batch", 1000.0, 50.0), x("backward", 4200.0, 2000.0),
              x("optimizer step", 6300.0, 100.0), x("load batch", 6500.0, 40.0), x("forward", 6600.0, 2900.0),
              x("aten::addmm", 1200.0, 100.0), {"ph": "s", "name": "forward", "ts": 1100.0, "id": 3}]
    regions = profiling.read_regions(write_trace(tmp_path / "t.json", events))
    assert [(r.label, r.step) for r in regions] == [
        ("load batch", 0), ("forward", 0), ("backward", 0), ("optimizer step", 0), ("load batch", 1), ("forward", 1)]
    assert regions[0].start_ms == 0.0 and regions[1].start_ms == pytest.approx(0.1)
    assert regions[1].ms == pytest.approx(3.0) and regions[1].end_ms == pytest.approx(3.1)
    assert profiling.gaps(regions) == pytest.approx([0.05, 0.1, 0.1, 0.1, 0.06])
    assert profiling.read_regions(write_trace(tmp_path / "empty.json", [])) == []


def test_read_regions_from_a_real_trace(tmp_path: Path) -> None:
    model, loss_fn, optimizer, batches = tiny()
    trace = tmp_path / "real.json"
    with profiling.quiet_profiler(), profile(
            activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2),
            on_trace_ready=lambda p: p.export_chrome_trace(str(trace))) as prof:
        for _ in range(4):
            profiling.labelled_step(model, loss_fn, optimizer, iter(batches), CPU)
            prof.step()
    regions = profiling.read_regions(trace)
    assert [r.label for r in regions] == list(profiling.LABELS) * 2
    assert [r.step for r in regions] == [0] * 4 + [1] * 4
    assert all(gap >= 0 for gap in profiling.gaps(regions))


def sample_regions() -> list[profiling.Region]:
    regions, start = [], 0.0
    for step in range(2):
        for label, ms in zip(profiling.LABELS, (0.5, 3.0, 4.0, 0.2), strict=True):
            regions.append(profiling.Region(label, step, start, ms))
            start += ms + 0.1
    return regions


def test_draw_timeline_draws_one_hatched_row_per_label() -> None:
    fig, ax = plt.subplots()
    drawn = profiling.draw_timeline(ax, sample_regions())
    assert list(drawn) == list(profiling.LABELS)
    hatches = {collection.get_hatch() for collection in drawn.values()}
    assert len(hatches) == len(profiling.LABELS) and None not in hatches and "" not in hatches
    assert all(len(collection.get_paths()) == 2 for collection in drawn.values())  # a box a step
    assert [t.get_text() for t in ax.get_yticklabels()] == list(reversed(profiling.LABELS))
    assert ax.get_xlabel() == "time (ms)"
    plt.close(fig)


def test_describe_timeline_says_what_holds_everywhere() -> None:
    en, zh = profiling.describe_timeline(sample_regions())
    assert "2 profiled training steps" in en and "In every step" in en
    assert "load batch, forward, backward, optimizer step" in en
    assert "2个被分析的训练步骤" in zh and "每个步骤" in zh
    assert "“load batch”、“forward”、“backward”、“optimizer step”" in zh
    shuffled = sample_regions()
    shuffled[5], shuffled[6] = shuffled[6], shuffled[5]
    assert "In the first step" in profiling.describe_timeline(shuffled)[0]


def test_bytes_moved_counts_inputs_and_outputs() -> None:
    a, b = torch.randn(3, 4), torch.randn(4, 5)
    with profiling.BytesMoved() as moved:
        torch.mm(a, b)
    assert moved.operators == 1 and moved.bytes == 4 * (12 + 20 + 15)


def test_roofline_and_its_figure() -> None:
    assert profiling.roofline(1.0, 100.0, 10.0) == 10.0  # memory-bound: intensity x bandwidth
    assert profiling.roofline(50.0, 100.0, 10.0) == 100.0  # compute-bound: the peak
    fig, ax = plt.subplots()
    drawn = profiling.draw_roofline(ax, {"float32": 51e12, "TF32": 400e12}, 3.35e12, {"step": (48.0, 3e12)})
    assert set(drawn) == {"float32", "TF32", "step"}
    assert max(drawn["TF32"].get_ydata()) == pytest.approx(400)  # TFLOP/s
    assert drawn["float32"].get_linestyle() != drawn["TF32"].get_linestyle()
    assert list(drawn["step"].get_xdata()) == [48.0] and drawn["step"].get_marker() == "o"
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["float32", "TF32", "step"]
    plt.close(fig)


def test_timed_rounds_interleaves_the_functions() -> None:
    calls: list[str] = []
    seconds = profiling.timed_rounds({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, CPU,
                                     rounds=3)
    assert calls == ["a", "b"] * 4  # one untimed call each, then three rounds in turn
    assert set(seconds) == {"a", "b"} and all(s >= 0 for s in seconds.values())
