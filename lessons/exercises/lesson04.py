"""Lesson 04's exercises (``notebooks/04_parameters.ipynb``): counting tensors, tied parameters, an initialiser."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from lessons.exercises.core import call, declare, need_callable, need_number, wrong
from lessons.exercises.kinds import whole_number

_n_params = whole_number("n_params", 4, {
    56: ("`n_params` is 56, the number of values; the exercise counts parameter tensors",
         "`n_params`是56，这是数值的个数；练习数的是参数张量"),
}, ("`n_params` is {value}: not the number of tensors `model.parameters()` yields",
    "`n_params`是{value}：这不是`model.parameters()`给出的张量个数"))
_n_state = whole_number("n_state", 7, {
    4: ("`n_state` equals `n_params`: count the entries of `model.state_dict()` itself",
        "`n_state`等于`n_params`：请数`model.state_dict()`本身的条目"),
}, ("`n_state` is {value}: not the number of entries in `model.state_dict()`",
    "`n_state`是{value}：这不是`model.state_dict()`的条目数"))


@declare("04", 1, ("n_params", "n_state"),
         hint_en="Section 1 (“Reaching the parameters”) lists a model's tensors both ways.",
         hint_zh="第1节（“参数访问”）用两种方式列出了模型的张量。",
         explain_en="Why do the two numbers differ, and what does `.to(device)` move?",
         explain_zh="为什么两个数不同？`.to(device)`会移动哪些张量？")
def counts_parameter_tensors_and_state_entries(n_params: Any, n_state: Any) -> None:
    """``n_params`` is the number of tensors ``model.parameters()`` yields, ``n_state`` of state_dict entries."""
    need_number("n_params", n_params, whole=True)
    need_number("n_state", n_state, whole=True)  # both are numbers before either is judged
    _n_params(n_params)
    _n_state(n_state)  # n_params is 4 by now: a 4 here is n_params again


_VALUES_AFTER = {"values_after_device": 80, "values_after_float16": 80, "values_after_meta": 144}
"""The values in ``pair.parameters()`` after each conversion."""


@declare("04", 2, tuple(_VALUES_AFTER),
         hint_en="Section 4 (“Tied parameters”), then Going deeper's “Moving to and from `meta`”; `parameters()` "
                 "lists a shared parameter once.",
         hint_zh="第4节（“参数绑定”），再看“进阶”部分的“移入和移出`meta`”；`parameters()`只列出共享参数一次。")
def counts_values_after_each_conversion(values_after_device: Any, values_after_float16: Any,
                                        values_after_meta: Any) -> None:
    """The number of values in ``pair.parameters()`` after each of the three conversions."""
    for (name, expected), value in zip(_VALUES_AFTER.items(), (values_after_device, values_after_float16,
                                                               values_after_meta), strict=True):
        whole_number(name, expected, {}, (
            f"`{name}` is {{value}}: not the number of values in `pair.parameters()` after that conversion",
            f"`{name}`是{{value}}：这不是那次转换之后`pair.parameters()`里数值的个数"))(value)


INIT_ORTHOGONAL_CASES = {  # the model (code, built after the seed); where its linear layers and its others are
    "seed": 0,
    "model": "nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 8), nn.Conv2d(2, 4, 3), nn.Linear(8, 32))",
    "linears": [[0], [2], [4]],
    "others": [[3]],
}
# BEGIN HIDDEN CASES
INIT_ORTHOGONAL_HIDDEN = {
    "seed": 1,
    "model": "nn.Sequential(nn.Sequential(nn.Linear(12, 5), nn.Tanh()), nn.LayerNorm(5), nn.Linear(5, 20), "
             "nn.Conv1d(2, 3, 3), nn.Linear(20, 20))",
    "linears": [[0, 0], [2], [4]],
    "others": [[1], [3]],
}
# END HIDDEN CASES


@declare("04", 3, ("init_orthogonal",), cases=INIT_ORTHOGONAL_CASES, hidden="INIT_ORTHOGONAL_HIDDEN",
         hint_en="Section 3 (“Initialisation”) writes initialisers for `apply`, which calls them on every "
                 "submodule.",
         hint_zh="第3节（“参数初始化”）为`apply`写了初始化函数，`apply`会对每个子模块调用它。")
def initialises_only_linear_weights_orthogonally(init_orthogonal: Callable[[nn.Module], Any],
                                                  cases: dict[str, Any]) -> None:
    """After ``model.apply(init_orthogonal)`` every nn.Linear's weight is orthogonal and nothing else changed."""
    need_callable(init_orthogonal, "init_orthogonal")
    torch.manual_seed(cases["seed"])
    model = eval(cases["model"], {"nn": nn})
    linears, others = ([functools.reduce(lambda m, i: m[i], path, model) for path in cases[kind]]
                       for kind in ("linears", "others"))
    before = [{k: v.clone() for k, v in m.state_dict().items()} for m in others]
    call("init_orthogonal(nn.ReLU())", init_orthogonal, nn.ReLU())
    call("model.apply(init_orthogonal)", model.apply, init_orthogonal)
    for linear in linears:
        w = linear.weight.detach()
        rows, cols = w.shape
        gram = w @ w.T if rows <= cols else w.T @ w
        if not torch.allclose(gram, torch.eye(min(rows, cols)), atol=1e-5):
            raise wrong(f"after `model.apply(init_orthogonal)`, the weight of `{linear}` is not orthogonal",
                        f"`model.apply(init_orthogonal)`之后，`{linear}`的权重不是正交的")
    for module, state in zip(others, before, strict=True):
        if any(not torch.equal(module.state_dict()[k], v) for k, v in state.items()):
            raise wrong(f"`init_orthogonal` changed a `{type(module).__name__}`, which is not an nn.Linear",
                        f"`init_orthogonal`改动了`{type(module).__name__}`，它不是nn.Linear")
