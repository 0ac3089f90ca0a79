"""Notebook 09 (honest GPU speed): what the link between the host and a GPU can carry, as Linux reports it; each
rung's model; the rungs of the ladder that a GPU adds; the ladder's table, in each edition's language.

Lesson module (see ``lessons/__init__.py`` for where code lives): ``utils`` never imports it. Notebook 09 shows
``pcie_link_gbps``, ``compiled_rungs`` and ``gpu_rungs`` in full, so their lines fit the notebooks' 88 characters
and a cell's 20 lines. Its unit tests are in ``tests/test_speed.py``.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import torch
from torch import nn

import utils
from lessons import cifar10


def pcie_link_gbps(gpu: torch.device,
                   devices: Path = Path("/sys/bus/pci/devices")) -> float | None:
    """Return the GB/s per direction of the GPU's PCIe link at its maximum, the lower of
    the GPU's and its port's (``max_link_speed``, ``max_link_width``, not the idle
    ``current_`` values), or None where Linux does not say (``devices``: for tests)."""
    props = torch.cuda.get_device_properties(gpu)
    folder = (devices / f"{props.pci_domain_id:04x}:{props.pci_bus_id:02x}:"
              f"{props.pci_device_id:02x}.0").resolve()
    ends = [end for end in (folder, folder.parent)  # the GPU, its port
            if (end / "max_link_speed").is_file()]
    try:  # a speed reads "32.0 GT/s PCIe"
        gt_per_s = min(float((end / "max_link_speed").read_text().split()[0])
                       for end in ends)
        lanes = min(int((end / "max_link_width").read_text()) for end in ends)
    except (OSError, ValueError, IndexError):  # no files (min of nothing), "Unknown"
        return None
    encoding = 128 / 130 if gt_per_s >= 8 else 8 / 10  # PCIe 3.0 to 5.0, or 1.0 and 2.0
    return gt_per_s * lanes * encoding / 8


def can_compile(device: torch.device) -> bool:
    """Return True where ``torch.compile`` can compile notebook 09's model: a CUDA GPU of compute capability 7.0 or
    newer, with Triton installed (inductor raises ``GPUTooOldForTriton`` below 7.0, and ``TritonMissing`` without
    Triton, as in PyTorch's usual Windows builds)."""
    from torch.utils._triton import has_triton_package

    return device.type == "cuda" and has_triton_package() and torch.cuda.get_device_capability(device) >= (7, 0)


def memory_format(rung: dict[str, Any]) -> torch.memory_format:
    """Return the memory format of a rung's images and weights: ``channels_last`` where the rung asks for it."""
    return torch.channels_last if rung.get("channels_last") else torch.contiguous_format


def rung_model(rung: dict[str, Any]) -> tuple[nn.Module, nn.Module]:
    """Return notebook 09's CNN for ``rung``, from the same initial weights every time (seed 0), on the rung's
    device in its ``memory_format``, and what runs its forward pass: the model itself, or, where the rung has
    ``compile``, the model compiled with ``torch.compile(mode="reduce-overhead")``."""
    torch.manual_seed(0)
    model = cifar10.cnn().to(rung["device"], memory_format=memory_format(rung))
    forward = torch.compile(model, mode="reduce-overhead") if rung.get("compile") else model
    return model, forward


def compiled_rungs(same: dict[str, Any], low: str) -> list[dict[str, Any]]:
    """Return notebook 09's two ``torch.compile`` rungs: float32 alone, then with
    ``low`` autocast and ``channels_last`` too, both ``same`` as rung 2 otherwise."""
    # compile's advice to switch TF32 on: the rungs keep PyTorch's defaults
    warnings.filterwarnings("ignore", message="TensorFloat32 tensor cores")
    return [{**same, "name": "float32 + compile", "compile": True, "change": "compile"},
            {**same, "name": f"{low} + c_last + compile", "amp": True,
             "channels_last": True, "compile": True, "change": "all three"}]


def gpu_rungs(device: torch.device, batch: int, amp_dtype: torch.dtype) -> list[dict]:
    """Return the rungs a GPU adds to notebook 09's ladder, dicts like the notebook's
    rungs: on CUDA ``cudnn.benchmark``, then ``compiled_rungs`` where
    ``can_compile``, all against rung 2; off the CPU, rung 1 on the CPU; in float16, a
    ``GradScaler`` against rung 3. None on a CPU in bfloat16."""
    low = str(amp_dtype).removeprefix("torch.")
    same = {"batch": batch, "device": device, "vs": 1}  # against rung 2: same batch
    rungs: list[dict[str, Any]] = []
    if device.type == "cuda":  # cuDNN times its algorithms once per shape
        rungs.append({**same, "name": "float32 + cudnn.benchmark", "benchmark": True,
                      "change": "cudnn.benchmark"})
    if can_compile(device):
        rungs += compiled_rungs(same, low)
    if device.type != "cpu":
        rungs.append({"name": "float32, batch 64, CPU", "batch": 64, "vs": 0,
                      "device": torch.device("cpu"), "change": "device"})
    if amp_dtype == torch.float16:  # float16 needs the scaler: timed apart, vs rung 3
        rungs.append({**same, "name": "float16 + GradScaler", "amp": True,
                      "scaler": True, "vs": 2, "change": "scaler"})
    return rungs


LADDER_WORDS = {
    "en": {"rung": "rung", "images/s": "images/s", "spread": "spread",
           "compared with": "compared with", "speed-up": "speed-up", "against": "rung {}: {}",
           "quick": "Quick mode: tiny sizes, one step per timed call, two rounds. These "
                    "ratios are noise, not what the rungs change; Going deeper gives an "
                    "H100's ladder."},
    "zh": {"rung": "级", "images/s": "张/秒", "spread": "波动",
           "compared with": "对比", "speed-up": "加速比", "against": "第{}级：{}",
           "quick": "快速模式：尺寸很小，每次计时只跑一步，共两轮。这些比值是噪声，"
                    "不是各级改动的效果。H100上的阶梯见“进阶”部分。"},
}
"""The words of ``ladder_table``'s heading line, its "compared with" column and its quick-mode note, per edition."""

ZH_CHANGES = {
    "batch": "批量", "precision": "精度", "layout": "内存布局", "a wait per step": "每步等待一次",
    "cudnn.benchmark": "cudnn.benchmark", "compile": "编译", "all three": "三项一起", "device": "设备",
    "scaler": "GradScaler",
}
"""The Chinese of each rung's ``change``: what it changes against the rung it is compared with."""

ZH_NAME_PARTS = ((", batch ", "，批量"), (" autocast", "混合精度"), (" + compile", " + 编译"),
                 (" + .item() per step", " + 每步读一次损失"), (", CPU", "，CPU"))
"""The English words of the rungs' names and their Chinese; the rest of a name (float32, channels_last) stays."""


def in_language(text: str, lang: str = "en") -> str:
    """Return a rung's ``name`` or ``change`` in ``lang``: as it is in English; in Chinese, a change from
    ``ZH_CHANGES``, a name with its English words (``ZH_NAME_PARTS``) in Chinese."""
    if lang != "zh":
        return text
    if text in ZH_CHANGES:
        return ZH_CHANGES[text]
    for english, chinese in ZH_NAME_PARTS:
        text = text.replace(english, chinese)
    return text



def ladder_table(rungs: list[dict[str, Any]], flop_per_image: float, lang: str = "en",
                 quick: bool = False) -> str:
    """Return notebook 09's table of timed rungs: for each, its training images/s, the spread of its rounds (slowest
    over fastest), the rung it is compared with and what differs, its speed-up over that rung (``-`` for none) and
    its rate in TFLOP/s (images/s times ``flop_per_image``).

    Each rung is a dict with ``name``, ``images/s``, ``spread``, ``vs`` (the index of the rung it is compared with,
    or None) and ``change``. The words are in ``lang`` (``LADDER_WORDS``, ``in_language``), padded to the columns a
    Chinese character takes; with ``quick``, a first line says that quick mode's ratios are noise.
    """
    words = LADDER_WORDS[lang]
    lines = [words["quick"]] if quick else []
    lines.append(f"{utils.pad(words['rung'], 31)} {utils.pad(words['images/s'], 10, right=True)} "
                 f"{utils.pad(words['spread'], 6, right=True)}  {utils.pad(words['compared with'], 26)} "
                 f"{utils.pad(words['speed-up'], 8, right=True)} {'TFLOP/s':>8}")
    for number, rung in enumerate(rungs, start=1):
        against, speedup = "", "-"
        if rung["vs"] is not None:
            against = words["against"].format(rung["vs"] + 1, in_language(rung["change"], lang))
            speedup = f"{rung['images/s'] / rungs[rung['vs']]['images/s']:.2f}x"
        tflops = rung["images/s"] * flop_per_image / 1e12
        lines.append(f"{number} {utils.pad(in_language(rung['name'], lang), 29)} {rung['images/s']:>10,.0f} "
                     f"{rung['spread']:>5.2f}x  {utils.pad(against, 26)} {speedup:>8} {tflops:>8.3g}")
    return "\n".join(lines)


def draw_ladder(ax: Any, rungs: list[dict[str, Any]], color: str, lang: str = "en") -> list[tuple[str, float]]:
    """Draw on matplotlib ``ax`` one horizontal bar per rung that is compared with another (``vs`` not None): its
    images/s over that rung's, the first rung on top, and a grey line at 1 (no change). Return each bar's label
    (the rung's name and what it changes, in ``lang``: ``in_language``) and ratio, top to bottom."""
    compared = [rung for rung in rungs if rung["vs"] is not None]
    label = "{} ({})" if lang != "zh" else "{}（{}）"
    bars = [(label.format(in_language(rung["name"], lang), in_language(rung["change"], lang)),
             rung["images/s"] / rungs[rung["vs"]]["images/s"]) for rung in compared]
    ax.barh([label for label, _ in bars][::-1], [ratio for _, ratio in bars][::-1], color=color, hatch="//")
    ax.axvline(1, color="gray", linewidth=1)
    return bars
