#!/usr/bin/env bash
# Prove the notebooks run on the oldest PyTorch they support: build .venv-oldest with that torch and its
# torchvision (everything else as pinned in requirements.txt), then execute every notebook top to bottom in
# quick mode. Outputs are not compared (error texts and float details change between versions); any error fails.
# Safe to run again. Usage: bash tools/oldest_torch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OLDEST_TORCH="2.8.0"        # the oldest supported PyTorch (older than the one Colab ships)
OLDEST_TORCHVISION="0.23.0" # the torchvision built for it
PYTHON="${PYTHON:-python3}"
[ -x .venv-oldest/bin/python ] || "$PYTHON" -m venv .venv-oldest
requirements=$(mktemp)
trap 'rm -f "$requirements"' EXIT
grep -Ev '^torch(vision)?==' requirements.txt >"$requirements"
printf 'torch==%s\ntorchvision==%s\n' "$OLDEST_TORCH" "$OLDEST_TORCHVISION" >>"$requirements"
.venv-oldest/bin/python -m pip install -q --upgrade pip
.venv-oldest/bin/python -m pip install -q -r "$requirements"
.venv-oldest/bin/python -m pip install -q --no-deps -r requirements-nodeps.txt
.venv-oldest/bin/python -m ipykernel install --sys-prefix --name python3 >/dev/null
out=$(mktemp -d)
.venv-oldest/bin/python -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__)'
.venv-oldest/bin/python tools/run_notebooks.py --out "$out" --no-timings
rm -rf "$out"
echo "every notebook ran on torch $OLDEST_TORCH"
