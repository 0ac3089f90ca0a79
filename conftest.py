"""pytest configuration shared by the unit tests and the notebook runs (nbval)."""

import os

import utils

# Quick mode: notebooks shrink data and epochs and hide progress bars. Set before nbval starts kernels,
# which inherit this environment.
os.environ[utils.QUICK_ENV] = "1"

# The Chinese twins in notebooks/zh/ hold the English notebooks' code and outputs (tests/test_translate.py checks
# that statically), with the printed words in Chinese. A plain `pytest` runs the English edition; executing the
# Chinese one here too would double the suite. The other-Python lane (tools/other_python.sh) runs every Chinese
# notebook under strict nbval instead, from notebooks/zh/ with its Chinese setup cell, on a second Python as another
# CPU: so every stored output is compared on two Pythons (in English here, in Chinese there), what a Chinese notebook
# prints must be the outputs copied from English, and a path printed must not depend on the working folder. Paths
# given on the command line are collected all the same: `pytest notebooks/zh/06_cifar10_training.ipynb`.
collect_ignore_glob = ["notebooks/zh/*.ipynb"]
