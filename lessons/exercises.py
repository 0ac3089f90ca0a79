"""Checks for the lessons' exercises: under each exercise a student runs one line that says whether the answer is
right, and if not, what is wrong with it, in one sentence.

    from lessons import exercises

    exercises.check("02", 1, module_device)               # prints "Exercise 1: correct." or what is wrong
    exercises.hint("02", 1)                               # prints a hint
    exercises.check("02", 1, module_device, strict=True)  # raises AssertionError instead (nbgrader's tests)

An exercise's answer cell starts with a stub the student replaces: a function or class whose body raises
``NotImplementedError("your code here")``, or values set to ``None``. A check treats the stub as "not answered yet"
and never raises (unless ``strict``), so "Run all" goes on everywhere. Messages are in the edition's language
(``utils.set_language``, which each notebook's setup cell calls).

A check compares the answer's results with known results on cases, edge cases included; it holds no reference
solution (those are at the end of each notebook, under ``## Solutions``). Where an exercise asks for a measurement,
the answer is a number checked within a margin that holds on every device and every supported PyTorch; where it
asks why, the explanation is graded by a person (``EXERCISES[...].explain``) and the check says so. Checks run on
the CPU in about a second, leave the random number generators as they were, and train nothing.

Lesson module (see ``lessons/__init__.py`` for where code lives); its tests are in ``tests/test_exercises.py``.
"""

from __future__ import annotations

import contextlib
import math
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
        raise _wrong(f"`{name}` is {answer!r}, not a function: define it with `def {name}(...)`",
                     f"`{name}`是{answer!r}，不是函数：请用`def {name}(...)`定义它")


def _shown(value: Any) -> str:
    """A short repr for messages: devices and dtypes as their strings, tensors by shape."""
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {tuple(value.shape)}"
    if isinstance(value, (torch.device, torch.dtype)):
        return str(value)
    return repr(value)


# ---- 01 --------------------------------------------------------------------------------------------------------------
def _check_01_1(usable_devices: Callable[[], Any]) -> None:
    _is_callable(usable_devices, "usable_devices")
    found = _call("usable_devices()", usable_devices)
    if not isinstance(found, (list, tuple)):
        raise _wrong(f"`usable_devices()` returned {_shown(found)}; return a list of torch.device",
                     f"`usable_devices()`返回了{_shown(found)}；请返回由torch.device组成的列表")
    for item in found:
        if not isinstance(item, torch.device):
            raise _wrong(f"`usable_devices()` holds {item!r} ({type(item).__name__}); make each entry a torch.device",
                         f"`usable_devices()`里有{item!r}（{type(item).__name__}）；每一项都应该是torch.device")
    kinds = [d.type for d in found]
    if kinds.count("cpu") != 1:
        raise _wrong(f"`usable_devices()` lists the CPU {kinds.count('cpu')} times; every machine computes on its "
                     "CPU: list it once",
                     f"`usable_devices()`列出了{kinds.count('cpu')}次CPU；每台机器都能在CPU上计算，列出一次即可")
    gpus = [d for d in found if d.type == "cuda"]
    count = torch.cuda.device_count()
    if any(d.index is None for d in gpus):
        raise _wrong("`usable_devices()` lists `cuda` without a number, which means whichever GPU is current; list "
                     "each GPU by its number: cuda:0, cuda:1, ...",
                     "`usable_devices()`列出了不带编号的`cuda`，它指的是当前GPU；请按编号列出每块GPU：cuda:0、cuda:1……")
    if sorted(d.index for d in gpus) != list(range(count)):
        raise _wrong(f"`usable_devices()` lists the CUDA GPUs {[str(d) for d in gpus]}; this machine has {count} "
                     "(torch.cuda.device_count())",
                     f"`usable_devices()`列出的CUDA GPU是{[str(d) for d in gpus]}；这台机器有{count}块"
                     "（torch.cuda.device_count()）")
    has_mps = torch.backends.mps.is_available()
    if ("mps" in kinds) != has_mps:
        raise _wrong(f"`usable_devices()` {'leaves out' if has_mps else 'lists'} MPS, but "
                     f"torch.backends.mps.is_available() is {has_mps}",
                     f"`usable_devices()`{'漏掉了' if has_mps else '列出了'}MPS，"
                     f"但torch.backends.mps.is_available()是{has_mps}")
    if kinds.count("mps") > 1:
        raise _wrong("`usable_devices()` lists MPS more than once", "`usable_devices()`列出了不止一次MPS")
    if others := sorted(set(kinds) - {"cpu", "cuda", "mps"}):
        raise _wrong(f"`usable_devices()` lists {others}: a device this machine cannot compute on",
                     f"`usable_devices()`列出了{others}：这台机器不能在它上面计算")


def _check_01_2(visible_gpus: Callable[[str, int], Any]) -> None:
    _is_callable(visible_gpus, "visible_gpus")
    cases = [  # (value, GPUs, seen, why)
        ("1", 4, [1], ("the program sees one GPU, GPU 1", "程序只看到一块GPU，即GPU 1")),
        ("0,2,3", 4, [0, 2, 3], ("the listed GPUs, in the listed order", "列出的GPU，按列出的顺序")),
        ("3,1", 4, [3, 1], ("the listed order, not sorted: cuda:0 is GPU 3", "按列出的顺序，不排序：cuda:0是GPU 3")),
        ("0,2,-1,1", 4, [0, 2], ("-1 hides itself and every GPU listed after it", "-1会隐藏自己和它后面列出的所有GPU")),
        ("-1", 4, [], ("-1 hides every GPU", "-1会隐藏所有GPU")),
        ("", 4, [], ("an empty value hides every GPU", "空值会隐藏所有GPU")),
        ("0,7", 4, [0], ("a 4-GPU machine has no GPU 7: it hides itself and what follows",
                         "4块GPU的机器没有GPU 7：它隐藏自己和后面的一切")),
        ("4", 4, [], ("GPUs are numbered from 0: a 4-GPU machine has GPUs 0 to 3",
                      "GPU从0开始编号：4块GPU的机器只有GPU 0到3")),
        ("1,0", 2, [1, 0], ("the listed order on a 2-GPU machine", "2块GPU的机器上按列出的顺序")),
    ]
    for value, n_gpus, seen, (why_en, why_zh) in cases:
        got = _call(f"visible_gpus({value!r}, {n_gpus})", visible_gpus, value, n_gpus)
        if isinstance(got, tuple):
            got = list(got)
        if got != seen:
            raise _wrong(f"`visible_gpus({value!r}, {n_gpus})` returned {got!r}; expected {seen} ({why_en})",
                         f"`visible_gpus({value!r}, {n_gpus})`返回了{got!r}；应为{seen}（{why_zh}）")


