"""Unit tests for every helper in utils.py (they run on CPU; GPU branches are checked where possible)."""

from __future__ import annotations

import collections
import collections.abc
import multiprocessing
import os
import random
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest
import torch
from fake_cuda import FakeGpu
from tf32_emulation import EmulatedTF32
from torch import nn

import utils


def test_shown_path_hides_machine_paths_inside_the_repo(tmp_path) -> None:
    assert utils.shown_path(utils.DATA_DIR / "x.pt") == "data/x.pt"
    assert utils.shown_path(utils.ROOT) == "."
    assert utils.shown_path(tmp_path / "y") == str(tmp_path / "y")  # outside the repo: unchanged


def test_paths_point_into_the_repo() -> None:
    assert (utils.ROOT / "utils.py").is_file()
    assert utils.DATA_DIR == utils.ROOT / "data"


def test_language_picks_the_editions_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(utils, "_language", "en")
    assert utils.language() == "en" and utils.localized("GPU memory", "显存") == "GPU memory"
    utils.set_language("zh")
    assert utils.language() == "zh" and utils.localized("GPU memory", "显存") == "显存"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        utils.set_language("fr")
    assert utils.language() == "zh"  # a refused language changes nothing


def test_pad_counts_a_chinese_character_as_two_columns() -> None:
    assert utils.text_width("批量64") == 6 and utils.text_width("batch") == 5
    assert utils.pad("批量", 6) == "批量  " and utils.pad("批量", 6, right=True) == "  批量"
    assert utils.pad("toolong", 3) == "toolong"  # never cut


def test_say_prints_the_editions_sentence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                          capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "01_x.json").write_text('{"same object: {} | shape {:.1f}": "同一个对象：{} | 形状{:.1f}",'
                                        ' "rank {rank} on {device}": "{device}上的{rank}号进程"}', encoding="utf-8")
    monkeypatch.setattr(utils, "ZH_MESSAGES", tmp_path)
    utils._zh_catalog.cache_clear()
    monkeypatch.setattr(utils, "_language", "en")
    try:
        utils.say("same object: {} | shape {:.1f}", True, 2.25)
        utils.say("rank {rank} on {device}", rank=1, device="cpu")
        monkeypatch.setattr(utils, "_language", "zh")
        utils.say("same object: {} | shape {:.1f}", True, 2.25)
        utils.say("rank {rank} on {device}", rank=1, device="cpu")
        utils.say("no entry: {}", 3)  # stays English (tests/test_translate.py finds such a template)
        assert utils.tr("rank {rank} on {device}") == "{device}上的{rank}号进程"
    finally:
        utils._zh_catalog.cache_clear()
    assert capsys.readouterr().out.splitlines() == [
        "same object: True | shape 2.2", "rank 1 on cpu", "同一个对象：True | 形状2.2", "cpu上的1号进程", "no entry: 3"]


@pytest.mark.parametrize(
    ("value", "expected"), [("1", True), ("true", True), ("YES", True), ("0", False), ("", False), (None, False)]
)
def test_is_quick_mode(value: str | None, expected: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if value is None:
        monkeypatch.delenv(utils.QUICK_ENV, raising=False)
    else:
        monkeypatch.setenv(utils.QUICK_ENV, value)
    assert utils.is_quick_mode() is expected


def test_seed_everything_repeats_all_generators() -> None:
    def draw() -> tuple[float, float, float]:
        return random.random(), float(np.random.rand()), float(torch.rand(()))

    utils.seed_everything(123)
    first = draw()
    utils.seed_everything(123)
    assert draw() == first


def test_seed_everything_leaves_threads_alone() -> None:
    before = torch.get_num_threads()
    utils.seed_everything(0)
    assert torch.get_num_threads() == before  # seeding never changes the thread count


def test_progress_is_silent_in_quick_mode(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv(utils.QUICK_ENV, "1")
    assert list(utils.progress(range(3), desc="x")) == [0, 1, 2]
    assert capsys.readouterr().err == ""


def test_progress_shows_a_bar_for_people(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.delenv(utils.QUICK_ENV, raising=False)
    assert list(utils.progress(range(3), desc="epochs")) == [0, 1, 2]
    assert "epochs" in capsys.readouterr().err


def test_progress_in_a_notebook_leaves_no_widget_to_restore(tmp_path: Path) -> None:
    import nbclient
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os, sys\n"
        f"sys.path.insert(0, {str(Path(utils.__file__).parent)!r})\n"
        "os.environ.pop('NB_QUICK', None)\n"
        "import utils\n"
        "print(sum(utils.progress(range(3), desc='epochs')))"
    )])
    where = {"metadata": {"path": str(tmp_path)}}
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120, resources=where).execute()
    outputs = nb.cells[0].outputs
    assert not any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs), outputs
    assert any(o.get("name") == "stderr" and "epochs" in o.text for o in outputs), outputs  # a text bar
    assert any(o.get("name") == "stdout" and o.text == "3\n" for o in outputs)


