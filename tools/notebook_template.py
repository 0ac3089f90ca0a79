"""What every notebook shares, kept in one place: the repository address, the setup cell, the Colab metadata, the
header's Colab link and its line with measured run times, the fixed words of each language edition (English in
``notebooks/``, its Chinese twin in ``notebooks/zh/``), and what a student sees of the cells: the setup cell and
every solution collapsed to a ``# @title`` line in Colab and JupyterLab, no stored output under a solution, nbval's
markers as cell tags rather than comments in the code (``present``).

``python tools/notebook_template.py`` writes these into every notebook of both editions (after editing this file,
after ``tools/run_notebooks.py`` recorded new times, or after anyone wrote or merged notebook cells: it is
idempotent); ``tests/test_hygiene.py`` fails when a notebook differs from them.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
import tokenize
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
REPO_URL_ENV = "NB_REPO_URL"
"""Where the setup cell clones the project from when set (a mirror: a copy on Gitee, a school's git server), instead
of GitHub; its failure message names it (in English where the advice is for JupyterLab: on Colab and Kaggle GitHub
can be reached)."""

_SETUP_CELL = """# @title <<setup>>
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

<<mirror>>
REPO_URL = os.environ.get("<<repo env>>") or "https://github.com/<<repo>>"
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
        "setup": "Setup: make the project's code importable in JupyterLab, under the tests, and on Colab or Kaggle.",
        "folders": "# a clone, or GitHub's zip unpacked",
        "say": "# what this cell says when it can neither find nor download the project",
        "mirror": "# the project's address: GitHub, or a mirror's where NB_REPO_URL is set (Gitee, a school's server)",
        "taken": '"{} is there but holds no utils.py: delete or rename it, then run this cell again."',
        "failed": '"Could not download {} ({}). "\n    "Fix: {}; then run this cell again."',
        "late": '"no answer within {:g} s"',
        "Colab": '"check the network, or upload the project\'s zip from GitHub with the Files pane and '
        '!unzip -q {1}.zip"',
        "Kaggle": '"switch on Settings -> Internet for this notebook"',
        "here": '"put the project\'s folder, {0} (a clone) or {1} "\n    "(GitHub\'s zip, unpacked), '
        'beside this notebook: {2}; or clone a mirror of it: %env NB_REPO_URL=<its address>"',
        "download": "# opened on its own (Colab, Kaggle): download the project once",
        "partial": "# a new folder every try, renamed when complete",
        "finally": "# done, too late, or stopped by hand: end git and its helpers; keep only a whole clone",
        "language": "# helpers print their messages in this edition's language",
        "runtime": "# on Colab or Kaggle without a GPU: says how to switch one on, then goes on on the CPU",
    },
    "zh": {
        "setup": "准备工作：让项目的代码在JupyterLab、测试和Colab/Kaggle中都能导入。",
        "folders": "# git clone得到的，或GitHub的zip压缩包解压后的",
        "say": "# 既找不到也下载不了项目时，这个单元格给出的提示",
        "mirror": "# 项目的地址：GitHub；设置了NB_REPO_URL时是镜像的地址（Gitee上的副本、学校的服务器）",
        "taken": '"{}已经存在，但里面没有utils.py：删除它或给它改名，然后重新运行这个单元格。"',
        "failed": '"无法下载{}（{}）。可以改从镜像（Gitee上的副本、学校的服务器）下载："\n'
        '    "%env NB_REPO_URL=镜像的地址。其他解决办法：{}；然后重新运行这个单元格。"',
        "late": '"{:g}秒内没有应答"',
        "Colab": '"检查网络；或者用“文件”面板上传项目在GitHub上的zip压缩包，再运行!unzip -q {1}.zip"',
        "Kaggle": '"在这个笔记本的Settings -> Internet中打开网络"',
        "here": '"把项目的文件夹{0}（git clone得到的）或{1}"\n'
        '    "（GitHub的zip压缩包解压后的）放到这个笔记本旁边：{2}"',
        "download": "# 单独打开时（Colab、Kaggle）：先下载一次项目",
        "partial": "# 每次都下载到一个新文件夹，下载完整后才改名",
        "finally": "# 无论完成、超时还是被手动停止：结束git及其辅助进程，只留下完整的克隆",
        "language": "# 辅助函数用这个版本的语言输出提示",
        "runtime": "# 在没有GPU的Colab或Kaggle上：说明怎样打开GPU，然后继续在CPU上运行",
    },
}
"""The words of each edition's setup cell: its title (the first line, ``# @title ...``, which Colab shows in place of
the collapsed code), its comments, and the string literals of its messages (the only code
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
        "repo env": REPO_URL_ENV,
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
    solution: str  # a solution cell's first line starts with this (a Colab form title: ``FORM_TITLE``)
    placeholder: str  # old structure: the empty cell that replaces solution {number} in the student edition
    solutions: str  # the heading of the last section, which holds every solution (after all the exercises)
    answer: str  # the first line of exercise {number}'s answer cell, which holds a stub the student replaces
    solution_of: str  # the first line of the solution of exercise {number}, under the solutions heading
    unanswered: str  # what the check of an exercise prints for the stub ...
    correct: str  # ... and a solution's own check, strict, for the reference solution (lessons/exercises/)


LANGUAGES = {
    "en": Labels(
        NOTEBOOKS,
        SETUP_CELL,
        "You will learn",
        "## Summary",
        "## Exercises",
        "## Going deeper",
        re.compile(r"\*\*Exercise (\d+)\.\*\*"),
        "# @title Solution",
        "# Exercise {number} — your solution",
        "## Solutions",
        "# Exercise {number}: your answer",
        "# @title Solution: exercise {number}",
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
        "# @title 参考答案",
        "# 练习{number}：在这里写你的答案",
        "## 参考答案",
        "# 练习{number}：你的答案",
        "# @title 参考答案：练习{number}",
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

FORM_TITLE = "# @title "
"""The first line of a cell shown collapsed (the setup cell, every solution): Colab shows the rest of the line as the
title of a form cell (``cellView: "form"``) and hides the code until clicked; JupyterLab hides the code of a cell
whose ``jupyter.source_hidden`` is true (one click on the bar to the left shows it)."""
LEGACY_SOLUTION = {"en": "# Solution", "zh": "# 参考答案"}
"""How a solution's first line began before it was a form title: ``present`` turns it into ``FORM_TITLE`` + the rest."""
NBVAL_MARKERS = ("NBVAL_IGNORE_OUTPUT", "NBVAL_CHECK_OUTPUT", "NBVAL_RAISES_EXCEPTION", "NBVAL_SKIP",
                 "PYTEST_VALIDATE_IGNORE_OUTPUT")
