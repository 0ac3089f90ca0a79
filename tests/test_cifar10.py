"""Unit tests for lessons/cifar10.py (notebook 06) and a smoke test of benchmarks/cifar_loop.py."""

from __future__ import annotations

import importlib.util
import io
import math
import multiprocessing
import pickle
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

import utils
from lessons import cifar10

BENCHMARK = utils.ROOT / "benchmarks" / "cifar_loop.py"


# ---- the quick-mode sample ---------------------------------------------------------------------------


def test_make_quick_cifar10_is_cifar_shaped_balanced_and_deterministic() -> None:
    images, labels = cifar10.draw_shapes(200, seed=3)
    assert images.shape == (200, 32, 32, 3) and images.dtype == np.uint8
    assert labels.dtype == np.int64 and np.bincount(labels).tolist() == [20] * 10
    again_images, again_labels = cifar10.draw_shapes(200, seed=3)
    assert np.array_equal(images, again_images) and np.array_equal(labels, again_labels)
    other_images, _ = cifar10.draw_shapes(200, seed=4)
    assert not np.array_equal(images, other_images)
    assert images.min() == 0 and images.max() == 255  # full range with noise, not a flat colour
    assert len(cifar10.GENERATED_CLASSES) == 10


def test_make_quick_cifar10_classes_differ_in_shape_not_colour() -> None:
    images, labels = cifar10.draw_shapes(1000, seed=0)
    class_means = np.stack([images[labels == k].mean(axis=(0, 1, 2)) for k in range(10)])
    # every class has about the same mean colour (what is left is sampling noise of 100 random colours)
    assert np.ptp(class_means, axis=0).max() < 40
    square, disk = images[labels == 6].std(axis=(1, 2)), images[labels == 4].std(axis=(1, 2))
    assert square.mean() > 10 and disk.mean() > 10  # an object stands out from its background


def test_quick_cifar10_is_cached_and_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = cifar10.generated_sample(tmp_path, n_train=50, n_test=20, seed=1)
    files = list((tmp_path / "cifar10-quick").iterdir())
    assert [f.name for f in files] == ["sample-v1-seed1-50-20.pt"]  # one file, no temporary left behind
    assert [a.shape[0] for a in first] == [50, 50, 20, 20]

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cached sample should have been read, not regenerated")

    monkeypatch.setattr(cifar10, "draw_shapes", fail)
    second = cifar10.generated_sample(tmp_path, n_train=50, n_test=20, seed=1)
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


def test_quick_cifar10_rebuilds_a_damaged_cache(tmp_path: Path) -> None:
    first = cifar10.generated_sample(tmp_path, n_train=30, n_test=10)
    path = tmp_path / "cifar10-quick" / "sample-v1-seed0-30-10.pt"
    path.write_bytes(b"not a torch.save file")
    again = cifar10.generated_sample(tmp_path, n_train=30, n_test=10)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert path.stat().st_size > 1000


def test_quick_train_and_test_splits_differ(tmp_path: Path) -> None:
    train_images, _, test_images, _ = cifar10.generated_sample(tmp_path, n_train=30, n_test=30)
    assert not np.array_equal(train_images, test_images)


# ---- dataset, transform, loaders -----------------------------------------------------------------------


def _small_set(transform: object = None) -> cifar10.CIFARArrays:
    images, labels = cifar10.draw_shapes(20, seed=0)
    return cifar10.CIFARArrays(images, labels, cifar10.GENERATED_CLASSES, transform)


def test_cifar10_transform_scales_and_normalises() -> None:
    image = np.full((32, 32, 3), 255, dtype=np.uint8)
    out = cifar10.preprocess()(image)
    assert out.shape == (3, 32, 32) and out.dtype == torch.float32
    expected = (1 - torch.tensor(cifar10.MEAN)) / torch.tensor(cifar10.STD)
    assert torch.allclose(out[:, 0, 0], expected)


