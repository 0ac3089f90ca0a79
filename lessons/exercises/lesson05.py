"""Lesson 05's exercises (``notebooks/05_save_load.ipynb``): a resumed run with a fresh optimizer, bytes and file
sizes, keeping the best checkpoint."""

from __future__ import annotations

import contextlib
import copy
import io
import math
import os
import random
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import torch
from torch import nn
from torch.optim.optimizer import register_optimizer_step_post_hook

from lessons.exercises.core import (
    NotAnswered,
    as_number,
    brief,
    call,
    declare,
    listed,
    need_callable,
    need_number,
    wrong,
)
from lessons.exercises.kinds import whole_number


def _state_on_cpu(model: nn.Module) -> dict[str, torch.Tensor]:
    """``model``'s state_dict in float64 on the CPU (moved first: MPS has no float64), where a difference of two
    float32 values is within 2**-53 of the exact one (a student's float32 subtraction, within 2**-24)."""
    return {k: v.detach().cpu().to(torch.float64) for k, v in model.state_dict().items()}


def _largest_difference(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> float:
    return max(((a[k] - b[k]).abs().max().item() if a[k].numel() else 0.0) for k in a)


SAME_RUN = 1e-3
"""Below this largest difference, two runs of 05's Section 4 are the same run: on a GPU whose kernels add in an order
that varies, a resumed run with every state restored ends within about 1e-5 of the uninterrupted one (the notebook's
`assert_close`); a run with a fresh optimizer ended 0.082 to 0.315 away in 18 runs on the CPU (quick and full mode,
seeds 0-11 and 0-5: other dropout masks, as another device's generator draws; benchmarks/RESULTS.md)."""


@contextlib.contextmanager
def _optimizer_steps() -> Iterator[list[int]]:
    """Count the steps every optimizer takes meanwhile (PyTorch's global step hook: any optimizer, any loop)."""
    steps: list[int] = []
    handle = register_optimizer_step_post_hook(lambda *args: steps.append(1))
    try:
        yield steps
    finally:
        handle.remove()


def _variant(checkpoint: dict[str, Any], seed: int, what: str) -> dict[str, Any]:
    """A copy of a checkpoint of 05's Section 4 with another random state (``what="rng"``: the CPU's and Python's)
    or another optimizer state (``"optimizer"``: every momentum buffer doubled)."""
    changed = copy.deepcopy(checkpoint)
    if what == "rng":
        changed["rng"]["cpu"] = torch.Generator().manual_seed(seed).get_state()
        changed["rng"]["python"] = random.Random(seed).getstate()
    else:
        for state in changed["optimizer"]["state"].values():
            state["momentum_buffer"] = 2 * state["momentum_buffer"] + 1
    return changed


FRESH_CASES = {"seed": 7}  # the seed of the other random state, and of the generators before each call
# BEGIN HIDDEN CASES
FRESH_HIDDEN = {"seed": 11}
# END HIDDEN CASES


@declare("05", 1, ("resume_fresh", "largest_difference"), context=("uninterrupted", "checkpoint", "epochs", "batches"),
         cases=FRESH_CASES, hidden="FRESH_HIDDEN",
         hint_en="Section 4 (“Training checkpoints”) resumes with the optimizer's state: do the same without it, "
                 "then compare the two `state_dict`s tensor by tensor.",
         hint_zh="第4节（“训练检查点”）恢复训练时加载了优化器的状态：不加载它，再做一遍，然后逐个张量比较两个`state_dict`。",
         explain_en="Why is (or isn't) the result identical?", explain_zh="为什么结果相同（或不同）？")
def resumes_with_a_fresh_optimizer(resume_fresh: Callable[[Path], Any], largest_difference: Any,
                                   uninterrupted: nn.Module, checkpoint: Path, epochs: int, batches: int,
                                   cases: dict[str, Any]) -> None:
    """``resume_fresh(path)`` resumes Section 4's run from ``path`` with a fresh optimizer, the model and the random
    state restored, and trains it to ``epochs``: it runs one epoch of ``batches`` steps per epoch left, its result
    follows the checkpoint's random state and ignores its optimizer state. ``largest_difference`` is its largest
    difference from the uninterrupted run, unrounded or as printed to 4 decimals."""
    need_callable(resume_fresh, "resume_fresh")
    stored = torch.load(checkpoint, map_location="cpu", weights_only=True)
    seed = cases["seed"]
    runs = {}
    python_state = random.getstate()  # core.result restores PyTorch's and NumPy's generators; this is Python's
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as undo:
        undo.callback(random.setstate, python_state)
        for what in ("same", "rng", "optimizer"):
            path = Path(folder) / f"{what}_{checkpoint.name}"
            torch.save(stored if what == "same" else _variant(stored, seed, what), path)
            torch.manual_seed(seed)  # the same generators before each call: only the file differs
            random.seed(seed)
            with _optimizer_steps() as steps:
                model = call(f"resume_fresh({checkpoint.name!r})", resume_fresh, path)
            if not isinstance(model, nn.Module):
                raise wrong(f"`resume_fresh({checkpoint.name!r})` returned {brief(model)}, not a model: return the "
                            "model you resumed",
                            f"`resume_fresh({checkpoint.name!r})`返回了{brief(model)}，不是模型：请返回你恢复训练的模型")
            runs[what] = (_state_on_cpu(model), len(steps))
    shown = f"resume_fresh({checkpoint.name!r})"
    mine, steps = runs["same"]
    reference = _state_on_cpu(uninterrupted)
    if mine.keys() != reference.keys() or any(mine[k].shape != reference[k].shape for k in mine):
        raise wrong(f"`{shown}` returned a model that `make_model()` does not build: its state_dict has other tensors",
                    f"`{shown}`返回的模型不是`make_model()`构建的那种：它的state_dict里是别的张量")
    if _largest_difference(mine, {k: v.to(torch.float64) for k, v in stored["model"].items()}) == 0:
        raise wrong(f"`{shown}` returned the checkpoint's weights: train the model on to the last epoch",
                    f"`{shown}`返回的是检查点里的权重：请接着把模型训练到最后一轮")
    left = epochs - stored["epoch"]
    if steps != left * batches:
        raise wrong(f"`{shown}` took {steps} optimizer steps: not one epoch of {batches} steps for each epoch after "
                    f"the checkpoint's, up to `EPOCHS`",
                    f"`{shown}`让优化器走了{steps}步：不是从检查点那一轮之后到`EPOCHS`为止、每轮{batches}步")
    if _largest_difference(mine, runs["optimizer"][0]) >= SAME_RUN:
        raise wrong(f"what `{shown}` returns changes with the optimizer state saved in the file: it loads that "
                    "state; build the optimizer fresh instead",
                    f"`{shown}`的结果随文件里保存的优化器状态而变：它加载了这个状态；请改为新建优化器")
    if _largest_difference(mine, runs["rng"][0]) < SAME_RUN:
        raise wrong(f"what `{shown}` returns does not change with the random state saved in the file: it does not "
                    "restore that state",
                    f"`{shown}`的结果不随文件里保存的随机状态而变：它没有恢复这个状态")
    number = need_number("largest_difference", largest_difference)
    real = _largest_difference(mine, reference)
    if not abs(number - real) <= 1e-5 * real + 5e-5:  # a float32 subtraction, or the value printed with {:.4f}
        raise wrong(f"`largest_difference` is {number:.6g}, which is not the largest absolute difference between a "
                    f"value of the `state_dict` of `{shown}`'s model and the same value of "
                    "`uninterrupted.state_dict()`",
                    f"`largest_difference`是{number:.6g}，这不是`{shown}`返回的模型的`state_dict`与"
                    "`uninterrupted.state_dict()`对应数值之差的绝对值的最大值")


MLP_PARAMETER_BYTES, MLP_PARAMETER_VALUES = 31_784, 7_946
"""Bytes and values of the parameters of 05's `MLP` in float32 (held, not computed: a check holds no solution)."""


_param_bytes = whole_number("param_bytes", MLP_PARAMETER_BYTES, {
    MLP_PARAMETER_VALUES: ("`param_bytes` is {value:,}: that is a number of values; count bytes (`nbytes`)",
                           "`param_bytes`是{value:,}：这是数值的个数；请数字节（`nbytes`）"),
}, ("`param_bytes` is {value:,}: not the bytes of the parameters of the float32 `MLP` after `load_state_dict` of "
    "the float16 file",
    "`param_bytes`是{value:,}：这不是float32 `MLP`加载float16文件之后其参数的字节数"))


@declare("05", 2, ("param_bytes", "size_ratio"),
         hint_en="Section 2 (“A model's `state_dict`”) saves and loads one; a tensor's bytes are `nbytes`, a file's "
                 "size is `Path.stat().st_size`.",
         hint_zh="第2节（“模型的`state_dict`”）保存并加载了它；张量的字节数是`nbytes`，文件大小是`Path.stat().st_size`。")
def measures_parameter_bytes_and_file_sizes(param_bytes: Any, size_ratio: Any) -> None:
    """``param_bytes``: the float32 MLP's parameter bytes after loading the float16 file; ``size_ratio``: the float16
    file's size over the float32 file's."""
    _param_bytes(param_bytes)
    ratio = need_number("size_ratio", size_ratio)
    # Not exact: the files hold the tensors' data and zip records named after the file (its stem), so the ratio
    # depends on the names (benchmarks/RESULTS.md): 0.538 for the notebook's mlp.params and mlp_half.params with
    # PyTorch 2.15, 0.563 for a float16 file of a 60-character name, 0.515 for a float32 file of a 40-character name
    # and a float16 file of a 1-character one; the data alone would give 0.5.
    if not 0.51 <= ratio <= 0.62:
        raise wrong(f"`size_ratio` is {ratio:.3g}: not what the float16 file's size divided by the float32 file's "
                    "measures (`Path.stat().st_size`)",
                    f"`size_ratio`是{ratio:.3g}：这不是测得的float16文件大小除以float32文件大小"
                    "（`Path.stat().st_size`）")


class _Crash(BaseException):
    """A crash in the middle of writing a file (a BaseException, as KeyboardInterrupt is: no `except Exception`
    catches it)."""


def _crashing_save(real_save: Callable[..., Any]) -> Callable[..., Any]:
    """``torch.save`` that writes half of the file, then crashes."""

    def save(obj: Any, f: Any, *args: Any, **kwargs: Any) -> None:
        buffer = io.BytesIO()
        real_save(obj, buffer, *args, **kwargs)
        half = buffer.getvalue()[: len(buffer.getvalue()) // 2]
        if isinstance(f, (str, os.PathLike)):
            Path(f).write_bytes(half)
        else:
            f.write(half)
        raise _Crash

    return save


KEEP_BEST_CASES = {  # the seed the four models are made after; steps of (model, score, best before, best after,
    "seed": 0,  # the model whose weights the file then holds)
    "steps": [(0, 0.6, -math.inf, 0.6, 0), (1, 0.5, 0.6, 0.6, 0), (2, 0.6, 0.6, 0.6, 0), (2, 0.7, 0.6, 0.7, 2)],
}
# BEGIN HIDDEN CASES
KEEP_BEST_HIDDEN = {
    "seed": 1,
    "steps": [(1, -2.0, -3.0, -2.0, 1), (0, -2.5, -2.0, -2.0, 1), (3, 0.25, -2.0, 0.25, 3), (2, 0.25, 0.25, 0.25, 3)],
}
# END HIDDEN CASES


@declare("05", 3, ("keep_best",), cases=KEEP_BEST_CASES, hidden="KEEP_BEST_HIDDEN",
         hint_en="Going deeper's “Writing checkpoints atomically”. A tie does not beat the best score.",
         hint_zh="“进阶”部分的“原子化地写入检查点”。分数持平不算超过最佳分数。")
def keeps_the_best_checkpoint_atomically(keep_best: Callable[..., Any], cases: dict[str, Any]) -> None:
    """``keep_best`` returns the best score so far and leaves its model's state_dict at best_path, alone, even when
    a save crashes half-way."""
    need_callable(keep_best, "keep_best")
    torch.manual_seed(cases["seed"])
    models = [nn.Linear(2, 2) for _ in range(4)]

    def on_disk(path: Path, shown: str) -> dict[str, torch.Tensor]:
        try:
            return torch.load(path, weights_only=True)
        except Exception as error:
            raise wrong(f"after `{shown}` the file at best_path does not load with `torch.load` "
                        f"({type(error).__name__}): save `model.state_dict()`",
                        f"`{shown}`之后，best_path处的文件无法用`torch.load`加载（{type(error).__name__}）："
                        "请保存`model.state_dict()`") from error

    steps = cases["steps"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "best.params"
        for index, score, best, new_best, holder in steps:
            shown = f"keep_best(model, {score}, best_path, {best})"
            got = call(shown, keep_best, models[index], score, path, best)
            if as_number(got) != new_best:
                raise wrong(f"`{shown}` returned {brief(got)}, which is not the best score so far",
                            f"`{shown}`返回了{brief(got)}，这不是目前为止的最佳分数")
            if not path.is_file():
                raise wrong(f"after `{shown}` there is no file at best_path", f"`{shown}`之后best_path处没有文件")
            state = on_disk(path, shown)
            if not isinstance(state, dict) or not torch.equal(state.get("weight", torch.empty(0)),
                                                              models[holder].weight):
                raise wrong(f"after `{shown}` the file does not hold the weights of the best model so far",
                            f"`{shown}`之后，文件里不是目前为止最好的模型的权重")
            if left := sorted(p.name for p in Path(folder).iterdir() if p != path):
                raise wrong(f"after `{shown}`, {left} are left beside best_path",
                            f"`{shown}`之后，best_path旁边还留着{listed(left)}")
        shown = f"keep_best(model, {new_best + 1}, best_path, {new_best})"
        with mock.patch.object(torch, "save", _crashing_save(torch.save)):
            try:
                keep_best(models[3 - holder], new_best + 1, path, new_best)
            except _Crash:
                pass
            except NotImplementedError as error:
                raise NotAnswered from error
        kept = on_disk(path, f"a crash in the middle of `{shown}`")  # a crash mid-save must not break the best file
        if not torch.equal(kept.get("weight", torch.empty(0)), models[holder].weight):
            raise wrong(f"after a crash in the middle of `{shown}`, the file does not hold the previous best "
                        "weights any more", f"`{shown}`写到一半崩溃之后，文件里已经不是之前最好的权重了")