def test_get_device_is_usable() -> None:
    device = utils.get_device()
    assert torch.zeros(1, device=device).device.type == device.type
    if not torch.cuda.is_available() and not torch.backends.mps.is_available():
        assert device == torch.device("cpu")


def test_get_device_works_where_current_accelerator_has_no_check_available(monkeypatch: pytest.MonkeyPatch) -> None:
    # torch.accelerator as PyTorch 2.6 has it: current_accelerator() takes no check_available argument
    old = types.SimpleNamespace(is_available=lambda: False, current_accelerator=lambda: torch.device("cuda"))
    monkeypatch.setattr(torch, "accelerator", old, raising=False)
    assert utils.get_device() == torch.device("cpu")  # a CUDA build on a machine without a GPU


def test_get_device_on_a_cuda_gpu_is_the_index_less_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    FakeGpu(monkeypatch)  # torch's C layer reports one GPU; torch.accelerator and torch.cuda run as on a GPU
    device = utils.get_device()
    assert device == torch.device("cuda") and device.index is None  # what every notebook then passes around


def test_get_device_on_a_cuda_gpu_without_torch_accelerator(monkeypatch: pytest.MonkeyPatch) -> None:
    FakeGpu(monkeypatch)
    monkeypatch.delattr(torch, "accelerator", raising=False)  # PyTorch before 2.6
    assert utils.get_device() == torch.device("cuda")


def test_synchronize_waits_for_queued_work() -> None:
    device = utils.get_device()
    result = torch.ones(256, 256, device=device) @ torch.ones(256, 256, device=device)
    utils.synchronize(device)
    utils.synchronize(str(device))
    assert result.sum().item() == 256.0**3  # the work finished and is correct
    with pytest.raises(RuntimeError):
        utils.synchronize("not-a-device")


def test_synchronize_and_time_runs_wait_for_the_cuda_gpu_the_notebooks_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    gpu = FakeGpu(monkeypatch)
    device = utils.get_device()
    utils.synchronize(device)
    utils.synchronize("cuda")
    assert gpu.called("synchronize") == [(0,), (0,)]  # torch.cuda.synchronize picked GPU 0 for the plain "cuda"
    utils.time_runs(lambda: None, device, warmup=2, repeat=3)
    assert len(gpu.called("synchronize")) == 2 + 1 + 3  # once after the warm-up, once after every timed call


@pytest.mark.parametrize(
    ("setting", "capability", "expected"),
    [
        (None, (9, 0), torch.bfloat16),  # an H100
        (None, (8, 0), torch.bfloat16),  # an A100
        (None, (7, 5), torch.float16),  # a T4: no bfloat16
        ("float16", (9, 0), torch.float16),  # the T4's path forced on an H100
        (" Float16 ", (9, 0), torch.float16),
        ("bfloat16", (7, 5), torch.bfloat16),
    ],
)
def test_amp_dtype_on_cuda_gpus(
    setting: str | None, capability: tuple[int, int], expected: torch.dtype, monkeypatch: pytest.MonkeyPatch
) -> None:
    FakeGpu(monkeypatch, capability=capability)
    if setting is None:
        monkeypatch.delenv(utils.AMP_DTYPE_ENV, raising=False)
    else:
        monkeypatch.setenv(utils.AMP_DTYPE_ENV, setting)
    assert utils.amp_dtype(utils.get_device()) == expected


def test_amp_dtype_elsewhere_and_a_wrong_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(utils.AMP_DTYPE_ENV, raising=False)
    assert utils.amp_dtype(torch.device("cpu")) == torch.bfloat16
    assert utils.amp_dtype(torch.device("mps")) == torch.float16
    monkeypatch.setenv(utils.AMP_DTYPE_ENV, "float16")
    assert utils.amp_dtype(torch.device("cpu")) == torch.float16  # the float16 path's plumbing, dry-run on a CPU
    monkeypatch.setenv(utils.AMP_DTYPE_ENV, "fp16")
    with pytest.raises(ValueError, match="NB_AMP_DTYPE='fp16': use float16 or bfloat16"):
        utils.amp_dtype(torch.device("cpu"))


@pytest.fixture
def tf32_flags() -> collections.abc.Iterator[None]:
    """The test changes PyTorch's TF32 flags; they are as before again after it."""
    conv, matmul = torch.backends.cudnn.allow_tf32, torch.get_float32_matmul_precision()
    yield
    torch.backends.cudnn.allow_tf32 = conv
    torch.set_float32_matmul_precision(matmul)


