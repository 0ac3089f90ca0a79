"""Lesson 11's exercises (``notebooks/11_profiling.ipynb``): the steps a schedule records, a label's time read from
a trace file, a training step with a labelled loss."""

from __future__ import annotations

import copy
import json
import math
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn

from lessons.exercises.core import Exercise, as_number, brief, call, declare, need_callable, register, wrong
from lessons.exercises.kinds import whole_number

register(Exercise(
    "11", 1, ("forward_calls",),
    whole_number("forward_calls", 3, {
        8: ("`forward_calls` counts every step; the schedule records only its active ones",
            "`forward_calls`把每一步都算上了；调度只记录处于active阶段的步骤"),
        6: ("`forward_calls` counts every step after the wait; warm-up steps are profiled but not kept",
            "`forward_calls`把等待之后的每一步都算上了；预热的步骤会被分析，但不会保留"),
        4: ("`forward_calls` counts the warm-up step too; it is profiled but not kept",
            "`forward_calls`把预热的那一步也算上了；它会被分析，但不会保留"),
        5: ("`forward_calls` counts the steps after the warm-up; with `repeat=1` the profiler stops after the "
            "active ones",
            "`forward_calls`把预热之后的步骤都算上了；`repeat=1`时，性能分析器在active阶段结束后就停止了"),
    }, ("`forward_calls` is {value}, which is not the calls `key_averages()` reports for `forward`",
        "`forward_calls`是{value}，与`key_averages()`为`forward`报告的调用次数不符")),
    hint_en="Section 2 (“Profiling with a schedule”) says which steps `wait`, `warmup` and `active` keep.",
    hint_zh="第2节（“用调度做性能分析”）讲了`wait`、`warmup`和`active`各保留哪些步骤。"))


