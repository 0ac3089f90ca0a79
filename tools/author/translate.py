"""Keep the Chinese edition (``notebooks/zh/``) in step with the English notebooks, cell by cell.

    .venv/bin/python tools/author/translate.py            # sync every twin, then list what needs translating
    .venv/bin/python tools/author/translate.py 03 07      # only those notebooks
    .venv/bin/python tools/author/translate.py --check    # list only; exit 1 if anything needs translating

Every Chinese notebook has the English one's cells, with the same ids, in the same order. Each Chinese cell records
where it came from in ``metadata.translation``: the English cell's ``id``, a ``hash`` of its source, that
``source`` itself (so a translator sees what changed since), and a ``status``:

- ``translated``: Chinese prose (markdown) or Chinese comments (code) for the English source with that hash;
- ``same``: nothing to translate (a code cell without comments), kept identical to the English cell;
- ``verbatim``: deliberately kept as in English (a formula, a table of code), accepted by the tests as it is;
- ``untranslated``: copied from English by this tool and still waiting for a translator.

Syncing never re-translates and never executes anything. It adds English cells that are missing as
``untranslated``, drops cells that English no longer has, and puts the cells in the English order. When an English
code cell changed but its comments did not, the Chinese comments are carried over onto the new code automatically.
Everything else that changed in English is reported as **stale**: the translator compares
``metadata.translation.source`` with the English cell, updates the Chinese text and calls ``mark_translated`` (or
edits the status by hand). ``tests/test_translate.py`` fails while any cell is missing, stale or untranslated.

A Chinese code cell's outputs are its own, from running the Chinese notebook (``tools/author/run_notebooks.py``,
which syncs first): the Chinese setup cell sets the language that the lessons print in. Only a new cell, or one whose
English code changed, gets the English outputs as a placeholder until that run.
"""

from __future__ import annotations

import argparse
import copy
import io
import re
import sys
import tokenize
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tools.author import cells, digest, editions, header, template  # noqa: E402

Notebook = Any  # an nbformat NotebookNode
STATUSES = ("translated", "same", "verbatim", "untranslated")


