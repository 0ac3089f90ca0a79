"""lessons/exercises.py: for every exercise, the reference solution passes, plausible wrong answers fail with the
sentence that says what is wrong, and the stub counts as "not answered yet" (printed, never raised, unless strict).

The reference answers below are the notebooks' solutions in the answer cell's form (a function, a class, or the
values the exercise asks for); the wrong ones are mistakes students make.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

import utils
from lessons import exercises


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    before = utils.language()
    utils.set_language("en")
    yield
    utils.set_language(before)


def stub(*args: Any, **kwargs: Any) -> Any:
    """The answer cell's stub for a function, as a student first finds it."""
    raise NotImplementedError("your code here")


class StubModule(nn.Module):
    """The answer cell's stub for a class."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        raise NotImplementedError("your code here")


def status(lesson: str, number: int, *answers: Any, **context: Any) -> tuple[str, str]:
    return exercises.result(lesson, number, *answers, **context)


def assert_correct(lesson: str, number: int, *answers: Any, **context: Any) -> None:
    kind, sentence = status(lesson, number, *answers, **context)
    assert kind == "correct", sentence


def assert_wrong(lesson: str, number: int, *answers: Any, says: str, **context: Any) -> None:
    kind, sentence = status(lesson, number, *answers, **context)
    assert kind == "wrong", sentence
    assert says in sentence, sentence


def assert_unanswered(lesson: str, number: int, *answers: Any, **context: Any) -> None:
    kind, sentence = status(lesson, number, *answers, **context)
    assert kind == "unanswered" and "not answered yet" in sentence, sentence


# ---- 01 --------------------------------------------------------------------------------------------------------------
def usable_devices() -> list[torch.device]:
    found = [torch.device("cpu")]
    found += [torch.device(f"cuda:{i}") for i in range(torch.cuda.device_count())]
    if torch.backends.mps.is_available():
        found.append(torch.device("mps"))
    return found


def fake_two_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two CUDA GPUs behind torch's C layer, as after its lazy initialisation (undone after the test)."""
    monkeypatch.setattr(torch._C, "_cuda_getDeviceCount", lambda: 2, raising=False)
    monkeypatch.setattr(torch.cuda, "_initialized", True)
    monkeypatch.setattr(torch.cuda, "_cached_device_count", None)
    monkeypatch.setattr(torch.cuda, "_is_compiled", lambda: True)
    assert torch.cuda.device_count() == 2 and torch.cuda.is_available()


