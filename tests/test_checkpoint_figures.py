"""Unit tests for lessons/checkpoint_figures.py (notebook 05's timeline): what it draws follows its arguments."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import utils  # noqa: E402
from lessons import checkpoint_figures  # noqa: E402

HOLDS = ["epoch", "model", "optimizer", "rng"]


def boxes(fig: object) -> dict[str, list[int]]:
    """Return, for each ``row:kind``, the epochs whose boxes the figure drew."""
    found: dict[str, list[int]] = {}
    for patch in fig.axes[0].patches:
        if isinstance(patch, Rectangle) and patch.get_gid():
            row, kind, epoch = patch.get_gid().split(":")
            found.setdefault(f"{row}:{kind}", []).append(int(epoch))
    return found


@pytest.mark.parametrize(("epochs", "stopped_after"), [(6, 3), (10, 7), (2, 1)])
def test_the_boxes_and_checkpoints_follow_the_runs(epochs: int, stopped_after: int) -> None:
    fig = checkpoint_figures.resume_timeline(epochs, stopped_after, HOLDS)
    try:
        after = list(range(stopped_after + 1, epochs + 1))
        assert boxes(fig) == {
            "uninterrupted:before": list(range(1, epochs + 1)),
            "resumed:before": list(range(1, stopped_after + 1)),
            "resumed:restored": after,
            "no_rng:no_rng": after,
        }
        hatches = {p.get_gid().split(":")[1]: p.get_hatch() for p in fig.axes[0].patches if p.get_gid()}
        assert len(set(hatches.values())) == 3  # every kind of box has a hatch of its own, not only a colour
        lines = {line.get_gid(): line for line in fig.axes[0].lines if line.get_gid()}
        assert list(lines["checkpoints:uninterrupted"].get_xdata()) == list(range(1, epochs + 1))
        assert list(lines["checkpoints:no_rng"].get_xdata()) == after
        assert list(lines["stop"].get_xdata()) == [stopped_after]
    finally:
        plt.close(fig)


def test_the_note_lists_what_a_checkpoint_holds_and_the_labels_are_in_english() -> None:
    fig = checkpoint_figures.resume_timeline(6, 3, HOLDS)
    try:
        ax = fig.axes[0]
        note = next(text for text in ax.texts if text.get_gid() == "holds")
        assert note.get_text() == "a checkpoint holds: epoch, model, optimizer, rng"
        assert [t.get_text() for t in ax.get_yticklabels()] == list(checkpoint_figures.run_rows().values())
        assert ax.get_xlabel() == "epoch" and "interrupted" in ax.get_title()
        assert [t.get_text() for t in ax.get_legend().get_texts()][-1] == "checkpoint saved"
    finally:
        plt.close(fig)


def test_the_chinese_edition_draws_chinese_labels_where_a_font_has_them() -> None:
    utils.set_language("zh")
    try:
        fig = checkpoint_figures.resume_timeline(6, 3, HOLDS)
        ax = fig.axes[0]
        chinese = utils.use_cjk_font() is not None
        assert (ax.get_xlabel() == "轮") == chinese
        assert (ax.get_title() == "中断的训练从检查点恢复") == chinese
        plt.close(fig)
    finally:
        utils.set_language("en")


def test_the_description_says_what_the_figure_shows() -> None:
    en, zh = checkpoint_figures.describe_resume_timeline(6, 3, HOLDS)
    assert "epochs 1 to 6" in en and "after epoch 3" in en and "epochs 4 to 6" in en
    assert "epoch, model, optimizer, rng" in en
    assert "第3轮之后中断" in zh and "第4到第6轮" in zh and "`epoch`、`model`、`optimizer`、`rng`" in zh


def test_a_stop_outside_the_run_is_refused() -> None:
    with pytest.raises(ValueError, match="stopped_after"):
        checkpoint_figures.resume_timeline(6, 6, HOLDS)
