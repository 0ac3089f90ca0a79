"""Lesson 12's exercises (``notebooks/12_multi_node.ipynb``): the variables torchrun sets, the step a restarted
group resumes from, the bytes per GPU of DDP and FSDP."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from lessons.exercises.core import as_number, as_whole, brief, call, declare, need_callable, wrong

NAMES = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK")
"""The variables exercise 1 asks for, as the lesson's script prints them."""

ENV_CASES = [(2, 1, 1, 0), (1, 2, 0, 1), (4, 8, 2, 5), (3, 4, 0, 0)]  # (nodes, per_node, node, local_rank)
# BEGIN HIDDEN CASES
ENV_HIDDEN = [(2, 4, 1, 3), (5, 2, 4, 1), (8, 8, 7, 7), (6, 1, 5, 0)]
# END HIDDEN CASES


def _env(nodes: int, per_node: int, node: int, local_rank: int) -> dict[str, int]:
    """What torchrun sets, the rendezvous having numbered the machines (used to judge, not shown)."""
    return {"RANK": node * per_node + local_rank, "LOCAL_RANK": local_rank, "WORLD_SIZE": nodes * per_node,
            "LOCAL_WORLD_SIZE": per_node, "GROUP_RANK": node}


@declare("12", 1, ("torchrun_env",), cases=ENV_CASES, hidden="ENV_HIDDEN",
         hint_en="Sections 1 (“A script for `torchrun`”) and 2 (“Several machines, simulated on one”) printed the "
                 "variables for one machine of two workers and two machines of one.",
         hint_zh="第1节（“为`torchrun`写的脚本”）和第2节（“在一台机器上模拟多台机器”）打印了这些变量："
                 "一台机器两个工作进程，以及两台机器各一个。")
def sets_the_variables_torchrun_sets(torchrun_env: Callable[..., Any], cases: list[tuple[int, ...]]) -> None:
    """``torchrun_env(nodes, per_node, node, local_rank)`` returns the five variables as whole numbers."""
    need_callable(torchrun_env, "torchrun_env")
    for nodes, per_node, node, local_rank in cases:
        shown = f"torchrun_env({nodes}, {per_node}, {node}, {local_rank})"
        got = call(shown, torchrun_env, nodes, per_node, node, local_rank)
        if not isinstance(got, dict) or set(got) != set(NAMES):
            raise wrong(f"`{shown}` returned {brief(got)}: give a dict with exactly the keys {', '.join(NAMES)}",
                        f"`{shown}`返回了{brief(got)}：应返回一个恰好以{', '.join(NAMES)}为键的dict")
        expected = _env(nodes, per_node, node, local_rank)
        for name in NAMES:
            value = got[name]
            value = int(value) if isinstance(value, str) and value.isdigit() else as_whole(value)
            if value == expected[name]:
                continue
            if name == "RANK" and value == local_rank * nodes + node:
                raise wrong(f"`{shown}` numbers the workers across the machines first: `torchrun` numbers "
                            "all the workers of machine 0 first, then those of machine 1",
                            f"`{shown}`先跨机器给工作进程编号：`torchrun`先给0号机器的所有工作进程编号，"
                            "再给1号机器的")
            if name == "WORLD_SIZE" and value == per_node:
                raise wrong(f"`{shown}` gives WORLD_SIZE as the workers of one machine: it counts those of "
                            "every machine",
                            f"`{shown}`把WORLD_SIZE算成了一台机器上的工作进程数：它数的是所有机器上的")
            raise wrong(f"`{shown}` gives {name} = {brief(got[name])}, not what `torchrun` sets for that worker",
                        f"`{shown}`给出的{name} = {brief(got[name])}，不是`torchrun`为这个工作进程设置的值")


RESUME_CASES = [(4, 1), (5, 2), (6, 3), (2, 5), (9, 4)]  # (fail_at, save_every)
# BEGIN HIDDEN CASES
RESUME_HIDDEN = [(17, 7), (0, 13), (23, 5), (100, 30)]
# END HIDDEN CASES


@declare("12", 2, ("resumed_from",), cases=RESUME_CASES, hidden="RESUME_HIDDEN",
         hint_en="Section 3 (“A failure survived”): the restarted group starts from the last complete checkpoint; "
                 "which folders exist when a worker dies at the start of step `fail_at`?",
         hint_zh="第3节（“挺过一次故障”）：重启的进程组从最后一个完整的检查点开始；"
                 "一个工作进程在第`fail_at`步开始时死掉，这时有哪些文件夹？",
         explain_en="How many steps are computed twice, and what decides a good `save_every`?",
         explain_zh="有多少步要重算？怎样才算是好的`save_every`？")