def _check_01_3(bytes_needed: Any, really_allocates: Any) -> None:
    if isinstance(bytes_needed, bool) or not isinstance(bytes_needed, (int, float)):
        raise _wrong(f"`bytes_needed` is {bytes_needed!r}; give a number of bytes",
                     f"`bytes_needed`是{bytes_needed!r}；请给出字节数")
    elements = 10_000 * 10_000
    if bytes_needed == elements:
        raise _wrong("`bytes_needed` is the number of elements; each float32 element takes more than one byte",
                     "`bytes_needed`是元素个数；每个float32元素占不止一个字节")
    if bytes_needed == elements * 32:
        raise _wrong("`bytes_needed` counts bits: a byte holds 8 of them",
                     "`bytes_needed`数的是位（bit）：一个字节有8位")
    if bytes_needed != elements * 4:
        raise _wrong(f"`bytes_needed` is {bytes_needed:,}: that is not what 10,000 x 10,000 float32 elements take "
                     "(`numel() * element_size()`)",
                     f"`bytes_needed`是{bytes_needed:,}：这不是10,000 x 10,000个float32元素所占的字节数"
                     "（`numel() * element_size()`）")
    choices = ("meta", "cpu", "both")
    if really_allocates not in choices:
        raise _wrong(f"`really_allocates` is {really_allocates!r}; answer one of {choices}",
                     f"`really_allocates`是{really_allocates!r}；请回答{choices}之一")
    if really_allocates != "cpu":
        raise _wrong("a `meta` tensor has a shape but no data: its `data_ptr()` is 0, it allocates nothing",
                     "`meta`张量只有形状没有数据：它的`data_ptr()`是0，不分配任何内存")


# ---- 02 --------------------------------------------------------------------------------------------------------------
class _BufferOnly(nn.Module):
    """A module whose only tensor is a buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", torch.ones(2))


class _Mixed(nn.Module):
    """A parameter on the CPU, a buffer on ``meta``."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(2, 2)
        self.register_buffer("scale", torch.ones(2, device="meta"))


def _check_02_1(module_device: Callable[[nn.Module], Any]) -> None:
    _is_callable(module_device, "module_device")
    cpu, meta = torch.device("cpu"), torch.device("meta")
    cases = [
        ("nn.ReLU()", nn.ReLU(), None, ("a module without parameters or buffers has no device: return `None`",
                                        "没有参数也没有缓冲区的模块没有设备：应返回`None`")),
        ("nn.Linear(2, 2)", nn.Linear(2, 2), cpu, ("its parameters are on the CPU", "它的参数在CPU上")),
        ("nn.Linear(2, 2).to('meta')", nn.Linear(2, 2).to("meta"), meta, ("its parameters are on meta",
                                                                          "它的参数在meta上")),
        ("nn.BatchNorm1d(2)", nn.BatchNorm1d(2), cpu, ("parameters and buffers, all on the CPU",
                                                       "参数和缓冲区都在CPU上")),
        ("a module whose only tensor is a buffer on the CPU", _BufferOnly(), cpu,
         ("buffers count too: `module.buffers()`", "缓冲区也算：`module.buffers()`")),
    ]
    for shown, module, expected, (why_en, why_zh) in cases:
        got = _call(f"module_device({shown})", module_device, module)
        if isinstance(got, str):
            raise _wrong(f"`module_device({shown})` returned the string {got!r}; return a torch.device",
                         f"`module_device({shown})`返回了字符串{got!r}；应返回torch.device")
        if got != expected or (got is None) != (expected is None):
            raise _wrong(f"`module_device({shown})` returned {_shown(got)}; {why_en}",
                         f"`module_device({shown})`返回了{_shown(got)}；{why_zh}")
    shown = "a module with a parameter on cpu and a buffer on meta"
    try:
        got = module_device(_Mixed())
    except NotImplementedError as error:
        raise NotAnswered from error
    except ValueError as error:
        if "cpu" not in str(error) or "meta" not in str(error):
            raise _wrong(f"`module_device({shown})` raised ValueError({str(error)!r}); name both devices in it",
                         f"`module_device({shown})`抛出了ValueError({str(error)!r})；消息里要写出两个设备") from error
        return
    except Exception as error:
        raise _wrong(f"`module_device({shown})` raised {type(error).__name__}; raise a ValueError",
                     f"`module_device({shown})`抛出了{type(error).__name__}；应抛出ValueError") from error
    raise _wrong(f"`module_device({shown})` returned {_shown(got)}; mixed devices must raise a ValueError that "
                 "names them (did you look at the buffers?)",
                 f"`module_device({shown})`返回了{_shown(got)}；设备混杂时应抛出ValueError并写出这些设备"
                 "（看过缓冲区了吗？）")


def _check_02_2(missing: Any, stayed_on: Any) -> None:
    if missing != "offset":
        raise _wrong(f"`missing` is {missing!r}; `utils.placement(layer)` lists `bias`: which tensor of the layer "
                     "does it not list?",
                     f"`missing`是{missing!r}；`utils.placement(layer)`列出了`bias`：这一层的哪个张量没有列出？")
    if str(stayed_on) != "cpu":
        raise _wrong(f"`stayed_on` is {stayed_on!r}; print `layer.offset.device` after `.to('meta')`",
                     f"`stayed_on`是{stayed_on!r}；在`.to('meta')`之后打印`layer.offset.device`看看")


def _check_02_3(tensors_held: Any) -> None:
    expected = {"BCEWithLogitsLoss": ["pos_weight"], "NLLLoss": ["weight"], "CrossEntropyLoss": []}
    if not isinstance(tensors_held, dict):
        raise _wrong(f"`tensors_held` is {_shown(tensors_held)}; give a dict {{class name: [tensor names]}}",
                     f"`tensors_held`是{_shown(tensors_held)}；请给出字典{{类名: [张量名]}}")
    if set(tensors_held) != set(expected):
        raise _wrong(f"`tensors_held` has the keys {sorted(tensors_held)}; use the class names {sorted(expected)}",
                     f"`tensors_held`的键是{sorted(tensors_held)}；请用类名{sorted(expected)}")
    for name, names in expected.items():
        given = sorted(tensors_held[name]) if isinstance(tensors_held[name], (list, tuple, set)) else None
        if given != names:
            made = {"BCEWithLogitsLoss": "nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0]))",
                    "NLLLoss": "nn.NLLLoss(weight=torch.ones(4))", "CrossEntropyLoss": "nn.CrossEntropyLoss()"}[name]
            raise _wrong(f"`tensors_held[{name!r}]` is {tensors_held[name]!r}; look at `utils.placement({made})` "
                         "(a buffer's name is listed without ' (buffer)')",
                         f"`tensors_held[{name!r}]`是{tensors_held[name]!r}；看看`utils.placement({made})`"
                         "（缓冲区的名字去掉“ (buffer)”）")


# ---- 03 --------------------------------------------------------------------------------------------------------------
def _check_03_1(LowerTriangle: type) -> None:  # noqa: N803 (the class the student wrote)
    _is_callable(LowerTriangle, "LowerTriangle")
    for n in (1, 3, 4):
        layer = _call(f"LowerTriangle({n})", LowerTriangle, n)
        if not isinstance(layer, nn.Module):
            raise _wrong("`LowerTriangle` is not an nn.Module: derive it from nn.Module",
                         "`LowerTriangle`不是nn.Module：让它继承nn.Module")
        mask = torch.tril(torch.ones(n, n))
        if list(layer.parameters()):
            raise _wrong(f"`LowerTriangle({n})` has parameters; the mask is fixed, not learned: make it a buffer",
                         f"`LowerTriangle({n})`有参数；掩码是固定的，不是学出来的：应把它注册为缓冲区")
        buffers = dict(layer.named_buffers())
        if len(buffers) != 1 or not torch.equal(next(iter(buffers.values())), mask):
            raise _wrong(f"`LowerTriangle({n})` has the buffers {sorted(buffers)}; register one buffer, "
                         f"`torch.tril(torch.ones({n}, {n}))`",
                         f"`LowerTriangle({n})`的缓冲区是{sorted(buffers)}；应注册一个缓冲区："
                         f"`torch.tril(torch.ones({n}, {n}))`")
        if state := list(layer.state_dict()):
            raise _wrong(f"`LowerTriangle({n}).state_dict()` holds {state}; a buffer registered with "
                         "`persistent=False` is left out",
                         f"`LowerTriangle({n}).state_dict()`里有{state}；用`persistent=False`注册的缓冲区不会被保存")
        x = torch.arange(1.0, 2 * n * n + 1).reshape(2, n, n)
        got = _call(f"LowerTriangle({n})(x)", layer, x)
        if not isinstance(got, torch.Tensor) or got.shape != x.shape or not torch.equal(got, x * mask):
            raise _wrong(f"`LowerTriangle({n})(x)` is not `x` times the lower triangle of ones",
                         f"`LowerTriangle({n})(x)`不等于`x`乘以下三角全1矩阵")
        moved = _call(f"LowerTriangle({n}).to('meta')", layer.to, "meta")
        if {b.device.type for b in moved.buffers()} != {"meta"}:
            raise _wrong("`.to('meta')` left the mask behind", "`.to('meta')`没有把掩码一起移走")


