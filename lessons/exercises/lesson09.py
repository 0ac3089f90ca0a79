"""Lesson 09's exercises (``notebooks/09_gpu_speed.ipynb``): timing in milliseconds, a rate per batch size, the
forward passes in a training step."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import torch

import utils
from lessons.exercises.core import (
    as_number,
    as_whole,
    brief,
    call,
    declare,
    need_callable,
    need_number,
    wrong,
)


@contextlib.contextmanager
def cuda_events_used() -> Iterator[list[str]]:
    """Record the calls of ``torch.cuda.Event``'s ``record`` and ``elapsed_time`` (the real ones run)."""
    calls: list[str] = []
    event = torch.cuda.Event

    def spy(name: str) -> Callable[..., Any]:
        real = getattr(event, name)

        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real(self, *args, **kwargs)

        return method

    with mock.patch.object(event, "record", spy("record")), mock.patch.object(event, "elapsed_time",
                                                                              spy("elapsed_time")):
        yield calls


TIME_MS_CASES = {"sleep": 0.02}  # the seconds the timed function sleeps
# BEGIN HIDDEN CASES
TIME_MS_HIDDEN = {"sleep": 0.035}
# END HIDDEN CASES


@declare("09", 1, ("time_ms",), cases=TIME_MS_CASES, hidden="TIME_MS_HIDDEN",
         hint_en="Section 1 (“A GPU works in the background”) says what a clock must wait for; `time_runs` gives "
                 "seconds.",
         hint_zh="第1节（“GPU在后台工作”）讲了计时要等什么；`time_runs`给出的是秒。")
def times_in_milliseconds_with_cuda_events(time_ms: Callable[..., Any], cases: dict[str, Any]) -> None:
    """``time_ms(fn, device)`` is the milliseconds ``fn`` takes, timed with CUDA events on a CUDA device."""
    need_callable(time_ms, "time_ms")
    device = utils.get_device()
    sleep = cases["sleep"]
    shown = f"time_ms(lambda: time.sleep({sleep}), device)"
    with cuda_events_used() as calls:
        got = call(shown, time_ms, lambda: time.sleep(sleep), device)
    value = as_number(got)
    if value is None:
        raise wrong(f"`{shown}` returned {brief(got)}; return a number of milliseconds",
                    f"`{shown}`返回了{brief(got)}；应返回毫秒数")
    if device.type == "cuda" and not {"record", "elapsed_time"} <= set(calls):
        raise wrong(f"on {device}, `{shown}` did not time with CUDA events",
                    f"在{device}上，`{shown}`没有用CUDA事件计时")
    if 0.75 * sleep <= value <= 2:
        raise wrong(f"`{shown}` returned {value:.3f}: seconds, not milliseconds",
                    f"`{shown}`返回了{value:.3f}：这是秒，不是毫秒")
    if not 750 * sleep <= value <= 2500 * sleep + 10:  # at least the sleep; a loaded machine adds a little
        raise wrong(f"`{shown}` returned {value:.3f}, which is not the milliseconds a {sleep * 1e3:.0f} ms sleep "
                    "takes",
                    f"`{shown}`返回了{value:.3f}，这不是睡眠{sleep * 1e3:.0f}毫秒所用的毫秒数")


RATE_CASES = {"sleep": 0.01, "batch_sizes": [16, 64]}  # a step that sleeps this long, the batch sizes it stands for
# BEGIN HIDDEN CASES
RATE_HIDDEN = {"sleep": 0.015, "batch_sizes": [8, 128]}
# END HIDDEN CASES


@declare("09", 2, ("images_per_second",), cases=RATE_CASES, hidden="RATE_HIDDEN",
         hint_en="Section 4 (“The ladder: one change at a time, timed in interleaved rounds”) times training steps.",
         hint_zh="第4节（“提速阶梯：一次只改一处，分回合交错计时”）给训练步计了时。",
         explain_en="Where does the curve flatten on your device, and why?",
         explain_zh="在你的设备上曲线从哪里开始变平？为什么？")
