"""Lesson 01's exercises (``notebooks/01_devices.ipynb``): the devices, CUDA_VISIBLE_DEVICES, a tensor's bytes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from lessons.exercises.core import as_sequence, as_whole, brief, call, declare, listed, need_callable, wrong


@declare("01", 1, ("usable_devices",),
         hint_en="Sections 2 and 3 (“Is there a GPU? `torch.cuda`”, “Device names”) show what to ask PyTorch, and "
                 "how a GPU is named.",
         hint_zh="第2节（“有没有GPU？`torch.cuda`”）和第3节（“设备名称”）讲了该问PyTorch什么，以及GPU怎么命名。")
def lists_each_usable_device_once(usable_devices: Callable[[], Any]) -> None:
    """The CPU once, every CUDA GPU by its number once, MPS where it is available, nothing else."""
    need_callable(usable_devices, "usable_devices")
    found = call("usable_devices()", usable_devices)
    if not isinstance(found, (list, tuple)):
        raise wrong(f"`usable_devices()` returned {brief(found)}; return a list of devices",
                    f"`usable_devices()`返回了{brief(found)}；请返回由设备组成的列表")
    devices = []
    for item in found:
        try:
            devices.append(torch.device(item))  # torch.device("cuda:0") and "cuda:0" name the same device
        except (TypeError, RuntimeError) as error:
            raise wrong(f"`usable_devices()` holds {item!r} ({type(item).__name__}), which is not a device",
                        f"`usable_devices()`里有{item!r}（{type(item).__name__}），它不是设备") from error
    kinds = [d.type for d in devices]
    if kinds.count("cpu") != 1:
        raise wrong(f"`usable_devices()` lists the CPU {kinds.count('cpu')} times",
                    f"`usable_devices()`列出了{kinds.count('cpu')}次CPU")
    gpus = [d for d in devices if d.type == "cuda"]
    if any(d.index is None for d in gpus):
        raise wrong("`usable_devices()` lists `cuda` without a number, which means whichever GPU is current, so two "
                    "entries can be the same GPU",
                    "`usable_devices()`列出了不带编号的`cuda`，它指的是当前GPU，两项可能是同一块GPU")
    if gpus and not torch.cuda.device_count():
        raise wrong(f"`usable_devices()` lists {[str(d) for d in gpus]}, but this machine has no CUDA GPU "
                    "(`torch.cuda.device_count()` is 0)",
                    f"`usable_devices()`列出了{listed(gpus)}，但这台机器没有CUDA GPU"
                    "（`torch.cuda.device_count()`是0）")
    if sorted(d.index for d in gpus) != list(range(torch.cuda.device_count())):
        raise wrong(f"`usable_devices()` lists the CUDA GPUs {[str(d) for d in gpus]}, which are not this "
                    "machine's GPUs, each once",
                    f"`usable_devices()`列出的CUDA GPU是{listed(gpus)}，不是这台机器的每块GPU各一次")
    has_mps = torch.backends.mps.is_available()
    if ("mps" in kinds) != has_mps or kinds.count("mps") > 1:
        raise wrong(f"`usable_devices()` lists MPS {kinds.count('mps')} times on a machine where "
                    f"torch.backends.mps.is_available() is {has_mps}",
                    f"`usable_devices()`列出了{kinds.count('mps')}次MPS，"
                    f"而这台机器上torch.backends.mps.is_available()是{has_mps}")
    if others := sorted(set(kinds) - {"cpu", "cuda", "mps"}):
        raise wrong(f"`usable_devices()` lists {others}: a device this machine cannot compute on",
                    f"`usable_devices()`列出了{listed(others)}，这台机器不能在这些设备上计算")


VISIBLE_GPUS_CASES = [  # (value, GPUs, the GPUs a program sees, why it is hard)
    ("1", 4, [1], ("one GPU listed", "只列出一块GPU")),
    ("0,2,3", 4, [0, 2, 3], ("the listed GPUs", "列出的几块GPU")),
    ("3,1", 4, [3, 1], ("the listed order is kept, not sorted", "保持列出的顺序，不排序")),
    ("0,2,-1,1", 4, [0, 2], ("-1 hides itself and every GPU listed after it", "-1会隐藏自己和它后面列出的所有GPU")),
    ("-1", 4, [], ("-1 hides itself and every GPU listed after it", "-1会隐藏自己和它后面列出的所有GPU")),
    ("", 4, [], ("an empty value lists no GPU", "空值没有列出任何GPU")),
    ("0,7", 4, [0], ("a number the machine has no GPU for hides itself and what follows",
                     "这台机器上不存在的GPU编号会隐藏自己和它后面列出的所有GPU")),
    ("4", 4, [], ("GPUs are numbered from 0", "GPU从0开始编号")),
    ("1,0", 2, [1, 0], ("the listed order is kept, not sorted", "保持列出的顺序，不排序")),
    ("1,2,0", 2, [1], ("a number the machine has no GPU for hides itself and what follows",
                       "这台机器上不存在的GPU编号会隐藏自己和它后面列出的所有GPU")),
]
# BEGIN HIDDEN CASES
VISIBLE_GPUS_HIDDEN = [
    ("2,0,1", 3, [2, 0, 1], ("the listed order is kept, not sorted", "保持列出的顺序，不排序")),
    ("5,3,0", 6, [5, 3, 0], ("the listed order is kept, not sorted", "保持列出的顺序，不排序")),
    ("1,2,3,8,0", 8, [1, 2, 3], ("a number the machine has no GPU for hides itself and what follows",
                                 "这台机器上不存在的GPU编号会隐藏自己和它后面列出的所有GPU")),
    ("0,-1", 1, [0], ("-1 hides itself and every GPU listed after it", "-1会隐藏自己和它后面列出的所有GPU")),
    ("2", 2, [], ("GPUs are numbered from 0", "GPU从0开始编号")),
]
# END HIDDEN CASES


@declare("01", 2, ("visible_gpus",), cases=VISIBLE_GPUS_CASES, hidden="VISIBLE_GPUS_HIDDEN",
         hint_en="Section 5 (“Choosing GPUs with `CUDA_VISIBLE_DEVICES`”) and the exercise's text give CUDA's rule; "
                 "go through the entries in order.",
         hint_zh="第5节（“用`CUDA_VISIBLE_DEVICES`选择GPU”）和练习的题目给出了CUDA的规则；按顺序逐项看。")
def lists_the_gpus_a_program_sees(visible_gpus: Callable[[str, int], Any], cases: list[Any]) -> None:
    """``visible_gpus(value, n_gpus)`` is the list of GPUs a program sees, by CUDA's rule, for each case."""
    need_callable(visible_gpus, "visible_gpus")
    for value, n_gpus, seen, (why_en, why_zh) in cases:
        shown = f"visible_gpus({value!r}, {n_gpus})"
        got = call(shown, visible_gpus, value, n_gpus)
        listed = as_sequence(got)
        if listed is None or [as_whole(g) for g in listed] != seen:
            raise wrong(f"`{shown}` returned {brief(got)}, which is not what a program sees ({why_en})",
                        f"`{shown}`返回了{brief(got)}，这不是程序看到的GPU（{why_zh}）")


