"""The student edition: a self-contained handout, no solution leaks, its text fits a handout, and it sets itself up.

Why executing the lessons once is enough: ``hygiene.check_exercises`` (run on every notebook by test_hygiene.py)
proves that every solution comes after every other code cell and that no other cell reads a name only a solution
defines (with a ``## Solutions`` section: that it is the last section and holds only solutions and their checks),
and the first test below proves that the student notebooks keep every other code cell exactly. So a student
notebook runs exactly the cells strict nbval runs, in the same order, less the solutions (plus empty cells, in the
old structure). What that cannot prove is that the handout works on its own: the last test unzips it into an empty
folder, runs its README's command there (its own setup script builds a fresh ``.venv``, reusing the package cache;
then ``jupyter lab`` starts and serves the lessons), and runs every notebook's setup and import cells with the
handout's own kernel, where only the handout's ``utils.py`` and ``lessons/`` can be found.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

import utils
from tools.author import editions, header, kernels, template
from tools.teacher import student_edition

NOTEBOOKS = sorted((utils.ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
BOTH = [(lang, path) for lang, labels in editions.LANGUAGES.items() for path in sorted(labels.folder.glob("*.ipynb"))]
PUBLISHED = re.escape(student_edition.PUBLISHED)
PUBLISHED_LINK = re.compile(r"\[(`[^`\n]+`)\]\(" + PUBLISHED + r"/(?:blob|tree)/main/[^)]+\)")
PUBLISHED_RELATIVE = re.compile(r"\[([^`\]\n][^\]\n]*)\]\(" + PUBLISHED + r"/(?:blob|tree)/main/([^)]+)\)")
NOT_SHIPPED = ["benchmarks/RESULTS.md", "tools/author/run_notebooks.py", "notebooks/timings.json"]


@pytest.fixture(scope="module")
def edition() -> Iterator[Path]:
    """The handout, written outside the project so that nothing of the project can be found from it."""
    parent = Path(tempfile.mkdtemp(prefix="student-test-"))
    student_edition.write_edition(parent / "student")
    yield parent / "student"
    shutil.rmtree(parent, ignore_errors=True)


def unlinked(markdown: str, folder: str = "notebooks") -> str:
    """Return handout markdown (of a notebook in the project's ``folder``) with each link to a published copy turned
    back into what it was: a code span, or a relative link from that folder."""
    up = "../" * len(Path(folder).parts)
    relinked = PUBLISHED_RELATIVE.sub(lambda m: f"[{m.group(1)}]({up}{m.group(2)})", markdown)
    return PUBLISHED_LINK.sub(r"\1", relinked)


def assert_kept(before: nbformat.NotebookNode, after: nbformat.NotebookNode) -> None:
    """A cell the handout keeps: code and stored outputs unchanged; prose unchanged but for links to published
    copies, for the paragraph under "Exercises" and the exercises' clauses about the solutions
    (test_sentences_about_solutions_are_rewritten)."""
    if before.cell_type == "code":
        assert after == before
    elif editions.LANGUAGES["en"].exercise.match(before.source):  # an exercise: its clauses about the solution go
        assert unlinked(after.source) == student_edition.handout_exercise_text(before.source)
    elif editions.LANGUAGES["en"].exercises not in before.source.splitlines():
        assert unlinked(after.source) == before.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_no_solution_leaks_and_everything_else_is_kept(edition: Path, path: Path) -> None:
    full = nbformat.read(path, as_version=4)
    student = nbformat.read(edition / "notebooks" / path.name, as_version=4)
    heading = student_edition.core.heading_index(full, student_edition.editions.LANGUAGES["en"].solutions)
    if heading is not None:  # the exercises' structure: the Solutions section, the last, is left out
        solutions = [cell for cell in full.cells[heading:] if cell.cell_type == "code"]
        rest = nbformat.writes(nbformat.v4.new_notebook(cells=full.cells[:heading]))
        unique = {line.strip() for c in solutions for line in c.source.splitlines()[1:] if line.strip() not in rest}
        assert [c for c in solutions if student_edition.is_solution(c)] and unique, "no solutions of their own"
        text = nbformat.writes(student)
        for line in unique:
            assert line not in text, f"solution line leaks: {line!r}"
        assert len(student.cells) == heading
        for before, after in zip(full.cells[1:heading], student.cells[1:], strict=True):
            assert_kept(before, after)  # answer cells, checks and outputs unchanged; prose but for links
        assert "colab.research.google.com/github" not in student.cells[0].source
        return
    assert len(student.cells) == len(full.cells)
    solutions = [cell for cell in full.cells if student_edition.is_solution(cell)]
    assert solutions, "a notebook without exercise solutions"
    others = [c for c in full.cells if not student_edition.is_solution(c)]
    rest = nbformat.writes(nbformat.v4.new_notebook(cells=others))
    text = nbformat.writes(student)
    unique = {line.strip() for c in solutions for line in c.source.splitlines()[1:] if line.strip() not in rest}
    assert unique, "solutions with nothing of their own"
    for line in unique:  # a line found only in solutions is nowhere in the student edition
        assert line not in text, f"solution line leaks: {line!r}"
    number = 0
    for before, after in zip(full.cells, student.cells, strict=True):
        if student_edition.is_solution(before):
            number += 1  # hygiene.check_exercises: exercise N is the N-th, directly above its solution
            assert after.source == f"# Exercise {number} — your solution\n" and not after.outputs
        elif before is not full.cells[0]:
            assert_kept(before, after)
    assert "colab.research.google.com/github" not in student.cells[0].source


@pytest.mark.parametrize(("lang", "path"), BOTH, ids=[f"{lang}-{p.name}" for lang, p in BOTH])
def test_the_handout_text_fits_a_handout(edition: Path, lang: str, path: Path) -> None:
    """No word about solutions that are gone; every project file it names ships, or is linked where published."""
    folder = edition / editions.LANGUAGES[lang].folder.relative_to(utils.ROOT)
    student = nbformat.read(folder / path.name, as_version=4)
    prose = "\n".join(c.source for c in student.cells if c.cell_type == "markdown")
    assert not student_edition.ABOUT_SOLUTIONS[lang].search(prose), "mentions the solutions"
    assert not re.search(r"try it (yourself )?first|先自己试一试", prose, re.I), "try first, before what?"
    intro = next(c.source for c in student.cells if editions.LANGUAGES[lang].exercises in c.source.splitlines())
    assert student_edition.ANSWER_HERE[lang] in intro.lower()  # where to write the answer, instead
    spans = re.findall(r"(?<!\[)`((?:[^`\n]|\n(?!\n))+)`(?!\])", prose)  # code spans not linked (over a line break too)
    for span in [s for s in spans if "/" in s and "\n" not in s]:  # ... that may name a file
        relative = span.rstrip("/")
        assert relative not in student_edition.tracked() or (edition / relative).exists(), f"{span} does not ship"
    for name in NOT_SHIPPED:
        assert f"`{name}`" not in unlinked(prose) or f"[`{name}`]({student_edition.published(name)})" in prose
    for target in re.findall(r"(?<!!)\[[^\]\n]*\]\(([^)\s#]+)", prose):
        assert "://" in target or (folder / target).exists(), f"a link to {target}, which is not in the handout"


def test_the_handout_text_has_something_to_fix() -> None:
    """The rewriting above is needed: the project's notebooks point at collapsed solutions and at files that do
    not ship (if they stop doing so, the rewriting can go)."""
    texts = {lang: "" for lang in editions.LANGUAGES}
    for lang, path in BOTH:
        texts[lang] += "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
    assert all(student_edition.ABOUT_SOLUTIONS[lang].search(text) for lang, text in texts.items())
    named = [name for name in NOT_SHIPPED if f"`{name}`" in texts["en"] or f"(../{name})" in texts["en"]]
    assert named  # a code span or a relative link to a file the handout lacks (the headers no longer name tools)


def test_sentences_about_solutions_are_rewritten() -> None:
    rewrite = student_edition.handout_exercises_intro
    assert rewrite("## Exercises\n\nEach exercise has a solution cell below it, collapsed; try it yourself first.") == (
        "## Exercises\n\nWrite your answer in the cell below each exercise."
    )
    assert rewrite(
        "## Exercises\n\nEach exercise needs only the core sections (the last question of Exercise 2 builds on\n"
        "Going deeper); its solution is in the collapsed cell below it.\n\nA second paragraph."
    ) == (
        "## Exercises\n\nEach exercise needs only the core sections (the last question of Exercise 2 builds on Going "
        "deeper); write your answer in the cell below each exercise.\n\nA second paragraph."
    )
    assert rewrite(
        "## Exercises\n\nEach exercise needs only the core sections. Under each one, run the check below it. The\n"
        "solutions are in the last section, after all the exercises; try first."
    ) == (
        "## Exercises\n\nEach exercise needs only the core sections. Under each one, run the check below it. Write "
        "your answer in the cell below each exercise."
    )
    exercise = student_edition.handout_exercise_text
    assert exercise(
        "**Exercise 2.** Why?\n\nRun the check; `exercises.hint(\"02\", 2)` prints a hint. The *why* is not for the\n"
        "check: write it down for your teacher; the solution at the end of the notebook answers it."
    ) == (
        "**Exercise 2.** Why?\n\nRun the check; `exercises.hint(\"02\", 2)` prints a hint. The *why* is not for the "
        "check: write it down for your teacher."
    )
    zh = "**练习2**：为什么？\n\n运行检查；`exercises.hint(\"02\", 2)`会给出提示。可以写下来交给老师"
    assert exercise(zh + "；笔记本末尾的参考答案里有解答。", "zh") == zh + "。"
    assert rewrite("## 练习\n\n每道练习只需要核心部分的内容；参考答案在它下面折叠起来的单元格里。", "zh") == (
        "## 练习\n\n每道练习只需要核心部分的内容；在每道练习下面的单元格里写你的答案。"
    )


def test_a_file_that_does_not_ship_becomes_a_link_to_its_published_copy(tmp_path: Path) -> None:
    (tmp_path / "utils.py").write_text("")
    folder = utils.ROOT / "notebooks"
    link = student_edition.link_what_does_not_ship
    assert link("See `benchmarks/RESULTS.md` and `utils.py`.", folder, tmp_path) == (
        f"See [`benchmarks/RESULTS.md`]({student_edition.PUBLISHED}/blob/main/benchmarks/RESULTS.md) and `utils.py`."
    )
    assert link("[the teacher's page](../docs/TEACHING.md#x)", folder, tmp_path) == (
        f"[the teacher's page]({student_edition.PUBLISHED}/blob/main/docs/TEACHING.md)"
    )
    kept = "`data/runs/06_cifar10/` (made by the notebook), `torch/cuda/__init__.py`, ```\nbenchmarks/RESULTS.md\n```"
    assert link("(`python\nbenchmarks/x.py` runs it; `benchmarks/RESULTS.md`)", folder, tmp_path) == (
        f"(`python\nbenchmarks/x.py` runs it; [`benchmarks/RESULTS.md`]({student_edition.PUBLISHED}/blob/main/"
        "benchmarks/RESULTS.md))"
    )  # a code span over a line break is no file name, and the spans after it still pair up
    assert link(kept, folder, tmp_path) == kept  # not a published file of the project, or inside a code block


def test_handout_holds_what_the_lessons_need(edition: Path) -> None:
    for name in student_edition.HANDOUT + ["README.md", "notebooks/assets", "tools/installer.sh"]:
        assert (edition / name).exists(), name
    lessons = {p.relative_to(utils.ROOT / "lessons") for p in (utils.ROOT / "lessons").rglob("*.py")}
    assert {p.relative_to(edition / "lessons") for p in (edition / "lessons").rglob("*.py")} == lessons
    assert not (edition / "notebooks" / "timings.json").exists() and not (edition / "tests").exists()
    readme = (edition / "README.md").read_text(encoding="utf-8")
    assert "Python 3.11-3.13" in readme and "--allow-root" in readme and "solution" not in readme


def github_anchor(heading: str) -> str:
    """The anchor GitHub and JupyterLab give a heading: lower case, spaces as hyphens, punctuation dropped."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_relative_link_of_the_handout_resolves_inside_it(edition: Path) -> None:
    """A notebook's header links the README's "Start here" (the Chinese one README.zh.md's 从这里开始): the handout
    has both READMEs, in both languages, with those headings; every other relative link lands on a shipped file."""
    readmes = {"README.md": "Start here", "README.zh.md": "从这里开始"}
    for name, heading in readmes.items():
        text = (edition / name).read_text(encoding="utf-8")
        assert f"## {heading}" in text and "pypi.tuna.tsinghua.edu.cn" in text and "conda" in text
        assert "PowerShell" in text and ".venv\\Scripts\\python" in text and "NB_QUICK=1" in text
    broken = []
    for notebook in sorted((edition / "notebooks").rglob("[0-9][0-9]_*.ipynb")):
        for cell in nbformat.read(notebook, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            for target in re.findall(r"\]\(([^)\s]+)\)", cell.source):
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue
                path, _, anchor = target.partition("#")
                found = (notebook.parent / path).resolve()
                if not found.exists() or not found.is_relative_to(edition.resolve()):
                    broken.append(f"{notebook.name}: {target}")
                elif anchor and found.suffix == ".md":
                    headings = re.findall(r"^#+ (.+)$", found.read_text(encoding="utf-8"), re.M)
                    if anchor not in {github_anchor(h) for h in headings}:
                        broken.append(f"{notebook.name}: {target} (no such heading)")
    assert broken == []


def _cases_of(value: Any) -> list[Any]:
    """The cases one exercise's cases hold: a list of numbers is one case, a list of tuples a case each; a dict's
    numbers and strings together are one, and each of its lists is one (its long tuples one each)."""

    def scalar(v: Any) -> bool:
        return not isinstance(v, (list, tuple, dict))

    if isinstance(value, list):
        return [value] if all(map(scalar, value)) else [value, *(v for v in value if not scalar(v))]
    if isinstance(value, dict):
        found = [{k: v for k, v in value.items() if scalar(v)}] if any(map(scalar, value.values())) else []
        for v in (v for v in value.values() if not scalar(v)):
            found += [v, *(i for i in v if isinstance(i, tuple) and len(i) >= 3)]
        return found
    return [value]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple, dict)):
        for v in value.values() if isinstance(value, dict) else value:
            yield from _strings(v)


