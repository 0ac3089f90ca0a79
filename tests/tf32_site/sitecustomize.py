"""Emulated TF32 from the first line of every Python process (a notebook's kernel, the workers it starts).

Python's ``site`` module imports ``sitecustomize`` at start-up from the first folder on ``sys.path`` that has one.
The other-end lane (``tools/other_python.sh``) puts this folder first on ``PYTHONPATH``; once a notebook's second run
has set ``NB_TF32=emulated`` (``tests/nbval_lanes.py``, which also runs this file in the kernel itself), every process
the notebook starts switches ``tests/tf32_emulation.py``'s mode on before running any of its own code. Without
``NB_TF32=emulated`` this does nothing (and imports nothing).
"""

import os

if os.environ.get("NB_TF32", "").strip().lower() == "emulated":
    import importlib.util
    import sys
    from pathlib import Path

    _path = Path(__file__).resolve().parents[1] / "tf32_emulation.py"
    _spec = importlib.util.spec_from_file_location("tf32_emulation", _path)
    _module = sys.modules["tf32_emulation"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
    _module.install()
