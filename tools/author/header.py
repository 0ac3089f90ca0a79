"""A notebook's header: its Open-in-Colab link, the line for readers without Colab, and its measured run times
(``notebooks/timings.json``, written by ``tools/author/run_notebooks.py``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tools.author import digest
from tools.author.editions import NOTEBOOKS, language_of
from tools.author.setup_cell import REPO

TIMINGS = NOTEBOOKS / "timings.json"
"""Measured wall times per notebook, written by ``tools/author/run_notebooks.py``; never edited by hand."""
TIME_LINE = re.compile(r"^\*\*(Time:|用时：?)\*\*.*$", re.M)


def colab_url(name: str, lang: str = "en") -> str:
    """Return the address that opens notebook ``name`` of edition ``lang`` in Colab, from GitHub."""
    folder = "notebooks/zh" if lang == "zh" else "notebooks"
    return f"https://colab.research.google.com/github/{REPO}/blob/main/{folder}/{name}"


def badge(name: str, lang: str = "en") -> str:
    """Return the Open-in-Colab badge (markdown, Colab's own image) for notebook ``name`` of edition ``lang``: the
    READMEs' tables, which are read on GitHub, online."""
    return f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab_url(name, lang)})"


COLAB_LINK_WORDS = {"en": "Open in Colab", "zh": "在Colab中打开"}

WITHOUT_COLAB = {
    "zh": "**没有Colab时**：用老师分发的学生版压缩包student.zip，在自己电脑的JupyterLab中运行，或者上传到国内"
    "带GPU的在线Jupyter平台，解压后运行；具体做法见项目说明README.zh.md中的“没有Colab时”一节。"
}
"""The header's line under the Colab link for readers who cannot open Colab (mainland China: the Chinese edition).
Plain words, no link or code span: the Chinese title cell keeps the English one's links and code spans
(tests/test_translate.py)."""
WITHOUT_COLAB_LINE = re.compile(r"^\*\*没有Colab时\*\*.*$", re.M)


def colab_link(name: str, lang: str = "en") -> str:
    """Return the header's Open-in-Colab link (markdown) for notebook ``name`` of edition ``lang``: words, not an
    image, so that it reads the same offline (JupyterLab shows a remote image it cannot load as a broken one)."""
    return f"[{COLAB_LINK_WORDS[lang]}]({colab_url(name, lang)})"


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 90 else f"{seconds // 60} min {seconds % 60:02d} s"


def _machine_zh(machine: str) -> str:
    """Return a machine description of ``timings.json`` ("a 2-core CPU", "an NVIDIA H100 ...") in Chinese."""
    if match := re.fullmatch(r"an? (\d+)-core CPU", machine):
        return f"{match.group(1)}核CPU"
    return re.sub(r"^an? ", "", machine)


