"""Every place that asks for CUDA is listed in benchmarks/RESULTS.md with what proves it (the inventory).

A *CUDA site* is a notebook code cell, or a function (module-level code counts as ``<module>``) in ``utils.py``,
``lessons/``, ``benchmarks/``, ``tools/`` or ``tests/t4_like.py`` (the GPU check's T4 switch), whose code names CUDA
or cuDNN: a name such as ``torch.cuda``, ``.cuda()``, ``torch.backends.cudnn`` or ``CUDNN_NO_ENGINE``, or the string
``"cuda"`` / ``"cuda:N"`` (comments and prose do not count). The Chinese notebooks run the English code token for
token, so the English ones stand for both. The section "CUDA-only branches and what proves them" of RESULTS.md has
one row per site, keyed ``path::function`` or ``path#cell-id``; its last column says what proves the site's
CUDA-only code:

- ``fake: tests/<file>.py::<test>``: a test on a GPU faked at torch's C layer (``tests/fake_cuda.py``);
- ``GPU run of <date> (code <hash>)``: the code ran on a GPU on that date, as RESULTS.md records. The hash is
  that of the code as it ran, so that a later change turns the claim false and fails this test. For a function,
  the function's code. For a notebook cell, the whole notebook's: every code cell of it and all the project code
  those cells call (``notebook_digest``), since a cell's result depends on the cells before it and on the helpers
  they call: a change to any of them makes every GPU claim of that notebook false;
- ``not run yet``, with why, or which test or command will run it;
- ``everywhere``: the code that names CUDA runs on every device (a check or a print), CI included.

This test fails on a site without a row (a new CUDA branch), on a row without a site (a stale row), on a named test
that does not exist and on a GPU-run claim whose code has changed since; ``python tests/test_cuda_inventory.py
--mark-stale`` rewrites those claims as "not run yet".
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
import tokenize
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from tools.author.digest import python_tokens as tokens

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
HEADING = "## CUDA-only branches and what proves them"
KINDS = ("fake:", "GPU run of", "not run yet", "everywhere")
CUDA_STRING = re.compile(r"^cuda(:\d+)?$")


def cuda_lines(source: str) -> set[int]:
    """Return the line numbers (1-based) of ``source`` whose code names CUDA or cuDNN (see the module docstring)."""
    found = set()
    for kind, text, line in tokens(source):
        if kind == tokenize.NAME and ("cuda" in text.lower() or "cudnn" in text.lower()):
            found.add(line)
        elif kind == tokenize.STRING:
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):  # an f-string: its text is prose, its names are not CUDA's
                continue
            if isinstance(value, str) and CUDA_STRING.match(value):
                found.add(line)
    return found


def code_only(source: str) -> str:
    """Return ``source``'s tokens without comments and blank lines (IPython's ``!``/``%`` lines left out)."""
    skipped = (tokenize.COMMENT, tokenize.NL)
    return " ".join(text for kind, text, _ in tokens(source) if kind not in skipped)


def digest(source: str) -> str:
    """Return the short hash a GPU-run claim records for a site's code (comments do not count)."""
    return hashlib.sha256(code_only(source).encode("utf-8")).hexdigest()[:12]


PROJECT_MODULES = ("utils", *(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                              for p in sorted((ROOT / "lessons").rglob("*.py")) if p.parent.name != "lessons"
                              or p.stem != "__init__"))
"""The project's importable modules: ``utils``, ``lessons.<topic>`` and a package's ``lessons.<package>.<module>``."""


def module_file(module: str) -> str:
    """The file of a project module, relative to the repository root: a package's is its ``__init__.py``."""
    path = module.replace(".", "/")
    return f"{path}/__init__.py" if (ROOT / path).is_dir() else f"{path}.py"


Reader = Callable[[str], str]  # a path relative to the repository root -> the file's text


