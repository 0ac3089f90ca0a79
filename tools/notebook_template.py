"""What every notebook shares, kept in one place: the repository address, the setup cell, the Colab metadata, the
header's Colab link and its line with measured run times, and the fixed words of each language edition (English in
``notebooks/``, its Chinese twin in ``notebooks/zh/``).

``python tools/notebook_template.py`` writes these into every notebook (after editing this file, or after
``tools/run_notebooks.py`` recorded new times); ``tests/test_hygiene.py`` fails when a notebook differs from them.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
ZH_NOTEBOOKS = NOTEBOOKS / "zh"
"""The Chinese edition: a twin of every English notebook, same cells (ids) in the same order (tools/translate.py)."""
TIMINGS = NOTEBOOKS / "timings.json"
"""Measured wall times per notebook, written by ``tools/run_notebooks.py``; never edited by hand."""

REPO = "pytorch-gpu-notebooks/pytorch-gpu-notebooks"
"""GitHub home of the collection: the Colab badges and the setup cell's download point here, and only here."""

FOLDERS = (REPO.split("/")[1], REPO.split("/")[1] + "-main")
"""The folders beside a notebook where its setup cell looks for the project: a clone, or GitHub's zip unpacked."""
CLONE_TIMEOUT_ENV = "NB_CLONE_TIMEOUT"
"""Seconds the setup cell gives ``git clone`` before it gives up (default 30; the tests set a few)."""

_SETUP_CELL = """<<setup>>
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_URL = "https://github.com/<<repo>>"
FOLDERS = ("<<folder>>", "<<zip>>")  <<folders>>
SAY = {  <<say>>
    "taken": <<taken>>,
    "failed": <<failed>>,
    "late": <<late>>,
    "Colab": <<Colab>>,
    "Kaggle": <<Kaggle>>,
    "here": <<here>>,
}
here = Path.cwd()
found = [p for p in (here, *here.parents, *(here / f for f in FOLDERS)) if (p / "utils.py").is_file()]
ROOT = found[0] if found else here / FOLDERS[0]
if not found and ROOT.exists():
    raise RuntimeError(SAY["taken"].format(ROOT))
if not found:  <<download>>
    partial = tempfile.mkdtemp(prefix=f".{FOLDERS[0]}-", dir=here)  <<partial>>
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "NO_COLOR": "1", "TERM": "dumb"}
    command = ["git", "clone", "-q", "--depth", "1", REPO_URL, partial]
    seconds = float(os.environ.get("<<timeout env>>", "30"))
    git = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        why = (git.communicate(timeout=seconds)[1].strip() or "git").splitlines()[-1]
    except subprocess.TimeoutExpired:
        why = SAY["late"].format(seconds)
    finally:  <<finally>>
        if git.poll() is None:
            os.killpg(git.pid, signal.SIGKILL)
            git.wait()
        if git.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
    if git.returncode != 0:
        front = "Colab" if "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ else "here"
        front = "Kaggle" if "KAGGLE_KERNEL_RUN_TYPE" in os.environ else front
        raise RuntimeError(SAY["failed"].format(REPO_URL, why, SAY[front].format(*FOLDERS, here)))
    os.rename(partial, ROOT)
sys.path.insert(0, str(ROOT))
import utils

utils.set_language("<<lang>>")  <<language>>
utils.check_runtime()  <<runtime>>"""

