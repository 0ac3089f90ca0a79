"""Lesson 07's exercises (``notebooks/07_dogs_vs_cats.ipynb``): the truncated files dropped, two losses'
gradients, a flatten size."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch

from lessons.exercises.core import (
    Exercise,
    as_number,
    as_sequence,
    brief,
    call,
    declare,
    need_callable,
    register,
    wrong,
)
from lessons.exercises.kinds import whole_number


@declare("07", 1, ("dropped",), context=("data", "pet_dir"),
         hint_en="Section 2 (“From two folders to one clean tensor”) says that JPEGs that end early are kept, and its "
                 "cleaning report counts them as truncated. `keep_truncated` is a parameter of "
                 "`petimages.load_or_build`; `help(petimages.load_photo)` says what it does.",
         hint_zh="第2节（“从两个文件夹到一个干净的张量”）说过，提前结束的JPEG会保留下来，清理报告把它们记作被截断。"
                 "`keep_truncated`是`petimages.load_or_build`的参数，`help(petimages.load_photo)`会说明它的作用。")
def lists_the_truncated_files_dropped(dropped: Any, data: dict[str, Any], pet_dir: Path) -> None:
    """``dropped`` names exactly the files the default build kept that ``keep_truncated=False`` drops."""
    from lessons import petimages

    listed = as_sequence(dropped) if not isinstance(dropped, set) else sorted(dropped)
    if listed is None or not all(isinstance(name, str) for name in listed):
        raise wrong(f"`dropped` is {brief(dropped)}; give the list of file names, e.g. ['Cat/1.jpg']",
                    f"`dropped`是{brief(dropped)}；请给出文件名列表，例如['Cat/1.jpg']")
    names = {name.replace("\\", "/") for name in listed}
    kept = set(data["files"])
    if outside := sorted(names - kept):
        raise wrong(f"`dropped` names {outside[:3]}, which the default build did not keep either",
                    f"`dropped`里的{outside[:3]}本来就没有被默认构建保留")
    for name in sorted(names):
        _, notes, _ = petimages.load_photo(Path(pet_dir) / name, size=8, keep_truncated=False)
        if notes.get("unreadable") != "truncated":
            raise wrong(f"`{name}` is not a truncated JPEG: keep_truncated=False keeps it",
                        f"`{name}`不是截断的JPEG：keep_truncated=False也会保留它")
    truncated = sum(counts.get("truncated", 0) for counts in data["counts"].values())
    if len(names) != truncated:
        raise wrong(f"`dropped` names {len(names)} files, not every file that keep_truncated=False drops",
                    f"`dropped`列出了{len(names)}个文件，不是keep_truncated=False丢掉的全部文件")


@contextlib.contextmanager
def _backward_runs() -> Iterator[list[int]]:
    """Count the operations that run inside a backward pass (``backward()`` or ``torch.autograd.grad``)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    count = [0]

    class Watch(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            if torch._C._current_graph_task_id() != -1:
                count[0] += 1
            return func(*args, **(kwargs or {}))

    with Watch():
        yield count


GRADIENTS_CASES = [0.5, 0.1, 0.01, 0.9]  # the probabilities p
# BEGIN HIDDEN CASES
GRADIENTS_HIDDEN = [0.3, 0.77, 0.05]
# END HIDDEN CASES


@declare("07", 2, ("gradients",), cases=GRADIENTS_CASES, hidden="GRADIENTS_HIDDEN",
         hint_en="Section 5 (“Why cross-entropy, not softmax + MSE”) and Going deeper's “How hard each loss pushes” "
                 "do it for two classes.",
         hint_zh="第5节（“为什么用交叉熵，而不是softmax + MSE”）和“进阶”部分的“两种损失各自推动得有多用力”"
                 "做的是两个类别的情况。")
def gives_autograds_gradients_of_both_losses(gradients: Callable[[float], Any], cases: list[float]) -> None:
    """``gradients(p)`` is the gradient autograd computes of cross-entropy and of softmax + MSE, for each p."""
    need_callable(gradients, "gradients")
    for p in cases:
        shown = f"gradients({p})"
        with _backward_runs() as ran:
            got = call(shown, gradients, p)
        pair = as_sequence(got)
        if pair is None or len(pair) != 2 or any(as_number(v) is None for v in pair):
            raise wrong(f"`{shown}` returned {brief(got)}; return two numbers (cross-entropy's, softmax + MSE's)",
                        f"`{shown}`返回了{brief(got)}；应返回两个数（交叉熵的，softmax + MSE的）")
        if not ran[0]:
            raise wrong(f"`{shown}` ran no backward pass: the exercise asks for the gradients autograd computes, "
                        "not a formula's",
                        f"`{shown}`没有运行反向传播：练习要的是自动微分算出的梯度，不是公式算出的")
        ce, mse = (as_number(v) for v in pair)
        if abs(ce - (p - 1)) > 1e-4:
            extra = (": is the correct class the third one?", "：正确类别是第三个吗？") if abs(ce + p / 2) < 1e-4 else (
                "", "")
            raise wrong(f"`{shown}` gives {ce:+.4f} for cross-entropy, which is not p − 1{extra[0]}",
                        f"`{shown}`给出的交叉熵梯度是{ce:+.4f}，不等于p − 1{extra[1]}")
        expected = -p * (1 - p) ** 2
        if abs(mse - expected) > 1e-4:
            extra = ("; F.mse_loss averages over the 3 outputs", "；F.mse_loss对3个输出取平均") \
                if abs(mse - 3 * expected) < 1e-4 else ("", "")
            raise wrong(f"`{shown}` gives {mse:+.4f} for softmax + MSE, which is not −p(1 − p)²{extra[0]}",
                        f"`{shown}`给出的softmax + MSE梯度是{mse:+.4f}，不等于−p(1 − p)²{extra[1]}")


register(Exercise(
    "07", 3, ("flatten_size",),
    whole_number("flatten_size", 2048, {
        128 * 2 * 2: ("`flatten_size` is 512: a linear layer's out_features, and what 50x50 images flatten to "
                      "(128 x 2 x 2), but neither is what `Net(size=64)` flattens: compute that",
                      "`flatten_size`是512：它是一个全连接层的out_features，也是50x50图像展平后的大小（128 x 2 x 2），"
                      "但都不是`Net(size=64)`展平后的大小：请把它算出来"),
    }, ("`flatten_size` is {value}: not the flatten size that `Net(size=64)` computes",
        "`flatten_size`是{value}：这不是`Net(size=64)`算出的展平大小")),
    hint_en="Section 4 (“The network, with its flatten size computed”).",
    hint_zh="第4节（“网络：自己算出展平后的大小”）。"))
