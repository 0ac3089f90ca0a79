"""Helpers that two or more notebooks use: paths, quick mode, seeding, progress bars, errors shown on purpose, the
runtime (Colab, Kaggle, d2l), devices, placement checks, timing, atomic saves and the train/evaluate loop.

Where code lives: used by two or more notebooks -> here; one lesson topic, or needed by worker processes or
benchmarks -> ``lessons/<topic>.py``, which imports this module (never the other way round); tests ->
``tests/test_<topic>.py`` (this module's: ``tests/test_utils.py``). Where a notebook shows one of these helpers in
full, it shows exactly this code: ``tests/test_shown_copies.py`` checks every such copy.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import torch
from torch import nn

T = TypeVar("T")

ROOT: Path = Path(__file__).resolve().parent
"""The repository root (the folder that holds this file)."""

DATA_DIR: Path = ROOT / "data"
"""Where downloads, generated samples, checkpoints and logs go (git-ignored except its README)."""

QUICK_ENV = "NB_QUICK"
"""Environment variable that switches every notebook to quick mode; the test configuration sets it."""

GENERATED_ENV = "NB_GENERATED_DATA"
"""Set to 1 to run full mode on full-size generated data sets where the real ones cannot be downloaded."""

STRICT_DATA_ENV = "NB_STRICT_DATA"
"""Set to 1 to make full mode stop when the real data cannot be had, instead of going on with generated data."""


def shown_path(path: str | os.PathLike[str]) -> str:
    """Return ``path`` relative to the repository root if it lies inside it (no machine paths in outputs)."""
    resolved = Path(path).resolve()
    return resolved.relative_to(ROOT).as_posix() if resolved.is_relative_to(ROOT) else str(path)


def cpu_cores() -> int:
    """Return how many CPU cores this process may run on (its affinity where the system has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


# ---- The edition's language -----------------------------------------------------------------------------------------
LANGUAGES = ("en", "zh")
"""The editions: English (``notebooks/``) and Chinese (``notebooks/zh/``)."""

_language = "en"


def set_language(lang: str) -> None:
    """Make the helpers print their messages in ``lang`` (``"en"`` or ``"zh"``); each edition's setup cell calls it.

    The code of a Chinese notebook is token for token the English code; only its generated setup cell names its
    language, so that messages meant for a student (setup advice, figure descriptions, exercise checks) read in it.

    In Chinese, matplotlib also gets a font with Chinese glyphs (``use_cjk_font``) before any figure is made.
    """
    global _language
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: use one of {', '.join(LANGUAGES)}")
    _language = lang
    if lang == "zh":
        use_cjk_font()


def language() -> str:
    """Return the language set by ``set_language`` (``"en"`` until a setup cell sets another)."""
    return _language


def localized(en: str, zh: str) -> str:
    """Return ``en`` or ``zh``, whichever is the language set by ``set_language``."""
    return zh if _language == "zh" else en


def text_width(text: str) -> int:
    """Return how many columns ``text`` takes in a monospaced font: two for a Chinese character, one for others."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def pad(text: str, width: int, right: bool = False) -> str:
    """Return ``text`` padded with spaces to ``width`` columns (``text_width``), on the left if ``right``: a table
    whose headings are Chinese keeps its columns."""
    fill = " " * max(width - text_width(text), 0)
    return fill + text if right else text + fill


ZH_MESSAGES = Path(__file__).resolve().parent / "lessons" / "zh_messages"
"""The Chinese of the sentences that the notebooks print with ``say``: one JSON file per lesson, English -> Chinese."""


@functools.cache
def _zh_catalog() -> dict[str, str]:
    """Return every entry of the files in ``ZH_MESSAGES``, read once."""
    catalog: dict[str, str] = {}
    for path in sorted(ZH_MESSAGES.glob("*.json")):
        catalog.update(json.loads(path.read_text(encoding="utf-8")))
    return catalog


def tr(template: str) -> str:
    """Return ``template`` in the edition's language: in Chinese, its entry in ``ZH_MESSAGES`` (a template with no
    entry stays English; ``tests/test_translate.py`` finds it)."""
    return _zh_catalog().get(template, template) if _language == "zh" else template


def say(template: str, *args: Any, **fields: Any) -> None:
    """Print ``template.format(*args, **fields)`` in the edition's language (``tr``).

    ``utils.say("same object: {}", b is a)`` prints ``same object: True`` in English and ``同一个对象：True`` in
    Chinese: the code of both editions stays the same, and a class reads its own language.
    """
    print(tr(template).format(*args, **fields))


# ---- Quick mode, seeding, progress bars ------------------------------------------------------------------------------
def env_flag(name: str) -> bool:
    """Return True when the environment variable ``name`` is set to 1, true, yes or on."""
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def announce_generated_data(error: str, goes_on: str) -> None:
    """Print, framed so that nobody misses it, why a data set could not be had (``error``) and that the lesson goes
    on with generated data (``goes_on``), to stderr: 06 and 07 call it when a download fails in full mode."""
    line = "!" * 100
    print(f"{line}\n{error}\n{goes_on}\n{line}", file=sys.stderr, flush=True)


def is_quick_mode() -> bool:
    """Return True when ``NB_QUICK`` is set to a true value (tests, CI, offline classrooms)."""
    return env_flag(QUICK_ENV)


def seed_everything(seed: int = 0) -> None:
    """Seed Python, NumPy and PyTorch (CPU and accelerators); the thread count is left to the notebooks."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def progress(iterable: Iterable[T], **kwargs: Any) -> Iterator[T]:
    """Wrap ``iterable`` in a tqdm progress bar for people; return it unchanged in quick mode (tests).

    The bar is text, redrawn in place: a notebook saved after a run holds the last bar as text, where a widget
    would show "Error displaying widget: model not found" when the notebook is opened again.
    """
    if is_quick_mode():
        return iter(iterable)
    from tqdm.std import tqdm

    return iter(tqdm(iterable, **kwargs))


