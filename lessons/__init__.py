"""Code for one lesson topic each, imported by name: ``from lessons import cifar10``.

Where code lives in this project:

- used by two or more notebooks -> ``utils.py`` (small enough to read in one sitting);
- one topic, or needed by worker processes (DataLoader workers, process pools, ``mp.spawn``) or by benchmarks
  -> ``lessons/<topic>.py``, which imports ``utils`` and is never imported by it;
- the exercises' checks -> the package ``lessons/exercises/``, one module per lesson (its docstring says how to
  change an exercise);
- tests -> ``tests/test_<topic>.py``, one file per module.

Worker processes find these modules because they are imported by name from the repository root, which the
notebooks' setup cell, ``pyproject.toml`` (pytest) and the benchmarks put on ``sys.path``.
"""