def _check_03_2(Parallel: type) -> None:  # noqa: N803 (the class the student wrote)
    _is_callable(Parallel, "Parallel")
    torch.manual_seed(0)
    a, b = nn.Linear(5, 3), nn.Linear(5, 2)
    parallel = _call("Parallel(nn.Linear(5, 3), nn.Linear(5, 2))", Parallel, a, b)
    if not isinstance(parallel, nn.Module):
        raise _wrong("`Parallel` is not an nn.Module: derive it from nn.Module",
                     "`Parallel`不是nn.Module：让它继承nn.Module")
    for shape in ((4, 5), (2, 4, 5)):
        x = torch.randn(shape)
        got = _call(f"parallel(torch.randn{shape})", parallel, x)
        expected = torch.cat([a(x), b(x)], dim=-1)
        if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
            shown = tuple(got.shape) if isinstance(got, torch.Tensor) else _shown(got)
            raise _wrong(f"`parallel(torch.randn{shape})` has shape {shown}; expected {tuple(expected.shape)}: "
                         "concatenate along the last dimension",
                         f"`parallel(torch.randn{shape})`的形状是{shown}；应为{tuple(expected.shape)}：沿最后一维拼接")
        if not torch.allclose(got, expected):
            raise _wrong(f"`parallel(torch.randn{shape})` is not module_a's output followed by module_b's",
                         f"`parallel(torch.randn{shape})`不是module_a的输出后接module_b的输出")
    if len(list(parallel.parameters())) != 4:
        raise _wrong(f"`parallel.parameters()` yields {len(list(parallel.parameters()))} tensors, not the 4 of both "
                     "layers: register both modules as attributes",
                     f"`parallel.parameters()`给出{len(list(parallel.parameters()))}个张量，而不是两层共4个："
                     "把两个模块都注册为属性")
    parallel.to("meta")
    if {p.device.type for p in [*a.parameters(), *b.parameters()]} != {"meta"}:
        raise _wrong("`parallel.to('meta')` left an inner module on the CPU",
                     "`parallel.to('meta')`把一个内部模块留在了CPU上")


def _check_03_3(in_features: Any) -> None:
    if in_features == 6 * 28 * 28:
        raise _wrong("`in_features` is 6 x 28 x 28: a 5x5 convolution without padding makes the image smaller",
                     "`in_features`是6 x 28 x 28：不加填充的5x5卷积会让图像变小")
    if in_features == 24 * 24:
        raise _wrong("`in_features` counts one channel: the convolution has 6",
                     "`in_features`只算了一个通道：卷积有6个")
    if in_features != 3456:
        raise _wrong(f"`in_features` is {in_features!r}; print `conv_net[3].in_features` after one batch",
                     f"`in_features`是{in_features!r}；送进一批数据后打印`conv_net[3].in_features`")


# ---- 04 --------------------------------------------------------------------------------------------------------------
def _check_04_1(n_params: Any, n_state: Any) -> None:
    if n_params == 56:
        raise _wrong("`n_params` is 56, the number of values; the question counts parameter tensors",
                     "`n_params`是56，这是数值的个数；题目数的是参数张量")
    if n_params != 4:
        raise _wrong(f"`n_params` is {n_params!r}; count `model.parameters()`",
                     f"`n_params`是{n_params!r}；数一数`model.parameters()`")
    if n_state == 4:
        raise _wrong("`n_state` equals `n_params`: BatchNorm's buffers are in the state_dict too",
                     "`n_state`等于`n_params`：BatchNorm的缓冲区也在state_dict里")
    if n_state != 7:
        raise _wrong(f"`n_state` is {n_state!r}; count `model.state_dict()`",
                     f"`n_state`是{n_state!r}；数一数`model.state_dict()`")


def _check_04_2(tied_after_device: Any, tied_after_float16: Any, tied_after_meta: Any) -> None:
    for name, value in [("tied_after_device", tied_after_device), ("tied_after_float16", tied_after_float16),
                        ("tied_after_meta", tied_after_meta)]:
        if not isinstance(value, bool):
            raise _wrong(f"`{name}` is {value!r}; answer True or False", f"`{name}`是{value!r}；请回答True或False")
    if not tied_after_device:
        raise _wrong("`tied_after_device` is False; `.to(device)` changes parameters in place: test with `is`",
                     "`tied_after_device`是False；`.to(device)`就地修改参数：用`is`检验")
    if not tied_after_float16:
        raise _wrong("`tied_after_float16` is False; a dtype change is also made in place: test with `is`",
                     "`tied_after_float16`是False；改变dtype也是就地进行的：用`is`检验")
    if tied_after_meta:
        raise _wrong("`tied_after_meta` is True; test `pair.to('meta')[0].weight is pair[1].weight`",
                     "`tied_after_meta`是True；检验`pair.to('meta')[0].weight is pair[1].weight`")


def _check_04_3(init_orthogonal: Callable[[nn.Module], Any]) -> None:
    _is_callable(init_orthogonal, "init_orthogonal")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 8), nn.Conv2d(2, 4, 3), nn.Linear(8, 32))
    conv = model[3].weight.detach().clone()
    biases = [model[i].bias.detach().clone() for i in (0, 2, 4)]
    _call("init_orthogonal(nn.ReLU())", init_orthogonal, nn.ReLU())
    _call("model.apply(init_orthogonal)", model.apply, init_orthogonal)
    for linear in (model[0], model[2], model[4]):
        w = linear.weight.detach()
        rows, cols = w.shape
        gram = w @ w.T if rows <= cols else w.T @ w
        if not torch.allclose(gram, torch.eye(min(rows, cols)), atol=1e-5):
            raise _wrong(f"after `model.apply(init_orthogonal)`, the weight of `{linear}` is not orthogonal",
                         f"`model.apply(init_orthogonal)`之后，`{linear}`的权重不是正交的")
    if not torch.equal(model[3].weight, conv):
        raise _wrong("`init_orthogonal` changed a Conv2d's weight: only nn.Linear weights",
                     "`init_orthogonal`改了Conv2d的权重：只应改nn.Linear的权重")
    if not all(torch.equal(model[i].bias, b) for i, b in zip((0, 2, 4), biases, strict=True)):
        raise _wrong("`init_orthogonal` changed the biases: only the weights", "`init_orthogonal`改了偏置：只应改权重")