EXPECTED_ERROR = {
    "en": "An error, as expected: it is what this example shows.",
    "zh": "出错了，这在预料之中：这个例子要演示的正是这个错误。",
}
"""The line ``expect_error`` prints above the error, in each edition's language (``set_language``), so that an error
shown on purpose does not read like a failure."""


@contextlib.contextmanager
def expect_error(*kinds: type[BaseException], match: str = "") -> Iterator[None]:
    """Run the ``with`` block, which must raise one of ``kinds``; print a line saying that the error was expected
    and is what the example shows (``EXPECTED_ERROR``), then ``Type: message``, instead of a traceback.

    Errors shown on purpose this way never stop "Run all" (Colab, VS Code and Kaggle stop at an uncaught
    error), and a lesson whose error stops happening fails its tests: the block raising nothing, raising another
    type, or a message that ``re.search(match, ...)`` does not find, raises AssertionError.
    """
    try:
        yield
    except kinds as error:
        if not re.search(match, str(error)):
            raise AssertionError(f"{type(error).__name__} raised, but its message lacks {match!r}") from error
        print(f"{localized(EXPECTED_ERROR['en'], EXPECTED_ERROR['zh'])}\n{type(error).__name__}: {error}")
    else:
        raise AssertionError(f"expected {' or '.join(k.__name__ for k in kinds)}, but nothing was raised")


AUTODL_DISK = Path("/root/autodl-tmp")
"""The data disk every AutoDL instance mounts: how ``hosted_service`` recognises AutoDL."""


def hosted_service() -> str | None:
    """Return "Colab", "Kaggle" or "AutoDL" when this kernel runs there, else None."""
    if "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ:
        return "Colab"
    if "KAGGLE_KERNEL_RUN_TYPE" in os.environ:
        return "Kaggle"
    return "AutoDL" if AUTODL_DISK.is_dir() else None


OLDEST_TORCH = (2, 8)
"""The oldest PyTorch the lessons support (CI's other-end lane runs them on 2.8)."""

