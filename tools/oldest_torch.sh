#!/usr/bin/env bash
# Prove the notebooks run on the oldest PyTorch they support: build .venv-oldest with that torch and its
# torchvision (everything else as pinned in requirements.txt), then execute every notebook (the English edition)
# top to bottom in quick mode, twice in one kernel, as a student who presses "Run all" again does. Outputs are not
# compared (error texts and float details change between versions); any error in either run, and so any failing
# check cell, fails. Both runs compute in emulated TF32 (tests/tf32_emulation.py): every kernel, and every process a
# notebook starts, rounds float32 convolutions and matrix products as a GPU of compute capability 8.0 or newer does
# with the same flags, so that a check comparing a TF32 computation with a float32 one fails here as it would on an
# A100 or H100 (issue 37); `utils.tf32_in_effect` answers as there. It runs on one thread (THREADS=N picks another count), so that CI runs it beside the
# other-Python lane, a core each; on this machine's own instruction set, since tools/other_python.sh proves another
# CPU already (strictly, every output compared).
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
source tools/installer.sh  # uv where it can be had, else pip
install .venv-oldest -r "$requirements"
install .venv-oldest --no-deps -r requirements-nodeps.txt
.venv-oldest/bin/python -m ipykernel install --sys-prefix --name python3 >/dev/null
export OMP_NUM_THREADS="${THREADS:-1}" MKL_NUM_THREADS="${THREADS:-1}"
out=$(mktemp -d)
warm_bytecode .venv-oldest  # prints the versions; writes the bytecode every kernel needs (tools/installer.sh)
# The English edition (tools/other_python.sh runs the Chinese one, the same code token for token, under strict
# nbval). Its second run in the same kernel proves "Run all" twice for both editions: what a second run meets (files,
# caches, warnings torch gives once per process, state left in the kernel) is the same code's doing in either
# edition; only the words printed differ.
# Emulated TF32, switched on from outside: Python imports tests/tf32_site/sitecustomize.py at the start of every
# process, which installs the mode where NB_TF32=emulated. Checked first in a process of its own (a failing
# sitecustomize only prints a warning), then in the kernels through what notebook 10's setup prints.
export NB_TF32=emulated PYTHONPATH="$PWD/tests/tf32_site${PYTHONPATH:+:$PYTHONPATH}"
.venv-oldest/bin/python -c '
import sys, torch, utils
x = torch.full((1, 1, 3, 3), 1 + 2**-11 + 2**-20)  # rounds to 1 + 2**-10 in TF32
assert "tf32_emulation" in sys.modules and utils.tf32_in_effect(torch.device("cpu")), "emulated TF32 is not on"
assert torch.nn.functional.conv2d(x, torch.ones(1, 1, 3, 3)).item() == 9 * (1 + 2**-10), "emulated TF32 is not on"'
.venv-oldest/bin/python tools/run_notebooks.py --twice --out "$out" --no-timings
grep -q "float32 convolutions in TF32 here: True" "$out/10_gpu_memory.ipynb" ||
  { echo "emulated TF32 was not on in notebook 10's kernel" >&2; exit 1; }
rm -rf "$out"
echo "every notebook (English edition) ran twice in one kernel on torch $OLDEST_TORCH, with" \
     "$OMP_NUM_THREADS thread(s), in emulated TF32"
