"""TF32 emulated on a CPU: float32 convolutions and matrix products rounded as an Ampere-or-newer GPU rounds them.

An NVIDIA GPU of compute capability 8.0 or newer runs float32 convolutions in TF32 while
``torch.backends.cudnn.allow_tf32`` is on (PyTorch's default), and float32 matrix products while
``torch.get_float32_matmul_precision()`` is not ``"highest"`` (PyTorch's default is ``"highest"``): its tensor cores
read each input with 10 of float32's 23 mantissa bits and add up the products in float32. ``EmulatedTF32`` does
the same on any device: while it is active, the float32 inputs of those operations, forward and backward
(``aten.convolution``, ``aten.convolution_backward``, ``aten.mm``, ``aten.addmm``, ``aten.bmm``, ``aten.baddbmm``:
what ``conv2d``, ``linear`` and ``matmul`` call), are rounded to 10 mantissa bits (to nearest, ties to even), and the
operation runs on the rounded values in float32. A bias or an ``addmm``'s added matrix is not rounded: tensor cores
round only what they multiply. The flags are read at every call, so a cell that switches TF32 off (``with
torch.backends.cudnn.flags(enabled=True, allow_tf32=False):``) gets full float32, as on the GPU.

A test tool: nothing students run imports it. The other-end lane (``tools/ci/other_python.sh``) switches it on from
outside for each notebook's second run, in the kernel and in the processes it starts (notebook 08's DDP workers,
which must compute as the kernel does): ``tests/nbval_lanes.py`` runs ``tests/switch_site/sitecustomize.py`` in the
kernel after setting ``NB_TF32=emulated``, and the lane puts ``tests/switch_site`` first on ``PYTHONPATH``, so that
Python's ``site`` module imports it at the start of every process started after that, which calls ``install``.
``utils.tf32_in_effect`` asks a CPU by a small convolution or product, which this mode rounds, so that it answers
as on an Ampere GPU.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

aten = torch.ops.aten
# Each operation: the positions of the arguments it multiplies (rounded) and the flag that turns TF32 on for it.
ROUNDED = {
    aten.convolution.default: ((0, 1), "conv"),  # input, weight (not the bias)
    aten.convolution_backward.default: ((0, 1, 2), "conv"),  # grad_output, input, weight
    aten.mm.default: ((0, 1), "matmul"),
    aten.bmm.default: ((0, 1), "matmul"),
    aten.addmm.default: ((1, 2), "matmul"),  # not the matrix added
    aten.baddbmm.default: ((1, 2), "matmul"),
}


def round_to_tf32(tensor: torch.Tensor) -> torch.Tensor:
    """Return a float32 ``tensor`` rounded to TF32's 10 mantissa bits (to nearest, ties to even), still float32.

    Infinities and NaNs stay as they are; a finite number may round up to infinity, as on the GPU.
    """
    bits = tensor.view(torch.int32)
    rounded = bits >> 13  # in place from here: five passes over the tensor, the lane's main cost
    rounded &= 1  # the last mantissa bit kept: a tie rounds to the even one
    rounded += 0x0FFF
    rounded += bits
    rounded &= ~0x1FFF
    rounded = rounded.view(torch.float32)  # an infinity stays as it is; a NaN's low bits could carry:
    return torch.where(tensor.isnan(), tensor, rounded) if tensor.isnan().any() else rounded


def tf32_flag_on(kind: str) -> bool:
    """Return True when PyTorch's flags ask for TF32 for ``kind``: ``"conv"`` (convolutions) or ``"matmul"``."""
    if kind == "conv":
        return bool(torch.backends.cudnn.allow_tf32)
    return torch.get_float32_matmul_precision() != "highest"


class EmulatedTF32(TorchDispatchMode):
    """While active, float32 convolutions and matrix products round their inputs to TF32 where the flags say so."""

    def __init__(self) -> None:
        super().__init__()
        self.rounded_calls = 0  # how many operations ran on rounded inputs (the tests read it)

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        rule = ROUNDED.get(func)
        if rule is not None and tf32_flag_on(rule[1]):
            positions = [i for i in rule[0] if isinstance(args[i], torch.Tensor) and args[i].dtype == torch.float32]
            if positions:
                args = tuple(round_to_tf32(a) if i in positions else a for i, a in enumerate(args))
                self.rounded_calls += 1
        return func(*args, **(kwargs or {}))


_active: list[EmulatedTF32] = []


def install() -> EmulatedTF32:
    """Switch emulated TF32 on for the rest of this thread's life (a kernel's, a worker's); return the mode.

    Called once per process by ``tests/switch_site/sitecustomize.py``; a second call returns the same mode.
    """
    if not _active:
        mode = EmulatedTF32()
        mode.__enter__()
        _active.append(mode)
    return _active[0]