OLDER_CUDA_BUILD = "pip install torch torchvision --index-url https://download.pytorch.org/whl/cu126"
"""Installs PyTorch's own build for an older CUDA: for an older NVIDIA driver or an older GPU."""


def torch_version(version: str | None = None) -> tuple[int, int]:
    """Return PyTorch's (major, minor) version, from ``torch.__version__`` unless ``version`` is given."""
    major, minor = re.findall(r"\d+", version or torch.__version__)[:2]
    return int(major), int(minor)


def cuda_problem() -> str | None:
    """Return why this PyTorch cannot use the machine's NVIDIA GPU, in the edition's language, or None.

    Two cases: NVML counts a GPU but the CUDA runtime finds none (the driver is older than this build's CUDA needs),
    or the GPU's compute capability is below every one this build has kernels for (``torch.cuda.get_arch_list()``).
    """
    if not torch.backends.cuda.is_built():
        return None
    if not torch.cuda.is_available():
        if torch.cuda.device_count() == 0:  # NVML sees no GPU either: there is none
            return None
        return localized(
            f"This machine has an NVIDIA GPU, but its driver is too old for this PyTorch (built for CUDA "
            f"{torch.version.cuda}), so the lessons run on the CPU. Fix: update the NVIDIA driver, or install a "
            f"build for an older CUDA ({OLDER_CUDA_BUILD}), then restart the kernel.",
            f"这台机器有NVIDIA GPU，但它的驱动程序对这个PyTorch（为CUDA {torch.version.cuda}构建）来说太旧了，"
            f"所以课程在CPU上运行。解决办法：更新NVIDIA驱动程序，或者安装为较旧CUDA构建的版本"
            f"（{OLDER_CUDA_BUILD}），然后重启内核。",
        )
    built = [tuple(divmod(int(a[3:].rstrip("af")), 10)) for a in torch.cuda.get_arch_list() if a.startswith("sm_")]
    capability = torch.cuda.get_device_capability(0)
    if built and capability < min(built):
        name, has = torch.cuda.get_device_name(0), "{}.{}".format(*capability)
        oldest = "{}.{}".format(*min(built))
        return localized(
            f"This PyTorch has no kernels for the GPU {name} (compute capability {has}; it needs {oldest} or "
            f"newer), so every computation on it will fail. Fix: install a build for older GPUs "
            f"({OLDER_CUDA_BUILD}), then restart the kernel.",
            f"这个PyTorch没有适用于GPU {name}的核函数（计算能力{has}，至少需要{oldest}），在它上面的每次计算都会出错。"
            f"解决办法：安装支持较旧GPU的版本（{OLDER_CUDA_BUILD}），然后重启内核。",
        )
    return None


def put_scripts_on_path() -> str:
    """Put this Python's scripts folder (``tensorboard``, ``torchrun``, ``pip`` ...) first on the kernel's ``PATH``,
    as an activated virtual environment does, and return it.

    A kernel that JupyterLab starts from ``.venv/bin/jupyter lab`` runs the environment's Python without the
    environment's scripts folder on its ``PATH``: ``%tensorboard`` and ``!torchrun`` would not find their programs.
    """
    import sysconfig

    scripts = sysconfig.get_path("scripts")
    folders = os.environ.get("PATH", "").split(os.pathsep)
    if scripts not in folders:
        os.environ["PATH"] = os.pathsep.join([scripts, *filter(None, folders)])
    return scripts


