"""Where tensors live before and after a move, drawn as host memory and device memory (notebooks 01 and 02).

``where`` reads the device of every tensor a set of objects holds; ``draw_host_and_device`` draws two such readings,
before and after a move, as two boxes with arrows for what crossed. Titles and labels go through ``utils.label`` and
the descriptions come in both languages, so the Chinese edition runs the same code.

Lesson module (see ``lessons/__init__.py`` for where code lives). Its unit tests are in
``tests/test_placement_figures.py``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import torch
from torch import nn

import utils

BUFFER = " (buffer)"
"""Suffix of a buffer's name, as ``utils.placement`` writes it."""
ATTRIBUTE = " (plain attribute)"
"""Suffix of a plain tensor attribute's name: a tensor a module holds that is neither a parameter nor a buffer."""


def where(objects: Mapping[str, torch.Tensor | nn.Module]) -> dict[str, str]:
    """Return ``{name: device}`` for every tensor in ``objects``, in order.

    A tensor keeps its name. A module gives one entry per parameter (``"model.weight"``), per buffer
    (``"norm.running_mean (buffer)"``) and per plain tensor attribute of the module itself, which ``Module.to``
    does not see (``"norm.scale (plain attribute)"``).
    """
    found: dict[str, str] = {}
    for name, obj in objects.items():
        if isinstance(obj, torch.Tensor):
            found[name] = str(obj.device)
            continue
        found.update({f"{name}.{key}": device for key, device in utils.placement(obj).items()})
        for key, value in vars(obj).items():
            if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
                found[f"{name}.{key}{ATTRIBUTE}"] = str(value.device)
    return found


def _kinds(before: Mapping[str, str], after: Mapping[str, str], copied: Collection[str]) -> dict[str, str]:
    """Return ``{name: "copied" | "moved" | "stayed"}`` for every name of ``before`` and ``after``."""
    kinds = {}
    for name in [*before, *(n for n in after if n not in before)]:
        start, end = before.get(name, after.get(name)), after.get(name, before.get(name))
        kinds[name] = "stayed" if start == end else ("copied" if name in copied else "moved")
    return kinds


def describe(before: Mapping[str, str], after: Mapping[str, str], copied: Collection[str] = ()) -> tuple[str, str]:
    """Return the figure's description, ``(English, Chinese)``: which tensors were copied, moved or left behind."""
    kinds = _kinds(before, after, copied)
    devices = sorted({d for d in [*before.values(), *after.values()] if d != "cpu"}) or ["cpu"]
    target = ", ".join(devices)
    names = {kind: [n for n, k in kinds.items() if k == kind] for kind in ("copied", "moved", "stayed")}
    group = {kind: ", ".join(found) for kind, found in names.items()}
    # the Chinese lists each name as code, so that no line mixes Chinese and English words
    code = {kind: "、".join(f"`{n}`" for n in found) for kind, found in names.items()}
    en = [f"Host memory (the CPU) on the left, the memory of {target} on the right."]
    zh = [f"左边是主机内存（CPU），右边是`{target}`的内存。"]
    if group["copied"]:
        en.append(f"Copied, so on both sides (solid arrows): {group['copied']}.")
        zh.append(f"复制过去的张量两边都有（实线箭头）：{code['copied']}。")
    if group["moved"]:
        en.append(f"Moved, so only on {target}, gone from the host (dashed arrows): {group['moved']}.")
        zh.append(f"移动过去的张量只在`{target}`上，主机上已经没有了（虚线箭头）：{code['moved']}。")
    if group["stayed"]:
        en.append(f"Left where they were, with no arrow: {group['stayed']}.")
        zh.append(f"留在原处、没有箭头的张量：{code['stayed']}。")
    return " ".join(en), "".join(zh)


def draw_host_and_device(
    before: Mapping[str, str], after: Mapping[str, str], copied: Collection[str] = ()
) -> tuple[Any, str, str]:
    """Draw where each named tensor lives before and after a move; return ``(figure, English, Chinese)``, the
    descriptions from ``describe``, ready for ``utils.show_figure``.

    ``before`` and ``after`` map names to devices (``where``). Two boxes: host memory (the CPU) and the memory of
    the other device. A tensor that changed device is drawn on both sides with an arrow: solid if its name is in
    ``copied`` (``Tensor.to`` makes a copy, the original stays), dashed if it moved (``Module.to``: the host
    tensor is gone, drawn grey and dashed). A tensor that did not change is drawn once, where it stayed.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    kinds = _kinds(before, after, copied)
    devices = sorted({d for d in [*before.values(), *after.values()] if d != "cpu"}) or ["cpu"]
    rows = len(kinds)
    fig, ax = plt.subplots(figsize=(8.5, 0.55 * rows + 1.4))
    ax.set(xlim=(0, 10), ylim=(-0.4, rows + 1.1))
    ax.axis("off")
    titles = (utils.label("host memory (CPU)", "主机内存（CPU）"),
              utils.label(f"{', '.join(devices)} memory", f"{', '.join(devices)}的内存"))
    for x, title in ((0.2, titles[0]), (6.0, titles[1])):
        ax.add_patch(FancyBboxPatch((x, -0.2), 3.8, rows + 0.3, boxstyle="round,pad=0.1", fill=False,
                                    edgecolor="black", linewidth=1.2))
        ax.text(x + 1.9, rows + 0.6, title, ha="center", va="center", fontsize=11)
    for row, (name, kind) in enumerate(kinds.items()):
        y = rows - 1 - row + 0.5
        start = before.get(name, after.get(name))
        end = after.get(name, before.get(name))
        places = {start: "gone" if kind == "moved" else "here"}
        places[end] = "here"
        for device, state in places.items():
            x = 2.1 if device == "cpu" else 7.9
            gone = utils.label(" (gone)", "（已移走）") if state == "gone" else ""
            ax.text(x, y, name + gone, ha="center", va="center", fontsize=9,
                    color="gray" if state == "gone" else "black",
                    bbox={"boxstyle": "round,pad=0.25", "facecolor": "white",
                          "edgecolor": utils.PALETTE[0] if state == "here" else "gray",
                          "linestyle": "-" if state == "here" else "--"})
        if kind != "stayed":
            left, right = (4.1, 5.9) if start == "cpu" else (5.9, 4.1)
            ax.annotate("", xy=(right, y), xytext=(left, y),
                        arrowprops={"arrowstyle": "->", "color": utils.PALETTE[1], "linewidth": 1.5,
                                    "linestyle": "-" if kind == "copied" else "--"})
            word = utils.label("copy", "复制") if kind == "copied" else utils.label("move", "移动")
            ax.text(5.0, y + 0.22, word, ha="center", va="bottom", fontsize=8)
    ax.set_title(utils.label("Where each tensor lives after the move", "移动之后，每个张量在哪里"))
    fig.tight_layout()
    en, zh = describe(before, after, copied)
    return fig, en, zh