SETUP_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "setup": "# Setup: make the project's code importable in JupyterLab, under the tests, and on Colab or Kaggle.",
        "folders": "# a clone, or GitHub's zip unpacked",
        "say": "# what this cell says when it can neither find nor download the project",
        "taken": '"{} is there but holds no utils.py: delete or rename it, then run this cell again."',
        "failed": '"Could not download {} ({}). Fix: {}; then run this cell again."',
        "late": '"no answer within {:g} s"',
        "Colab": '"check the network, or upload the project\'s zip from GitHub with the Files pane and '
        '!unzip -q {1}.zip"',
        "Kaggle": '"switch on Settings -> Internet for this notebook"',
        "here": '"put the project\'s folder, {0} (a clone) or {1} (GitHub\'s zip, unpacked), '
        'beside this notebook: {2}"',
        "download": "# opened on its own (Colab, Kaggle): download the project once",
        "partial": "# a new folder every try, renamed when complete",
        "finally": "# done, too late, or stopped by hand: end git and its helpers; keep only a whole clone",
        "language": "# helpers print their messages in this edition's language",
        "runtime": "# on Colab or Kaggle without a GPU: says how to switch one on, then goes on on the CPU",
    },
    "zh": {
        "setup": "# 准备工作：让项目的代码在JupyterLab、测试和Colab/Kaggle中都能导入。",
        "folders": "# git clone得到的，或GitHub的zip压缩包解压后的",
        "say": "# 既找不到也下载不了项目时，这个单元格给出的提示",
        "taken": '"{}已经存在，但里面没有utils.py：删除它或给它改名，然后重新运行这个单元格。"',
        "failed": '"无法下载{}（{}）。解决办法：{}；然后重新运行这个单元格。"',
        "late": '"{:g}秒内没有应答"',
        "Colab": '"检查网络；或者用“文件”面板上传项目在GitHub上的zip压缩包，再运行!unzip -q {1}.zip"',
        "Kaggle": '"在这个笔记本的Settings -> Internet中打开网络"',
        "here": '"把项目的文件夹{0}（git clone得到的）或{1}（GitHub的zip压缩包解压后的）放到这个笔记本旁边：{2}"',
        "download": "# 单独打开时（Colab、Kaggle）：先下载一次项目",
        "partial": "# 每次都下载到一个新文件夹，下载完整后才改名",
        "finally": "# 无论完成、超时还是被手动停止：结束git及其辅助进程，只留下完整的克隆",
        "language": "# 辅助函数用这个版本的语言输出提示",
        "runtime": "# 在没有GPU的Colab或Kaggle上：说明怎样打开GPU，然后继续在CPU上运行",
    },
}
"""The words of each edition's setup cell: its comments, and the string literals of its messages (the only code
that differs between the editions' setup cells; tests/test_translate.py checks that)."""


def setup_cell(lang: str = "en") -> str:
    """Return the setup cell of edition ``lang``: the same code in both, but for its comments and its messages."""
    text = _SETUP_CELL
    values = {
        **SETUP_WORDS[lang],
        "repo": REPO,
        "folder": FOLDERS[0],
        "zip": FOLDERS[1],
        "timeout env": CLONE_TIMEOUT_ENV,
        "lang": lang,
    }
    for key, value in values.items():
        text = text.replace(f"<<{key}>>", value)
    return text


SETUP_CELL = setup_cell("en")
"""The first code cell of every English notebook, character for character."""
SETUP_CELL_ZH = setup_cell("zh")
"""The Chinese notebooks' first code cell: ``SETUP_CELL`` with Chinese comments and messages."""


@dataclass(frozen=True)
class Labels:
    """The fixed words of one language edition, which the tools and the hygiene checks look for."""

    folder: Path
    setup_cell: str
    learn: str
    summary: str
    exercises: str
    going_deeper: str
    exercise: re.Pattern[str]  # an exercise cell starts with this; group 1 is its number
    solution: str  # a solution cell's first line starts with this
    placeholder: str  # old structure: the empty cell that replaces solution {number} in the student edition
    solutions: str  # the heading of the last section, which holds every solution (after all the exercises)
    answer: str  # the first line of exercise {number}'s answer cell, which holds a stub the student replaces
    solution_of: str  # the first line of the solution of exercise {number}, under the solutions heading
    unanswered: str  # what the check of an exercise prints for the stub ...
    correct: str  # ... and a solution's own check, strict, for the reference solution (lessons/exercises.py)


