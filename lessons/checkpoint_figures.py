"""Notebook 05's figure: the timeline of an interrupted training run and its two resumptions, drawn from what the
checkpoint files record (the last epoch, the epoch a run stopped after, the keys a checkpoint holds)."""

from __future__ import annotations

from typing import Any

import utils

BOX_WIDTH = 0.8
"""The width of an epoch's box on the epoch axis; epoch ``e`` spans ``e - 1`` to ``e`` and its box sits inside."""
ROWS = {"uninterrupted": 2, "resumed": 1, "no_rng": 0}
"""The height of each run's row: the uninterrupted run on top, the run without the random state at the bottom."""
HATCHES = {"before": "", "restored": "//", "no_rng": "xx"}
"""The hatch of an epoch's box: trained before the stop, after a full restore, after a restore without the random
state (so that no box is told apart by colour alone)."""


def run_rows() -> dict[str, str]:
    """Return each row's label, in the edition's language (``utils.label``)."""
    return {
        "uninterrupted": utils.label("uninterrupted", "不中断"),
        "resumed": utils.label("interrupted, resumed", "中断后恢复"),
        "no_rng": utils.label("resumed without\nrandom state", "恢复时不恢复\n随机状态"),
    }


def _epoch_boxes(ax: Any, row: str, first: int, last: int, kind: str) -> None:
    from matplotlib.patches import Rectangle

    colour = {"before": utils.PALETTE[0], "restored": utils.PALETTE[2], "no_rng": utils.PALETTE[1]}[kind]
    for epoch in range(first, last + 1):
        ax.add_patch(Rectangle((epoch - 1 + (1 - BOX_WIDTH) / 2, ROWS[row] - 0.3), BOX_WIDTH, 0.6,
                               facecolor=colour, edgecolor="black", hatch=HATCHES[kind], alpha=0.85,
                               gid=f"{row}:{kind}:{epoch}"))


def resume_timeline(epochs: int, stopped_after: int, holds: list[str]) -> Any:
    """Return a matplotlib figure of three runs of ``epochs`` epochs on one epoch axis.

    Top row: the uninterrupted run. Middle: a run that stops after epoch ``stopped_after`` (a cross) and is resumed
    from that epoch's checkpoint. Bottom: the same resumption without the random state. A box per epoch trained
    (hatched by kind, see ``HATCHES``), a diamond at each epoch's end for the checkpoint written there, an arrow from
    the checkpoint both resumptions load, and a note that lists ``holds``, the keys of a checkpoint.
    """
    if not 0 < stopped_after < epochs:
        raise ValueError(f"stopped_after must be between 0 and {epochs} (exclusive), not {stopped_after}")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    fig, ax = plt.subplots(figsize=(9, 3.6), layout="constrained")
    _epoch_boxes(ax, "uninterrupted", 1, epochs, "before")
    _epoch_boxes(ax, "resumed", 1, stopped_after, "before")
    _epoch_boxes(ax, "resumed", stopped_after + 1, epochs, "restored")
    _epoch_boxes(ax, "no_rng", stopped_after + 1, epochs, "no_rng")
    written = {"uninterrupted": range(1, epochs + 1), "resumed": range(1, epochs + 1),
               "no_rng": range(stopped_after + 1, epochs + 1)}
    for row, ends in written.items():
        ax.plot(list(ends), [ROWS[row]] * len(ends), "D", color="black", markersize=6, gid=f"checkpoints:{row}")
    ax.plot([stopped_after], [ROWS["resumed"] + 0.45], "X", color=utils.PALETTE[3], markersize=12,
            markeredgecolor="black", gid="stop")
    ax.annotate(utils.label("stopped here", "在这里中断"), (stopped_after, ROWS["resumed"] + 0.45),
                xytext=(9, 0), textcoords="offset points", ha="left", va="center", fontsize=9)
    loaded = utils.label(f"loaded: the checkpoint of epoch {stopped_after}", f"加载第{stopped_after}轮的检查点")
    ax.annotate("", xy=(stopped_after, ROWS["no_rng"] + 0.32), xytext=(stopped_after, ROWS["resumed"] - 0.12),
                arrowprops={"arrowstyle": "->", "linestyle": "--"})
    ax.text(stopped_after - 0.1, (ROWS["resumed"] + ROWS["no_rng"]) / 2, loaded, ha="right", va="center", fontsize=9)
    note = utils.label("a checkpoint holds: ", "检查点里有：") + ", ".join(holds)
    ax.text(0.0, 2.75, note, ha="left", va="center", fontsize=9, gid="holds",
            bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "gray"})
    rows = run_rows()
    ax.set_yticks([ROWS[row] for row in rows], list(rows.values()))
    ax.set_xticks([epoch - 0.5 for epoch in range(1, epochs + 1)], [str(e) for e in range(1, epochs + 1)])
    ax.set(xlim=(-0.2, epochs + 0.4), ylim=(-0.6, 3.1),
           xlabel=utils.label("epoch", "轮"),
           title=utils.label("An interrupted run, resumed from its checkpoint", "中断的训练从检查点恢复"))
    ax.legend(handles=[
        Patch(facecolor=utils.PALETTE[0], edgecolor="black", label=utils.label("epoch trained", "训练的一轮")),
        Patch(facecolor=utils.PALETTE[2], edgecolor="black", hatch=HATCHES["restored"],
              label=utils.label("after a full restore", "完整恢复之后")),
        Patch(facecolor=utils.PALETTE[1], edgecolor="black", hatch=HATCHES["no_rng"],
              label=utils.label("without the random state", "没有恢复随机状态")),
        Line2D([], [], marker="D", color="black", linestyle="", label=utils.label("checkpoint saved", "保存检查点")),
    ], loc="upper right", fontsize=8, ncols=2)
    return fig


def describe_resume_timeline(epochs: int, stopped_after: int, holds: list[str]) -> tuple[str, str]:
    """Return the text description of ``resume_timeline(epochs, stopped_after, holds)``: English, Chinese."""
    keys_en, keys_zh = ", ".join(holds), "、".join(f"`{key}`" for key in holds)  # keys are code
    en = (f"A timeline of three training runs over epochs 1 to {epochs}, one row each: a box for every epoch trained "
          f"and a diamond for the checkpoint saved at its end. Top: the uninterrupted run. Middle: the run stops "
          f"after epoch {stopped_after} (a cross) and resumes from that checkpoint for epochs {stopped_after + 1} to "
          f"{epochs} (boxes hatched with lines). Bottom: the same resumption without the random state (cross-hatched "
          f"boxes). A note lists what every checkpoint holds: {keys_en}.")
    zh = (f"三次训练的时间线，横轴是第1到第{epochs}轮，每次训练占一行。每训练一轮画一个方框，"
          f"每轮结束时保存的检查点画一个菱形。上面一行是不中断的运行。中间一行在第{stopped_after}轮之后中断（叉号），"
          f"再从那个检查点恢复，训练第{stopped_after + 1}到第{epochs}轮（斜线方框）。"
          f"下面一行同样从那里恢复，但没有恢复随机状态（交叉线方框）。一个注释框列出每个检查点里的键：{keys_zh}。")
    return en, zh


def show_resume_timeline(epochs: int, stopped_after: int, holds: list[str]) -> None:
    """Draw ``resume_timeline`` and show it with its description (``utils.show_figure``)."""
    utils.show_figure(resume_timeline(epochs, stopped_after, holds),
                      *describe_resume_timeline(epochs, stopped_after, holds))
