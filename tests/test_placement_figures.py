"""Unit tests for lessons/placement_figures.py (notebooks 01 and 02): what `where` reads, what the figure draws."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

import utils  # noqa: E402
from lessons import placement_figures  # noqa: E402


def batch_and_modules() -> tuple[dict[str, str], dict[str, str]]:
    """Notebook 01's picture: a CPU batch copied to meta, a model and a weighted loss moved there."""
    xb, yb = torch.randn(4, 2), torch.tensor([0, 1, 1, 0])
    model, loss_fn = nn.Linear(2, 2), nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0]))
    before = placement_figures.where({"xb": xb, "yb": yb, "model": model, "loss_fn": loss_fn})
    after = placement_figures.where({"xb": xb.to("meta"), "yb": yb.to("meta"), "model": model.to("meta"),
                                     "loss_fn": loss_fn.to("meta")})
    return before, after


def test_where_reads_tensors_parameters_buffers_and_plain_attributes() -> None:
    norm = nn.BatchNorm1d(3)
    norm.scale = torch.ones(3)  # neither a parameter nor a buffer
    found = placement_figures.where({"x": torch.ones(1), "norm": norm})
    assert list(found) == ["x", "norm.weight", "norm.bias", "norm.running_mean (buffer)",
                           "norm.running_var (buffer)", "norm.num_batches_tracked (buffer)",
                           "norm.scale (plain attribute)"]
    norm.to("meta")
    moved = placement_figures.where({"norm": norm})
    assert moved["norm.scale (plain attribute)"] == "cpu"  # Module.to leaves it behind
    assert {d for n, d in moved.items() if "plain" not in n} == {"meta"}
    assert placement_figures.where({"relu": nn.ReLU()}) == {}


def test_the_description_names_what_was_copied_moved_and_left() -> None:
    before, after = batch_and_modules()
    en, zh = placement_figures.describe(before, after, copied={"xb", "yb"})
    assert "Copied, so on both sides (solid arrows): xb, yb." in en
    assert "model.weight, model.bias, loss_fn.weight (buffer)" in en and "meta" in en
    assert "Left where" not in en  # nothing stayed
    assert "复制过去的张量两边都有（实线箭头）：`xb`、`yb`。" in zh


def texts(fig: plt.Figure) -> list[str]:
    return [t.get_text() for t in fig.axes[0].texts]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_figure_draws_each_tensor_where_it_lives(lang: str) -> None:
    utils.set_language(lang)
    try:
        before, after = batch_and_modules()
        fig, en, zh = placement_figures.draw_host_and_device(before, after, copied=["xb", "yb"])
        drawn = texts(fig)
        gone = utils.label(" (gone)", "（已移走）")
        # copies: on both sides, the original as it is; moves: the host one marked gone
        assert drawn.count("xb") == drawn.count("yb") == 2
        assert drawn.count("model.weight") == 1 and drawn.count(f"model.weight{gone}") == 1
        assert drawn.count(utils.label("copy", "复制")) == 2 and drawn.count(utils.label("move", "移动")) == 3
        arrows = [a for a in fig.axes[0].texts if isinstance(a, matplotlib.text.Annotation)]
        assert len(arrows) == 5  # one per tensor that crossed
        styles = sorted(a.arrow_patch.get_linestyle() for a in arrows)
        assert styles.count("-") == 2 and len(set(styles)) == 2  # copies solid, moves dashed
        assert utils.label("host memory (CPU)", "主机内存（CPU）") in drawn
        title = utils.label("Where each tensor lives after the move", "移动之后，每个张量在哪里")
        assert fig.axes[0].get_title() == title
        assert (en, zh) == placement_figures.describe(before, after, copied=["xb", "yb"])
        plt.close(fig)
    finally:
        utils.set_language("en")


def test_a_tensor_left_behind_is_drawn_once_without_an_arrow() -> None:
    norm = nn.BatchNorm1d(3)
    norm.scale = torch.ones(3)
    before = placement_figures.where({"norm": norm})
    norm.to("meta")
    fig, en, _ = placement_figures.draw_host_and_device(before, placement_figures.where({"norm": norm}))
    drawn = texts(fig)
    assert drawn.count("norm.scale (plain attribute)") == 1
    assert drawn.count("move") == 5  # 2 parameters and 3 buffers
    assert "Left where they were, with no arrow: norm.scale (plain attribute)." in en
    plt.close(fig)
