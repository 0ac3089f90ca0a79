"""The setup cell every notebook starts with: it finds the project, downloads it when a notebook is opened on its
own (Colab, Kaggle), and when that fails it stops with a message that says what failed and how to fix it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools import notebook_template as template

ROOT = Path(__file__).resolve().parents[1]
REPO_URL = f"https://github.com/{template.REPO}"


def run_setup_cell(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the setup cell as a plain Python program in ``cwd`` (it uses no IPython magics)."""
    return subprocess.run(
        [sys.executable, "-c", template.SETUP_CELL], cwd=cwd, env={**os.environ, **env},
        capture_output=True, text=True, timeout=300,
    )


def git_redirect(target: str) -> dict[str, str]:
    """Environment that makes git fetch ``REPO_URL`` from ``target`` instead (no network in tests)."""
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"url.{target}.insteadOf", "GIT_CONFIG_VALUE_0": REPO_URL}


def test_inside_the_project_it_only_finds_utils() -> None:
    done = run_setup_cell(ROOT / "notebooks")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # nothing to say in JupyterLab or under the tests


def test_a_failed_download_says_what_failed_and_the_fix(tmp_path: Path) -> None:
    done = run_setup_cell(tmp_path, **git_redirect(str(tmp_path / "no-such-repository")))
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"RuntimeError: Could not download {REPO_URL} (")
    assert "Fix: turn on the runtime's internet access" in last and "run this cell again" in last
    assert "StopIteration" not in done.stderr


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the project as a git repository to clone from")
def test_opened_alone_it_downloads_the_project_once(tmp_path: Path) -> None:
    env = git_redirect(ROOT.as_uri())
    first = run_setup_cell(tmp_path, **env)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / template.REPO.split("/")[1] / "utils.py").is_file()
    again = run_setup_cell(tmp_path, **git_redirect(str(tmp_path / "offline")))  # already there: no download
    assert again.returncode == 0, again.stderr


def test_on_colab_without_a_gpu_it_says_how_to_get_one(tmp_path: Path) -> None:
    done = run_setup_cell(ROOT / "notebooks", COLAB_RELEASE_TAG="test", CUDA_VISIBLE_DEVICES="")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Runtime -> Change runtime type -> GPU") == 1