def test_01_1(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_correct("01", 1, usable_devices)
    assert_wrong("01", 1, lambda: ["cpu"], says="holds 'cpu' (str)")
    assert_wrong("01", 1, lambda: [], says="lists the CPU 0 times")
    assert_unanswered("01", 1, stub)
    fake_two_gpus(monkeypatch)
    assert_correct("01", 1, usable_devices)
    assert_wrong("01", 1, lambda: [torch.device("cpu")], says="this machine has 2")
    assert_wrong("01", 1, lambda: [torch.device("cpu"), torch.device("cuda")], says="without a number")


def visible_gpus(value: str, n_gpus: int) -> list[int]:
    seen = []
    for entry in value.split(","):
        if not entry.strip().isdigit() or int(entry) >= n_gpus:
            break
        seen.append(int(entry))
    return seen


def test_01_2() -> None:
    assert_correct("01", 2, visible_gpus)
    skipping = lambda value, n: [int(e) for e in value.split(",") if e.strip().isdigit() and int(e) < n]  # noqa: E731
    assert_wrong("01", 2, skipping, says="`visible_gpus('0,2,-1,1', 4)` returned [0, 2, 1]")
    assert_wrong("01", 2, lambda value, n: sorted(visible_gpus(value, n)), says="'3,1', 4)` returned [1, 3]")
    assert_wrong("01", 2, lambda value, n: [int(e) for e in value.split(",")], says="returned [0, 2, -1, 1]")
    assert_wrong("01", 2, lambda value, n: [int(value)], says="`visible_gpus('0,2,3', 4)` raised ValueError")
    assert_unanswered("01", 2, stub)


def test_01_3() -> None:
    assert_correct("01", 3, 400_000_000, "cpu")
    assert_correct("01", 3, 4 * 10_000 * 10_000, "cpu")
    assert_wrong("01", 3, 100_000_000, "cpu", says="number of elements")
    assert_wrong("01", 3, 400_000_000, "both", says="`data_ptr()` is 0")
    assert_wrong("01", 3, 400_000_000, "CPU", says="answer one of")
    assert_unanswered("01", 3, None, None)
    kind, sentence = status("01", 3, 400_000_000, None)
    assert kind == "unanswered" and "`really_allocates` still None" in sentence


# ---- 02 --------------------------------------------------------------------------------------------------------------
def module_device(module: nn.Module) -> torch.device | None:
    devices = {t.device for t in [*module.parameters(), *module.buffers()]}
    if len(devices) > 1:
        raise ValueError(f"module has tensors on several devices: {sorted(map(str, devices))}")
    return devices.pop() if devices else None


def test_02_1() -> None:
    assert_correct("02", 1, module_device)
    assert_wrong("02", 1, lambda m: next(m.parameters()).device, says="`module_device(nn.ReLU())` raised StopIteration")
    assert_wrong("02", 1, lambda m: torch.device("cpu"), says="`module_device(nn.ReLU())` returned cpu; a module "
                 "without parameters or buffers has no device: return `None`")
    params_only = lambda m: ({p.device for p in m.parameters()} or {None}).pop()  # noqa: E731
    assert_wrong("02", 1, params_only, says="buffers count too")
    assert_wrong("02", 1, lambda m: module_device(m) and str(module_device(m)), says="returned the string 'cpu'")

    def silent(module: nn.Module) -> torch.device | None:
        devices = {t.device for t in [*module.parameters(), *module.buffers()]}
        return devices.pop() if devices else None

    assert_wrong("02", 1, silent, says="mixed devices must raise a ValueError")

    def unnamed(module: nn.Module) -> torch.device | None:
        if len({t.device for t in [*module.parameters(), *module.buffers()]}) > 1:
            raise ValueError("mixed")
        return module_device(module)

    assert_wrong("02", 1, unnamed, says="name both devices")
    assert_unanswered("02", 1, stub)


def test_02_2() -> None:
    assert_correct("02", 2, "offset", "cpu")
    assert_correct("02", 2, "offset", torch.device("cpu"))
    assert_wrong("02", 2, "bias", "cpu", says="which tensor of the layer does it not list?")
    assert_wrong("02", 2, "offset", "meta", says="print `layer.offset.device`")
    assert_unanswered("02", 2, None, None)


def test_02_3() -> None:
    right = {"BCEWithLogitsLoss": ["pos_weight"], "NLLLoss": ["weight"], "CrossEntropyLoss": []}
    assert_correct("02", 3, right)
    assert_wrong("02", 3, {**right, "NLLLoss": []}, says="`tensors_held['NLLLoss']` is []")
    assert_wrong("02", 3, {"BCEWithLogitsLoss": ["pos_weight"]}, says="use the class names")
    assert_wrong("02", 3, ["BCEWithLogitsLoss", "NLLLoss"], says="give a dict")
    assert_unanswered("02", 3, None)


# ---- 03 --------------------------------------------------------------------------------------------------------------
class LowerTriangle(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return X * self.mask


class SavedTriangle(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(n, n)))

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return X * self.mask


class PlainTriangle(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.mask = torch.tril(torch.ones(n, n))

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return X * self.mask


class UpperTriangle(LowerTriangle):
    def __init__(self, n: int):
        super().__init__(n)
        self.register_buffer("mask", torch.triu(torch.ones(n, n)), persistent=False)


def test_03_1() -> None:
    assert_correct("03", 1, LowerTriangle)
    assert_wrong("03", 1, SavedTriangle, says="`persistent=False` is left out")
    assert_wrong("03", 1, PlainTriangle, says="has the buffers []")
    assert_wrong("03", 1, UpperTriangle, says="has the buffers ['mask']")
    assert_unanswered("03", 1, StubModule)


class Parallel(nn.Module):
    def __init__(self, module_a: nn.Module, module_b: nn.Module):
        super().__init__()
        self.module_a, self.module_b = module_a, module_b

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.module_a(X), self.module_b(X)], dim=-1)


