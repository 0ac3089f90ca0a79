"""Notebooks 03 and 04 (modules, parameters): a module's tree as a figure. It shows what the module registers
(child modules, parameters, buffers) beside what it holds without registering (plain tensor attributes, modules kept
in plain lists or tuples), and a tensor or module reached from two places drawn once, with an arrow from each.

Lesson module (see ``lessons/__init__.py`` for where code lives): it imports ``utils`` for the figure's words in the
edition's language; ``utils`` never imports it. Its unit tests are in ``tests/test_module_tree.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

import utils

KINDS = {
    "module": ("module", "模块"),
    "parameter": ("parameter", "参数"),
    "buffer": ("buffer", "缓冲区"),
    "plain tensor": ("plain tensor", "普通张量"),
    "module in a list": ("module in a list", "列表里的模块"),
}
"""Each kind of box, in English and Chinese."""


@dataclass(frozen=True)
class Box:
    """One box of the tree: the path that reaches it first, its kind, its depth, whether it is registered."""

    path: str
    what: str  # the class of a module, or the shape of a tensor
    kind: str  # a key of KINDS
    depth: int
    registered: bool


@dataclass
class Tree:
    """The boxes in drawing order, and the arrows: (parent box, child box, the name the parent uses)."""

    boxes: list[Box]
    arrows: list[tuple[int, int, str]]

    def reached_twice(self) -> list[int]:
        """Return the boxes that two or more arrows reach: one object, registered in two places."""
        targets = [child for _, child, _ in self.arrows]
        return sorted({box for box in targets if targets.count(box) > 1})


def _shape(tensor: torch.Tensor) -> str:
    return "×".join(str(size) for size in tensor.shape) or "scalar"


def module_tree(model: nn.Module) -> Tree:
    """Return the tree of ``model``: its registered children, parameters and buffers, and the plain tensor
    attributes and modules in plain lists or tuples that it holds without registering (their own tensors too).
    A module or tensor reached a second time gets one more arrow, not a second box."""
    tree = Tree([], [])
    seen: dict[int, int] = {}

    def add(obj: Any, path: str, name: str, kind: str, depth: int, registered: bool, parent: int | None) -> None:
        if id(obj) in seen:
            if parent is not None:
                tree.arrows.append((parent, seen[id(obj)], name))
            return
        what = type(obj).__name__ if isinstance(obj, nn.Module) else _shape(obj)
        index = len(tree.boxes)
        seen[id(obj)] = index
        tree.boxes.append(Box(path, what, kind, depth, registered))
        if parent is not None:
            tree.arrows.append((parent, index, name))
        if not isinstance(obj, nn.Module):
            return
        prefix = f"{path}." if path else ""
        for key, tensor in obj._parameters.items():
            if tensor is not None:
                add(tensor, prefix + key, key, "parameter", depth + 1, registered, index)
        for key, tensor in obj._buffers.items():
            if tensor is not None:
                add(tensor, prefix + key, key, "buffer", depth + 1, registered, index)
        for key, value in vars(obj).items():
            if key.startswith("_"):
                continue
            if isinstance(value, torch.Tensor):
                add(value, prefix + key, key, "plain tensor", depth + 1, False, index)
            elif isinstance(value, list | tuple):
                for position, item in enumerate(value):
                    if isinstance(item, nn.Module | torch.Tensor):
                        kind = "module in a list" if isinstance(item, nn.Module) else "plain tensor"
                        item_name = f"{key}[{position}]"
                        add(item, prefix + item_name, item_name, kind, depth + 1, False, index)
        for key, child in obj._modules.items():
            if child is not None:
                add(child, prefix + key, key, "module", depth + 1, registered, index)

    add(model, "", "", "module", 0, True, None)
    return tree


def _words(en: str, zh: str) -> str:
    return utils.label(en, zh)


def box_text(box: Box) -> str:
    """Return the text of a box: its name and what it is, and "not registered" where it is not."""
    name = box.path.rsplit(".", 1)[-1] if box.path else _words("the model", "整个模型")
    kind = _words(*KINDS[box.kind])
    text = f"{name}: {box.what}" if box.kind in ("module", "module in a list") else f"{name} ({kind}, {box.what})"
    return text if box.registered else text + _words(" - NOT registered", " - 未注册")


def draw(model: nn.Module, title: str) -> Any:
    """Draw ``model``'s tree (``module_tree``) with matplotlib and return the figure: one row a box, indented by
    depth; registered boxes solid, unregistered ones dashed and marked "NOT registered"; an object reached a
    second time gets a dotted, curved arrow from its second parent, labelled with the name that parent uses.
    ``title`` goes on top."""
    import matplotlib.pyplot as plt

    tree = module_tree(model)
    fig, ax = plt.subplots(figsize=(7.5, 0.42 * len(tree.boxes) + 0.8))
    colours = {"module": utils.PALETTE[0], "parameter": utils.PALETTE[2], "buffer": utils.PALETTE[3]}
    for row, box in enumerate(tree.boxes):
        colour = colours.get(box.kind, utils.PALETTE[1]) if box.registered else utils.PALETTE[1]
        ax.text(box.depth, -row, box_text(box), va="center", ha="left", fontsize=9, gid=box.path or "model",
                bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": colour,
                      "linestyle": "-" if box.registered else "--", "linewidth": 1.5})
    first_parent: dict[int, int] = {}
    for parent, child, name in tree.arrows:
        if child not in first_parent:
            first_parent[child] = parent
            x = tree.boxes[parent].depth + 0.15
            ax.plot([x, x, tree.boxes[child].depth - 0.05], [-parent - 0.3, -child, -child],
                    linestyle="-" if tree.boxes[child].registered else "--", color="gray", linewidth=1)
        else:  # a second way to the same object
            ax.annotate("", xy=(tree.boxes[child].depth - 0.08, -child),
                        xytext=(tree.boxes[parent].depth - 0.1, -parent),
                        arrowprops={"arrowstyle": "->", "linestyle": ":", "color": "black",
                                    "connectionstyle": "arc3,rad=-0.4", "linewidth": 1.5})
            same = _words(f"{name}: the same object", f"{name}：同一个对象")
            ax.text(tree.boxes[parent].depth + 1.2, -parent - 0.45, same, va="center", ha="left", fontsize=8,
                    style="italic")
    ax.set_xlim(-0.3, max(box.depth for box in tree.boxes) + 6)
    ax.set_ylim(-len(tree.boxes) + 0.4, 0.6)
    ax.set_title(title)
    ax.axis("off")
    fig.tight_layout()
    return fig


def describe(model: nn.Module) -> tuple[str, str]:
    """Return the figure's description in English and Chinese, written from ``model``'s tree: what it registers,
    what it leaves out, and which object is reached from two places."""
    tree = module_tree(model)
    registered = [box for box in tree.boxes if box.registered]
    left_out = [box for box in tree.boxes if not box.registered]
    counts = {kind: sum(box.kind == kind for box in registered) for kind in ("module", "parameter", "buffer")}
    many = [f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in counts.items()]
    en = (f"The tree of `{tree.boxes[0].what}`, one box a row, indented under its owner. Registered, solid boxes: "
          f"{many[0]}, {many[1]} and {many[2]}; `.to()` moves these.")
    zh = (f"`{tree.boxes[0].what}`的树，每行一个框，缩进在它的所有者下面。实线框是注册过的："
          f"{counts['module']}个模块、{counts['parameter']}个参数和{counts['buffer']}个缓冲区，`.to()`会移动它们。")
    if left_out:
        names = [f"`{box.path}`" for box in left_out]
        en += f" Dashed boxes marked NOT registered: {', '.join(names)}; `.to()` skips them."
        zh += f"标着“未注册”的虚线框：{'、'.join(names)}，`.to()`会跳过它们。"
    for index in tree.reached_twice():
        parents = [f"`{tree.boxes[p].path or tree.boxes[0].what}`" for p, c, _ in tree.arrows if c == index]
        en += (f" `{tree.boxes[index].path}` is one object reached from {len(parents)} places "
               f"({', '.join(parents)}): drawn once, with a dotted arrow from the second, labelled 'the same object'.")
        zh += (f"`{tree.boxes[index].path}`是同一个对象，从{len(parents)}处都能到达（{'、'.join(parents)}）："
               "只画一次，第二处用标着“同一个对象”的点线箭头指向它。")
    return en, zh
