"""Checks for the lessons' exercises: under each exercise a student runs one line that says whether the answer is
right, and if not, what is wrong with it, in one sentence.

    from lessons import exercises

    exercises.check("02", 1, module_device)               # prints "Exercise 1: correct." or what is wrong
    exercises.hint("02", 1)                               # prints a hint: where in the lesson to look
    exercises.check("02", 1, module_device, strict=True)  # a solution's own check: raises AssertionError unless
                                                          # right, prints "the reference solution passes"
    exercises.grade("02", 1, module_device, hidden=True)  # nbgrader's autograded test: raises unless right

An exercise's answer cell starts with a stub the student replaces: a function or class whose body raises
``NotImplementedError("your code here")``, or values set to ``None``. A check treats the stub as "not answered yet"
and never raises (unless ``strict``), so "Run all" goes on everywhere. Messages are in the edition's language
(``utils.set_language``, which each notebook's setup cell calls).

A check judges behaviour, never names: it runs the student's function or class on cases (edge cases included) and
inspects what came out (values, files written, gradients, forward batch sizes, CUDA events used), so an answer in
any idiom that does what the exercise asks passes. A value is accepted in any numeric type (numpy's and 0-dim
tensors included). Where an exercise asks for a measurement, the value is checked exactly where the lesson's
simulation is deterministic and within a margin stated in the check where it is not. A wrong answer's message says
what is wrong with that answer (which case, what came out, which property fails), never the expected value or the
"why" kept for discussion (``EXERCISES[...].explain``, graded by a person); hints point to the lesson's section.
Function answers also have hidden cases (``hidden=True``, nbgrader's ``### BEGIN HIDDEN TESTS``): other inputs, so
that an answer fitted to the visible cases does not get the points. The checks hold no reference solution (those
are at the end of each notebook, under ``## Solutions``), run on the CPU in about a second, leave the random number
generators as they were, and train nothing. ``tests/test_exercises.py`` proves them on a corpus of students'
answers, right ones in several idioms and wrong ones of the kinds students write.

Lesson module (see ``lessons/__init__.py`` for where code lives); its tests are in ``tests/test_exercises.py``.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import math
import numbers
import os
import pickle
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import torch
from torch import nn

import utils


class NotAnswered(Exception):
    """The answer is still the stub: a value is ``None``, or the function raised ``NotImplementedError``."""


class Wrong(Exception):
    """The answer is wrong; the exception's text says what is wrong, in the edition's language."""


def _say(en: str, zh: str) -> str:
    return utils.localized(en, zh)


def _wrong(en: str, zh: str) -> Wrong:
    return Wrong(_say(en, zh))


def _call(shown: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Return ``fn(*args, **kwargs)``; the stub's ``NotImplementedError`` is ``NotAnswered``, any other error Wrong."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError as error:
        raise NotAnswered from error
    except Exception as error:  # the student's code failed: say where and how
        said = str(error).strip().rstrip(".")
        raise _wrong(f"`{shown}` raised {type(error).__name__}: {said}",
                     f"`{shown}`抛出了{type(error).__name__}：{said}") from error


def _is_callable(answer: Any, name: str) -> None:
    if not callable(answer):
        raise _wrong(f"`{name}` is {_shown(answer)}, not a function: define it with `def {name}(...)`",
                     f"`{name}`是{_shown(answer)}，不是函数：请用`def {name}(...)`定义它")


def _shown(value: Any) -> str:
    """A short repr for messages: devices and dtypes as their strings, tensors by shape."""
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {tuple(value.shape)}" if value.dim() else repr(value.item())
    if isinstance(value, (torch.device, torch.dtype)):
        return str(value)
    if isinstance(value, np.generic):
        return repr(value.item())
    return repr(value)


def _number(value: Any) -> float | None:
    """``value`` as a float if it is a real number in any type (Python's, numpy's, a 0-dim tensor), else None;
    booleans are not numbers here."""
    if isinstance(value, torch.Tensor) and value.dim() == 0 and value.dtype != torch.bool:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _whole(value: Any) -> int | None:
    """``value`` as an int if it is a whole number in any type (``315688.0`` included), else None."""
    number = _number(value)
    return int(number) if number is not None and number.is_integer() else None


def _sequence(value: Any) -> list[Any] | None:
    """``value`` as a list if it is a list, tuple, numpy array or 1-dim tensor, else None."""
    if isinstance(value, torch.Tensor) and value.dim() == 1:
        return value.tolist()
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return value.tolist()
    return list(value) if isinstance(value, (list, tuple)) else None


def _need_number(name: str, value: Any, whole: bool = False) -> float:
    got = _whole(value) if whole else _number(value)
    if got is None:
        kind_en, kind_zh = ("a whole number", "整数") if whole else ("a number", "数")
        raise _wrong(f"`{name}` is {_shown(value)}; give {kind_en}", f"`{name}`是{_shown(value)}；请给出一个{kind_zh}")
    return got


# ---- 01 --------------------------------------------------------------------------------------------------------------
def _check_01_1(usable_devices: Callable[[], Any]) -> None:
    _is_callable(usable_devices, "usable_devices")
    found = _call("usable_devices()", usable_devices)
    if not isinstance(found, (list, tuple)):
        raise _wrong(f"`usable_devices()` returned {_shown(found)}; return a list of devices",
                     f"`usable_devices()`返回了{_shown(found)}；请返回由设备组成的列表")
    devices = []
    for item in found:
        try:
            devices.append(torch.device(item))  # torch.device("cuda:0") and "cuda:0" name the same device
        except (TypeError, RuntimeError) as error:
            raise _wrong(f"`usable_devices()` holds {item!r} ({type(item).__name__}), which is not a device",
                         f"`usable_devices()`里有{item!r}（{type(item).__name__}），它不是设备") from error
    kinds = [d.type for d in devices]
    if kinds.count("cpu") != 1:
        raise _wrong(f"`usable_devices()` lists the CPU {kinds.count('cpu')} times",
                     f"`usable_devices()`列出了{kinds.count('cpu')}次CPU")
    gpus = [d for d in devices if d.type == "cuda"]
    if any(d.index is None for d in gpus):
        raise _wrong("`usable_devices()` lists `cuda` without a number, which means whichever GPU is current, so two "
                     "entries can be the same GPU",
                     "`usable_devices()`列出了不带编号的`cuda`，它指的是当前GPU，两项可能是同一块GPU")
    if sorted(d.index for d in gpus) != list(range(torch.cuda.device_count())):
        raise _wrong(f"`usable_devices()` lists the CUDA GPUs {[str(d) for d in gpus]}, which are not this "
                     "machine's GPUs, each once",
                     f"`usable_devices()`列出的CUDA GPU是{[str(d) for d in gpus]}，不是这台机器的每块GPU各一次")
    has_mps = torch.backends.mps.is_available()
    if ("mps" in kinds) != has_mps or kinds.count("mps") > 1:
        raise _wrong(f"`usable_devices()` lists MPS {kinds.count('mps')} times on a machine where "
                     f"torch.backends.mps.is_available() is {has_mps}",
                     f"`usable_devices()`列出了{kinds.count('mps')}次MPS，"
                     f"而这台机器上torch.backends.mps.is_available()是{has_mps}")
    if others := sorted(set(kinds) - {"cpu", "cuda", "mps"}):
        raise _wrong(f"`usable_devices()` lists {others}: a device this machine cannot compute on",
                     f"`usable_devices()`列出了{others}：这台机器不能在这个设备上计算")


_VISIBLE_CASES = [  # (value, GPUs, the GPUs a program sees, why it is hard)
    ("1", 4, [1], ("one GPU listed", "只列出一块GPU")),
    ("0,2,3", 4, [0, 2, 3], ("the listed GPUs", "列出的几块GPU")),
    ("3,1", 4, [3, 1], ("the listed order is kept, not sorted", "保持列出的顺序，不排序")),
    ("0,2,-1,1", 4, [0, 2], ("-1 hides itself and every GPU listed after it", "-1会隐藏自己和它后面列出的所有GPU")),
    ("-1", 4, [], ("-1 hides itself and every GPU listed after it", "-1会隐藏自己和它后面列出的所有GPU")),
    ("", 4, [], ("an empty value lists no GPU", "空值没有列出任何GPU")),
    ("0,7", 4, [0], ("a number the machine has no GPU for hides itself and what follows",
                     "这台机器没有的GPU编号会隐藏自己和它后面的一切")),
    ("4", 4, [], ("GPUs are numbered from 0", "GPU从0开始编号")),
    ("1,0", 2, [1, 0], ("the listed order is kept, not sorted", "保持列出的顺序，不排序")),
]
_VISIBLE_HIDDEN = [
    ("2,0,1", 3, [2, 0, 1], ("the listed order is kept, not sorted", "保持列出的顺序，不排序")),
    ("5,3,0", 6, [5, 3, 0], ("the listed order is kept, not sorted", "保持列出的顺序，不排序")),
    ("1,2,3,8,0", 8, [1, 2, 3], ("a number the machine has no GPU for hides itself and what follows",
                                 "这台机器没有的GPU编号会隐藏自己和它后面的一切")),
    ("0,-1", 1, [0], ("-1 hides itself and every GPU listed after it", "-1会隐藏自己和它后面列出的所有GPU")),
    ("2", 2, [], ("GPUs are numbered from 0", "GPU从0开始编号")),
]


def _check_01_2(visible_gpus: Callable[[str, int], Any], hidden: bool = False) -> None:
    _is_callable(visible_gpus, "visible_gpus")
    for value, n_gpus, seen, (why_en, why_zh) in _VISIBLE_HIDDEN if hidden else _VISIBLE_CASES:
        shown = f"visible_gpus({value!r}, {n_gpus})"
        got = _call(shown, visible_gpus, value, n_gpus)
        listed = _sequence(got)
        if listed is None or [_whole(g) for g in listed] != seen:
            raise _wrong(f"`{shown}` returned {_shown(got)}, which is not what a program sees ({why_en})",
                         f"`{shown}`返回了{_shown(got)}，这不是程序看到的GPU（{why_zh}）")


_MEMORY_CASES = [  # (device, dtype, shape, bytes needed, bytes allocated)
    ("meta", torch.float32, (100, 100), 40000, 0),
    ("cpu", torch.float32, (10, 10), 400, 400),
    ("cpu", torch.int64, (3,), 24, 24),
    ("meta", torch.float16, (8,), 16, 0),
    ("cpu", torch.float64, (2, 3), 48, 48),
]
_MEMORY_HIDDEN = [
    ("cpu", torch.bfloat16, (5, 7), 70, 70),
    ("meta", torch.int8, (9, 2), 18, 0),
    ("cpu", torch.uint8, (6,), 6, 6),
    ("meta", torch.float64, (4, 4), 128, 0),
]


def _check_01_3(memory_of: Callable[[torch.Tensor], Any], hidden: bool = False) -> None:
    _is_callable(memory_of, "memory_of")
    for where, dtype, shape, bytes_needed, bytes_allocated in _MEMORY_HIDDEN if hidden else _MEMORY_CASES:
        tensor = torch.empty(shape, dtype=dtype, device=where)
        shown = f"memory_of(torch.empty({shape}, dtype={dtype}, device={where!r}))"
        got = _call(shown, memory_of, tensor)
        pair = _sequence(got)
        if pair is None or len(pair) != 2 or any(_whole(v) is None for v in pair):
            raise _wrong(f"`{shown}` returned {_shown(got)}; return two whole numbers of bytes (needed, allocated)",
                         f"`{shown}`返回了{_shown(got)}；应返回两个字节数（需要的，实际分配的）")
        needed, allocated = (_whole(v) for v in pair)
        if needed != bytes_needed:
            extra = ((": that counts bits, and a byte holds 8", "：这数的是位（bit），一个字节有8位")
                     if needed == 8 * bytes_needed else
                     (": that is the number of elements, not of bytes", "：这是元素个数，不是字节数")
                     if needed == math.prod(shape) else ("", ""))
            raise _wrong(f"`{shown}` says {needed} bytes are needed{extra[0]}",
                         f"`{shown}`说需要{needed}个字节{extra[1]}")
        if allocated != bytes_allocated:
            raise _wrong(f"`{shown}` says {allocated} bytes are allocated for a tensor on {where}; look at where its "
                         "data is",
                         f"`{shown}`说{where}上的这个张量分配了{allocated}个字节；看看它的数据在哪里")


# ---- 02 --------------------------------------------------------------------------------------------------------------
class _BufferOnly(nn.Module):
    """A module whose only tensor is a buffer."""

    def __init__(self, device: str = "cpu") -> None:
        super().__init__()
        self.register_buffer("scale", torch.ones(2, device=device))


class _Mixed(nn.Module):
    """A parameter on ``first``, a buffer on ``second``."""

    def __init__(self, first: str = "cpu", second: str = "meta") -> None:
        super().__init__()
        self.linear = nn.Linear(2, 2, device=first)
        self.register_buffer("scale", torch.ones(2, device=second))


def _check_02_1(module_device: Callable[[nn.Module], Any], hidden: bool = False) -> None:
    _is_callable(module_device, "module_device")
    cpu, meta = torch.device("cpu"), torch.device("meta")
    cases: list[tuple[str, nn.Module, torch.device | None]] = [
        ("nn.ReLU()", nn.ReLU(), None),
        ("nn.Linear(2, 2)", nn.Linear(2, 2), cpu),
        ("nn.Linear(2, 2).to('meta')", nn.Linear(2, 2).to("meta"), meta),
        ("nn.BatchNorm1d(2)", nn.BatchNorm1d(2), cpu),
        ("a module whose only tensor is a buffer, on the CPU", _BufferOnly(), cpu),
    ]
    mixed = [("a module with a parameter on cpu and a buffer on meta", _Mixed())]
    if hidden:
        cases = [("nn.Sequential(nn.Flatten(), nn.Dropout())", nn.Sequential(nn.Flatten(), nn.Dropout()), None),
                 ("a module whose only tensor is a buffer, on meta", _BufferOnly("meta"), meta),
                 ("nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2)).to('meta')",
                  nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2)).to("meta"), meta)]
        mixed = [("a module with a parameter on meta and a buffer on cpu", _Mixed("meta", "cpu"))]
    for shown, module, expected in cases:
        got = _call(f"module_device({shown})", module_device, module)
        if got is None and expected is None:
            continue
        if not isinstance(got, torch.device) or got.type != getattr(expected, "type", None):
            what_en, what_zh = (("has no parameters and no buffers", "既没有参数也没有缓冲区") if expected is None else
                                (f"has its tensors on {expected}", f"的张量都在{expected}上"))
            raise _wrong(f"`module_device({shown})` returned {_shown(got)}, for a module that {what_en}",
                         f"`module_device({shown})`返回了{_shown(got)}，而这个模块{what_zh}")
    for shown, module in mixed:
        try:
            got = module_device(module)
        except NotImplementedError as error:
            raise NotAnswered from error
        except ValueError as error:
            if "cpu" not in str(error) or "meta" not in str(error):
                raise _wrong(f"`module_device({shown})` raised ValueError({str(error)!r}), which does not name both "
                             "devices",
                             f"`module_device({shown})`抛出了ValueError({str(error)!r})，"
                             "消息里没有写出两个设备") from error
            continue
        except Exception as error:
            raise _wrong(f"`module_device({shown})` raised {type(error).__name__}, not a ValueError",
                         f"`module_device({shown})`抛出了{type(error).__name__}，不是ValueError") from error
        raise _wrong(f"`module_device({shown})` returned {_shown(got)} instead of raising a ValueError",
                     f"`module_device({shown})`返回了{_shown(got)}，而没有抛出ValueError")


def _check_02_2(missing: Any, bytes_left_on_cpu: Any) -> None:
    if not isinstance(missing, str) or missing.strip().removeprefix("self.") != "offset":
        raise _wrong(f"`missing` is {_shown(missing)}, which is not a tensor of the layer that "
                     "`utils.placement(layer)` leaves out",
                     f"`missing`是{_shown(missing)}，它不是`utils.placement(layer)`漏掉的那个张量")
    value = _need_number("bytes_left_on_cpu", bytes_left_on_cpu, whole=True)
    if value == 0:
        raise _wrong("`bytes_left_on_cpu` is 0: look at the `.device` of every tensor the layer holds after the move, "
                     "not only of those `utils.placement` lists",
                     "`bytes_left_on_cpu`是0：移动之后，请查看这个层持有的每个张量的`.device`，"
                     "而不只是`utils.placement`列出的那些")
    if value == 3:
        raise _wrong("`bytes_left_on_cpu` is 3: count bytes, not values (a tensor's `nbytes` gives its bytes)",
                     "`bytes_left_on_cpu`是3：请数字节，而不是数值的个数（张量的`nbytes`给出它的字节数）")
    if value == 24:
        raise _wrong("`bytes_left_on_cpu` is 24, the bytes of both of the layer's tensors wherever they are: count "
                     "only those on the CPU after the move",
                     "`bytes_left_on_cpu`是24，这是这个层两个张量的字节数，不管它们在哪里：请只数移动之后还在CPU上的")
    if value != 12:
        raise _wrong(f"`bytes_left_on_cpu` is {value}: not the bytes of the layer's tensors that are on the CPU "
                     "after `layer.to('meta')`",
                     f"`bytes_left_on_cpu`是{value}：这不是`layer.to('meta')`之后这个层还在CPU上的张量的字节数")


def _check_02_3(tensors_held: Any) -> None:
    expected = {"BCEWithLogitsLoss": ["pos_weight"], "NLLLoss": ["weight"], "CrossEntropyLoss": []}
    if not isinstance(tensors_held, dict):
        raise _wrong(f"`tensors_held` is {_shown(tensors_held)}; give a dict {{class name: [tensor names]}}",
                     f"`tensors_held`是{_shown(tensors_held)}；请给出字典{{类名: [张量名]}}")
    held = {(key.__name__ if isinstance(key, type) else key): value for key, value in tensors_held.items()}
    if set(held) != set(expected):
        raise _wrong(f"`tensors_held` has the keys {sorted(map(str, held))}; the exercise asks for the three loss "
                     "classes' names",
                     f"`tensors_held`的键是{sorted(map(str, held))}；练习要求用三个损失类的类名作键")
    for name, names in expected.items():
        value = held[name]
        given = sorted(str(v).split(" ")[0] for v in value) if isinstance(value, (list, tuple, set)) else None
        if given != names:
            raise _wrong(f"`tensors_held[{name!r}]` is {value!r}, which is not what `utils.placement` shows for "
                         f"an {name} made as the exercise says",
                         f"`tensors_held[{name!r}]`是{value!r}，这不是按练习创建的{name}在`utils.placement`里显示的")


# ---- 03 --------------------------------------------------------------------------------------------------------------
def _check_03_1(LowerTriangle: type, hidden: bool = False) -> None:  # noqa: N803 (the class the student wrote)
    _is_callable(LowerTriangle, "LowerTriangle")
    for n in (2, 5, 6) if hidden else (1, 3, 4):
        layer = _call(f"LowerTriangle({n})", LowerTriangle, n)
        if not isinstance(layer, nn.Module):
            raise _wrong("`LowerTriangle` is not an nn.Module: derive it from nn.Module",
                         "`LowerTriangle`不是nn.Module：让它继承nn.Module")
        mask = torch.tril(torch.ones(n, n))
        if names := [name for name, _ in layer.named_parameters()]:
            raise _wrong(f"`LowerTriangle({n})` has the parameters {names}: the optimizer would change the mask",
                         f"`LowerTriangle({n})`有参数{names}：优化器会改动掩码")
        buffers = [b for b in layer.buffers() if b.shape == (n, n) and torch.equal(b.to(torch.float32), mask)]
        if not buffers:
            raise _wrong(f"`LowerTriangle({n})` has no buffer that holds the mask (its buffers: "
                         f"{[name for name, _ in layer.named_buffers()]}), so `.to()` would leave it behind",
                         f"`LowerTriangle({n})`没有保存掩码的缓冲区"
                         f"（它的缓冲区：{[name for name, _ in layer.named_buffers()]}），"
                         "`.to()`会把它留在原地")
        if state := list(layer.state_dict()):
            raise _wrong(f"`LowerTriangle({n}).state_dict()` holds {state}, but the exercise asks for a buffer "
                         "registered with `persistent=False`",
                         f"`LowerTriangle({n}).state_dict()`里有{state}，但练习要求用`persistent=False`注册缓冲区")
        for shape, dtype in (((2, n, n), torch.float32), ((3, 2, n, n), torch.float64)):
            x = torch.arange(1.0, math.prod(shape) + 1, dtype=dtype).reshape(shape)
            got = _call(f"LowerTriangle({n})(x)", layer, x)
            if not isinstance(got, torch.Tensor) or got.shape != x.shape or not torch.allclose(
                    got.to(dtype), x * mask.to(dtype)):
                raise _wrong(f"`LowerTriangle({n})(x)` for x of shape {shape} is not x multiplied element-wise by the "
                             "lower-triangular mask",
                             f"对形状为{shape}的x，`LowerTriangle({n})(x)`不等于x与下三角掩码逐元素相乘")
        moved = _call(f"LowerTriangle({n}).to('meta')", layer.to, "meta")
        if {b.device.type for b in moved.buffers()} != {"meta"}:
            raise _wrong("`.to('meta')` left the mask behind", "`.to('meta')`没有把掩码一起移走")


def _check_03_2(Parallel: type, hidden: bool = False) -> None:  # noqa: N803 (the class the student wrote)
    _is_callable(Parallel, "Parallel")
    torch.manual_seed(1 if hidden else 0)
    if hidden:
        a, b = nn.Sequential(nn.Linear(6, 4), nn.ReLU()), nn.Linear(6, 1)
        made, shapes = "Parallel(nn.Sequential(nn.Linear(6, 4), nn.ReLU()), nn.Linear(6, 1))", ((3, 6), (2, 2, 6))
    else:
        a, b = nn.Linear(5, 3), nn.Linear(5, 2)
        made, shapes = "Parallel(nn.Linear(5, 3), nn.Linear(5, 2))", ((4, 5), (2, 4, 5))
    parallel = _call(made, Parallel, a, b)
    if not isinstance(parallel, nn.Module):
        raise _wrong("`Parallel` is not an nn.Module: derive it from nn.Module",
                     "`Parallel`不是nn.Module：让它继承nn.Module")
    for shape in shapes:
        x = torch.randn(shape)
        got = _call(f"parallel(torch.randn{shape})", parallel, x)
        expected = torch.cat([a(x), b(x)], dim=-1)
        if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
            shown = tuple(got.shape) if isinstance(got, torch.Tensor) else _shown(got)
            raise _wrong(f"`parallel(torch.randn{shape})` has shape {shown}: the two outputs are not joined along the "
                         "last dimension",
                         f"`parallel(torch.randn{shape})`的形状是{shown}：两个输出没有沿最后一维拼接")
        if not torch.allclose(got, expected):
            raise _wrong(f"`parallel(torch.randn{shape})` is not module_a's output followed by module_b's",
                         f"`parallel(torch.randn{shape})`不是module_a的输出后接module_b的输出")
    own = {id(p) for p in parallel.parameters()}
    if own != {id(p) for p in [*a.parameters(), *b.parameters()]}:
        raise _wrong(f"`parallel.parameters()` yields {len(own)} tensors, not those of both inner modules",
                     f"`parallel.parameters()`给出{len(own)}个张量，不是两个内部模块的全部参数")
    parallel.to("meta")
    if {p.device.type for p in [*a.parameters(), *b.parameters()]} != {"meta"}:
        raise _wrong("`parallel.to('meta')` left an inner module on the CPU",
                     "`parallel.to('meta')`把一个内部模块留在了CPU上")


def _check_03_3(in_features: Any) -> None:
    value = _need_number("in_features", in_features, whole=True)
    if value == 6 * 28 * 28:
        raise _wrong("`in_features` is 6 x 28 x 28: a 5x5 convolution without padding does not keep 28x28",
                     "`in_features`是6 x 28 x 28：不加填充的5x5卷积不会保持28x28")
    if value == 24 * 24:
        raise _wrong("`in_features` is 576, what one image without a batch dimension gives: `Flatten` then keeps "
                     "the channels apart; the exercise asks for a batch of shape (N, 1, 28, 28)",
                     "`in_features`是576，这是不带批量维度的单张图像得到的：`Flatten`会把各个通道分开；"
                     "练习要求的是形状为(N, 1, 28, 28)的批量")
    if value != 3456:
        raise _wrong(f"`in_features` is {value}: not what the lazy linear layer infers from a batch of shape "
                     "(N, 1, 28, 28)",
                     f"`in_features`是{value}：这不是惰性全连接层从形状为(N, 1, 28, 28)的批量推断出的值")


# ---- 04 --------------------------------------------------------------------------------------------------------------
def _check_04_1(n_params: Any, n_state: Any) -> None:
    params = _need_number("n_params", n_params, whole=True)
    state = _need_number("n_state", n_state, whole=True)
    if params == 56:
        raise _wrong("`n_params` is 56, the number of values; the exercise counts parameter tensors",
                     "`n_params`是56，这是数值的个数；练习数的是参数张量")
    if params != 4:
        raise _wrong(f"`n_params` is {params}: not the number of tensors `model.parameters()` yields",
                     f"`n_params`是{params}：这不是`model.parameters()`给出的张量个数")
    if state == params:
        raise _wrong("`n_state` equals `n_params`: count the entries of `model.state_dict()` itself",
                     "`n_state`等于`n_params`：请数`model.state_dict()`本身的条目")
    if state != 7:
        raise _wrong(f"`n_state` is {state}: not the number of entries in `model.state_dict()`",
                     f"`n_state`是{state}：这不是`model.state_dict()`的条目数")


def _check_04_2(values_after_device: Any, values_after_float16: Any, values_after_meta: Any) -> None:
    for name, value, expected in [("values_after_device", values_after_device, 80),
                                  ("values_after_float16", values_after_float16, 80),
                                  ("values_after_meta", values_after_meta, 144)]:
        got = _need_number(name, value, whole=True)
        if got != expected:
            raise _wrong(f"`{name}` is {got}: not the number of values in `pair.parameters()` after that conversion",
                         f"`{name}`是{got}：这不是那次转换之后`pair.parameters()`里数值的个数")


def _check_04_3(init_orthogonal: Callable[[nn.Module], Any], hidden: bool = False) -> None:
    _is_callable(init_orthogonal, "init_orthogonal")
    torch.manual_seed(1 if hidden else 0)
    if hidden:
        model = nn.Sequential(nn.Sequential(nn.Linear(12, 5), nn.Tanh()), nn.LayerNorm(5), nn.Linear(5, 20),
                              nn.Conv1d(2, 3, 3), nn.Linear(20, 20))
        linears, others = [model[0][0], model[2], model[4]], [model[1], model[3]]
    else:
        model = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 8), nn.Conv2d(2, 4, 3), nn.Linear(8, 32))
        linears, others = [model[0], model[2], model[4]], [model[3]]
    before = [{k: v.clone() for k, v in m.state_dict().items()} for m in others]
    _call("init_orthogonal(nn.ReLU())", init_orthogonal, nn.ReLU())
    _call("model.apply(init_orthogonal)", model.apply, init_orthogonal)
    for linear in linears:
        w = linear.weight.detach()
        rows, cols = w.shape
        gram = w @ w.T if rows <= cols else w.T @ w
        if not torch.allclose(gram, torch.eye(min(rows, cols)), atol=1e-5):
            raise _wrong(f"after `model.apply(init_orthogonal)`, the weight of `{linear}` is not orthogonal",
                         f"`model.apply(init_orthogonal)`之后，`{linear}`的权重不是正交的")
    for module, state in zip(others, before, strict=True):
        if any(not torch.equal(module.state_dict()[k], v) for k, v in state.items()):
            raise _wrong(f"`init_orthogonal` changed a `{type(module).__name__}`, which is not an nn.Linear",
                         f"`init_orthogonal`改动了`{type(module).__name__}`，它不是nn.Linear")


# ---- 05 --------------------------------------------------------------------------------------------------------------
def _state_on_cpu(model: nn.Module) -> dict[str, torch.Tensor]:
    """``model``'s state_dict in float64 on the CPU (moved first: MPS has no float64), where a difference of two
    float32 values is within 2**-53 of the exact one (a student's float32 subtraction, within 2**-24)."""
    return {k: v.detach().cpu().to(torch.float64) for k, v in model.state_dict().items()}


def _largest_difference(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> float:
    return max(((a[k] - b[k]).abs().max().item() if a[k].numel() else 0.0) for k in a)


_SAME_RUN = 1e-3
"""Below this largest difference, two runs of 05's Section 4 are the same run: on a GPU whose kernels add in an order
that varies, a resumed run with every state restored ends within about 1e-5 of the uninterrupted one (the notebook's
`assert_close`); a run with a fresh optimizer ended 0.082 to 0.315 away in 18 runs on the CPU (quick and full mode,
seeds 0-11 and 0-5: other dropout masks, as another device's generator draws; benchmarks/RESULTS.md)."""


def _check_05_1(resumed_fresh: Any, largest_difference: Any, uninterrupted: nn.Module, checkpoint: Path,
                resumed_no_rng: nn.Module) -> None:
    reference = _state_on_cpu(uninterrupted)
    if not isinstance(resumed_fresh, nn.Module):
        raise _wrong(f"`resumed_fresh` is {_shown(resumed_fresh)}, not a model: set it to the model you resumed",
                     f"`resumed_fresh`是{_shown(resumed_fresh)}，不是模型：请把它设为你恢复训练的那个模型")
    mine = _state_on_cpu(resumed_fresh)
    if mine.keys() != reference.keys() or any(mine[k].shape != reference[k].shape for k in mine):
        raise _wrong("`resumed_fresh` is not a model that `make_model()` builds: its state_dict has other tensors",
                     "`resumed_fresh`不是`make_model()`构建的那种模型：它的state_dict里是别的张量")
    number = _need_number("largest_difference", largest_difference)
    saved = torch.load(checkpoint, map_location="cpu", weights_only=True)["model"]
    if _largest_difference(mine, {k: v.to(torch.float64) for k, v in saved.items()}) == 0:
        raise _wrong("`resumed_fresh` holds the checkpoint's weights: train it on to the last epoch",
                     "`resumed_fresh`里是检查点里的权重：请接着把它训练到最后一轮")
    if _largest_difference(mine, _state_on_cpu(resumed_no_rng)) == 0:
        raise _wrong("`resumed_fresh` is Section 4's run without the random state, not a run with a fresh optimizer",
                     "`resumed_fresh`是第4节里没有恢复随机状态的那次运行，不是用新建优化器的运行")
    real = _largest_difference(mine, reference)
    if real < _SAME_RUN:  # the same run as the uninterrupted one, up to the order a GPU adds in
        raise _wrong("`resumed_fresh` ends where the uninterrupted run ends, as a run that loaded the optimizer's "
                     "state does: build the optimizer fresh and load only the model and the random state",
                     "`resumed_fresh`的终点就是不中断运行的终点，和加载了优化器状态的运行一样："
                     "请新建优化器，只加载模型和随机状态")
    if not abs(number - real) <= 1e-5 * real:  # the student's float32 subtraction against this exact one
        raise _wrong(f"`largest_difference` is {number:.6g}, which is not the largest absolute difference between a "
                     "value of `resumed_fresh.state_dict()` and the same value of `uninterrupted.state_dict()`",
                     f"`largest_difference`是{number:.6g}，这不是`resumed_fresh.state_dict()`与"
                     "`uninterrupted.state_dict()`对应数值之差的绝对值的最大值")


_MLP_PARAMETER_BYTES, _MLP_PARAMETER_VALUES = 31_784, 7_946
"""Bytes and values of the parameters of 05's `MLP` in float32 (held, not computed: a check holds no solution)."""


def _check_05_2(param_bytes: Any, size_ratio: Any) -> None:
    value = _need_number("param_bytes", param_bytes, whole=True)
    if value == _MLP_PARAMETER_VALUES:
        raise _wrong(f"`param_bytes` is {value:,}: that is a number of values; count bytes (`nbytes`)",
                     f"`param_bytes`是{value:,}：这是数值的个数；请数字节（`nbytes`）")
    if value != _MLP_PARAMETER_BYTES:
        raise _wrong(f"`param_bytes` is {value:,}: not the bytes of the parameters of the float32 `MLP` after "
                     "`load_state_dict` of the float16 file",
                     f"`param_bytes`是{value:,}：这不是float32 `MLP`加载float16文件之后其参数的字节数")
    ratio = _need_number("size_ratio", size_ratio)
    # Not exact: the files hold the tensors' data and zip records named after the file (its stem), so the ratio
    # depends on the names (benchmarks/RESULTS.md): 0.538 for the notebook's mlp.params and mlp_half.params with
    # PyTorch 2.15, 0.563 for a float16 file of a 60-character name, 0.515 for a float32 file of a 40-character name
    # and a float16 file of a 1-character one; the data alone would give 0.5.
    if not 0.51 <= ratio <= 0.62:
        raise _wrong(f"`size_ratio` is {ratio:.3g}: not what the float16 file's size divided by the float32 file's "
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


def _check_05_3(keep_best: Callable[..., Any], hidden: bool = False) -> None:
    _is_callable(keep_best, "keep_best")
    torch.manual_seed(1 if hidden else 0)
    models = [nn.Linear(2, 2) for _ in range(4)]

    def on_disk(path: Path, shown: str) -> dict[str, torch.Tensor]:
        try:
            return torch.load(path, weights_only=True)
        except Exception as error:
            raise _wrong(f"after `{shown}` the file at best_path does not load with `torch.load` "
                         f"({type(error).__name__}): save `model.state_dict()`",
                         f"`{shown}`之后，best_path处的文件无法用`torch.load`加载（{type(error).__name__}）："
                         "请保存`model.state_dict()`") from error

    # (model, score, best before, best after, the model whose weights the file then holds)
    steps = [(0, 0.6, -math.inf, 0.6, 0), (1, 0.5, 0.6, 0.6, 0), (2, 0.6, 0.6, 0.6, 0), (2, 0.7, 0.6, 0.7, 2)]
    if hidden:
        steps = [(1, -2.0, -3.0, -2.0, 1), (0, -2.5, -2.0, -2.0, 1), (3, 0.25, -2.0, 0.25, 3), (2, 0.25, 0.25, 0.25, 3)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "best.params"
        for index, score, best, new_best, holder in steps:
            shown = f"keep_best(model, {score}, best_path, {best})"
            got = _call(shown, keep_best, models[index], score, path, best)
            if _number(got) != new_best:
                raise _wrong(f"`{shown}` returned {_shown(got)}, which is not the best score so far",
                             f"`{shown}`返回了{_shown(got)}，这不是目前为止的最好成绩")
            if not path.is_file():
                raise _wrong(f"after `{shown}` there is no file at best_path", f"`{shown}`之后best_path处没有文件")
            state = on_disk(path, shown)
            if not isinstance(state, dict) or not torch.equal(state.get("weight", torch.empty(0)),
                                                              models[holder].weight):
                raise _wrong(f"after `{shown}` the file does not hold the weights of the best model so far",
                             f"`{shown}`之后，文件里不是目前为止最好的模型的权重")
            if left := sorted(p.name for p in Path(folder).iterdir() if p != path):
                raise _wrong(f"after `{shown}`, {left} are left beside best_path",
                             f"`{shown}`之后，best_path旁边还留着{left}")
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
            raise _wrong(f"after a crash in the middle of `{shown}`, the file does not hold the previous best "
                         "weights any more", f"`{shown}`写到一半崩溃之后，文件里已经不是之前最好的权重了")


# ---- 06 --------------------------------------------------------------------------------------------------------------
def _check_06_1(steps: Any, log_dir: Any) -> None:
    listed = _sequence(steps)
    if listed is None or any(_whole(s) is None for s in listed):
        raise _wrong(f"`steps` is {_shown(steps)}; give the list of steps read back from the event file",
                     f"`steps`是{_shown(steps)}；请给出从事件文件读回的步数列表")
    listed = [_whole(s) for s in listed]
    if not isinstance(log_dir, (str, os.PathLike)) or not Path(log_dir).is_dir():
        raise _wrong(f"`log_dir` is {_shown(log_dir)}, which is not the folder your SummaryWriter wrote to",
                     f"`log_dir`是{_shown(log_dir)}，它不是你的SummaryWriter写入的文件夹")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(log_dir))
    events.Reload()
    logged = {tag: [e.step for e in events.Scalars(tag)] for tag in events.Tags().get("scalars", [])}
    if not logged:
        raise _wrong("the event files in `log_dir` hold no scalar", "`log_dir`里的事件文件没有任何标量")
    if listed not in logged.values():
        raise _wrong(f"`steps` is {listed}, but no tag in the event files of `log_dir` has these steps",
                     f"`steps`是{listed}，但`log_dir`的事件文件里没有哪个标签的步数是这些")
    if listed in ([0, 1, 2, 3], [1, 2, 3, 4]):
        raise _wrong(f"`steps` is {listed}: global_step counts the values logged, not the batches seen",
                     f"`steps`是{listed}：这样global_step数的是记录的次数，而不是看过的批量数")
    if listed == [4, 9, 14, 19]:
        raise _wrong("`steps` is [4, 9, 14, 19]: when the first value is logged, more batches than 4 have been seen",
                     "`steps`是[4, 9, 14, 19]：记录第一个值的时候，看过的批量不止4个")
    if listed != [5, 10, 15, 20]:
        raise _wrong(f"`steps` is {listed}: not one value every 5 of 20 batches, at the number of batches seen",
                     f"`steps`是{listed}：不是20个批量中每5个记录一次、步数为已看过的批量数")


def _check_06_2(resume: Callable[[Path], Any], checkpoint: Path, hidden: bool = False) -> None:
    _is_callable(resume, "resume")
    stored = torch.load(checkpoint, map_location="cpu", weights_only=True)
    shown = f"resume({utils.shown_path(checkpoint)!r})"
    got = _call(shown, resume, checkpoint)
    if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], nn.Module)
            and isinstance(got[1], torch.optim.Optimizer)):
        raise _wrong(f"`{shown}` returned {_shown(got)}; return (model, optimizer)",
                     f"`{shown}`返回了{_shown(got)}；应返回(model, optimizer)")
    model, optimizer = got
    for name, value in model.state_dict().items():
        if name not in stored["model"] or not torch.equal(value.cpu(), stored["model"][name]):
            raise _wrong(f"the model's `{name}` is not the checkpoint's", f"模型的`{name}`不是检查点里的")
    params = list(model.parameters())
    if {id(p) for group in optimizer.param_groups for p in group["params"]} != {id(p) for p in params}:
        raise _wrong("the optimizer does not update the returned model's parameters",
                     "优化器更新的不是返回的模型的参数")
    saved = stored["optimizer"]["state"]
    buffers = [optimizer.state.get(p, {}).get("momentum_buffer") for p in params]
    if len(saved) != len(params) or any(
            b is None or not torch.equal(b.cpu(), saved[i]["momentum_buffer"]) for i, b in enumerate(buffers)):
        raise _wrong("the optimizer's momentum buffers are not the checkpoint's",
                     "优化器的动量缓冲区不是检查点里的")
    # One step with large gradients: it must run, clip them to a total norm of 5, and update as SGD does.
    generator = torch.Generator().manual_seed(7 if hidden else 3)
    scale = 40.0 if hidden else 100.0
    for p in params:
        p.grad = (scale * torch.randn(p.shape, generator=generator)).to(p.device, p.dtype)
    before = [p.detach().clone() for p in params]
    momentum = [b.detach().clone() for b in buffers]
    _call("optimizer.step()", optimizer.step)
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad.float()) for p in params])).item()
    if not math.isclose(norm, 5.0, rel_tol=1e-4):
        raise _wrong(f"after `optimizer.step()` on gradients of total norm above 5, their norm is {norm:.4g}: the "
                     "gradient clipping is not the lesson's",
                     f"在总范数超过5的梯度上调用`optimizer.step()`之后，它们的范数是{norm:.4g}：梯度裁剪和课上的不一样")
    for p, old, buffer, group in ((p, o, b, g) for g in optimizer.param_groups for p, o, b in
                                  zip(params, before, momentum, strict=True) if any(p is q for q in g["params"])):
        update = group["lr"] * (group["momentum"] * buffer + p.grad)
        if not torch.allclose(p.detach(), old - update, atol=1e-6, rtol=1e-5):
            raise _wrong("`optimizer.step()` did not update the parameters as SGD with the checkpoint's momentum does",
                         "`optimizer.step()`没有按照带检查点动量的SGD那样更新参数")