class ListParallel(Parallel):
    def __init__(self, module_a: nn.Module, module_b: nn.Module):
        nn.Module.__init__(self)
        self.pair = [module_a, module_b]  # a plain list: invisible to .to() and .parameters()

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return torch.cat([m(X) for m in self.pair], dim=-1)


class Dim1Parallel(Parallel):
    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.module_a(X), self.module_b(X)], dim=1)


class SwappedParallel(Parallel):
    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.module_b(X), self.module_a(X)], dim=-1)


def test_03_2() -> None:
    assert_correct("03", 2, Parallel)
    assert_wrong("03", 2, ListParallel, says="yields 0 tensors")
    assert_wrong("03", 2, Dim1Parallel, says="`parallel(torch.randn(2, 4, 5))` raised RuntimeError: Sizes of tensors")
    assert_wrong("03", 2, SwappedParallel, says="module_a's output followed by module_b's")
    assert_unanswered("03", 2, StubModule)


def test_03_3() -> None:
    assert_correct("03", 3, 3456)
    assert_wrong("03", 3, 6 * 28 * 28, says="without padding makes the image smaller")
    assert_wrong("03", 3, 576, says="counts one channel")
    assert_unanswered("03", 3, None)


# ---- 04 --------------------------------------------------------------------------------------------------------------
def test_04_1() -> None:
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8))
    assert_correct("04", 1, len(list(model.parameters())), len(model.state_dict()))
    assert_wrong("04", 1, sum(p.numel() for p in model.parameters()), 7, says="the number of values")
    assert_wrong("04", 1, 4, 4, says="BatchNorm's buffers are in the state_dict too")
    assert_unanswered("04", 1, None, None)


def test_04_2() -> None:
    encoder, decoder = nn.Linear(8, 8), nn.Linear(8, 8)
    decoder.weight = encoder.weight
    pair = nn.Sequential(encoder, decoder)
    answers = [pair.to("cpu")[0].weight is pair[1].weight, pair.to(torch.float16)[0].weight is pair[1].weight,
               pair.to("meta")[0].weight is pair[1].weight]
    assert_correct("04", 2, *answers)
    assert_wrong("04", 2, True, True, True, says="test `pair.to('meta')[0].weight is pair[1].weight`")
    assert_wrong("04", 2, True, False, False, says="a dtype change is also made in place")
    assert_wrong("04", 2, "yes", True, False, says="answer True or False")
    assert_unanswered("04", 2, True, None, None)


def init_orthogonal(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        nn.init.orthogonal_(module.weight)


def test_04_3() -> None:
    assert_correct("04", 3, init_orthogonal)
    assert_wrong("04", 3, lambda m: nn.init.orthogonal_(m.weight), says="`init_orthogonal(nn.ReLU())` raised")

    def every_weight(module: nn.Module) -> None:
        if hasattr(module, "weight"):
            nn.init.orthogonal_(module.weight)

    assert_wrong("04", 3, every_weight, says="changed a Conv2d's weight")

    def normal(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight)

    assert_wrong("04", 3, normal, says="is not orthogonal")
    assert_unanswered("04", 3, stub)


# ---- 05 --------------------------------------------------------------------------------------------------------------
def test_05_1() -> None:
    assert_correct("05", 1, False)
    assert_wrong("05", 1, True, says="momentum that restarts from zero")
    assert_wrong("05", 1, "no", says="answer True or False")
    assert_unanswered("05", 1, None)


def test_05_2() -> None:
    assert_correct("05", 2, torch.float32, 18 / 34)
    assert_wrong("05", 2, torch.float16, 18 / 34, says="copies into the model's own tensors")
    assert_wrong("05", 2, torch.float32, 34 / 18, says="divide the float16 file's size")
    assert_unanswered("05", 2, None, None)


def keep_best(model: nn.Module, score: float, best_path: Path, best_score: float) -> float:
    if score > best_score:
        utils.atomic_save(model.state_dict(), best_path)
        return score
    return best_score


def test_05_3() -> None:
    assert_correct("05", 3, keep_best)

    def always(model: nn.Module, score: float, best_path: Path, best_score: float) -> float:
        utils.atomic_save(model.state_dict(), best_path)
        return max(score, best_score)

    assert_wrong("05", 3, always, says="save only when the score beats the best one")

    def plain(model: nn.Module, score: float, best_path: Path, best_score: float) -> float:
        if score > best_score:
            torch.save(model.state_dict(), best_path)
            return score
        return best_score

    assert_wrong("05", 3, plain, says="without `utils.atomic_save`")

    def whole(model: nn.Module, score: float, best_path: Path, best_score: float) -> float:
        if score > best_score:
            utils.atomic_save(model, best_path)
            return score
        return best_score

    assert_wrong("05", 3, whole, says="is not a state_dict")
    assert_wrong("05", 3, lambda model, score, path, best: keep_best(model, score, path, best) and None,
                 says="returned None; expected 0.6")
    assert_unanswered("05", 3, stub)


# ---- 06 --------------------------------------------------------------------------------------------------------------
def test_06_1() -> None:
    assert_correct("06", 1, [5, 10, 15, 20])
    assert_wrong("06", 1, [0, 1, 2, 3], says="not the values logged")
    assert_wrong("06", 1, [4, 9, 14, 19], says="count from 1")
    assert_unanswered("06", 1, None)


def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 3))