def check_runtime() -> None:
    """Say at the start what a lesson cannot do here, in one message that names the fix; every setup cell calls it.

    PyTorch older than ``OLDEST_TORCH``: raise RuntimeError (the lesson stops at once). A GPU this build cannot use
    (``cuda_problem``): say why and how to fix it. On Colab, Kaggle or AutoDL without a GPU: how to switch one on.
    It also puts the environment's programs on the kernel's ``PATH`` (``put_scripts_on_path``).
    """
    put_scripts_on_path()
    if torch_version() < OLDEST_TORCH:
        oldest = "{}.{}".format(*OLDEST_TORCH)
        raise RuntimeError(
            localized(
                f"PyTorch {torch.__version__} is older than {oldest}, the oldest these lessons support. Fix: "
                f'pip install -U "torch>={oldest}" torchvision, then restart the kernel.',
                f"PyTorch {torch.__version__}比课程支持的最旧版本{oldest}还旧。解决办法："
                f'pip install -U "torch>={oldest}" torchvision，然后重启内核。',
            )
        )
    if problem := cuda_problem():
        print(problem)
        return
    how = {
        "Colab": localized("Runtime -> Change runtime type -> GPU", "代码执行程序 -> 更改运行时类型 -> GPU"),
        "Kaggle": "Settings -> Accelerator -> GPU",
        "AutoDL": localized("shut the instance down and start it again normally, not in no-GPU mode",
                            "关机后正常开机，不要选“无卡模式开机”"),
    }
    service = hosted_service()
    if service and get_device().type == "cpu":
        print(
            localized(
                f"No GPU in this {service} runtime: {how[service]}, then run all cells again. Going on on the CPU.",
                f"这个{service}运行时没有GPU：{how[service]}，然后重新运行全部单元格。现在先在CPU上继续运行。",
            )
        )


_ANSI_CODE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
"""A terminal colour or cursor code, which tools print when told to colour (a kernel may set FORCE_COLOR=1)."""


def _last_line(captured: str) -> str:
    """Return the last non-blank line of a tool's captured output, without colour codes ("" if there is none)."""
    lines = [line.strip() for line in _ANSI_CODE.sub("", captured).splitlines() if line.strip()]
    return lines[-1] if lines else ""


def import_d2l() -> Any:
    """Return ``d2l.torch``, installing d2l 1.0.3 if missing *without* its pins (old numpy; torch never touched)."""
    try:
        from d2l import torch as d2l
    except ModuleNotFoundError as error:
        if error.name != "d2l":  # d2l is there but needs something else: say what
            raise
        pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "d2l==1.0.3"]
        plain = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}  # pip: no colour codes
        done = subprocess.run(pip, capture_output=True, text=True, env={**plain, "NO_COLOR": "1", "TERM": "dumb"})
        if done.returncode != 0:
            said = _last_line(done.stderr) or f"pip exit status {done.returncode}"
            raise RuntimeError(
                localized(
                    f"Could not install d2l ({said}). Fix: run `pip install --no-deps d2l==1.0.3` (in a notebook: "
                    "`%pip install --no-deps d2l==1.0.3`) with internet access, then run this cell again.",
                    f"无法安装d2l（{said}）。解决办法：在能上网时运行`pip install --no-deps d2l==1.0.3`（在笔记本中："
                    "`%pip install --no-deps d2l==1.0.3`），然后重新运行这个单元格。",
                )
            ) from None
        importlib.invalidate_caches()
        from d2l import torch as d2l
    return d2l


# ---- Devices ---------------------------------------------------------------------------------------------------------
def get_device() -> torch.device:
    """Return the available accelerator (CUDA, MPS, ...), or else the CPU."""
    accelerator = getattr(torch, "accelerator", None)  # PyTorch >= 2.6
    if accelerator is not None:
        # a CUDA build names "cuda" its accelerator even on a machine with no GPU
        return (accelerator.current_accelerator() if accelerator.is_available()
                else torch.device("cpu"))
    if torch.cuda.is_available():  # older PyTorch without torch.accelerator
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def synchronize(device: torch.device | str) -> None:
    """Wait until all queued work on ``device`` has finished (a no-op on the CPU)."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


AMP_DTYPE_ENV = "NB_AMP_DTYPE"
"""Set to ``float16`` to make mixed precision use float16 even where bfloat16 is there: a T4's path on any GPU."""


