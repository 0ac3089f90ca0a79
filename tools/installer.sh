# Sourced by tools/setup.sh, tools/oldest_torch.sh and the website's scripts. `install VENV ARGS...` installs
# packages into the virtual environment VENV. It uses uv (installed into VENV first) where it can: uv downloads and
# unpacks wheels in parallel and reuses its cache, which matters for PyTorch's 3-5 GB of CUDA libraries (measured in
# benchmarks/RESULTS.md, "CI time"). Where uv cannot be installed, plain pip does the same job, more slowly.
install() {
  local venv=$1
  shift
  if [ -x "$venv/bin/uv" ] || "$venv/bin/python" -m pip install -q uv >/dev/null 2>&1; then
    "$venv/bin/uv" pip install -q --python "$venv/bin/python" "$@"
  else
    "$venv/bin/python" -m pip install -q "$@"
  fi
}

# `warm_bytecode VENV` imports what every lesson's kernel imports once, with Python's bytecode cache written even
# where PYTHONDONTWRITEBYTECODE is set (as in CI), and prints the versions of Python, torch and torchvision. Without
# .pyc files every kernel and subprocess would compile torch's sources again on import (20 s instead of 5 s for
# `import torch, torchvision` on a 2-core CPU). These imports write about 2,400 .pyc files in 26 CPU-seconds; uv's
# --compile-bytecode (pip's default) compiles all 13,500 .py files of the environment, most of which no lesson
# imports, in 65 CPU-seconds (benchmarks/RESULTS.md, "CI time"). What a lesson imports beyond these is cached on
# first import, or compiled by each process where PYTHONDONTWRITEBYTECODE is set.
warm_bytecode() {
  "$1/bin/python" -c '
import sys
sys.dont_write_bytecode = False
import torch, torchvision, torch.distributed, torch.multiprocessing, torch.utils.tensorboard
import matplotlib.pyplot, numpy, PIL.Image, tqdm.auto, nbformat, ipykernel.kernelapp
print("Python", sys.version.split()[0], "torch", torch.__version__, "torchvision", torchvision.__version__)'
}