def measures_images_per_second(images_per_second: Callable[..., Any], cases: dict[str, Any]) -> None:
    """``images_per_second(run_step, batch_size, device)`` is the images per second that ``run_step()``, one step on
    a batch of ``batch_size`` images, trains: checked on a step that sleeps a known time."""
    need_callable(images_per_second, "images_per_second")
    device, sleep = utils.get_device(), cases["sleep"]
    for size in cases["batch_sizes"]:
        shown = f"images_per_second(lambda: time.sleep({sleep}), {size}, device)"
        got = call(shown, images_per_second, lambda: time.sleep(sleep), size, device)
        value = as_number(got)
        if value is None:
            raise wrong(f"`{shown}` returned {brief(got)}; return a number of images per second",
                        f"`{shown}`返回了{brief(got)}；应返回每秒图像数")
        # a step takes at least its sleep; a loaded machine adds a little: a margin below, none above
        if 0.3 / sleep <= value <= 1.02 / sleep:
            raise wrong(f"`{shown}` returned {value:.4g}: steps per second, not images per second",
                        f"`{shown}`返回了{value:.4g}：这是每秒步数，不是每秒图像数")
        if 750 * sleep <= value <= 3000 * sleep + 10:
            raise wrong(f"`{shown}` returned {value:.4g}: milliseconds per step, not images per second",
                        f"`{shown}`返回了{value:.4g}：这是每步的毫秒数，不是每秒图像数")
        if not 0.3 * size / sleep <= value <= 1.02 * size / sleep:
            raise wrong(f"`{shown}` returned {value:.4g}, which is not the images per second of a step that "
                        f"sleeps {sleep * 1e3:.0f} ms on a batch of {size}",
                        f"`{shown}`返回了{value:.4g}，这不是每步睡眠{sleep * 1e3:.0f}毫秒、批量为{size}时的每秒图像数")


STEP_FLOPS, FORWARD_FLOPS, STEP_WITH_IMAGE_GRAD_FLOPS = 138_419_712, 49_416_704, 148_250_112
"""FlopCounterMode's counts for lesson 09's ``probe`` (``cifar10.cnn()``) on a batch of 2: a training step,
the forward pass alone, and a step with images that require a gradient (tests/test_exercises.py recounts them)."""


@declare("09", 3, ("forwards_per_step", "forwards_with_image_grad", "no_grad_layer"),
         hint_en="Section 3 (“Count the work”) counts a training step's FLOPs.",
         hint_zh="第3节（“数一数工作量”）统计了训练一步的FLOP。",
         explain_en="Why is a training step a little under three forward passes?",
         explain_zh="为什么训练一步略少于三次前向传播？")
def counts_forward_passes_in_a_training_step(forwards_per_step: Any, forwards_with_image_grad: Any,
                                             no_grad_layer: Any) -> None:
    """The FLOP counts' ratios of a step to a forward pass, without and with images that need a gradient, and the
    layer whose input needs no gradient."""
    per_step = need_number("forwards_per_step", forwards_per_step)
    with_grad = need_number("forwards_with_image_grad", forwards_with_image_grad)
    if per_step == 3:
        raise wrong("`forwards_per_step` is exactly 3, the rule of thumb; the exercise asks what the counts give",
                    "`forwards_per_step`正好是3，这是经验法则；练习问的是计数算出来的结果")
    # FLOP counts are exact, the same on every device: a ratio computed from them is exact too
    if not math.isclose(per_step, STEP_FLOPS / FORWARD_FLOPS, rel_tol=1e-6):
        raise wrong(f"`forwards_per_step` is {per_step}: not a training step's FLOPs divided by the forward pass's, "
                    "both counted for the same batch",
                    f"`forwards_per_step`是{per_step}：这不是同一个批量上训练一步的FLOP除以前向传播的FLOP")
    if not math.isclose(with_grad, STEP_WITH_IMAGE_GRAD_FLOPS / FORWARD_FLOPS, rel_tol=1e-6):
        raise wrong(f"`forwards_with_image_grad` is {with_grad}: not what the count gives with images that require a "
                    "gradient",
                    f"`forwards_with_image_grad`是{with_grad}：这不是图像需要梯度时计数得到的结果")
    if isinstance(no_grad_layer, torch.nn.Module):
        raise wrong(f"`no_grad_layer` is the layer {brief(no_grad_layer)}; give its index in `probe`, a whole number",
                    f"`no_grad_layer`是层{brief(no_grad_layer)}；请给出它在`probe`中的下标，一个整数")
    if as_whole(no_grad_layer) != 0:
        raise wrong(f"`no_grad_layer` is {brief(no_grad_layer)}: that layer's input needs a gradient in a training "
                    "step",
                    f"`no_grad_layer`是{brief(no_grad_layer)}：训练一步时，这一层的输入是需要梯度的")