# ---- 05 --------------------------------------------------------------------------------------------------------------
def _check_05_1(same_as_uninterrupted: Any) -> None:
    if not isinstance(same_as_uninterrupted, bool):
        raise _wrong(f"`same_as_uninterrupted` is {same_as_uninterrupted!r}; answer True or False",
                     f"`same_as_uninterrupted`是{same_as_uninterrupted!r}；请回答True或False")
    if same_as_uninterrupted:
        raise _wrong("`same_as_uninterrupted` is True; compare the weights with `identical(model, uninterrupted)`: "
                     "momentum that restarts from zero changes the first updates",
                     "`same_as_uninterrupted`是True；用`identical(model, uninterrupted)`比较权重："
                     "动量从零重新开始会改变最初几次更新")


def _check_05_2(dtype_after_loading: Any, size_ratio: Any) -> None:
    if str(dtype_after_loading) not in ("torch.float32", "float32"):
        raise _wrong(f"`dtype_after_loading` is {dtype_after_loading!r}; print `restored.hidden.weight.dtype`: "
                     "`load_state_dict` copies into the model's own tensors",
                     f"`dtype_after_loading`是{dtype_after_loading!r}；打印`restored.hidden.weight.dtype`："
                     "`load_state_dict`把值复制进模型自己的张量")
    if isinstance(size_ratio, bool) or not isinstance(size_ratio, (int, float)) or not 0.45 <= size_ratio <= 0.65:
        raise _wrong(f"`size_ratio` is {size_ratio!r}; divide the float16 file's size by the float32 file's "
                     "(`Path.stat().st_size`)",
                     f"`size_ratio`是{size_ratio!r}；用float16文件的大小除以float32文件的大小（`Path.stat().st_size`）")


def _check_05_3(keep_best: Callable[..., Any]) -> None:
    _is_callable(keep_best, "keep_best")
    torch.manual_seed(0)
    models = [nn.Linear(2, 2) for _ in range(3)]
    saves: list[Path] = []
    real_save = utils.atomic_save

    def counted(obj: Any, path: Any) -> Path:
        saves.append(Path(path))
        return real_save(obj, path)

    def saved(path: Path) -> dict[str, torch.Tensor]:
        try:
            return torch.load(path, weights_only=True)
        except Exception as error:
            raise _wrong(f"the file keep_best wrote is not a state_dict ({type(error).__name__}): save "
                         "`model.state_dict()`",
                         f"keep_best写出的文件不是state_dict（{type(error).__name__}）："
                         "请保存`model.state_dict()`") from error

    with tempfile.TemporaryDirectory() as folder, mock.patch.object(utils, "atomic_save", counted):
        path = Path(folder) / "best.params"
        steps = [(models[0], 0.6, -math.inf, 0.6, 0), (models[1], 0.5, 0.6, 0.6, 0), (models[2], 0.6, 0.6, 0.6, 0),
                 (models[2], 0.7, 0.6, 0.7, 2)]
        for model, score, best, new_best, on_disk in steps:
            shown = f"keep_best(model, {score}, best_path, {best})"
            got = _call(shown, keep_best, model, score, path, best)
            if got != new_best:
                raise _wrong(f"`{shown}` returned {got!r}; expected {new_best}",
                             f"`{shown}`返回了{got!r}；应为{new_best}")
            if not path.is_file():
                raise _wrong(f"after `{shown}` there is no file at best_path", f"`{shown}`之后best_path处没有文件")
            state = saved(path)
            if set(state) != {"weight", "bias"} or not torch.equal(state["weight"], models[on_disk].weight):
                raise _wrong(f"after `{shown}` the file holds another model's weights: save only when the score "
                             "beats the best one",
                             f"`{shown}`之后文件里是另一个模型的权重：只有分数超过最好成绩时才保存")
        if len(saves) != 2 or any(p != path for p in saves):
            raise _wrong("keep_best saved without `utils.atomic_save`: a crash in the middle of writing would leave "
                         "a broken best file",
                         "keep_best没有用`utils.atomic_save`保存：写到一半时崩溃会留下损坏的最佳文件")


# ---- 06 --------------------------------------------------------------------------------------------------------------
def _check_06_1(steps: Any) -> None:
    if not isinstance(steps, (list, tuple)):
        raise _wrong(f"`steps` is {_shown(steps)}; give the list of steps read back from the event file",
                     f"`steps`是{_shown(steps)}；请给出从事件文件读回的步数列表")
    steps = list(steps)
    if steps == [0, 1, 2, 3] or steps == [1, 2, 3, 4]:
        raise _wrong(f"`steps` is {steps}: global_step counts the batches seen so far, not the values logged",
                     f"`steps`是{steps}：global_step数的是到目前为止看过的批次数，不是记录的次数")
    if steps == [4, 9, 14, 19]:
        raise _wrong("`steps` is [4, 9, 14, 19]: after 5 batches, 5 batches have been seen (count from 1)",
                     "`steps`是[4, 9, 14, 19]：训练5个批次之后已看过5个批次（从1开始数）")
    if steps != [5, 10, 15, 20]:
        raise _wrong(f"`steps` is {steps}; log once every 5 of the 20 batches, at the number of batches seen",
                     f"`steps`是{steps}；20个批次中每5个记录一次，步数是已看过的批次数")


def _check_06_2(resume: Callable[[Path], Any], checkpoint: Path) -> None:
    _is_callable(resume, "resume")
    stored = torch.load(checkpoint, map_location="cpu", weights_only=True)
    got = _call(f"resume({utils.shown_path(checkpoint)!r})", resume, checkpoint)
    if not (isinstance(got, tuple) and len(got) == 2):
        raise _wrong("`resume` must return (model, optimizer)", "`resume`应返回(model, optimizer)")
    model, optimizer = got
    if not isinstance(model, nn.Module) or not isinstance(optimizer, torch.optim.Optimizer):
        raise _wrong("`resume` must return (model, optimizer)", "`resume`应返回(model, optimizer)")
    for name, value in model.state_dict().items():
        if name not in stored["model"] or not torch.equal(value.cpu(), stored["model"][name]):
            raise _wrong(f"the model's `{name}` is not the checkpoint's: load `state['model']`",
                         f"模型的`{name}`不是检查点里的：请加载`state['model']`")
    own = {id(p) for p in model.parameters()}
    if {id(p) for group in optimizer.param_groups for p in group["params"]} != own:
        raise _wrong("the optimizer does not update the returned model's parameters",
                     "优化器更新的不是返回的模型的参数")
    if len(optimizer.state) != len(stored["optimizer"]["state"]):
        raise _wrong("the optimizer has no momentum buffers: load `state['optimizer']` too",
                     "优化器没有动量缓冲：还要加载`state['optimizer']`")
    for index, state in optimizer.state_dict()["state"].items():
        buffer = state.get("momentum_buffer")
        if buffer is None or not torch.equal(buffer.cpu(), stored["optimizer"]["state"][index]["momentum_buffer"]):
            raise _wrong("the optimizer's momentum buffers are not the checkpoint's: load `state['optimizer']`",
                         "优化器的动量缓冲不是检查点里的：请加载`state['optimizer']`")
    if not getattr(optimizer, "_optimizer_step_pre_hooks", None):
        raise _wrong("gradient clipping is not registered: it is not part of the optimizer's state_dict, register "
                     "it again with `cifar10.clip_gradients_before_step`",
                     "没有注册梯度裁剪：它不在优化器的state_dict里，要用`cifar10.clip_gradients_before_step`重新注册")