def hidden_fingerprints() -> dict[tuple[str, int], set[str]]:
    """For each exercise with hidden cases, text that would give them away, derived from the cases themselves (no
    list typed here): the repr of each hidden case that is not a visible one, each string of 10 characters or more
    in them (code that builds a module, a description) that no visible case holds, and each line of 16 characters
    or more of their block (``lessons/exercises/hidden.py``) found nowhere else in its module."""
    from lessons import exercises
    from lessons.exercises import hidden

    found = {}
    for key, exercise in exercises.EXERCISES.items():
        if not exercise.has_hidden:
            continue
        visible = {repr(c) for c in _cases_of(exercise.cases)} | set(_strings(exercise.cases))
        cases = exercise.hidden_cases()
        prints = {repr(c) for c in _cases_of(cases)} | {s for s in _strings(cases) if len(s) >= 10}
        source = Path(sys.modules[exercise.verify.__module__].__file__ or "").read_text(encoding="utf-8")
        rest = hidden.without_hidden_cases(source)
        lines = {line.strip() for line in hidden.hidden_blocks(source)[exercise.hidden].splitlines()}
        found[key] = (prints - visible) | {line for line in lines if len(line) >= 16 and line not in rest}
        assert found[key], key  # every exercise's hidden cases can be told
    return found