@pytest.fixture()
def checkpoint(tmp_path: Path) -> Path:
    torch.manual_seed(0)
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    nn.functional.cross_entropy(model(torch.randn(8, 4)), torch.randint(0, 3, (8,))).backward()
    optimizer.step()
    path = tmp_path / "epoch_01.pt"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 1}, path)
    return path


def resume(path: Path) -> tuple[nn.Module, torch.optim.Optimizer]:
    from lessons import cifar10

    state = torch.load(path, map_location="cpu", weights_only=True)
    model = make_model()
    model.load_state_dict(state["model"])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    optimizer.load_state_dict(state["optimizer"])
    cifar10.clip_gradients_before_step(optimizer, max_norm=5.0)
    return model, optimizer


def test_06_2(checkpoint: Path) -> None:
    from lessons import cifar10

    assert_correct("06", 2, resume, checkpoint=checkpoint)

    def no_clipping(path: Path) -> tuple[nn.Module, torch.optim.Optimizer]:
        state = torch.load(path, weights_only=True)
        model = make_model()
        model.load_state_dict(state["model"])
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        optimizer.load_state_dict(state["optimizer"])
        return model, optimizer

    assert_wrong("06", 2, no_clipping, says="gradient clipping is not registered", checkpoint=checkpoint)

    def fresh_optimizer(path: Path) -> tuple[nn.Module, torch.optim.Optimizer]:
        model, _ = no_clipping(path)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        cifar10.clip_gradients_before_step(optimizer, max_norm=5.0)
        return model, optimizer

    assert_wrong("06", 2, fresh_optimizer, says="no momentum buffers", checkpoint=checkpoint)

    def fresh_model(path: Path) -> tuple[nn.Module, torch.optim.Optimizer]:
        _, optimizer = resume(path)
        return make_model(), optimizer

    assert_wrong("06", 2, fresh_model, says="is not the checkpoint's", checkpoint=checkpoint)
    assert_unanswered("06", 2, stub, checkpoint=checkpoint)


def test_06_3() -> None:
    from torchvision import transforms

    from lessons import cifar10

    augment = transforms.Compose([
        transforms.ToTensor(),
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.Normalize(cifar10.CIFAR10_MEAN, cifar10.CIFAR10_STD),
    ])
    assert_correct("06", 3, augment)
    no_flip = transforms.Compose([augment.transforms[i] for i in (0, 1, 3)])
    assert_wrong("06", 3, no_flip, says="add a horizontal flip")
    lambdas = transforms.Compose([*augment.transforms[:3], transforms.Lambda(lambda x: (x - 0.5) / 0.25)])
    assert_wrong("06", 3, lambdas, says="normalise as the test transform does")
    no_padding = transforms.Compose([augment.transforms[0], transforms.RandomCrop(32), *augment.transforms[2:]])
    assert_wrong("06", 3, no_padding, says="padding 4")
    unpicklable = transforms.Compose([*augment.transforms, transforms.Lambda(lambda x: x)])
    assert_wrong("06", 3, unpicklable, says="cannot be pickled")
    assert_unanswered("06", 3, None)


