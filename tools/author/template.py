"""Write what every notebook shares into every notebook of both editions: the setup cell (collapsed), the Colab
metadata and kernel, the header (Colab link, run times) and what a student sees of each cell.

    .venv/bin/python tools/author/template.py

Run it after editing a notebook or these modules, or after ``tools/author/run_notebooks.py`` recorded new times;
it is idempotent. ``tests/test_hygiene.py`` fails when a notebook differs from what it writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tools.author.cells import collapse, present  # noqa: E402
from tools.author.core import write_table  # noqa: E402
from tools.author.editions import LANGUAGES, NOTEBOOKS, ZH_NOTEBOOKS, language_of  # noqa: E402
from tools.author.header import (  # noqa: E402
    TIME_LINE,
    WITHOUT_COLAB,
    WITHOUT_COLAB_LINE,
    badge,
    colab_link,
    current_times,
    quick_mode_shrinks,
    read_timings,
    time_line,
)

COLAB_METADATA: dict[str, Any] = {
    "accelerator": "GPU",
    "colab": {"provenance": [], "gpuType": "T4", "toc_visible": True},
}
"""Notebook metadata that makes the Colab badge open a GPU runtime (a T4, the free tier's GPU)."""

KERNELSPEC: dict[str, str] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
"""The kernel every notebook names. ``tools/setup.sh`` registers exactly this one: JupyterLab marks a notebook
modified as soon as it opens when the stored display name differs from the registered kernel's."""


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
    line = time_line(current_times(timings, nb, name, lang), lang, quick_mode_shrinks(nb))
    if TIME_LINE.search(title.source):
        title.source = TIME_LINE.sub(lambda _: line, title.source)
    else:
        title.source = title.source.rstrip() + "\n\n" + line



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