@pytest.mark.parametrize(
    ("capability", "conv", "matmul"),
    [
        ((9, 0), True, False),  # an H100 with PyTorch's defaults: convolutions in TF32, matrix products not
        ((8, 0), True, False),  # an A100
        ((8, 9), True, False),  # an L4
        ((7, 5), False, False),  # a T4: no TF32 at all
    ],
)
def test_tf32_in_effect_on_cuda_gpus(
    capability: tuple[int, int], conv: bool, matmul: bool, monkeypatch: pytest.MonkeyPatch, tf32_flags: None
) -> None:
    FakeGpu(monkeypatch, capability=capability)
    device = utils.get_device()
    torch.backends.cudnn.allow_tf32 = True
    torch.set_float32_matmul_precision("highest")
    assert (utils.tf32_in_effect(device), utils.tf32_in_effect(device, "matmul")) == (conv, matmul)
    torch.set_float32_matmul_precision("high")  # notebook 09's matrix-product switch
    assert utils.tf32_in_effect(device, "matmul") == conv  # wherever TF32 exists
    with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):  # how notebooks 09 and 10 switch it off
        assert not utils.tf32_in_effect(device)
    assert utils.tf32_in_effect(device) == conv


def test_tf32_in_effect_on_a_cpu_and_under_the_emulated_lane(tf32_flags: None) -> None:
    """A CPU computes in float32; the emulated-TF32 lane's CPU rounds as an Ampere GPU does, and says so."""
    cpu = torch.device("cpu")
    torch.set_float32_matmul_precision("high")
    assert not utils.tf32_in_effect(cpu) and not utils.tf32_in_effect(cpu, "matmul")
    assert not utils.tf32_in_effect(torch.device("mps"))
    with EmulatedTF32():  # what the other-end lane installs (tests/nbval_lanes.py, tests/switch_site)
        assert utils.tf32_in_effect(cpu) and utils.tf32_in_effect(cpu, "matmul")
        torch.set_float32_matmul_precision("highest")
        assert utils.tf32_in_effect(cpu) and not utils.tf32_in_effect(cpu, "matmul")
        with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):
            assert not utils.tf32_in_effect(cpu)
        with torch.autocast("cpu", dtype=torch.bfloat16):  # the question is about float32 work, even inside autocast
            assert utils.tf32_in_effect(cpu)
    assert not utils.tf32_in_effect(cpu)
    with pytest.raises(ValueError, match="kind='linear': use 'conv' or 'matmul'"):
        utils.tf32_in_effect(cpu, "linear")


