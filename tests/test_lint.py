"""The code (utils.py, tests, tools, benchmarks and the notebooks' code cells) passes ruff."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_check() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    assert Path(ruff).exists(), "ruff is pinned in requirements.txt: run `bash tools/setup.sh`"
    result = subprocess.run([ruff, "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
