"""Every place that asks for CUDA is listed in benchmarks/RESULTS.md with what proves it (issue 24's inventory).

A *CUDA site* is a notebook code cell, or a function (module-level code counts as ``<module>``) in ``utils.py``,
``lessons/``, ``benchmarks/`` or ``tools/``, whose code names CUDA or cuDNN: a name such as ``torch.cuda``,
``.cuda()``, ``torch.backends.cudnn`` or ``CUDNN_NO_ENGINE``, or the string ``"cuda"`` / ``"cuda:N"`` (comments
and prose do not count). The Chinese notebooks run the English code token for token, so the English ones stand
for both. The section "CUDA-only branches and what proves them" of RESULTS.md has one row per site, keyed
``path::function`` or ``path#cell-id``; its last column says what proves the site's CUDA-only code:

- ``fake: tests/<file>.py::<test>``: a test on a GPU faked at torch's C layer (``tests/fake_cuda.py``);
- ``GPU run of <date> (code <hash>)``: the code ran on a GPU on that date, as RESULTS.md records. The hash is
  that of the site's source as it ran, so that a later change turns the claim false and fails this test;
- ``not run yet``, with why, or which test or command will run it;
- ``everywhere``: the code that names CUDA runs on every device (a check or a print), CI included.

This test fails on a site without a row (a new CUDA branch), on a row without a site (a stale row), on a named test
that does not exist and on a GPU-run claim whose code has changed since.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
HEADING = "## CUDA-only branches and what proves them"
KINDS = ("fake:", "GPU run of", "not run yet", "everywhere")
CUDA_STRING = re.compile(r"^cuda(:\d+)?$")


def cuda_lines(source: str) -> set[int]:
    """Return the line numbers (1-based) of ``source`` whose code names CUDA or cuDNN (see the module docstring)."""
    code = "\n".join("#" + line if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))
    found = set()
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.NAME and ("cuda" in token.string.lower() or "cudnn" in token.string.lower()):
            found.add(token.start[0])
        elif token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):  # an f-string: its text is prose, its names are not CUDA's
                continue
            if isinstance(value, str) and CUDA_STRING.match(value):
                found.add(token.start[0])
    return found


def code_only(source: str) -> str:
    """Return ``source``'s tokens without comments and blank lines (IPython's ``!``/``%`` lines left out)."""
    code = "\n".join("#" + line if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))
    skipped = (tokenize.COMMENT, tokenize.NL)
    return " ".join(t.string for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type not in skipped)


def digest(source: str) -> str:
    """Return the short hash a GPU-run claim records for a site's code (comments do not count)."""
    return hashlib.sha256(code_only(source).encode("utf-8")).hexdigest()[:12]


def module_sites(path: Path) -> dict[str, str]:
    """Map ``path::function`` (innermost enclosing function, dotted through classes) to its source, for every
    function of ``path`` that names CUDA; module-level code is ``path::<module>`` with the module's source."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    scopes: list[tuple[int, int, str, ast.AST]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    scopes.append((child.lineno, child.end_lineno or child.lineno, name, child))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    relative = path.relative_to(ROOT).as_posix()
    sites = {}
    for line in cuda_lines(source):
        inside = [scope for scope in scopes if scope[0] <= line <= scope[1]]
        if inside:
            start, end, name, node = max(inside, key=lambda scope: scope[0])  # the innermost
            sites[f"{relative}::{name}"] = ast.get_source_segment(source, node) or ""
        else:
            sites[f"{relative}::<module>"] = source
    return sites


def notebook_sites(path: Path) -> dict[str, str]:
    """Map ``path#cell-id`` to the cell's source for every code cell of ``path`` that names CUDA."""
    nb = nbformat.read(path, as_version=4)
    relative = path.relative_to(ROOT).as_posix()
    return {f"{relative}#{cell.id}": cell.source for cell in nb.cells
            if cell.cell_type == "code" and cuda_lines(cell.source)}


def all_sites() -> dict[str, str]:
    """Return every CUDA site of the project with its source."""
    sites: dict[str, str] = {}
    modules = [ROOT / "utils.py", *sorted((ROOT / "lessons").glob("*.py")), *sorted((ROOT / "benchmarks").glob("*.py")),
               *sorted((ROOT / "tools").glob("*.py"))]
    for path in modules:
        sites.update(module_sites(path))
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        sites.update(notebook_sites(path))
    return sites


