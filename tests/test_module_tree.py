"""Unit tests for lessons/module_tree.py (notebooks 03 and 04): the tree found from a module, and the figure drawn
from it with the Agg backend, checked by the texts and lines it made."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

import utils  # noqa: E402
from lessons import module_tree  # noqa: E402


class Shortcuts(nn.Module):
    """A registered layer and buffer beside a plain list of layers and a plain tensor attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(3, 2)
        self.register_buffer("scale", torch.ones(2))
        self.layers = [nn.Linear(2, 2), nn.ReLU()]
        self.rand_weight = torch.rand(2, 2)


def tied_pair() -> nn.Sequential:
    encoder, decoder = nn.Linear(4, 4), nn.Linear(4, 4)
    decoder.weight = encoder.weight
    return nn.Sequential(encoder, decoder)


@pytest.fixture(autouse=True)
def english() -> None:
    utils.set_language("en")
    yield
    utils.set_language("en")
    plt.close("all")


def test_registered_and_left_out_boxes() -> None:
    tree = module_tree.module_tree(Shortcuts())
    registered = {box.path: box.kind for box in tree.boxes if box.registered}
    left_out = {box.path: box.kind for box in tree.boxes if not box.registered}
    assert registered == {"": "module", "scale": "buffer", "linear": "module", "linear.weight": "parameter",
                          "linear.bias": "parameter"}
    assert left_out == {"layers[0]": "module in a list", "layers[0].weight": "parameter",
                        "layers[0].bias": "parameter", "layers[1]": "module in a list",
                        "rand_weight": "plain tensor"}
    # the registered tensors are exactly what the module itself reports
    reported = {name for name, _ in Shortcuts().named_parameters()} | {"scale"}
    assert {p for p, k in registered.items() if k != "module"} == reported


def test_an_object_reached_twice_is_one_box_with_two_arrows() -> None:
    tree = module_tree.module_tree(tied_pair())
    paths = [box.path for box in tree.boxes]
    assert paths.count("0.weight") == 1 and "1.weight" not in paths
    (shared,) = tree.reached_twice()
    assert tree.boxes[shared].path == "0.weight"
    assert sorted(tree.boxes[p].path for p, c, _ in tree.arrows if c == shared) == ["0", "1"]
    # a module used twice, as in nn.Sequential(shared, nn.ReLU(), shared): one box as well
    layer = nn.Linear(2, 2)
    reused = module_tree.module_tree(nn.Sequential(layer, nn.ReLU(), layer))
    assert [reused.boxes[i].path for i in reused.reached_twice()] == ["0"]


def test_the_figure_draws_one_text_per_box_and_marks_what_is_left_out() -> None:
    model = Shortcuts()
    fig = module_tree.draw(model, "title")
    ax = fig.axes[0]
    boxes = [text for text in ax.texts if text.get_bbox_patch() is not None]
    tree = module_tree.module_tree(model)
    assert [text.get_gid() for text in boxes] == [box.path or "model" for box in tree.boxes]
    marked = {text.get_gid() for text in boxes if "NOT registered" in text.get_text()}
    assert marked == {box.path for box in tree.boxes if not box.registered}
    dashed = {t.get_gid() for t in boxes if t.get_bbox_patch().get_linestyle() != "-"}
    assert dashed == marked  # dashed as well as marked: not told by colour alone
    assert ax.get_title() == "title"
    assert len(ax.lines) == len(tree.boxes) - 1  # one line to each box but the root


def test_the_shared_object_gets_a_labelled_arrow() -> None:
    fig = module_tree.draw(tied_pair(), "title")
    ax = fig.axes[0]
    arrows = [t for t in ax.texts if isinstance(t, matplotlib.text.Annotation)]
    assert len(arrows) == 1 and arrows[0].arrow_patch.get_linestyle() == ":"
    labels = [t.get_text() for t in ax.texts if t.get_bbox_patch() is None and t not in arrows]
    assert labels == ["weight: the same object"]


def test_the_descriptions_say_what_the_tree_holds() -> None:
    en, zh = module_tree.describe(Shortcuts())
    assert "2 modules, 2 parameters and 1 buffer;" in en and "`rand_weight`" in en and "`layers[0]`" in en
    assert "2个模块、2个参数和1个缓冲区" in zh and "未注册" in zh
    en, zh = module_tree.describe(tied_pair())
    assert "`0.weight` is one object reached from 2 places (`0`, `1`)" in en and "NOT registered" not in en
    assert "`0.weight`是同一个对象" in zh


def test_chinese_words_where_a_font_has_the_glyphs() -> None:
    utils.set_language("zh")
    texts = [t.get_text() for t in module_tree.draw(tied_pair(), "标题").axes[0].texts]
    if utils.use_cjk_font() is None:
        assert "weight: the same object" in texts
    else:
        assert "weight：同一个对象" in texts and "整个模型: Sequential" in texts
