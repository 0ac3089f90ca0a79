"""A T4's memory, TF32 and bfloat16 from the first line of every Python process, while ``NB_GPU_LIKE=t4``.

Python's ``site`` module imports ``sitecustomize`` at start-up from the first folder on ``sys.path`` that has one.
``tools/gpu_check.sh``'s ``t4`` part puts this folder first on ``PYTHONPATH`` and sets ``NB_GPU_LIKE=t4``, so that
every notebook's kernel, and every process a notebook starts (notebook 08's DDP workers, DataLoader workers that
are spawned), calls ``tests/t4_like.py``'s ``install`` before running any of its own code. Without the variable this
does nothing (and imports nothing).
"""

import os

if os.environ.get("NB_GPU_LIKE", "").strip().lower() == "t4":
    import importlib.util
    import sys
    from pathlib import Path

    _path = Path(__file__).resolve().parents[1] / "t4_like.py"
    _spec = importlib.util.spec_from_file_location("t4_like", _path)
    _module = sys.modules["t4_like"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
    _module.install()
