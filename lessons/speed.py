"""What the link between the host and a GPU can carry, as Linux reports it (notebook 09, honest GPU speed).

Lesson module (see ``lessons/__init__.py`` for where code lives): it needs nothing from ``utils``, and ``utils``
never imports it. Notebook 09 shows ``pcie_link_gbps`` in full. Its unit tests are in ``tests/test_speed.py``.
"""

from __future__ import annotations

from pathlib import Path

import torch


def pcie_link_gbps(gpu: torch.device, devices: Path = Path("/sys/bus/pci/devices")) -> float | None:
    """Return the GB/s per direction of the GPU's PCIe link at its maximum speed and width, or None where Linux does
    not report them (``devices``: the kernel's folder of PCI devices; another one in tests).

    The link's maximum is the lower of what the GPU and the port above it can do (``max_link_speed``,
    ``max_link_width``); the ``current_`` values are lower while the GPU idles, which saves power.
    """
    props = torch.cuda.get_device_properties(gpu)
    folder = (devices / f"{props.pci_domain_id:04x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0").resolve()
    ends = [end for end in (folder, folder.parent) if (end / "max_link_speed").is_file()]  # the GPU, its port
    try:
        gt_per_s = min(float((end / "max_link_speed").read_text().split()[0]) for end in ends)  # "32.0 GT/s PCIe"
        lanes = min(int((end / "max_link_width").read_text()) for end in ends)
    except (OSError, ValueError, IndexError):  # no such files (min of nothing), or a text such as "Unknown"
        return None
    encoding = 128 / 130 if gt_per_s >= 8 else 8 / 10  # PCIe 3.0 to 5.0, or 1.0 and 2.0
    return gt_per_s * lanes * encoding / 8
