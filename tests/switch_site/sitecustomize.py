"""The test switches set from outside, from the first line of every Python process (a notebook's kernel, the
processes it starts).

Python's ``site`` module imports ``sitecustomize`` at start-up from the first folder on ``sys.path`` that has one.
A lane that puts this folder first on ``PYTHONPATH`` gets, in every process started while its variable is set:

- ``NB_TF32=emulated``: ``tests/tf32_emulation.py``'s mode (the other-end lane, ``tools/ci/other_python.sh``, sets the
  variable for each notebook's second run: ``tests/nbval_lanes.py``, which also runs this file in the kernel);
- ``NB_GPU_LIKE=t4``: ``tests/t4_like.py``'s T4-like GPU (``tools/ci/gpu_check.sh``'s ``t4`` part).

Each module is loaded from this folder's parent, under its own name, and its ``install()`` called. Without the
variables this does nothing (and imports nothing).
"""

import os

SWITCHES = {"NB_TF32": ("emulated", "tf32_emulation"), "NB_GPU_LIKE": ("t4", "t4_like")}
"""variable -> (the value that switches it on, the module of tests/ whose install() runs)"""

for _variable, (_value, _name) in SWITCHES.items():
    if os.environ.get(_variable, "").strip().lower() == _value:
        import importlib.util
        import sys
        from pathlib import Path

        _spec = importlib.util.spec_from_file_location(_name, Path(__file__).resolve().parents[1] / f"{_name}.py")
        _module = sys.modules[_name] = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(_module)
        _module.install()
