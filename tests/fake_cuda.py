"""One CUDA GPU faked at torch's C layer, for the tests of CUDA-only code on machines without a GPU.

Only what torch's C extension provides is replaced: the ``torch._C._cuda_*`` functions, the two that torch binds from
it under other names (``torch.cuda._get_device_properties``, which ``torch._C._cuda_init`` defines, and
``torch.cuda._exchange_device`` / ``_maybe_exchange_device``, aliases taken at import), the compile-time accelerator
(``torch._C._accelerator_getAccelerator``, ``cuda`` in a CUDA build) and the lazy initialisation, marked done
(``torch.cuda._initialized``) instead of run. Everything torch.cuda does in Python runs for real: argument checks,
turning an index-less ``torch.device("cuda")`` into the current device's index, the statistics' key names, the caps'
range checks. So a test that passes ``utils.get_device()``'s device, as the notebooks do, meets torch's own checks.

The fake checks its arguments as the C functions do (a device index must be an ``int`` in range, a fraction a float
in [0, 1]) and records every call in ``calls``. Tensors cannot be put on it: code that moves tensors to CUDA is not
testable this way, and the CUDA-branch inventory (``tests/test_cuda_inventory.py``) says so where it matters.
"""

from __future__ import annotations

import types
from typing import Any

import pytest
import torch

GIB = 2**30


class FakeGpu:
    """One GPU (index 0) behind torch's C layer, installed with ``monkeypatch`` (undone after the test).

    ``reserved``, ``allocated``, ``peak`` and ``num_ooms`` are the caching allocator's statistics as
    ``torch._C._cuda_memoryStats`` reports them; a test sets them to play what a step would have done.
    """

    def __init__(
        self,
        monkeypatch: pytest.MonkeyPatch,
        *,
        name: str = "Fake GPU",
        total_memory: int = 80 * GIB,
        capability: tuple[int, int] = (9, 0),
        pci: tuple[int, int, int] = (0, 0x1B, 0),
    ) -> None:
        self.properties = types.SimpleNamespace(
            name=name, total_memory=total_memory, major=capability[0], minor=capability[1],
            pci_domain_id=pci[0], pci_bus_id=pci[1], pci_device_id=pci[2],
        )
        self.reserved = self.allocated = self.peak = self.num_ooms = 0
        self.fraction: float | None = None  # None: no cap set (the allocator's default)
        self.calls: list[tuple[Any, ...]] = []
        self.current = 0
        c, cuda = torch._C, torch.cuda
        patch = monkeypatch.setattr
        patch(c, "_accelerator_getAccelerator", lambda: torch.device("cuda"), raising=False)
        patch(c, "_cuda_getDeviceCount", lambda: 1, raising=False)
        patch(cuda, "_initialized", True)  # the lazy init has run: _lazy_init() returns at once
        patch(cuda, "_cached_device_count", None)  # device_count() caches its answer: forget it after the test
        patch(c, "_cuda_getDevice", lambda: self.current, raising=False)
        patch(cuda, "_get_device_properties", self._get_properties, raising=False)
        patch(cuda, "_exchange_device", self._exchange_device)
        patch(cuda, "_maybe_exchange_device", self._exchange_device)
        patch(c, "_cuda_synchronize", lambda: self.calls.append(("synchronize", self.current)), raising=False)
        patch(c, "_cuda_emptyCache", lambda: self.calls.append(("emptyCache",)), raising=False)
        patch(c, "_cuda_memoryStats", self._memory_stats, raising=False)
        patch(c, "_cuda_resetPeakMemoryStats", self._reset_peak, raising=False)
        patch(c, "_cuda_setMemoryFraction", self._set_fraction, raising=False)
        patch(c, "_cuda_getMemoryFraction", self._get_fraction, raising=False)

    def _check_index(self, device: object) -> int:
        """The C functions take a device index: an int (bool excluded) of an existing device."""
        if not isinstance(device, int) or isinstance(device, bool):
            raise TypeError(f"expected a device index (int), got {type(device).__name__}: {device!r}")
        if device != 0:
            raise RuntimeError(f"Invalid device argument {device}: did you call init?")
        return device

    def _get_properties(self, device: int) -> types.SimpleNamespace:
        self._check_index(device)
        return self.properties

    def _exchange_device(self, device: int) -> int:
        if not isinstance(device, int):
            raise TypeError(f"expected a device index (int), got {device!r}")
        previous = self.current
        if device >= 0:
            self._check_index(device)
            self.current = device
        return previous if device >= 0 else -1

    def _memory_stats(self, device: int) -> dict[str, Any]:
        self._check_index(device)
        self.calls.append(("memoryStats", device))
        return {
            "allocated_bytes": {"all": {"current": self.allocated, "peak": self.peak}},
            "reserved_bytes": {"all": {"current": self.reserved, "peak": self.reserved}},
            "num_ooms": self.num_ooms,
        }

    def _reset_peak(self, device: int) -> None:
        self._check_index(device)
        self.calls.append(("resetPeakMemoryStats", device))
        self.peak = self.allocated

    def _set_fraction(self, fraction: float, device: int) -> None:
        self._check_index(device)
        if not isinstance(fraction, float) or not 0 <= fraction <= 1:
            raise RuntimeError(f"invalid fraction {fraction!r}: a float in [0, 1]")
        self.calls.append(("setMemoryFraction", fraction, device))
        self.fraction = fraction

    def _get_fraction(self, device: int) -> float:
        self._check_index(device)
        return 1.0 if self.fraction is None else self.fraction

    def called(self, name: str) -> list[tuple[Any, ...]]:
        """Return the recorded calls of the C function ``_cuda_<name>``, with their arguments."""
        return [call[1:] for call in self.calls if call[0] == name]