def test_cifar_arrays_items_and_validation() -> None:
    raw = _small_set()
    image, label = raw[3]
    assert isinstance(image, np.ndarray) and image.shape == (32, 32, 3) and isinstance(label, int)
    assert len(raw) == 20 and raw.classes == list(cifar10.GENERATED_CLASSES)
    tensor, same_label = _small_set(cifar10.preprocess())[3]
    assert tensor.shape == (3, 32, 32) and same_label == label
    with pytest.raises(ValueError, match="uint8"):
        cifar10.CIFARArrays(np.zeros((2, 32, 32, 3), dtype=np.float32), [0, 1], ["a", "b"])
    with pytest.raises(ValueError, match="labels"):
        cifar10.CIFARArrays(np.zeros((2, 32, 32, 3), dtype=np.uint8), [0], ["a"])


def test_dataset_pickles_for_spawned_workers() -> None:
    dataset = _small_set(cifar10.preprocess())
    restored = pickle.loads(pickle.dumps(dataset))  # what "spawn" does to send it to each worker
    assert torch.equal(restored[5][0], dataset[5][0]) and restored[5][1] == dataset[5][1]


def test_dataloader_with_a_spawned_worker() -> None:
    loader = DataLoader(
        _small_set(cifar10.preprocess()),
        batch_size=8,
        num_workers=1,
        multiprocessing_context=multiprocessing.get_context("spawn"),
    )
    inputs, targets = next(iter(loader))
    assert inputs.shape == (8, 3, 32, 32) and targets.dtype == torch.int64


def test_cifar10_datasets_quick(tmp_path: Path) -> None:
    train_set, test_set = cifar10.datasets(quick=True, root=tmp_path)
    assert (len(train_set), len(test_set)) == (3000, 1000)
    assert train_set.classes == test_set.classes == list(cifar10.GENERATED_CLASSES)
    assert train_set[0][0].shape == (3, 32, 32)


def test_device_batches_match_the_transform() -> None:
    dataset = _small_set(cifar10.preprocess())
    images, labels = torch.from_numpy(dataset.images), torch.from_numpy(dataset.labels)
    batches = list(cifar10.device_batches(images, labels, batch_size=8, shuffle=False))
    assert [len(y) for _, y in batches] == [8, 8, 4]
    expected = torch.stack([dataset[i][0] for i in range(8)])
    assert torch.equal(batches[0][0], expected) and batches[0][1].tolist() == dataset.labels[:8].tolist()
    shuffled = list(cifar10.device_batches(images, labels, 8, generator=torch.Generator().manual_seed(0)))
    seen = torch.cat([y for _, y in shuffled])
    assert sorted(seen.tolist()) == sorted(labels.tolist()) and not torch.equal(seen, labels)


def test_cifar10_cnn_shapes() -> None:
    model = cifar10.cnn()
    assert model(torch.zeros(2, 3, 32, 32)).shape == (2, 10)
    assert sum(p.numel() for p in model.parameters()) == 145_578


# ---- full mode: real CIFAR-10, or generated data said loudly, or a stop with NB_STRICT_DATA=1 ----------------------


def _assert_clear_message(message: str, folder: str) -> None:
    from torchvision.datasets import CIFAR10

    assert message.startswith("Real CIFAR-10 is not available")
    assert CIFAR10.url in message and cifar10.PAGE in message  # where to get it
    assert f"copy the file into {folder}" in message  # and where to put it


def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make torchvision's download fail as it does without a network, and clear the data settings."""
    import torchvision.datasets.cifar

    def offline(*args: object, **kwargs: object) -> None:
        raise urllib.error.URLError("[Errno -2] Name or service not known")

    monkeypatch.setattr(torchvision.datasets.cifar, "download_and_extract_archive", offline)
    for name in (utils.STRICT_DATA_ENV, utils.GENERATED_ENV):
        monkeypatch.delenv(name, raising=False)


