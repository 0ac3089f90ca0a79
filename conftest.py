"""pytest configuration shared by the unit tests and the notebook runs (nbval)."""

import os

import utils

# Quick mode: notebooks shrink data and epochs and hide progress bars. Set before nbval starts kernels,
# which inherit this environment.
os.environ[utils.QUICK_ENV] = "1"

# The Chinese twins in notebooks/zh/ hold the English notebooks' code and outputs (tests/test_translate.py checks
# that statically); executing them again here would double the suite. tools/oldest_torch.sh runs them instead.
collect_ignore_glob = ["notebooks/zh/*"]
