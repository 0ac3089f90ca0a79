"""Open lessons in JupyterLab as a student does, in a real browser (Debian's Chromium, driven by Playwright), and
check what the student sees.

    bash tools/ci/check_lab.sh                     # installs what is missing (as check_site.sh does), then this
    .venv-docs/bin/python tools/ci/check_lab.py    # with .venv (tools/setup.sh) and .venv-docs (Playwright) in place

One JupyterLab server, started from ``.venv`` as the README's open command starts it (its settings overrides, its
kernel; only a port, a token and empty user folders are given, and quick mode, so that lesson 06 trains on its
generated sample), serves copies of ``LESSONS`` in a temporary folder, beside a copy of the project (the setup cell's
"a clone beside this notebook"), so that nothing in the checkout changes and no lesson writes into its ``data/``;
the browser may reach that server only. In each lesson, on opening: no pop-up about Jupyter news (tools/setup.sh
switches it off), the lesson not marked modified, the setup cell and every solution collapsed to their ``# @title``
line, no output under a solution; then "Run All Cells" from the Run menu; when the kernel is done: every code cell
ran, no error output and nothing on stderr anywhere, no error text in any output (TensorBoard's "ERROR: Could not
find" is display data, not stderr), no output under a solution (the solutions run too: a student sees that they
exist, not what they say), still no news pop-up.
Prints each lesson's seconds; exits 1 and lists every problem if any check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

if TYPE_CHECKING:  # Playwright is imported where a browser starts: the unit tests need none
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tools.author import editions, setup_cell  # noqa: E402
from tools.author.cells import FORM_TITLE, is_solution_cell  # noqa: E402
from tools.author.kernels import server_port  # noqa: E402
from tools.ci.check_site import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

LESSONS = ("notebooks/01_devices.ipynb", "notebooks/zh/02_placement_checks.ipynb",
           "notebooks/06_cifar10_training.ipynb")
"""The lessons opened: the first, a Chinese one, and the one that starts TensorBoard from the kernel."""
COPY_SKIPS = {".git", "data", "node_modules", "student", "nbgrader_course", "_site", "_build"}
"""Top-level folders of the checkout not copied beside the lessons (environments are skipped by their names)."""
ERROR_TEXT = re.compile(r"Traceback \(most recent call last\)|^ERROR:|Error displaying widget",
                        re.I | re.M)
"""Words of an error in any output a student sees: a traceback, a program's ERROR line, a widget not restored."""
NEWS = re.compile(r"Jupyter news|official Jupyter", re.I)
"""The words of JupyterLab's pop-up that asks whether to fetch news (apputils-extension:notification)."""
NEWS_SETTING = "@jupyterlab/apputils-extension:notification"
STDERR = "application/vnd.jupyter.stderr"
"""The MIME type JupyterLab gives an output of stderr and an error (traceback) alike."""
RUN_TIMEOUT_S = 900
"""Run All of one lesson, on a CPU that the test suite keeps busy beside this check."""