def _duration_zh(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds}秒" if seconds < 90 else f"{seconds // 60}分{seconds % 60:02d}秒"


QUICK_MODE_LINK = {"en": "../README.md#start-here", "zh": "../../README.zh.md#从这里开始"}
"""Where the header's words "quick mode" lead: the README's "Start here", which says what quick mode is and how to
choose it (relative to the notebook: on the website and in the handout it leads to the published README)."""

TIME_WORDS = {
    "en": {
        "quick": "[quick mode]({link})",
        "full": "full mode",
        "mode": "in {mode} {runs}",
        "run": "{duration} on {machine}",
        "again": {"cpu": "the CPU", "gpu": "the GPU"},
        "and": " and ",
        "startup": " (CUDA's start-up included)",
        "not measured": "not measured yet on a CPU",
        "line": "**Time:** {modes}.",
        "separator": "; ",
    },
    "zh": {
        "quick": "[快速模式]({link})",
        "full": "完整模式",
        "mode": "{mode}{runs}",
        "run": "在{machine}上{duration}",
        "again": {"cpu": "CPU", "gpu": "GPU"},
        "and": "，",
        "startup": "（含CUDA的启动时间）",
        "not measured": "在CPU上尚未测量",
        "line": "**用时**：{modes}。",
        "separator": "；",
    },
}
"""The words of the header's time line in each language (see ``time_line``)."""


def quick_mode_shrinks(nb: Any) -> bool:
    """Return True when the notebook's code reads quick mode beyond defining ``QUICK`` (it shrinks data or epochs);
    False for a lesson that runs the same work in both modes, whose header then gives one time."""
    lines = [line for cell in nb.cells[1:] if cell.cell_type == "code" for line in cell.source.splitlines()]
    uses = [line for line in lines if re.search(r"\bQUICK\b|is_quick_mode", line)]
    return len(uses) > 1 or any(not line.lstrip().startswith("QUICK = ") for line in uses)


def time_line(times: dict[str, Any], lang: str = "en", shrinks: bool = True) -> str:
    """Return the header line for one notebook's entry of ``timings.json`` in ``lang``: one time per machine, quick
    mode first (linked to what it is), then full mode; "CUDA's start-up included" where the GPU took longer than the
    CPU. Where quick mode shrinks nothing (``shrinks`` False), one time per machine: the full-mode run's where there
    is one. How and when each time was measured is in ``timings.json``, not on the page."""
    words = TIME_WORDS[lang]
    duration, machine = (_duration_zh, _machine_zh) if lang == "zh" else (_duration, str)
    modes, named, startup_said = [], set(), False
    for mode in ("quick", "full") if shrinks else ("one",):
        runs = []
        for kind in ("cpu", "gpu"):
            keys = [f"{mode}/{kind}"] if shrinks else [f"full/{kind}", f"quick/{kind}"]
            run = next((times[key] for key in keys if times.get(key)), None)
            if not run:
                if kind == "cpu":
                    runs.append(words["not measured"])
                continue
            where = words["again"][kind] if (kind, run["machine"]) in named else machine(run["machine"])
            named.add((kind, run["machine"]))
            runs.append(words["run"].format(duration=duration(run["seconds"]), machine=where))
            cpu = next((times[key.replace("gpu", "cpu")] for key in keys if times.get(key.replace("gpu", "cpu"))), None)
            if kind == "gpu" and cpu and run["seconds"] > cpu["seconds"] and not startup_said:
                runs[-1] += words["startup"]
                startup_said = True
        if not shrinks:
            modes.append(words["and"].join(runs))
            continue
        name = words[mode].format(link=QUICK_MODE_LINK[lang])
        modes.append(words["mode"].format(mode=name, runs=words["and"].join(runs)))
    return words["line"].format(modes=words["separator"].join(modes))


def timings_table(timings: dict[str, dict[str, Any]], names: list[str], lang: str = "en",
                  codes: dict[str, str] | None = None) -> str:
    """Return a markdown table of every notebook's measured times (``-`` where nothing was measured); with ``codes``
    (each notebook's current ``digest.code_digest``), a time of older code is marked with a dagger."""
    zh = lang == "zh"
    older = False
    titles = (
        ["快速模式，CPU", "完整模式，CPU", "快速模式，GPU", "完整模式，GPU"]
        if zh
        else ["quick, CPU", "full, CPU", "quick, GPU", "full, GPU"]
    )
    keys = ["quick/cpu", "full/cpu", "quick/gpu", "full/gpu"]
    rows = [f"| {'笔记本' if zh else 'notebook'} | " + " | ".join(titles) + " |", "|---" * (len(keys) + 1) + "|"]
    machines = set()
    for name in names:
        times = timings.get(name, {})
        cells = []
        for key in keys:
            run = times.get(key)
            cells.append((_duration_zh if zh else _duration)(run["seconds"]) if run else "-")
            if run and codes is not None and run.get("code") != codes.get(name):
                cells[-1] += " †"
                older = True
            if run:
                kind, torch = key.split("/")[1].upper(), f"torch {run['torch']}"
                machines.add(
                    f"{kind}：{_machine_zh(run['machine'])}，{torch}" if zh else f"{kind}: {run['machine']}, {torch}"
                )
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    if zh:
        where = "测量环境：" + "；".join(sorted(machines)) + "。" if machines else "尚未测量。"
    else:
        where = ("Measured on " + "; ".join(sorted(machines)) if machines else "Nothing measured yet") + "."
    if older:
        where += (" † 测的是这一课较早的代码；课程页眉不引用这些时间。" if zh else
                  " † Measured on an earlier version of the lesson's code; the lesson's header does not quote it.")
    return "\n".join(rows) + f"\n\n{where}"


def read_timings() -> dict[str, dict[str, Any]]:
    """Return the contents of ``timings.json`` (an empty dict if there is none yet)."""
    return json.loads(TIMINGS.read_text(encoding="utf-8")) if TIMINGS.is_file() else {}



def current_times(timings: dict[str, dict[str, Any]], nb: Any, name: str, lang: str = "en") -> dict[str, Any]:
    """Return the entries of ``timings.json`` for notebook ``name`` that measured its current code (their ``code``
    is ``nb``'s digest, ``digest.edition_code_digest``): the header quotes no time of older code."""
    code = digest.edition_code_digest(nb, name, lang)
    times = timings.get(name.removesuffix(".ipynb"), {})
    return {key: run for key, run in times.items() if run.get("code") == code}


def update_header(path: Path) -> None:
    """Rewrite only the time line of the notebook at ``path`` (either edition) from ``timings.json``."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    lang = language_of(path)
    line = time_line(current_times(read_timings(), nb, path.name, lang), lang, quick_mode_shrinks(nb))
    if TIME_LINE.sub(lambda _: line, nb.cells[0].source) != nb.cells[0].source:
        nb.cells[0].source = TIME_LINE.sub(lambda _: line, nb.cells[0].source)
        nbformat.write(nb, path)