def leaked(folder: Path) -> list[str]:
    """Each file of ``folder`` that holds text of a hidden case (``hidden_fingerprints``), with that text."""
    prints = {text for texts in hidden_fingerprints().values() for text in texts}
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", errors="replace")
        found += [f"{path.relative_to(folder)}: {t!r}" for t in sorted(prints) if t in text]
    return found


def test_the_handout_holds_no_hidden_case(edition: Path) -> None:
    """The exercises' hidden cases are for grading: no file of the handout holds any of their inputs or expected
    values, which the project's check modules do hold; with them stripped, a grade of the hidden cases fails loudly
    (a teacher's setup error), never passes."""
    assert not leaked(edition)
    assert leaked(utils.ROOT / "lessons" / "exercises")  # the fingerprints find the cases where they are
    code = ("from lessons import exercises\nimport utils\nassert exercises.__file__.startswith(str(utils.ROOT))\n"
            "exercises.grade('01', 2, lambda value, n: [], hidden=True)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], cwd=edition, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode != 0 and "LookupError" in done.stderr and "has no hidden cases" in done.stderr, (
        done.stdout + done.stderr)


def test_handout_requirements_leave_out_nbgrader(edition: Path) -> None:
    """nbgrader is for the teacher: its JupyterLab extension stays out of the students' JupyterLab; every other
    pin is kept as it is."""
    full = (utils.ROOT / "requirements.txt").read_text(encoding="utf-8")
    handout = (edition / "requirements.txt").read_text(encoding="utf-8")
    assert "nbgrader" in full and "nbgrader" not in handout.lower()
    assert [line for line in full.splitlines() if "nbgrader" not in line] == handout.splitlines()
    assert student_edition.students_requirements("torch==2.15.0\nNBGrader[docs]>=0.9  # x\n") == "torch==2.15.0\n"


