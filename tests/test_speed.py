"""Unit tests for lessons/speed.py (notebook 09): the PCIe link read from a fake sysfs tree, on a GPU faked at
torch's C layer and passed as the notebook passes it (``utils.get_device()``, no index)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from fake_cuda import FakeGpu

import utils
from lessons import speed

GPU_ADDRESS = "0000:1b:00.0"


def pci_tree(root: Path, gpu: dict[str, str], port: dict[str, str] | None) -> Path:
    """Write a sysfs-like tree under ``root``: the GPU's folder below its port's (as /sys/devices has them), and
    ``bus/pci/devices/<address>`` linking to it (as /sys/bus/pci/devices does); return that ``devices`` folder."""
    port_folder = root / "devices" / "pci0000:00" / "0000:00:01.0"
    gpu_folder = port_folder / GPU_ADDRESS
    gpu_folder.mkdir(parents=True)
    for folder, files in ((gpu_folder, gpu), (port_folder, port or {})):
        for name, text in files.items():
            (folder / name).write_text(text + "\n")
    devices = root / "bus" / "pci" / "devices"
    devices.mkdir(parents=True)
    (devices / GPU_ADDRESS).symlink_to(gpu_folder)
    return devices


GEN5_X16 = {"max_link_speed": "32.0 GT/s PCIe", "max_link_width": "16"}
IDLE = {"current_link_speed": "2.5 GT/s PCIe", "current_link_width": "16"}  # what an idle GPU reports


@pytest.mark.parametrize(
    ("gpu", "port", "expected"),
    [
        ({**GEN5_X16, **IDLE}, GEN5_X16, 32 * 16 * 128 / 130 / 8),  # 63.0 GB/s, however idle the GPU is
        ({**GEN5_X16, **IDLE}, None, 32 * 16 * 128 / 130 / 8),  # a port that reports nothing: the GPU's own
        (GEN5_X16, {"max_link_speed": "16.0 GT/s PCIe", "max_link_width": "16"}, 16 * 16 * 128 / 130 / 8),  # Gen4 slot
        (GEN5_X16, {"max_link_speed": "32.0 GT/s PCIe", "max_link_width": "8"}, 32 * 8 * 128 / 130 / 8),  # 8 lanes
        ({"max_link_speed": "5.0 GT/s PCIe", "max_link_width": "16"}, None, 5 * 16 * 8 / 10 / 8),  # PCIe 2.0
    ],
    ids=["gen5-idle", "no-port", "gen4-slot", "x8-slot", "gen2"],
)
def test_pcie_link_gbps_reports_the_links_maximum(
    gpu: dict[str, str], port: dict[str, str] | None, expected: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    FakeGpu(monkeypatch, pci=(0, 0x1B, 0))
    devices = pci_tree(tmp_path, gpu, port)
    assert speed.pcie_link_gbps(utils.get_device(), devices) == pytest.approx(expected)


@pytest.mark.parametrize(
    "gpu",
    [{}, IDLE, {"max_link_speed": "Unknown", "max_link_width": "16"}, {"max_link_speed": "32.0 GT/s PCIe"}],
    ids=["nothing", "current-only", "unknown", "no-width"],
)
def test_pcie_link_gbps_is_none_where_linux_does_not_say(
    gpu: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    FakeGpu(monkeypatch, pci=(0, 0x1B, 0))
    assert speed.pcie_link_gbps(utils.get_device(), pci_tree(tmp_path, gpu, None)) is None
    assert speed.pcie_link_gbps(utils.get_device(), tmp_path / "no-such-folder") is None  # macOS, Windows, a container


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_pcie_link_gbps_on_a_real_gpu() -> None:
    link = speed.pcie_link_gbps(utils.get_device())
    assert link is None or 0.25 <= link <= 256  # PCIe 1.0 x1 to 6.0 x16, or not readable (a container)
