"""Unit tests for lessons/speed.py (notebook 09): the PCIe link read from a fake sysfs tree, on a GPU faked at
torch's C layer and passed as the notebook passes it (``utils.get_device()``, no index)."""

from __future__ import annotations

import re
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


RUNG_KEYS = {"name", "batch", "device", "vs", "change"}


@pytest.mark.parametrize(
    ("capability", "names"),
    [
        ((9, 0), ["float32 + cudnn.benchmark", "float32 + compile", "bfloat16 + c_last + compile",
                  "float32, batch 64, CPU"]),  # an H100
        ((7, 5), ["float32 + cudnn.benchmark", "float32 + compile", "float16 + c_last + compile",
                  "float32, batch 64, CPU", "float16 + GradScaler"]),
    ],
    ids=["bfloat16-gpu", "t4"],
)
def test_gpu_rungs_on_cuda_gpus_as_the_notebook_asks(
    capability: tuple[int, int], names: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    FakeGpu(monkeypatch, capability=capability)
    monkeypatch.delenv(utils.AMP_DTYPE_ENV, raising=False)
    device = utils.get_device()  # what notebook 09 passes: torch.device("cuda"), no index
    rungs = speed.gpu_rungs(device, 512, utils.amp_dtype(device))
    assert [rung["name"] for rung in rungs] == names
    assert all(RUNG_KEYS <= set(rung) for rung in rungs)
    compiled = [rung for rung in rungs if rung.get("compile")]
    assert [rung["vs"] for rung in compiled] == [1, 1] and all(r["batch"] == 512 and r["device"] == device
                                                               for r in compiled)  # against rung 2, same batch
    benchmark = [rung for rung in rungs if rung.get("benchmark")]
    assert [(r["vs"], r["batch"], r["device"]) for r in benchmark] == [(1, 512, device)]  # one flag, vs rung 2
    cpu = next(rung for rung in rungs if rung["change"] == "device")
    assert cpu["device"] == torch.device("cpu") and cpu["batch"] == 64 and cpu["vs"] == 0  # rung 1, on the CPU
    scaler = [rung for rung in rungs if rung.get("scaler")]
    assert [rung["vs"] for rung in scaler] == ([2] if capability < (8, 0) else [])  # against float16 without one


@pytest.mark.parametrize(("capability", "triton"), [((6, 1), True), ((9, 0), False)], ids=["gtx-1080", "no-triton"])
def test_no_compiled_rungs_where_torch_compile_cannot_compile(
    capability: tuple[int, int], triton: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below compute capability 7.0 inductor raises GPUTooOldForTriton, and without Triton (PyTorch's usual Windows
    builds) TritonMissing: the ladder then has no compiled rungs (the GPU faked at torch's C layer, Triton's
    presence answered as it would be there)."""
    import torch.utils._triton

    FakeGpu(monkeypatch, capability=capability)
    monkeypatch.setattr(torch.utils._triton, "has_triton_package", lambda: triton)
    device = utils.get_device()
    assert not speed.can_compile(device)
    names = [rung["name"] for rung in speed.gpu_rungs(device, 512, torch.float16)]
    assert names == ["float32 + cudnn.benchmark", "float32, batch 64, CPU", "float16 + GradScaler"]
    monkeypatch.setattr(torch.utils._triton, "has_triton_package", lambda: True)
    FakeGpu(monkeypatch, capability=(7, 5))
    assert speed.can_compile(device) and not speed.can_compile(torch.device("cpu"))


def test_gpu_rungs_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(utils.AMP_DTYPE_ENV, raising=False)
    assert speed.gpu_rungs(torch.device("cpu"), 128, torch.bfloat16) == []  # the CPU adds nothing
    mac = speed.gpu_rungs(torch.device("mps"), 128, utils.amp_dtype(torch.device("mps")))  # float16, no compile
    assert [rung["name"] for rung in mac] == ["float32, batch 64, CPU", "float16 + GradScaler"]  # no cuDNN flag
    assert not any(rung.get("benchmark") for rung in mac)


def test_ladder_table_compares_each_rung_with_the_one_it_changes() -> None:
    rungs = [
        {"name": "float32, batch 64", "vs": None, "change": "", "images/s": 1000.0, "spread": 1.1},
        {"name": "float32, batch 512", "vs": 0, "change": "batch", "images/s": 8000.0, "spread": 1.25},
        {"name": "bfloat16 autocast", "vs": 1, "change": "precision", "images/s": 6000.0, "spread": 1.0},
    ]
    lines = speed.ladder_table(rungs, flop_per_image=2e6).splitlines()
    assert lines[0].split() == ["rung", "images/s", "spread", "compared", "with", "speed-up", "TFLOP/s"]
    assert lines[1].split() == ["1", "float32,", "batch", "64", "1,000", "1.10x", "-", "0.002"]
    assert "rung 1: batch" in lines[2] and lines[2].split()[-2:] == ["8.00x", "0.016"]
    assert "rung 2: precision" in lines[3] and lines[3].split()[-2:] == ["0.75x", "0.012"]


def test_ladder_table_speaks_the_editions_language_and_says_what_quick_mode_is() -> None:
    rungs = [{"name": "float32, batch 64", "vs": None, "change": "", "images/s": 1000.0, "spread": 1.1}]
    english = speed.ladder_table(rungs, 2e6, "en", quick=True).splitlines()
    assert english[0].startswith("Quick mode:") and "noise" in english[0] and english[1].split()[0] == "rung"
    chinese = speed.ladder_table(rungs, 2e6, "zh", quick=True).splitlines()
    assert chinese[0].startswith("快速模式") and chinese[1].split()[:3] == ["级", "张/秒", "波动"]
    assert re.search(r"[a-z]{2,}", chinese[0]) is None  # no English word in the Chinese note (H100 is a name)
    assert chinese[2].split()[-4:] == english[2].split()[-4:]  # the rows: the same numbers
    assert chinese[2].startswith("1 float32，批量64 ")  # the rung's name in Chinese
    assert speed.ladder_table(rungs, 2e6, "zh").splitlines()[1:] == chinese[2:]  # no note outside quick mode


def test_the_chinese_ladder_names_its_rungs_and_changes_in_chinese_in_aligned_columns() -> None:
    rungs = [
        {"name": "float32, batch 64", "vs": None, "change": "", "images/s": 1000.0, "spread": 1.1},
        {"name": "float32 + .item() per step", "vs": 0, "change": "a wait per step", "images/s": 900.0,
         "spread": 1.0},
        {"name": "bfloat16 + c_last + compile", "vs": 0, "change": "all three", "images/s": 2000.0, "spread": 1.0},
    ]
    english, chinese = (speed.ladder_table(rungs, 2e6, lang).splitlines() for lang in ("en", "zh"))
    assert "rung 1: a wait per step" in english[2] and "第1级：每步等待一次" in chinese[2]
    assert "float32 + 每步读一次损失" in chinese[2] and "bfloat16 + c_last + 编译" in chinese[3]
    assert re.search(r"\b[a-z]{4,}\b", chinese[2]) is None  # no English word in a row
    assert len({utils.text_width(line) for line in english}) == 1  # every column where the heading puts it
    assert [utils.text_width(line) for line in chinese] == [utils.text_width(line) for line in english]
    for rung in rungs[1:]:  # every change of the notebook's and gpu_rungs' has its Chinese
        assert speed.in_language(rung["change"], "zh") != rung["change"]
    assert all(change in speed.ZH_CHANGES for change in ("batch", "precision", "layout", "scaler", "device",
                                                         "compile", "cudnn.benchmark"))
    assert speed.in_language("float32, batch 64", "en") == "float32, batch 64"


def test_draw_ladder_draws_one_bar_per_comparison_from_the_rungs() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rungs = [
        {"name": "float32, batch 64", "vs": None, "change": "", "images/s": 1000.0},
        {"name": "float32, batch 512", "vs": 0, "change": "batch", "images/s": 8000.0},
        {"name": "bfloat16 autocast", "vs": 1, "change": "precision", "images/s": 6000.0},
    ]
    fig, ax = plt.subplots()
    bars = speed.draw_ladder(ax, rungs, "#0072B2")
    assert bars == [("float32, batch 512 (batch)", 8.0), ("bfloat16 autocast (precision)", 0.75)]
    drawn = sorted((patch.get_y(), patch.get_width()) for patch in ax.patches)
    assert [width for _, width in drawn] == [0.75, 8.0]  # the first comparison on top: bars drawn bottom up
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["bfloat16 autocast (precision)", "float32, batch 512 (batch)"]
    assert all(patch.get_hatch() == "//" for patch in ax.patches)  # not by colour alone
    assert [line.get_xdata()[0] for line in ax.lines] == [1]  # the line of no change
    plt.close(fig)


def test_draw_ladder_labels_its_bars_in_the_editions_language() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rungs = [{"name": "float32, batch 64", "vs": None, "change": "", "images/s": 1000.0},
             {"name": "float32, batch 512", "vs": 0, "change": "batch", "images/s": 8000.0}]
    fig, ax = plt.subplots()
    assert speed.draw_ladder(ax, rungs, "#0072B2", "zh") == [("float32，批量512（批量）", 8.0)]
    plt.close(fig)


def test_rung_model_starts_every_rung_from_the_same_weights_in_its_layout() -> None:
    cpu = torch.device("cpu")
    plain, forward = speed.rung_model({"device": cpu})
    assert forward is plain  # not compiled
    torch.manual_seed(123)  # whatever the generator's state, the same initial weights
    last, _ = speed.rung_model({"device": cpu, "channels_last": True})
    assert all(torch.equal(a, b) for a, b in zip(plain.state_dict().values(), last.state_dict().values(),
                                                 strict=True))
    weight = last[0].weight
    assert weight.is_contiguous(memory_format=torch.channels_last) and not weight.is_contiguous()
    assert speed.memory_format({}) == torch.contiguous_format
    assert speed.memory_format({"channels_last": True}) == torch.channels_last
