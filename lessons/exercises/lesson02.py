"""Lesson 02's exercises (``notebooks/02_placement_checks.ipynb``): a module's device, a tensor placement misses,
the tensors a loss holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from lessons.exercises.core import NotAnswered, brief, call, declare, listed, need_callable, wrong
from lessons.exercises.kinds import whole_number


class BufferOnly(nn.Module):
    """A module whose only tensor is a buffer."""

    def __init__(self, device: str = "cpu") -> None:
        super().__init__()
        self.register_buffer("scale", torch.ones(2, device=device))


class NotSaved(nn.Module):
    """A module whose only tensor is a buffer left out of its ``state_dict`` (``persistent=False``)."""

    def __init__(self, device: str = "cpu") -> None:
        super().__init__()
        self.register_buffer("mask", torch.ones(2, device=device), persistent=False)


class Mixed(nn.Module):
    """A parameter on ``first``, a buffer on ``second``."""

    def __init__(self, first: str = "cpu", second: str = "meta") -> None:
        super().__init__()
        self.linear = nn.Linear(2, 2, device=first)
        self.register_buffer("scale", torch.ones(2, device=second))


MODULE_DEVICE_CASES = {  # (shown, code that builds the module, its device or None); modules with two devices
    "one": [("nn.ReLU()", "nn.ReLU()", None),
            ("nn.Linear(2, 2)", "nn.Linear(2, 2)", "cpu"),
            ("nn.Linear(2, 2).to('meta')", "nn.Linear(2, 2).to('meta')", "meta"),
            ("nn.BatchNorm1d(2)", "nn.BatchNorm1d(2)", "cpu"),
            ("a module whose only tensor is a buffer, on the CPU", "BufferOnly()", "cpu"),
            ("a module whose only tensor is a buffer with persistent=False, on meta", "NotSaved('meta')", "meta")],
    "mixed": [("a module with a parameter on cpu and a buffer on meta", "Mixed()")],
}
# BEGIN HIDDEN CASES
MODULE_DEVICE_HIDDEN = {
    "one": [("nn.Sequential(nn.Flatten(), nn.Dropout())", "nn.Sequential(nn.Flatten(), nn.Dropout())", None),
            ("a module whose only tensor is a buffer, on meta", "BufferOnly('meta')", "meta"),
            ("nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2)).to('meta')",
             "nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2)).to('meta')", "meta")],
    "mixed": [("a module with a parameter on meta and a buffer on cpu", "Mixed('meta', 'cpu')")],
}
# END HIDDEN CASES


def _built(code: str) -> nn.Module:
    """The module a case's code builds (``nn``, ``BufferOnly``, ``NotSaved`` and ``Mixed`` are known to it)."""
    return eval(code, {"nn": nn, "BufferOnly": BufferOnly, "NotSaved": NotSaved, "Mixed": Mixed})


@declare("02", 1, ("module_device",), cases=MODULE_DEVICE_CASES, hidden="MODULE_DEVICE_HIDDEN",
         hint_en="Section 3 (“Checking where a module lives”): a module's tensors are its parameters and its "
                 "buffers.",
         hint_zh="第3节（“检查模块在哪里”）：模块的张量就是它的参数和缓冲区。")
def finds_the_device_of_a_module(module_device: Callable[[nn.Module], Any], cases: dict[str, Any]) -> None:
    """The device of the module's parameters and buffers, None for a module without tensors, a ValueError naming
    both devices for a module on two."""
    need_callable(module_device, "module_device")
    for shown, code, expected in cases["one"]:
        got = call(f"module_device({shown})", module_device, _built(code))
        if got is None and expected is None:
            continue
        if not isinstance(got, torch.device) or got.type != expected:
            what_en, what_zh = (("has no parameters and no buffers", "既没有参数也没有缓冲区") if expected is None else
                                (f"has its tensors on {expected}", f"的张量都在{expected}上"))
            raise wrong(f"`module_device({shown})` returned {brief(got)}, for a module that {what_en}",
                        f"`module_device({shown})`返回了{brief(got)}，而这个模块{what_zh}")
    for shown, code in cases["mixed"]:
        module = _built(code)
        try:
            got = module_device(module)
        except NotImplementedError as error:
            raise NotAnswered from error
        except ValueError as error:
            if "cpu" not in str(error) or "meta" not in str(error):
                raise wrong(f"`module_device({shown})` raised ValueError({str(error)!r}), which does not name both "
                            "devices",
                            f"`module_device({shown})`抛出了ValueError({str(error)!r})，"
                            "消息里没有写出两个设备") from error
            continue
        except Exception as error:
            raise wrong(f"`module_device({shown})` raised {type(error).__name__}, not a ValueError",
                        f"`module_device({shown})`抛出了{type(error).__name__}，不是ValueError") from error
        raise wrong(f"`module_device({shown})` returned {brief(got)} instead of raising a ValueError",
                    f"`module_device({shown})`返回了{brief(got)}，而没有抛出ValueError")