"""nbval's comment markers (``nbval.plugin.comment_markers``; tests/test_hygiene.py checks the list). ``present``
moves each into the cell's tags, as its tag name (``marker_tag``): nbval reads both the same way, and a tag stays out
of the code a student reads (JupyterLab shows tags only in the cell's property inspector; Colab, VS Code and Kaggle
not at all)."""
IGNORE_OUTPUT_TAG = "nbval-ignore-output"
"""The tag that makes nbval run a cell without comparing its output: every solution has it, since no solution keeps
an output (the strict check under it is what the tests compare)."""


def source_hash(text: str) -> str:
    """Return a short, stable hash of a cell's source text (tools/translate.py records it per Chinese cell)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def marker_tag(marker: str) -> str:
    """Return the cell tag nbval reads as comment ``marker``: ``NBVAL_IGNORE_OUTPUT`` -> ``nbval-ignore-output``."""
    return marker.lower().replace("_", "-")


def _is_marker(line: str) -> bool:
    """True for a line that nbval reads as a marker: a comment whose whole text is one of ``NBVAL_MARKERS``."""
    return line.strip().startswith("#") and line.strip().lstrip("#").strip() in NBVAL_MARKERS


def presented_source(source: str, lang: str = "en") -> tuple[str, list[str]]:
    """Return ``source`` as a student reads it, and the tags it needs: nbval's markers removed (their tags returned
    instead) and a solution's first line of old (``# Solution: exercise 2``) made a form title
    (``# @title Solution: exercise 2``). Idempotent."""
    lines = source.split("\n")
    tags = [marker_tag(line.strip().lstrip("#").strip()) for line in lines if _is_marker(line)]
    lines = [line for line in lines if not _is_marker(line)]
    legacy = LEGACY_SOLUTION[lang]
    if lines and lines[0].startswith(legacy) and not lines[0].startswith(FORM_TITLE):
        lines[0] = FORM_TITLE + lines[0][len("# ") :]
    return "\n".join(lines), tags


def is_solution_cell(cell: Any, lang: str = "en") -> bool:
    """True for an exercise's solution: a code cell whose first line is the edition's solution title."""
    return cell.get("cell_type") == "code" and cell.source.lstrip().startswith(LANGUAGES[lang].solution)


def collapse(cell: Any) -> None:
    """Show ``cell`` collapsed to its first line, a ``FORM_TITLE``: a form in Colab, hidden code in JupyterLab."""
    cell.metadata["cellView"] = "form"
    jupyter = cell.metadata.setdefault("jupyter", {})
    jupyter["source_hidden"] = True
    jupyter.pop("outputs_hidden", None)  # JupyterLab's Run All uncovers it, and saving drops it (issue 27)


def _add_tags(cell: Any, tags: list[str]) -> None:
    existing = cell.metadata.get("tags", [])
    if missing := [tag for tag in tags if tag not in existing]:
        cell.metadata["tags"] = [*existing, *missing]


def present(cell: Any, lang: str = "en") -> None:
    """Make code ``cell`` of edition ``lang`` what a student should see (idempotent): no nbval marker in its code
    (``presented_source``: tags instead); a solution collapsed (``collapse``) with no stored output, which nbval
    then does not compare (``IGNORE_OUTPUT_TAG``; it still runs the cell, and the strict check under it is compared).
    A Chinese cell's translation record (tools/translate.py) gets the same change to the English source it records,
    so that a translation stays current."""
    if cell.get("cell_type") != "code":
        return
    cell.source, tags = presented_source(cell.source, lang)
    _add_tags(cell, tags)
    if is_solution_cell(cell, lang):
        collapse(cell)
        _add_tags(cell, [IGNORE_OUTPUT_TAG])
        cell.outputs = []
    record = cell.metadata.get("translation")
    if lang != "en" and record and "source" in record:
        english = presented_source(record["source"], "en")[0]
        if english != record["source"]:
            record["source"], record["hash"] = english, source_hash(english)


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
        "no gpu": "no GPU run recorded yet",
        "kind": {"cpu": "CPU", "gpu": "GPU"},
        "current": "this version of the notebook{modes} ({dates})",
        "older": "the notebook's code of {dates}{modes}",
        "in modes": " in {modes}",
        "dates": " and ",
        "provenance": "{kind} times are of {what}",
        "line": "**Time:** {modes}. {provenance}.",
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
        "no gpu": "尚无GPU上的记录",
        "kind": {"cpu": "CPU", "gpu": "GPU"},
        "current": "{modes}这一版笔记本（{dates}）",
        "older": "{modes}本笔记本{dates}时的代码",
        "in modes": "{modes}下",
        "dates": "和",
        "provenance": "{kind}用时测的是{what}",
        "line": "**用时**：{modes}。{provenance}。",
        "separator": "；",
    },
}
"""The words of the header's time line in each language (see ``time_line``)."""


