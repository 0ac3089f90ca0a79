"""pytest configuration shared by the unit tests and the notebook runs (nbval)."""

import os

import utils

# Quick mode: notebooks shrink data and epochs and hide progress bars. Set before nbval starts kernels,
# which inherit this environment.
os.environ[utils.QUICK_ENV] = "1"