def _check_06_3(augment: Callable[[Any], Any]) -> None:
    _is_callable(augment, "augment")
    from torchvision import transforms

    steps = list(getattr(augment, "transforms", [augment]))
    kinds = [type(step).__name__ for step in steps]
    crops = [s for s in steps if isinstance(s, transforms.RandomCrop)]
    if not crops or tuple(crops[0].size) != (32, 32) or crops[0].padding != 4:
        raise _wrong(f"`augment` holds {kinds}; add a random crop of 32 with padding 4 (`transforms.RandomCrop`)",
                     f"`augment`包含{kinds}；请加入填充为4、大小为32的随机裁剪（`transforms.RandomCrop`）")
    if not any(isinstance(s, transforms.RandomHorizontalFlip) for s in steps):
        raise _wrong(f"`augment` holds {kinds}; add a horizontal flip (`transforms.RandomHorizontalFlip`)",
                     f"`augment`包含{kinds}；请加入水平翻转（`transforms.RandomHorizontalFlip`）")
    from lessons import cifar10

    norms = [s for s in steps if isinstance(s, transforms.Normalize)]
    if len(norms) != 1 or not (np.allclose(norms[0].mean, cifar10.CIFAR10_MEAN) and
                               np.allclose(norms[0].std, cifar10.CIFAR10_STD)):
        raise _wrong(f"`augment` holds {kinds}; normalise as the test transform does "
                     "(`transforms.Normalize(cifar10.CIFAR10_MEAN, cifar10.CIFAR10_STD)`)",
                     f"`augment`包含{kinds}；请像测试变换那样归一化"
                     "（`transforms.Normalize(cifar10.CIFAR10_MEAN, cifar10.CIFAR10_STD)`）")
    try:
        copy = pickle.loads(pickle.dumps(augment))
    except Exception as error:
        raise _wrong(f"`augment` cannot be pickled ({type(error).__name__}), so worker processes started with "
                     "'spawn' cannot have it: build it from torchvision classes, without lambdas",
                     f"`augment`无法被pickle（{type(error).__name__}），用“spawn”启动的工作进程就拿不到它："
                     "请只用torchvision的类来组合，不要用lambda") from error
    image = np.random.default_rng(0).integers(0, 256, size=(32, 32, 3), dtype=np.uint8)
    outputs = [_call("augment(image)", copy, image) for _ in range(8)]
    if not all(isinstance(o, torch.Tensor) and o.shape == (3, 32, 32) and o.dtype == torch.float32 for o in outputs):
        raise _wrong("`augment(image)` of a uint8 (32, 32, 3) image is not a float32 (3, 32, 32) tensor",
                     "`augment(image)`作用于uint8 (32, 32, 3)图像的结果不是float32 (3, 32, 32)张量")
    if all(torch.equal(outputs[0], o) for o in outputs[1:]):
        raise _wrong("`augment(image)` gives the same tensor every time: the crop and flip must be random",
                     "`augment(image)`每次结果都一样：裁剪和翻转应该是随机的")


# ---- 07 --------------------------------------------------------------------------------------------------------------
def _check_07_1(dropped: Any, data: dict[str, Any], pet_dir: Path) -> None:
    from lessons import petimages

    if not isinstance(dropped, (list, tuple, set)) or not all(isinstance(name, str) for name in dropped):
        raise _wrong(f"`dropped` is {_shown(dropped)}; give the list of file names, e.g. ['Cat/1.jpg']",
                     f"`dropped`是{_shown(dropped)}；请给出文件名列表，例如['Cat/1.jpg']")
    kept = set(data["files"])
    if outside := sorted(set(dropped) - kept):
        raise _wrong(f"`dropped` names {outside[:3]}, which the default build did not keep either",
                     f"`dropped`里的{outside[:3]}本来就没有被默认构建保留")
    truncated = sum(counts.get("truncated", 0) for counts in data["counts"].values())
    if len(set(dropped)) != truncated:
        raise _wrong(f"`dropped` names {len(set(dropped))} files; the cleaning report counts {truncated} truncated",
                     f"`dropped`列出了{len(set(dropped))}个文件；清洗报告统计的截断文件有{truncated}个")
    for name in sorted(dropped):
        _, notes, _ = petimages.load_petimage(Path(pet_dir) / name, size=8, keep_truncated=False)
        if notes.get("unreadable") != "truncated":
            raise _wrong(f"`{name}` is not a truncated JPEG: keep_truncated=False keeps it",
                         f"`{name}`不是截断的JPEG：keep_truncated=False也会保留它")


def _check_07_2(gradients: Callable[[float], Any]) -> None:
    _is_callable(gradients, "gradients")
    for p in (0.5, 0.1, 0.01, 0.9):
        got = _call(f"gradients({p})", gradients, p)
        try:
            ce, mse = (float(v) for v in got)
        except Exception as error:
            raise _wrong(f"`gradients({p})` returned {_shown(got)}; return two numbers (cross-entropy, softmax + MSE)",
                         f"`gradients({p})`返回了{_shown(got)}；应返回两个数（交叉熵，softmax + MSE）") from error
        if abs(ce - (p - 1)) > 1e-4:
            hint = ("; is the correct class the third one?",
                    "；正确类别是第三个吗？") if abs(ce + p / 2) < 1e-4 else ("", "")
            raise _wrong(f"`gradients({p})`'s cross-entropy gradient is {ce:+.4f}; it should be p - 1 = {p - 1:+.4f}"
                         f"{hint[0]}",
                         f"`gradients({p})`的交叉熵梯度是{ce:+.4f}；应为p - 1 = {p - 1:+.4f}{hint[1]}")
        expected = -p * (1 - p) ** 2
        if abs(mse - expected) > 1e-4:
            extra = ("; F.mse_loss averages over the 3 outputs", "；F.mse_loss对3个输出取平均") \
                if abs(mse - 3 * expected) < 1e-4 else ("", "")
            raise _wrong(f"`gradients({p})`'s softmax + MSE gradient is {mse:+.4f}; expected {expected:+.4f}{extra[0]}",
                         f"`gradients({p})`的softmax + MSE梯度是{mse:+.4f}；应为{expected:+.4f}{extra[1]}")


def _check_07_3(flatten_size: Any) -> None:
    if flatten_size == 128 * 2 * 2:
        raise _wrong("`flatten_size` is 128 x 2 x 2, the size for 50x50 images; build `Net(size=64)`",
                     "`flatten_size`是128 x 2 x 2，这是50x50图像的大小；请构建`Net(size=64)`")
    if flatten_size != 2048:
        raise _wrong(f"`flatten_size` is {flatten_size!r}; print `Net(size=64).fc1.in_features`",
                     f"`flatten_size`是{flatten_size!r}；打印`Net(size=64).fc1.in_features`")


# ---- 08 --------------------------------------------------------------------------------------------------------------
def _check_08_1(shard_sizes: Any, appearing_twice: Any) -> None:
    sizes = list(shard_sizes) if isinstance(shard_sizes, (list, tuple)) else shard_sizes
    if sizes == [170, 171, 171] or sizes == [171, 171, 170] or sizes == [170, 170, 172]:
        raise _wrong(f"`shard_sizes` is {sizes}; every shard has the same length, so that every process runs the "
                     "same number of steps",
                     f"`shard_sizes`是{sizes}；每个分片长度相同，这样每个进程执行相同的步数")
    if sizes != [171, 171, 171]:
        raise _wrong(f"`shard_sizes` is {shard_sizes!r}; list `len(list(sampler))` for ranks 0, 1 and 2",
                     f"`shard_sizes`是{shard_sizes!r}；列出rank 0、1、2的`len(list(sampler))`")
    if appearing_twice != 1:
        raise _wrong(f"`appearing_twice` is {appearing_twice!r}; 3 shards of 171 are 513 indices for 512 examples",
                     f"`appearing_twice`是{appearing_twice!r}；3个171的分片共513个下标，而样本只有512个")