def _fake_generated(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Replace the (slow, 60,000-image) generated set by a tiny one; return the sizes asked for."""
    asked = []

    def fake_sample(root: object, n_train: int = 3000, n_test: int = 1000) -> tuple[np.ndarray, ...]:
        asked.append((n_train, n_test))
        return cifar10.draw_shapes(4) + cifar10.draw_shapes(2)

    monkeypatch.setattr(cifar10, "generated_sample", fake_sample)
    return asked


def test_offline_download_gives_one_clear_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _offline(monkeypatch)
    with pytest.raises(RuntimeError) as caught:
        cifar10.load_real(train=True, root=tmp_path)
    message = str(caught.value)
    _assert_clear_message(message, f"{tmp_path}/")
    assert "could not download it into" in message and "URLError" in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__  # one message, no chained traceback


def test_offline_full_mode_goes_on_with_generated_data_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    _offline(monkeypatch)
    asked = _fake_generated(monkeypatch)
    train_set, test_set = cifar10.datasets(quick=False, root=tmp_path)
    assert asked == [(50_000, 10_000)]  # CIFAR-10's size and shape
    assert cifar10.is_generated(train_set) and cifar10.is_generated(test_set)
    assert (len(train_set), len(test_set)) == (4, 2) and train_set[0][0].shape == (3, 32, 32)
    banner = capsys.readouterr().err  # stderr: JupyterLab, VS Code and Colab show it in red
    _assert_clear_message(banner.split("!" * 100)[1].strip(), f"{tmp_path}/")
    assert "URLError" in banner and "GENERATED images of the same shape" in banner and "NOT CIFAR-10" in banner
    assert f"{utils.STRICT_DATA_ENV}=1 to stop here" in banner


def test_strict_data_stops_with_the_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _offline(monkeypatch)
    asked = _fake_generated(monkeypatch)
    monkeypatch.setenv(utils.STRICT_DATA_ENV, "1")
    with pytest.raises(RuntimeError) as caught:
        cifar10.datasets(quick=False, root=tmp_path)
    _assert_clear_message(str(caught.value), f"{tmp_path}/")
    assert f"({utils.STRICT_DATA_ENV}=1 is set, so this stops here.)" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert asked == []  # no generated data in its place


def test_missing_files_without_download(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError) as caught:
        cifar10.load_real(train=False, root=tmp_path / "empty", download=False)
    _assert_clear_message(str(caught.value), f"{tmp_path / 'empty'}/")
    assert "could not find it in" in str(caught.value)


def test_message_shows_paths_inside_the_repo_relative() -> None:
    message = cifar10.unavailable_message(utils.DATA_DIR, OSError("disk full"))
    assert "into data/ (OSError: disk full)" in message and str(utils.ROOT) not in message


def test_a_chinese_notebook_says_it_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """zh notebooks' setup cell calls utils.set_language("zh"): the banner, the strict error, the
    NB_GENERATED_DATA line and load_real's own error (06 shows it) are in Chinese; English when asked."""
    from torchvision.datasets import CIFAR10

    _offline(monkeypatch)
    asked = _fake_generated(monkeypatch)
    monkeypatch.setattr(utils, "_language", "en")
    utils.set_language("zh")
    with pytest.raises(RuntimeError, match="^无法使用真实的CIFAR-10：torchvision没能把它下载到"):
        cifar10.load_real(train=True, root=tmp_path)
    with pytest.raises(RuntimeError, match="^Real CIFAR-10 is not available"):
        cifar10.load_real(train=True, root=tmp_path, lang="en")
    cifar10.datasets(quick=False, root=tmp_path)
    banner = capsys.readouterr().err.split("!" * 100)[1].strip()
    assert banner.startswith(f"无法使用真实的CIFAR-10：torchvision没能把它下载到{tmp_path}/。torchvision的报错：\n")
    assert "\nURLError: " in banner  # the library's error on a line of its own
    assert CIFAR10.url in banner and cifar10.PAGE in banner and f"复制到{tmp_path}/中" in banner
    assert "改用形状相同的生成图像（GENERATED" in banner
    assert f"设置{utils.STRICT_DATA_ENV}=1可以让它在这里停止" in banner
    monkeypatch.setenv(utils.STRICT_DATA_ENV, "1")
    with pytest.raises(RuntimeError) as caught:
        cifar10.datasets(quick=False, root=tmp_path)
    assert str(caught.value).startswith("无法使用真实的CIFAR-10") and "所以到此停止" in str(caught.value)
    assert f"没能在{tmp_path}/中找到它" in cifar10.unavailable_message(tmp_path, OSError("x"), False, "zh")
    monkeypatch.delenv(utils.STRICT_DATA_ENV)
    monkeypatch.setenv(utils.GENERATED_ENV, "1")
    cifar10.datasets(quick=False, root=tmp_path)
    assert capsys.readouterr().out.startswith(f"已设置{utils.GENERATED_ENV}：使用生成的")
    assert asked == [(50_000, 10_000), (50_000, 10_000)]


def _write_fake_cifar10(folder: Path, classes: list[str], monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    """Write 20 images in torchvision's CIFAR-10 file layout under ``folder``; return the images."""
    import torchvision.datasets.cifar
    from torchvision.datasets import CIFAR10

    folder = folder / CIFAR10.base_folder
    folder.mkdir(parents=True)
    images, labels = cifar10.draw_shapes(20, seed=0)
    rows = images.transpose(0, 3, 1, 2).reshape(20, -1)  # CIFAR's on-disk layout: 3072 bytes, channel-major
    for name, _ in CIFAR10.train_list + CIFAR10.test_list:
        batch = {"data": rows, "labels": labels.tolist()}
        (folder / name).write_bytes(pickle.dumps(batch))
    (folder / CIFAR10.meta["filename"]).write_bytes(pickle.dumps({"label_names": classes}))
    # our fake files have other checksums than the real ones torchvision verifies
    monkeypatch.setattr(torchvision.datasets.cifar, "check_integrity", lambda *args, **kwargs: True)
    return images


def test_load_cifar10_reads_torchvision_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    images = _write_fake_cifar10(tmp_path, list(cifar10.GENERATED_CLASSES), monkeypatch)
    got_images, got_labels, classes = cifar10.load_real(train=False, root=tmp_path)
    assert np.array_equal(got_images, images) and np.array_equal(got_labels, cifar10.draw_shapes(20)[1])
    assert classes == list(cifar10.GENERATED_CLASSES)


def test_full_mode_with_the_files_uses_them_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    _offline(monkeypatch)  # the files are there: nothing to download
    classes = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]
    images = _write_fake_cifar10(tmp_path, classes, monkeypatch)
    train_set, test_set = cifar10.datasets(quick=False, root=tmp_path)
    assert not cifar10.is_generated(train_set) and train_set.classes == classes
    assert np.array_equal(test_set.images, images)
    assert capsys.readouterr().err == ""


def test_quick_sets_are_generated(tmp_path: Path) -> None:
    train_set, test_set = cifar10.datasets(quick=True, root=tmp_path)
    assert cifar10.is_generated(train_set) and cifar10.is_generated(test_set)


# ---- gradient clipping -----------------------------------------------------------------------------------------------


def test_clip_gradients_before_step_limits_the_total_norm() -> None:
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    handle = cifar10.clip_gradients_before_step(optimizer, max_norm=1.0)
    before = [p.detach().clone() for p in model.parameters()]
    for p in model.parameters():
        p.grad = torch.full_like(p, 10.0)
    optimizer.step()
    step = torch.cat([(b - p.detach()).flatten() for b, p in zip(before, model.parameters(), strict=True)])
    assert math.isclose(step.norm().item(), 1.0, rel_tol=1e-5)  # lr 1: the step is the clipped gradient
    assert torch.allclose(step, torch.full_like(step, step[0].item()))  # scaled, not cut: same direction
    small = [p.detach().clone() for p in model.parameters()]
    for p in model.parameters():
        p.grad = torch.full_like(p, 0.1)  # total norm 0.1 * sqrt(8) < 1: left alone
    optimizer.step()
    assert all(
        torch.allclose(s - p.detach(), torch.full_like(p, 0.1)) for s, p in zip(small, model.parameters(), strict=True)
    )
    handle.remove()
    for p in model.parameters():
        p.grad = torch.full_like(p, 10.0)
    before = [p.detach().clone() for p in model.parameters()]
    optimizer.step()  # no hook any more: the full step
    assert all(
        torch.allclose(b - p.detach(), torch.full_like(p, 10.0))
        for b, p in zip(before, model.parameters(), strict=True)
    )


def test_clipping_works_inside_utils_train_epoch() -> None:
    torch.manual_seed(0)
    model = cifar10.cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    cifar10.clip_gradients_before_step(optimizer, max_norm=1e-3)
    before = torch.nn.utils.parameters_to_vector(model.parameters()).detach().clone()
    batch = (torch.randn(8, 3, 32, 32), torch.randint(0, 10, (8,)))
    utils.train_epoch(model, [batch], torch.nn.CrossEntropyLoss(), optimizer, torch.device("cpu"))
    moved = (torch.nn.utils.parameters_to_vector(model.parameters()) - before).norm().item()
    assert 0 < moved < 0.01 * 1e-3 * 1.01  # one step of lr * at most max_norm (float32 rounding: 1%)


# ---- the benchmark ----------------------------------------------------------------------------------------


def test_benchmark_smoke(capsys: pytest.CaptureFixture) -> None:
    spec = importlib.util.spec_from_file_location("cifar_loop", BENCHMARK)
    assert spec is not None and spec.loader is not None
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    threads = torch.get_num_threads()
    try:
        rows = benchmark.main(
            [
                "--train-images",
                "64",
                "--test-images",
                "32",
                "--big-batch",
                "32",
                "--repeat",
                "1",
                "--warmup",
                "1",
                "--device",
                "cpu",
                "--compare-cpu",
                "--cpu-threads",
                "1",
            ]
        )
        assert torch.get_num_threads() == 1  # --device cpu ran every CPU timing with --cpu-threads
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    assert [(r["loop"], r["batch"]) for r in rows] == [
        ("source", 64),
        ("notebook", 64),
        ("on-device+item", 64),
        ("on-device", 64),
        ("on-device+item", 32),
        ("on-device", 32),
        ("notebook (cpu)", 64),
    ]
    assert rows[0]["ratio"] == 1.0 and all(r["train_ips"] > 0 and r["eval_ips"] > 0 for r in rows)
    lines = out.splitlines()
    assert "train x source" in out and "1 CPU threads of" in lines[0]
    # the headline is the like-for-like ratio; the rows at another batch size say that they change the optimisation
    assert [line for line in lines if line.startswith("like for like (batch 64")]
    big_rows = [line for line in lines if line.startswith("on-device") and " 32 " in line]
    assert len(big_rows) == 2 and all(line.endswith(benchmark.BIG_BATCH_NOTE) for line in big_rows)
    assert "CPU with 1 threads" in out and "cpu / cpu: " in out


def test_full_mode_uses_full_size_generated_data_when_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    _offline(monkeypatch)
    asked = _fake_generated(monkeypatch)
    monkeypatch.setenv(utils.GENERATED_ENV, "1")
    train_set, test_set = cifar10.datasets(quick=False)
    assert asked == [(50_000, 10_000)] and len(train_set) == 4 and len(test_set) == 2
    out = capsys.readouterr()
    assert "generated CIFAR-shaped images (50,000 + 10,000), not CIFAR-10" in out.out and out.err == ""


# ---- a copy from a mirror, checked: damaged files are named, an interrupted download is not kept ----------------


class _CutResponse(io.BytesIO):
    """What ``urlopen`` returns for a download that the network cuts off after ``len(body)`` of ``length`` bytes."""

    def __init__(self, url: str, body: bytes, length: int) -> None:
        super().__init__(body)
        self.url, self.length = url, length

    def read(self, size: int = -1) -> bytes:
        chunk = super().read(size)
        if not chunk:
            raise ConnectionResetError(104, "Connection reset by peer")
        return chunk


def _clear_data_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (utils.STRICT_DATA_ENV, utils.GENERATED_ENV):
        monkeypatch.delenv(name, raising=False)


def test_a_damaged_archive_from_a_mirror_is_named_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """torchvision's own path: the archive fails its MD5, the download it then tries fails (offline)."""
    _clear_data_settings(monkeypatch)

    def offline(request: object, *args: object, **kwargs: object) -> None:
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    archive = tmp_path / cifar10.ARCHIVE
    archive.write_bytes(b"\x1f\x8b" + bytes(1000))  # a copy cut short on a USB stick: not the archive
    with pytest.raises(RuntimeError) as caught:
        cifar10.load_real(train=True, root=tmp_path)
    message = str(caught.value)
    assert message.startswith(
        f"Real CIFAR-10 is not available: {archive} is damaged (not the MD5 torchvision checks): delete, then copy "
        "again.\nTo get it:"
    )
    _assert_clear_message(message, f"{tmp_path}/")
    assert archive.stat().st_size == 1002  # the student's own file: named, not deleted
    chinese = cifar10.unavailable_message(tmp_path, OSError("x"), lang="zh", damaged=[archive])
    assert chinese.startswith(f"无法使用真实的CIFAR-10：{archive}已经损坏（MD5与torchvision检查的不符）：请删除")


def test_an_interrupted_download_is_removed_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _clear_data_settings(monkeypatch)

    def cut_off(request: urllib.request.Request, *args: object, **kwargs: object) -> _CutResponse:
        return _CutResponse(request.full_url, b"\x1f\x8b" + bytes(40_000), 170_498_071)

    monkeypatch.setattr(urllib.request, "urlopen", cut_off)
    with pytest.raises(RuntimeError) as caught:
        cifar10.load_real(train=True, root=tmp_path)
    archive = tmp_path / cifar10.ARCHIVE
    assert (
        f"could not download it into {tmp_path}/ (ConnectionResetError: [Errno 104] Connection reset by peer); "
        f"the incomplete or wrong download {archive} was removed." in str(caught.value)
    )
    assert list(tmp_path.iterdir()) == []  # nothing half-written kept
    with pytest.raises(RuntimeError) as caught:  # what a Chinese notebook says
        cifar10.load_real(train=True, root=tmp_path, lang="zh")
    assert (
        f"torchvision没能把它下载到{tmp_path}/；下载到一半或内容不对的{archive}已经删除。torchvision的报错：\n"
        "ConnectionResetError: [Errno 104] Connection reset by peer\n" in str(caught.value)
    )


def test_a_damaged_unpacked_batch_is_named(tmp_path: Path) -> None:
    from torchvision.datasets import CIFAR10

    batch = tmp_path / CIFAR10.base_folder / "data_batch_3"
    batch.parent.mkdir()
    batch.write_bytes(b"half a file")
    (tmp_path / CIFAR10.base_folder / "test_batch").write_bytes(b"x")
    with pytest.raises(RuntimeError) as caught:
        cifar10.load_real(train=False, root=tmp_path, download=False)
    damaged = f"{batch}, {tmp_path / CIFAR10.base_folder / 'test_batch'} are damaged"
    assert str(caught.value).startswith(f"Real CIFAR-10 is not available: {damaged}")
    assert cifar10.damaged_files(tmp_path / "nothing-here") == []
    with pytest.raises(RuntimeError) as caught:  # what a Chinese notebook says
        cifar10.load_real(train=False, root=tmp_path, download=False, lang="zh")
    damaged = f"{batch}、{tmp_path / CIFAR10.base_folder / 'test_batch'}已经损坏（MD5与torchvision检查的不符）"
    assert str(caught.value).startswith(f"无法使用真实的CIFAR-10：{damaged}：请删除，然后重新复制。\n获取方法：")


def test_data_label_in_both_languages(monkeypatch: pytest.MonkeyPatch) -> None:
    generated = cifar10.CIFARArrays(*cifar10.draw_shapes(10), cifar10.GENERATED_CLASSES)
    real = cifar10.CIFARArrays(*cifar10.draw_shapes(10), ["airplane", *"bcdefghij"])
    assert [cifar10.data_label(generated, lang) for lang in ("en", "zh")] == [
        "generated shapes, not CIFAR-10",
        "生成的图形，不是CIFAR-10",
    ]
    assert cifar10.data_label(real, "en") == cifar10.data_label(real, "zh") == "CIFAR-10"
    monkeypatch.setattr(utils, "_language", "en")
    assert cifar10.data_label(generated) == "generated shapes, not CIFAR-10"
    utils.set_language("zh")  # what a Chinese notebook's setup cell does
    assert cifar10.data_label(generated) == "生成的图形，不是CIFAR-10"


def test_every_form_of_the_message_says_the_same_in_both_languages() -> None:
    """Every form of the message (not found, not downloaded, a bad download removed, one or two damaged files) names
    the same paths, error, address and sizes in English and in Chinese; the Chinese is Chinese."""
    import re

    error = RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
    root = utils.DATA_DIR / "a folder"
    forms = [
        {"download": False},
        {"download": True},
        {"removed": root / cifar10.ARCHIVE},
        {"damaged": [root / "cifar-10-batches-py" / "data_batch_1"]},
        {"damaged": [root / "x", root / "y"]},
    ]
    for form in forms:
        said = {lang: cifar10.unavailable_message(root, error, lang=lang, **form) for lang in ("en", "zh")}
        assert said["en"].startswith("Real CIFAR-10 is not available: ")
        assert said["zh"].startswith("无法使用真实的CIFAR-10：") and "data/a folder/" in said["zh"]
        named = r"data/[^ ,（）、;；]+|https?://[^ （）();；]+|\d[\d,.]*"  # paths, addresses, numbers
        assert sorted(re.findall(named, said["zh"])) == sorted(re.findall(named, said["en"])), form
        assert ("Dataset not found" in said["zh"]) == ("Dataset not found" in said["en"]), form
    # torchvision's message on a line of its own: no line holds both languages
    assert "报错：\nRuntimeError: Dataset not found" in cifar10.unavailable_message(root, error, False, "zh")


# ---- TensorBoard -----------------------------------------------------------------------------------------------------


def test_tensorboard_command_is_the_script_beside_the_interpreter_or_its_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    interpreter = tmp_path / "bin" / "python"
    interpreter.parent.mkdir()
    monkeypatch.setattr(cifar10.sys, "executable", str(interpreter))
    assert cifar10.tensorboard_command() == [str(interpreter), "-m", "tensorboard.main"]
    script = interpreter.parent / "tensorboard"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert cifar10.tensorboard_command() == [str(script)]


def test_tensorboard_starts_and_stops_from_a_kernel_whose_path_lacks_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As notebook 06 starts it: this interpreter's TensorBoard, found with PATH stripped of the environment's bin
    folder (as a Jupyter kernel may run), on a free port; it serves the log folder, then stops."""
    import json
    import os
    import shutil
    import sys
    import urllib.request

    from torch.utils.tensorboard import SummaryWriter

    environment_bin = Path(sys.executable).parent
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and Path(p) != environment_bin]
    monkeypatch.setenv("PATH", os.pathsep.join(path))
    monkeypatch.delenv("TENSORBOARD_BINARY", raising=False)
    found = shutil.which("tensorboard")
    assert found is None or Path(found).parent != environment_bin  # the kernel's PATH has not this one
    with SummaryWriter(log_dir=str(tmp_path / "runs" / "one")) as writer:
        writer.add_scalar("loss/train", 1.0, global_step=1)
    port = cifar10.start_tensorboard(tmp_path / "runs")
    try:
        process = cifar10._TENSORBOARDS[port][0]
        assert process.args[0] in (str(environment_bin / "tensorboard"), sys.executable)
        if len(cifar10.tensorboard_command()) == 1:  # the %tensorboard magic would find the same one
            assert os.environ["TENSORBOARD_BINARY"] == cifar10.tensorboard_command()[0]
        with urllib.request.urlopen(f"http://localhost:{port}/data/logdir", timeout=10) as answer:
            assert json.loads(answer.read())["logdir"] == str(tmp_path / "runs")
        assert port in cifar10.running_tensorboards()
    finally:
        assert cifar10.stop_tensorboard(port)
    assert process.poll() is not None and port not in cifar10.running_tensorboards()  # stopped
    assert not cifar10.stop_tensorboard(port)  # twice: harmless
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://localhost:{port}/data/logdir", timeout=2)


def test_a_tensorboard_that_cannot_start_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "tensorboard"
    script.write_text("#!/bin/sh\necho 'no such flag' >&2\nexit 2\n")
    script.chmod(0o755)
    monkeypatch.setattr(cifar10, "tensorboard_command", lambda: [str(script)])
    monkeypatch.delenv("TENSORBOARD_BINARY", raising=False)
    with pytest.raises(RuntimeError, match=r"(?s)exited with code 2.*no such flag"):
        cifar10.start_tensorboard(tmp_path, timeout_s=20)
    assert not cifar10._TENSORBOARDS  # nothing left running
