"""Lesson 03's exercises (``notebooks/03_module_building.ipynb``): a buffer for a mask, a module of modules, a
lazy layer's size."""

from __future__ import annotations

import math

import torch
from torch import nn

from lessons.exercises.core import Exercise, brief, call, declare, listed, need_callable, register, wrong
from lessons.exercises.kinds import whole_number

LOWER_TRIANGLE_CASES = [1, 3, 4]  # the sizes n of LowerTriangle(n)
# BEGIN HIDDEN CASES
LOWER_TRIANGLE_HIDDEN = [2, 5, 6]
# END HIDDEN CASES


@declare("03", 1, ("LowerTriangle",), cases=LOWER_TRIANGLE_CASES, hidden="LOWER_TRIANGLE_HIDDEN",
         hint_en="Section 5 (“A constant weight: buffers, not plain tensors”), then Going deeper's “Saving the "
                 "constant”.",
         hint_zh="第5节（“常量权重：用缓冲区，而不是普通张量”），再看“进阶”部分的“保存这个常量”。",
         explain_en="Why is `persistent=False` right here and wrong for `FixedHiddenMLP`?",
         explain_zh="为什么这里适合用`persistent=False`，而`FixedHiddenMLP`不适合？")
def masks_with_a_buffer_left_out_of_the_state(LowerTriangle: type, cases: list[int]) -> None:  # noqa: N803
    """``LowerTriangle(n)`` multiplies by the lower-triangular mask, held in a buffer that is not in its
    state_dict and moves with ``.to()``, and has no parameters."""
    need_callable(LowerTriangle, "LowerTriangle")
    for n in cases:
        layer = call(f"LowerTriangle({n})", LowerTriangle, n)
        if not isinstance(layer, nn.Module):
            raise wrong("`LowerTriangle` is not an nn.Module: derive it from nn.Module",
                        "`LowerTriangle`不是nn.Module：让它继承nn.Module")
        mask = torch.tril(torch.ones(n, n))
        if names := [name for name, _ in layer.named_parameters()]:
            raise wrong(f"`LowerTriangle({n})` has the parameters {names}: the optimizer would change the mask",
                        f"`LowerTriangle({n})`有参数{listed(names)}，这样优化器会改动掩码")
        buffers = [b for b in layer.buffers() if b.shape == (n, n) and torch.equal(b.to(torch.float32), mask)]
        if not buffers:
            raise wrong(f"`LowerTriangle({n})` has no buffer that holds the mask (its buffers: "
                        f"{[name for name, _ in layer.named_buffers()]}), so `.to()` would leave it behind",
                        f"`LowerTriangle({n})`没有保存掩码的缓冲区"
                        f"（它的缓冲区：{listed([name for name, _ in layer.named_buffers()]) or '无'}），"
                        "`.to()`会把它留在原地")
        if state := list(layer.state_dict()):
            raise wrong(f"`LowerTriangle({n}).state_dict()` holds {state}, but the exercise asks for a buffer "
                        "registered with `persistent=False`",
                        f"`LowerTriangle({n}).state_dict()`里有{listed(state)}，但练习要求用`persistent=False`注册缓冲区")
        for shape, dtype in (((2, n, n), torch.float32), ((3, 2, n, n), torch.float64)):
            x = torch.arange(1.0, math.prod(shape) + 1, dtype=dtype).reshape(shape)
            got = call(f"LowerTriangle({n})(x)", layer, x)
            if not isinstance(got, torch.Tensor) or got.shape != x.shape or not torch.allclose(
                    got.to(dtype), x * mask.to(dtype)):
                raise wrong(f"`LowerTriangle({n})(x)` for x of shape {shape} is not x multiplied element-wise by the "
                            "lower-triangular mask",
                            f"对形状为{shape}的x，`LowerTriangle({n})(x)`不等于x与下三角掩码逐元素相乘")
        moved = call(f"LowerTriangle({n}).to('meta')", layer.to, "meta")
        if {b.device.type for b in moved.buffers()} != {"meta"}:
            raise wrong("`.to('meta')` left the mask behind", "`.to('meta')`没有把掩码一起移走")
        x = torch.ones(2, n, n, device="meta")
        got = call(f"LowerTriangle({n}).to('meta')(x) for x on meta", moved, x)  # forward uses the moved buffer
        if not isinstance(got, torch.Tensor) or got.device.type != "meta":
            raise wrong(f"after `.to('meta')`, `LowerTriangle({n})(x)` for x on meta is not on meta: `forward` "
                        "multiplies by a tensor that stayed behind, not by the registered buffer",
                        f"`.to('meta')`之后，x在`meta`上，`LowerTriangle({n})(x)`的结果却不在`meta`上。`forward`乘的是"
                        "留在原地的张量，而不是注册的缓冲区")