def _check_08_2(differ_with_set_epoch: Any, differ_without: Any) -> None:
    for name, value in [("differ_with_set_epoch", differ_with_set_epoch), ("differ_without", differ_without)]:
        if not isinstance(value, bool):
            raise _wrong(f"`{name}` is {value!r}; answer True or False", f"`{name}`是{value!r}；请回答True或False")
    if not differ_with_set_epoch:
        raise _wrong("`differ_with_set_epoch` is False; `set_epoch` seeds each epoch's shuffle with seed + epoch",
                     "`differ_with_set_epoch`是False；`set_epoch`用seed + epoch作为每轮打乱的种子")
    if differ_without:
        raise _wrong("`differ_without` is True; without `set_epoch`, every epoch shuffles with the same seed",
                     "`differ_without`是True；不调用`set_epoch`时，每轮都用同一个种子打乱")


def _check_08_3(step_in_halves: Callable[..., Any]) -> None:
    _is_callable(step_in_halves, "step_in_halves")
    torch.manual_seed(0)
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    start = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    whole, halves = (pickle.loads(pickle.dumps(start)) for _ in range(2))
    optimizer = torch.optim.SGD(whole.parameters(), lr=0.1)
    optimizer.zero_grad()
    nn.functional.cross_entropy(whole(x), y).backward()
    optimizer.step()
    optimizer = torch.optim.SGD(halves.parameters(), lr=0.1)
    _call("step_in_halves(model, optimizer, x, y)", step_in_halves, halves, optimizer, x, y)
    before = [p.detach() for p in start.parameters()]
    full = [a.detach() - b for a, b in zip(whole.parameters(), before, strict=True)]
    mine = [a.detach() - b for a, b in zip(halves.parameters(), before, strict=True)]
    if all(torch.equal(m, torch.zeros_like(m)) for m in mine):
        raise _wrong("`step_in_halves` did not change the weights: call `optimizer.step()` once, at the end",
                     "`step_in_halves`没有改变权重：最后调用一次`optimizer.step()`")
    if all(torch.allclose(m, f, atol=1e-6) for m, f in zip(mine, full, strict=True)):
        return
    if all(torch.allclose(m, 2 * f, atol=1e-6) for m, f in zip(mine, full, strict=True)):
        raise _wrong("the step is twice one step on the whole batch: divide each half's loss by 2",
                     "这一步是整批一步的两倍：把每一半的损失除以2")
    raise _wrong("the weights differ from one step on the whole batch of 32: zero the gradients once before the "
                 "halves, add both halves' gradients with `backward()`, then step once",
                 "权重与在整批32个样本上走一步的结果不同：在两半之前清零一次梯度，用`backward()`累加两半的梯度，然后走一步")


# ---- 09 --------------------------------------------------------------------------------------------------------------
def _check_09_1(time_ms: Callable[..., Any]) -> None:
    _is_callable(time_ms, "time_ms")
    device = utils.get_device()
    got = _call("time_ms(lambda: time.sleep(0.02), device)", time_ms, lambda: time.sleep(0.02), device)
    if isinstance(got, bool) or not isinstance(got, (int, float)) or not math.isfinite(got):
        raise _wrong(f"`time_ms(...)` returned {_shown(got)}; return a number of milliseconds",
                     f"`time_ms(...)`返回了{_shown(got)}；应返回毫秒数")
    if 0.015 <= got <= 2:
        raise _wrong(f"`time_ms(lambda: time.sleep(0.02), device)` returned {got:.3f}: seconds, not milliseconds",
                     f"`time_ms(lambda: time.sleep(0.02), device)`返回了{got:.3f}：这是秒，不是毫秒")
    if not 15 <= got <= 2000:
        raise _wrong(f"`time_ms(lambda: time.sleep(0.02), device)` returned {got:.3f}; a 20 ms sleep takes 20 ms",
                     f"`time_ms(lambda: time.sleep(0.02), device)`返回了{got:.3f}；睡眠20毫秒就需要20毫秒")


def _check_09_2(sizes: Any, rates: Any, big_batch: int) -> None:
    expected = sorted({16, 32, 64, 128, big_batch})
    if not isinstance(sizes, (list, tuple)) or sorted(sizes) != expected:
        raise _wrong(f"`sizes` is {sizes!r}; sweep {expected}", f"`sizes`是{sizes!r}；请扫描{expected}")
    if not isinstance(rates, (list, tuple)) or len(rates) != len(sizes):
        raise _wrong("`rates` needs one images/s figure per batch size", "`rates`要为每个批量大小给出一个“张/秒”数值")
    if not all(isinstance(r, (int, float)) and math.isfinite(r) and r > 0 for r in rates):
        raise _wrong(f"`rates` holds {list(rates)!r}; images per second are positive numbers",
                     f"`rates`是{list(rates)!r}；每秒图像数应是正数")


def _check_09_3(forwards_per_step: Any, forwards_with_image_grad: Any, no_grad_layer: Any) -> None:
    answers = [("forwards_per_step", forwards_per_step), ("forwards_with_image_grad", forwards_with_image_grad)]
    for name, value in answers:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _wrong(f"`{name}` is {value!r}; give a number of forward passes",
                         f"`{name}`是{value!r}；请给出前向传播的次数")
    if abs(forwards_per_step - 3) < 1e-9:
        raise _wrong("`forwards_per_step` is exactly 3, the rule of thumb; count the training step's FLOPs and "
                     "divide by the forward pass's",
                     "`forwards_per_step`正好是3，这是经验法则；请数出训练一步的FLOP再除以前向的FLOP")
    if not 2.75 <= forwards_per_step <= 2.85:
        raise _wrong(f"`forwards_per_step` is {forwards_per_step}; divide a training step's FLOPs by the forward "
                     "pass's, both for the same batch",
                     f"`forwards_per_step`是{forwards_per_step}；用同一批数据上训练一步的FLOP除以前向的FLOP")
    if not 2.95 <= forwards_with_image_grad <= 3.05:
        raise _wrong(f"`forwards_with_image_grad` is {forwards_with_image_grad}; count again with images that "
                     "require a gradient",
                     f"`forwards_with_image_grad`是{forwards_with_image_grad}；让图像需要梯度后再数一次")
    if no_grad_layer != 0:
        raise _wrong(f"`no_grad_layer` is {no_grad_layer!r}; which layer's input is the images themselves?",
                     f"`no_grad_layer`是{no_grad_layer!r}；哪一层的输入就是图像本身？")


# ---- 10 --------------------------------------------------------------------------------------------------------------
_CONV_OUTPUTS = [(32, 32, 32), (32, 16, 16), (64, 8, 8)]
_POOLED = [(32, 16, 16), (32, 8, 8), (64, 4, 4)]


