"""pytest configuration shared by the unit tests and the notebook runs (nbval)."""

import os

import utils

# Quick mode: notebooks shrink data and epochs and hide progress bars. Set before nbval starts kernels,
# which inherit this environment.
os.environ[utils.QUICK_ENV] = "1"

# The Chinese twins in notebooks/zh/ hold the English notebooks' code and outputs (tests/test_translate.py checks
# that statically); executing them all again here would double the suite. tools/oldest_torch.sh runs them instead
# (each twice in one kernel). Strict nbval runs two of them here, from notebooks/zh/ with the Chinese setup cell:
# 05 and 06 print paths (and 06 the TensorBoard command), which must not depend on the working folder, and what a
# Chinese notebook prints must be the outputs copied from English.
ZH_EXECUTED = ["05_save_load.ipynb", "06_cifar10_training.ipynb"]
collect_ignore_glob = [
    f"notebooks/zh/{path.name}"
    for path in sorted((utils.ROOT / "notebooks" / "zh").iterdir())
    if path.name not in ZH_EXECUTED
]