def resumes_from_the_last_checkpoint(resumed_from: Callable[..., Any], cases: list[tuple[int, int]]) -> None:
    """``resumed_from(fail_at, save_every)`` is the last multiple of ``save_every`` not after ``fail_at``."""
    need_callable(resumed_from, "resumed_from")
    for fail_at, save_every in cases:
        shown = f"resumed_from({fail_at}, {save_every})"
        got = call(shown, resumed_from, fail_at, save_every)
        value = as_whole(got)
        if value is None:
            raise wrong(f"`{shown}` returned {brief(got)}; return a step, a whole number",
                        f"`{shown}`返回了{brief(got)}；应返回一个步数，一个整数")
        if value == fail_at // save_every * save_every:
            continue
        if value > fail_at:
            raise wrong(f"`{shown}` returned {value}, a step after the failure: no checkpoint of it exists",
                        f"`{shown}`返回了{value}，这是故障之后的一步：它的检查点并不存在")
        if value == fail_at:
            raise wrong(f"`{shown}` returned the step of the failure: without a checkpoint at that step, the group "
                        "goes back further",
                        f"`{shown}`返回了出故障的那一步：那一步没有检查点时，进程组要退回得更早")
        raise wrong(f"`{shown}` returned {value}: not the steps done of the last checkpoint written before the "
                    "failure",
                    f"`{shown}`返回了{value}：这不是故障之前写下的最后一个检查点所完成的步数")


MEMORY_CASES = [(1_000_000, 3, "ddp"), (1_000_000, 3, "fsdp"), (7_000_000_000, 8, "fsdp"), (10, 1, "fsdp"),
                (3, 5, "ddp")]  # (parameters, gpus, strategy); 3 and 5 GPUs: no mistake gives the right bytes
# BEGIN HIDDEN CASES
MEMORY_HIDDEN = [(2_500, 5, "fsdp"), (2_500, 7, "ddp"), (123_456, 3, "fsdp"), (1, 64, "fsdp")]
# END HIDDEN CASES


@declare("12", 3, ("bytes_per_gpu",), cases=MEMORY_CASES, hidden="MEMORY_HIDDEN",
         hint_en="Going deeper, “Which to pick”: the bytes per parameter, and which strategy divides them by the "
                 "number of GPUs.",
         hint_zh="“进阶”部分的“选哪一种”：每个参数多少字节，以及哪种做法把它们除以GPU的数量。")
def counts_the_bytes_per_gpu(bytes_per_gpu: Callable[..., Any], cases: list[tuple[int, int, str]]) -> None:
    """``bytes_per_gpu(parameters, gpus, strategy)``: 16 bytes a parameter, divided by ``gpus`` for FSDP."""
    need_callable(bytes_per_gpu, "bytes_per_gpu")
    for parameters, gpus, strategy in cases:
        shown = f"bytes_per_gpu({parameters:_}, {gpus}, {strategy!r})"
        got = call(shown, bytes_per_gpu, parameters, gpus, strategy)
        value = as_number(got)
        if value is None:
            raise wrong(f"`{shown}` returned {brief(got)}; return a number of bytes",
                        f"`{shown}`返回了{brief(got)}；应返回字节数")
        whole = 16 * parameters
        expected = whole / gpus if strategy == "fsdp" else whole
        if math.isclose(value, expected, rel_tol=1e-9):
            continue
        share = gpus if strategy == "fsdp" else 1
        for per_parameter, what_en, what_zh in (
                (4, "the float32 weights", "float32的权重"),
                (8, "the float32 weights and gradients, without Adam's state",
                 "float32的权重和梯度，没有算Adam的状态"),
                (12, "the float32 master weights and Adam's state, without the half-precision weights and "
                     "gradients", "float32的主权重和Adam的状态，没有算半精度的权重和梯度"),
                (2, "the bfloat16 weights", "bfloat16的权重")):
            if math.isclose(value, per_parameter * parameters / share, rel_tol=1e-9):
                raise wrong(f"`{shown}` counts only {what_en}", f"`{shown}`只算了{what_zh}")
        if gpus > 1 and math.isclose(value, whole / gpus if strategy == "ddp" else whole, rel_tol=1e-9):
            if strategy == "ddp":
                raise wrong(f"`{shown}` divides DDP's memory among the GPUs: each DDP process keeps a full copy",
                            f"`{shown}`把DDP的内存分到了各个GPU上：DDP的每个进程都保留一份完整的副本")
            raise wrong(f"`{shown}` does not divide FSDP's memory among the GPUs",
                        f"`{shown}`没有把FSDP的内存分到各个GPU上")
        raise wrong(f"`{shown}` returned {value:,.6g}, which is not the bytes per GPU the table gives",
                    f"`{shown}`返回了{value:,.6g}，与表中每个GPU的字节数不符")