def amp_dtype(device: torch.device) -> torch.dtype:
    """Return the dtype mixed precision (``torch.autocast``) computes in on ``device`` (notebooks 09 and 10).

    ``NB_AMP_DTYPE`` (``float16`` or ``bfloat16``) if set; else bfloat16 on a CPU and on CUDA GPUs that compute in
    it natively (compute capability 8.0 or newer), float16 on other GPUs (a T4, Apple's GPUs).
    """
    forced = os.environ.get(AMP_DTYPE_ENV, "").strip().lower()
    if forced:
        if forced not in ("float16", "bfloat16"):
            raise ValueError(f"{AMP_DTYPE_ENV}={forced!r}: use float16 or bfloat16, or leave it unset")
        return getattr(torch, forced)
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported(including_emulation=False) else torch.float16
    return torch.bfloat16 if device.type == "cpu" else torch.float16


def tf32_in_effect(device: torch.device, kind: str = "conv") -> bool:
    """Return True when float32 ``kind`` work on ``device`` computes in TF32 (10 mantissa bits, not float32's 23).

    ``kind``: ``"conv"`` for convolutions, whose flag ``torch.backends.cudnn.allow_tf32`` is on by default, or
    ``"matmul"`` for matrix products, whose flag is ``torch.get_float32_matmul_precision()`` other than
    ``"highest"`` (the default is ``"highest"``). Where the flag is on, a CUDA GPU computes in TF32 from compute
    capability 8.0 (A100, L4, H100; not a T4, 7.5), Apple's GPUs never; any other device (a CPU) is asked by a
    small computation whose float32 and TF32 results differ. Notebooks 09 and 10 choose their
    tolerances and their words with it.
    """
    if kind not in ("conv", "matmul"):
        raise ValueError(f"kind={kind!r}: use 'conv' or 'matmul'")
    flag = torch.backends.cudnn.allow_tf32 if kind == "conv" else torch.get_float32_matmul_precision() != "highest"
    if not flag:
        return False
    if device.type == "cuda":
        return torch.cuda.get_device_capability(device) >= (8, 0)
    if device.type == "mps":  # Apple's GPUs have no TF32
        return False
    return _rounds_to_tf32(device, kind)


def _rounds_to_tf32(device: torch.device, kind: str) -> bool:
    """Return True when a float32 ``kind`` computation on ``device`` rounds its inputs to TF32: 9 products of
    1 + 2**-11 + 2**-20 (exact in float32) and 1 add up to 9 * (1 + 2**-10) in TF32, to less in float32."""
    x = torch.full((1, 1, 3, 3), 1 + 2**-11 + 2**-20, device=device)
    w = torch.ones(1, 1, 3, 3, device=device)
    with torch.no_grad(), torch.autocast(device.type, enabled=False):
        out = torch.nn.functional.conv2d(x, w) if kind == "conv" else x.view(1, 9) @ w.view(9, 1)
    return out.item() == 9 * (1 + 2**-10)


# ---- Where does this live? -------------------------------------------------------------------------------------------
def placement(obj: Any) -> dict[str, str]:
    """Map every tensor that ``obj`` owns to its device, e.g. ``{"0.weight": "cpu"}``; ``{}`` if it owns none.

    ``obj``: a tensor, an ``nn.Module`` (parameters *and* buffers), an optimizer (its state, from a step or
    ``load_state_dict``) or a list/tuple/dict of those. Left out: an optimizer's 0-dim CPU tensors, which work with
    tensors on any device, such as the ``step`` counter Adam keeps on the CPU on purpose (unless capturable or fused).
    """
    if isinstance(obj, torch.Tensor):
        return {"tensor": str(obj.device)}
    if isinstance(obj, nn.Module):
        found = {name: str(p.device) for name, p in obj.named_parameters()}
        found.update({f"{name} (buffer)": str(b.device) for name, b in obj.named_buffers()})
        return found
    if isinstance(obj, torch.optim.Optimizer):
        found = {}
        for index, state in enumerate(obj.state.values()):
            for key, value in state.items():
                if isinstance(value, torch.Tensor) and (value.dim() > 0 or value.device.type != "cpu"):
                    found[f"state[{index}].{key}"] = str(value.device)
        return found
    if isinstance(obj, dict):
        items: Iterable[tuple[str, Any]] = ((str(k), v) for k, v in obj.items())
    elif isinstance(obj, (list, tuple)):
        items = ((str(i), v) for i, v in enumerate(obj))
    else:
        return {}
    return {f"{key}.{inner}": dev for key, value in items for inner, dev in placement(value).items()}