def _trace(events: list[dict[str, Any]]) -> dict[str, Any]:
    """A trace file's contents as ``export_chrome_trace`` writes them: the events under ``traceEvents``."""
    return {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": events}


def _x(name: str, ts: float, dur: float) -> dict[str, Any]:
    return {"ph": "X", "cat": "user_annotation", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur}


LABEL_MS_CASES = [
    # (what the case holds, in English and Chinese, the events, the label asked for, its total milliseconds)
    ("two forward regions", "两个forward区域", [_x("forward", 0.0, 1500.0), _x("backward", 1500.0, 2000.0),
                             _x("forward", 4000.0, 500.5)], "forward", 2.0005),
    ("an operator whose name holds the label", "名字里包含这个标签的算子", [_x("backward", 0.0, 3000.0),
                                                _x("autograd::engine::backward", 10.0, 2000.0)], "backward", 3.0),
    ("a flow event of the same name, which has no duration", "同名但没有持续时间的流事件",
     [_x("load batch", 0.0, 250.0), {"ph": "s", "name": "load batch", "id": 1, "pid": 1, "tid": 1, "ts": 5.0},
      _x("load batch", 900.0, 750.0)], "load batch", 1.0),
    ("no event of that name", "没有这个名字的事件", [_x("forward", 0.0, 10.0)], "optimizer step", 0.0),
]
# BEGIN HIDDEN CASES
LABEL_MS_HIDDEN = [
    ("three loss regions", "三个loss区域", [{"ph": "X", "name": "loss", "ts": 0.0, "dur": 125.0},
                            {"ph": "X", "name": "loss", "ts": 200.0, "dur": 375.0},
                            {"ph": "X", "name": "loss", "ts": 900.0, "dur": 1000.0},
                            {"ph": "X", "name": "forward", "ts": 5.0, "dur": 7000.0}], "loss", 1.5),
    ("a longer name first", "排在前面的更长的名字", [{"ph": "X", "name": "forwards", "ts": 0.0, "dur": 4000.0},
                             {"ph": "X", "name": "forward", "ts": 10.0, "dur": 2500.0}], "forward", 2.5),
    ("an instant event", "瞬时事件", [{"ph": "X", "name": "step", "ts": 0.0, "dur": 8000.0},
                          {"ph": "i", "name": "step", "ts": 3.0, "s": "t"}], "step", 8.0),
]
# END HIDDEN CASES


@declare("11", 2, ("label_ms",), cases=LABEL_MS_CASES, hidden="LABEL_MS_HIDDEN",
         hint_en="Section 3 (“The trace, drawn”) reads the same file: `json.loads`, its `traceEvents`, and each "
                 "event's `ph`, `name` and `dur` (microseconds).",
         hint_zh="第3节（“把跟踪画出来”）读的是同一种文件：`json.loads`，其中的`traceEvents`，以及每个事件的`ph`、"
                 "`name`和`dur`（微秒）。")
def reads_a_labels_milliseconds_from_a_trace(label_ms: Callable[..., Any], cases: list[Any]) -> None:
    """``label_ms(trace, label)`` is the total milliseconds of the trace's complete events named ``label``."""
    need_callable(label_ms, "label_ms")
    with tempfile.TemporaryDirectory() as folder:
        for index, (what, what_zh, events, label, expected) in enumerate(cases):
            trace = Path(folder) / f"case{index}.json"
            trace.write_text(json.dumps(_trace(events)), encoding="utf-8")
            shown = f"label_ms(trace, {label!r})"
            got = call(shown, label_ms, trace, label)
            value = as_number(got)
            if value is None:
                raise wrong(f"on a trace with {what}, `{shown}` returned {brief(got)}; return a number of "
                            "milliseconds",
                            f"在含有{what_zh}的跟踪上，`{shown}`返回了{brief(got)}；应返回毫秒数")
            if expected and math.isclose(value, expected * 1000, rel_tol=1e-6):
                raise wrong(f"on a trace with {what}, `{shown}` returned microseconds, not milliseconds",
                            f"在含有{what_zh}的跟踪上，`{shown}`返回的是微秒，不是毫秒")
            if not math.isclose(value, expected, rel_tol=1e-6, abs_tol=1e-9):
                raise wrong(f"on a trace with {what}, `{shown}` returned {value:g}: not the total milliseconds "
                            f"of the complete events named exactly {label!r}",
                            f"在含有{what_zh}的跟踪上，`{shown}`返回了{value:g}：这不是名字恰好为{label!r}的"
                            "完整事件的总毫秒数")


STEP_LABELS = ("forward", "loss", "backward", "optimizer step")
"""The regions exercise 3's step must record, in this order, none inside another."""
STEP_CASES = {"seed": 0, "features": 5, "classes": 3, "batch": 8, "lr": 0.1}
# BEGIN HIDDEN CASES
STEP_HIDDEN = {"seed": 7, "features": 6, "classes": 4, "batch": 5, "lr": 0.05}
# END HIDDEN CASES


def _regions(step: Callable[..., Any], shown: str, *args: Any) -> list[tuple[str, float, float]]:
    """Run ``step(*args)`` under the profiler; return the regions named in ``STEP_LABELS`` as (name, start, end) in
    microseconds, in the order they started."""
    from torch.profiler import ProfilerActivity, profile

    from lessons.profiling import quiet_profiler

    with quiet_profiler(), profile(activities=[ProfilerActivity.CPU]) as prof:
        call(shown, step, *args)
    found = [(e.name, e.time_range.start, e.time_range.end) for e in prof.events() if e.name in STEP_LABELS]
    return sorted(found, key=lambda region: region[1])


@declare("11", 3, ("step_with_loss",), cases=STEP_CASES, hidden="STEP_HIDDEN",
         hint_en="Section 1 (“A training step, labelled”) shows `labelled_step`; compute the model's output in one "
                 "`record_function` block and the loss in the next.",
         hint_zh="第1节（“给训练步骤加上标签”）给出了`labelled_step`；在一个`record_function`代码块里算模型的输出，"
                 "在下一个代码块里算损失。")
def profiles_a_step_with_a_loss_region(step_with_loss: Callable[..., Any], cases: dict[str, Any]) -> None:
    """``step_with_loss(model, loss_fn, optimizer, inputs, targets)`` records the four regions of ``STEP_LABELS``
    once each, in order, none inside another, and takes one SGD step with fresh gradients (run twice)."""
    need_callable(step_with_loss, "step_with_loss")
    torch.manual_seed(cases["seed"])
    model = nn.Linear(cases["features"], cases["classes"])
    reference = copy.deepcopy(model)
    inputs = torch.randn(cases["batch"], cases["features"])
    targets = torch.randint(0, cases["classes"], (cases["batch"],))
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=cases["lr"])
    shown = "step_with_loss(model, loss_fn, optimizer, inputs, targets)"
    regions = _regions(step_with_loss, shown, model, loss_fn, optimizer, inputs, targets)
    names = [name for name, _, _ in regions]
    for label in STEP_LABELS:
        if names.count(label) != 1:
            raise wrong(f"`{shown}` recorded the region {label!r} {names.count(label)} times; record it once",
                        f"`{shown}`把区域{label!r}记录了{names.count(label)}次；应只记录一次")
    if names != list(STEP_LABELS):
        raise wrong(f"`{shown}` recorded its regions in the order {', '.join(names)}",
                    f"`{shown}`记录区域的顺序是{'、'.join(names)}")
    for (first, _, end), (second, start, _) in zip(regions, regions[1:], strict=False):
        if start < end:
            raise wrong(f"in `{shown}` the region {second!r} starts inside {first!r}; end one `with` block "
                        "before the next begins",
                        f"在`{shown}`中，区域{second!r}从{first!r}内部开始；应先结束一个`with`代码块，再开始下一个")
    call(shown, step_with_loss, model, loss_fn, optimizer, inputs, targets)  # a second step
    expected = torch.optim.SGD(reference.parameters(), lr=cases["lr"])
    for _ in range(2):
        expected.zero_grad()
        loss_fn(reference(inputs), targets).backward()
        expected.step()
    if not all(torch.allclose(a, b, atol=1e-6)
               for a, b in zip(model.parameters(), reference.parameters(), strict=True)):
        raise wrong(f"after two calls of `{shown}` the parameters are not those of two SGD steps, each with "
                    "fresh gradients",
                    f"调用两次`{shown}`之后，参数不等于两步SGD（每步都用新的梯度）得到的参数")