def read_checkout(relative: str) -> str:
    """Return the text of a file of this checkout (``relative`` to the repository root)."""
    return (ROOT / relative).read_text(encoding="utf-8")


def parse_cell(source: str) -> ast.Module:
    """Parse a notebook cell, each of its IPython ``!``/``%`` lines taken as ``pass``."""
    lines = source.split("\n")
    return ast.parse("\n".join(line[: len(line) - len(line.lstrip())] + "pass" if line.lstrip().startswith(("%", "!"))
                               else line for line in lines))


def project_imports(tree: ast.AST) -> dict[str, tuple[str, str | None]]:
    """Map every name that ``tree``'s imports bind to project code to ``(module, name)``: ``name`` None for a
    module (``import utils``, ``from lessons import memory``), else the module's attribute (``from utils import
    synchronize``)."""
    bound: dict[str, tuple[str, str | None]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound.update({a.asname or a.name: (a.name, None) for a in node.names if a.name in PROJECT_MODULES})
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if f"{node.module}.{a.name}" in PROJECT_MODULES:
                    bound[a.asname or a.name] = (f"{node.module}.{a.name}", None)
                elif node.module in PROJECT_MODULES:
                    bound[a.asname or a.name] = (node.module, a.name)
    return bound


def references(tree: ast.AST, bound: dict[str, tuple[str, str | None]], module: str | None = None,
               own: frozenset[str] = frozenset()) -> set[tuple[str, str | None]]:
    """Return the project code ``tree`` refers to, as ``(module, name)``: ``module.name`` for an imported module
    (also ``getattr(module, "name")``, ``mock.patch.object(module, "name", ...)``: a module and a name's string as
    a call's first two arguments), an imported name, or a name of ``own``, the top-level names of ``module`` (the
    code's own module). A module used otherwise (passed as a value) counts whole: ``(module, None)``."""
    found: set[tuple[str, str | None]] = set()
    through_attribute = set()
    for node in ast.walk(tree):
        pairs = []
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            pairs.append((node.value, node.attr))
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and (
                isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            pairs.append((node.args[0], node.args[1].value))
        for name, attribute in pairs:
            target = bound.get(name.id)
            if target and target[1] is None:
                found.add((target[0], attribute))
                through_attribute.add(id(name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in through_attribute:
            if node.id in bound:
                found.add(bound[node.id])
            elif module and node.id in own:
                found.add((module, node.id))
    return found


def module_parts(module: str, read: Reader) -> tuple[dict[str, str], str, dict[str, tuple[str, str | None]]]:
    """Split a project module into its top-level definitions (name -> source: functions and classes with their
    decorators, assignments), the code its import runs besides (other top-level statements) and its project
    imports."""
    return _module_parts(read(module_file(module)))


@functools.lru_cache(maxsize=64)
def _module_parts(source: str) -> tuple[dict[str, str], str, dict[str, tuple[str, str | None]]]:
    tree = ast.parse(source)
    lines = source.splitlines()
    definitions: dict[str, str] = {}
    rest = []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text = "\n".join(lines[first - 1 : node.end_lineno])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            definitions[node.name] = text
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        definitions[name.id] = definitions.get(name.id, "") + text
        elif not isinstance(node, (ast.Import, ast.ImportFrom)) and not (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # not the docstring
            rest.append(text)
    return definitions, "\n".join(rest), project_imports(tree)


def notebook_code(path: str, read: Reader = read_checkout) -> dict[str, str]:
    """Return the code a notebook's GPU run depends on: ``"cell <n>"`` -> the source of its n-th code cell, for
    every code cell, and ``"<module>.<name>"`` -> the source of every project definition those cells call, directly
    or through other project code (``<module>.<import>`` for the code a module runs on import, ``<module>.*`` for
    a module used as a whole)."""
    nb = nbformat.reads(read(path), as_version=4)
    cells = [cell.source for cell in nb.cells if cell.cell_type == "code"]
    code = {f"cell {n}": source for n, source in enumerate(cells, start=1)}
    trees = [parse_cell(source) for source in cells]
    bound: dict[str, tuple[str, str | None]] = {}
    for tree in trees:
        bound.update(project_imports(tree))
    for module in {module for module, _ in bound.values()}:  # importing a module runs its top-level code
        code[f"{module}.<import>"] = module_parts(module, read)[1]
        if module_file(module).endswith("__init__.py"):  # a package: the modules its import imports count whole
            for sub, name in module_parts(module, read)[2].values():  # (lessons.exercises: what each declares)
                if name is None:
                    code[f"{sub}.*"] = read(module_file(sub))
    todo = {(module, name or "*") for tree in trees for module, name in references(tree, bound)}
    done: set[tuple[str, str]] = set()
    parts: dict[str, tuple[dict[str, str], str, dict[str, tuple[str, str | None]]]] = {}
    while todo:
        module, name = todo.pop()
        if (module, name) in done:
            continue
        done.add((module, name))
        if module not in parts:
            parts[module] = module_parts(module, read)
        definitions, on_import, imported = parts[module]
        code[f"{module}.<import>"] = on_import
        if name == "*" or (name not in definitions and name not in imported):
            code[f"{module}.*"] = read(module_file(module))  # a module used whole, or a name it lacks
            continue
        if name in imported:  # a name the module imported from another, e.g. lessons.ddp's atomic_save
            target = imported[name]
            todo.add((target[0], target[1] or "*"))
            continue
        code[f"{module}.{name}"] = definitions[name]
        for target in references(ast.parse(definitions[name]), imported, module, frozenset(definitions)):
            todo.add((target[0], target[1] or "*"))
    return code


def notebook_digest(path: str, read: Reader = read_checkout) -> str:
    """Return the hash a GPU-run claim records for a notebook's cells: of all its code cells and all the project
    code they call (``notebook_code``), comments left out."""
    code = notebook_code(path, read)
    text = "\n".join(f"{key}: {code_only(code[key])}" for key in sorted(code))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


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
    modules = [ROOT / "utils.py", *sorted((ROOT / "lessons").rglob("*.py")),  # a package's modules too
               *sorted((ROOT / "benchmarks").glob("*.py")),
               *sorted((ROOT / "tools").rglob("*.py")), ROOT / "tests" / "t4_like.py"]  # the GPU check's T4 switch
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


def problems_of(sites: dict[str, str], rows: dict[str, str], results_text: str,
                digests: dict[str, str] | None = None) -> list[str]:
    """Return what is wrong with the inventory ``rows`` for ``sites`` (empty when it is complete and true).

    ``digests``: the hash each site's GPU-run claim must record (by default, that of the site's own source)."""
    digests = {key: digest(source) for key, source in sites.items()} | (digests or {})
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
            if code != digests[key]:
                problems.append(f"{key}: its code changed since the GPU run of {date}: say 'not run yet' (or rerun it)")
        if "GPU run of" in proof and not re.search(r"GPU run of \d{4}-\d\d-\d\d \(code", proof):
            problems.append(f"{key}: a GPU-run claim needs the date and the code's hash: (code <hash>)")
    return problems


def expected_digests(sites: dict[str, str]) -> dict[str, str]:
    """The hash each site's GPU-run claim must record: a notebook cell's is its notebook's (``notebook_digest``)."""
    notebooks = {key.split("#")[0] for key in sites if "#" in key}
    by_notebook = {path: notebook_digest(path) for path in notebooks}
    return {key: by_notebook[key.split("#")[0]] if "#" in key else digest(source) for key, source in sites.items()}


def test_every_cuda_site_is_listed_with_what_proves_it() -> None:
    text = RESULTS.read_text(encoding="utf-8")
    sites = all_sites()
    assert problems_of(sites, inventory(text), text, expected_digests(sites)) == []


def without_stale_claims(text: str, digests: dict[str, str]) -> str:
    """Return RESULTS.md's ``text`` with every GPU-run claim whose code changed since turned into "not run yet"
    (the rest as it was): what ``python tests/test_cuda_inventory.py --mark-stale`` writes after a merge or an edit
    that changed code a GPU run tested. ``digests``: what each site's claim must record (``expected_digests``)."""
    head, rest = text.split(HEADING, 1)
    section, tail = (rest.split("\n## ", 1) + [""])[:2]
    lines = []
    for line in section.split("\n"):
        match = re.match(r"^(\|\s*`([^`]+)`\s*\|.*\|)\s*([^|]+?)\s*\|$", line)
        if match and match.group(2) in digests:
            parts = re.split(r";\s+(?=fake:|GPU run of|not run yet|everywhere)", match.group(3))
            kept = []
            for part in parts:
                claim = re.match(r"GPU run of (\d{4}-\d\d-\d\d) \(code `?([0-9a-f]{12})`?\)", part)
                if claim and claim.group(2) != digests[match.group(2)]:
                    part = f"not run yet: its code changed since the GPU run on {claim.group(1)}"
                if part not in kept:
                    kept.append(part)
            line = f"{match.group(1)} {'; '.join(kept)} |"
        lines.append(line)
    return head + HEADING + "\n".join(lines) + ("\n## " + tail if tail else "")


FAKE_RESULTS = f"""
## A GPU run (2026-11-23)

{HEADING}

| site | only on CUDA | what proves it |
|---|---|---|
| `m.py::f` | a branch | fake: tests/test_cuda_inventory.py::test_every_cuda_site_is_listed_with_what_proves_it |
| `m.py::g` | a branch | GPU run of 2026-11-23 (code `{digest("g = code()")}`) |

## Next section
"""


def test_the_check_catches_a_new_site_a_stale_row_a_missing_test_and_changed_code() -> None:
    rows = inventory(FAKE_RESULTS)
    assert problems_of({"m.py::f": "f", "m.py::g": "g = code()"}, rows, FAKE_RESULTS) == []
    problems = problems_of({"m.py::f": "f", "m.py::g": "g = new_code()", "m.py::h": "h"}, rows, FAKE_RESULTS)
    assert problems == ["m.py::h: names CUDA but has no row in RESULTS.md's inventory",
                        "m.py::g: its code changed since the GPU run of 2026-11-23: say 'not run yet' (or rerun it)"]
    assert problems_of({"m.py::f": "f"}, rows, FAKE_RESULTS) == [
        "m.py::g: a row for a site that no longer names CUDA (remove it)"]
    broken = FAKE_RESULTS.replace("test_every_cuda", "test_no_such").replace("(2026-11-23)", "(2026-11-22)")
    assert problems_of({"m.py::f": "f", "m.py::g": "g = code()"}, inventory(broken), broken) == [
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
        ('print(f"GPU: {torch.cuda.get_device_name()}")', False),  # names inside an f-string are its prose
        ("!nvidia-smi", False),
    ],
)
def test_what_counts_as_naming_cuda(code: str, names_cuda: bool) -> None:
    assert bool(cuda_lines(code)) is names_cuda


def test_tokens_and_digests_are_the_same_on_every_python() -> None:
    """An f-string is one STRING token, as on Python 3.11, also where 3.12's tokenizer splits it (PEP 701)."""
    code = 'x = f"a {y + f\'{z!r}\'} b"\nprint(f"""two\nlines {w}""")  # c\n%time x\n'
    assert tokens(code) == [
        (tokenize.NAME, "x", 1), (tokenize.OP, "=", 1), (tokenize.STRING, 'f"a {y + f\'{z!r}\'} b"', 1),
        (tokenize.NEWLINE, "\n", 1), (tokenize.NAME, "print", 2), (tokenize.OP, "(", 2),
        (tokenize.STRING, 'f"""two\nlines {w}"""', 2), (tokenize.OP, ")", 3), (tokenize.COMMENT, "# c", 3),
        (tokenize.NEWLINE, "\n", 3), (tokenize.COMMENT, "#%time x", 4), (tokenize.NL, "\n", 4),
        (tokenize.ENDMARKER, "", 5),
    ]


def test_a_notebooks_gpu_record_covers_every_code_cell_and_the_project_code_it_calls() -> None:
    """A notebook's digest changes with any of its code cells (a cell that names no CUDA included: later cells use
    its results) and any project function its cells call, directly or through other functions; not with prose,
    comments or project code it never calls."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import utils\nfrom lessons import memory\n%matplotlib inline"),
        nbformat.v4.new_markdown_cell("Prose."),
        nbformat.v4.new_code_cell("whole = 1.0  # computed without TF32"),
        nbformat.v4.new_code_cell('if utils.get_device().type == "cuda":\n    print(utils.time_it(lambda: whole))'),
        nbformat.v4.new_code_cell("with memory.gpu_budget(utils.get_device(), 1):\n    pass"),
    ]
    files = {"nb.ipynb": nbformat.writes(nb)}

    def read(path: str) -> str:
        return files[path] if path in files else read_checkout(path)

    def digest_with(path: str, old: str, new: str) -> str:
        text = read(path)
        assert text.count(old) == 1, old
        files[path] = text.replace(old, new)
        try:
            return notebook_digest("nb.ipynb", read)
        finally:
            files.pop(path) if path != "nb.ipynb" else files.update({path: text})

    base = notebook_digest("nb.ipynb", read)
    called = notebook_code("nb.ipynb", read)
    assert {"utils.get_device", "utils.time_it", "utils.time_runs", "utils.synchronize", "lessons.memory.gpu_budget",
            "utils.<import>", "lessons.memory.<import>"} <= set(called)
    assert "utils.amp_dtype" not in called and "cell 3" in called
    changed = [
        digest_with("nb.ipynb", "whole = 1.0", "whole = 2.0"),  # a cell without CUDA whose result a later one uses
        digest_with("utils.py", "    synchronize(device)\n    seconds = []", "    seconds = []"),  # two calls deep
        digest_with("lessons/memory.py", "torch.cuda.empty_cache()  #", "pass  #"),
    ]
    unchanged = [
        digest_with("nb.ipynb", "Prose.", "Other prose."),
        digest_with("nb.ipynb", "# computed without TF32", "# another comment"),
        digest_with("utils.py", "return getattr(torch, forced)", "return getattr(torch, forced.lower())"),
    ]
    assert all(d != base for d in changed) and len(set(changed)) == 3 and unchanged == [base] * 3


def test_stale_claims_are_marked_not_run_yet() -> None:
    changed = {"m.py::f": digest("f"), "m.py::g": digest("g = new_code()")}
    marked = without_stale_claims(FAKE_RESULTS, changed)
    assert problems_of({"m.py::f": "f", "m.py::g": "g = new_code()"}, inventory(marked), marked) == []
    assert inventory(marked)["m.py::g"] == "not run yet: its code changed since the GPU run on 2026-11-23"
    assert without_stale_claims(marked, changed) == marked  # idempotent
    assert without_stale_claims(FAKE_RESULTS, {"m.py::f": digest("f"), "m.py::g": digest("g = code()")}) == (
        FAKE_RESULTS)


if __name__ == "__main__":  # python tests/test_cuda_inventory.py --mark-stale: rewrite RESULTS.md's stale claims
    import sys

    if sys.argv[1:] != ["--mark-stale"]:
        sys.exit("usage: python tests/test_cuda_inventory.py --mark-stale")
    current = RESULTS.read_text(encoding="utf-8")
    RESULTS.write_text(without_stale_claims(current, expected_digests(all_sites())), encoding="utf-8")
