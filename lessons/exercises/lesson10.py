"""Lesson 10's exercises (``notebooks/10_gpu_memory.ipynb``): activation bytes per image, checkpointing's share,
Adam's largest batch."""

from __future__ import annotations

import math
from typing import Any

import torch

from lessons.exercises.core import Exercise, declare, need_number, register, wrong
from lessons.exercises.kinds import whole_number

POOLED = [(32, 16, 16), (32, 8, 8), (64, 4, 4)]
"""The shapes of ``cifar10.cnn()``'s max-pool outputs for one image, whose int64 indices are saved for backward."""
SAVED_PER_IMAGE, SAVED_PER_BATCH = 315_688, 4
"""Bytes that ``cifar10.cnn()`` and its cross-entropy save for backward per 3x32x32 image (lesson 10,
sections 2 and 3), and per batch whatever its size."""
_INDICES = sum(8 * math.prod(shape) for shape in POOLED)

register(Exercise(
    "10", 1, ("per_image",),
    whole_number("per_image", SAVED_PER_IMAGE, {
        SAVED_PER_IMAGE - _INDICES: ("`per_image` leaves out the max-pools' int64 indices",
                                     "`per_image`漏掉了最大池化层保存的int64下标"),
        SAVED_PER_IMAGE - _INDICES // 2: ("`per_image` counts the max-pools' indices at 4 bytes; they are int64",
                                          "`per_image`把最大池化层的下标按4字节算了；它们是int64"),
        SAVED_PER_IMAGE - 4 * 64 - 4 * 10: ("`per_image` leaves out the linear layers' outputs",
                                            "`per_image`漏掉了全连接层的输出"),
    }, ("`per_image` is {value:,}, which is not section 3's bytes per image: list what each layer saves again "
        "(section 2)",
        "`per_image`是{value:,}，与第3节测得的每张图像字节数不符：请再列一遍每层保存了什么（第2节）")),
    hint_en="Section 2 (“Activations saved for backward”) lists what each layer saves.",
    hint_zh="第2节（“为反向传播保存的激活值”）列出了每层保存的张量。"))


@declare("10", 2, ("share",),
         hint_en="Section 4 (“When it runs out: four ways to need less”) checkpoints blocks and counts the saved "
                 "bytes.",
         hint_zh="第4节（“内存不够时：四种少用内存的办法”）对块做了检查点，并统计了保存的字节数。")
def measures_the_share_one_checkpointed_block_saves(share: Any) -> None:
    """``share``: the bytes checkpointing the first block saves over those checkpointing all four saves."""
    value = need_number("share", share)
    if 70 <= value <= 76:
        raise wrong("`share` is a percentage; give a fraction between 0 and 1",
                    "`share`是百分数；请给出0到1之间的比例")
    if not 0.70 <= value <= 0.76:  # the bytes saved depend on the device's kernels (cuDNN saves its own): a margin
        raise wrong(f"`share` is {value:.3g}: not the bytes checkpointing the first block saves, divided by the "
                    "bytes checkpointing all four saves",
                    f"`share`是{value:.3g}：这不是只检查点第一块省下的字节数除以检查点全部四块省下的字节数")


@declare("10", 3, ("adam_largest",), context=("sgd_largest", "budget"),
         hint_en="Section 5 (“Recovering from an out-of-memory error”) searches with SGD; Going deeper's “Optimizer "
                 "state, counted”.",
         hint_zh="第5节（“从显存不足错误中恢复”）用SGD做了搜索；再看“进阶”部分的“统计优化器状态”。",
         explain_en="Why does the largest batch change (or not)?", explain_zh="最大批量为什么变了（或没变）？")
def finds_the_largest_batch_beside_adams_state(adam_largest: Any, sgd_largest: int, budget: int) -> None:
    """``adam_largest``: the largest batch whose saved activations fit the budget beside Adam's gradients and
    state (exact in the CPU's simulation, within a margin of SGD's on a GPU)."""
    value = need_number("adam_largest", adam_largest, whole=True)
    if value <= 0:
        raise wrong(f"`adam_largest` is {value}; give the largest batch size that fits",
                    f"`adam_largest`是{value}；请给出能放下的最大批量大小")
    if torch.cuda.is_available():  # a real GPU: its caching allocator rounds blocks up, so a margin (not run yet)
        if not 0.75 * sgd_largest <= value <= 1.05 * sgd_largest:
            raise wrong(f"`adam_largest` is {value}, far from what the same budget holds with SGD ({sgd_largest}) "
                        "for a model this small",
                        f"`adam_largest`是{value}，对这么小的模型来说，与SGD在同样预算下的结果（{sgd_largest}）相差太远")
        return
    from lessons import cifar10

    params = sum(p.numel() * p.element_size() for p in cifar10.cnn().parameters())
    if value != (budget - 3 * params - SAVED_PER_BATCH) // SAVED_PER_IMAGE:  # the simulation on a CPU is exact
        raise wrong(f"`adam_largest` is {value}: not the largest batch whose saved activations fit the budget beside "
                    "Adam's gradients and state",
                    f"`adam_largest`是{value}：这不是在Adam的梯度和状态之外、保存的激活值还能放进预算的最大批量")
