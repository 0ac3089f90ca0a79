"""What the other-end lane (tools/ci/other_python.sh) asks of nbval beyond strict comparison, switched on by variables.

``NB_SECOND_RUN=tf32`` (or ``plain``): after a notebook's last cell, every code cell runs again in the same kernel,
as a student who presses "Run all" a second time runs it. An error in the second run fails it; its outputs are not
compared (the first run's are). With ``tf32`` a cell made here runs between the two runs: it switches emulated TF32
on in the kernel (``tests/tf32_emulation.py``, as ``tests/switch_site/sitecustomize.py`` installs it) and sets
``NB_TF32=emulated`` for the processes the notebook starts from then on (notebook 08's DDP workers, which install
it at start when ``tests/switch_site`` is on ``PYTHONPATH``), then checks that a convolution rounds as a GPU of compute
capability 8.0 or newer rounds it. So the second run computes as an A100 or H100 does, and a check comparing a TF32
result with a float32 one fails there as it would on those GPUs (issue 37).

``NB_MASK_LIBRARY_MESSAGES=1``: the message of an error shown on purpose (``utils.expect_error`` prints
``utils.EXPECTED_ERROR``, then ``Type: message``) is masked before comparison, since PyTorch words its own errors
differently from version to version (torch 2.8 against the pinned one: 6 cells of 4 notebooks). The error's type is
still compared, and every other output; the main test suite compares the messages with the pinned PyTorch.

``install()`` patches nbval's notebook collector; ``conftest.py`` calls it. Without the variables nothing changes.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import nbval.plugin

import utils

SECOND_RUN_ENV = "NB_SECOND_RUN"
"""``tf32``: run every notebook a second time in the same kernel, in emulated TF32; ``plain``: without it."""
MASK_ENV = "NB_MASK_LIBRARY_MESSAGES"
"""A true value masks the messages of errors shown on purpose before nbval compares outputs."""

SITECUSTOMIZE = Path(__file__).resolve().parent / "switch_site" / "sitecustomize.py"
TF32_SWITCH = f"""\
import os, runpy
import torch
os.environ["NB_TF32"] = "emulated"  # the processes started from now on inherit it (tests/switch_site)
runpy.run_path({str(SITECUSTOMIZE)!r})  # installs tests/tf32_emulation.py's mode in this kernel
x, w = torch.full((1, 1, 3, 3), 1 + 2**-11 + 2**-20), torch.ones(1, 1, 3, 3)
with torch.backends.cudnn.flags(enabled=True, allow_tf32=True):
    import utils
    rounded = torch.nn.functional.conv2d(x, w).item() == 9 * (1 + 2**-10)  # 1 + 2**-11 + 2**-20 in TF32: 1 + 2**-10
    assert rounded and utils.tf32_in_effect(torch.device("cpu")), "emulated TF32 is not on"
print("emulated TF32 on for the second run")
"""
"""The cell that runs between the two runs with ``NB_SECOND_RUN=tf32``."""

_EXPECTED = "|".join(re.escape(text) for text in utils.EXPECTED_ERROR.values())
LIBRARY_MESSAGE = (
    rf"(?s)((?:{_EXPECTED})\n[A-Za-z_]\w*): .*?(?=\n(?:{_EXPECTED})\n|\n?\Z)",
    r"\1: (the library's message)",
)
"""nbval's sanitizing rule (regex, replacement) for ``NB_MASK_LIBRARY_MESSAGES``: from the error's type to the next
error shown on purpose or the end of the cell's text."""


class SecondRunCell(nbval.plugin.IPyNbCell):
    """A code cell of the second run (or the TF32 switch before it): run in the notebook's kernel, not compared."""

    def reportinfo(self) -> tuple[Any, int, str]:
        path, line, description = super().reportinfo()
        if self.cell_num < 0:
            return path, line, description.replace(f"Cell {self.cell_num}", "switch to emulated TF32")
        return path, line, f"{description} (second run)"


def second_run(parent: nbval.plugin.IPyNbFile, first: list[nbval.plugin.IPyNbCell], mode: str) -> Iterator[Any]:
    """The items that follow a notebook's cells for ``NB_SECOND_RUN=mode``: the TF32 switch (``tf32``), then each
    cell again with its outputs not compared."""
    if mode not in ("tf32", "plain"):
        raise ValueError(f"{SECOND_RUN_ENV}={mode!r}: use 'tf32' or 'plain'")
    if mode == "tf32":
        switch = nbformat.v4.new_code_cell(TF32_SWITCH)
        yield SecondRunCell.from_parent(parent, name="switch to emulated TF32", cell_num=-1, cell=switch,
                                        options=defaultdict(bool))
    for item in first:
        options = defaultdict(bool, item.options)
        options["check"] = False
        yield SecondRunCell.from_parent(parent, name=f"{item.name} (second run)", cell_num=item.cell_num,
                                        cell=item.cell, options=options)


def install() -> None:
    """Patch nbval's collector for the variables set now (``SECOND_RUN_ENV``, ``MASK_ENV``); a no-op without them."""
    mode = os.environ.get(SECOND_RUN_ENV, "").strip().lower()
    mask = utils.env_flag(MASK_ENV)
    if not mode and not mask:
        return
    collect = nbval.plugin.IPyNbFile.collect
    setup_sanitize_files = nbval.plugin.IPyNbFile.setup_sanitize_files

    def collect_twice(self: nbval.plugin.IPyNbFile) -> Iterator[Any]:
        first = list(collect(self))
        yield from first
        yield from second_run(self, first, mode)

    def sanitize_library_messages(self: nbval.plugin.IPyNbFile) -> None:
        setup_sanitize_files(self)
        self.sanitize_patterns[LIBRARY_MESSAGE[0]] = LIBRARY_MESSAGE[1]

    if mode:
        nbval.plugin.IPyNbFile.collect = collect_twice
    if mask:
        nbval.plugin.IPyNbFile.setup_sanitize_files = sanitize_library_messages