# ---- 07 --------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pets(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    from lessons import petimages

    pet_dir = petimages.make_quick_petimages(tmp_path_factory.mktemp("pets"), per_class=8)
    return petimages.build_petimages(pet_dir, size=16, workers=1), pet_dir


def test_07_1(pets: tuple[dict[str, Any], Path]) -> None:
    from lessons import petimages

    data, pet_dir = pets
    strict = petimages.build_petimages(pet_dir, size=16, workers=1, keep_truncated=False)
    dropped = sorted(set(data["files"]) - set(strict["files"]))
    assert dropped == ["Dog/2.jpg"]
    assert_correct("07", 1, dropped, data=data, pet_dir=pet_dir)
    assert_wrong("07", 1, ["Cat/3.jpg"], says="`Cat/3.jpg` is not a truncated JPEG", data=data, pet_dir=pet_dir)
    assert_wrong("07", 1, [], says="the cleaning report counts 1 truncated", data=data, pet_dir=pet_dir)
    assert_wrong("07", 1, ["Cat/666.jpg"], says="did not keep either", data=data, pet_dir=pet_dir)
    assert_unanswered("07", 1, None, data=data, pet_dir=pet_dir)


def gradients(p: float) -> tuple[float, float]:
    import torch.nn.functional as F  # noqa: N812 (as in the notebooks)

    correct = torch.tensor([2])
    z = float(np.log(2 * p / (1 - p)))
    logits = torch.tensor([[0.0, 0.0, z]], requires_grad=True)
    grad_ce = torch.autograd.grad(F.cross_entropy(logits, correct), logits)[0][0, 2].item()
    mse = F.mse_loss(logits.softmax(dim=1), F.one_hot(correct, 3).float())
    return grad_ce, torch.autograd.grad(mse, logits)[0][0, 2].item()


def test_07_2() -> None:
    import torch.nn.functional as F  # noqa: N812

    assert_correct("07", 2, gradients)

    def summed(p: float) -> tuple[float, float]:
        z = float(np.log(2 * p / (1 - p)))
        logits = torch.tensor([[0.0, 0.0, z]], requires_grad=True)
        mse = F.mse_loss(logits.softmax(dim=1), F.one_hot(torch.tensor([2]), 3).float(), reduction="sum")
        return gradients(p)[0], torch.autograd.grad(mse, logits)[0][0, 2].item()

    assert_wrong("07", 2, summed, says="F.mse_loss averages over the 3 outputs")
    assert_wrong("07", 2, lambda p: (1 - p, gradients(p)[1]), says="it should be p - 1")
    assert_wrong("07", 2, lambda p: gradients(p)[0], says="return two numbers")
    assert_unanswered("07", 2, stub)


def test_07_3() -> None:
    assert_correct("07", 3, 2048)
    assert_wrong("07", 3, 512, says="the size for 50x50 images")
    assert_wrong("07", 3, 128 * 5 * 5, says="print `Net(size=64).fc1.in_features`")
    assert_unanswered("07", 3, None)


# ---- 08 --------------------------------------------------------------------------------------------------------------
def test_08_1() -> None:
    from torch.utils.data import DistributedSampler, TensorDataset

    dataset = TensorDataset(torch.zeros(512, 1))
    shards = [list(DistributedSampler(dataset, num_replicas=3, rank=r, shuffle=True, seed=0)) for r in range(3)]
    every = [i for shard in shards for i in shard]
    assert_correct("08", 1, [len(s) for s in shards], len(every) - len(set(every)))
    assert_wrong("08", 1, [170, 171, 171], 0, says="every shard has the same length")
    assert_wrong("08", 1, [171, 171, 171], 0, says="513 indices for 512 examples")
    assert_unanswered("08", 1, None, None)


def test_08_2() -> None:
    assert_correct("08", 2, True, False)
    assert_wrong("08", 2, True, True, says="every epoch shuffles with the same seed")
    assert_wrong("08", 2, False, False, says="seeds each epoch's shuffle")
    assert_unanswered("08", 2, None, False)


def step_in_halves(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor) -> None:
    optimizer.zero_grad()
    for part_x, part_y in zip(x.chunk(2), y.chunk(2), strict=True):
        (nn.functional.cross_entropy(model(part_x), part_y) / 2).backward()
    optimizer.step()


