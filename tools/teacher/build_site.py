"""Build the lessons' website, in English and Chinese, from the stored notebooks (nothing is executed).

    bash tools/teacher/build_site.sh                     # sets up .venv-docs (requirements-docs.txt), then runs this
    .venv-docs/bin/python tools/teacher/build_site.py    # writes _site/en/, _site/zh/ and _site/index.html
    SITE_BRANCH=dev ... tools/teacher/build_site.py      # Colab buttons and badges open the notebooks on branch "dev"

Each language is one Sphinx build (myst-nb, sphinx-book-theme) of a folder assembled under ``_build/site/<lang>``:
a home page (``site/home.<lang>.md`` with the lesson table filled in from the notebooks' titles and
``notebooks/timings.json``), every notebook of that edition, and the teacher's page (``docs/TEACHING.md``,
``docs/TEACHING.zh.md``). Links between those pages stay links between pages; links to other files of the
repository become links to them on GitHub; the Colab badge image is served from the site itself, so pages need
nothing from the internet. ``tools/ci/check_site.py`` then tests the result in a real browser.
"""

from __future__ import annotations

import argparse
import os
import posixpath
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tools.author import editions, header, setup_cell  # noqa: E402

SITE = ROOT / "site"
OUT = ROOT / "_site"
WORK = ROOT / "_build" / "site"
TEACHING = {"en": ROOT / "docs" / "TEACHING.md", "zh": ROOT / "docs" / "TEACHING.zh.md"}
BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
LINK = re.compile(r"(!?\[[^\]]*\])\(([^)\s]+)\)")


def notebooks(lang: str) -> list[Path]:
    """Return the notebooks of edition ``lang``, in lesson order."""
    return sorted(editions.LANGUAGES[lang].folder.glob("[0-9][0-9]_*.ipynb"))


def rewrite_links(markdown: str, source: Path, pages: dict[Path, str], branch: str) -> str:
    """Return ``markdown`` (from the repository file ``source``) with its relative links made to work on the site:
    a file that is a page of this build links to that page, any other file to its copy on GitHub."""

    def replace(match: re.Match[str]) -> str:
        text, target = match.groups()
        if re.match(r"[a-z]+:|#", target) or text.startswith("!"):
            return match.group(0)  # a URL, an anchor on the same page, or an image
        path, _, anchor = target.partition("#")
        resolved = (source.parent / path).resolve()
        if resolved in pages:
            return f"{text}({pages[resolved]}{'#' + anchor if anchor else ''})"
        relative = posixpath.normpath(resolved.relative_to(ROOT).as_posix()) if resolved.is_relative_to(ROOT) else path
        return f"{text}(https://github.com/{setup_cell.REPO}/blob/{branch}/{relative})"

    return LINK.sub(replace, markdown)


def lesson_table(lang: str) -> str:
    """Return the home page's table: every lesson (linked), what it teaches in a line, and its measured times."""
    timings = header.read_timings()
    if lang == "en":
        rows = ["| # | lesson | quick mode, CPU | full mode, GPU |", "|---|---|---|---|"]
    else:
        rows = ["| # | 课程 | 快速模式，CPU | 完整模式，GPU |", "|---|---|---|---|"]
    for path in notebooks(lang):
        title = nbformat.read(path, as_version=4).cells[0].source.splitlines()[0]
        number, _, name = title.removeprefix("# ").partition(" · ")
        times = timings.get(path.stem, {})
        cells = []
        for key in ("quick/cpu", "full/gpu"):
            run = times.get(key)
            seconds = round(run["seconds"]) if run else None
            cells.append("-" if seconds is None else (f"{seconds} s" if lang == "en" else f"{seconds}秒"))
        rows.append(f"| {number} | [{name}]({path.name}) | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def assemble(lang: str, branch: str) -> Path:
    """Write the sources of one build into ``_build/site/<lang>`` and return that folder."""
    folder = WORK / lang
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    lessons = notebooks(lang)
    pages = {path.resolve(): path.name for path in lessons} | {TEACHING[lang].resolve(): "teaching.md"}
    shutil.copy2(SITE / "_static" / "colab-badge.svg", folder / "colab-badge.svg")
    for path in lessons:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = rewrite_links(cell.source, path, pages, branch)
        nb.cells[0].source = (
            nb.cells[0].source.replace(BADGE_IMAGE, "colab-badge.svg").replace("/blob/main/", f"/blob/{branch}/")
        )
        nbformat.write(nb, folder / path.name)
    teaching = TEACHING[lang].read_text(encoding="utf-8")
    (folder / "teaching.md").write_text(rewrite_links(teaching, TEACHING[lang], pages, branch), encoding="utf-8")
    home = (SITE / f"home.{lang}.md").read_text(encoding="utf-8")
    toc = "\n".join([p.stem for p in lessons] + ["teaching"])
    home = home.replace("{lessons}", lesson_table(lang)).replace("{toc}", toc).replace("{repo}", setup_cell.REPO)
    (folder / "index.md").write_text(home, encoding="utf-8")
    return folder


def build(lang: str, branch: str) -> Path:
    """Assemble and build one language into ``_site/<lang>``; Sphinx warnings are errors."""
    source, target = assemble(lang, branch), OUT / lang
    shutil.rmtree(target, ignore_errors=True)
    env = {**os.environ, "SITE_LANG": lang, "SITE_BRANCH": branch}
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-b",
        "html",
        "-q",
        "-W",
        "--keep-going",
        "-c",
        str(SITE),
        "-d",
        str(WORK / f"doctrees-{lang}"),
        str(source),
        str(target),
    ]
    subprocess.run(command, check=True, env=env)
    return target


def main(argv: list[str] | None = None) -> None:
    """Build the languages the command line names (both by default) and the root page that leads to them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", choices=sorted(editions.LANGUAGES), action="append", help="only this language")
    args = parser.parse_args(argv)
    branch = os.environ.get("SITE_BRANCH", "main")
    for lang in args.lang or list(editions.LANGUAGES):
        print(f"built {build(lang, branch).relative_to(ROOT)}/", flush=True)
    shutil.rmtree(OUT / "jupyter_execute", ignore_errors=True)  # myst-nb's scratch folder beside its output
    (OUT / "index.html").write_text(
        '<!doctype html>\n<meta charset="utf-8">\n<title>PyTorch on GPUs · 在GPU上用PyTorch</title>\n'
        '<meta http-equiv="refresh" content="0; url=en/index.html">\n'
        '<p><a href="en/index.html">English</a> · <a href="zh/index.html">中文</a></p>\n',
        encoding="utf-8",
    )
    (OUT / ".nojekyll").write_text("")  # GitHub Pages: serve _static/ and _images/ as they are


if __name__ == "__main__":
    main()
