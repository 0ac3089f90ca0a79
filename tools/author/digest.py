"""Hashes of notebook text: a cell's source (translation records) and the code a notebook runs (measured times,
the CUDA inventory), the same on every supported Python."""

from __future__ import annotations

import hashlib
import io
import tokenize
from typing import Any

from tools.author.editions import NOTEBOOKS


def source_hash(text: str) -> str:
    """Return a short, stable hash of a cell's source text (tools/author/translate.py records it per Chinese cell)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]



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