def inventory(text: str | None = None) -> dict[str, str]:
    """Map each row's key to its last column ("what proves it") in RESULTS.md's inventory section."""
    text = RESULTS.read_text(encoding="utf-8") if text is None else text
    assert HEADING in text, f"benchmarks/RESULTS.md has no section {HEADING!r}"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"^\|\s*`([^`]+)`\s*\|.*\|\s*([^|]+?)\s*\|$", line)
        if match:
            assert match.group(1) not in rows, f"two rows for {match.group(1)}"
            rows[match.group(1)] = match.group(2)
    return rows


def problems_of(sites: dict[str, str], rows: dict[str, str], results_text: str) -> list[str]:
    """Return what is wrong with the inventory ``rows`` for ``sites`` (empty when it is complete and true)."""
    new, gone = sorted(set(sites) - set(rows)), sorted(set(rows) - set(sites))
    problems = [f"{key}: names CUDA but has no row in RESULTS.md's inventory" for key in new]
    problems += [f"{key}: a row for a site that no longer names CUDA (remove it)" for key in gone]
    for key, proof in sorted(rows.items()):
        if key not in sites:
            continue
        if not any(kind in proof for kind in KINDS):
            problems.append(f"{key}: says none of {', '.join(KINDS)}")
        for file, test in re.findall(r"(tests/[\w/]+\.py)::(\w+)", proof):
            path = ROOT / file
            if not path.is_file() or not re.search(rf"^def {test}\(", path.read_text(encoding="utf-8"), re.M):
                problems.append(f"{key}: names {file}::{test}, which does not exist")
        for date, code in re.findall(r"GPU run of (\d{4}-\d\d-\d\d) \(code `?([0-9a-f]{12})`?\)", proof):
            if not re.search(rf"^## .*GPU.*\({date}\)|^## .*NVIDIA.*\({date}\)", results_text, re.M):
                problems.append(f"{key}: RESULTS.md records no GPU run of {date}")
            if code != digest(sites[key]):
                problems.append(f"{key}: its code changed since the GPU run of {date}: say 'not run yet' (or rerun it)")
        if "GPU run of" in proof and not re.search(r"GPU run of \d{4}-\d\d-\d\d \(code", proof):
            problems.append(f"{key}: a GPU-run claim needs the date and the code's hash: (code <hash>)")
    return problems


def test_every_cuda_site_is_listed_with_what_proves_it() -> None:
    text = RESULTS.read_text(encoding="utf-8")
    assert problems_of(all_sites(), inventory(text), text) == []


FAKE_RESULTS = f"""
## A GPU run (2026-11-23)

{HEADING}

| site | only on CUDA | what proves it |
|---|---|---|
| `m.py::f` | a branch | fake: tests/test_cuda_inventory.py::test_every_cuda_site_is_listed_with_what_proves_it |
| `m.py::g` | a branch | GPU run of 2026-11-23 (code `{digest("g's code")}`) |

## Next section
"""


def test_the_check_catches_a_new_site_a_stale_row_a_missing_test_and_changed_code() -> None:
    rows = inventory(FAKE_RESULTS)
    assert problems_of({"m.py::f": "f", "m.py::g": "g's code"}, rows, FAKE_RESULTS) == []
    problems = problems_of({"m.py::f": "f", "m.py::g": "g's new code", "m.py::h": "h"}, rows, FAKE_RESULTS)
    assert problems == ["m.py::h: names CUDA but has no row in RESULTS.md's inventory",
                        "m.py::g: its code changed since the GPU run of 2026-11-23: say 'not run yet' (or rerun it)"]
    assert problems_of({"m.py::f": "f"}, rows, FAKE_RESULTS) == [
        "m.py::g: a row for a site that no longer names CUDA (remove it)"]
    broken = FAKE_RESULTS.replace("test_every_cuda", "test_no_such").replace("(2026-11-23)", "(2026-11-22)")
    assert problems_of({"m.py::f": "f", "m.py::g": "g's code"}, inventory(broken), broken) == [
        "m.py::f: names tests/test_cuda_inventory.py::test_no_such_site_is_listed_with_what_proves_it, which does not "
        "exist",
        "m.py::g: RESULTS.md records no GPU run of 2026-11-23",
    ]


@pytest.mark.parametrize(
    ("code", "names_cuda"),
    [
        ('if device.type == "cuda":\n    pass', True),
        ("x = t.cuda()", True),
        ("torch.backends.cudnn.allow_tf32", True),
        ('d = torch.device("cuda:1")', True),
        ("raise RuntimeError(CUDNN_NO_ENGINE)", True),
        ('print("needs a CUDA GPU")  # cuda in a comment', False),
        ('print(f"on {device.type}")', False),
        ("!nvidia-smi", False),
    ],
)
def test_what_counts_as_naming_cuda(code: str, names_cuda: bool) -> None:
    assert bool(cuda_lines(code)) is names_cuda