def test_08_3() -> None:
    assert_correct("08", 3, step_in_halves)

    def undivided(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor) -> None:
        optimizer.zero_grad()
        for part_x, part_y in zip(x.chunk(2), y.chunk(2), strict=True):
            nn.functional.cross_entropy(model(part_x), part_y).backward()
        optimizer.step()

    assert_wrong("08", 3, undivided, says="divide each half's loss by 2")

    def zeroed_between(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor) -> None:
        for part_x, part_y in zip(x.chunk(2), y.chunk(2), strict=True):
            optimizer.zero_grad()
            (nn.functional.cross_entropy(model(part_x), part_y) / 2).backward()
        optimizer.step()

    assert_wrong("08", 3, zeroed_between, says="the weights differ from one step on the whole batch")
    assert_wrong("08", 3, lambda model, optimizer, x, y: None, says="did not change the weights")
    assert_unanswered("08", 3, stub)


# ---- 09 --------------------------------------------------------------------------------------------------------------
def time_ms(fn: Callable[[], Any], device: torch.device) -> float:
    import statistics

    if device.type == "cuda":  # not run here: no GPU
        start_event, end_event = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start_event.record()
        fn()
        end_event.record()
        torch.cuda.synchronize()
        return start_event.elapsed_time(end_event)
    return statistics.median(utils.time_runs(fn, device, warmup=1, repeat=3)) * 1e3


def test_09_1() -> None:
    start = time.perf_counter()
    assert_correct("09", 1, time_ms)
    assert time.perf_counter() - start < 1.0  # a 20 ms sleep, four times
    assert_wrong("09", 1, lambda fn, device: time_ms(fn, device) / 1e3, says="seconds, not milliseconds")
    assert_wrong("09", 1, lambda fn, device: 0.0, says="a 20 ms sleep takes 20 ms")
    assert_wrong("09", 1, lambda fn, device: "fast", says="return a number of milliseconds")
    assert_unanswered("09", 1, stub)


def test_09_2() -> None:
    sizes = [16, 32, 64, 128, 160]
    assert_correct("09", 2, sizes, [100.0, 180.0, 250.0, 260.0, 262.0], big_batch=160)
    assert_wrong("09", 2, sizes[:4], [1.0] * 4, says="sweep [16, 32, 64, 128, 160]", big_batch=160)
    assert_wrong("09", 2, sizes, [1.0] * 4, says="one images/s figure per batch size", big_batch=160)
    assert_wrong("09", 2, sizes, [1.0, 2.0, -1.0, 3.0, 4.0], says="are positive numbers", big_batch=160)
    assert_unanswered("09", 2, sizes, None, big_batch=160)


def test_09_3() -> None:
    assert_correct("09", 3, 2.80, 3.00, 0)
    assert_wrong("09", 3, 3, 3.0, 0, says="exactly 3, the rule of thumb")
    assert_wrong("09", 3, 2.8, 2.8, 0, says="count again with images that require a gradient")
    assert_wrong("09", 3, 2.8, 3.0, -1, says="which layer's input is the images themselves?")
    assert_unanswered("09", 3, 2.8, 3.0, None)


# ---- 10 --------------------------------------------------------------------------------------------------------------
def test_10_1() -> None:
    conv_outputs = [(32, 32, 32), (32, 16, 16), (64, 8, 8)]
    pooled = [(32, 16, 16), (32, 8, 8), (64, 4, 4)]
    per_image = sum(4 * math.prod(o) + 12 * math.prod(p) for o, p in zip(conv_outputs, pooled, strict=True))
    per_image += 4 * 64 + 4 * 10
    assert_correct("10", 1, per_image)
    assert_wrong("10", 1, per_image - sum(8 * math.prod(p) for p in pooled), says="leaves out the max-pools' int64")
    assert_wrong("10", 1, per_image - 4 * 74, says="leaves out the linear layers' outputs")
    assert_wrong("10", 1, 315_000, says="section 3 measured 315,688")
    assert_wrong("10", 1, 315_688.0, says="give a whole number of bytes")
    assert_unanswered("10", 1, None)