def test_zip_holds_the_folder(tmp_path: Path) -> None:
    student_edition.main(["--out", str(tmp_path / "student"), "--zip"])
    with zipfile.ZipFile(tmp_path / "student.zip") as archive:
        names = set(archive.namelist())
    assert "student/utils.py" in names and "student/notebooks/01_devices.ipynb" in names
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("mine")
    with pytest.raises(SystemExit):  # never deletes a folder that is not an earlier edition
        student_edition.main(["--out", str(tmp_path / "other")])
    assert (tmp_path / "other" / "keep.txt").is_file()


def test_student_version_replaces_solution_code_and_output() -> None:
    secret = nbformat.v4.new_code_cell("# @title Solution\nanswer = 42\nprint(answer)", execution_count=3)
    secret.outputs = [nbformat.v4.new_output("stream", name="stdout", text="42\n")]
    name = "01_devices.ipynb"
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(f"# 01 · Devices\n\n{header.colab_link(name)}\n\nText"),
            nbformat.v4.new_code_cell("print(1)", execution_count=1),
            nbformat.v4.new_markdown_cell("## Exercises"),
            nbformat.v4.new_markdown_cell("**Exercise 1.** Print the answer."),
            secret,
        ]
    )
    student = student_edition.student_version(nb, name)
    assert "answer = 42" not in nbformat.writes(student) and "42\n" not in nbformat.writes(student)
    assert student.cells[4].source == "# Exercise 1 — your solution\n" and student.cells[4].outputs == []
    assert student.cells[4].id == secret.id  # the same cell, emptied
    assert student.cells[0].source == "# 01 · Devices\n\nText\n" and nb.cells[4] is secret  # the original is kept


