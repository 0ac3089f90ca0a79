"""pytest configuration shared by the unit tests and the notebook runs (nbval)."""

import os

import nbval.kernel

import utils
from tests import nbval_lanes
from tools.author.kernels import IPCKernelManager

# nbval's kernels talk over Unix sockets, not TCP ports that another process can take between jupyter_client's
# choosing them and the kernel's binding them (tools/author/kernels.py).
nbval.kernel.KernelManager = IPCKernelManager

# The other-end lane's requests (tools/ci/other_python.sh): each notebook run a second time in the same kernel, in
# emulated TF32 (NB_SECOND_RUN), and the messages of errors shown on purpose masked (NB_MASK_LIBRARY_MESSAGES), on the
# oldest PyTorch. Nothing changes without those variables (tests/nbval_lanes.py).
nbval_lanes.install()

# Quick mode: notebooks shrink data and epochs and hide progress bars. Set before nbval starts kernels,
# which inherit this environment.
os.environ[utils.QUICK_ENV] = "1"

# The Chinese twins in notebooks/zh/ hold the English notebooks' code and outputs (tests/test_translate.py checks
# that statically), with the printed words in Chinese. A plain `pytest` runs the English edition; executing the
# Chinese one here too would double the suite. The other-end lane (tools/ci/other_python.sh) runs every Chinese
# notebook under strict nbval instead, from notebooks/zh/ with its Chinese setup cell, on a second Python and the oldest
# PyTorch as another CPU: so every stored output is compared at both ends of the supported range (in English here, in
# Chinese there), what a Chinese notebook
# prints must be the outputs copied from English, and a path printed must not depend on the working folder. Paths
# given on the command line are collected all the same: `pytest notebooks/zh/06_cifar10_training.ipynb`.
collect_ignore_glob = ["notebooks/zh/*.ipynb"]