LANGUAGES = {
    "en": Labels(
        NOTEBOOKS,
        SETUP_CELL,
        "You will learn",
        "## Summary",
        "## Exercises",
        "## Going deeper",
        re.compile(r"\*\*Exercise (\d+)\.\*\*"),
        "# Solution",
        "# Exercise {number} — your solution",
        "## Solutions",
        "# Exercise {number}: your answer",
        "# Solution: exercise {number}",
        "not answered yet",
        ": the reference solution passes the check.",
    ),
    "zh": Labels(
        ZH_NOTEBOOKS,
        SETUP_CELL_ZH,
        "你将学到",
        "## 小结",
        "## 练习",
        "## 进阶",
        re.compile(r"\*\*练习(\d+)\*\*"),
        "# 参考答案",
        "# 练习{number}：在这里写你的答案",
        "## 参考答案",
        "# 练习{number}：你的答案",
        "# 参考答案：练习{number}",
        "尚未作答",
        "：参考答案通过了检查。",
    ),
}
"""English (``notebooks/``) and Chinese (``notebooks/zh/``)."""


def language_of(path: Path) -> str:
    """Return ``"zh"`` for a notebook in ``notebooks/zh/``, else ``"en"``."""
    return "zh" if path.resolve().parent.name == "zh" else "en"


COLAB_METADATA: dict[str, Any] = {
    "accelerator": "GPU",
    "colab": {"provenance": [], "gpuType": "T4", "toc_visible": True},
}
"""Notebook metadata that makes the Colab badge open a GPU runtime (a T4, the free tier's GPU)."""

KERNELSPEC: dict[str, str] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
"""The kernel every notebook names. ``tools/setup.sh`` registers exactly this one: JupyterLab marks a notebook
modified as soon as it opens when the stored display name differs from the registered kernel's."""

TIME_LINE = re.compile(r"^\*\*(Time:|用时：?)\*\*.*$", re.M)
TEACHING = ROOT / "docs" / "TEACHING.md"
TEACHING_PAGES = {"en": TEACHING, "zh": ROOT / "docs" / "TEACHING.zh.md"}
"""The teacher's page; its table of measured times sits between these two markers and is generated."""
TABLE_START = "<!-- timings table: generated by tools/notebook_template.py -->"
TABLE_END = "<!-- end of timings table -->"


def colab_url(name: str, lang: str = "en") -> str:
    """Return the address that opens notebook ``name`` of edition ``lang`` in Colab, from GitHub."""
    folder = "notebooks/zh" if lang == "zh" else "notebooks"
    return f"https://colab.research.google.com/github/{REPO}/blob/main/{folder}/{name}"


def badge(name: str, lang: str = "en") -> str:
    """Return the Open-in-Colab badge (markdown, Colab's own image) for notebook ``name`` of edition ``lang``: the
    READMEs' tables, which are read on GitHub, online."""
    return f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab_url(name, lang)})"


COLAB_LINK_WORDS = {"en": "Open in Colab", "zh": "在Colab中打开"}


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


TIME_WORDS = {
    "en": {
        "quick": "quick mode",
        "full": "full mode",
        "run": "{mode} {duration} on {machine}",
        "not measured": "{mode} on a CPU not measured yet",
        "no gpu": "no GPU run recorded yet",
        "line": "**Time:** {parts} (measured by `tools/run_notebooks.py`, see `notebooks/timings.json`).",
        "separator": "; ",
    },
    "zh": {
        "quick": "快速模式",
        "full": "完整模式",
        "run": "{mode}在{machine}上{duration}",
        "not measured": "{mode}在CPU上尚未测量",
        "no gpu": "尚无GPU上的记录",
        "line": "**用时**：{parts}（由`tools/run_notebooks.py`测量，见`notebooks/timings.json`）。",
        "separator": "；",
    },
}
"""The words of the header's time line in each language (see ``time_line``)."""


