"""What every lesson's answers share: ``Answer`` and its two makers, and ``PRELUDE``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Answer:
    verdict: str
    """``"correct"`` or ``"wrong"``."""
    source: str
    """The answer cell's code."""
    note: str
    """The idiom, or the mistake."""
    hidden: str | None = None
    """The verdict on the hidden cases, where it differs from ``verdict``."""


Context = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
"""An exercise's ``context``: the keyword arguments its check cell passes, from the test's folders and the names
the notebook defines before it (the answer's namespace after its ``SETUP``)."""


def right(source: str, note: str, hidden: str | None = None) -> Answer:
    return Answer("correct", source.strip("\n"), note, hidden)


def wrong(source: str, note: str) -> Answer:
    return Answer("wrong", source.strip("\n"), note)


PRELUDE = """
import itertools
import math
import os
import pickle
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import utils
from lessons import cifar10, ddp, memory, petimages
from utils import time_runs

device = torch.device("cpu")
"""
"""What every answer may use: the imports the notebooks make (each notebook makes some of them)."""
