"""The first code cell of every notebook: it finds the project (or downloads it once), makes ``utils`` importable
and sets the edition's language. The same code in both editions but for its comments and messages."""

from __future__ import annotations

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
REPO_URL = os.environ.get("<<repo env>>") or (
    "https://github.com/<<repo>>")
<<folders>>
FOLDERS = ("<<folder>>", "<<zip>>")
<<say>>
SAY = {
    "taken": <<taken>>,
    "failed": <<failed>>,
    "late": <<late>>,
    "Colab": <<Colab>>,
    "Kaggle": <<Kaggle>>,
    "here": <<here>>,
    "done": <<done>>,
}


<<is project>>
def is_project(folder):
    return ((folder / "utils.py").is_file()
            and (folder / "lessons" / "__init__.py").is_file())


here = Path.cwd()
places = (here, *here.parents, *(here / f for f in FOLDERS))
found = [p for p in places if is_project(p)]
ROOT = found[0] if found else here / FOLDERS[0]
if not found and ROOT.exists():
    raise RuntimeError(SAY["taken"].format(ROOT))
if not found:  <<download>>
    <<partial>>
    partial = tempfile.mkdtemp(prefix=f".{FOLDERS[0]}-", dir=here)
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "NO_COLOR": "1", "TERM": "dumb"}
    command = ["git", "clone", "-q", "--depth", "1", REPO_URL, partial]
    seconds = float(os.environ.get("<<timeout env>>", "30"))
    git = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env,
                           start_new_session=True)
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
        colab = "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ
        front = "Colab" if colab else "here"
        front = "Kaggle" if "KAGGLE_KERNEL_RUN_TYPE" in os.environ else front
        advice = SAY[front].format(*FOLDERS, here)
        raise RuntimeError(SAY["failed"].format(REPO_URL, why, advice))
    os.rename(partial, ROOT)
    print(SAY["done"].format(REPO_URL, ROOT))
sys.path.insert(0, str(ROOT))
import utils

utils.set_language("<<lang>>")  <<language>>
<<runtime>>
utils.check_runtime()"""

SETUP_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "setup": "Setup: make the lessons' code importable, here or on Colab and Kaggle.",
        "folders": "# a clone, or GitHub's zip unpacked",
        "say": "# what this cell says when it can neither find nor download the project",
        "mirror": "# GitHub, or a mirror where NB_REPO_URL is set (Gitee, a school's server)",
        "taken": '"{} is there but is not the project (no utils.py and lessons/): "\n'
        '    "delete or rename it, then run this cell again."',
        "done": '"Downloaded the project from {} into {}."',
        "is project": "# the project's own files, not any utils.py (a student may have one)",
        "failed": '"Could not download {} ({}). "\n    "Fix: {}; then run this cell again."',
        "late": '"no answer within {:g} s"',
        "Colab": '"check the network, or upload the project\'s zip from GitHub "\n'
        '    "with the Files pane and !unzip -q {1}.zip"',
        "Kaggle": '"switch on Settings -> Internet for this notebook"',
        "here": '"put the project\'s folder, {0} (a clone) or {1} "\n'
        '    "(GitHub\'s zip, unpacked), beside this notebook: "\n'
        '    "{2}; or clone a mirror of it: %env NB_REPO_URL=<its address>"',
        "download": "# opened on its own: download the project once",
        "partial": "# a new folder every try, renamed when complete",
        "finally": "# end git; keep only a whole clone",
        "language": "# the helpers' messages in this edition's language",
        "runtime": "# says what this machine cannot do, and how to fix it",
    },
    "zh": {
        "setup": "准备工作：让课程的代码可以导入，在本机、Colab和Kaggle上都行。",
        "folders": "# git clone得到的，或GitHub的zip压缩包解压后的",
        "say": "# 既找不到也下载不了项目时，这个单元格给出的提示",
        "mirror": "# GitHub；设置了NB_REPO_URL时用镜像（Gitee上的副本、学校的服务器）",
        "taken": '"{}已经存在，但它不是本项目（没有utils.py和lessons/）："\n'
        '    "删除它或给它改名，然后重新运行这个单元格。"',
        "done": '"已从{}下载项目，放在{}。"',
        "is project": "# 认准项目自己的文件，而不是随便哪个utils.py（学生可能也有一个）",
        "failed": '"无法下载{}（{}）。可以改从镜像（Gitee上的副本、学校的服务器）下载："\n'
        '    "%env NB_REPO_URL=镜像的地址。其他解决办法：{}；然后重新运行这个单元格。"',
        "late": '"{:g}秒内没有应答"',
        "Colab": '"检查网络；或者用“文件”面板上传项目在GitHub上的zip压缩包，"\n'
        '    "再运行!unzip -q {1}.zip"',
        "Kaggle": '"在这个笔记本的Settings -> Internet中打开网络"',
        "here": '"把项目的文件夹{0}（git clone得到的）或{1}"\n'
        '    "（GitHub的zip压缩包解压后的）放到这个笔记本所在的文件夹，"\n'
        '    "即{2}"',
        "download": "# 单独打开时：先下载一次项目",
        "partial": "# 每次都下载到一个新文件夹，下载完整后才改名",
        "finally": "# 结束git，只留下完整的克隆",
        "language": "# 辅助函数用这个版本的语言输出提示",
        "runtime": "# 说明这台机器做不到什么，以及怎样解决",
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