def test_expect_error_says_it_was_expected_then_prints_type_and_message(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with utils.expect_error(ValueError, match="bad"):
        raise ValueError("a bad value")
    assert capsys.readouterr().out == "An error, as expected: it is what this example shows.\nValueError: a bad value\n"
    monkeypatch.setattr(utils, "_language", "zh")
    with utils.expect_error(ValueError, match="bad"):
        raise ValueError("a bad value")
    assert capsys.readouterr().out == f"{utils.EXPECTED_ERROR['zh']}\nValueError: a bad value\n"


def test_expect_error_fails_when_nothing_is_raised() -> None:
    with pytest.raises(AssertionError, match="expected KeyError or IndexError, but nothing was raised"):
        with utils.expect_error(KeyError, IndexError):
            pass


def test_expect_error_fails_on_another_message_or_type() -> None:
    with pytest.raises(AssertionError, match="lacks 'device'"):
        with utils.expect_error(RuntimeError, match="device"):
            raise RuntimeError("shape mismatch")
    with pytest.raises(TypeError):  # another type is not swallowed
        with utils.expect_error(ValueError):
            raise TypeError("not this one")


def test_a_kernel_without_the_environment_on_its_path_finds_its_programs(tmp_path: Path) -> None:
    # as JupyterLab started from .venv/bin/jupyter lab starts a kernel: the venv's Python, a PATH without .venv/bin
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    code = (
        "import os, shutil, sysconfig, utils\n"
        "before = shutil.which('tensorboard')\n"
        "utils.check_runtime(); utils.check_runtime()\n"
        "folders = os.environ['PATH'].split(os.pathsep)\n"
        "print(before, shutil.which('tensorboard'), folders.count(sysconfig.get_path('scripts')))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=Path(utils.__file__).parent, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[0] == "None"  # not found before
    assert Path(out[1]).parent == Path(sys.executable).parent and out[2] == "1"  # then found, and put there once


def test_check_runtime_is_silent_outside_colab_and_kaggle(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delenv("KAGGLE_KERNEL_RUN_TYPE", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setattr(utils, "AUTODL_DISK", Path("/nonexistent/autodl-tmp"))
    assert utils.hosted_service() is None
    utils.check_runtime()
    assert capsys.readouterr().out == ""


def test_check_runtime_says_how_to_get_a_gpu_on_autodl(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, tmp_path: Path
) -> None:
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delenv("KAGGLE_KERNEL_RUN_TYPE", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setattr(utils, "AUTODL_DISK", tmp_path)  # an instance started in AutoDL's no-GPU mode
    monkeypatch.setattr(utils, "get_device", lambda: torch.device("cpu"))
    monkeypatch.setattr(utils, "_language", "zh")
    assert utils.hosted_service() == "AutoDL"
    utils.check_runtime()
    assert capsys.readouterr().out == (
        "这个AutoDL运行时没有GPU：关机后正常开机，不要选“无卡模式开机”，然后重新运行全部单元格。现在先在CPU上继续运行。\n"
    )


def test_check_runtime_says_how_to_get_a_gpu_on_colab(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab-test")
    # Colab's CPU runtime: torch's C layer is a CUDA build's (its accelerator is CUDA) that finds no GPU
    monkeypatch.setattr(torch._C, "_accelerator_getAccelerator", lambda: torch.device("cuda"), raising=False)
    monkeypatch.setattr(torch._C, "_cuda_getDeviceCount", lambda: 0, raising=False)
    utils.check_runtime()
    out = capsys.readouterr().out
    assert "Runtime -> Change runtime type -> GPU" in out and "Going on on the CPU" in out
    FakeGpu(monkeypatch)  # a GPU runtime
    utils.check_runtime()
    assert capsys.readouterr().out == ""


def test_check_runtime_stops_on_a_pytorch_older_than_the_lessons_support(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch, "__version__", "2.5.1+cu124")  # an online platform's preinstalled image
    fixes = {"en": 'Fix: pip install -U "torch>=2.8" torchvision', "zh": '解决办法：pip install -U "torch>=2.8"'}
    for lang, fix in fixes.items():
        utils.set_language(lang)
        try:
            with pytest.raises(RuntimeError, match="2.5.1") as raised:
                utils.check_runtime()
        finally:
            utils.set_language("en")
        assert fix in str(raised.value) and "2.8" in str(raised.value)
    monkeypatch.setattr(torch, "__version__", "2.8.0")
    assert utils.torch_version() == (2, 8)
    utils.check_runtime()  # the oldest supported: no error


def test_check_runtime_names_a_driver_too_old_for_this_cuda_build(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    # NVML counts the GPU; the CUDA runtime, refused by the old driver, finds none (torch's C layer and NVML faked)
    monkeypatch.setattr(torch._C, "_cuda_getDeviceCount", lambda: 0, raising=False)
    monkeypatch.setattr(torch.cuda, "_device_count_nvml", lambda: 1)
    monkeypatch.setattr(torch.cuda, "_cached_device_count", None)
    assert torch.cuda.device_count() == 1 and not torch.cuda.is_available()
    utils.check_runtime()
    said = capsys.readouterr().out
    assert "driver is too old" in said and utils.OLDER_CUDA_BUILD in said and said.count("\n") == 1
    assert utils.get_device() == torch.device("cpu")  # the lesson goes on, on the CPU


def test_check_runtime_names_a_gpu_older_than_this_build_has_kernels_for(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    FakeGpu(monkeypatch, name="NVIDIA GeForce GTX 1080", capability=(6, 1))  # Pascal: a student's older GeForce
    monkeypatch.setattr(torch._C, "_cuda_getArchFlags", lambda: "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120", raising=False)
    utils.check_runtime()
    said = capsys.readouterr().out
    assert "GTX 1080" in said and "6.1" in said and "7.5" in said and utils.OLDER_CUDA_BUILD in said
    utils.set_language("zh")
    try:
        assert "计算能力6.1" in utils.cuda_problem()
    finally:
        utils.set_language("en")
    FakeGpu(monkeypatch, capability=(7, 5))  # a T4: this build has its kernels
    assert utils.cuda_problem() is None
    utils.check_runtime()
    assert capsys.readouterr().out == ""


def test_import_d2l_returns_the_module_when_installed() -> None:
    assert utils.import_d2l().__name__ == "d2l.torch"


def test_import_d2l_names_the_fix_when_pip_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "d2l", None)  # "import d2l" now fails as if it were not installed
    calls = []

    def failing_pip(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: Could not find a version (offline)\n")

    monkeypatch.setattr(utils.subprocess, "run", failing_pip)
    with pytest.raises(RuntimeError, match=r"Could not install d2l \(ERROR: Could not find .*Fix: run `pip install"):
        utils.import_d2l()
    assert calls and calls[0][1:] == ["-m", "pip", "install", "-q", "--no-deps", "d2l==1.0.3"]  # torch never touched


def test_import_d2l_says_what_pip_said_without_colour_codes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A real pip that cannot find d2l (no index, nothing installed: it writes only to tmp_path), run as ipykernel
    7.4 runs it, with FORCE_COLOR=1, which makes pip colour its errors and end them with a colour code line."""
    monkeypatch.setitem(sys.modules, "d2l", None)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    for name, value in {
        "FORCE_COLOR": "1", "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_TARGET": str(tmp_path)
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(utils, "_language", "en")
    with pytest.raises(RuntimeError) as english:
        utils.import_d2l()
    assert str(english.value).startswith(
        "Could not install d2l (ERROR: No matching distribution found for d2l==1.0.3). Fix: run `pip install"
    )
    utils.set_language("zh")
    with pytest.raises(RuntimeError) as chinese:
        utils.import_d2l()
    assert str(chinese.value) == (
        "无法安装d2l（ERROR: No matching distribution found for d2l==1.0.3）。解决办法：在能上网时运行"
        "`pip install --no-deps d2l==1.0.3`（在笔记本中：`%pip install --no-deps d2l==1.0.3`），"
        "然后重新运行这个单元格。"
    )
    assert "\x1b" not in str(english.value) + str(chinese.value) and not any(tmp_path.iterdir())


def test_colour_codes_are_taken_out_of_captured_output() -> None:
    colored = "\x1b[0m\x1b[31mERROR: No matching distribution found for d2l==1.0.3\x1b[0m\x1b[31m\n\x1b[0m\n"
    assert utils._last_line(colored) == "ERROR: No matching distribution found for d2l==1.0.3"
    assert utils._last_line("") == "" and utils._last_line("\x1b[0m\n") == ""


def test_check_runtime_speaks_the_editions_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(utils, "_language", "zh")
    monkeypatch.setattr(utils, "get_device", lambda: torch.device("cpu"))
    monkeypatch.setenv("KAGGLE_KERNEL_RUN_TYPE", "Interactive")
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    utils.check_runtime()
    assert capsys.readouterr().out == (
        "这个Kaggle运行时没有GPU：Settings -> Accelerator -> GPU，然后重新运行全部单元格。现在先在CPU上继续运行。\n"
    )


def test_placement_of_tensor_and_module() -> None:
    assert utils.placement(torch.zeros(2)) == {"tensor": "cpu"}
    net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    found = utils.placement(net)
    assert found["0.weight"] == "cpu"
    assert found["1.running_mean (buffer)"] == "cpu"  # buffers count too
    assert len(found) == 2 + 2 + 3  # Linear w,b; BN w,b; BN 3 buffers


def test_placement_of_parameterless_and_loss_modules() -> None:
    assert utils.placement(nn.ReLU()) == {}
    assert utils.describe_placement(nn.ReLU()) == "no tensors (nothing to move)"
    loss = nn.CrossEntropyLoss(weight=torch.ones(3))
    assert utils.placement(loss) == {"weight (buffer)": "cpu"}


def test_placement_of_mixed_devices() -> None:
    net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2, device="meta"))
    assert utils.devices_of(net) == {"cpu", "meta"}
    assert utils.describe_placement(net) == "mixed: cpu, meta"
    assert utils.describe_placement(nn.Linear(2, 2)) == "cpu (2 tensors)"
    utils.set_language("zh")
    try:
        assert [utils.describe_placement(m) for m in (nn.ReLU(), net, nn.Linear(2, 2))] == [
            "没有张量（无需移动）", "混用设备：cpu、meta", "cpu（2个张量）"]
    finally:
        utils.set_language("en")


def test_placement_of_optimizer_state() -> None:
    net = nn.Linear(2, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    assert utils.placement(opt) == {}  # no state before the first step
    net(torch.ones(1, 2)).sum().backward()
    opt.step()
    assert utils.placement(opt) == {"state[0].momentum_buffer": "cpu", "state[1].momentum_buffer": "cpu"}


def test_placement_leaves_out_adams_cpu_step_counter() -> None:
    net = nn.Linear(2, 1, device="meta")  # meta stands in for a GPU: Adam's moments follow it, its step does not
    opt = torch.optim.Adam(net.parameters())
    net(torch.ones(1, 2, device="meta")).sum().backward()
    opt.step()
    step = opt.state[net.weight]["step"]
    assert step.device.type == "cpu" and step.dim() == 0  # on purpose (torch/optim/adam.py), unless capturable/fused
    assert utils.devices_of(opt) == utils.devices_of(net) == {"meta"}  # a correctly built optimizer is not "mixed"
    assert sorted(utils.placement(opt)) == [f"state[{i}].{k}" for i in (0, 1) for k in ("exp_avg", "exp_avg_sq")]
    assert utils.placement(torch.tensor(1.0)) == {"tensor": "cpu"}  # a 0-dim tensor on its own is still listed


def test_placement_of_containers() -> None:
    found = utils.placement({"x": torch.zeros(1), "batch": [torch.zeros(1), 3]})
    assert found == {"x.tensor": "cpu", "batch.0.tensor": "cpu"}
    assert utils.placement(42) == {}


def test_time_it_returns_median_seconds() -> None:
    calls = []
    seconds = utils.time_it(lambda: calls.append(1), warmup=2, repeat=3)
    assert len(calls) == 5
    assert 0 <= seconds < 1


def test_time_runs_times_each_call_after_the_warmup() -> None:
    calls = []
    seconds = utils.time_runs(lambda: calls.append(1), warmup=3, repeat=4)
    assert len(calls) == 7 and len(seconds) == 4
    assert all(0 <= s < 1 for s in seconds)


def test_atomic_save_round_trip_and_keeps_old_file_on_failure(tmp_path) -> None:
    path = tmp_path / "sub" / "ckpt.pt"
    assert utils.atomic_save({"x": torch.arange(3)}, path) == path
    assert torch.equal(torch.load(path, weights_only=True)["x"], torch.arange(3))

    class Unpicklable:
        def __reduce__(self):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        utils.atomic_save({"bad": Unpicklable()}, path)
    assert torch.equal(torch.load(path, weights_only=True)["x"], torch.arange(3))  # the last good file survived
    assert sorted(p.name for p in path.parent.iterdir()) == ["ckpt.pt"]  # no temporary file left


def _save_repeatedly(path: str, writer: int, start, stop, failures) -> None:
    """Worker for the test below: save this writer's payload to ``path`` until told to stop; count failed saves."""
    start.wait()
    while not stop.is_set():
        try:
            utils.atomic_save({"writer": writer, "data": torch.full((1_000_000,), writer)}, path)
        except Exception:  # e.g. another writer removed or renamed the temporary file: count it and go on
            with failures.get_lock():
                failures.value += 1


def test_atomic_save_with_concurrent_writers_never_shows_a_broken_file(tmp_path) -> None:
    path = tmp_path / "ckpt.pt"
    utils.atomic_save({"writer": 0, "data": torch.full((1_000_000,), 0)}, path)
    context = multiprocessing.get_context("spawn")  # like DDP ranks, or two notebooks saving to one file
    start, stop, failures = context.Barrier(4), context.Event(), context.Value("i", 0)
    args = [(str(path), writer, start, stop, failures) for writer in (1, 2, 3)]
    writers = [context.Process(target=_save_repeatedly, args=a) for a in args]
    for process in writers:
        process.start()
    try:
        start.wait(timeout=120)  # all three writers are running
        good, broken, deadline = 0, [], time.monotonic() + 2
        while time.monotonic() < deadline:
            try:
                checkpoint = torch.load(path, weights_only=True)
                assert torch.equal(checkpoint["data"], torch.full((1_000_000,), checkpoint["writer"]))
                good += 1
            except Exception as error:  # a half-written or mixed file: what atomic_save exists to prevent
                broken.append(type(error).__name__)
    finally:
        stop.set()
        for process in writers:
            process.join(timeout=60)
            if process.is_alive():
                process.kill()
    assert (len(broken), failures.value) == (0, 0) and good > 0  # no broken read, no failed save
    assert [process.exitcode for process in writers] == [0, 0, 0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt.pt"]  # and none left a temporary file


class _Midway:
    """Pickled inside a checkpoint: runs ``step`` while ``torch.save`` is writing that checkpoint."""

    def __init__(self, step) -> None:
        self.step = step

    def __reduce__(self):
        self.step()
        return (collections.OrderedDict, ())  # loads back as an empty OrderedDict, which weights_only=True allows


def _shared_name_save(obj: object, path) -> None:
    """``atomic_save`` as it was first written (see git history): one temporary name, ``<name>.tmp``, for all."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        torch.save(obj, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _interleaved_saves(save, path) -> tuple[list[str], str]:
    """Writer 2 starts saving to ``path``; while its ``torch.save`` is under way (from inside its pickling, so the
    steps are the same on every run), writer 1 saves a bigger checkpoint to ``path``. Then a reader loads ``path``.
    Return (the errors of failed saves, the writer the reader found or the error it got)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    failed_saves = []

    def writer_1() -> None:
        save({"writer": 1, "data": torch.full((100_000,), 1.0)}, path)

    try:
        save({"writer": 2, "data": torch.full((1_000,), 2.0), "midway": _Midway(writer_1)}, path)
    except OSError as error:
        failed_saves.append(type(error).__name__)
    try:
        found = str(torch.load(path, weights_only=True)["writer"])
    except Exception as error:  # a broken file: what atomic_save exists to prevent
        found = type(error).__name__
    return failed_saves, found


def test_a_shared_temporary_name_breaks_interleaved_saves_and_a_name_per_call_does_not(tmp_path) -> None:
    # Shared name: writer 1 renames the file writer 2 is still writing into place, writer 2 then writes over the
    # checkpoint itself (a broken file) and its own rename finds no temporary file.
    old = tmp_path / "shared" / "ckpt.pt"
    assert _interleaved_saves(_shared_name_save, old) == (["FileNotFoundError"], "RuntimeError")
    # A name per call: both saves succeed, the last rename wins, and no temporary file is left.
    new = tmp_path / "own" / "ckpt.pt"
    assert _interleaved_saves(utils.atomic_save, new) == ([], "2")
    assert sorted(p.name for p in new.parent.iterdir()) == ["ckpt.pt"]


def test_atomic_save_is_not_disturbed_by_leftovers_of_killed_writers(tmp_path) -> None:
    path = tmp_path / "ckpt.pt"
    leftovers = ["ckpt.pt.tmp", "ckpt.pt.3f9c0d2e8b7a41c6a5d4e3f2a1b0c9d8.tmp"]  # the old fixed name; a unique one
    for name in leftovers:  # half-written, as a killed writer leaves them
        (tmp_path / name).write_bytes(b"PK\x03\x04 the first bytes of a checkpoint")
    assert utils.atomic_save({"x": torch.arange(3)}, path) == path
    assert torch.equal(torch.load(path, weights_only=True)["x"], torch.arange(3))
    # A save cannot tell a killed writer's temporary file from a live writer's, so it leaves them all alone
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["ckpt.pt", *leftovers])
    assert all((tmp_path / name).read_bytes().startswith(b"PK") for name in leftovers)


def _toy_loaders() -> tuple[list, list]:
    gen = torch.Generator().manual_seed(0)
    inputs = torch.randn(256, 2, generator=gen)
    targets = (inputs[:, 0] > 0).long()
    batches = [(inputs[i : i + 32], targets[i : i + 32]) for i in range(0, 256, 32)]
    return batches, batches


def test_train_epoch_and_evaluate_learn_a_toy_problem() -> None:
    torch.manual_seed(0)
    model = nn.Linear(2, 2)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    train, test = _toy_loaders()
    first_loss, first_acc = utils.evaluate(model, test, loss_fn, torch.device("cpu"))
    for _ in range(5):
        train_loss = utils.train_epoch(model, train, loss_fn, optimizer, torch.device("cpu"))
    test_loss, test_acc = utils.evaluate(model, test, loss_fn, torch.device("cpu"))
    assert test_loss < first_loss and train_loss < first_loss
    assert test_acc > 0.95 and 0 <= first_acc <= 1
    assert not model.training  # evaluate() leaves the model in eval mode


def test_evaluate_matches_a_manual_computation() -> None:
    torch.manual_seed(0)
    model = nn.Linear(2, 2)
    _, test = _toy_loaders()
    inputs = torch.cat([x for x, _ in test])
    targets = torch.cat([y for _, y in test])
    loss, acc = utils.evaluate(model, test, nn.CrossEntropyLoss(), torch.device("cpu"))
    with torch.no_grad():
        logits = model(inputs)
    assert loss == pytest.approx(nn.functional.cross_entropy(logits, targets).item(), rel=1e-5)
    assert acc == pytest.approx((logits.argmax(1) == targets).float().mean().item())


def test_cpu_cores_counts_the_cores_this_process_may_use() -> None:
    cores = utils.cpu_cores()
    assert 1 <= cores <= (os.cpu_count() or 1)


# ---- Figures anyone can read -----------------------------------------------------------------------------
def _shown_figure(monkeypatch: pytest.MonkeyPatch, en: str, zh: str) -> tuple[dict, dict, object]:
    """Show a small figure with utils.show_figure; return what it displayed (data, metadata) and the figure."""
    import IPython.display
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda data, raw, metadata: shown.append((data, metadata, raw)))
    fig, ax = plt.subplots(figsize=(2, 1), dpi=50)
    ax.plot([0, 1], [1, 0], "o-", color=utils.PALETTE[0])
    utils.show_figure(fig, en, zh)
    assert len(shown) == 1 and shown[0][2] is True  # one raw MIME bundle
    return shown[0][0], shown[0][1], fig


def test_show_figure_gives_the_image_its_description_as_alt_text(monkeypatch: pytest.MonkeyPatch) -> None:
    import base64
    import html
    import re

    import matplotlib.pyplot as plt

    monkeypatch.setattr(utils, "_language", "en")
    data, metadata, fig = _shown_figure(monkeypatch, 'A line falls from 1 to 0 ("down" <fast>).', "一条直线从1降到0。")
    assert set(data) == {"text/html", "text/plain"}  # no image/png: JupyterLab would show it without alt text
    assert data["text/plain"] == 'A line falls from 1 to 0 ("down" <fast>).'
    match = re.fullmatch(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)" alt="([^"]*)">', data["text/html"])
    assert match, data["text/html"][:80]
    assert html.unescape(match.group(2)) == data["text/plain"]  # quotes and brackets escaped, nothing lost
    png = base64.b64decode(match.group(1))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 500  # a real picture
    assert metadata == {utils.FIGURE_METADATA: {"en": data["text/plain"], "zh": "一条直线从1降到0。"}}
    assert fig.number not in plt.get_fignums()  # closed: the inline backend does not show it a second time


def test_show_figure_describes_in_the_editions_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(utils, "_language", "en")
    utils.set_language("zh")
    data, metadata, _ = _shown_figure(monkeypatch, "A line falls.", "一条直线下降。")
    assert data["text/plain"] == "一条直线下降。" and data["text/html"].endswith('alt="一条直线下降。">')
    assert metadata[utils.FIGURE_METADATA] == {"en": "A line falls.", "zh": "一条直线下降。"}  # both, for the tools


def test_the_chinese_edition_draws_its_labels_with_a_font_that_has_the_glyphs(monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib as mpl
    import matplotlib.pyplot as plt

    monkeypatch.setattr(utils, "_language", "en")
    assert utils.label("Loss per epoch", "每轮的损失") == "Loss per epoch"
    assert utils.cjk_font() == "Noto Sans CJK SC"  # requirements-nodeps.txt installs mplfonts, which ships it
    monkeypatch.setitem(mpl.rcParams, "font.family", ["sans-serif"])  # restored after the test
    utils.set_language("zh")  # before any figure: a figure's text takes its font when it is made
    fig, ax = plt.subplots(figsize=(2, 1), dpi=50)
    ax.set_title(utils.label("Loss per epoch", "每轮的损失 (loss)"))
    ax.set_xlabel(utils.label("epoch", "轮"))
    assert ax.get_title() == "每轮的损失 (loss)"
    fig.canvas.draw()  # a missing glyph would warn, and every warning is an error here
    plt.close(fig)
    assert mpl.rcParams["font.family"][-1] == "Noto Sans CJK SC"


def test_without_a_chinese_font_the_labels_stay_english(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from matplotlib import font_manager

    monkeypatch.setattr(utils, "_language", "zh")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)  # no mplfonts
    monkeypatch.setattr(font_manager.fontManager, "ttflist", [font_manager.FontEntry(name="DejaVu Sans")])
    utils.cjk_font.cache_clear()
    try:
        assert utils.cjk_font() is None
        assert utils.label("Loss per epoch", "每轮的损失") == "Loss per epoch"
    finally:
        utils.cjk_font.cache_clear()


def test_palette_is_colour_blind_safe_and_stands_out_from_white() -> None:
    from matplotlib.colors import to_rgb

    def luminance(colour: str) -> float:  # WCAG 2.2's relative luminance
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    okabe_ito = {(230, 159, 0), (86, 180, 233), (0, 158, 115), (240, 228, 66), (0, 114, 178), (213, 94, 0),
                 (204, 121, 167), (0, 0, 0)}
    assert {tuple(round(255 * c) for c in to_rgb(colour)) for colour in utils.PALETTE} <= okabe_ito
    assert len(set(utils.PALETTE)) == len(utils.PALETTE) == 5
    assert all(1.05 / (luminance(colour) + 0.05) >= 3 for colour in utils.PALETTE)  # contrast with white
    assert 1.05 / (luminance("#E69F00") + 0.05) < 3  # Okabe and Ito's orange does not: it is left out


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_the_device_helpers_on_a_real_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    device = utils.get_device()
    assert device == torch.device("cuda")
    product = torch.ones(1024, 1024, device=device) @ torch.ones(1024, 1024, device=device)
    utils.synchronize(device)
    assert product[0, 0].item() == 1024
    monkeypatch.delenv(utils.AMP_DTYPE_ENV, raising=False)
    native_bf16 = torch.cuda.get_device_capability(device) >= (8, 0)
    assert utils.amp_dtype(device) == (torch.bfloat16 if native_bf16 else torch.float16)
    monkeypatch.setenv(utils.AMP_DTYPE_ENV, "float16")
    with torch.autocast(device.type, dtype=utils.amp_dtype(device)):
        assert (product @ product).dtype == torch.float16


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_train_epoch_and_evaluate_on_a_real_gpu_with_pinned_batches() -> None:
    torch.manual_seed(0)
    device = utils.get_device()
    train, test = _toy_loaders()
    inputs, targets = torch.cat([x for x, _ in train]), torch.cat([y for _, y in train])
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(inputs, targets), batch_size=32, pin_memory=True
    )  # pinned batches: train_epoch copies them with non_blocking=True on CUDA
    model = nn.Linear(2, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(5):
        utils.train_epoch(model, loader, nn.CrossEntropyLoss(), optimizer, device)
    test_loss, test_acc = utils.evaluate(model, test, nn.CrossEntropyLoss(), device)
    assert test_acc > 0.95 and test_loss < 0.5


def test_announce_generated_data_frames_both_lines_on_stderr(capsys: pytest.CaptureFixture) -> None:
    utils.announce_generated_data("download failed: no network", "going on with GENERATED data")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == ["!" * 100, "download failed: no network", "going on with GENERATED data",
                                         "!" * 100]