def _check_06_3(augment: Callable[[Any], Any], hidden: bool = False) -> None:
    _is_callable(augment, "augment")
    from lessons import cifar10

    try:
        copy = pickle.loads(pickle.dumps(augment))
    except Exception as error:
        raise _wrong(f"`augment` cannot be pickled ({type(error).__name__}), so worker processes started with "
                     "'spawn' cannot have it",
                     f"`augment`无法被pickle（{type(error).__name__}），用“spawn”启动的工作进程就拿不到它") from error
    image = np.random.default_rng(1 if hidden else 0).integers(0, 256, size=(32, 32, 3), dtype=np.uint8)
    torch.manual_seed(1 if hidden else 0)
    outputs = [_call("augment(image)", copy, image) for _ in range(40)]
    if not all(isinstance(o, torch.Tensor) and o.shape == (3, 32, 32) and o.dtype == torch.float32 for o in outputs):
        raise _wrong("`augment(image)` of a uint8 (32, 32, 3) image is not a float32 (3, 32, 32) tensor",
                     "`augment(image)`作用于uint8 (32, 32, 3)图像的结果不是float32 (3, 32, 32)张量")
    mean, std = (torch.tensor(v).view(3, 1, 1) for v in (cifar10.MEAN, cifar10.STD))
    plain = torch.from_numpy(image).permute(2, 0, 1).float() / 255
    norm = (plain - mean) / std
    # Every augmented image: a 32x32 window of the image padded by 4 (with zeros before or after normalising, or
    # mirrored, or the edge repeated), flipped or not, normalised as the test transform does. The window's centre
    # finds its place (padding never reaches it), then the whole window is compared.
    padded = [nn.functional.pad(plain, (4,) * 4), nn.functional.pad(plain[None], (4,) * 4, mode="reflect")[0],
              nn.functional.pad(plain[None], (4,) * 4, mode="replicate")[0]]
    bigs = torch.stack([*((p - mean) / std for p in padded), nn.functional.pad(norm, (4,) * 4)])  # (4, 3, 40, 40)
    centres = bigs[0].unfold(1, 8, 1).unfold(2, 8, 1)[:, 12:21, 12:21]  # (3, 9, 9, 8, 8): no padding reaches them
    seen = []  # (shift, flipped) of each output
    for out in outputs:
        found = None
        for flipped, window in ((False, out), (True, out.flip(-1))):
            distance = (centres - window[:, None, None, 12:20, 12:20]).abs().amax(dim=(0, 3, 4))  # (9, 9)
            i, j = divmod(int(distance.argmin()), 9)
            full = (bigs[:, :, i : i + 32, j : j + 32] - window).abs().amax(dim=(1, 2, 3)).min()
            if full <= 1e-4:
                found = (max(abs(i - 4), abs(j - 4)), flipped)
        if found is None:
            unnormalised = float(out.min()) >= 0 and float(out.max()) <= 1
            raise _wrong("`augment(image)` is not normalised as the test transform is" if unnormalised else
                         "`augment(image)` is not a window of the image padded by 4 pixels, flipped or not, "
                         "normalised as the test transform is",
                         "`augment(image)`没有像测试变换那样归一化" if unnormalised else
                         "`augment(image)`不是四周填充4个像素的图像中的一个窗口（可能水平翻转），再像测试变换那样归一化")
        seen.append(found)
    if {flipped for _, flipped in seen} != {False, True}:
        raise _wrong("in 40 calls, `augment(image)` never flipped the image, or always did",
                     "调用40次，`augment(image)`从不翻转图像，或者每次都翻转")
    if max(shift for shift, _ in seen) < 4:
        raise _wrong("in 40 calls, `augment(image)` never shifted the image by 4 pixels: the crop is not random "
                     "over the image padded by 4",
                     "调用40次，`augment(image)`从没有把图像平移4个像素：裁剪不是在四周填充4个像素的图像上随机进行的")