def python_tokens(source: str) -> list[tuple[int, str, int]]:
    """Return ``source``'s tokens as ``(type, text, line)``, the same on every supported Python.

    IPython's ``!``/``%`` lines count as comments. Python 3.12 splits an f-string into FSTRING_START, its parts and
    FSTRING_END (PEP 701), where 3.11 gives one STRING token: here an f-string is always one STRING token with its
    whole text, as on 3.11, so that the names inside it never count (tests/test_cuda_inventory.py) and a digest of
    code is the same everywhere (``code_digest``; tests/test_cuda_inventory.py's digests).
    """
    code = "\n".join("#" + line if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))
    lines = code.splitlines(keepends=True)
    fstring_start = getattr(tokenize, "FSTRING_START", None)  # Python 3.12 and later
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    found: list[tuple[int, str, int]] = []
    depth, start = 0, (0, 0)
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if fstring_start is not None and token.type == fstring_start:
            if depth == 0:
                start = token.start
            depth += 1
        elif depth and token.type == fstring_end:
            depth -= 1
            if depth == 0:
                (row, col), (end_row, end_col) = start, token.end
                text = "".join(lines[row - 1 : end_row])
                text = text[col : len(text) - len(lines[end_row - 1]) + end_col]
                found.append((tokenize.STRING, text, row))
        elif depth == 0:
            found.append((token.type, token.string, token.start[0]))
    return found


def code_digest(nb: Any) -> str:
    """Return a short digest of the code a notebook runs: every code cell but the shared setup cell, without comments,
    IPython's ``!``/``%`` lines and blank lines (a comment or its translation changes no time; the Chinese twin has
    the same digest), the same on every supported Python (``python_tokens``). A time in
    ``timings.json`` records the digest of the code it measured, so that the header can say whether it is this code's.
    The lesson modules the code imports are not in it."""
    skipped = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    parts = []
    for cell in [c for c in nb.cells if c.cell_type == "code"][1:]:
        try:  # the same tokens on every Python (an f-string is one token), so the same digest on 3.11 and 3.13
            parts.append(" ".join(text for kind, text, _ in python_tokens(cell.source) if kind not in skipped))
        except (tokenize.TokenError, SyntaxError):
            parts.append(cell.source)
    return hashlib.sha256("\n\0".join(parts).encode("utf-8")).hexdigest()[:12]


def edition_code_digest(nb: Any, name: str, lang: str = "en") -> str:
    """Return the ``code_digest`` of notebook ``name``: ``nb``'s own in English, the English twin's for a Chinese one
    (the same code, but for the words of a few messages)."""
    english = NOTEBOOKS / name
    if lang != "en" and english.is_file():
        import nbformat

        return code_digest(nbformat.read(english, as_version=4))
    return code_digest(nb)