def devices_of(obj: Any) -> set[str]:
    """Return the set of device strings of every tensor in ``obj`` (see ``placement``)."""
    return set(placement(obj).values())


def describe_placement(obj: Any) -> str:
    """Return a one-line answer to "where does this live?": one device, ``mixed: ...``, or no tensors."""
    found = devices_of(obj)
    if not found:
        return localized("no tensors (nothing to move)", "没有张量（无需移动）")
    if len(found) == 1:
        return localized("{} ({} tensors)", "{}（{}个张量）").format(found.pop(), len(placement(obj)))
    return localized("mixed: ", "混用设备：") + localized(", ", "、").join(sorted(found))


# ---- Timing ----------------------------------------------------------------------------------------------------------
def time_runs(
    fn: Callable[[], Any], device: torch.device | str = "cpu", warmup: int = 2,
    repeat: int = 5
) -> list[float]:
    """Return the seconds each of `repeat` calls of fn() took, after `warmup` untimed
    calls (synchronised)."""
    for _ in range(warmup):
        fn()
    synchronize(device)
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        synchronize(device)
        seconds.append(time.perf_counter() - start)
    return seconds


def time_it(
    fn: Callable[[], Any], device: torch.device | str = "cpu", warmup: int = 2,
    repeat: int = 5
) -> float:
    """Return the median wall time of ``fn()`` in seconds, after ``warmup`` calls
    (``time_runs``, notebook 09).

    GPUs run work asynchronously, so the clock is read only after
    ``synchronize(device)``: without that you time how fast work is queued, not how
    fast it runs.
    """
    return statistics.median(time_runs(fn, device, warmup, repeat))


