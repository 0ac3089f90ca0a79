"""tools/setup.sh switches JupyterLab's news pop-up off for the project's environment: a settings override that
JupyterLab of the installed version accepts. (tools/ci/check_lab.py proves it in a browser.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "tools" / "setup.sh"
PLUGIN = "@jupyterlab/apputils-extension:notification"


def test_setup_writes_an_override_that_jupyterlab_accepts(tmp_path: Path) -> None:
    lines = SETUP.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('mkdir -p "$VENV/share/jupyter/lab/settings'))
    script = "\n".join(lines[start : start + 3])  # the lines that write it (mkdir, echo ... \ > file), run alone
    subprocess.run(["bash", "-c", f"set -euo pipefail\n{script}"], env={"VENV": str(tmp_path)}, check=True)
    (override,) = (tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.d").glob("*.json")
    settings = json.loads(override.read_text(encoding="utf-8"))
    assert settings == {PLUGIN: {"fetchNews": "false", "checkForUpdates": False}}
    schema = json.loads((Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas" / "@jupyterlab" /
                         "apputils-extension" / "notification.json").read_text(encoding="utf-8"))
    assert {"const": "false", "title": "Never"} in schema["properties"]["fetchNews"]["oneOf"]
    assert schema["properties"]["checkForUpdates"]["type"] == "boolean"


def test_jupyterlab_reads_the_override_from_the_environment(tmp_path: Path) -> None:
    """jupyterlab_server's own reader finds it where setup.sh puts it: ``{sys.prefix}/share/jupyter/lab/settings``
    is JupyterLab's app settings folder for a JupyterLab installed in that environment."""
    from jupyterlab_server.settings_utils import _get_overrides

    folder = tmp_path / "settings"
    (folder / "overrides.d").mkdir(parents=True)
    line = next(line for line in SETUP.read_text(encoding="utf-8").splitlines() if line.startswith("echo '{"))
    (folder / "overrides.d" / "project.json").write_text(re.search(r"'(.*)'", line).group(1), encoding="utf-8")
    overrides, error = _get_overrides(str(folder))
    assert not error and overrides[PLUGIN]["fetchNews"] == "false"
    from jupyterlab.commands import get_app_dir

    assert Path(get_app_dir()).resolve() == (Path(sys.prefix) / "share" / "jupyter" / "lab").resolve()