def _check_10_1(per_image: Any) -> None:
    if isinstance(per_image, bool) or not isinstance(per_image, int):
        raise _wrong(f"`per_image` is {per_image!r}; give a whole number of bytes",
                     f"`per_image`是{per_image!r}；请给出整数字节数")
    indices = sum(8 * math.prod(shape) for shape in _POOLED)
    measured = 315_688
    if per_image == measured - indices:
        raise _wrong("`per_image` leaves out the max-pools' int64 indices (8 bytes each)",
                     "`per_image`漏掉了最大汇聚层保存的int64下标（每个8字节）")
    if per_image == measured - indices // 2:
        raise _wrong("`per_image` counts the max-pools' indices at 4 bytes; they are int64, 8 bytes each",
                     "`per_image`把最大汇聚层的下标按4字节算了；它们是int64，每个8字节")
    if per_image == measured - 4 * 64 - 4 * 10:
        raise _wrong("`per_image` leaves out the linear layers' outputs (the first linear's, the log-softmax's)",
                     "`per_image`漏掉了全连接层的输出（第一个全连接层的输出和log-softmax的输出）")
    if per_image != measured:
        raise _wrong(f"`per_image` is {per_image:,}, section 3 measured {measured:,}: list what each layer saves "
                     "again (section 2)",
                     f"`per_image`是{per_image:,}，第3节测得{measured:,}：请再列一遍每层保存了什么（第2节）")


def _check_10_2(share: Any) -> None:
    if isinstance(share, bool) or not isinstance(share, (int, float)):
        raise _wrong(f"`share` is {share!r}; give a fraction between 0 and 1",
                     f"`share`是{share!r}；请给出0到1之间的比例")
    if 70 <= share <= 76:
        raise _wrong("`share` is a percentage; give a fraction between 0 and 1",
                     "`share`是百分数；请给出0到1之间的比例")
    if not 0.70 <= share <= 0.76:
        raise _wrong(f"`share` is {share}; divide the bytes that checkpointing the first block saves by the bytes "
                     "checkpointing all four saves",
                     f"`share`是{share}；用只检查点第一块省下的字节数除以检查点全部四块省下的字节数")


def _check_10_3(adam_largest: Any, sgd_largest: int) -> None:
    if isinstance(adam_largest, bool) or not isinstance(adam_largest, int) or adam_largest <= 0:
        raise _wrong(f"`adam_largest` is {adam_largest!r}; give the largest batch size that fits",
                     f"`adam_largest`是{adam_largest!r}；请给出能放下的最大批量")
    if adam_largest > sgd_largest and not torch.cuda.is_available():  # a real GPU's allocator may round either way
        raise _wrong(f"`adam_largest` ({adam_largest}) is larger than SGD's ({sgd_largest}): Adam keeps more state, "
                     "so leave less room for the batch",
                     f"`adam_largest`（{adam_largest}）比SGD的（{sgd_largest}）还大：Adam保存的状态更多，留给批量的空间应更少")


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