# ---- Checkpoints (written out in full in notebook 05) and the training loop (notebook 06) ----------------------------
def atomic_save(obj: Any, path: str | os.PathLike[str]) -> Path:
    """``torch.save`` to a temporary file of its own beside ``path``, then rename it
    over ``path``; return ``path``.

    Readers see the old file or the whole new one, even while other processes save to
    ``path`` too (the last rename wins). A writer killed mid-save leaves its
    ``<name>.<32 hex digits>.tmp`` in plain sight: delete it by hand.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # unique: writers never share a temporary file
    tmp = path.with_name(f"{path.name}.{os.urandom(16).hex()}.tmp")
    try:
        torch.save(obj, tmp)
        # atomic: the old file until this line, the complete new one after it
        os.replace(tmp, path)
    finally:
        # after a failure, leave no half-written temporary file behind
        tmp.unlink(missing_ok=True)
    return path


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: nn.Module,
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    """Train ``model`` for one pass over ``loader`` on ``device``; return the mean training loss.

    The running loss stays on the device, so the GPU is synchronised once per epoch, not once per batch.
    """
    model.train()
    non_blocking = device.type == "cuda"  # pinned batches: the copy is queued behind earlier GPU work, the CPU goes on
    total_loss = torch.zeros((), device=device)
    count = 0
    for inputs, targets in loader:
        inputs = inputs.to(device, non_blocking=non_blocking)
        targets = targets.to(device, non_blocking=non_blocking)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.detach() * len(targets)
        count += len(targets)
    return total_loss.item() / max(count, 1)


@torch.no_grad()
def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: nn.Module,
    device: torch.device,
) -> tuple[float, float]:
    """Return ``(mean loss, accuracy)`` of ``model`` over ``loader``, computed in batches on ``device``."""
    model.eval()
    non_blocking = device.type == "cuda"
    total_loss = torch.zeros((), device=device)
    correct = torch.zeros((), device=device, dtype=torch.long)
    count = 0
    for inputs, targets in loader:
        inputs = inputs.to(device, non_blocking=non_blocking)
        targets = targets.to(device, non_blocking=non_blocking)
        logits = model(inputs)
        total_loss += loss_fn(logits, targets) * len(targets)
        correct += (logits.argmax(dim=1) == targets).sum()
        count += len(targets)
    return total_loss.item() / max(count, 1), correct.item() / max(count, 1)


# ---- Figures anyone can read -----------------------------------------------------------------------------
PALETTE: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000")
"""Colours for lines, markers and bars: blue, vermillion, bluish green, reddish purple and black, the colours of Okabe
and Ito's colour-blind-safe palette that stand out from a white background at least 3:1 (WCAG 2.2, 1.4.11). Plots
tell their lines apart by marker or line style too, so that no colour carries meaning alone."""

CJK_FONTS = ("Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "Microsoft YaHei", "PingFang SC",
             "Heiti SC", "SimHei", "WenQuanYi Zen Hei")
"""Fonts with Chinese glyphs that a machine may have, in the order ``cjk_font`` prefers them."""


@functools.cache
def cjk_font() -> str | None:
    """Return the name of a font with Chinese glyphs that matplotlib can draw with, or None when there is none.

    First the Noto Sans CJK SC that the ``mplfonts`` package ships (``requirements-nodeps.txt`` installs it; it is
    found without importing the package, whose own imports are not installed), then any of ``CJK_FONTS`` the
    machine has.
    """
    import importlib.util

    from matplotlib import font_manager

    spec = importlib.util.find_spec("mplfonts")
    folders = (spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / "fonts" / "NotoSansCJKsc-Regular.otf"
        if path.is_file():
            font_manager.fontManager.addfont(str(path))
            return font_manager.FontProperties(fname=str(path)).get_name()
    names = {entry.name for entry in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in names), None)


def use_cjk_font() -> str | None:
    """Put ``cjk_font()`` after matplotlib's own fonts, which draw the Latin letters and digits, so that figures can
    show Chinese; return its name, or None where the machine has no such font."""
    if (font := cjk_font()) is None:
        return None
    import matplotlib as mpl

    if font not in mpl.rcParams["font.family"]:
        mpl.rcParams["font.family"] = [*mpl.rcParams["font.family"], font]
    return font


def label(en: str, zh: str) -> str:
    """Return a figure's title, axis label or legend entry in the edition's language: ``zh`` in Chinese where a font
    with Chinese glyphs is at hand (``use_cjk_font``), else ``en`` (a missing glyph would draw a box and warn)."""
    return zh if _language == "zh" and use_cjk_font() is not None else en


FIGURE_METADATA = "figure_description"
"""The output metadata key under which ``show_figure`` keeps a figure's description in both languages."""


def show_figure(fig: Any, en: str, zh: str) -> None:
    """Show the matplotlib figure ``fig`` with its description, ``en`` or ``zh`` as ``set_language`` says, as alt text.

    The output is HTML, an ``<img>`` holding the PNG with the description as its ``alt``: JupyterLab shows no alt
    text for an ``image/png`` output, whatever its metadata says, but keeps the ``alt`` of HTML. Its plain-text form
    is the description (for text-only front ends), and its metadata holds both languages under ``FIGURE_METADATA``
    (so that the tests can check each edition's description). The figure is then closed, so the inline backend does
    not show it again.
    """
    import base64
    import html
    import io

    import matplotlib.pyplot as plt
    from IPython.display import display

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")  # as the inline backend draws it
    plt.close(fig)
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    text = localized(en, zh)
    bundle = {"text/html": f'<img src="data:image/png;base64,{png}" alt="{html.escape(text)}">', "text/plain": text}
    display(bundle, raw=True, metadata={FIGURE_METADATA: {"en": en, "zh": zh}})