MEMORY_CASES = [  # (device, dtype, shape, bytes needed, bytes allocated)
    ("meta", "float32", (100, 100), 40000, 0),
    ("cpu", "float32", (10, 10), 400, 400),
    ("cpu", "int64", (3,), 24, 24),
    ("meta", "float16", (8,), 16, 0),
    ("cpu", "float64", (2, 3), 48, 48),
]
# BEGIN HIDDEN CASES
MEMORY_HIDDEN = [
    ("cpu", "bfloat16", (5, 7), 70, 70),
    ("meta", "int8", (9, 2), 18, 0),
    ("cpu", "uint8", (6,), 6, 6),
    ("meta", "float64", (4, 4), 128, 0),
]
# END HIDDEN CASES


@declare("01", 3, ("memory_of",), cases=MEMORY_CASES, hidden="MEMORY_HIDDEN",
         hint_en="Section 3 (“Device names”) introduces `meta`; a tensor knows its elements' size, and where its "
                 "data is.",
         hint_zh="第3节（“设备名称”）介绍了`meta`；张量知道自己每个元素的大小，也知道数据在哪里。")
def counts_bytes_needed_and_allocated(memory_of: Callable[[torch.Tensor], Any], cases: list[Any]) -> None:
    """``memory_of(tensor)`` is (bytes its values need, bytes allocated where it lives) for each case."""
    need_callable(memory_of, "memory_of")
    for where, dtype_name, shape, bytes_needed, bytes_allocated in cases:
        dtype = getattr(torch, dtype_name)
        tensor = torch.empty(shape, dtype=dtype, device=where)
        shown = f"memory_of(torch.empty({shape}, dtype={dtype}, device={where!r}))"
        got = call(shown, memory_of, tensor)
        pair = as_sequence(got)
        if pair is None or len(pair) != 2 or any(as_whole(v) is None for v in pair):
            raise wrong(f"`{shown}` returned {brief(got)}; return two whole numbers of bytes (needed, allocated)",
                        f"`{shown}`返回了{brief(got)}；应返回两个字节数：需要的字节数和实际分配的字节数")
        needed, allocated = (as_whole(v) for v in pair)
        if needed != bytes_needed:
            extra = ((": that counts bits, and a byte holds 8", "：这数的是位（bit），一个字节有8位")
                     if needed == 8 * bytes_needed else
                     (": that is the number of elements, not of bytes", "：这是元素个数，不是字节数")
                     if needed == math.prod(shape) else ("", ""))
            raise wrong(f"`{shown}` says {needed} bytes are needed{extra[0]}",
                        f"`{shown}`说需要{needed}个字节{extra[1]}")
        if allocated != bytes_allocated:
            raise wrong(f"`{shown}` says {allocated} bytes are allocated for a tensor on {where}; look at where its "
                        "data is",
                        f"`{shown}`说{where}上的这个张量分配了{allocated}个字节；看看它的数据在哪里")