def time_line(times: dict[str, Any], lang: str = "en", code: str | None = None) -> str:
    """Return the header line for one notebook's entry of ``timings.json`` in ``lang``: quick mode first (linked to
    what it is), then full mode, each on the CPU and the GPU; "CUDA's start-up included" where the GPU took longer
    than the CPU; then which code each kind of time measured: this version (a record whose code digest is ``code``,
    the notebook's ``code_digest``) or the notebook's code of the dates measured."""
    words = TIME_WORDS[lang]
    duration, machine = (_duration_zh, _machine_zh) if lang == "zh" else (_duration, str)
    modes, named, startup_said = [], set(), False
    for mode in ("quick", "full"):
        runs = []
        for kind in ("cpu", "gpu"):
            run = times.get(f"{mode}/{kind}")
            if not run:
                if kind == "cpu":
                    runs.append(words["not measured"])
                continue
            where = words["again"][kind] if (kind, run["machine"]) in named else machine(run["machine"])
            named.add((kind, run["machine"]))
            runs.append(words["run"].format(duration=duration(run["seconds"]), machine=where))
            cpu = times.get(f"{mode}/cpu")
            if kind == "gpu" and cpu and run["seconds"] > cpu["seconds"] and not startup_said:
                runs[-1] += words["startup"]
                startup_said = True
        name = words[mode].format(link=QUICK_MODE_LINK[lang])
        modes.append(words["mode"].format(mode=name, runs=words["and"].join(runs)))
    if not any(key.endswith("/gpu") for key in times):
        modes.append(words["no gpu"])
    provenance = []
    plain = {"quick": words["quick"].split("]")[0].lstrip("["), "full": words["full"]}  # the mode, without its link
    for kind in ("cpu", "gpu"):
        runs = {mode: times[f"{mode}/{kind}"] for mode in ("quick", "full")
                if times.get(f"{mode}/{kind}", {}).get("date")}
        states = {mode: "current" if code and run.get("code") == code else "older" for mode, run in runs.items()}
        what = []
        for state in ("current", "older"):
            modes_in = [mode for mode in runs if states[mode] == state]
            if not modes_in:
                continue
            named_modes = ""
            if len(set(states.values())) > 1:  # some of this code, some older: say which mode is which
                named_modes = words["in modes"].format(modes=words["dates"].join(plain[mode] for mode in modes_in))
            dates = words["dates"].join(sorted({runs[mode]["date"] for mode in modes_in}))
            what.append(words[state].format(dates=dates, modes=named_modes))
        if what:
            provenance.append(words["provenance"].format(kind=words["kind"][kind], what=words["and"].join(what)))
    line = words["line"].format(modes=words["separator"].join(modes), provenance=words["separator"].join(provenance))
    return line.replace(". .", ".").replace("。。", "。")


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
    """Write the shared setup cell (collapsed), Colab metadata, Colab link, the line for readers without Colab
    (Chinese) and time line into notebook ``nb`` (an nbformat node), and show every other code cell as a student
    should see it (``present``)."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    code[0].source = LANGUAGES[lang].setup_cell
    collapse(code[0])  # run, not read: its title only (issue 38)
    for cell in code[1:]:
        present(cell, lang)
    nb.metadata.update(json.loads(json.dumps(COLAB_METADATA)))
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    title = nb.cells[0]
    title.source = title.source.replace(badge(name, lang), colab_link(name, lang))  # the image badge of old
    if lang in WITHOUT_COLAB:  # its own line, under the Colab link
        if WITHOUT_COLAB_LINE.search(title.source):
            title.source = WITHOUT_COLAB_LINE.sub(lambda _: WITHOUT_COLAB[lang], title.source)
        else:
            link = colab_link(name, lang)
            title.source = title.source.replace(link, f"{link}\n\n{WITHOUT_COLAB[lang]}", 1)
    line = time_line(timings.get(name.removesuffix(".ipynb"), {}), lang, edition_code_digest(nb, name, lang))
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
"""... code read at this pace (non-blank lines), plus one minute per code cell to run it and look at its output. The
setup cell (the first code cell) is run, not read, and shown collapsed: neither its lines nor its minute count."""
CORE_MAX_MINUTES = 35
"""A core path leaves ten minutes of a 45-minute class period for questions and the first exercise: at most this
many minutes by ``core_minutes``."""
CODE_CELL_MAX_LINES = 20
"""Every code cell but the setup cell has at most this many non-blank lines: a longer one needs a scroll bar."""


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
    ``LINES_PER_MINUTE`` and one minute per code cell, the setup cell not counted (``core_lines``)."""
    words, cells = core_size(nb, lang)
    return words / WORDS_PER_MINUTE + core_lines(nb, lang) / LINES_PER_MINUTE + max(cells - 1, 0)


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
    lang = language_of(path)
    line = time_line(read_timings().get(path.stem, {}), lang, edition_code_digest(nb, path.name, lang))
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
