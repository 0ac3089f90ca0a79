"""The website's sources (tools/teacher/build_site.py), without Sphinx: links that work on the site, the lesson table.
The built site itself is tested in a real browser by tools/ci/check_site.py (CONTRIBUTING.md's site-test command)."""

from __future__ import annotations

from tools.author import setup_cell
from tools.teacher import build_site

ROOT = build_site.ROOT


def test_links_to_pages_stay_pages_and_other_files_go_to_github() -> None:
    source = ROOT / "notebooks" / "06_cifar10_training.ipynb"
    pages = {
        (ROOT / "notebooks" / "05_save_load.ipynb").resolve(): "05_save_load.ipynb",
        (ROOT / "docs" / "TEACHING.md").resolve(): "teaching.md",
    }
    text = (
        "[05](05_save_load.ipynb) [page](../docs/TEACHING.md#before-the-class) [results](../benchmarks/RESULTS.md) "
        "[web](https://pytorch.org) [here](#setup) ![plot](plot.png)"
    )
    out = build_site.rewrite_links(text, source, pages, "main")
    assert "[05](05_save_load.ipynb)" in out and "[page](teaching.md#before-the-class)" in out
    assert f"[results](https://github.com/{setup_cell.REPO}/blob/main/benchmarks/RESULTS.md)" in out
    assert "[web](https://pytorch.org)" in out and "[here](#setup)" in out and "![plot](plot.png)" in out


def test_zh_links_resolve_from_their_own_folder() -> None:
    source = ROOT / "notebooks" / "zh" / "06_cifar10_training.ipynb"
    out = build_site.rewrite_links("[数据](../../data/README.md)", source, {}, "dev")
    assert out == f"[数据](https://github.com/{setup_cell.REPO}/blob/dev/data/README.md)"


def test_lesson_table_lists_every_lesson_with_its_link() -> None:
    table = build_site.lesson_table("en")
    for path in build_site.notebooks("en"):
        assert f"]({path.name})" in table
    assert table.splitlines()[0].startswith("| # | lesson |")


def test_axe_core_is_pinned_with_its_checksum() -> None:
    """tools/ci/check_site.sh installs axe-core with `npm ci` from site/package-lock.json: one version, verified."""
    import json

    package = json.loads((ROOT / "site" / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((ROOT / "site" / "package-lock.json").read_text(encoding="utf-8"))
    version = package["dependencies"]["axe-core"]
    assert version[0].isdigit(), f"axe-core {version!r} is a range, not one version"
    locked = lock["packages"]["node_modules/axe-core"]
    assert locked["version"] == version and locked["integrity"].startswith("sha512-")
    assert list(lock["packages"]) == ["", "node_modules/axe-core"]  # nothing else comes with it