def test_student_version_drops_the_solutions_section() -> None:
    """The exercises' structure: answer cells and checks stay, the Solutions section goes."""
    printed = lambda text: [nbformat.v4.new_output("stream", name="stdout", text=text)]  # noqa: E731
    name = "02_placement_checks.ipynb"
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(f"# 02 · Placement\n\n{header.colab_link(name)}"),
            nbformat.v4.new_markdown_cell("## Exercises"),
            nbformat.v4.new_markdown_cell("**Exercise 1.** Give the answer."),
            nbformat.v4.new_code_cell("# Exercise 1: your answer\nanswer = None", execution_count=1),
            nbformat.v4.new_code_cell(
                'exercises.check("02", 1, answer)', execution_count=2, outputs=printed("Exercise 1: not answered yet\n")
            ),
            nbformat.v4.new_markdown_cell("## Solutions"),
            nbformat.v4.new_code_cell("# @title Solution: exercise 1\nanswer = 42", execution_count=3),
            nbformat.v4.new_code_cell(
                'exercises.check("02", 1, answer, strict=True)',
                execution_count=4,
                outputs=printed("Exercise 1: correct.\n"),
            ),
            nbformat.v4.new_markdown_cell("Why 42: the question was wrong."),
        ]
    )
    student = student_edition.student_version(nb, name)
    assert student.cells[1:] == nb.cells[1:5] and len(nb.cells) == 9  # the original is kept
    written = nbformat.writes(student)  # (not a bare "42": random cell ids may contain it)
    assert "answer = 42" not in written and "Why 42" not in written and "correct." not in written
    assert student.cells[0].source == "# 02 · Placement\n"


def _get(url: str, token: str) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.read()