def time_line(times: dict[str, Any], lang: str = "en") -> str:
    """Return the header line for one notebook's entry of ``timings.json`` (what was measured, where) in ``lang``."""
    words = TIME_WORDS[lang]
    duration, machine = (_duration_zh, _machine_zh) if lang == "zh" else (_duration, str)
    parts = []
    for mode in ("quick", "full"):
        for kind in ("cpu", "gpu"):
            run = times.get(f"{mode}/{kind}")
            if run:
                parts.append(
                    words["run"].format(
                        mode=words[mode], duration=duration(run["seconds"]), machine=machine(run["machine"])
                    )
                )
            elif kind == "cpu":
                parts.append(words["not measured"].format(mode=words[mode]))
    if not any(key.endswith("/gpu") for key in times):
        parts.append(words["no gpu"])
    return words["line"].format(parts=words["separator"].join(parts))


def timings_table(timings: dict[str, dict[str, Any]], names: list[str], lang: str = "en") -> str:
    """Return a markdown table of every notebook's measured times (``-`` where nothing was measured)."""
    zh = lang == "zh"
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
    return "\n".join(rows) + f"\n\n{where}"


def read_timings() -> dict[str, dict[str, Any]]:
    """Return the contents of ``timings.json`` (an empty dict if there is none yet)."""
    return json.loads(TIMINGS.read_text(encoding="utf-8")) if TIMINGS.is_file() else {}