# ---- 07 --------------------------------------------------------------------------------------------------------------
def _check_07_1(dropped: Any, data: dict[str, Any], pet_dir: Path) -> None:
    from lessons import petimages

    listed = _sequence(dropped) if not isinstance(dropped, set) else sorted(dropped)
    if listed is None or not all(isinstance(name, str) for name in listed):
        raise _wrong(f"`dropped` is {_shown(dropped)}; give the list of file names, e.g. ['Cat/1.jpg']",
                     f"`dropped`是{_shown(dropped)}；请给出文件名列表，例如['Cat/1.jpg']")
    names = {name.replace("\\", "/") for name in listed}
    kept = set(data["files"])
    if outside := sorted(names - kept):
        raise _wrong(f"`dropped` names {outside[:3]}, which the default build did not keep either",
                     f"`dropped`里的{outside[:3]}本来就没有被默认构建保留")
    for name in sorted(names):
        _, notes, _ = petimages.load_photo(Path(pet_dir) / name, size=8, keep_truncated=False)
        if notes.get("unreadable") != "truncated":
            raise _wrong(f"`{name}` is not a truncated JPEG: keep_truncated=False keeps it",
                         f"`{name}`不是截断的JPEG：keep_truncated=False也会保留它")
    truncated = sum(counts.get("truncated", 0) for counts in data["counts"].values())
    if len(names) != truncated:
        raise _wrong(f"`dropped` names {len(names)} files, not every file that keep_truncated=False drops",
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


def _check_07_2(gradients: Callable[[float], Any], hidden: bool = False) -> None:
    _is_callable(gradients, "gradients")
    for p in (0.3, 0.77, 0.05) if hidden else (0.5, 0.1, 0.01, 0.9):
        shown = f"gradients({p})"
        with _backward_runs() as ran:
            got = _call(shown, gradients, p)
        pair = _sequence(got)
        if pair is None or len(pair) != 2 or any(_number(v) is None for v in pair):
            raise _wrong(f"`{shown}` returned {_shown(got)}; return two numbers (cross-entropy's, softmax + MSE's)",
                         f"`{shown}`返回了{_shown(got)}；应返回两个数（交叉熵的，softmax + MSE的）")
        if not ran[0]:
            raise _wrong(f"`{shown}` ran no backward pass: the exercise asks for the gradients autograd computes, "
                         "not a formula's",
                         f"`{shown}`没有运行反向传播：练习要的是自动微分算出的梯度，不是公式算出的")
        ce, mse = (_number(v) for v in pair)
        if abs(ce - (p - 1)) > 1e-4:
            extra = (": is the correct class the third one?", "：正确类别是第三个吗？") if abs(ce + p / 2) < 1e-4 else (
                "", "")
            raise _wrong(f"`{shown}` gives {ce:+.4f} for cross-entropy, which is not p − 1{extra[0]}",
                         f"`{shown}`给出的交叉熵梯度是{ce:+.4f}，不等于p − 1{extra[1]}")
        expected = -p * (1 - p) ** 2
        if abs(mse - expected) > 1e-4:
            extra = ("; F.mse_loss averages over the 3 outputs", "；F.mse_loss对3个输出取平均") \
                if abs(mse - 3 * expected) < 1e-4 else ("", "")
            raise _wrong(f"`{shown}` gives {mse:+.4f} for softmax + MSE, which is not −p(1 − p)²{extra[0]}",
                         f"`{shown}`给出的softmax + MSE梯度是{mse:+.4f}，不等于−p(1 − p)²{extra[1]}")


def _check_07_3(flatten_size: Any) -> None:
    value = _need_number("flatten_size", flatten_size, whole=True)
    if value == 128 * 2 * 2:
        raise _wrong("`flatten_size` is 128 x 2 x 2, the size for 50x50 images",
                     "`flatten_size`是128 x 2 x 2，这是50x50图像的大小")
    if value != 2048:
        raise _wrong(f"`flatten_size` is {value}: not the flatten size that `Net(size=64)` computes",
                     f"`flatten_size`是{value}：这不是`Net(size=64)`算出的展平大小")


# ---- 08 --------------------------------------------------------------------------------------------------------------
def _check_08_1(shard_sizes: Any, appearing_twice: Any) -> None:
    sizes = _sequence(shard_sizes)
    if sizes is None or len(sizes) != 3 or any(_whole(s) is None for s in sizes):
        raise _wrong(f"`shard_sizes` is {_shown(shard_sizes)}; give the three shards' lengths",
                     f"`shard_sizes`是{_shown(shard_sizes)}；请给出三个分片的长度")
    sizes = [_whole(s) for s in sizes]
    if sum(sizes) == 512:
        raise _wrong(f"`shard_sizes` is {sizes}: shards that add up to 512 split the examples without repeating any; "
                     "list each rank's sampler and count",
                     f"`shard_sizes`是{sizes}：加起来是512的分片不重复任何样本；请列出每个rank的采样器再数一数")
    if sizes != [171, 171, 171]:
        raise _wrong(f"`shard_sizes` is {sizes}: not the lengths of the three samplers' lists",
                     f"`shard_sizes`是{sizes}：这不是三个采样器列表的长度")
    if _whole(appearing_twice) != 1:
        raise _wrong(f"`appearing_twice` is {_shown(appearing_twice)}: count all indices over the three shards, and "
                     "the distinct ones",
                     f"`appearing_twice`是{_shown(appearing_twice)}：数一数三个分片的下标总数，以及其中不同下标的个数")


def _check_08_2(moved_with_set_epoch: Any, moved_without: Any) -> None:
    from torch.utils.data import DistributedSampler

    with_set_epoch = _need_number("moved_with_set_epoch", moved_with_set_epoch, whole=True)
    without = _need_number("moved_without", moved_without, whole=True)
    sampler = DistributedSampler(range(512), num_replicas=2, rank=0, shuffle=True, seed=0)  # only the length counts
    first = list(sampler)
    sampler.set_epoch(1)
    moved = sum(a != b for a, b in zip(first, list(sampler), strict=True))  # this PyTorch's shuffle, exactly
    if without != 0:
        raise _wrong(f"`moved_without` is {without}: list epochs 0 and 1 from one sampler without `set_epoch`, and "
                     "compare them position by position",
                     f"`moved_without`是{without}：用同一个采样器、不调用`set_epoch`列出第0轮和第1轮，再逐个位置比较")
    if with_set_epoch != moved:
        raise _wrong(f"`moved_with_set_epoch` is {with_set_epoch}: not the number of positions at which the two "
                     "epochs' lists differ when `sampler.set_epoch(epoch)` is called before each",
                     f"`moved_with_set_epoch`是{with_set_epoch}：这不是每轮列出之前调用`sampler.set_epoch(epoch)`时，"
                     "两轮列表中不同位置的个数")


def _check_08_3(step_in_halves: Callable[..., Any], hidden: bool = False) -> None:
    _is_callable(step_in_halves, "step_in_halves")
    torch.manual_seed(1 if hidden else 0)
    batch, width = (48, 6) if hidden else (32, 8)
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
    _call("step_in_halves(model, optimizer, x, y)", step_in_halves, halves, optimizer, x, y)
    before = [p.detach() for p in start.parameters()]
    full = [a.detach() - b for a, b in zip(whole.parameters(), before, strict=True)]
    mine = [a.detach() - b for a, b in zip(halves.parameters(), before, strict=True)]
    if sorted(sizes) != [batch // 2] * 2:
        raise _wrong(f"`step_in_halves` ran the model on batches of {sizes} for a batch of {batch}: not its two halves",
                     f"对{batch}个样本的批量，`step_in_halves`在大小为{sizes}的批量上运行了模型：不是它的两半")
    if all(torch.equal(m, torch.zeros_like(m)) for m in mine):
        raise _wrong("`step_in_halves` did not change the weights", "`step_in_halves`没有改变权重")
    if all(torch.allclose(m, f, atol=1e-6) for m, f in zip(mine, full, strict=True)):
        return
    if all(torch.allclose(m, 2 * f, atol=1e-6) for m, f in zip(mine, full, strict=True)):
        raise _wrong("the step is twice one step on the whole batch", "这一步是在整个批量上走一步的两倍")
    if all(torch.allclose(m, f - 0.1, atol=1e-6) for m, f in zip(mine, full, strict=True)):
        raise _wrong("the step also used the gradients that were there before `step_in_halves` was called",
                     "这一步还用上了调用`step_in_halves`之前就已经存在的梯度")
    raise _wrong(f"the weights differ from one step on the whole batch of {batch}",
                 f"权重与在{batch}个样本的整个批量上走一步的结果不同")


# ---- 09 --------------------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _cuda_events_used() -> Iterator[list[str]]:
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


def _check_09_1(time_ms: Callable[..., Any], hidden: bool = False) -> None:
    _is_callable(time_ms, "time_ms")
    device = utils.get_device()
    sleep = 0.035 if hidden else 0.02
    shown = f"time_ms(lambda: time.sleep({sleep}), device)"
    with _cuda_events_used() as calls:
        got = _call(shown, time_ms, lambda: time.sleep(sleep), device)
    value = _number(got)
    if value is None:
        raise _wrong(f"`{shown}` returned {_shown(got)}; return a number of milliseconds",
                     f"`{shown}`返回了{_shown(got)}；应返回毫秒数")
    if device.type == "cuda" and not {"record", "elapsed_time"} <= set(calls):
        raise _wrong(f"on {device}, `{shown}` did not time with CUDA events",
                     f"在{device}上，`{shown}`没有用CUDA事件计时")
    if 0.75 * sleep <= value <= 2:
        raise _wrong(f"`{shown}` returned {value:.3f}: seconds, not milliseconds",
                     f"`{shown}`返回了{value:.3f}：这是秒，不是毫秒")
    if not 750 * sleep <= value <= 2000:  # a sleep takes at least its time; a loaded machine adds to it
        raise _wrong(f"`{shown}` returned {value:.3f}, which is not the milliseconds a {sleep * 1e3:.0f} ms sleep "
                     "takes",
                     f"`{shown}`返回了{value:.3f}，这不是睡眠{sleep * 1e3:.0f}毫秒所用的毫秒数")


def _check_09_2(sizes: Any, rates: Any, big_batch: int) -> None:
    expected = sorted({16, 32, 64, 128, big_batch})
    listed = _sequence(sizes)
    if listed is None or sorted(_whole(s) or 0 for s in listed) != expected:
        raise _wrong(f"`sizes` is {_shown(sizes)}: not the batch sizes the exercise asks for",
                     f"`sizes`是{_shown(sizes)}：不是练习要求的那些批量大小")
    figures = _sequence(rates)
    if figures is None or len(figures) != len(listed):
        raise _wrong("`rates` needs one images/s figure per batch size", "`rates`要为每个批量大小给出一个“张/秒”数值")
    if not all((_number(r) or 0) > 0 for r in figures):
        raise _wrong(f"`rates` holds {_shown(rates)}; images per second are positive numbers",
                     f"`rates`是{_shown(rates)}；每秒图像数应是正数")


_STEP_FLOPS, _FORWARD_FLOPS, _STEP_WITH_IMAGE_GRAD_FLOPS = 138_419_712, 49_416_704, 148_250_112
"""FlopCounterMode's counts for lesson 09's ``probe`` (``cifar10.cnn()``) on a batch of 2: a training step,
the forward pass alone, and a step with images that require a gradient (tests/test_exercises.py recounts them)."""


def _check_09_3(forwards_per_step: Any, forwards_with_image_grad: Any, no_grad_layer: Any) -> None:
    per_step = _need_number("forwards_per_step", forwards_per_step)
    with_grad = _need_number("forwards_with_image_grad", forwards_with_image_grad)
    if per_step == 3:
        raise _wrong("`forwards_per_step` is exactly 3, the rule of thumb; the exercise asks what the counts give",
                     "`forwards_per_step`正好是3，这是经验法则；练习问的是计数算出来的结果")
    # FLOP counts are exact, the same on every device: a ratio computed from them is exact too
    if not math.isclose(per_step, _STEP_FLOPS / _FORWARD_FLOPS, rel_tol=1e-6):
        raise _wrong(f"`forwards_per_step` is {per_step}: not a training step's FLOPs divided by the forward pass's, "
                     "both counted for the same batch",
                     f"`forwards_per_step`是{per_step}：这不是同一个批量上训练一步的FLOP除以前向传播的FLOP")
    if not math.isclose(with_grad, _STEP_WITH_IMAGE_GRAD_FLOPS / _FORWARD_FLOPS, rel_tol=1e-6):
        raise _wrong(f"`forwards_with_image_grad` is {with_grad}: not what the count gives with images that require a "
                     "gradient",
                     f"`forwards_with_image_grad`是{with_grad}：这不是图像需要梯度时计数得到的结果")
    if _whole(no_grad_layer) != 0:
        raise _wrong(f"`no_grad_layer` is {_shown(no_grad_layer)}: that layer's input needs a gradient in a training "
                     "step",
                     f"`no_grad_layer`是{_shown(no_grad_layer)}：训练一步时，这一层的输入是需要梯度的")


# ---- 10 --------------------------------------------------------------------------------------------------------------
_CONV_OUTPUTS = [(32, 32, 32), (32, 16, 16), (64, 8, 8)]
_POOLED = [(32, 16, 16), (32, 8, 8), (64, 4, 4)]
_SAVED_PER_IMAGE, _SAVED_PER_BATCH = 315_688, 4
"""Bytes that ``cifar10.cnn()`` and its cross-entropy save for backward per 3x32x32 image (lesson 10,
sections 2 and 3), and per batch whatever its size."""


def _check_10_1(per_image: Any) -> None:
    value = _need_number("per_image", per_image, whole=True)
    indices = sum(8 * math.prod(shape) for shape in _POOLED)
    if value == _SAVED_PER_IMAGE - indices:
        raise _wrong("`per_image` leaves out the max-pools' int64 indices",
                     "`per_image`漏掉了最大汇聚层保存的int64下标")
    if value == _SAVED_PER_IMAGE - indices // 2:
        raise _wrong("`per_image` counts the max-pools' indices at 4 bytes; they are int64",
                     "`per_image`把最大汇聚层的下标按4字节算了；它们是int64")
    if value == _SAVED_PER_IMAGE - 4 * 64 - 4 * 10:
        raise _wrong("`per_image` leaves out the linear layers' outputs", "`per_image`漏掉了全连接层的输出")
    if value != _SAVED_PER_IMAGE:
        raise _wrong(f"`per_image` is {value:,}, which is not section 3's bytes per image: list what each layer saves "
                     "again (section 2)",
                     f"`per_image`是{value:,}，与第3节测得的每张图像字节数不符：请再列一遍每层保存了什么（第2节）")


def _check_10_2(share: Any) -> None:
    value = _need_number("share", share)
    if 70 <= value <= 76:
        raise _wrong("`share` is a percentage; give a fraction between 0 and 1",
                     "`share`是百分数；请给出0到1之间的比例")
    if not 0.70 <= value <= 0.76:  # the bytes saved depend on the device's kernels (cuDNN saves its own): a margin
        raise _wrong(f"`share` is {value:.3g}: not the bytes checkpointing the first block saves, divided by the "
                     "bytes checkpointing all four saves",
                     f"`share`是{value:.3g}：这不是只检查点第一块省下的字节数除以检查点全部四块省下的字节数")


def _check_10_3(adam_largest: Any, sgd_largest: int, budget: int) -> None:
    value = _need_number("adam_largest", adam_largest, whole=True)
    if value <= 0:
        raise _wrong(f"`adam_largest` is {value}; give the largest batch size that fits",
                     f"`adam_largest`是{value}；请给出能放下的最大批量大小")
    if torch.cuda.is_available():  # a real GPU: its caching allocator rounds blocks up, so a margin (not run yet)
        if not 0.75 * sgd_largest <= value <= 1.05 * sgd_largest:
            raise _wrong(f"`adam_largest` is {value}, far from what the same budget holds with SGD ({sgd_largest}) "
                         "for a model this small",
                         f"`adam_largest`是{value}，对这么小的模型来说，与SGD在同样预算下的结果（{sgd_largest}）相差太远")
        return
    from lessons import cifar10

    params = sum(p.numel() * p.element_size() for p in cifar10.cnn().parameters())
    if value != (budget - 3 * params - _SAVED_PER_BATCH) // _SAVED_PER_IMAGE:  # the simulation on a CPU is exact
        raise _wrong(f"`adam_largest` is {value}: not the largest batch whose saved activations fit the budget beside "
                     "Adam's gradients and state",
                     f"`adam_largest`是{value}：这不是在Adam的梯度和状态之外、保存的激活值还能放进预算的最大批量")


# ---- the exercises ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Exercise:
    """One exercise: what its answer cell defines, how it is checked, a hint, and how it is graded."""

    lesson: str
    """The notebook's two-digit number, e.g. ``"02"``."""
    number: int
    """The exercise's number in its notebook (1, 2, ...)."""
    answers: tuple[str, ...]
    """The names the answer cell defines: a function or class (its stub raises ``NotImplementedError``), or values
    (their stub is ``None``); passed to the check in this order."""
    verify: Callable[..., None]
    """Raises ``Wrong`` (or ``NotAnswered``) for the answers; returns for a right one."""
    hint_en: str
    hint_zh: str
    context: tuple[str, ...] = ()
    """Names from the notebook that the check needs besides the answers, passed by keyword (e.g. ``big_batch``)."""
    explain_en: str = ""
    """The part that asks why, graded by a person (nbgrader's manually graded answer); empty if none."""
    explain_zh: str = ""
    points: int = 2
    """Points of the checked part in nbgrader."""
    explain_points: int = 1
    """Points of the explanation, where there is one."""

    @property
    def hint(self) -> str:
        """The hint in the edition's language."""
        return _say(self.hint_en, self.hint_zh)

    @property
    def explain(self) -> str:
        """The question graded by a person, in the edition's language ("" if none)."""
        return _say(self.explain_en, self.explain_zh)

    @property
    def has_hidden(self) -> bool:
        """Whether the check has hidden cases (``hidden=True``): other inputs for a function or class answer."""
        return "hidden" in inspect.signature(self.verify).parameters


_LIST = [
    Exercise("01", 1, ("usable_devices",), _check_01_1,
             "Sections 2 and 3 (“Is there a GPU? `torch.cuda`”, “Device names”) show what to ask PyTorch, and how a "
             "GPU is named.",
             "第2节（“有没有GPU？`torch.cuda`”）和第3节（“设备名称”）讲了该问PyTorch什么，以及GPU怎么命名。"),
    Exercise("01", 2, ("visible_gpus",), _check_01_2,
             "Section 5 (“Choosing GPUs with `CUDA_VISIBLE_DEVICES`”) and the exercise's text give CUDA's rule; go "
             "through the entries in order.",
             "第5节（“用`CUDA_VISIBLE_DEVICES`选择GPU”）和练习的题目给出了CUDA的规则；按顺序逐项看。"),
    Exercise("01", 3, ("memory_of",), _check_01_3,
             "Section 1 introduces `meta` (“What must live on the GPU, and what need not”); a tensor knows its "
             "elements' size, and where its data is.",
             "第1节（“哪些东西必须放在GPU上，哪些不必”）介绍了`meta`；张量知道自己每个元素的大小，也知道数据在哪里。"),
    Exercise("02", 1, ("module_device",), _check_02_1,
             "Section 3 (“Checking where a module lives”): a module's tensors are its parameters and its buffers.",
             "第3节（“检查模块在哪里”）：模块的张量就是它的参数和缓冲区。"),
    Exercise("02", 2, ("missing", "bytes_left_on_cpu"), _check_02_2,
             "Section 3 (“Checking where a module lives”): compare what `utils.placement` lists with what `__init__` "
             "creates, then ask each tensor where it is.",
             "第3节（“检查模块在哪里”）：把`utils.placement`列出的和`__init__`创建的对照一下，再逐个问张量在哪里。",
             explain_en="Why is that tensor missing, and what does `.to()` do with it?",
             explain_zh="为什么少了这个张量？`.to()`会怎样处理它？"),
    Exercise("02", 3, ("tensors_held",), _check_02_3,
             "Section 5 (“Loss weights, `new_*` and `*_like`”) shows a loss module that holds a tensor.",
             "第5节（“损失的权重、`new_*`和`*_like`”）展示了一个持有张量的损失模块。"),
    Exercise("03", 1, ("LowerTriangle",), _check_03_1,
             "Section 4 (“A constant weight: buffers, not plain tensors”), then Going deeper's “Saving the constant”.",
             "第4节（“常量权重：用缓冲区，而不是普通张量”），再看进阶部分的“保存这个常量”。",
             explain_en="Why is `persistent=False` right here and wrong for `FixedHiddenMLP`?",
             explain_zh="为什么这里适合用`persistent=False`，而`FixedHiddenMLP`不适合？"),
    Exercise("03", 2, ("Parallel",), _check_03_2,
             "Section 3 (“Writing `Sequential` yourself”): how a module registers the modules it holds.",
             "第3节（“自己实现`Sequential`”）：模块怎样注册它持有的模块。"),
    Exercise("03", 3, ("in_features",), _check_03_3,
             "Section 6 (“Lazy layers: shapes at the first call”): a lazy layer takes its size from the first batch.",
             "第6节（“惰性层：第一次调用时才确定形状”）：惰性层从第一个批量得到自己的大小。",
             explain_en="Why is a lazy layer handy here?", explain_zh="为什么这里用惰性层很方便？"),
    Exercise("04", 1, ("n_params", "n_state"), _check_04_1,
             "Section 1 (“Reaching the parameters”) lists a model's tensors both ways.",
             "第1节（“参数访问”）用两种方式列出了模型的张量。",
             explain_en="Why do the two numbers differ, and what does `.to(device)` move?",
             explain_zh="为什么两个数不同？`.to(device)`会移动哪些张量？"),
    Exercise("04", 2, ("values_after_device", "values_after_float16", "values_after_meta"), _check_04_2,
             "Section 4 (“Tied parameters”), then Going deeper's “Moving to and from `meta`”; `parameters()` lists a "
             "shared parameter once.",
             "第4节（“参数绑定”），再看进阶部分的“移入和移出`meta`”；`parameters()`只列出共享参数一次。"),
    Exercise("04", 3, ("init_orthogonal",), _check_04_3,
             "Section 3 (“Initialisation”) writes initialisers for `apply`, which calls them on every submodule.",
             "第3节（“参数初始化”）为`apply`写了初始化函数，`apply`会对每个子模块调用它。"),
    Exercise("05", 1, ("resumed_fresh", "largest_difference"), _check_05_1,
             "Section 4 (“Training checkpoints”) resumes with the optimizer's state: do the same without it, then "
             "compare the two `state_dict`s tensor by tensor.",
             "第4节（“训练检查点”）恢复训练时加载了优化器的状态：不加载它，再做一遍，然后逐个张量比较两个`state_dict`。",
             context=("uninterrupted", "checkpoint", "resumed_no_rng"),
             explain_en="Why is (or isn't) the result identical?", explain_zh="为什么结果相同（或不同）？"),
    Exercise("05", 2, ("param_bytes", "size_ratio"), _check_05_2,
             "Section 2 (“A model's `state_dict`”) saves and loads one; a tensor's bytes are `nbytes`, a file's size "
             "is `Path.stat().st_size`.",
             "第2节（“模型的`state_dict`”）保存并加载了它；张量的字节数是`nbytes`，文件大小是`Path.stat().st_size`。"),
    Exercise("05", 3, ("keep_best",), _check_05_3,
             "Going deeper's “Writing checkpoints atomically”. A tie does not beat the best score.",
             "进阶部分的“原子化地写入检查点”。分数持平不算超过最好成绩。"),
    Exercise("06", 1, ("steps", "log_dir"), _check_06_1,
             "Section 6 (“Training, with TensorBoard and checkpoints”) logs and reads back scalars; Going deeper's "
             "“The sources' TensorBoard steps” says what a step counts.",
             "第6节（“训练，同时记录TensorBoard日志并保存检查点”）记录并读回了标量；进阶部分的“原文的TensorBoard步数”"
             "讲了步数数的是什么。"),
    Exercise("06", 2, ("resume",), _check_06_2,
             "Section 6 (“Training, with TensorBoard and checkpoints”) saves the checkpoint; Going deeper's “Why the "
             "gradients are clipped” shows the clipping.",
             "第6节（“训练，同时记录TensorBoard日志并保存检查点”）保存了检查点；进阶部分的“为什么要裁剪梯度”展示了梯度裁剪。",
             context=("checkpoint",)),
    Exercise("06", 3, ("augment",), _check_06_3,
             "torchvision's transforms do each step; Going deeper's “Worker processes: why the dataset lives in a "
             "module” says what a worker needs.",
             "torchvision的变换能完成每一步；进阶部分的“工作进程：为什么数据集要放在模块里”讲了工作进程需要什么。"),
    Exercise("07", 1, ("dropped",), _check_07_1,
             "Section 2 (“From two folders to one clean tensor”) explains the cleaning report and `keep_truncated`.",
             "第2节（“从两个文件夹到一个干净的张量”）讲了清洗报告和`keep_truncated`。",
             context=("data", "pet_dir")),
    Exercise("07", 2, ("gradients",), _check_07_2,
             "Section 5 (“Why cross-entropy, not softmax + MSE”) and Going deeper's “How hard each loss pushes” do it "
             "for two classes.",
             "第5节（“为什么用交叉熵，而不是softmax + MSE”）和进阶部分的“两种损失各自推动得有多用力”"
             "做的是两个类别的情况。"),
    Exercise("07", 3, ("flatten_size",), _check_07_3,
             "Section 4 (“The network, with its flatten size computed”).",
             "第4节（“网络：自己算出展平后的大小”）。"),
    Exercise("08", 1, ("shard_sizes", "appearing_twice"), _check_08_1,
             "Section 2 (“The training function, in full”) uses `DistributedSampler`; given `num_replicas` and "
             "`rank`, it needs no process group.",
             "第2节（“完整的训练函数”）用到了`DistributedSampler`；给定`num_replicas`和`rank`时，它不需要进程组。",
             explain_en="Why does the sampler repeat examples?", explain_zh="采样器为什么要重复一些样本？"),
    Exercise("08", 2, ("moved_with_set_epoch", "moved_without"), _check_08_2,
             "Section 2 (“The training function, in full”) calls `set_epoch` every epoch.",
             "第2节（“完整的训练函数”）每轮都调用了`set_epoch`。"),
    Exercise("08", 3, ("step_in_halves",), _check_08_3,
             "Section 1 (“What data parallelism computes”): averaged gradients of the parts equal the whole batch's.",
             "第1节（“数据并行计算的是什么”）：各部分梯度的平均等于整个批量的梯度。"),
    Exercise("09", 1, ("time_ms",), _check_09_1,
             "Section 1 (“A GPU works in the background”) says what a clock must wait for; `time_runs` gives seconds.",
             "第1节（“GPU在后台工作”）讲了计时要等什么；`time_runs`给出的是秒。"),
    Exercise("09", 2, ("sizes", "rates"), _check_09_2,
             "Section 4 (“The ladder: one change at a time, timed in interleaved rounds”) times training steps.",
             "第4节（“提速阶梯：一次只改一件事，在交错进行的回合中计时”）给训练步计了时。",
             context=("big_batch",),
             explain_en="Where does the curve flatten on your device, and why?",
             explain_zh="在你的设备上曲线从哪里开始变平？为什么？"),
    Exercise("09", 3, ("forwards_per_step", "forwards_with_image_grad", "no_grad_layer"), _check_09_3,
             "Section 3 (“Count the work”) counts a training step's FLOPs.",
             "第3节（“数一数工作量”）统计了训练一步的FLOP。",
             explain_en="Why is a training step a little under three forward passes?",
             explain_zh="为什么训练一步略少于三次前向传播？"),
    Exercise("10", 1, ("per_image",), _check_10_1,
             "Section 2 (“Activations saved for backward”) lists what each layer saves.",
             "第2节（“为反向传播保存的激活值”）列出了每层保存的张量。"),
    Exercise("10", 2, ("share",), _check_10_2,
             "Section 6 (“When it runs out: four ways to need less”) checkpoints blocks and counts the saved bytes.",
             "第6节（“内存不够时：四种少用内存的办法”）对块做了检查点，并统计了保存的字节数。"),
    Exercise("10", 3, ("adam_largest",), _check_10_3,
             "Section 7 (“Recovering from an out-of-memory error”) searches with SGD; Going deeper's “Optimizer "
             "state, counted”.",
             "第7节（“从显存不足错误中恢复”）用SGD做了搜索；再看进阶部分的“统计优化器状态”。",
             context=("sgd_largest", "budget"),
             explain_en="Why does the largest batch change (or not)?", explain_zh="最大批量为什么变了（或没变）？"),
]

EXERCISES: dict[tuple[str, int], Exercise] = {(e.lesson, e.number): e for e in _LIST}
"""Every exercise, by (lesson, number)."""


def exercise(lesson: str, number: int) -> Exercise:
    """Return exercise ``number`` of notebook ``lesson`` ("02"); ValueError naming the known ones otherwise."""
    try:
        return EXERCISES[(lesson, number)]
    except KeyError:
        known = ", ".join(f"{e.lesson}/{e.number}" for e in _LIST)
        raise ValueError(f"no exercise {number} in notebook {lesson!r}; known: {known}") from None


@contextlib.contextmanager
def _untouched_rng() -> Iterator[None]:
    """Leave PyTorch's CPU generator and NumPy's global one as they were: a check never changes what runs next."""
    state = np.random.get_state()
    with torch.random.fork_rng(devices=[]):
        yield
    np.random.set_state(state)


def result(lesson: str, number: int, *answers: Any, hidden: bool = False, **context: Any) -> tuple[str, str]:
    """Return ``(status, sentence)`` for the answers: status ``"correct"``, ``"wrong"`` or ``"unanswered"``, the
    sentence in the edition's language. ``hidden=True`` runs the hidden cases instead of the visible ones (an
    exercise without hidden cases runs its visible ones)."""
    found = exercise(lesson, number)
    if len(answers) != len(found.answers) or set(context) != set(found.context):
        names = ", ".join([*found.answers, *(f"{n}={n}" for n in found.context)])
        raise TypeError(f"exercises.check({lesson!r}, {number}, ...) takes {names}")
    unanswered = [name for name, value in zip(found.answers, answers, strict=True) if value is None]
    try:
        if unanswered:
            raise NotAnswered
        with _untouched_rng():
            found.verify(*answers, **context, **({"hidden": True} if hidden and found.has_hidden else {}))
    except NotAnswered:
        return "unanswered", _unanswered(found, unanswered)
    except Wrong as error:
        label = _say(f"Exercise {number}", f"练习{number}")
        return "wrong", _say(f"{label}: not yet. {error}.", f"{label}：还不对。{error}。")
    except Exception as error:  # an answer of a kind no case foresaw: still a sentence, never a traceback
        label = _say(f"Exercise {number}", f"练习{number}")
        said = f"{type(error).__name__}: {str(error).strip().rstrip('.')}"
        return "wrong", _say(f"{label}: not yet. Your answer could not be checked ({said}): is it of the kind "
                             "the exercise asks for?",
                             f"{label}：还不对。无法检查你的答案（{said}）：它是练习要求的那种答案吗？")
    return "correct", _correct(found)


def _unanswered(found: Exercise, unanswered: list[str]) -> str:
    """The sentence for a stub: ``unanswered`` are the answers still ``None`` (none for a function's stub)."""
    label = _say(f"Exercise {found.number}", f"练习{found.number}")
    left = ", ".join(f"`{name}`" for name in unanswered)
    return _say(
        f"{label}: not answered yet" + (f" ({left} still None)" if left and len(found.answers) > 1 else "")
        + ": replace the stub in the cell above with your answer, run it, then run this check again.",
        f"{label}：尚未作答" + (f"（{left}仍是None）" if left and len(found.answers) > 1 else "")
        + "：把上面单元格里的占位代码换成你的答案，运行它，再运行这个检查。",
    )


def _correct(found: Exercise) -> str:
    """The sentence for a right answer, pointing to the explanation where the exercise also asks why."""
    label = _say(f"Exercise {found.number}", f"练习{found.number}")
    if not found.explain_en:
        return _say(f"{label}: correct.", f"{label}：正确。")
    extra = _say(f" The question \"{found.explain_en}\" is not for the check: answer it in words, for your teacher "
                 "or with a classmate.",
                 f"问题“{found.explain_zh}”不由检查判断：请用文字回答，交给老师，或和同学讨论。")
    return _say(f"{label}: correct.", f"{label}：正确。") + extra


@contextlib.contextmanager
def _in(lang: str) -> Iterator[None]:
    before = utils.language()
    utils.set_language(lang)
    try:
        yield
    finally:
        utils.set_language(before)


def _passes(found: Exercise) -> str:
    """The sentence under a solution's own check (``strict=True``): it speaks of the reference solution, so that
    after "Run all" no "correct" stands beside an exercise the student left blank."""
    label = _say(f"Exercise {found.number}", f"练习{found.number}")
    return _say(f"{label}: the reference solution passes the check.", f"{label}：参考答案通过了检查。")


def stored_sentence(text: str, lang: str) -> str:
    """Return ``text``, what checks printed in a stored output, with each line that is a check's sentence for a
    stub (every value still ``None``, or a function's stub), for a right answer or for a reference solution put in
    ``lang`` (``"en"`` or ``"zh"``); other lines stay as they are. The Chinese edition stores the English outputs
    this way (``tools/author/translate.py``), so that its stored checks read as they print when run."""
    table: dict[str, str] = {}
    for found in _LIST:
        variants = []
        for source in utils.LANGUAGES:
            with _in(source):
                variants.append((_unanswered(found, []), _unanswered(found, list(found.answers)), _correct(found),
                                 _passes(found)))
        with _in(lang):
            wanted = (_unanswered(found, []), _unanswered(found, list(found.answers)), _correct(found), _passes(found))
        for variant in variants:
            table.update(zip(variant, wanted, strict=True))
    return "\n".join(table.get(line, line) for line in text.split("\n"))


def check(lesson: str, number: int, *answers: Any, strict: bool = False, **context: Any) -> None:
    """Print whether the answers to exercise ``number`` of notebook ``lesson`` are right, or what is wrong, in one
    sentence; never raises for a wrong or missing answer. ``strict=True`` is for a solution's own check (under
    ``## Solutions``): it raises AssertionError with that sentence unless the answer is right, and for a right one
    prints that the reference solution passes (the student's own check, higher up, is the one that says "correct")."""
    status, sentence = result(lesson, number, *answers, **context)
    if strict and status != "correct":
        raise AssertionError(sentence)
    print(_passes(exercise(lesson, number)) if strict else sentence)


def grade(lesson: str, number: int, *answers: Any, hidden: bool = False, **context: Any) -> None:
    """nbgrader's autograded test: raise AssertionError with the check's sentence unless the answers are right;
    print the sentence for a right one. ``hidden=True`` runs the hidden cases (in the course's
    ``### BEGIN HIDDEN TESTS`` region, which the released notebook leaves out)."""
    status, sentence = result(lesson, number, *answers, hidden=hidden, **context)
    if status != "correct":
        raise AssertionError(sentence)
    print(sentence)


def hint(lesson: str, number: int) -> None:
    """Print a hint for exercise ``number`` of notebook ``lesson``."""
    print(_say(f"Hint for exercise {number}: ", f"练习{number}的提示：") + exercise(lesson, number).hint)