def test_the_handout_sets_itself_up_from_its_zip_and_opens(tmp_path: Path) -> None:
    """Unzipped into an empty folder, the README's own command builds the handout's ``.venv`` with its own setup
    script (a fresh one: only the package cache is reused) and starts JupyterLab, which serves the lessons with the
    handout's kernel; with that kernel, every notebook's setup and import cells run in one kernel."""
    student_edition.main(["--out", str(tmp_path / "made" / "student"), "--zip"])
    classroom = tmp_path / "classroom"
    classroom.mkdir()
    with zipfile.ZipFile(tmp_path / "made" / "student.zip") as archive:
        archive.extractall(classroom)
    handout = classroom / "student"
    assert not (handout / ".venv").exists()
    readme = (handout / "README.md").read_text(encoding="utf-8")
    command = re.search(r"```bash\n\s*(.+?)\n\s*```", readme).group(1)  # the README's command, as a student copies it
    setup, open_lab = command.split(" && ")
    # a student's shell: no virtual environment active, no Jupyter settings, no VENV for setup.sh (another folder)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "JUPYTER")) and k != "VENV"}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not p.startswith(sys.prefix))
    start = time.monotonic()
    done = subprocess.run(["bash", "-c", setup], cwd=handout, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    print(f"the handout's setup took {time.monotonic() - start:.0f} s")  # pytest -s shows it
    python = handout / ".venv" / "bin" / "python"
    assert python.is_file() and Path(sys.prefix).resolve() != python.parent.parent.resolve()

    # `jupyter lab` as the README says, configured the way a user's own config would (a port, a token, no browser;
    # as root, which containers and CI are, JupyterLab refuses to start without allow_root: the README says so).
    # The port: 0, one the server picks and binds itself, read from its runtime folder (tools/author/kernels.py)
    token = "handout-test"
    config = tmp_path / "jupyter-config"
    config.mkdir()
    server = {
        "ServerApp": {"port": 0, "ip": "127.0.0.1", "open_browser": False, "allow_root": True},
        "IdentityProvider": {"token": token},
    }
    (config / "jupyter_server_config.json").write_text(json.dumps(server))
    lab_env = {
        **env,
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_DATA_DIR": str(tmp_path / "jupyter-data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "jupyter-runtime"),
    }
    log = (tmp_path / "lab.log").open("w")
    lab = subprocess.Popen(
        ["bash", "-c", f"exec {open_lab}"], cwd=handout, env=lab_env, stdout=log, stderr=log, start_new_session=True
    )
    try:
        for _ in range(240):
            port = kernels.server_port(lab_env["JUPYTER_RUNTIME_DIR"])
            base = f"http://127.0.0.1:{port}"
            try:
                if port is not None and _get(f"{base}/api/status", token)[0] == 200:
                    break
            except OSError:
                pass
            assert lab.poll() is None, (tmp_path / "lab.log").read_text()
            time.sleep(0.5)
        status, page = _get(f"{base}/lab", token)
        assert status == 200 and b"JupyterLab" in page
        listing = json.loads(_get(f"{base}/api/contents/notebooks", token)[1])
        assert "01_devices.ipynb" in {item["name"] for item in listing["content"]}
        specs = json.loads(_get(f"{base}/api/kernelspecs", token)[1])
        spec = specs["kernelspecs"][specs["default"]]["spec"]
        assert spec["display_name"] == template.KERNELSPEC["display_name"]
        assert Path(spec["argv"][0]) == python  # the handout's own kernel, not another Python's
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=60)
        log.close()

    cells = []
    for path in sorted((handout / "notebooks").glob("**/*.ipynb")):
        code = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        cells += [nbformat.v4.new_code_cell(source) for source in code[:2]]  # the setup cell, the lesson's imports
    check = "import sys\nprint(utils.ROOT.name, utils.ROOT.parent == ROOT.parent, sys.prefix == str(ROOT / '.venv'))"
    cells.append(nbformat.v4.new_code_cell(check))
    nbformat.write(nbformat.v4.new_notebook(cells=cells), handout / "notebooks" / "every_setup.ipynb")
    sockets = tempfile.mkdtemp(prefix="kernels-")  # short: a Unix socket's path must fit in about 100 bytes
    run = subprocess.run(
        [
            str(handout / ".venv" / "bin" / "jupyter"),
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--inplace",
            "--ExecutePreprocessor.timeout=600",
            *kernels.ipc_options(sockets),  # Unix sockets, not TCP ports (tools/author/kernels.py)
            "every_setup.ipynb",
        ],
        cwd=handout / "notebooks",
        env={**lab_env, utils.QUICK_ENV: "1"},
        capture_output=True,
        text=True,
    )
    shutil.rmtree(sockets, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-3000:]
    last = nbformat.read(handout / "notebooks" / "every_setup.ipynb", as_version=4).cells[-1]
    printed = "".join(o["text"] for o in last.outputs if o.get("name") == "stdout")  # one print may arrive in pieces
    assert printed == "student True True\n"  # the handout's utils.py, in the handout's venv
