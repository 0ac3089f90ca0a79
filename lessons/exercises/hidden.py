"""The hidden cases' blocks of the check modules: the lines from ``# BEGIN HIDDEN CASES`` to ``# END HIDDEN CASES``.

Each block holds one assignment of literal data, the hidden cases of one exercise (``Exercise.hidden`` names it).
The student handout and an nbgrader course's ``lessons/`` get the check modules without their blocks
(``without_hidden_cases``); the course writes each block into its exercise's ``### BEGIN HIDDEN TESTS`` region
instead (``hidden_blocks``), so that nbgrader's release leaves them out and its autograde puts them back.
It reads and writes source text and runs no check: the tools use it on their copies of ``lessons/``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

BEGIN, END = "# BEGIN HIDDEN CASES", "# END HIDDEN CASES"
BLOCK = re.compile(rf"^{re.escape(BEGIN)}\n(.*?)^{re.escape(END)}\n", re.M | re.S)
"""A block: its marker lines and the code between them (group 1)."""
MARKER = re.compile(rf"^(?:{re.escape(BEGIN)}|{re.escape(END)})$", re.M)
"""A marker line (a line that only names a marker in its text, as this module's docstring does, is none)."""


def hidden_blocks(source: str) -> dict[str, str]:
    """Map the name each block of a check module's ``source`` assigns to the block's code (markers left out);
    ValueError for a block that is not one assignment of literal data."""
    blocks = {}
    for match in BLOCK.finditer(source):
        code = match.group(1)
        tree = ast.parse(code)
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign) or len(tree.body[0].targets) != 1 or \
                not isinstance(tree.body[0].targets[0], ast.Name):
            raise ValueError(f"a hidden block is not one assignment to a name: {code[:80]!r}")
        ast.literal_eval(tree.body[0].value)  # ValueError unless literal data: it must run anywhere as it is
        blocks[tree.body[0].targets[0].id] = code.rstrip("\n")
    if len(MARKER.findall(source)) != 2 * len(blocks):
        raise ValueError("unpaired hidden-case markers")
    return blocks


def without_hidden_cases(source: str) -> str:
    """Return a check module's ``source`` with every hidden block (markers included) left out."""
    hidden_blocks(source)  # the blocks are well formed: nothing half stripped
    return BLOCK.sub("", source)


def strip_folder(folder: Path) -> list[Path]:
    """Strip the hidden blocks from every check module in ``folder``, a copy of the project's ``lessons/`` (the
    handout's, an nbgrader assignment's); return the files changed."""
    changed = []
    for path in sorted(folder.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if MARKER.search(text):
            path.write_text(without_hidden_cases(text), encoding="utf-8")
            changed.append(path)
    return changed