def test_10_2() -> None:
    assert_correct("10", 2, (19.27 - 7.27) / (19.27 - 2.75))
    assert_wrong("10", 2, 73, says="is a percentage")
    assert_wrong("10", 2, 7.27 / 19.27, says="divide the bytes that checkpointing the first block saves")
    assert_unanswered("10", 2, None)


def test_10_3(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_correct("10", 3, 21, sgd_largest=22)
    assert_correct("10", 3, 22, sgd_largest=22)
    assert_wrong("10", 3, 23, says="Adam keeps more state", sgd_largest=22)
    assert_wrong("10", 3, 0, says="give the largest batch size that fits", sgd_largest=22)
    assert_unanswered("10", 3, None, sgd_largest=22)
    fake_two_gpus(monkeypatch)  # measured on a real GPU: the caching allocator decides, Adam may even fit more
    assert_correct("10", 3, 23, sgd_largest=22)


# ---- the whole module ------------------------------------------------------------------------------------------------
def test_every_exercise_is_tested_here() -> None:
    tested = {(name[5:7], int(name[8])) for name in globals() if name.startswith("test_") and name[5:7].isdigit()}
    assert tested == set(exercises.EXERCISES)
    assert len(exercises.EXERCISES) == 30


def test_check_prints_and_never_raises_unless_strict(capsys: pytest.CaptureFixture) -> None:
    exercises.check("02", 1, stub)
    exercises.check("02", 1, lambda m: torch.device("cpu"))
    exercises.check("02", 1, module_device)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Exercise 1: not answered yet")
    assert lines[1].startswith("Exercise 1: not yet. `module_device(nn.ReLU())` returned cpu")
    assert lines[2] == "Exercise 1: correct."
    with pytest.raises(AssertionError, match="returned cpu; a module without parameters"):
        exercises.check("02", 1, lambda m: torch.device("cpu"), strict=True)
    with pytest.raises(AssertionError, match="not answered yet"):
        exercises.check("02", 1, stub, strict=True)
    exercises.check("02", 1, module_device, strict=True)
    assert capsys.readouterr().out == "Exercise 1: correct.\n"


def test_an_answer_of_an_unforeseen_kind_is_wrong_not_an_error() -> None:
    held = {"BCEWithLogitsLoss": ["pos_weight", 1], "NLLLoss": ["weight"], "CrossEntropyLoss": []}  # unsortable
    kind, sentence = status("02", 3, held)
    assert kind == "wrong" and "could not be checked (TypeError" in sentence, sentence


def test_explanations_are_pointed_to(capsys: pytest.CaptureFixture) -> None:
    exercises.check("03", 3, 3456)
    assert "\"Why is a lazy layer handy here?\" is not for the check: answer it in words" in capsys.readouterr().out


def test_hint(capsys: pytest.CaptureFixture) -> None:
    exercises.hint("02", 1)
    assert capsys.readouterr().out.startswith("Hint for exercise 1: How many different devices")
    with pytest.raises(ValueError, match="no exercise 4 in notebook '02'"):
        exercises.hint("02", 4)


def test_wrong_number_of_answers_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="takes bytes_needed, really_allocates"):
        exercises.check("01", 3, 400_000_000)
    with pytest.raises(TypeError, match="takes sizes, rates, big_batch=big_batch"):
        exercises.check("09", 2, [16], [1.0])


def test_chinese_messages(capsys: pytest.CaptureFixture) -> None:
    utils.set_language("zh")
    exercises.check("02", 1, stub)
    exercises.check("02", 1, lambda m: torch.device("cpu"))
    exercises.check("02", 1, module_device)
    exercises.check("03", 3, 3456)
    exercises.hint("02", 1)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("练习1：尚未作答")
    assert lines[1] == ("练习1：还不对。`module_device(nn.ReLU())`返回了cpu；没有参数也没有缓冲区的模块没有设备："
                        "应返回`None`。")
    assert lines[2] == "练习1：正确。"
    assert lines[3].startswith("练习3：正确。问题“为什么这里用延迟初始化的层很方便？”不由检查判断：请用文字回答")
    assert lines[4].startswith("练习1的提示：")


