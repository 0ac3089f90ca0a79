"""Lesson 08's exercises (``notebooks/08_ddp.ipynb``): DistributedSampler's shards and epochs, a step in halves."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from lessons.exercises.core import as_sequence, as_whole, brief, call, declare, need_callable, need_number, wrong


@declare("08", 1, ("shard_sizes", "appearing_twice"),
         hint_en="Section 2 (“The training function, in full”) uses `DistributedSampler`; given `num_replicas` and "
                 "`rank`, it needs no process group.",
         hint_zh="第2节（“完整的训练函数”）用到了`DistributedSampler`；给定`num_replicas`和`rank`时，它不需要进程组。",
         explain_en="Why does the sampler repeat examples?", explain_zh="采样器为什么要重复一些样本？")
def counts_the_shards_and_the_repeats(shard_sizes: Any, appearing_twice: Any) -> None:
    """``shard_sizes``: the lengths of the three samplers' lists; ``appearing_twice``: the indices in two shards."""
    sizes = as_sequence(shard_sizes)
    if sizes is None or len(sizes) != 3 or any(as_whole(s) is None for s in sizes):
        raise wrong(f"`shard_sizes` is {brief(shard_sizes)}; give the three shards' lengths",
                    f"`shard_sizes`是{brief(shard_sizes)}；请给出三个分片的长度")
    sizes = [as_whole(s) for s in sizes]
    if sum(sizes) == 512:
        raise wrong(f"`shard_sizes` is {sizes}: shards that add up to 512 split the examples without repeating any; "
                    "list each rank's sampler and count",
                    f"`shard_sizes`是{sizes}：加起来是512的分片不重复任何样本；请列出每个rank的采样器再数一数")
    if sizes != [171, 171, 171]:
        raise wrong(f"`shard_sizes` is {sizes}: not the lengths of the three samplers' lists",
                    f"`shard_sizes`是{sizes}：这不是三个采样器列表的长度")
    if as_whole(appearing_twice) != 1:
        raise wrong(f"`appearing_twice` is {brief(appearing_twice)}: count all indices over the three shards, and "
                    "the distinct ones",
                    f"`appearing_twice`是{brief(appearing_twice)}：数一数三个分片的下标总数，以及其中不同下标的个数")


@declare("08", 2, ("moved_with_set_epoch", "moved_without"),
         hint_en="Section 2 (“The training function, in full”) calls `set_epoch` every epoch.",
         hint_zh="第2节（“完整的训练函数”）每轮都调用了`set_epoch`。")
def counts_the_positions_set_epoch_moves(moved_with_set_epoch: Any, moved_without: Any) -> None:
    """The positions at which epochs 0 and 1 differ, with and without ``set_epoch``."""
    from torch.utils.data import DistributedSampler

    with_set_epoch = need_number("moved_with_set_epoch", moved_with_set_epoch, whole=True)
    without = need_number("moved_without", moved_without, whole=True)
    sampler = DistributedSampler(range(512), num_replicas=2, rank=0, shuffle=True, seed=0)  # only the length counts
    first = list(sampler)
    sampler.set_epoch(1)
    moved = sum(a != b for a, b in zip(first, list(sampler), strict=True))  # this PyTorch's shuffle, exactly
    if without != 0:
        raise wrong(f"`moved_without` is {without}: list epochs 0 and 1 from one sampler without `set_epoch`, and "
                    "compare them position by position",
                    f"`moved_without`是{without}：用同一个采样器、不调用`set_epoch`列出第0轮和第1轮，再逐个位置比较")
    if with_set_epoch != moved:
        raise wrong(f"`moved_with_set_epoch` is {with_set_epoch}: not the number of positions at which the two "
                    "epochs' lists differ when `sampler.set_epoch(epoch)` is called before each",
                    f"`moved_with_set_epoch`是{with_set_epoch}：这不是每轮列出之前调用`sampler.set_epoch(epoch)`时，"
                    "两轮列表中不同位置的个数")


STEP_IN_HALVES_CASES = {"seed": 0, "batch": 24, "width": 8}  # the batch (random after the seed) and the model's input
# BEGIN HIDDEN CASES
STEP_IN_HALVES_HIDDEN = {"seed": 1, "batch": 48, "width": 6}
# END HIDDEN CASES


@declare("08", 3, ("step_in_halves",), cases=STEP_IN_HALVES_CASES, hidden="STEP_IN_HALVES_HIDDEN",
         hint_en="Section 1 (“What data parallelism computes”): averaged gradients of the parts equal the whole "
                 "batch's.",
         hint_zh="第1节（“数据并行计算的是什么”）：各部分梯度的平均等于整个批量的梯度。")
def steps_as_one_step_on_the_whole_batch(step_in_halves: Callable[..., Any], cases: dict[str, Any]) -> None:
    """``step_in_halves`` runs the model on the batch's two halves and changes the weights exactly as one SGD step
    on the whole batch does, old gradients left out."""
    need_callable(step_in_halves, "step_in_halves")
    torch.manual_seed(cases["seed"])
    batch, width = cases["batch"], cases["width"]
    x, y = torch.randn(batch, width), torch.randint(0, 3, (batch,))
    start = nn.Sequential(nn.Linear(width, 16), nn.ReLU(), nn.Linear(16, 3))
    whole, halves = (pickle.loads(pickle.dumps(start)) for _ in range(2))
    optimizer = torch.optim.SGD(whole.parameters(), lr=0.1)
    optimizer.zero_grad()
    nn.functional.cross_entropy(whole(x), y).backward()
    optimizer.step()
    optimizer = torch.optim.SGD(halves.parameters(), lr=0.1)
    for p in halves.parameters():  # gradients left over from an earlier step
        p.grad = torch.ones_like(p)
    sizes: list[int] = []
    halves.register_forward_pre_hook(lambda module, args: sizes.append(len(args[0])))
    call("step_in_halves(model, optimizer, x, y)", step_in_halves, halves, optimizer, x, y)
    before = [p.detach() for p in start.parameters()]
    full = [a.detach() - b for a, b in zip(whole.parameters(), before, strict=True)]
    mine = [a.detach() - b for a, b in zip(halves.parameters(), before, strict=True)]
    if sorted(sizes) != [batch // 2] * 2:
        raise wrong(f"`step_in_halves` ran the model on batches of {sizes} for a batch of {batch}: not its two halves",
                    f"对{batch}个样本的批量，`step_in_halves`在大小为{sizes}的批量上运行了模型：不是它的两半")
    if all(torch.equal(m, torch.zeros_like(m)) for m in mine):
        raise wrong("`step_in_halves` did not change the weights", "`step_in_halves`没有改变权重")
    if all(torch.allclose(m, f, atol=1e-6) for m, f in zip(mine, full, strict=True)):
        return
    if all(torch.allclose(m, 2 * f, atol=1e-6) for m, f in zip(mine, full, strict=True)):
        raise wrong("the step is twice one step on the whole batch", "这一步是在整个批量上走一步的两倍")
    if all(torch.allclose(m, f - 0.1, atol=1e-6) for m, f in zip(mine, full, strict=True)):
        raise wrong("the step also used the gradients that were there before `step_in_halves` was called",
                    "这一步还用上了调用`step_in_halves`之前就已经存在的梯度")
    raise wrong(f"the weights differ from one step on the whole batch of {batch}",
                f"权重与在{batch}个样本的整个批量上走一步的结果不同")