PARALLEL_CASES = {"seed": 0, "a": "nn.Linear(5, 3)", "b": "nn.Linear(5, 2)", "shapes": [(4, 5), (2, 4, 5)]}
"""The inner modules (code), built after ``torch.manual_seed(seed)``, and the shapes of the inputs."""
# BEGIN HIDDEN CASES
PARALLEL_HIDDEN = {"seed": 1, "a": "nn.Sequential(nn.Linear(6, 4), nn.ReLU())", "b": "nn.Linear(6, 1)",
                   "shapes": [(3, 6), (2, 2, 6)]}
# END HIDDEN CASES


@declare("03", 2, ("Parallel",), cases=PARALLEL_CASES, hidden="PARALLEL_HIDDEN",
         hint_en="Section 2 (“A module of your own”): how a module registers the modules it holds.",
         hint_zh="第2节（“自己写一个模块”）：模块怎样注册它持有的模块。")
def joins_the_outputs_of_two_registered_modules(Parallel: type, cases: dict) -> None:  # noqa: N803
    """``Parallel(a, b)(x)`` is a's output then b's along the last dimension; both are registered submodules."""
    need_callable(Parallel, "Parallel")
    torch.manual_seed(cases["seed"])
    a, b = (eval(cases[name], {"nn": nn}) for name in ("a", "b"))
    made, shapes = f"Parallel({cases['a']}, {cases['b']})", [tuple(s) for s in cases["shapes"]]
    parallel = call(made, Parallel, a, b)
    if not isinstance(parallel, nn.Module):
        raise wrong("`Parallel` is not an nn.Module: derive it from nn.Module",
                    "`Parallel`不是nn.Module：让它继承nn.Module")
    for shape in shapes:
        x = torch.randn(shape)
        got = call(f"parallel(torch.randn{shape})", parallel, x)
        expected = torch.cat([a(x), b(x)], dim=-1)
        if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
            shown = tuple(got.shape) if isinstance(got, torch.Tensor) else brief(got)
            raise wrong(f"`parallel(torch.randn{shape})` has shape {shown}: the two outputs are not joined along the "
                        "last dimension",
                        f"`parallel(torch.randn{shape})`的形状是{shown}：两个输出没有沿最后一维拼接")
        if not torch.allclose(got, expected):
            raise wrong(f"`parallel(torch.randn{shape})` is not module_a's output followed by module_b's",
                        f"`parallel(torch.randn{shape})`不是module_a的输出后接module_b的输出")
    own = {id(p) for p in parallel.parameters()}
    if own != {id(p) for p in [*a.parameters(), *b.parameters()]}:
        raise wrong(f"`parallel.parameters()` yields {len(own)} tensors, not those of both inner modules",
                    f"`parallel.parameters()`给出{len(own)}个张量，不是两个内部模块的全部参数")
    parallel.to("meta")
    if {p.device.type for p in [*a.parameters(), *b.parameters()]} != {"meta"}:
        raise wrong("`parallel.to('meta')` left an inner module on the CPU",
                    "`parallel.to('meta')`把一个内部模块留在了CPU上")


register(Exercise(
    "03", 3, ("in_features",),
    whole_number("in_features", 3456, {
        6 * 28 * 28: ("`in_features` is 6 x 28 x 28: a 5x5 convolution without padding does not keep 28x28",
                      "`in_features`是6 x 28 x 28：不加填充的5x5卷积不会保持28x28"),
        24 * 24: ("`in_features` is 576, what one image without a batch dimension gives: `Flatten` then keeps the "
                  "channels apart; the exercise asks for a batch of shape (N, 1, 28, 28)",
                  "`in_features`是576，这是不带批量维度的单张图像给出的值。这时`Flatten`会把各个通道分开，"
                  "而练习要求的是形状为(N, 1, 28, 28)的批量"),
    }, ("`in_features` is {value}: not what the lazy linear layer infers from a batch of shape (N, 1, 28, 28)",
        "`in_features`是{value}：这不是惰性线性层从形状为(N, 1, 28, 28)的批量推断出的值")),
    hint_en="Going deeper's “Lazy layers: shapes at the first call”: a lazy layer takes its size from the first batch.",
    hint_zh="“进阶”部分的“惰性层：第一次调用时才确定形状”：惰性层从第一个批量得到自己的大小。",
    explain_en="Why is a lazy layer handy here?", explain_zh="为什么这里用惰性层很方便？"))