def test_every_message_has_a_chinese_twin() -> None:
    """Every hint and explanation exists in both languages, the Chinese one in Chinese."""
    for found in exercises.EXERCISES.values():
        assert found.hint_en and any("\u4e00" <= c <= "\u9fff" for c in found.hint_zh), found
        assert bool(found.explain_en) == bool(found.explain_zh), found


def test_checks_leave_the_random_generators_alone() -> None:
    torch.manual_seed(123)
    np.random.seed(123)
    expected = torch.rand(3), np.random.rand(3)
    torch.manual_seed(123)
    np.random.seed(123)
    exercises.result("04", 3, init_orthogonal)
    exercises.result("03", 2, Parallel)
    assert torch.equal(torch.rand(3), expected[0]) and np.array_equal(np.random.rand(3), expected[1])


def test_all_checks_take_about_a_second(checkpoint: Path, pets: tuple[dict[str, Any], Path]) -> None:
    """Every reference answer checked in one go: the cost of the checks in a notebook run."""
    data, pet_dir = pets
    answers: dict[tuple[str, int], tuple[tuple[Any, ...], dict[str, Any]]] = {
        ("01", 1): ((usable_devices,), {}), ("01", 2): ((visible_gpus,), {}), ("01", 3): ((400_000_000, "cpu"), {}),
        ("02", 1): ((module_device,), {}), ("02", 2): (("offset", "cpu"), {}),
        ("02", 3): (({"BCEWithLogitsLoss": ["pos_weight"], "NLLLoss": ["weight"], "CrossEntropyLoss": []},), {}),
        ("03", 1): ((LowerTriangle,), {}), ("03", 2): ((Parallel,), {}), ("03", 3): ((3456,), {}),
        ("04", 1): ((4, 7), {}), ("04", 2): ((True, True, False), {}), ("04", 3): ((init_orthogonal,), {}),
        ("05", 1): ((False,), {}), ("05", 2): ((torch.float32, 0.53), {}), ("05", 3): ((keep_best,), {}),
        ("06", 1): (([5, 10, 15, 20],), {}), ("06", 2): ((resume,), {"checkpoint": checkpoint}),
        ("07", 1): ((["Dog/2.jpg"],), {"data": data, "pet_dir": pet_dir}), ("07", 2): ((gradients,), {}),
        ("07", 3): ((2048,), {}), ("08", 1): (([171] * 3, 1), {}), ("08", 2): ((True, False), {}),
        ("08", 3): ((step_in_halves,), {}), ("09", 1): ((time_ms,), {}),
        ("09", 2): (([16, 32, 64, 128], [1.0] * 4), {"big_batch": 128}), ("09", 3): ((2.8, 3.0, 0), {}),
        ("10", 1): ((315_688,), {}), ("10", 2): ((0.73,), {}), ("10", 3): ((21,), {"sgd_largest": 22}),
    }
    from torchvision import transforms

    from lessons import cifar10

    answers[("06", 3)] = ((transforms.Compose([
        transforms.ToTensor(), transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
        transforms.Normalize(cifar10.CIFAR10_MEAN, cifar10.CIFAR10_STD)]),), {})
    start = time.perf_counter()
    for (lesson, number), (given, context) in answers.items():
        assert exercises.result(lesson, number, *given, **context)[0] == "correct", (lesson, number)
    assert time.perf_counter() - start < 5.0  # about a second on an idle 2-core CPU; room for a loaded one


def test_stored_sentences_in_either_language() -> None:
    """What a check stores for a stub or a right answer reads in the edition's language (tools/translate.py)."""
    english = [status("01", 3, None, None)[1], status("02", 1, stub)[1], status("03", 3, 3456)[1]]
    utils.set_language("zh")
    chinese = [status("01", 3, None, None)[1], status("02", 1, stub)[1], status("03", 3, 3456)[1]]
    utils.set_language("en")
    text = "\n".join([*english, "a line of the solution's own"]) + "\n"
    assert exercises.stored_sentence(text, "zh") == "\n".join([*chinese, "a line of the solution's own"]) + "\n"
    assert exercises.stored_sentence(exercises.stored_sentence(text, "zh"), "en") == text
    wrong = status("02", 1, lambda m: torch.device("cpu"))[1]
    assert exercises.stored_sentence(wrong, "zh") == wrong  # only what a stub or a right answer prints
