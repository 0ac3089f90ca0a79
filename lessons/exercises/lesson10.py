"""Lesson 10's exercises (``notebooks/10_gpu_memory.ipynb``): activation bytes per image, checkpointing's share,
Adam's largest batch."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

import utils
from lessons.exercises.core import call, declare, need_callable, need_number, wrong

POOLED = [(32, 16, 16), (32, 8, 8), (64, 4, 4)]
"""The shapes of ``cifar10.cnn()``'s max-pool outputs for one image, whose int64 indices are saved for backward."""
SAVED_PER_IMAGE, SAVED_PER_BATCH = 315_688, 4
"""Bytes that ``cifar10.cnn()`` and its cross-entropy save for backward per 3x32x32 image (lesson 10,
sections 2 and 3), and per batch whatever its size."""
_INDICES = sum(8 * math.prod(shape) for shape in POOLED)

def network(widths: list[int]) -> nn.Sequential:
    """``cifar10.cnn()`` with ``widths`` output channels for its three convolutions (``[32, 32, 64]`` is the
    lesson's network)."""
    first, second, third = widths
    return nn.Sequential(
        nn.Conv2d(3, first, kernel_size=5, padding=2), nn.MaxPool2d(2),
        nn.Conv2d(first, second, kernel_size=5, padding=2), nn.MaxPool2d(2),
        nn.Conv2d(second, third, kernel_size=5, padding=2), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(third * 4 * 4, 64), nn.Linear(64, 10))


@functools.cache
def measured_per_image(widths: tuple[int, ...]) -> int:
    """The bytes that ``network(widths)`` and its cross-entropy save for backward per 3x32x32 image, measured: one
    image more in the batch (a batch of 3 against one of 2)."""
    from lessons import memory

    model = network(widths)
    saved_at = []
    for size in (2, 3):
        x, y = torch.randn(size, 3, 32, 32), torch.randint(0, 10, (size,))
        with memory.saved_tensors([*model.parameters(), x, y]) as saved:
            nn.functional.cross_entropy(model(x), y)
        saved_at.append(memory.saved_bytes(saved))
    return saved_at[1] - saved_at[0]


PER_IMAGE_CASES = [[32, 32, 64], [16, 32, 32]]  # the widths of the networks
# BEGIN HIDDEN CASES
PER_IMAGE_HIDDEN = [[8, 16, 16], [64, 32, 16]]
# END HIDDEN CASES


@declare("10", 1, ("saved_per_image",), cases=PER_IMAGE_CASES, hidden="PER_IMAGE_HIDDEN",
         hint_en="Section 2 (“Activations saved for backward”) lists what each layer saves.",
         hint_zh="第2节（“为反向传播保存的激活值”）列出了每层保存的张量。")