def english_notebooks() -> list[Path]:
    """Return the English notebooks, in lesson order."""
    return sorted(editions.NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def twin_path(english: Path) -> Path:
    """Return the path of the Chinese twin of an English notebook."""
    return editions.ZH_NOTEBOOKS / english.name


def hashed_source(cell: Any, index: int) -> str:
    """Return the part of an English cell a translation depends on: the source, without the generated time line of
    the title cell (index 0), which changes whenever times are recorded and is written by tools/author/template."""
    return header.TIME_LINE.sub("", cell.source).strip() if index == 0 else cell.source


source_hash = digest.source_hash
"""Return a short, stable hash of a cell's source text."""


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


def comments(source: str) -> list[str]:
    """Return the comments of a code cell, in order (IPython ``%`` and ``!`` lines tokenize as plain code)."""
    return [t.string for t in _tokens(source) if t.type == tokenize.COMMENT]


def code_tokens(source: str) -> list[tuple[int, str]]:
    """Return the tokens of a code cell without comments and line breaks: equal for a cell and its translation."""
    skipped = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    return [(t.type, t.string) for t in _tokens(source) if t.type not in skipped]


def with_comments(source: str, new_comments: list[str]) -> str:
    """Return code ``source`` with its comments replaced, in order, by ``new_comments`` (the same number)."""
    found = [t for t in _tokens(source) if t.type == tokenize.COMMENT]
    if len(found) != len(new_comments):
        raise ValueError(f"{len(found)} comments in the code, {len(new_comments)} given")
    lines = source.split("\n")
    for token, text in reversed(list(zip(found, new_comments, strict=True))):
        row, column = token.start
        line = lines[row - 1]
        lines[row - 1] = line[:column] + text + line[column + len(token.string) :]
    return "\n".join(lines)


def needs_translation(cell: Any) -> bool:
    """True for markdown with letters in it, and for code with comments."""
    if cell.cell_type == "markdown":
        return bool(re.search(r"[A-Za-z]", cell.source))
    return cell.cell_type == "code" and bool(comments(cell.source))


def provenance(english: Any, index: int, status: str) -> dict[str, str]:
    """Return the ``metadata.translation`` record of a Chinese cell made from ``english`` (cell ``index``)."""
    source = hashed_source(english, index)
    return {"id": english.id, "hash": source_hash(source), "source": source, "status": status}


def mark_translated(zh_nb: Notebook, en_nb: Notebook, cell_id: str, text: str | None = None) -> None:
    """Set the Chinese cell ``cell_id`` to ``text`` (if given) and record it as translated from the current English."""
    index = next(i for i, cell in enumerate(en_nb.cells) if cell.id == cell_id)
    cell = next(cell for cell in zh_nb.cells if cell.id == cell_id)
    if text is not None:
        cell.source = text
    cell.metadata["translation"] = provenance(en_nb.cells[index], index, "translated")


def sync(english: Path, twin: Path | None = None) -> dict[str, list[str]]:
    """Bring the Chinese twin of ``english`` (at ``twin``, by default in notebooks/zh/) in step (see the module
    docstring); return what needs translating."""
    en_nb = nbformat.read(english, as_version=4)
    path = twin or twin_path(english)
    zh_nb = nbformat.read(path, as_version=4) if path.is_file() else nbformat.v4.new_notebook()
    old = {cell.id: cell for cell in zh_nb.cells}
    report: dict[str, list[str]] = {"missing": [], "stale": [], "untranslated": []}
    synced = []
    for index, en_cell in enumerate(en_nb.cells):
        zh_cell = old.get(en_cell.id)
        if zh_cell is not None and index > 0:  # what a student sees (tools/author/template.py), as English has it
            cells.present(zh_cell, "zh")
        placeholder = zh_cell is None or zh_cell.cell_type != en_cell.cell_type  # outputs from English until a run
        if placeholder:
            zh_cell = copy.deepcopy(en_cell)
            status = "untranslated" if needs_translation(en_cell) else "same"
            zh_cell.metadata["translation"] = provenance(en_cell, index, status)
            report["missing"].append(en_cell.id)
        record = zh_cell.metadata.setdefault("translation", provenance(en_cell, index, "untranslated"))
        now = provenance(en_cell, index, record.get("status", "untranslated"))
        placeholder = placeholder or record.get("hash") != now["hash"]
        if record.get("hash") != now["hash"] and en_cell.cell_type == "code":
            if not comments(en_cell.source):  # nothing to translate: take the new code as it is
                zh_cell.source, now["status"] = en_cell.source, "same"
                record.update(now)
            elif comments(record.get("source", "")) == comments(en_cell.source) and len(
                comments(zh_cell.source)
            ) == len(comments(en_cell.source)):  # only the code changed: carry the Chinese comments over
                zh_cell.source = with_comments(en_cell.source, comments(zh_cell.source))
                record.update(now)
        if en_cell.cell_type == "code":
            if placeholder:
                zh_cell.outputs = copy.deepcopy(en_cell.outputs)
                zh_cell.execution_count = en_cell.execution_count
            zh_cell.metadata = {**copy.deepcopy(en_cell.metadata), "translation": record}
        if record.get("hash") != now["hash"]:
            report["stale"].append(en_cell.id)
        elif record.get("status") == "untranslated":
            report["untranslated"].append(en_cell.id)
        synced.append(zh_cell)
    zh_nb.cells = synced
    zh_nb.metadata = copy.deepcopy(en_nb.metadata)
    zh_nb.nbformat, zh_nb.nbformat_minor = en_nb.nbformat, en_nb.nbformat_minor
    # the generated parts: the Chinese setup cell, Colab link and time line (tools/author/template.py)
    zh_nb.cells[0].source = zh_nb.cells[0].source.replace(
        header.colab_link(english.name), header.colab_link(english.name, "zh")
    )
    template.apply(zh_nb, english.name, header.read_timings(), "zh")
    setup = next(i for i, cell in enumerate(zh_nb.cells) if cell.cell_type == "code")
    zh_nb.cells[setup].metadata["translation"] = provenance(en_nb.cells[setup], setup, "translated")
    report = {kind: [i for i in ids if i != en_nb.cells[setup].id] for kind, ids in report.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(zh_nb, path)
    return report


def status(english: Path, twin: Path | None = None) -> dict[str, list[str]]:
    """Return what needs translating in the Chinese twin of ``english``, without changing anything."""
    en_nb = nbformat.read(english, as_version=4)
    path = twin or twin_path(english)
    if not path.is_file():
        return {"missing": [cell.id for cell in en_nb.cells], "stale": [], "untranslated": []}
    zh = {cell.id: cell for cell in nbformat.read(path, as_version=4).cells}
    report: dict[str, list[str]] = {"missing": [], "stale": [], "untranslated": []}
    for index, en_cell in enumerate(en_nb.cells):
        record = zh[en_cell.id].metadata.get("translation", {}) if en_cell.id in zh else None
        if record is None:
            report["missing"].append(en_cell.id)
        elif record.get("hash") != provenance(en_cell, index, "")["hash"]:
            report["stale"].append(en_cell.id)
        elif record.get("status") == "untranslated":
            report["untranslated"].append(en_cell.id)
    return report


def main(argv: list[str] | None = None) -> int:
    """Sync (or with ``--check`` only inspect) the twins the command line names; print what needs translating."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="only notebooks whose name starts with one of these")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if anything needs translating")
    args = parser.parse_args(argv)
    paths = [p for p in english_notebooks() if not args.prefixes or any(p.name.startswith(x) for x in args.prefixes)]
    pending = 0
    for path in paths:
        report = status(path) if args.check else sync(path)
        todo = {kind: ids for kind, ids in report.items() if ids and (args.check or kind != "missing")}
        pending += sum(len(ids) for ids in todo.values())
        listed = "; ".join(f"{kind}: {', '.join(ids)}" for kind, ids in todo.items())
        print(f"zh/{path.name}: {listed or 'up to date'}")
    return 1 if args.check and pending else 0


if __name__ == "__main__":
    sys.exit(main())