def start_lab(venv: Path, folder: Path, state: Path, runtime: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    """Start ``venv``'s JupyterLab serving ``folder``, its user state (config, settings, workspaces) in ``state``
    and its runtime files (its port, its kernels' connection files and sockets) in ``runtime``, a folder with a
    short path; return the process, the base URL and the token, once it answers.

    No port is chosen here: the server binds one the system picks (``port=0``) and writes it into ``runtime``. A
    port found free here and bound by the server seconds later, once it has started, could be taken in between
    by any process on the machine; the server's own pick and bind are a moment apart, in one process. Its kernels
    talk over Unix sockets in ``runtime`` (``transport=ipc``, as ``tools/author/kernels.py`` explains): jupyter_client's
    five TCP ports a kernel would have carry the same race."""
    token = secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "VIRTUAL_ENV"))}
    for name, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                      ("JUPYTERLAB_SETTINGS_DIR", "user-settings"), ("JUPYTERLAB_WORKSPACES_DIR", "workspaces")):
        env[name] = str(state / sub)
    env["JUPYTER_RUNTIME_DIR"] = str(runtime)
    env["NB_QUICK"] = "1"  # utils.QUICK_ENV: 06 trains on its generated sample (01 and 02 shrink nothing)
    command = [str(venv / "bin" / "python"), "-m", "jupyterlab", "--no-browser", "--ServerApp.port=0",
               "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}",
               "--KernelManager.transport=ipc", "--ServerApp.allow_root=True"]  # root: containers, CI
    log = (state / "lab.log").open("wb")
    lab = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True)
    deadline = time.monotonic() + 120
    while True:
        port = server_port(runtime)
        base = f"http://127.0.0.1:{port}"
        try:
            if port is None:
                raise ConnectionRefusedError("no port yet")
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as response:
                if response.status == 200:
                    return lab, base, token
        except OSError:
            if lab.poll() is not None or time.monotonic() > deadline:
                stop(lab)
                sys.exit(f"JupyterLab did not start:\n{(state / 'lab.log').read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)


def stop(lab: subprocess.Popen[bytes]) -> None:
    """Stop JupyterLab and its kernels (its process group)."""
    if lab.poll() is None:
        os.killpg(lab.pid, signal.SIGTERM)
        try:
            lab.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(lab.pid, signal.SIGKILL)
            lab.wait()


def news_switched_off(base: str, token: str) -> list[str]:
    """The news question is answered for this environment: the notification plugin's ``fetchNews`` defaults to
    "false" (tools/setup.sh's settings override), so JupyterLab never asks."""
    with urllib.request.urlopen(f"{base}/lab/api/settings/{NEWS_SETTING}?token={token}", timeout=10) as response:
        schema = json.load(response)["schema"]
    default = schema["properties"]["fetchNews"].get("default")
    return [] if default == "false" else [f"fetchNews defaults to {default!r}: JupyterLab asks about Jupyter news "
                                          "(run tools/setup.sh: it writes the settings override)"]


def collapsed_cells(lesson: Path, lang: str) -> tuple[list[int], list[int]]:
    """Return the indexes of the cells that must show collapsed (the setup cell, every solution), and of the code
    cells, in ``lesson``'s order (JupyterLab shows every cell, in this order)."""
    nb = nbformat.read(lesson, as_version=4)
    code = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    solutions = [i for i, cell in enumerate(nb.cells) if is_solution_cell(cell, lang)]
    return [code[0], *solutions], code


CELLS_JS = """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell')].map(cell => {
    const placeholder = cell.querySelector('.jp-InputPlaceholder'), input = cell.querySelector('.jp-InputArea');
    return {
        collapsed: !!placeholder && placeholder.checkVisibility() && !(input && input.checkVisibility()),
        title: placeholder ? placeholder.textContent.trim() : '',  // (innerText is empty off screen)
        prompt: cell.querySelector('.jp-InputArea-prompt')?.textContent ?? '',
        outputs: cell.querySelectorAll('.jp-OutputArea-output').length,
        stderr: [...cell.querySelectorAll('.jp-OutputArea-output[data-mime-type="<<stderr>>"]')].map(e => e.innerText),
        texts: [...cell.querySelectorAll('.jp-OutputArea-output')].map(e => e.textContent),
    };
})""".replace("<<stderr>>", STDERR)
"""What the student sees of each cell, in order: collapsed to its placeholder (the code hidden), the placeholder's
text, the prompt ([n]: of an open code cell), how many outputs, the text of each error or stderr output, and the
text of every output."""
INDICATOR = "document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator')?.dataset.status"


def check_lesson(page: Page, base: str, token: str, name: str, lesson: Path, lang: str) -> list[str]:
    """Open ``name`` (a path under the server's folder), check it as opened, run every cell, check it again."""
    problems: list[str] = []
    collapsed, code = collapsed_cells(lesson, lang)
    cell_count = len(nbformat.read(lesson, as_version=4).cells)
    page.goto(f"{base}/lab/tree/{name}?reset&token={token}")
    page.wait_for_function(f"() => document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell').length >= "
                           f"{cell_count}", timeout=120_000)
    cells = page.evaluate(CELLS_JS)
    if len(cells) != cell_count:
        problems.append(f"{name}: JupyterLab shows {len(cells)} cells, the file has {cell_count}")
    if page.locator(".lm-TabBar-tab.jp-mod-dirty").count():
        problems.append(f"{name}: marked modified as soon as it opens")
    for index in collapsed:
        if not cells[index]["collapsed"]:
            problems.append(f"{name}: cell {index} shows its code (it should show collapsed)")
        elif not cells[index]["title"].startswith(FORM_TITLE.strip()):
            problems.append(f"{name}: collapsed cell {index} shows {cells[index]['title'][:60]!r}, not its '# @title'")
        if index != code[0] and cells[index]["outputs"]:
            problems.append(f"{name}: the solution in cell {index} shows an output before it runs")
    problems += [f"{name}: {p}" for p in pop_ups(page)]

    # Run All Cells from the Run menu, as a student does (the kernel may still be starting: the cells wait for it).
    # Done = the notebook's execution indicator was busy, is idle again, and no cell waits ([*]).
    page.evaluate("() => { window.__sawBusy = false; window.__watch = setInterval(() => { if (<<status>> === 'busy') "
                  "window.__sawBusy = true; }, 5); }".replace("<<status>>", INDICATOR))
    start = time.monotonic()
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^(Run|运行)$")).click()
    page.locator('.lm-Menu-item[data-command="runmenu:run-all"]').click()  # Run All Cells
    done = ("() => window.__sawBusy && <<status>> === 'idle' && ![...document.querySelectorAll("
            "'.jp-NotebookPanel .jp-InputArea-prompt')].some(e => e.textContent.includes('*'))")
    page.wait_for_function(done.replace("<<status>>", INDICATOR), timeout=RUN_TIMEOUT_S * 1000, polling=100)
    seconds = time.monotonic() - start
    cells = page.evaluate(CELLS_JS)
    open_code = [i for i in code if i not in collapsed]  # a collapsed cell shows no prompt
    counts = [int(m.group(1)) if (m := re.search(r"\[(\d+)\]", cells[i]["prompt"])) else None for i in open_code]
    if counts != [code.index(i) + 1 for i in open_code]:
        problems.append(f"{name}: the code cells did not all run, in order, in a fresh kernel: prompts {counts}")
    for index, cell in enumerate(cells):
        problems += [f"{name}: cell {index}: an error or stderr output: {text[:200]!r}" for text in cell["stderr"]]
        problems += [f"{name}: cell {index}: error text in an output: {text[:200]!r}" for text in cell["texts"]
                     if ERROR_TEXT.search(text) and text not in cell["stderr"]]
    shown = sum(cells[i]["outputs"] for i in collapsed[1:])
    for index in collapsed[1:]:  # Run All runs the solutions too: they show that they ran, not the answer
        if cells[index]["outputs"]:
            problems.append(f"{name}: after Run All, the solution in cell {index} shows {cells[index]['outputs']} "
                            "output(s): a solution prints nothing, its check says that it passes")
    problems += [f"{name}: {p}" for p in pop_ups(page)]
    print(f"{name}: ran {len(code)} code cells in {seconds:.1f} s; after the run, the {len(collapsed) - 1} "
          f"solutions show {shown} outputs", flush=True)
    return problems


def pop_ups(page: Page) -> list[str]:
    """JupyterLab's notifications on screen that ask about Jupyter news."""
    toasts = page.locator(".Toastify__toast")
    return [f"a pop-up over the lesson: {text[:100]!r}" for text in (t.inner_text() for t in toasts.all())
            if NEWS.search(text)]


def copy_project(target: Path) -> None:
    """Copy the checkout to ``target`` as a student's clone would hold it: no git folder, no environment, no build
    output and an empty ``data/`` (a lesson run here writes its data and checkpoints into the copy)."""
    def skipped(folder: str, names: list[str]) -> set[str]:
        top = Path(folder).resolve() == ROOT
        return {n for n in names if n in {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".ruff_cache"}
                or top and (n in COPY_SKIPS or n.startswith(".venv"))}

    shutil.copytree(ROOT, target, ignore=skipped, symlinks=True)
    (target / "data").mkdir()


def main(argv: list[str] | None = None) -> int:
    """Check ``LESSONS`` in JupyterLab (see the module docstring); return 1 if anything is wrong."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv", help="the environment whose JupyterLab runs")
    parser.add_argument("lessons", nargs="*", type=Path, help=f"notebooks to open instead of {', '.join(LESSONS)} "
                        "(a Chinese one in a folder named zh)")
    args = parser.parse_args(argv)
    lessons = [ROOT / lesson for lesson in LESSONS] if not args.lessons else [p.resolve() for p in args.lessons]
    problems: list[str] = []
    state = Path(tempfile.mkdtemp(prefix="check-lab-"))
    # a Unix socket's path must fit in about 100 bytes: runtime/kernel-<36-character id>-ipc-5, so a short folder
    runtime = Path(tempfile.mkdtemp(prefix="lab-", dir="/tmp" if os.path.isdir("/tmp") else None))
    try:
        folder = state / "lessons"
        names = []
        for lesson in lessons:
            relative = Path(lesson.parent.name, lesson.name) if lesson.parent.name == "zh" else Path(lesson.name)
            target = folder / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / lesson, target)
            beside = target.parent / setup_cell.FOLDERS[0]  # the project, beside the lesson: the setup cell finds it
            if not beside.exists():
                copy_project(beside)
            names.append(relative.as_posix())
        start = time.monotonic()
        lab, base, token = start_lab(args.venv, folder, state, runtime)
        print(f"JupyterLab answered after {time.monotonic() - start:.1f} s", flush=True)
        try:
            problems += news_switched_off(base, token)
            from playwright.sync_api import sync_playwright

            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
                              else route.abort())
                page = context.new_page()
                for lesson, name in zip(lessons, names, strict=True):
                    problems += check_lesson(page, base, token, name, lesson, editions.language_of(lesson))
                browser.close()
        finally:
            stop(lab)
    finally:
        shutil.rmtree(state, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    print(f"JupyterLab check: {len(lessons)} lessons, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
