#!/usr/bin/env bash
# Create .venv (if missing) and install the pinned stack. Safe to run again; never downgrades numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
# PYTHON=python3.13 picks the interpreter; VENV=.venv-py313 another environment (tools/other_python.sh uses both).
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
"$PYTHON" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] <= (3, 13) else
  f"Python 3.11, 3.12 or 3.13 is needed, this is {sys.version.split()[0]}: run with PYTHON=python3.12 (for example)")'
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
source tools/installer.sh  # defines `install`: uv where it can be had (several times faster for PyTorch), else pip
install "$VENV" -r requirements.txt
# d2l 1.0.3 pins numpy==1.23.5 and friends, which break on Python >= 3.12: install it without its pins.
install "$VENV" --no-deps -r requirements-nodeps.txt
# the kernel the notebooks name (tools/notebook_template.py KERNELSPEC): JupyterLab then opens them unmodified
"$VENV/bin/python" -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
# JupyterLab of this environment only: no pop-up asking "get notified about official Jupyter news?" over the lesson,
# no check for updates (a request to the internet); a settings override in the environment (overrides.d: a user's own
# settings still win). tools/check_lab.py opens a lesson with it.
mkdir -p "$VENV/share/jupyter/lab/settings/overrides.d"
echo '{"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}' \
  >"$VENV/share/jupyter/lab/settings/overrides.d/pytorch-gpu-notebooks.json"
echo "setup done: $(warm_bytecode "$VENV")"  # and the bytecode of what every lesson imports (tools/installer.sh)