def predicts_the_bytes_saved_per_image(saved_per_image: Callable[[list[int]], Any], cases: list[list[int]]) -> None:
    """``saved_per_image(widths)`` is the bytes ``network(widths)`` saves for backward per image, for each case."""
    need_callable(saved_per_image, "saved_per_image")
    for widths in cases:
        shown = f"saved_per_image({widths})"
        value = need_number(shown, call(shown, saved_per_image, list(widths)), whole=True)
        truth = measured_per_image(tuple(widths))
        sizes = [32, 16, 8]
        indices = sum(8 * c * (s // 2) ** 2 for c, s in zip(widths, sizes, strict=True))
        if value == truth:
            continue
        given = int(value)
        if given == truth - indices:
            raise wrong(f"`{shown}` leaves out the max-pools' int64 indices",
                        f"`{shown}`漏掉了最大池化层保存的int64下标")
        if given == truth - indices // 2:
            raise wrong(f"`{shown}` counts the max-pools' indices at 4 bytes; they are int64",
                        f"`{shown}`把最大池化层的下标按4字节算了；它们是int64")
        if given == truth - 4 * 64 - 4 * 10:
            raise wrong(f"`{shown}` leaves out the linear layers' outputs", f"`{shown}`漏掉了全连接层的输出")
        raise wrong(f"`{shown}` is {given:,}, which is not what the network with these widths saves per image: list "
                    "what each layer saves again (section 2)",
                    f"`{shown}`是{given:,}，与这些宽度的网络每张图像保存的字节数不符：请再列一遍每层保存了什么（第2节）")


@functools.cache
def measured_share(device: torch.device, batch: int = 2) -> float:
    """The bytes checkpointing the first of ``cifar10.cnn()``'s four blocks saves over those checkpointing all four
    saves, measured on ``device`` as lesson 10's section 4 measures them (autograd's saved storages, each once)."""
    from torch.utils.checkpoint import checkpoint

    from lessons import cifar10, memory

    torch.manual_seed(0)
    model = cifar10.cnn().to(device)
    blocks = [model[0:2], model[2:4], model[4:6], model[6:]]
    x = torch.randn(batch, 3, 32, 32, device=device)
    y = torch.randint(0, 10, (batch,), device=device)

    def saved(checkpointed: int) -> int:
        with memory.saved_tensors([*model.parameters(), x, y]) as found:
            out = x
            for index, block in enumerate(blocks):
                out = checkpoint(block, out, use_reentrant=False) if index < checkpointed else block(out)
            nn.functional.cross_entropy(out, y)
        return memory.saved_bytes(found)

    plain, first, every = saved(0), saved(1), saved(4)
    return (plain - first) / (plain - every)


@declare("10", 2, ("share",),
         hint_en="Section 4 (“When it runs out: four ways to need less”) checkpoints blocks and counts the saved "
                 "bytes.",
         hint_zh="第4节（“内存不够时：四种少用内存的办法”）对块做了检查点，并统计了保存的字节数。")
def measures_the_share_one_checkpointed_block_saves(share: Any) -> None:
    """``share``: the bytes checkpointing the first block saves over those checkpointing all four saves, measured
    on this device (exact: the saved storages' sizes; up to the rounding of the printed MiB)."""
    value = need_number("share", share)
    if 1 < value <= 100:
        raise wrong("`share` is a percentage; give a fraction between 0 and 1",
                    "`share`是百分数；请给出0到1之间的比例")
    device = utils.get_device()
    if not math.isclose(value, measured_share(device), rel_tol=2e-3):  # 19.27 MiB and the like: within 0.1%
        raise wrong(f"`share` is {value:.4g}: not the bytes checkpointing the first block saves, divided by the "
                    f"bytes checkpointing all four saves, as measured on {device.type}",
                    f"`share`是{value:.4g}：这不是在{device.type}上测得的、只检查点第一块省下的字节数除以检查点全部四块省下的字节数")


EXERCISE_BUDGET = (5, 4)
"""The exercise's budget is section 5's times 5/4: there, on a CPU (quick and full mode), Adam's largest batch is
two less than SGD's, so "one less than SGD's" is no guess that passes."""


@declare("10", 3, ("sgd_largest", "adam_largest"), context=("budget",),
         hint_en="Section 5 (“Recovering from an out-of-memory error”) searches with SGD; Going deeper's “Optimizer "
                 "state, counted”.",
         hint_zh="第5节（“从显存不足错误中恢复”）用SGD做了搜索；再看“进阶”部分的“统计优化器状态”。",
         explain_en="Why does the largest batch change (or not)?", explain_zh="最大批量为什么变了（或没变）？")
def finds_the_largest_batch_beside_adams_state(sgd_largest: Any, adam_largest: Any, budget: int) -> None:
    """``sgd_largest`` and ``adam_largest``: the largest batches whose step fits ``budget`` with SGD and momentum and
    with Adam, both searched from one allocator state (exact in the CPU's simulation; on a GPU, Adam's at most SGD's
    and not far below it)."""
    sgd = need_number("sgd_largest", sgd_largest, whole=True)
    adam = need_number("adam_largest", adam_largest, whole=True)
    for name, value in (("sgd_largest", sgd), ("adam_largest", adam)):
        if value <= 0:
            raise wrong(f"`{name}` is {value:.0f}; give the largest batch size that fits",
                        f"`{name}`是{value:.0f}；请给出能放下的最大批量大小")
    if torch.cuda.is_available():  # a real GPU: its caching allocator rounds blocks up, so a margin (not run yet)
        if adam > 1.05 * sgd:
            raise wrong(f"`adam_largest` is {adam:.0f}, above `sgd_largest`, {sgd:.0f}: Adam's state needs more "
                        "memory, so run both searches from the same state (each in its own `memory.gpu_budget`, a "
                        "fresh optimizer, no gradients left)",
                        f"`adam_largest`是{adam:.0f}，比`sgd_largest`的{sgd:.0f}还大：Adam的状态需要更多内存，"
                        "所以两次搜索要从同一个状态开始（各自放在自己的`memory.gpu_budget`里，新建优化器，不留梯度）")
        if adam < 0.5 * sgd:
            raise wrong(f"`adam_largest` is {adam:.0f}, far below `sgd_largest`, {sgd:.0f}, for a model this small",
                        f"`adam_largest`是{adam:.0f}，对这么小的模型来说，比`sgd_largest`的{sgd:.0f}小太多")
        return
    from lessons import cifar10

    params = sum(p.numel() * p.element_size() for p in cifar10.cnn().parameters())
    if sgd != (budget - 2 * params - SAVED_PER_BATCH) // SAVED_PER_IMAGE:  # the simulation on a CPU is exact
        raise wrong(f"`sgd_largest` is {sgd:.0f}: not the largest batch whose saved activations fit `budget` beside "
                    "SGD's gradients and momentum (search again under the exercise's budget)",
                    f"`sgd_largest`是{sgd:.0f}：这不是在SGD的梯度和动量之外、保存的激活值还能放进`budget`的最大批量"
                    "（请在练习的预算下重新搜索）")
    if adam != (budget - 3 * params - SAVED_PER_BATCH) // SAVED_PER_IMAGE:
        raise wrong(f"`adam_largest` is {adam:.0f}: not the largest batch whose saved activations fit `budget` beside "
                    "Adam's gradients and state",
                    f"`adam_largest`是{adam:.0f}：这不是在Adam的梯度和状态之外、保存的激活值还能放进`budget`的最大批量")