def apply(nb: Any, name: str, timings: dict[str, dict[str, Any]], lang: str = "en") -> None:
    """Write the shared setup cell, Colab metadata, Colab link and time line into notebook ``nb`` (an nbformat
    node)."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    code[0].source = LANGUAGES[lang].setup_cell
    nb.metadata.update(json.loads(json.dumps(COLAB_METADATA)))
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    title = nb.cells[0]
    title.source = title.source.replace(badge(name, lang), colab_link(name, lang))  # the image badge of old
    line = time_line(timings.get(name.removesuffix(".ipynb"), {}), lang)
    if TIME_LINE.search(title.source):
        title.source = TIME_LINE.sub(lambda _: line, title.source)
    else:
        title.source = title.source.rstrip() + "\n\n" + line


GOING_DEEPER = LANGUAGES["en"].going_deeper
CORE_START = "<!-- core path table: generated by tools/notebook_template.py -->"
CORE_END = "<!-- end of core path table -->"
WORDS_PER_MINUTE = 100
"""Class time estimate: prose read at this pace, ..."""
LINES_PER_MINUTE = 10
"""... code read at this pace (non-blank lines; the setup cell's are run, not read, and do not count), plus one
minute per code cell to run it and look at its output."""
CORE_MAX_MINUTES = 45
"""A core path fits one class period: at most this many minutes by ``core_minutes``."""


def heading_index(nb: Any, heading: str) -> int | None:
    """Return the index of the first markdown cell with a line that is exactly ``heading``, or None."""
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and heading in (line.strip() for line in cell.source.splitlines()):
            return index
    return None


def core_size(nb: Any, lang: str = "en") -> tuple[int, int]:
    """Return ``(words of prose, code cells)`` before ``## Going deeper`` (the title cell's words not counted)."""
    end = heading_index(nb, LANGUAGES[lang].going_deeper)
    core = nb.cells[: len(nb.cells) if end is None else end]
    words = sum(len(c.source.split()) for c in core[1:] if c.cell_type == "markdown")
    return words, sum(1 for c in core if c.cell_type == "code" and c.source.strip())


def core_lines(nb: Any, lang: str = "en") -> int:
    """Return the non-blank lines of code before ``## Going deeper`` that a class reads.

    The setup cell (the first code cell, generated by this tool) is run, not read: it counts as a code cell in
    ``core_size`` (a minute to run it), but its lines do not count here.
    """
    end = heading_index(nb, LANGUAGES[lang].going_deeper)
    core = nb.cells[: len(nb.cells) if end is None else end]
    code = [c for c in core if c.cell_type == "code"][1:]  # the setup cell is the first
    return sum(1 for c in code for line in c.source.splitlines() if line.strip())


def core_minutes(nb: Any, lang: str = "en") -> float:
    """Return the class minutes the core path takes: its prose at ``WORDS_PER_MINUTE``, its code at
    ``LINES_PER_MINUTE`` and one minute per code cell."""
    words, cells = core_size(nb, lang)
    return words / WORDS_PER_MINUTE + core_lines(nb, lang) / LINES_PER_MINUTE + cells


def going_deeper_topics(nb: Any, lang: str = "en") -> list[str]:
    """Return the ``###`` headings between ``## Going deeper`` (or ``## 进阶``) and the next ``##`` heading."""
    start = heading_index(nb, LANGUAGES[lang].going_deeper)
    topics: list[str] = []
    for cell in nb.cells[start + 1 :] if start is not None else []:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            if line.startswith("## "):
                return topics
            if line.startswith("### "):
                topics.append(line[4:].strip())
    return topics


def core_table(paths: list[Path], lang: str = "en") -> str:
    """Return a markdown table of every notebook's core path: words, code cells, class minutes, Going deeper.
    The Chinese table gives the English twin's counts (the same cells) and its own Going deeper headings."""
    import nbformat

    if lang == "zh":
        rows = [
            "| 笔记本 | 核心部分：英文字数 | 核心部分：代码单元格 | 核心部分：代码行数 | 核心部分：课堂时间 "
            "| 进阶部分包括 |",
            "|---|---|---|---|---|---|",
        ]
    else:
        rows = [
            "| notebook | core: words | core: code cells | core: lines of code | core: minutes in class "
            "| Going deeper holds |",
            "|---|---|---|---|---|---|",
        ]
    for path in paths:
        english = nbformat.read(NOTEBOOKS / path.name, as_version=4)
        (words, code), lines = core_size(english), core_lines(english)
        minutes = 5 * round(core_minutes(english) / 5)
        topics = ("；" if lang == "zh" else "; ").join(going_deeper_topics(nbformat.read(path, as_version=4), lang))
        about = f"约{minutes}分钟" if lang == "zh" else f"about {minutes}"
        rows.append(f"| {path.stem} | {words:,} | {code} | {lines} | {about} | {topics or '-'} |")
    return "\n".join(rows)


def teaching_page_with_table(text: str, lang: str = "en") -> str:
    """Return the teacher's page ``text`` (of edition ``lang``) with its generated tables (core paths, measured
    times) rewritten."""
    paths = sorted(LANGUAGES[lang].folder.glob("[0-9][0-9]_*.ipynb"))
    start, end = text.index(TABLE_START) + len(TABLE_START), text.index(TABLE_END)
    text = text[:start] + "\n" + timings_table(read_timings(), [p.stem for p in paths], lang) + "\n" + text[end:]
    if CORE_START in text:
        start, end = text.index(CORE_START) + len(CORE_START), text.index(CORE_END)
        text = text[:start] + "\n" + core_table(paths, lang) + "\n" + text[end:]
    return text


def write_table() -> None:
    """Regenerate the generated tables of the teacher's pages (docs/TEACHING.md, docs/TEACHING.zh.md)."""
    for lang, page in TEACHING_PAGES.items():
        if page.is_file():
            page.write_text(teaching_page_with_table(page.read_text(encoding="utf-8"), lang), encoding="utf-8")


def update_header(path: Path) -> None:
    """Rewrite only the time line of the notebook at ``path`` (either edition) from ``timings.json``."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    line = time_line(read_timings().get(path.stem, {}), language_of(path))
    if TIME_LINE.sub(lambda _: line, nb.cells[0].source) != nb.cells[0].source:
        nb.cells[0].source = TIME_LINE.sub(lambda _: line, nb.cells[0].source)
        nbformat.write(nb, path)


def main() -> None:
    """Apply the template to every notebook in ``notebooks/``."""
    import nbformat

    timings = read_timings()
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) + sorted(ZH_NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    write_table()
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        before = nbformat.writes(nb)
        apply(nb, path.name, timings, language_of(path))
        if nbformat.writes(nb) != before:
            nbformat.write(nb, path)
            print(f"updated {path.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