_LIST = [
    Exercise("01", 1, ("usable_devices",), _check_01_1,
             "Every machine has a CPU; torch.cuda and torch.backends.mps say what else there is. A GPU is named by "
             "its number.",
             "每台机器都有CPU；torch.cuda和torch.backends.mps告诉你还有什么。GPU用它的编号来称呼。"),
    Exercise("01", 2, ("visible_gpus",), _check_01_2,
             "Go through the comma-separated entries in order and stop at the first one that is not a number of a GPU "
             "the machine has.",
             "按顺序遍历逗号分隔的各项，遇到第一个不是这台机器上GPU编号的项就停下。"),
    Exercise("01", 3, ("bytes_needed", "really_allocates"), _check_01_3,
             "`numel()` times `element_size()`; then compare `data_ptr()` of the two tensors.",
             "`numel()`乘以`element_size()`；再比较两个张量的`data_ptr()`。"),
    Exercise("02", 1, ("module_device",), _check_02_1,
             "How many different devices do the parameters and the buffers have together: none, one, or more?",
             "参数和缓冲区合在一起有几个不同的设备：零个、一个，还是更多？"),
    Exercise("02", 2, ("missing", "stayed_on"), _check_02_2,
             "Compare `utils.placement(layer)` with the tensors `__init__` creates.",
             "把`utils.placement(layer)`和`__init__`创建的张量对照一下。",
             explain_en="Why is that tensor missing, and what does `.to()` do with it?",
             explain_zh="为什么少了这个张量？`.to()`会怎样处理它？"),
    Exercise("02", 3, ("tensors_held",), _check_02_3,
             "Print `utils.placement(...)` of each of the three losses.",
             "分别打印三个损失模块的`utils.placement(...)`。"),
    Exercise("03", 1, ("LowerTriangle",), _check_03_1,
             "`register_buffer` takes a `persistent` argument.",
             "`register_buffer`有一个`persistent`参数。",
             explain_en="Why is `persistent=False` right here and wrong for `FixedHiddenMLP`?",
             explain_zh="为什么这里适合用`persistent=False`，而`FixedHiddenMLP`不适合？"),
    Exercise("03", 2, ("Parallel",), _check_03_2,
             "Assign both modules as attributes in `__init__`; `torch.cat(..., dim=-1)` in `forward`.",
             "在`__init__`里把两个模块都赋值为属性；在`forward`里用`torch.cat(..., dim=-1)`。"),
    Exercise("03", 3, ("in_features",), _check_03_3,
             "A 5x5 convolution without padding takes 4 pixels off each side's length; the linear layer sees "
             "channels x height x width.",
             "不加填充的5x5卷积让每条边的长度减少4个像素；全连接层看到的是通道数 x 高 x 宽。",
             explain_en="Why is a lazy layer handy here?", explain_zh="为什么这里用延迟初始化的层很方便？"),
    Exercise("04", 1, ("n_params", "n_state"), _check_04_1,
             "`len(list(model.parameters()))` and `len(model.state_dict())`; then look at `model.named_buffers()`.",
             "`len(list(model.parameters()))`和`len(model.state_dict())`；再看看`model.named_buffers()`。",
             explain_en="Why do the two numbers differ, and what does `.to(device)` move?",
             explain_zh="为什么两个数不同？`.to(device)`会移动哪些张量？"),
    Exercise("04", 2, ("tied_after_device", "tied_after_float16", "tied_after_meta"), _check_04_2,
             "After each conversion, test `pair[0].weight is pair[1].weight`.",
             "每次转换后检验`pair[0].weight is pair[1].weight`。"),
    Exercise("04", 3, ("init_orthogonal",), _check_04_3,
             "`apply` calls your function on every submodule, ReLU and the Sequential itself included.",
             "`apply`会对每个子模块调用你的函数，包括ReLU和Sequential本身。"),
    Exercise("05", 1, ("same_as_uninterrupted",), _check_05_1,
             "Build the optimizer again without `load_state_dict`, train the remaining epochs, compare with "
             "`identical(model, uninterrupted)`.",
             "重新构建优化器但不调用`load_state_dict`，训练剩下的轮数，再用`identical(model, uninterrupted)`比较。",
             explain_en="Why is (or isn't) the result identical?", explain_zh="为什么结果相同（或不同）？"),
    Exercise("05", 2, ("dtype_after_loading", "size_ratio"), _check_05_2,
             "`Path.stat().st_size` gives a file's size; print a parameter's `.dtype` after `load_state_dict`.",
             "`Path.stat().st_size`给出文件大小；在`load_state_dict`之后打印某个参数的`.dtype`。"),
    Exercise("05", 3, ("keep_best",), _check_05_3,
             "A tie does not beat the best score. The function returns the best score whether it saved or not.",
             "分数持平不算超过最好成绩。无论保存与否，函数都返回最好成绩。"),
    Exercise("06", 1, ("steps",), _check_06_1,
             "`enumerate(..., start=1)` counts the batches seen; `EventAccumulator(...).Scalars(tag)` reads them back.",
             "`enumerate(..., start=1)`数出看过的批次；用`EventAccumulator(...).Scalars(tag)`把它们读回来。"),
    Exercise("06", 2, ("resume",), _check_06_2,
             "The checkpoint holds a state_dict for the model and one for the optimizer; a hook is in neither.",
             "检查点里有模型的state_dict和优化器的state_dict；钩子不在其中任何一个里。",
             context=("checkpoint",)),
    Exercise("06", 3, ("augment",), _check_06_3,
             "`transforms.Compose` of `ToTensor`, `RandomCrop(32, padding=4)`, `RandomHorizontalFlip()` and the "
             "same `Normalize` as the test transform.",
             "用`transforms.Compose`组合`ToTensor`、`RandomCrop(32, padding=4)`、`RandomHorizontalFlip()`"
             "和测试变换里同样的`Normalize`。"),
    Exercise("07", 1, ("dropped",), _check_07_1,
             "Build again with `keep_truncated=False` into another cache file and compare the two `files` lists.",
             "用`keep_truncated=False`另建一次（换一个缓存文件），再比较两个`files`列表。",
             context=("data", "pet_dir")),
    Exercise("07", 2, ("gradients",), _check_07_2,
             "Logits `[[0, 0, z]]` with `requires_grad=True`, z = log(2p / (1 - p)); `torch.autograd.grad` of each "
             "loss, then entry `[0, 2]`.",
             "logits为`[[0, 0, z]]`且`requires_grad=True`，z = log(2p / (1 - p))；对每个损失求`torch.autograd.grad`，"
             "取第`[0, 2]`项。"),
    Exercise("07", 3, ("flatten_size",), _check_07_3,
             "Build `Net(size=64)` and read its first linear layer's `in_features`.",
             "构建`Net(size=64)`，读出第一个全连接层的`in_features`。"),
    Exercise("08", 1, ("shard_sizes", "appearing_twice"), _check_08_1,
             "`list(DistributedSampler(dataset, num_replicas=3, rank=r, ...))` for r = 0, 1, 2; count the indices "
             "and the distinct ones.",
             "对r = 0、1、2分别取`list(DistributedSampler(dataset, num_replicas=3, rank=r, ...))`；数一数下标总数和"
             "不同下标的个数。",
             explain_en="Why does the sampler repeat examples?", explain_zh="采样器为什么要重复一些样本？"),
    Exercise("08", 2, ("differ_with_set_epoch", "differ_without"), _check_08_2,
             "Make one sampler per case and list it twice, calling `sampler.set_epoch(epoch)` before each listing "
             "in one case only.",
             "每种情况建一个采样器并列出两次，只在其中一种情况下每次列出前调用`sampler.set_epoch(epoch)`。"),
    Exercise("08", 3, ("step_in_halves",), _check_08_3,
             "`backward()` adds to the gradients already there; the whole batch's loss is the mean over 32 examples, "
             "each half's over 16.",
             "`backward()`会把梯度加到已有的梯度上；整批的损失是32个样本的平均，每一半是16个样本的平均。"),
    Exercise("09", 1, ("time_ms",), _check_09_1,
             "On CUDA: two `torch.cuda.Event(enable_timing=True)`, `record()` around the call, `synchronize()`, "
             "`elapsed_time`; elsewhere `utils.time_runs`, which gives seconds.",
             "在CUDA上：两个`torch.cuda.Event(enable_timing=True)`，在调用前后`record()`，`synchronize()`，再"
             "`elapsed_time`；其他设备上用`utils.time_runs`，它给出的是秒。"),
    Exercise("09", 2, ("sizes", "rates"), _check_09_2,
             "For each size, time `steps` training steps with `time_runs` and divide the images by the median "
             "seconds.",
             "对每个批量大小，用`time_runs`给`steps`个训练步计时，用图像数除以秒数的中位数。",
             context=("big_batch",),
             explain_en="Where does the curve flatten on your device, and why?",
             explain_zh="在你的设备上曲线从哪里开始变平？为什么？"),
    Exercise("09", 3, ("forwards_per_step", "forwards_with_image_grad", "no_grad_layer"), _check_09_3,
             "`FlopCounterMode` around the forward pass alone, then around a training step with images that "
             "require a gradient.",
             "用`FlopCounterMode`分别统计单独的前向传播，以及图像需要梯度时的训练一步。",
             explain_en="Why is a training step a little under three forward passes?",
             explain_zh="为什么训练一步略少于三次前向传播？"),
    Exercise("10", 1, ("per_image",), _check_10_1,
             "Each max-pool saves its input (float32) and the indices of the maxima (int64, the pooled shape); each "
             "conv or linear layer saves its input.",
             "每个最大汇聚层保存它的输入（float32）和最大值的下标（int64，形状同汇聚后的输出）；每个卷积层或全连接层保存它的输入。"),
    Exercise("10", 2, ("share",), _check_10_2,
             "Count the saved bytes with `count_saved_bytes` for a forward pass that checkpoints `blocks[0]` only.",
             "对只检查点`blocks[0]`的前向传播用`count_saved_bytes`统计保存的字节数。"),
    Exercise("10", 3, ("adam_largest",), _check_10_3,
             "Adam keeps two moments per parameter: leave room for the gradients and both moments.",
             "Adam为每个参数保存两个矩：要给梯度和两个矩都留出空间。",
             context=("sgd_largest",),
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


def result(lesson: str, number: int, *answers: Any, **context: Any) -> tuple[str, str]:
    """Return ``(status, sentence)`` for the answers: status ``"correct"``, ``"wrong"`` or ``"unanswered"``, the
    sentence in the edition's language."""
    found = exercise(lesson, number)
    if len(answers) != len(found.answers) or set(context) != set(found.context):
        names = ", ".join([*found.answers, *(f"{n}={n}" for n in found.context)])
        raise TypeError(f"exercises.check({lesson!r}, {number}, ...) takes {names}")
    unanswered = [name for name, value in zip(found.answers, answers, strict=True) if value is None]
    try:
        if unanswered:
            raise NotAnswered
        with _untouched_rng():
            found.verify(*answers, **context)
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


def stored_sentence(text: str, lang: str) -> str:
    """Return ``text``, what checks printed in a stored output, with each line that is a check's sentence for a
    stub (every value still ``None``, or a function's stub) or for a right answer put in ``lang`` (``"en"`` or
    ``"zh"``); other lines stay as they are. The Chinese edition stores the English outputs this way
    (``tools/translate.py``), so that its stored checks read as they print when run."""
    table: dict[str, str] = {}
    for found in _LIST:
        variants = []
        for source in utils.LANGUAGES:
            with _in(source):
                variants.append((_unanswered(found, []), _unanswered(found, list(found.answers)), _correct(found)))
        with _in(lang):
            wanted = (_unanswered(found, []), _unanswered(found, list(found.answers)), _correct(found))
        for variant in variants:
            table.update(zip(variant, wanted, strict=True))
    return "\n".join(table.get(line, line) for line in text.split("\n"))


def check(lesson: str, number: int, *answers: Any, strict: bool = False, **context: Any) -> None:
    """Print whether the answers to exercise ``number`` of notebook ``lesson`` are right, or what is wrong, in one
    sentence; never raises for a wrong or missing answer. ``strict=True`` (nbgrader's autograded tests, the
    solutions' own checks) raises AssertionError with that sentence instead, unless the answer is right."""
    status, sentence = result(lesson, number, *answers, **context)
    if strict and status != "correct":
        raise AssertionError(sentence)
    print(sentence)


def hint(lesson: str, number: int) -> None:
    """Print a hint for exercise ``number`` of notebook ``lesson``."""
    print(_say(f"Hint for exercise {number}: ", f"练习{number}的提示：") + exercise(lesson, number).hint)
