#!/usr/bin/env bash
# Create .venv (if missing) and install the pinned stack. Safe to run again; never downgrades numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python >= 3.10 is required")'
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
source tools/installer.sh  # defines `install`: uv where it can be had (several times faster for PyTorch), else pip
install .venv -r requirements.txt
# d2l 1.0.3 pins numpy==1.23.5 and friends, which break on Python >= 3.12: install it without its pins.
install .venv --no-deps -r requirements-nodeps.txt
# the kernel the notebooks name (tools/notebook_template.py KERNELSPEC): JupyterLab then opens them unmodified
.venv/bin/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
echo "setup done: $(.venv/bin/python -c 'import torch; print("torch", torch.__version__)')"