_bytes_left_on_cpu = whole_number("bytes_left_on_cpu", 12, {
    0: ("`bytes_left_on_cpu` is 0: look at the `.device` of every tensor the layer holds after the move, not only "
        "of those `utils.placement` lists",
        "`bytes_left_on_cpu`是0：移动之后，请查看这个层持有的每个张量的`.device`，而不只是`utils.placement`列出的那些"),
    3: ("`bytes_left_on_cpu` is 3: count bytes, not values (a tensor's `nbytes` gives its bytes)",
        "`bytes_left_on_cpu`是3：请数字节，而不是数值的个数（张量的`nbytes`给出它的字节数）"),
    24: ("`bytes_left_on_cpu` is 24, the bytes of both of the layer's tensors wherever they are: count only those on "
         "the CPU after the move",
         "`bytes_left_on_cpu`是24，这是这个层全部两个张量的字节数，没有看它们在哪里。请只数移动之后还留在CPU上的张量"),
}, ("`bytes_left_on_cpu` is {value}: not the bytes of the layer's tensors that are on the CPU after "
    "`layer.to('meta')`",
    "`bytes_left_on_cpu`是{value}：`layer.to('meta')`之后，这个层还留在CPU上的张量不是这么多字节"))


@declare("02", 2, ("missing", "bytes_left_on_cpu"),
         hint_en="Section 3 (“Checking where a module lives”): compare what `utils.placement` lists with what "
                 "`__init__` creates, then ask each tensor where it is.",
         hint_zh="第3节（“检查模块在哪里”）：把`utils.placement`列出的和`__init__`创建的对照一下，再逐个问张量在哪里。",
         explain_en="Why is that tensor missing, and what does `.to()` do with it?",
         explain_zh="为什么少了这个张量？`.to()`会怎样处理它？")
def names_the_tensor_placement_misses(missing: Any, bytes_left_on_cpu: Any) -> None:
    """``missing`` is the plain tensor attribute, ``bytes_left_on_cpu`` its bytes left behind by ``.to('meta')``."""
    if not isinstance(missing, str) or missing.strip().split(".")[-1] != "offset":  # "layer.offset" names it too
        raise wrong(f"`missing` is {brief(missing)}, which is not a tensor of the layer that "
                    "`utils.placement(layer)` leaves out",
                    f"`missing`是{brief(missing)}，它不是`utils.placement(layer)`漏掉的那个张量")
    _bytes_left_on_cpu(bytes_left_on_cpu)


@declare("02", 3, ("tensors_held",),
         hint_en="Section 5 (“Loss weights”) shows a loss module that holds a tensor.",
         hint_zh="第5节（“损失的权重”）展示了一个持有张量的损失模块。")
def lists_the_tensors_each_loss_holds(tensors_held: Any) -> None:
    """``tensors_held`` maps each of the three loss classes to the names of the tensors `utils.placement` shows."""
    expected = {"BCEWithLogitsLoss": ["pos_weight"], "NLLLoss": ["weight"], "CrossEntropyLoss": []}
    if not isinstance(tensors_held, dict):
        raise wrong(f"`tensors_held` is {brief(tensors_held)}; give a dict {{class name: [tensor names]}}",
                    f"`tensors_held`是{brief(tensors_held)}；请给出字典{{类名: [张量名]}}")
    held = {(key.__name__ if isinstance(key, type) else key): value for key, value in tensors_held.items()}
    if set(held) != set(expected):
        raise wrong(f"`tensors_held` has the keys {sorted(map(str, held))}; the exercise asks for the three loss "
                    "classes' names",
                    f"`tensors_held`的键是{listed(sorted(map(str, held)))}；练习要求用三个损失类的类名作键")
    for name, names in expected.items():
        value = held[name]
        given = sorted(str(v).split(" ")[0] for v in value) if isinstance(value, (list, tuple, set)) else None
        if given != names:
            raise wrong(f"`tensors_held[{name!r}]` is {value!r}, which is not what `utils.placement` shows for "
                        f"an {name} made as the exercise says",
                        f"`tensors_held[{name!r}]`是{value!r}，可是按练习创建的{name}，`utils.placement`显示的不是这些")
